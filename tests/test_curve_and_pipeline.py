"""The privacy-utility curve and PublicFittedPipeline: tests for the gaps of a
mutation round (display, pipeline, utils/_private_errors, utils/_nested_fit;
45 mutants, 26 real gaps; the utilities' tests are in test_withheld_messages).

Each test fails on the mutant named in its comment. No test depends on
timing; none is statistical.
"""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from sklearn_semiprivate import (
    PrivacyAccountant,
    PublicData,
    SemiPrivateClassifier,
    make_public_fitted_pipeline,
)
from sklearn_semiprivate.display import PrivacyUtilityDisplay, privacy_utility_curve

SECRET = "Alice Smith, HIV+"


class _Log(list):
    """A list that ``clone`` shares instead of copying, to record every fit."""

    def __deepcopy__(self, memo):
        return self


class RecordingClassifier(ClassifierMixin, BaseEstimator):
    """Records what each fit got (as in tests/display)."""

    def __init__(self, epsilon=1.0, log=None):
        self.epsilon = epsilon
        self.log = log

    def fit(self, X, y, X_public=None, y_public=None):
        self.log.append({"X_public": X_public})
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)


def _curve_data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(300, 3))
    X_pub = rng.uniform(size=(40, 3))
    X_test = rng.uniform(size=(200, 3))
    label = lambda Z: (Z[:, 0] > 0.5).astype(int)  # noqa: E731
    return X, label(X), X_pub, label(X_pub), X_test, label(X_test)


# --- display/_curve.py ----------------------------------------------------------


def test_a_failing_baseline_fails_first_and_quotes_no_private_cell():
    # A review: the "non_private" baseline (a scikit-learn scaler and
    # logistic regression on the raw private rows) ran after every charged
    # fit, unwrapped: on a table with a string column it failed after the
    # whole curve was charged, quoting "could not convert string to float:
    # '<private cell>'". Baselines now run first, their private fits wrapped.
    pd = pytest.importorskip("pandas")
    X, y, X_pub, y_pub, X_test, y_test = _curve_data()

    def frame(Z):
        city = np.where(Z[:, 2] > 0.5, "paris", "rome").astype(object)
        return pd.DataFrame({"a": Z[:, 0], "b": Z[:, 1], "city": city})

    X, X_pub, X_test = frame(X), frame(X_pub), frame(X_test)
    X.loc[0, "city"] = SECRET  # the first cell a float conversion meets
    ledger = PrivacyAccountant(epsilon=50.0)
    encode = ColumnTransformer(
        [("city", OneHotEncoder(handle_unknown="ignore"), ["city"])],
        remainder="passthrough",
    )
    estimator = make_public_fitted_pipeline(
        encode, SemiPrivateClassifier(classes=[0, 1], accountant=ledger)
    )
    with pytest.raises(ValueError) as info:
        privacy_utility_curve(
            estimator, X, y, X_public=PublicData(X_pub, y_pub), X_test=X_test,
            y_test=y_test, param_name="semiprivateclassifier__epsilon",
            param_values=[0.5, 1.0], n_repeats=2, baselines=["non_private"],
        )  # fmt: skip
    assert SECRET not in str(info.value)
    assert "could not convert string to float" in str(info.value)
    assert ledger.history == []


@pytest.mark.parametrize("bad", ["string", "1-D"])
def test_curve_test_row_format_errors_quote_no_value_and_cost_nothing(bad):
    # Mutant DC02: X_test checked with check_array directly, so its message
    # quoted the test rows (they may be held-out private rows), before the
    # charge.
    X, y, X_pub, _, X_test, y_test = _curve_data()
    if bad == "string":
        X_test = X_test.astype(object)
        X_test[3, 1] = SECRET
    else:
        X_test = np.full(len(y_test), 123456.789)
    ledger = PrivacyAccountant(epsilon=100.0)
    with pytest.raises(ValueError) as info:
        privacy_utility_curve(
            SemiPrivateClassifier(classes=[0, 1], accountant=ledger),
            X,
            y,
            X_public=PublicData(X_pub),
            X_test=X_test,
            y_test=y_test,
        )
    message = str(info.value)
    assert "Alice" not in message and "123456" not in message, message
    assert "withheld" in message
    assert ledger.history == []


