"""Intervals: exact cover and scores, exact factorised exponential mechanism."""

import itertools

import numpy as np
import pytest
from scipy.special import log_softmax
from scipy.stats import chisquare

from sklearn_semiprivate.hypotheses import IntervalCover, Intervals
from sklearn_semiprivate.utils import check_rng

ALPHA = 1e-6


def brute_force_interval_labelings(values, classes):
    v = np.unique(values)
    grid = np.concatenate(
        [v, (v[:-1] + v[1:]) / 2, v - 1e-3, v + 1e-3, [v[0] - 10, v[-1] + 10]]
    )
    labelings = set()
    for lo, hi in itertools.product(grid, repeat=2):
        inside = (lo <= v) & (v <= hi)  # empty when lo > hi
        for a, b in itertools.product(classes, repeat=2):
            labelings.add(tuple(np.where(inside, a, b).tolist()))
    return v, labelings


def tiny_problem(rng, classes, max_public=6, max_private=8):
    x_pub = rng.integers(0, 7, size=int(rng.integers(1, max_public + 1))).astype(float)
    cover = Intervals().cover(x_pub[:, None], classes=classes)
    pool = np.concatenate([x_pub, cover.thresholds_, [-1.0, 9.0, 3.3]])
    X = rng.choice(pool, size=(int(rng.integers(2, max_private + 1)), 1))
    y = rng.choice(np.asarray(classes), size=X.shape[0])
    return cover, X, y


def brute_force_log_proba(cover, X, y, epsilon):
    """The exponential mechanism by enumeration: softmax(eps * score / 2)."""
    return log_softmax(epsilon * cover.scores(X, y) / 2.0)


CLASS_SETS = [(0, 1), (0, 1, 2), ("a", "b", "c", "d")]


@pytest.mark.parametrize("classes", CLASS_SETS)
def test_cover_is_exactly_the_realizable_labelings(classes):
    rng = np.random.default_rng(20)
    for _ in range(50):
        x = rng.integers(0, 6, size=int(rng.integers(1, 9))).astype(float)
        cover = Intervals().cover(x[:, None], classes=classes)
        v, expected = brute_force_interval_labelings(x, classes)
        got = [tuple(row) for row in cover.labelings(v[:, None]).tolist()]
        assert len(got) == len(set(got)) == cover.size
        assert set(got) == expected
        k, m = len(classes), v.size
        assert cover.size == k + k * (k - 1) * m * (m - 1) // 2


@pytest.mark.parametrize("classes", CLASS_SETS)
def test_scores_equal_brute_force_counts(classes):
    rng = np.random.default_rng(21)
    for _ in range(50):
        cover, X, y = tiny_problem(rng, classes, max_public=8, max_private=30)
        scores = cover.scores(X, y)
        assert scores.dtype == np.int64
        expected = (cover.labelings(X) == y[None, :]).sum(axis=1)
        np.testing.assert_array_equal(scores, expected)


@pytest.mark.parametrize("classes", CLASS_SETS)
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 7.0])
def test_factorised_log_probabilities_equal_brute_force(classes, epsilon):
    rng = np.random.default_rng(22)
    for _ in range(30):
        cover, X, y = tiny_problem(rng, classes)
        got = cover.log_probabilities_exponential(X, y, epsilon)
        np.testing.assert_allclose(
            got, brute_force_log_proba(cover, X, y, epsilon), rtol=0, atol=1e-10
        )


def test_factorised_log_probabilities_at_moderate_size():
    rng = np.random.default_rng(23)
    cover = Intervals().cover(rng.normal(size=(80, 1)))
    X = rng.normal(size=(3000, 1))
    y = (np.abs(X[:, 0]) < 0.7).astype(int)
    got = cover.log_probabilities_exponential(X, y, 0.05)
    np.testing.assert_allclose(
        got, brute_force_log_proba(cover, X, y, 0.05), rtol=0, atol=1e-9
    )


