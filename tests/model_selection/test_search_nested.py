"""PrivateParameterSearch nested in another estimator of this package.

A pipeline ending in a search, and a search as the base learner of an active
classifier or of LabelBoost, reserve the search's cost on its behalf before
any private read. That needs the search's cost from its parameters and its
public inputs alone (``_privacy_cost``), equal to what its own fit reserves,
and a label set handed down (``classes``) instead of read off the rows the
nesting estimator feeds it.
"""

import warnings

import numpy as np
import pytest
from scipy.stats import uniform
from sklearn.preprocessing import StandardScaler

from sklearn_semiprivate import (
    LabelBoostClassifier,
    PrivacyAccountant,
    PrivacyCost,
    PrivacyLeakWarning,
    PublicData,
    PublicFittedPipeline,
    SemiPrivateClassifier,
    SemiPrivateLogisticRegression,
    SemiPrivateTreeClassifier,
    SubSamplingActiveClassifier,
    reproducible_noise,
)
from sklearn_semiprivate.accounting._reservation import fit_cost, fit_neighbours
from sklearn_semiprivate.model_selection import PrivateParameterSearch
from sklearn_semiprivate.model_selection._candidates import open_classes
from sklearn_semiprivate.pipeline import _final_step
from sklearn_semiprivate.research import PublicDataReduction

GRID = {"hypothesis_class": ["stumps", "partition"], "epsilon": [0.5, 1.0]}