def test_curve_wider_test_rows_are_refused_free():
    # Mutant DC03: only narrower X_test was refused before the first fit; a
    # wider one was refused by the first score, after its fit was charged.
    X, y, X_pub, _, X_test, y_test = _curve_data()
    ledger = PrivacyAccountant(epsilon=100.0)
    with pytest.raises(ValueError, match="X_test has 4 features, but X has 3"):
        privacy_utility_curve(
            SemiPrivateClassifier(classes=[0, 1], accountant=ledger),
            X,
            y,
            X_public=PublicData(X_pub),
            X_test=np.c_[X_test, X_test[:, :1]],
            y_test=y_test,
        )
    assert ledger.history == []


def test_public_only_floor_reads_no_private_row_and_keeps_its_own_scores():
    # Mutant DC05: the "public_only" shortcut was fitted on the private rows;
    # mutant DC08: every baseline reported the first baseline's scores. The
    # public labels here are the reverse of the private and test labels, so
    # only a floor fitted on the public rows scores near 0.
    X, y, X_pub, y_pub, X_test, y_test = _curve_data()
    _, baseline_scores = privacy_utility_curve(
        RecordingClassifier(log=_Log()),
        X,
        y,
        X_public=PublicData(X_pub, 1 - y_pub),
        X_test=X_test,
        y_test=y_test,
        param_values=[1.0],
        n_repeats=1,
        baselines=["non_private", "public_only"],
    )
    assert baseline_scores["non-private LogisticRegression (ceiling)"][0] > 0.9
    assert baseline_scores["public-only LogisticRegression (floor)"][0] < 0.1


def test_curve_passes_public_labels_to_every_fit():
    # Mutant DC06: the estimator got PublicData(X_pub) without the labels.
    X, y, X_pub, y_pub, X_test, y_test = _curve_data()
    log = _Log()
    privacy_utility_curve(
        RecordingClassifier(log=log),
        X,
        y,
        X_public=PublicData(X_pub, y_pub),
        X_test=X_test,
        y_test=y_test,
        param_values=[1.0],
        n_repeats=2,
    )
    assert len(log) == 2
    for record in log:
        np.testing.assert_array_equal(record["X_public"].y, y_pub)


def test_curve_fits_clones_of_the_baselines():
    # Mutant DC07: a baseline given as an estimator was fitted itself.
    from sklearn.linear_model import LogisticRegression

    X, y, X_pub, y_pub, X_test, y_test = _curve_data()
    private, public = LogisticRegression(), LogisticRegression()
    privacy_utility_curve(
        RecordingClassifier(log=_Log()),
        X,
        y,
        X_public=PublicData(X_pub, y_pub),
        X_test=X_test,
        y_test=y_test,
        param_values=[1.0],
        n_repeats=2,
        baselines={"ceiling": private, "floor": (public, "public")},
    )
    assert not hasattr(private, "coef_") and not hasattr(public, "coef_")


def test_curve_public_labels_as_y_public_with_unlabeled_public_data():
    # Mutant DC10: y_public was ignored when X_public was an unlabeled
    # PublicData, so the public-only floor was refused.
    X, y, X_pub, y_pub, X_test, y_test = _curve_data()
    _, baseline_scores = privacy_utility_curve(
        RecordingClassifier(log=_Log()),
        X,
        y,
        X_public=PublicData(X_pub),
        y_public=y_pub,
        X_test=X_test,
        y_test=y_test,
        param_values=[1.0],
        n_repeats=1,
        baselines=["public_only"],
    )
    assert baseline_scores["public-only LogisticRegression (floor)"][0] > 0.8


def test_curve_test_rows_a_searched_pipeline_may_take_are_not_refused():
    # Mutant DC04: only the outer estimator was looked at, so the test rows of
    # a private search over a pipeline that imputes NaN were refused.
    from sklearn.impute import SimpleImputer

    from sklearn_semiprivate.model_selection import PrivateParameterSearch

    X, y, X_pub, _, X_test, y_test = _curve_data()
    X_test = X_test.copy()
    X_test[0, 1] = np.nan
    pipe = make_public_fitted_pipeline(
        SimpleImputer(), SemiPrivateClassifier(classes=[0, 1])
    )
    search = PrivateParameterSearch(
        pipe, {"semiprivateclassifier__hypothesis_class": ["stumps", "partition"]}
    )
    scores, _ = privacy_utility_curve(
        search,
        X,
        y,
        X_public=PublicData(X_pub),
        X_test=X_test,
        y_test=y_test,
        param_name="estimator__semiprivateclassifier__epsilon",
        param_values=[1.0],
        n_repeats=1,
    )
    assert scores.shape == (1, 1)


