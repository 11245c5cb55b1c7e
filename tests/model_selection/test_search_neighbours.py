"""Which neighbours PrivateParameterSearch's cost holds for, checked exactly.

The search composes its candidates' stated costs, and a candidate states its
cost for add/remove neighbours, replace-one, or both (``_privacy_neighbours``,
the table in ``docs/privacy.rst``). An adversarial review found that the
search claimed replace-one while composing add/remove costs: a search over a
:class:`SemiPrivateTreeClassifier` (add/remove at ``epsilon``, replace-one at
``2 epsilon``) charged ``1.1`` for a release whose exact replace-one loss is
above ``1.8``. The exact check below enumerates every dataset of a tiny
domain and every neighbour, computes the largest privacy loss of what a
one-candidate search releases (the candidate's fit: the split's exact
exponential-mechanism probabilities and the Laplace leaf counts' density
ratio), and compares it with the search's claims for each relation. The old
claim (replace-one at ``privacy_spent_``) is the mutant it must catch.
"""

import itertools
import warnings

import numpy as np
import pytest

from sklearn_semiprivate import (
    GenericLearnerClassifier,
    PATEClassifier,
    PrivacyCost,
    PublicData,
    SemiPrivateClassifier,
    SemiPrivateLogisticRegression,
    SemiPrivateTreeClassifier,
    SyntheticDataClassifier,
    make_public_fitted_pipeline,
)
from sklearn_semiprivate.accounting._reservation import fit_neighbours
from sklearn_semiprivate.classifiers._tree import (
    split_log_probabilities,
    split_scores,
)
from sklearn_semiprivate.model_selection import PrivateParameterSearch
from sklearn_semiprivate.model_selection._private_fits import search_cost
from sklearn_semiprivate.query_release import public_quantile_bins

EPS = 1.0
X_PUBLIC = np.linspace(0.05, 0.95, 4)[:, None]  # 4 public bins, 3 thresholds
MAX_ROWS = 5