@pytest.mark.parametrize("factor", [2.0, 1.5])
def test_mutant_epsilon_is_caught_by_the_exact_comparison(factor):
    # Mutants: the factor 1/2 missing (factor 2), epsilon x 1.5.
    rng = np.random.default_rng(24)
    cover, X, y = tiny_problem(rng, (0, 1))
    mutant = cover._chain(X, y, factor * 1.0).log_probabilities()
    assert not np.allclose(
        mutant, brute_force_log_proba(cover, X, y, 1.0), rtol=0, atol=1e-6
    )


def neighbours(X, y, pool, classes):
    """Add/remove and replace-one neighbours of (X, y) over a finite pool."""
    n = X.shape[0]
    for i in range(n):
        keep = np.arange(n) != i
        yield X[keep], y[keep]
        for x_new, y_new in itertools.product(pool, classes):
            X2, y2 = X.copy(), y.copy()
            X2[i, 0], y2[i] = x_new, y_new
            yield X2, y2
    for x_new, y_new in itertools.product(pool, classes):
        yield np.vstack([X, [[x_new]]]), np.append(y, y_new)


def max_log_ratio(log_proba, cover, X, y, pool):
    base = log_proba(X, y)
    return max(
        np.max(np.abs(log_proba(X2, y2) - base))
        for X2, y2 in neighbours(X, y, pool, cover.classes_)
    )


def test_exact_privacy_over_all_neighbours_and_mutant():
    rng = np.random.default_rng(25)
    epsilon = 0.8
    for classes in [(0, 1), (0, 1, 2)]:
        cover, X, y = tiny_problem(rng, classes, max_public=4, max_private=4)
        pool = np.concatenate([cover.thresholds_ - 0.1, cover.thresholds_ + 0.1])
        pool = np.concatenate([pool, [-5.0, 5.0]])

        def exact(X2, y2, cover=cover):
            return cover.log_probabilities_exponential(X2, y2, epsilon)

        assert max_log_ratio(exact, cover, X, y, pool) <= epsilon + 1e-9

        def mutant(X2, y2, cover=cover):  # missing the factor 1/2
            return cover._chain(X2, y2, 2 * epsilon).log_probabilities()

        assert max_log_ratio(mutant, cover, X, y, pool) > epsilon + 1e-3