# --- display/_privacy_utility.py ------------------------------------------------


@pytest.fixture
def plt():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def test_from_estimator_passes_y_public(plt):
    # Mutant DP01: from_estimator dropped y_public (raw X_public and labels).
    X, y, X_pub, y_pub, X_test, y_test = _curve_data()
    display = PrivacyUtilityDisplay.from_estimator(
        RecordingClassifier(log=_Log()),
        X,
        y,
        X_public=X_pub,
        y_public=y_pub,
        X_test=X_test,
        y_test=y_test,
        param_values=[1.0],
        n_repeats=1,
        baselines=["public_only"],
    )
    (floor,) = display.baselines.values()
    assert floor[0] > 0.8


def test_from_cv_results_ignores_train_scores(plt):
    # Mutant DP02: split<k>_train_score columns were taken as repeats too.
    X, y, X_pub, _, _, _ = _curve_data()
    results = (
        GridSearchCV(
            SemiPrivateClassifier("stumps", classes=[0, 1]),
            {"epsilon": [0.1, 10.0]},
            cv=3,
            return_train_score=True,
        )
        .fit(X, y, X_public=PublicData(X_pub))
        .cv_results_
    )
    display = PrivacyUtilityDisplay.from_cv_results(results)
    assert display.scores.shape == (2, 3)
    np.testing.assert_allclose(display.scores.mean(axis=1), results["mean_test_score"])


# --- pipeline -------------------------------------------------------------------


def _pipe_data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(50.0, 10.0, size=(300, 3))
    y = (X[:, 1] > 52.0).astype(int)
    X_pub = rng.normal(50.0, 10.0, size=(60, 3))
    return X, y, X_pub


def test_verbose_never_times_a_transformer_fitted_on_private_rows(capsys):
    # Mutant PL04: with fit_on_private="warn" the transformers' fit on the
    # private rows printed its duration (docs/privacy.rst: durations of work
    # on private rows are not shown).
    from sklearn_semiprivate import PrivacyLeakWarning

    X, y, _ = _pipe_data()
    pipe = make_public_fitted_pipeline(
        StandardScaler(),
        SemiPrivateClassifier(classes=[0, 1], bounds=(-3.0, 3.0)),
        fit_on_private="warn",
        verbose=True,
    )
    with pytest.warns(PrivacyLeakWarning):
        pipe.fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert all("duration not shown" in line and "total=" not in line for line in lines)


def test_frame_and_array_public_rows_are_refused_before_anything():
    # Mutant PC01: a frame X with an array X_public (or the reverse) passed
    # the column check.
    pd = pytest.importorskip("pandas")
    X, y, X_pub = _pipe_data()
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    ledger = PrivacyAccountant(epsilon=10.0)
    pipe = make_public_fitted_pipeline(
        StandardScaler(), SemiPrivateClassifier(classes=[0, 1], accountant=ledger)
    )
    with pytest.raises(ValueError, match="columns must be those of the private X"):
        pipe.fit(frame, y, X_public=PublicData(X_pub))
    with pytest.raises(ValueError, match="columns must be those of the private X"):
        pipe.fit(
            X, y, X_public=PublicData(pd.DataFrame(X_pub, columns=["a", "b", "c"]))
        )
    assert ledger.history == []


def test_three_dimensional_private_rows_are_refused_free():
    # Mutant PC02: 3-D X passed the format check; the probe saw zeros of the
    # public width, so the pipeline charged, then the transform refused X.
    X, y, X_pub = _pipe_data()
    ledger = PrivacyAccountant(epsilon=10.0)
    pipe = make_public_fitted_pipeline(
        StandardScaler(), SemiPrivateClassifier(classes=[0, 1], accountant=ledger)
    )
    with pytest.raises(ValueError, match="2-dimensional"):
        pipe.fit(X[:, :, None], y, X_public=PublicData(X_pub))
    assert ledger.history == []


def test_routed_private_unlabeled_rows_are_refused():
    # Mutant PF05: with metadata routing, X_unlabeled reached the last step
    # untransformed (the refusal ran only without routing).
    import sklearn

    from sklearn_semiprivate import GenericLearnerClassifier

    X, y, X_pub = _pipe_data()
    ledger = PrivacyAccountant(epsilon=10.0)
    with sklearn.config_context(enable_metadata_routing=True):
        last = GenericLearnerClassifier(classes=[0, 1], accountant=ledger)
        last.set_fit_request(X_unlabeled=True)
        pipe = make_public_fitted_pipeline(StandardScaler(), last)
        with pytest.raises(ValueError, match="does not pass X_unlabeled"):
            pipe.fit(X, y, X_public=PublicData(X_pub), X_unlabeled=X[:50])
    assert ledger.history == []