def _tree_search():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 1))
    y = (X[:, 0] > 0.5).astype(int)
    search = PrivateParameterSearch(
        SemiPrivateTreeClassifier(epsilon=EPS, max_depth=1, classes=[0, 1]),
        {"max_depth": [1]},
        selection="exponential",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return search.fit(X, y, X_public=PublicData(X_PUBLIC))


def _release(codes, labels, n_bins):
    """Log-probabilities of the depth-1 tree's split, and each split's leaf
    counts (the Laplace mechanism's input), exactly as the tree computes them."""
    node = np.zeros(len(codes), dtype=np.intp)
    scores, candidates = split_scores(
        codes[:, None], labels, node, 1, np.array([n_bins]), 2
    )
    log_p = split_log_probabilities(scores, EPS / 2)[0]  # max_depth + 1 parts
    counts = np.array(
        [np.bincount((codes > t) * 2 + labels, minlength=4) for _, t in candidates]
    )
    return log_p, counts


def _loss(a, b):
    """Largest log-ratio over outputs of the release on ``a`` against ``b``:
    the split's log-ratio plus the Laplace leaf counts' (scale 2 / EPS, L1
    distance of the counts) at the worst point."""
    (lp_a, c_a), (lp_b, c_b) = a, b
    return float(np.max(lp_a - lp_b + (EPS / 2) * np.abs(c_a - c_b).sum(axis=1)))


def _worst_losses():
    n_bins = public_quantile_bins(X_PUBLIC, 16)[0].size + 1
    rows = range(2 * n_bins)  # a row is 2 * bin + label
    worst_replace, worst_add_remove = 0.0, 0.0
    for n in range(1, MAX_ROWS + 1):
        for data in itertools.combinations_with_replacement(rows, n):
            data = np.array(data)
            here = _release(data // 2, data % 2, n_bins)
            for i in range(n):
                rest = np.delete(data, i)
                if rest.size:  # removing row i (and, read backwards, adding it)
                    there = _release(rest // 2, rest % 2, n_bins)
                    worst_add_remove = max(
                        worst_add_remove, _loss(here, there), _loss(there, here)
                    )
                for new in rows:  # replacing row i
                    other = data.copy()
                    other[i] = new
                    there = _release(other // 2, other % 2, n_bins)
                    worst_replace = max(worst_replace, _loss(here, there))
    return worst_replace, worst_add_remove


@pytest.fixture(scope="module")
def worst():
    return _worst_losses()


def test_tree_search_states_add_remove_and_its_replace_one_cost():
    search = _tree_search()
    assert search.privacy_neighbours_ == "add/remove"
    assert search.privacy_spent_ == PrivacyCost(pytest.approx(1.1), 0.0)
    # Group privacy of the tree's (1, 0), plus the selection's 0.1.
    assert search.replace_one_privacy_ == PrivacyCost(pytest.approx(2.1), 0.0)


def test_exact_losses_are_within_each_claim(worst):
    worst_replace, worst_add_remove = worst
    search = _tree_search()
    assert worst_add_remove <= search.privacy_spent_.epsilon + 1e-9
    assert worst_replace <= search.replace_one_privacy_.epsilon + 1e-9


def test_mutant_replace_one_at_the_add_remove_total_is_caught(worst):
    # The search before the fix stated replace-one at privacy_spent_ (1.1).
    worst_replace, _ = worst
    assert worst_replace > _tree_search().privacy_spent_.epsilon


def _cost(eps, delta=0.0):
    return PrivacyCost(eps, delta)


@pytest.mark.parametrize(
    ("selection", "relations", "expected"),
    [
        # Every candidate private for both: the plain sum, for both.
        ("public", ["both", "both"], (_cost(1.5), "both", None)),
        # All add/remove-capable: the sum for add/remove, group privacy for
        # replace-one.
        ("public", ["both", "add/remove"], (_cost(1.5), "add/remove", _cost(2.5))),
        (
            "exponential",
            ["add/remove", "add/remove"],
            (_cost(1.65), "add/remove", _cost(3.15)),
        ),
        # A replace-one-only or an unknown candidate: replace-one, with group
        # privacy for the add/remove (and unknown) ones.
        ("public", ["replace-one", "add/remove"], (_cost(2.5), "replace-one", None)),
        ("public", ["both", None], (_cost(2.5), "replace-one", None)),
    ],
)
def test_search_cost_by_relation(selection, relations, expected):
    costs = [_cost(0.5), _cost(1.0)]
    total, relation, replace_one, _ = search_cost(
        selection, costs, relations, 100, None, refit=True
    )
    exp_total, exp_relation, exp_replace = expected
    assert total == PrivacyCost(pytest.approx(exp_total.epsilon), 0.0)
    assert relation == exp_relation
    if exp_replace is None:
        assert replace_one is None
    else:
        assert replace_one == PrivacyCost(pytest.approx(exp_replace.epsilon), 0.0)


def test_random_stopping_runs_at_the_replace_one_cost():
    # A run of an add/remove (1, 0) candidate costs 2 for replace-one: three
    # runs' 6 plus the refit's 2.
    total, relation, replace_one, score_epsilon = search_cost(
        "random_stopping", [_cost(1.0)], ["add/remove"], 100, None, refit=True
    )
    assert (total, relation, replace_one) == (_cost(8.0), "replace-one", None)
    assert score_epsilon == 2.0
    total, *_ = search_cost(
        "random_stopping", [_cost(1.0)], ["both"], 100, None, refit=True
    )
    assert total == _cost(4.0)


def test_delta_follows_group_privacy():
    total, relation, replace_one, _ = search_cost(
        "public", [_cost(1.0, 1e-6)], ["add/remove"], 100, None, refit=True
    )
    assert (total, relation) == (_cost(1.0, 1e-6), "add/remove")
    assert replace_one.delta == pytest.approx((1.0 + np.e) * 1e-6)


@pytest.mark.parametrize(
    ("estimator", "relation"),
    [
        (SemiPrivateClassifier(), "both"),
        (SemiPrivateTreeClassifier(), "add/remove"),
        (SemiPrivateLogisticRegression(), "add/remove"),
        (SyntheticDataClassifier(), "replace-one"),
        (make_public_fitted_pipeline(SemiPrivateTreeClassifier()), "add/remove"),
    ],
)
def test_estimators_state_their_relation(estimator, relation):
    assert fit_neighbours(estimator) == relation


def test_logistic_search_covers_its_winners_replace_one_cost():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    y = (X[:, 0] > 0).astype(int)
    search = PrivateParameterSearch(
        SemiPrivateLogisticRegression(classes=[0, 1]), {"solver": ["sgd"]}
    )
    search.fit(X, y, X_public=PublicData(rng.normal(size=(40, 2))))
    assert search.privacy_neighbours_ == "add/remove"
    own = search.best_estimator_.replace_one_privacy_
    assert search.replace_one_privacy_.epsilon >= own.epsilon
    assert search.replace_one_privacy_.delta >= own.delta


def test_labelboost_candidate_is_refused_before_the_charge():
    # Review: LabelBoost's guarantee covers a labeled row replaced by a
    # labeled one only (the labeled count is released); the search read it as
    # general replace-one.
    from sklearn_semiprivate import LabelBoostClassifier, PrivacyAccountant

    base = SemiPrivateClassifier("thresholds", epsilon=1.0, bounds=(0, 1))
    booster = LabelBoostClassifier(base, n_base=1, classes=[0, 1])
    assert fit_neighbours(booster) == "restricted"
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(500, 1))
    y = (X[:, 0] > 0.3).astype(int)
    y[400:] = -1  # 400 labeled, 100 unlabeled
    ledger = PrivacyAccountant(epsilon=100)
    search = PrivateParameterSearch(
        booster, {"alpha": [0.1, 0.2]}, selection="exponential", accountant=ledger
    )
    with pytest.raises(ValueError, match="restricted"):
        search.fit(X, y)
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_active_transcript_cost_is_the_base_learners_replace_one_cost():
    # Review: with the transcript released the model is only as private as
    # the base learner for replace-one; a tree base was charged its
    # add/remove cost.
    from sklearn_semiprivate import SubSamplingActiveClassifier
    from sklearn_semiprivate.accounting._reservation import fit_cost

    tree = SemiPrivateTreeClassifier(epsilon=1.0, classes=[0, 1])
    active = SubSamplingActiveClassifier(tree, epsilon=0.5, store_transcript=True)
    assert fit_cost(active) == PrivacyCost(2.0, 0.0)
    both = SemiPrivateClassifier(epsilon=1.0, classes=[0, 1])
    active = SubSamplingActiveClassifier(both, epsilon=0.5, store_transcript=True)
    assert fit_cost(active) == PrivacyCost(1.0, 0.0)


def test_labelboost_checks_its_base_learners_replace_one_epsilon():
    # Review: Lemma 4.6 needs a replace-one (1, delta) base learner; a tree at
    # epsilon 1 (2 for replace-one) was accepted.
    from sklearn_semiprivate import LabelBoostClassifier
    from sklearn_semiprivate.accounting._reservation import fit_cost

    tree = SemiPrivateTreeClassifier(epsilon=1.0, classes=[0, 1])
    with pytest.raises(ValueError, match="needs a"):
        fit_cost(LabelBoostClassifier(tree, classes=[0, 1]))
    half = SemiPrivateTreeClassifier(epsilon=0.5, classes=[0, 1])
    assert fit_cost(LabelBoostClassifier(half, classes=[0, 1])).epsilon == 1.0


def test_active_cost_before_the_fit_is_what_the_fit_reserves():
    # Review: with a base learner that takes private unlabeled rows, the fit
    # priced it with them (a delta) and fit_cost without (no delta), so a
    # pipeline reserving fit_cost charged its ledger less than the fit cost.
    from sklearn_semiprivate import (
        GenericLearnerClassifier,
        PrivacyAccountant,
        SubSamplingActiveClassifier,
    )
    from sklearn_semiprivate.accounting._reservation import fit_cost

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(3000, 1))
    y = (X[:, 0] > 0.5).astype(int)
    X_pub = PublicData(rng.uniform(size=(20, 1)))
    base = GenericLearnerClassifier(
        epsilon=1.0, delta=1e-6, bounds=(0, 1), classes=[0, 1]
    )
    ledger = PrivacyAccountant(epsilon=10, delta=1e-3)
    active = SubSamplingActiveClassifier(
        base,
        epsilon=0.5,
        n_subsample=100,
        n_labeled=50,
        classes=[0, 1],
        accountant=ledger,
    )
    before = fit_cost(active, X_public=X_pub)
    assert before.delta > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        active.fit(X, y, X_public=X_pub)
    assert active.privacy_spent_ == before == ledger.spent()


def test_reduction_states_its_learners_replace_one_cost():
    # Review: Claim 4.5 passes the learner's replace-one guarantee on; an
    # add/remove learner's stated cost was reported as the reduction's.
    from sklearn_semiprivate.accounting._reservation import fit_cost
    from sklearn_semiprivate.research import PublicDataReduction

    tree = SemiPrivateTreeClassifier(epsilon=1.0, classes=[0, 1])
    reduction = PublicDataReduction(tree, n_public=5, classes=[0, 1])
    assert fit_cost(reduction) == PrivacyCost(2.0, 0.0)
    assert fit_neighbours(reduction) == "replace-one"
    both = SemiPrivateClassifier("thresholds", epsilon=1.0, classes=[0, 1])
    assert fit_cost(PublicDataReduction(both, n_public=5)) == PrivacyCost(1.0, 0.0)


@pytest.mark.parametrize(
    ("estimator", "fit_params", "relation"),
    [
        (PATEClassifier(), {}, "both"),
        (GenericLearnerClassifier(), {}, "both"),
        # The sanitizer's answers are fractions of the (public) number of
        # unlabeled rows: replace-one only. A mutation review stated "both"
        # here and no test failed (test_estimators_state_their_relation in
        # tests/model_selection/test_search_neighbours.py lists neither).
        (GenericLearnerClassifier(), {"X_unlabeled": np.zeros((5, 1))}, "replace-one"),
    ],
    ids=["pate", "generic", "generic-unlabeled"],
)
def test_more_estimators_state_their_relation(estimator, fit_params, relation):
    assert fit_neighbours(estimator, **fit_params) == relation