def chi_square_pvalue(samples, log_proba):
    expected = np.exp(log_proba) * samples.size
    observed = np.bincount(samples, minlength=log_proba.size).astype(float)
    small = expected < 5  # pool the sparse cells into one
    observed = np.append(observed[~small], observed[small].sum())
    expected = np.append(expected[~small], expected[small].sum())
    if expected[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    expected *= observed.sum() / expected.sum()
    return chisquare(observed, expected).pvalue


@pytest.mark.statistical
def test_sampler_frequencies_match_exponential_mechanism():
    rng = np.random.default_rng(26)
    x_pub = rng.uniform(size=(12, 1))
    cover = Intervals().cover(x_pub, classes=(0, 1, 2))
    X = rng.uniform(size=(60, 1))
    y = np.where(X[:, 0] < 0.3, 0, np.where(X[:, 0] < 0.7, 1, 2))
    epsilon = 0.15
    truth = brute_force_log_proba(cover, X, y, epsilon)
    draws = cover._chain(X, y, epsilon).draw(np.random.default_rng(27), 200_000)
    assert chi_square_pvalue(draws, truth) > ALPHA
    # Mutant (epsilon x 1.5) must be rejected by the same test.
    mutant = cover._chain(X, y, 1.5 * epsilon).draw(np.random.default_rng(28), 200_000)
    assert chi_square_pvalue(mutant, truth) < ALPHA


def test_sample_exponential_is_the_chain_draw_and_never_scores(monkeypatch):
    rng = np.random.default_rng(29)
    cover, X, y = tiny_problem(rng, (0, 1, 2), max_public=6, max_private=20)

    def forbidden(*args, **kwargs):
        raise AssertionError("sample_exponential must not enumerate scores")

    monkeypatch.setattr(cover, "scores", forbidden)
    for seed in range(20):
        member = cover.sample_exponential(X, y, 1.0, random_state=seed)
        assert isinstance(member, int) and 0 <= member < len(cover)
        assert member == cover._chain(X, y, 1.0).draw(check_rng(seed))


def test_sampler_is_stable_for_large_scores():
    rng = np.random.default_rng(30)
    cover = Intervals().cover(rng.uniform(size=(50, 1)))
    X = rng.uniform(size=(20000, 1))
    y = ((X[:, 0] > 0.2) & (X[:, 0] <= 0.5)).astype(int)
    member = cover.sample_exponential(X, y, 50.0, random_state=0)
    assert member == int(np.argmax(cover.scores(X, y)))
    log_proba = cover.log_probabilities_exponential(X, y, 50.0)
    assert not np.any(np.isnan(log_proba))
    assert np.isclose(np.exp(log_proba).sum(), 1.0)


def test_single_public_value():
    cover = Intervals().cover([[2.0], [2.0]])
    assert len(cover) == 2
    X, y = [[0.0], [5.0], [1.0]], [1, 1, 0]
    np.testing.assert_allclose(
        cover.log_probabilities_exponential(X, y, 1.0),
        brute_force_log_proba(cover, X, y, 1.0),
    )
    assert cover.sample_exponential(X, y, 1.0, random_state=0) in (0, 1)


def test_sample_exponential_with_base_measure_enumerates():
    rng = np.random.default_rng(31)
    cover, X, y = tiny_problem(rng, (0, 1))
    base = np.full(len(cover), -np.inf)
    base[3] = 0.0  # all prior mass on member 3
    member = cover.sample_exponential(X, y, 1.0, log_base_measure=base, random_state=0)
    assert member == 3


def test_describe_predict_and_member_layout():
    cover = Intervals().cover([[0.0], [1.0], [2.0], [2.0]])
    assert isinstance(cover, IntervalCover)
    assert cover.thresholds_.tolist() == [0.5, 1.5]
    assert [cover.describe(i) for i in range(len(cover))] == [
        "always 0",
        "always 1",
        "x[0] <= 0.5 -> 0 else 1",
        "x[0] <= 1.5 -> 0 else 1",
        "0.5 < x[0] <= 1.5 -> 0 else 1",
        "x[0] <= 0.5 -> 1 else 0",
        "x[0] <= 1.5 -> 1 else 0",
        "0.5 < x[0] <= 1.5 -> 1 else 0",
    ]
    # left-open, right-closed at the midpoints
    assert cover.predict(4, [[0.5], [0.6], [1.5], [1.6]]).tolist() == [1, 0, 0, 1]
    assert repr(cover) == "IntervalCover(size=8, n_public_values=3, n_classes=2)"


def test_bad_input():
    with pytest.raises(ValueError, match="exactly one feature"):
        Intervals().cover(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="2D array"):
        Intervals().cover([0.0, 1.0])
    with pytest.raises(ValueError, match="NaN"):
        Intervals().cover([[0.0], [np.nan]])
    with pytest.raises(ValueError, match="infinity"):
        Intervals().cover([[np.inf]])
    with pytest.raises(ValueError, match="0 sample"):
        Intervals().cover(np.zeros((0, 1)))
    cover = Intervals().cover([[0.0], [1.0]])
    with pytest.raises(ValueError, match="2 features"):
        cover.scores(np.zeros((2, 2)), [0, 1])
    with pytest.raises(ValueError, match="2 features"):
        cover.sample_exponential(np.zeros((2, 2)), [0, 1], 1.0)
    with pytest.raises(ValueError, match="not in classes"):
        cover.sample_exponential([[0.0]], [3], 1.0)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        cover.sample_exponential([[0.0]], [1], 0.0)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        cover.log_probabilities_exponential([[0.0]], [1], -1.0)
    with pytest.raises(IndexError):
        cover.describe(-1)
    with pytest.raises(ValueError, match="2D array"):
        cover.predict(0, [0.0])
