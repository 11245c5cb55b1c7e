"""Workload evaluation against brute force, and bad workload input."""

import numpy as np
import pytest

from sklearn_semiprivate.query_release import (
    MarginalQueries,
    PredicateQueries,
    StumpQueries,
    ThresholdQueries,
)


def _brute(query_set, X, w):
    """Weighted sums from the full (queries x rows) label matrix."""
    return query_set.labels(X, 0, query_set.n_queries).astype(float) @ w


@pytest.mark.parametrize("seed", [0, 1])
def test_threshold_and_stump_sums_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(-3, 4, size=(40, 3)).astype(float)  # ties on purpose
    w = rng.random(40)
    for workload in (
        ThresholdQueries(np.array([-5.0, -1.0, 0.0, 0.5, 3.0, 9.0])),
        StumpQueries([-1.0, 0.0, 2.5]),
        StumpQueries([0.0], features=[2, 0]),
    ):
        Xw = X[:, :1] if isinstance(workload, ThresholdQueries) else X
        qs = workload._bind(Xw.shape[1])
        np.testing.assert_allclose(qs.weighted_sums(Xw, w), _brute(qs, Xw, w))


def test_marginal_sums_match_brute_force_and_definition():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(60, 4)).astype(float)
    X[:, 3] = rng.integers(0, 2, size=60)
    w = rng.random(60)
    workload = MarginalQueries(k=2, n_categories=[3, 3, 3, 2])
    qs = workload._bind(4)
    assert qs.n_queries == 3 * 9 + 3 * 6  # 3 pairs among the 3-ary, 3 with the binary
    np.testing.assert_allclose(qs.weighted_sums(X, w), _brute(qs, X, w))
    # Definition: query of subset (0, 1) and value (2, 1) is 1[x0 = 2 and x1 = 1].
    expected = w[(X[:, 0] == 2) & (X[:, 1] == 1)].sum()
    assert np.isclose(qs.weighted_sums(X, w)[2 * 3 + 1], expected)
    # Every column set's answers sum to one (a distribution over its cells).
    answers = workload.evaluate(X)
    starts = np.concatenate([[0], np.cumsum(qs.cells)])
    for s in range(qs.subsets.shape[0]):
        assert np.isclose(answers[starts[s] : starts[s + 1]].sum(), 1.0)


def test_predicate_sums_match_brute_force():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    w = rng.random(30)
    preds = [lambda Z: Z[:, 0] > 0, lambda Z: Z[:, 0] + Z[:, 1] < 0.3]
    qs = PredicateQueries(preds)._bind(2)
    np.testing.assert_allclose(qs.weighted_sums(X, w), _brute(qs, X, w))


def test_coordinate_queries_are_plus_one_fractions():
    X = np.array([[1, -1], [1, 1], [-1, -1]], dtype=float)
    np.testing.assert_allclose(StumpQueries().evaluate(X), [2 / 3, 1 / 3])


def test_evaluate_weights():
    q = ThresholdQueries([0.0])
    assert q.evaluate([[-1.0], [1.0]], sample_weight=[3.0, 1.0]).tolist() == [0.75]
    with pytest.raises(ValueError, match="non-negative"):
        q.evaluate([[-1.0], [1.0]], sample_weight=[-1.0, 1.0])
    with pytest.raises(ValueError, match="shape"):
        q.evaluate([[-1.0], [1.0]], sample_weight=[1.0])


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: ThresholdQueries([]), "must not be empty"),
        (lambda: ThresholdQueries([[0.0, 1.0]]), "1-D array"),
        (lambda: ThresholdQueries([0.0, np.nan]), "finite"),
        (lambda: StumpQueries([[0.0]]), "1-D"),
        (lambda: StumpQueries(0.0, features=[]), "non-empty"),
        (lambda: MarginalQueries(k=0), "k must be"),
        (lambda: MarginalQueries(k=2, subsets=[[0, 1, 2]]), "shape"),
        (lambda: MarginalQueries(k=2, subsets=[[1, 1]]), "distinct"),
        (lambda: PredicateQueries([]), "must not be empty"),
        (
            lambda: PredicateQueries([lambda X: X[:, 0] > 0], domain=[[np.inf]]),
            "finite",
        ),
    ],
)
def test_bad_workloads_raise(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_workload_types_and_bindings():
    with pytest.raises(TypeError, match="callable"):
        PredicateQueries([1, 2])
    with pytest.raises(ValueError, match="exactly one feature"):
        ThresholdQueries([0.0]).evaluate(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="feature 5"):
        StumpQueries(0.0, features=[5]).evaluate(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="outside the declared domain"):
        MarginalQueries(k=1, n_categories=2).evaluate([[0.0], [2.0]])
    with pytest.raises(ValueError, match="outside the declared domain"):
        MarginalQueries(k=1, n_categories=2).evaluate([[0.5]])
    with pytest.raises(ValueError, match="need at least 3 columns"):
        MarginalQueries(k=3, n_categories=2).evaluate([[0.0, 1.0]])
    bad = PredicateQueries([lambda X: X[:2, 0] > 0])
    with pytest.raises(ValueError, match="one value per row"):
        bad.evaluate(np.zeros((5, 1)))