def test_refit_on_an_array_forgets_the_frames_column_names():
    # Mutant PL05: feature_names_in_ of an earlier fit on a data frame was
    # kept by a refit on an array (scikit-learn's contract: it is deleted).
    pd = pytest.importorskip("pandas")
    X, y, X_pub = _pipe_data()
    cols = ["a", "b", "c"]
    pipe = make_public_fitted_pipeline(
        StandardScaler(), SemiPrivateClassifier(classes=[0, 1])
    )
    pipe.fit(
        pd.DataFrame(X, columns=cols), y,
        X_public=PublicData(pd.DataFrame(X_pub, columns=cols)),
    )  # fmt: skip
    np.testing.assert_array_equal(pipe.feature_names_in_, cols)
    pipe.fit(X, y, X_public=PublicData(X_pub))
    assert not hasattr(pipe, "feature_names_in_")


@pytest.mark.parametrize("labeled", [False, True])
def test_pipeline_states_its_last_steps_neighbours_for_the_public_data_given(labeled):
    # Mutant PF02: the pipeline's neighbour relation ignored the fit
    # arguments. A private search over the tree states add/remove with public
    # labels (public selection): without them, replace-one. The mutant said
    # replace-one for a cost that holds for add/remove only (replace-one
    # needs twice the epsilon), understating what a replace-one ledger owes.
    from sklearn_semiprivate import SemiPrivateTreeClassifier
    from sklearn_semiprivate.accounting._reservation import fit_cost, fit_neighbours
    from sklearn_semiprivate.model_selection import PrivateParameterSearch

    _, _, X_pub = _pipe_data()
    y_pub = (X_pub[:, 1] > 52.0).astype(int) if labeled else None
    search = PrivateParameterSearch(
        SemiPrivateTreeClassifier(classes=[0, 1]), {"epsilon": [0.5, 1.0]}
    )
    pipe = make_public_fitted_pipeline(StandardScaler(), search)
    public = {"X_public": PublicData(X_pub, y_pub)}
    assert fit_neighbours(pipe, **public) == fit_neighbours(search, **public)
    assert fit_cost(pipe, **public) == fit_cost(search, **public)
    assert fit_neighbours(pipe, **public) == (
        "add/remove" if labeled else "replace-one"
    )


# --- a review of workflows (s19): the curve's budget and its test rows -----------


def test_a_ledger_without_room_for_the_whole_curve_refuses_it_before_any_fit():
    # Before: charged fit by fit, 3.5 of 4.0 spent, then PrivacyBudgetError
    # and no scores.
    from sklearn_semiprivate import PrivacyBudgetError, SemiPrivateTreeClassifier

    X, y, X_pub, _, X_test, y_test = _curve_data()
    ledger = PrivacyAccountant(epsilon=4.0)
    est = SemiPrivateTreeClassifier(classes=[0, 1], accountant=ledger)
    with pytest.raises(PrivacyBudgetError):
        privacy_utility_curve(
            est, X, y, X_public=PublicData(X_pub), X_test=X_test, y_test=y_test,
            param_values=[0.5, 1.0], n_repeats=3,
        )  # fmt: skip
    assert ledger.history == []
    # With room: one record per fit, each at its own epsilon.
    ledger = PrivacyAccountant(epsilon=4.5)
    est.set_params(accountant=ledger)
    scores, _ = privacy_utility_curve(
        est, X, y, X_public=PublicData(X_pub), X_test=X_test, y_test=y_test,
        param_values=[0.5, 1.0], n_repeats=3,
    )  # fmt: skip
    assert scores.shape == (2, 3)
    assert sorted(c.cost.epsilon for c in ledger.history) == [0.5] * 3 + [1.0] * 3