def _data(n=600, n_pub=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    X_pub = rng.uniform(size=(n_pub, 3))
    return X, (X[:, 1] > 0.6).astype(int), X_pub, (X_pub[:, 1] > 0.6).astype(int)


def _search(**kwargs):
    return PrivateParameterSearch(SemiPrivateClassifier(classes=[0, 1]), GRID, **kwargs)


@pytest.mark.parametrize(
    ("search", "labeled", "selection", "expected"),
    [
        # 3 x max(1, score 1) + refit 1; the sum of the four fits; the sum
        # plus a tenth of it.
        (_search(), False, "random_stopping", 4.0),
        (_search(), True, "public", 3.0),
        (_search(selection="exponential"), False, "exponential", 3.3),
        (_search(refit=False, score_epsilon=2.0), False, "random_stopping", 6.0),
    ],
)
def test_stated_cost_is_what_fit_reserves(search, labeled, selection, expected):
    X, y, X_pub, y_pub = _data()
    public = PublicData(X_pub, y_pub if labeled else None)
    stated = fit_cost(search, X_public=public)
    assert stated == PrivacyCost(pytest.approx(expected), 0.0)
    ledger = PrivacyAccountant(epsilon=100)
    search.set_params(accountant=ledger).fit(X, y, X_public=public)
    assert search.selection_ == selection
    assert search.privacy_spent_ == stated == ledger.spent()
    assert fit_neighbours(search, X_public=public) == search.privacy_neighbours_


def test_stated_cost_reads_labels_from_y_public_too():
    _, _, X_pub, y_pub = _data()
    search = _search()
    assert fit_cost(search, X_public=X_pub, y_public=y_pub) == PrivacyCost(3.0, 0.0)
    assert fit_cost(search) == PrivacyCost(4.0, 0.0)  # no public rows at all
    with pytest.raises(ValueError, match="needs public labels"):
        fit_cost(_search(selection="public"), X_public=PublicData(X_pub))


@pytest.mark.parametrize("labeled", [False, True])
def test_pipeline_ending_in_a_search_charges_its_cost_once(labeled):
    # Public labels turn "auto" into public selection (3.0 here) rather than
    # random stopping (4.0): the pipeline must reserve for the selection the
    # search will run, so it hands the search its public rows' labels.
    X, y, X_pub, y_pub = _data()
    ledger = PrivacyAccountant(epsilon=100)
    pipe = PublicFittedPipeline(
        [
            ("scale", StandardScaler()),
            (
                "search",
                PrivateParameterSearch(
                    SemiPrivateClassifier(classes=[0, 1], random_state=0),
                    GRID,
                    accountant=ledger,
                    random_state=0,
                ),
            ),
        ]
    )
    # A fixed noise draw, so that the accuracy check below has one verdict
    # (with fresh noise random stopping's winner scored <= 0.9 in 21 of 150
    # fits, 0.82 at worst).
    with warnings.catch_warnings(), reproducible_noise():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        pipe.fit(X, y, X_public=PublicData(X_pub, y_pub if labeled else None))
    search = pipe.steps_[-1][1]
    assert search.selection_ == ("public" if labeled else "random_stopping")
    assert ledger.spent() == search.privacy_spent_
    assert ledger.spent() == PrivacyCost(3.0 if labeled else 4.0, 0.0)
    assert len(ledger.history) == 1
    assert search.accountant is ledger  # set back after the fit
    # The private rows went through the scaler (the majority class is 0.60).
    assert pipe.score(X, y) > 0.9


def test_pipeline_charge_without_the_public_rows_is_caught(monkeypatch):
    # Mutant: the pipeline reserves the last step's cost without telling it
    # about the public rows (as before this was fixed). The search then
    # reserves for random stopping and runs public selection: caught.
    X, y, X_pub, y_pub = _data()

    def mutant(final, final_params, public):
        return original(final, final_params, None)

    original = _final_step.FinalStepMixin._reserve_final
    monkeypatch.setattr(
        _final_step.FinalStepMixin, "_reserve_final", staticmethod(mutant)
    )
    ledger = PrivacyAccountant(epsilon=100)
    pipe = PublicFittedPipeline(
        [("scale", StandardScaler()), ("search", _search(accountant=ledger))]
    )
    pipe.fit(X, y, X_public=PublicData(X_pub, y_pub))
    assert ledger.spent() != pipe.steps_[-1][1].privacy_spent_


# Three classes for the default stumps: they warn (tested in test_semiprivate).
@pytest.mark.filterwarnings(
    "ignore:hypothesis_class='stumps' predicts at most two labels:UserWarning"
)
def test_classes_fill_open_parameters_without_reading_private_labels():
    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(
        SemiPrivateClassifier(), {"epsilon": [0.5, 1.0]}, classes=[0, 1, 2]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        search.fit(X, y, X_public=PublicData(X_pub))
    # The declared set, not the private labels' {0, 1}.
    assert search.best_estimator_.classes_.tolist() == [0, 1, 2]
    assert search.classes_.tolist() == [0, 1, 2]


def test_without_classes_the_private_label_set_is_read_with_a_warning():
    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(SemiPrivateClassifier(), {"epsilon": [0.5, 1.0]})
    with pytest.warns(PrivacyLeakWarning, match="label set is read"):
        search.fit(X, y, X_public=PublicData(X_pub))
    assert search.classes_.tolist() == [0, 1]


def test_one_declared_class_is_refused_before_the_charge():
    X, y, X_pub, _ = _data()
    ledger = PrivacyAccountant(epsilon=100)
    search = PrivateParameterSearch(
        SemiPrivateClassifier(), {"epsilon": [0.5]}, classes=[1], accountant=ledger
    )
    with pytest.raises(ValueError, match="classes= holds only one class"):
        search.fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_active_classifier_hands_its_label_set_to_a_search():
    # The search's label set comes from the active classifier's classes=,
    # never from the queried rows (a set with label 2 absent from y).
    # "partition": three classes, so no two-label warning either.
    X, y, X_pub, _ = _data(n=3000)
    ledger = PrivacyAccountant(epsilon=100)
    search = PrivateParameterSearch(
        SemiPrivateClassifier("partition"), {"epsilon": [0.1, 0.2]}
    )
    active = SubSamplingActiveClassifier(
        search, classes=[0, 1, 2], epsilon=1.0, accountant=ledger
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        active.fit(X, y, X_public=PublicData(X_pub))
    inner = active.estimator_
    assert inner.classes.tolist() == [0, 1, 2]
    assert inner.best_estimator_.classes_.tolist() == [0, 1, 2]
    # One charge, of the active classifier's cost (Claim 5.7 on the search's
    # random stopping total 3 x 0.2 + 0.2).
    assert active.base_privacy_cost_ == PrivacyCost(pytest.approx(0.8), 0.0)
    assert len(ledger.history) == 1
    assert ledger.spent() == active.privacy_spent_


def test_labelboost_over_a_search():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(320_000, 1))
    y = (X[:, 0] > 0.3).astype(int)
    y[2500:] = -1
    search = PrivateParameterSearch(
        SemiPrivateClassifier("thresholds", bounds=(0, 1), n_public=64),
        {"epsilon": [0.2, 0.4]},
        selection="exponential",
    )
    ledger = PrivacyAccountant(epsilon=100)
    clf = LabelBoostClassifier(
        search,
        n_base=10,
        growth_denominator=0.1,
        classes=[0, 1],
        random_state=0,
        accountant=ledger,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.fit(X, y)
    # 0.2 + 0.4 and a tenth of it for the selection (both relations).
    assert clf.base_privacy_cost_ == PrivacyCost(pytest.approx(0.66), 0.0)
    assert ledger.spent() == clf.privacy_spent_ == PrivacyCost(1.0, 0.0)
    assert len(ledger.history) == 1
    assert clf.estimator_.classes.tolist() == [0, 1]


def test_search_over_searches():
    # An inner search is a candidate like any other: its stated cost is
    # what the outer search composes.
    X, y, X_pub, y_pub = _data()
    inner = PrivateParameterSearch(
        SemiPrivateTreeClassifier(), {"epsilon": [0.5, 1.0]}, selection="exponential"
    )
    outer = PrivateParameterSearch(
        inner,
        {"estimator": [SemiPrivateTreeClassifier(), SemiPrivateLogisticRegression()]},
        classes=[0, 1],
    )
    ledger = PrivacyAccountant(epsilon=100, delta=1e-3)
    outer.set_params(accountant=ledger)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        outer.fit(X, y, X_public=PublicData(X_pub, y_pub))
    assert outer.selection_ == "public"
    assert (
        ledger.spent()
        == outer.privacy_spent_
        == fit_cost(outer, X_public=PublicData(X_pub, y_pub))
    )
    assert len(ledger.history) == 1


# --- a review of the nesting (F1-F5) ------------------------------------------


def _sampled(random_state, ledger=None):
    return PrivateParameterSearch(
        SemiPrivateClassifier(classes=[0, 1]),
        {"epsilon": uniform(0.1, 5.0)},
        n_candidates=3,
        random_state=random_state,
        accountant=ledger,
    )


@pytest.mark.parametrize("make_state", [lambda: np.random.RandomState(0), lambda: 7])
def test_sampled_candidates_are_the_ones_charged(make_state):
    # The pipeline reserves the cost of the candidates its last step states,
    # then fits that step: a second draw would run uncharged candidates (the
    # review saw 6.50 charged and 14.19 spent). A generator given as
    # random_state is drawn from as a copy.
    X, y, X_pub, _ = _data()
    for _ in range(3):
        ledger = PrivacyAccountant(epsilon=1e6)
        pipe = PublicFittedPipeline(
            [("scale", StandardScaler()), ("search", _sampled(make_state(), ledger))]
        )
        pipe.fit(X, y, X_public=PublicData(X_pub))
        assert ledger.spent() == pipe.steps_[-1][1].privacy_spent_


def test_fresh_draws_cannot_be_nested():
    X, y, X_pub, _ = _data()
    search = _sampled(None)
    # Alone, a fit draws and reserves its own candidates.
    search.fit(X, y, X_public=PublicData(X_pub))
    ledger = PrivacyAccountant(epsilon=1e6)
    pipe = PublicFittedPipeline(
        [("scale", StandardScaler()), ("search", _sampled(None, ledger))]
    )
    with pytest.raises(ValueError, match="int random_state"):
        pipe.fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_stated_cost_of_a_reduction_over_a_search_follows_the_public_labels():
    # PublicDataReduction hands its learner labeled public rows when public
    # labels are given: the search then selects on them (the sum of the fits,
    # 2 x 0.5 + 2 x 1.0 = 3.0), not by random stopping (4.0).
    X, y, X_pub, y_pub = _data()
    for labels, expected in [(None, 4.0), (y_pub, 3.0)]:
        public = PublicData(X_pub, labels)
        ledger = PrivacyAccountant(epsilon=100)
        red = PublicDataReduction(
            _search(random_state=0, accountant=ledger),
            n_public=5,
            classes=[0, 1],
            random_state=0,
        )
        assert fit_cost(red, X_public=public) == PrivacyCost(expected, 0.0)
        red.fit(X, y, X_public=public)
        assert red.estimator_.privacy_spent_ == PrivacyCost(expected, 0.0)
        assert red.privacy_spent_ == ledger.spent() == PrivacyCost(expected, 0.0)
        ledger = PrivacyAccountant(epsilon=100)
        pipe = PublicFittedPipeline(
            [("red", red.set_params(estimator__accountant=ledger))]
        )
        pipe.fit(X, y, X_public=public)
        assert ledger.spent() == PrivacyCost(expected, 0.0)
        assert pipe.steps_[-1][1].estimator_.selection_ == (
            "public" if labels is not None else "random_stopping"
        )


# Three classes for the default stumps: they warn (tested in test_semiprivate).
@pytest.mark.filterwarnings(
    "ignore:hypothesis_class='stumps' predicts at most two labels:UserWarning"
)
def test_a_search_whose_leaves_declare_classes_reads_no_label_set():
    # The inner search's own classes=None is not open when its estimator
    # declares its label set: the outer search reads nothing private, and a
    # one-class private y fits as the inner search alone does.
    X, y, X_pub, _ = _data()
    inner = PrivateParameterSearch(
        SemiPrivateClassifier(classes=[0, 1, 2]), {"epsilon": [0.5, 1.0]}
    )
    assert open_classes(inner) == []
    outer = PrivateParameterSearch(inner, {"refit": [True, False]}, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        outer.fit(X, y, X_public=PublicData(X_pub))
        outer.fit(X, np.zeros_like(y), X_public=PublicData(X_pub))
    assert outer.best_estimator_.classes is None
    assert outer.best_estimator_.best_estimator_.classes_.tolist() == [0, 1, 2]


def test_invalid_candidate_parameters_are_named_and_free_when_nested():
    X, y, X_pub, _ = _data(n=3000)
    search = PrivateParameterSearch(
        SemiPrivateClassifier(), {"epsilon": [0.0, 0.1]}, random_state=0
    )
    with pytest.raises(ValueError, match=r"candidate epsilon=0\.0 has invalid"):
        fit_cost(search, X_public=PublicData(X_pub))
    ledger = PrivacyAccountant(epsilon=100)
    active = SubSamplingActiveClassifier(search, epsilon=1.0, accountant=ledger)
    with pytest.raises(ValueError, match=r"candidate epsilon=0\.0 has invalid"):
        active.fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_format_errors_come_before_the_selection_refusals():
    # A candidate that cannot take data of this format is named first, as
    # before the search stated its cost; random stopping's refusal of
    # delta > 0 candidates comes after.
    X, y, X_pub, _ = _data()
    search = PrivateParameterSearch(
        SemiPrivateLogisticRegression(classes=[0, 1]),
        {"epsilon": [1.0]},
        selection="random_stopping",
    )
    with pytest.raises(ValueError, match="cannot be fitted on this data"):
        search.fit(X, y, X_public=PublicData(X_pub[:, :2]))
    with pytest.raises(ValueError, match="pure-DP candidates"):
        search.fit(X, y, X_public=PublicData(X_pub))


@pytest.mark.parametrize(
    "nest",
    [
        lambda s: PublicFittedPipeline([("scale", StandardScaler()), ("search", s)]),
        lambda s: SubSamplingActiveClassifier(s, classes=[0, 1], random_state=0),
    ],
    ids=["pipeline", "active"],
)
def test_ledger_in_grid_values_of_a_nested_search_is_refused_with_a_way_out(nest):
    # The nesting estimator stands in for the search's ledgers (deep
    # parameters) but cannot see one held by a grid value; the error says
    # where each ledger sits and what to do, and nothing is charged.
    X, y, X_pub, _ = _data(n=3000)
    ledger = PrivacyAccountant(epsilon=100)

    def base(**kwargs):
        return SemiPrivateClassifier(epsilon=0.25, classes=[0, 1], **kwargs)

    held = PrivateParameterSearch(
        PublicFittedPipeline([("c", base())]),
        {"c": [base(accountant=ledger)]},
        selection="exponential",
        random_state=0,
    )
    with pytest.raises(ValueError, match="none in the grid values") as info:
        nest(held).fit(X, y, X_public=PublicData(X_pub))
    assert "c__accountant" in str(info.value)
    assert ledger.spent() == PrivacyCost(0.0, 0.0)
    # The way out the message gives.
    free = PrivateParameterSearch(
        PublicFittedPipeline([("c", base())]),
        {"c__hypothesis_class": ["stumps"]},
        selection="exponential",
        accountant=ledger,
        random_state=0,
    )
    nest(free).fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent().epsilon > 0
