"""PrivateParameterSearch as users run it: accounting, secrecy, errors, sklearn."""

import pickle
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_validate
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_semiprivate import (
    PATEClassifier,
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyCost,
    PrivacyLeakWarning,
    PublicData,
    SemiPrivateClassifier,
    make_public_fitted_pipeline,
    reproducible_noise,
)
from sklearn_semiprivate.model_selection import PrivateParameterSearch
from sklearn_semiprivate.model_selection import _private_fits as fits_module
from sklearn_semiprivate.model_selection import _search_steps as search_module


def _data(n=400, n_pub=40, seed=0, d=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    y = (X[:, 1] > 0.6).astype(int)
    X_pub = rng.uniform(size=(n_pub, d))
    return X, y, X_pub, (X_pub[:, 1] > 0.6).astype(int)


def _base(**kwargs):
    return SemiPrivateClassifier(classes=[0, 1], **kwargs)


GRID = {"hypothesis_class": ["stumps", "partition"], "epsilon": [0.5, 1.0]}


# --- exact accounting ---------------------------------------------------------


def test_random_stopping_total_is_three_runs_plus_refit():
    X, y, X_pub, _ = _data()
    ledger = PrivacyAccountant(epsilon=100)
    search = PrivateParameterSearch(_base(), GRID, accountant=ledger)
    search.fit(X, y, X_public=PublicData(X_pub))
    # largest candidate epsilon 1.0: 3 * max(1.0, score 1.0) + refit 1.0
    assert search.privacy_spent_ == PrivacyCost(4.0, 0.0)
    assert ledger.spent() == PrivacyCost(4.0, 0.0)
    assert len(ledger.history) == 1  # one reservation, no per-fit charges
    assert search.selection_ == "random_stopping"


@pytest.mark.parametrize(
    ("score_epsilon", "refit", "expected"),
    [(None, False, 3.0), (2.0, False, 6.0), (0.25, True, 4.0), (2.0, True, 7.0)],
)
def test_random_stopping_total_exact(score_epsilon, refit, expected):
    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(
        _base(), GRID, score_epsilon=score_epsilon, refit=refit
    )
    search.fit(X, y, X_public=PublicData(X_pub))
    assert search.privacy_spent_ == PrivacyCost(expected, 0.0)


def test_public_selection_total_is_the_sum_of_fits():
    X, y, X_pub, y_pub = _data()
    ledger = PrivacyAccountant(epsilon=100)
    search = PrivateParameterSearch(_base(), GRID, accountant=ledger)
    search.fit(X, y, X_public=PublicData(X_pub, y_pub))
    assert search.selection_ == "public"
    # two classes x (0.5 + 1.0): basic composition of the four fits
    assert search.privacy_spent_ == PrivacyCost(3.0, 0.0)
    assert ledger.spent() == PrivacyCost(3.0, 0.0)
    np.testing.assert_array_equal(
        search.cv_results_["cost_epsilon"],
        [p["epsilon"] for p in search.cv_results_["params"]],
    )


def test_cost_does_not_grow_with_the_grid():
    X, y, X_pub, _ = _data(n=200)
    small = {"epsilon": [1.0], "n_public": [10, 20]}
    large = {"epsilon": [1.0], "n_public": list(range(5, 41))}
    costs = [
        PrivateParameterSearch(_base(), grid, refit=False)
        .fit(X, y, X_public=PublicData(X_pub))
        .privacy_spent_
        for grid in (small, large)
    ]
    assert costs[0] == costs[1] == PrivacyCost(3.0, 0.0)


def test_refused_search_fits_nothing(monkeypatch):
    X, y, X_pub, _ = _data()
    fits = []
    monkeypatch.setattr(
        fits_module, "fit_and_count", lambda *a: fits.append(a) or (None, 0)
    )
    for module in (search_module, fits_module):
        monkeypatch.setattr(module, "fit_only", lambda *a: fits.append(a))
    # Random stopping costs 4.0 here, exponential selection 3.3.
    for selection, budget in (("random_stopping", 3.5), ("exponential", 3.2)):
        ledger = PrivacyAccountant(epsilon=budget)
        search = PrivateParameterSearch(
            _base(), GRID, selection=selection, accountant=ledger
        )
        with pytest.raises(PrivacyBudgetError):
            search.fit(X, y, X_public=PublicData(X_pub))
        assert ledger.spent() == PrivacyCost(0.0, 0.0)
    assert fits == []


def test_ledger_on_the_estimator_is_charged_once():
    X, y, X_pub, _ = _data()
    ledger = PrivacyAccountant(epsilon=100)
    search = PrivateParameterSearch(_base(accountant=ledger), GRID, refit=False)
    search.fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent() == PrivacyCost(3.0, 0.0)
    assert len(ledger.history) == 1
    # The fitted candidate charged nothing of its own, and names the ledger
    # again: a clone of it refitted on private rows charges it.
    best = search.best_estimator_
    assert best.accountant is ledger
    clone(best).fit(X, y, X_public=PublicData(X_pub))
    assert len(ledger.history) == 2
    assert ledger.spent() == PrivacyCost(3.0 + best.epsilon, 0.0)


def test_best_estimator_gets_the_given_verbose_back(capsys):
    # The runs print nothing (a line per run would count them); the fitted
    # winner has the user's verbose again, and the search's ledger.
    X, y, X_pub, _ = _data()
    ledger = PrivacyAccountant(epsilon=100)
    search = PrivateParameterSearch(
        _base(verbose=1), {"epsilon": [0.5, 1.0]}, accountant=ledger
    )
    search.fit(X, y, X_public=PublicData(X_pub))
    assert capsys.readouterr().out == ""
    assert search.best_estimator_.verbose == 1
    assert search.best_estimator_.accountant is ledger


def test_two_ledgers_are_an_error():
    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(
        _base(accountant=PrivacyAccountant(10)),
        GRID,
        accountant=PrivacyAccountant(10),
    )
    with pytest.raises(ValueError, match="different accountants"):
        search.fit(X, y, X_public=PublicData(X_pub))


def test_parallel_runs_charge_only_the_reservation():
    X, y, X_pub, _ = _data()
    ledger = PrivacyAccountant(epsilon=100)  # in memory: workers cannot charge it
    search = PrivateParameterSearch(_base(), GRID, accountant=ledger, n_jobs=2)
    search.fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent() == PrivacyCost(4.0, 0.0)
    assert search.score(X, y) > 0.5


# --- what is released -----------------------------------------------------------


def test_only_the_winner_is_scored():
    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(_base(), GRID, n_runs=20)
    search.fit(X, y, X_public=PublicData(X_pub))
    results = search.cv_results_
    scores = results["mean_test_score"]
    assert np.isnan(np.delete(scores, search.best_index_)).all()
    assert 0.0 <= scores[search.best_index_] <= 1.0
    assert results["selected"].sum() == 1
    assert "rank_test_score" not in results
    # Nothing per run is kept: no attribute holds the number of runs, their
    # candidates or their scores.
    fitted = {k for k in vars(search) if k.endswith("_") and not k.startswith("_")}
    assert fitted == {
        "best_estimator_",
        "best_index_",
        "best_params_",
        "best_score_",
        "cv_results_",
        "privacy_neighbours_",
        "privacy_spent_",
        "selection_",
    }


def test_noise_is_fresh_even_with_a_seed():
    # Same seed, same data: the secret split, runs and noise differ between
    # fits, so the noisy validation scores differ. Random labels keep the
    # accuracy near 1/2, where the score is never clipped to 0 or 1 (with
    # labels a stump fits, all five clipped to 1.0 happened ~3% of the time).
    X, _, X_pub, _ = _data()
    y = np.random.default_rng(1).integers(2, size=len(X))
    search = PrivateParameterSearch(_base(random_state=0), GRID, random_state=0)
    scores = {
        clone(search).fit(X, y, X_public=PublicData(X_pub)).best_score_
        for _ in range(5)
    }
    assert len(scores) > 1


def test_reproducible_noise_gives_identical_searches():
    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(_base(random_state=0), GRID, random_state=0)
    with reproducible_noise():
        a = clone(search).fit(X, y, X_public=PublicData(X_pub))
        b = clone(search).fit(X, y, X_public=PublicData(X_pub))
    assert a.best_score_ == b.best_score_
    assert a.best_index_ == b.best_index_


def test_public_selection_scores_every_candidate_on_public_rows():
    X, y, X_pub, y_pub = _data()
    search = PrivateParameterSearch(_base(), GRID)
    search.fit(X, y, X_public=PublicData(X_pub, y_pub))
    results = search.cv_results_
    assert not np.isnan(results["mean_test_score"]).any()
    assert results["rank_test_score"][search.best_index_] == 1
    assert search.best_score_ == pytest.approx(
        search.best_estimator_.score(X_pub, y_pub)
    )
    assert search.best_score_ == results["mean_test_score"].max()


def test_public_labels_are_not_given_to_the_candidates(monkeypatch):
    X, y, X_pub, y_pub = _data()
    seen = []
    original = SemiPrivateClassifier.fit

    def spy(self, X, y, X_public=None, y_public=None):
        seen.append(X_public.y if isinstance(X_public, PublicData) else y_public)
        return original(self, X, y, X_public=X_public, y_public=y_public)

    monkeypatch.setattr(SemiPrivateClassifier, "fit", spy)
    PrivateParameterSearch(_base(), GRID).fit(X, y, X_public=PublicData(X_pub, y_pub))
    assert seen and all(labels is None for labels in seen)


# --- errors, once and before any charge ---------------------------------------


def test_candidate_that_cannot_fit_fails_once_before_charging():
    X, y, X_pub, _ = _data(d=5)
    ledger = PrivacyAccountant(epsilon=100)
    grid = {"hypothesis_class": ["stumps", "thresholds", "halfplanes"]}
    search = PrivateParameterSearch(_base(), grid, accountant=ledger)
    with pytest.raises(ValueError, match="hypothesis_class='thresholds'"):
        search.fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_exhausted_ledger_answers_no_transform_question():
    # A public-fitted encoder that fails on a private category would answer
    # "is this category among the private rows?" if the private rows were
    # transformed before the charge. They are not: the refusal comes first.
    pd = pytest.importorskip("pandas")
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"city": ["paris"] * 5 + ["rome"] * 45, "x": rng.uniform(size=50)})
    y = (X["x"] > 0.5).astype(int).to_numpy()
    X_pub = pd.DataFrame({"city": ["rome", "oslo"], "x": [0.2, 0.7]})
    # Dense output: the last step refuses sparse public rows, which the
    # pipeline's check before the charge now reports first.
    pipe = make_public_fitted_pipeline(
        OneHotEncoder(handle_unknown="error", sparse_output=False),
        _base(bounds=(0, 1)),
    )
    ledger = PrivacyAccountant(epsilon=1.0)
    ledger.spend(1.0)
    with pytest.raises(PrivacyBudgetError):
        PrivateParameterSearch(
            pipe, {"semiprivateclassifier__epsilon": [1.0]}, accountant=ledger
        ).fit(X, y, X_public=PublicData(X_pub))
    pipe.set_params(semiprivateclassifier__accountant=ledger)
    with pytest.raises(PrivacyBudgetError):
        pipe.fit(X, y, X_public=PublicData(X_pub))