def test_the_whole_budget_check_counts_baselines_and_charges_nothing_up_front():
    # A second review: a baseline holding the same ledger was outside the
    # check (the budget spent, no scores), and fits charged up front were
    # charged even when refused for free or never run.
    from sklearn_semiprivate import (
        PrivacyBudgetError,
        SemiPrivateLogisticRegression,
        SemiPrivateTreeClassifier,
    )

    X, y, X_pub, _, X_test, y_test = _curve_data()
    # The curve 2 x 0.5 fits in 2.5, with the baseline's 2 x 1 it does not.
    ledger = PrivacyAccountant(epsilon=2.5, delta=1e-3)
    est = SemiPrivateTreeClassifier(classes=[0, 1], accountant=ledger)
    baseline = SemiPrivateLogisticRegression(
        classes=[0, 1], bounds=(0, 1), accountant=ledger
    )
    with pytest.raises(PrivacyBudgetError):
        privacy_utility_curve(
            est, X, y, X_public=PublicData(X_pub), X_test=X_test, y_test=y_test,
            param_values=[0.5], n_repeats=2, baselines={"dp": baseline},
        )  # fmt: skip
    assert ledger.history == []
    # A value its estimator refuses for free costs nothing: DP-SGD cannot
    # certify epsilon = 0.001 at delta = 1e-300 (refused before its charge).
    ledger = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    lr = SemiPrivateLogisticRegression(classes=[0, 1], delta=1e-300, accountant=ledger)
    with pytest.raises(ValueError, match="cannot certify"):
        privacy_utility_curve(
            lr, X, y, X_public=PublicData(X_pub), X_test=X_test, y_test=y_test,
            param_values=[0.001], n_repeats=2,
        )  # fmt: skip
    assert ledger.history == []


def test_a_scoring_error_on_the_test_rows_quotes_no_value():
    # Before: a PublicFittedPipeline (whose test rows are not checked before
    # the first fit) gave scikit-learn's "could not convert string to float:
    # '<cell>'" after that fit's charge.
    from sklearn_semiprivate import SemiPrivateTreeClassifier

    X, y, X_pub, _, X_test, y_test = _curve_data()
    X_test = X_test.astype(object)
    X_test[3, 1] = SECRET
    ledger = PrivacyAccountant(epsilon=10.0)
    pipe = make_public_fitted_pipeline(
        StandardScaler(), SemiPrivateTreeClassifier(classes=[0, 1], accountant=ledger)
    )
    with pytest.raises(ValueError) as info:
        privacy_utility_curve(
            pipe, X, y, X_public=PublicData(X_pub), X_test=X_test, y_test=y_test,
            param_name="semiprivatetreeclassifier__epsilon", param_values=[0.5, 1.0],
            n_repeats=2,
        )  # fmt: skip
    assert SECRET not in str(info.value) and "Alice" not in str(info.value)
    assert info.value.__cause__ is None and info.value.__context__ is None
    # Each fit charges as it runs (no fit was reserved ahead of it).
    assert 1 <= len(ledger.history) <= 4


def test_the_whole_budget_check_uses_a_final_estimator_s_own_cost():
    # A third review: SemiPrivateClassifier's final_estimator is fitted with
    # its own ledgers and charges them its own cost; the check used the outer
    # cost there, passing a curve that ledger could not hold (the third fit
    # refused after the outer charge) and refusing one it could.
    from sklearn_semiprivate import PrivacyBudgetError, SemiPrivateTreeClassifier

    X, y, X_pub, _, X_test, y_test = _curve_data()
    outer, final = PrivacyAccountant(epsilon=100.0), PrivacyAccountant(epsilon=5.0)

    def make(final_epsilon):
        return SemiPrivateClassifier(
            "stumps", epsilon=0.7, classes=[0, 1], accountant=outer,
            final_estimator=SemiPrivateTreeClassifier(
                epsilon=final_epsilon, classes=[0, 1], accountant=final
            ),
        )  # fmt: skip

    with pytest.raises(PrivacyBudgetError):  # 3 x 2.0 > 5.0
        privacy_utility_curve(
            make(2.0), X, y, X_public=PublicData(X_pub), X_test=X_test,
            y_test=y_test, param_values=[0.7], n_repeats=3,
        )  # fmt: skip
    assert outer.history == [] and final.history == []
    final = PrivacyAccountant(epsilon=1.0)  # holds 3 x 0.1, not 3 x 0.7
    scores, _ = privacy_utility_curve(
        make(0.1), X, y, X_public=PublicData(X_pub), X_test=X_test,
        y_test=y_test, param_values=[0.7], n_repeats=3,
    )  # fmt: skip
    assert scores.shape == (1, 3)
    assert [c.cost.epsilon for c in final.history] == [0.1] * 3