def test_runs_print_nothing(capsys):
    # The candidates' own progress would count the secret runs.
    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(_base(verbose=1), GRID, n_runs=10, verbose=1)
    search.fit(X, y, X_public=PublicData(X_pub))
    out = capsys.readouterr().out
    assert "[SemiPrivateClassifier]" not in out
    assert out.count("[PrivateParameterSearch]") == 5


def test_grid_may_not_set_a_ledger():
    X, y, X_pub, _ = _data()
    grid = {"epsilon": [1.0], "accountant": [PrivacyAccountant(1.0)]}
    with pytest.raises(ValueError, match="may not set an accountant"):
        PrivateParameterSearch(_base(), grid).fit(X, y, X_public=PublicData(X_pub))


def test_public_selection_takes_classes_from_public_labels():
    # A candidate without classes= would read the label set off private y.
    X, y, X_pub, y_pub = _data()
    search = PrivateParameterSearch(SemiPrivateClassifier(), {"epsilon": [1.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no PrivacyLeakWarning
        search.fit(X, y, X_public=PublicData(X_pub, y_pub))
    np.testing.assert_array_equal(search.classes_, [0, 1])


def _assert_failure_hidden():
    # Five labels outside classes: a fit that meets them fails after the
    # charge, and the error names neither the candidate nor the cause.
    X, y, X_pub, _ = _data()
    y = y.copy()
    y[:5] = 2
    ledger = PrivacyAccountant(epsilon=100)
    search = PrivateParameterSearch(_base(), GRID, accountant=ledger)
    with pytest.raises(RuntimeError, match="not shown") as info:
        search.fit(X, y, X_public=PublicData(X_pub))
    assert "classes" not in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert ledger.spent() == PrivacyCost(4.0, 0.0)


def test_failed_run_is_reported_without_details():
    _assert_failure_hidden()


def test_failed_refit_is_reported_without_details(monkeypatch):
    # Every run succeeds but the winner's refit on all rows fails (as when
    # every bad label falls in the secret validation part, which made a CI
    # run fail): that failure depends on the secret split and winner, so it
    # is hidden too.
    from sklearn_semiprivate.model_selection import _private_fits

    original = _private_fits.fit_and_count

    def runs_see_good_labels_only(est, X_tr, y_tr, X_val, y_val, params, pid):
        keep = y_tr != 2
        return original(est, X_tr[keep], y_tr[keep], X_val, y_val, params, pid)

    monkeypatch.setattr(_private_fits, "fit_and_count", runs_see_good_labels_only)
    _assert_failure_hidden()


def test_random_stopping_runs_take_the_label_set_of_all_rows(monkeypatch):
    # A review: runs of candidates without classes= read the label set off
    # their secret training part, and one fewer row of a rare label made a
    # run (hence the search) fail 5 times as often. Every run now gets the
    # label set of all the private rows.
    from sklearn_semiprivate.model_selection import _private_fits

    X, y, X_pub, _ = _data()
    y = np.zeros_like(y)
    y[3] = 1  # a single row of label 1: absent from most training parts
    original = _private_fits.fit_and_count
    seen = []

    def spy(est, *args):
        seen.append(est.get_params()["classes"])
        return original(est, *args)

    monkeypatch.setattr(_private_fits, "fit_and_count", spy)
    search = PrivateParameterSearch(
        SemiPrivateClassifier(), {"epsilon": [0.5, 1.0]}, selection="random_stopping"
    )
    with pytest.warns(PrivacyLeakWarning, match="label set"):
        search.fit(X, y, X_public=PublicData(X_pub))
    assert seen and all(np.array_equal(c, [0, 1]) for c in seen)
    np.testing.assert_array_equal(search.best_estimator_.classes_, [0, 1])


@pytest.mark.parametrize("selection", ["random_stopping", "exponential"])
def test_declared_classes_of_a_meta_estimator_reach_its_base(selection):
    # A review: the search filled every unset classes parameter, nested ones
    # too, with the private label set, so the active classifier's base got
    # [0, 1] instead of its declared [0, 1, 2] (and [0, 1, 2] on a neighbour
    # with one label 2), with no warning. Its declared set is public.
    from sklearn_semiprivate import SubSamplingActiveClassifier

    rng = np.random.default_rng(0)
    X, X_pub = rng.uniform(size=(4000, 2)), rng.uniform(size=(50, 2))
    y = (X[:, 0] > 0.5).astype(int)
    active = SubSamplingActiveClassifier(
        SemiPrivateClassifier("stumps", epsilon=1.0), epsilon=0.5, classes=[0, 1, 2]
    )
    search = PrivateParameterSearch(
        active, {"epsilon": [0.4, 0.5]}, selection=selection
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing read off the private labels
        search.fit(X, y, X_public=PublicData(X_pub))
    np.testing.assert_array_equal(search.best_estimator_.estimator_.classes_, [0, 1, 2])


def test_private_label_set_with_one_label_is_refused_without_naming_it():
    X, y, X_pub, _ = _data()
    y = np.full_like(y, 7)
    ledger = PrivacyAccountant(epsilon=100)
    search = PrivateParameterSearch(
        SemiPrivateClassifier(), GRID, accountant=ledger, selection="random_stopping"
    )
    with pytest.warns(PrivacyLeakWarning, match="label set"):
        with pytest.raises(ValueError, match="only one class") as info:
            search.fit(X, y, X_public=PublicData(X_pub))
    assert "7" not in str(info.value)
    assert ledger.history == []


def test_random_stopping_checks_candidates_on_the_training_part_size():
    # A review: the dry run used all 4000 rows, the runs 3200; an active
    # classifier whose pool bound (3948 rows) held for 4000 passed, and the
    # search charged its whole cost before every run failed.
    from sklearn_semiprivate import SubSamplingActiveClassifier

    rng = np.random.default_rng(0)
    X, X_pub = rng.uniform(size=(4000, 2)), rng.uniform(size=(50, 2))
    y = (X[:, 0] > 0.5).astype(int)
    base = SemiPrivateClassifier("stumps", epsilon=1.0, classes=[0, 1])
    active = SubSamplingActiveClassifier(
        base, epsilon=0.5, n_subsample=190, classes=[0, 1]
    )
    ledger = PrivacyAccountant(10.0)
    search = PrivateParameterSearch(active, {"n_labeled": [50, 100]}, accountant=ledger)
    with pytest.raises(ValueError, match="before any budget was spent"):
        search.fit(X, y, X_public=PublicData(X_pub))
    assert ledger.history == []


def test_threading_backend_leaves_warning_filters_alone():
    from joblib import parallel_backend

    X, y, X_pub, _ = _data()
    before = list(warnings.filters)
    with parallel_backend("threading", n_jobs=2):
        PrivateParameterSearch(_base(), GRID, n_jobs=2, n_runs=8).fit(
            X, y, X_public=PublicData(X_pub)
        )
    assert warnings.filters == before


def test_estimator_without_ledger_is_refused():
    X, y, _, _ = _data()
    search = PrivateParameterSearch(LogisticRegression(), {"C": [0.1, 1.0]})
    with pytest.raises(TypeError, match="does not state its privacy cost"):
        search.fit(X, y)


def test_public_selection_needs_public_labels():
    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(_base(), GRID, selection="public")
    with pytest.raises(ValueError, match="public labels"):
        search.fit(X, y, X_public=PublicData(X_pub))


def test_random_stopping_needs_two_rows():
    search = PrivateParameterSearch(_base(bounds=(0, 1)), {"epsilon": [1.0]})
    with pytest.raises(ValueError, match="at least 2 rows"):
        search.fit(np.array([[0.5, 0.5]]), np.array([1]))


@pytest.mark.parametrize(
    "params",
    [
        {"n_runs": 0.5},
        {"validation_fraction": 1.0},
        {"score_epsilon": 0.0},
        {"selection": "grid"},
    ],
)
def test_bad_parameters(params):
    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(_base(), GRID, **params)
    with pytest.raises(ValueError):
        search.fit(X, y, X_public=PublicData(X_pub))


def test_empty_grid():
    X, y, X_pub, _ = _data()
    with pytest.raises(ValueError, match="no candidate"):
        PrivateParameterSearch(_base(), []).fit(X, y, X_public=PublicData(X_pub))


def test_distributions_draw_public_candidates():
    from scipy.stats import loguniform

    X, y, X_pub, _ = _data()
    dists = {"epsilon": loguniform(0.1, 1.0), "hypothesis_class": ["stumps"]}
    a = PrivateParameterSearch(_base(), dists, n_candidates=4, random_state=3)
    b = clone(a)
    a.fit(X, y, X_public=PublicData(X_pub))
    b.fit(X, y, X_public=PublicData(X_pub))
    # The candidate list is public: the same for the same random_state.
    assert a.cv_results_["params"] == b.cv_results_["params"]
    assert len(a.cv_results_["params"]) == 4
    top = max(p["epsilon"] for p in a.cv_results_["params"])
    assert a.privacy_spent_ == PrivacyCost(4 * top, 0.0)


# --- scikit-learn workflows -------------------------------------------------------


def test_pipeline_with_pandas_and_routing():
    pd = pytest.importorskip("pandas")
    X, y, X_pub, _ = _data()
    cols = ["a", "b", "c"]
    X, X_pub = pd.DataFrame(X, columns=cols), pd.DataFrame(X_pub, columns=cols)
    pipe = make_public_fitted_pipeline(StandardScaler(), _base())
    grid = {"semiprivateclassifier__hypothesis_class": ["stumps", "partition"]}
    ledger = PrivacyAccountant(epsilon=100)
    search = PrivateParameterSearch(pipe, grid, accountant=ledger)
    with sklearn.config_context(enable_metadata_routing=True):
        search.fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent() == PrivacyCost(4.0, 0.0)
    assert search.score(X, y) > 0.8
    assert list(search.feature_names_in_) == cols


def test_clone_pickle_and_cross_validate():
    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(_base(), GRID, refit=False)
    search = pickle.loads(pickle.dumps(clone(search)))
    ledger = PrivacyAccountant(epsilon=100)
    search.set_params(accountant=ledger)
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(
            search, X, y, cv=3, params={"X_public": PublicData(X_pub)}
        )
    assert len(result["test_score"]) == 3
    # Three searches, each 3 x 1.0 (no refit).
    assert ledger.spent() == PrivacyCost(9.0, 0.0)
    fitted = pickle.loads(pickle.dumps(search.fit(X, y, X_public=PublicData(X_pub))))
    np.testing.assert_array_equal(fitted.predict(X), search.predict(X))


@pytest.mark.filterwarnings("ignore::sklearn_semiprivate.PrivacyLeakWarning")
@pytest.mark.filterwarnings("ignore::sklearn_semiprivate.PublicDataWarning")
@parametrize_with_checks(
    [
        PrivateParameterSearch(
            SemiPrivateClassifier("partition", random_state=0),
            {"epsilon": [1.0, 5.0]},
            random_state=0,
        ),
        PrivateParameterSearch(
            SemiPrivateClassifier("partition", random_state=0),
            {"epsilon": [1.0, 5.0]},
            selection="exponential",
            random_state=0,
        ),
    ]
)
def test_sklearn_compatible_search(estimator, check):
    # Inside reproducible_noise, as tests/test_common.py explains: several
    # checks compare two fits. Without public data the partition's bounds are
    # read off the private rows (PrivacyLeakWarning, expected here).
    with reproducible_noise():
        check(estimator)


def test_cv_results_feed_the_privacy_utility_display():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_semiprivate.display import PrivacyUtilityDisplay

    X, y, X_pub, y_pub = _data()
    public = PrivateParameterSearch(_base(), GRID).fit(
        X, y, X_public=PublicData(X_pub, y_pub)
    )
    display = PrivacyUtilityDisplay.from_cv_results(public.cv_results_)
    np.testing.assert_array_equal(display.param_values, [0.5, 1.0])
    assert not np.isnan(display.scores).any()
    plt.close(display.figure_)
    # Random stopping scores the winner only: one point, the others skipped.
    private = PrivateParameterSearch(_base(), GRID).fit(
        X, y, X_public=PublicData(X_pub)
    )
    display = PrivacyUtilityDisplay.from_cv_results(private.cv_results_)
    assert display.param_values.tolist() == [private.best_params_["epsilon"]]
    plt.close(display.figure_)


@pytest.mark.filterwarnings("ignore::sklearn_semiprivate.PublicDataWarning")
def test_warns_when_runs_would_read_bounds_off_private_rows():
    # The candidates warn only after their reservation, inside silent runs;
    # whether they will read the bounds is public, so the search warns.
    X, y, _, _ = _data()
    with pytest.warns(PrivacyLeakWarning, match="bounds"):
        PrivateParameterSearch(_base(), {"epsilon": [1.0]}).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        PrivateParameterSearch(_base(bounds=(0, 1)), {"epsilon": [1.0]}).fit(X, y)


def test_ledger_inside_a_grid_value_is_charged_or_refused():
    from sklearn_semiprivate.research import PublicDataReduction

    X, y, X_pub, _ = _data(n=100)
    ledger = PrivacyAccountant(epsilon=100)
    grid = {
        "estimator": [
            _base(epsilon=0.5, accountant=ledger),
            _base(epsilon=1.0, accountant=ledger),
        ]
    }
    search = PrivateParameterSearch(
        PublicDataReduction(_base(), n_public=2, classes=[0, 1]), grid, refit=False
    )
    search.fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent() == search.privacy_spent_ == PrivacyCost(3.0, 0.0)
    grid["estimator"].append(_base(accountant=PrivacyAccountant(epsilon=100)))
    with pytest.raises(ValueError, match="different accountants"):
        search.fit(X, y, X_public=PublicData(X_pub))


class _CostedNoLedger(SemiPrivateClassifier):
    """States a cost but has no accountant to stop its dry run at."""

    def get_params(self, deep=True):
        params = super().get_params(deep=deep)
        params.pop("accountant")
        return params


def test_candidate_without_ledger_is_refused_before_any_fit(monkeypatch):
    # Its dry run would be a whole, uncharged fit on the private rows.
    X, y, X_pub, _ = _data()
    fits = []
    monkeypatch.setattr(
        SemiPrivateClassifier, "fit", lambda self, *a, **k: fits.append(1)
    )
    with pytest.raises(TypeError, match="no accountant parameter"):
        PrivateParameterSearch(_CostedNoLedger(classes=[0, 1]), {"epsilon": [1.0]}).fit(
            X, y, X_public=PublicData(X_pub)
        )
    assert fits == []


def test_worker_silencing_gives_the_filters_back():
    # A reused worker process must not keep warnings switched off.
    from sklearn_semiprivate.model_selection._candidates import fit_only

    class Noisy(SemiPrivateClassifier):
        def fit(self, X, y, **kwargs):
            warnings.warn("run warning", UserWarning, stacklevel=2)
            return self

    before = list(warnings.filters)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        inside = list(warnings.filters)
        fit_only(Noisy(), None, None, {}, pid=-1)  # as in another process
        assert list(warnings.filters) == inside
    assert caught == []
    assert list(warnings.filters) == before


class _WarnsAfterReading(SemiPrivateClassifier):
    """A candidate whose fit warns after reading the private rows: the
    warning (e.g. a solver's ConvergenceWarning) is a function of them."""

    def fit(self, X, y, X_public=None, y_public=None):
        super().fit(X, y, X_public=X_public, y_public=y_public)
        warnings.warn("depends on the private rows", ConvergenceWarning, stacklevel=2)
        return self


def test_private_run_warnings_stay_dropped_in_threads():
    # The search's runs in threads (joblib's threading backend) while another
    # thread swaps the process-wide warning filters, as scikit-learn's input
    # checks do: the runs' warnings must still not be shown.
    import threading
    import time

    from joblib import parallel_backend

    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(
        _WarnsAfterReading(classes=[0, 1]),
        {"epsilon": [0.5, 1.0]},
        n_jobs=2,
        n_runs=6,
    )
    done = threading.Event()

    def swaps():
        while not done.is_set():
            with warnings.catch_warnings():
                time.sleep(1e-4)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        swapper = threading.Thread(target=swaps)
        swapper.start()
        try:
            with parallel_backend("threading", n_jobs=2):
                for _ in range(8):
                    clone(search).fit(X, y, X_public=PublicData(X_pub))
        finally:
            done.set()
            swapper.join()
    assert [w for w in caught if w.category is ConvergenceWarning] == []


class _FailsOnHuge(ClassifierMixin, BaseEstimator):
    """Predicts x0 > 0.5, and raises on a row with a huge value (as a scaler
    that overflows would)."""

    def fit(self, X, y):
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        if np.any(np.abs(X) > 1e300):
            raise ValueError("overflow")
        return (X[:, 0] > 0.5).astype(int)


def test_count_correct_counts_a_failing_row_as_a_mistake():
    # Review: the search's counts called predict on all the private rows at
    # once, so one huge (finite) private value raised after the charge, on
    # that dataset and not its neighbour. Each row now counts on its own.
    from sklearn_semiprivate.utils._private_predict import count_correct

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(3000, 2))
    y = (X[:, 0] > 0.5).astype(int)
    est = _FailsOnHuge()
    assert count_correct(est, X, y) == 3000
    X[1500, 1] = 1e308  # one row fails: one fewer correct, no error
    assert count_correct(est, X, y) == 2999


def test_search_fits_whether_or_not_a_private_row_breaks_predict():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 2))
    y = (X[:, 0] > 0.5).astype(int)
    X_pub = rng.uniform(size=(30, 2))
    neighbour = X.copy()
    neighbour[0, 0] = 1e308
    est = PATEClassifier(classes=[0, 1], n_teachers=5, aggregator="lnmax", epsilon=20.0)
    for selection in ("exponential", "random_stopping"):
        for data in (X, neighbour):
            ledger = PrivacyAccountant(epsilon=1e6)
            search = PrivateParameterSearch(
                est, {"min_margin": [0.0, 0.5]}, selection=selection, accountant=ledger
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                search.fit(data, y, X_public=PublicData(X_pub))
            assert ledger.spent() == search.privacy_spent_


@pytest.mark.filterwarnings("ignore::sklearn_semiprivate.PublicDataWarning")
@pytest.mark.parametrize(
    ("y_pub", "match"),
    [
        (lambda n: np.zeros(n - 1, dtype=int), "labels for"),
        (lambda n: np.zeros((n, 2), dtype=int), "1-dimensional"),
        (lambda n: np.full(n, np.nan), "NaN"),
    ],
)
def test_bad_public_labels_are_refused_before_the_charge(y_pub, match):
    # Review: a y_public of the wrong length was first noticed when the
    # fitted candidates were scored on it, after the whole search was charged.
    X, y, X_pub, _ = _data()
    ledger = PrivacyAccountant(epsilon=100)
    search = PrivateParameterSearch(_base(), GRID, accountant=ledger)
    with pytest.raises(ValueError, match=match):
        search.fit(X, y, X_public=X_pub, y_public=y_pub(len(X_pub)))
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_length_mismatch_message_quotes_no_count():
    # Fact-check: indexable() ran scikit-learn's length check before the
    # wrapped one, and its message gave both private lengths.
    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(_base(), GRID)
    with pytest.raises(ValueError, match="inconsistent numbers of samples") as err:
        search.fit(X, y[:-1], X_public=PublicData(X_pub))
    assert str(len(y)) not in str(err.value)
    assert str(len(y) - 1) not in str(err.value)
