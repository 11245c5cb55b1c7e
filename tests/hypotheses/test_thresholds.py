"""Thresholds: exact 1-D cover, both orientations, multiclass, exact scores."""

import itertools

import numpy as np
import pytest

from sklearn_semiprivate.hypotheses import StumpCover, Thresholds


def brute_force_threshold_labelings(values, classes):
    v = np.unique(values)
    grid = np.concatenate(
        [v, (v[:-1] + v[1:]) / 2, v - 1e-3, v + 1e-3, [v[0] - 10, v[-1] + 10]]
    )
    labelings = set()
    for t in grid:
        for a, b in itertools.product(classes, repeat=2):
            labelings.add(tuple(np.where(v <= t, a, b).tolist()))
            # the other orientation, written as x > t -> a else b
            labelings.add(tuple(np.where(v > t, a, b).tolist()))
    return v, labelings


CLASS_SETS = [(0, 1), (-1, 1, 5), ("no", "yes", "maybe")]


@pytest.mark.parametrize("classes", CLASS_SETS)
def test_cover_is_exactly_the_realizable_labelings(classes):
    rng = np.random.default_rng(10)
    for _ in range(80):
        n = int(rng.integers(1, 12))
        x = rng.integers(0, 6, size=n).astype(float)  # ties and duplicates
        cover = Thresholds().cover(x[:, None], classes=classes)
        v, expected = brute_force_threshold_labelings(x, classes)
        got = [tuple(row) for row in cover.labelings(v[:, None]).tolist()]
        assert len(got) == len(set(got)) == cover.size
        assert set(got) == expected
        k, m = len(classes), v.size
        assert cover.size == k + k * (k - 1) * (m - 1)


@pytest.mark.parametrize("classes", CLASS_SETS)
def test_scores_equal_brute_force_counts(classes):
    rng = np.random.default_rng(11)
    for _ in range(60):
        x = rng.integers(0, 6, size=int(rng.integers(1, 12))).astype(float)
        cover = Thresholds().cover(x[:, None], classes=classes)
        pool = np.concatenate([x, cover.thresholds_, rng.normal(3, 3, size=5)])
        X = rng.choice(pool, size=(int(rng.integers(1, 40)), 1))
        y = rng.choice(np.asarray(classes), size=X.shape[0])
        expected = (cover.labelings(X) == y[None, :]).sum(axis=1)
        np.testing.assert_array_equal(cover.scores(X, y), expected)


def test_binary_cover_size_and_order():
    cover = Thresholds().cover([[3.0], [1.0], [2.0], [1.0]])
    assert isinstance(cover, StumpCover)
    assert len(cover) == 2 * 3
    assert cover.thresholds_.tolist() == [1.5, 2.5]
    assert [cover.describe(i) for i in range(len(cover))] == [
        "always 0",
        "always 1",
        "x[0] <= 1.5 -> 0 else 1",
        "x[0] <= 1.5 -> 1 else 0",
        "x[0] <= 2.5 -> 0 else 1",
        "x[0] <= 2.5 -> 1 else 0",
    ]


def test_single_public_value_gives_constants():
    cover = Thresholds().cover([[4.0], [4.0]], classes=("a", "b", "c"))
    assert len(cover) == 3
    assert cover.predict(2, [[0.0], [9.0]]).tolist() == ["c", "c"]
    assert cover.scores([[0.0], [9.0]], ["a", "c"]).tolist() == [1, 0, 1]


def test_best_member_recovers_a_threshold():
    rng = np.random.default_rng(12)
    X_public = rng.uniform(size=(200, 1))
    X = rng.uniform(size=(2000, 1))
    y = (X[:, 0] > 0.3).astype(int)
    cover = Thresholds().cover(X_public)
    best = int(np.argmax(cover.scores(X, y)))
    assert cover.describe(best).endswith("-> 0 else 1")
    assert abs(cover.thresholds_[(best - 2) // 2] - 0.3) < 0.02


def test_bad_input():
    with pytest.raises(ValueError, match="exactly one feature"):
        Thresholds().cover(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="2D array"):
        Thresholds().cover([0.0, 1.0])
    with pytest.raises(ValueError, match="NaN"):
        Thresholds().cover([[np.nan]])
    with pytest.raises(ValueError, match="infinity"):
        Thresholds().cover([[-np.inf], [0.0]])
    with pytest.raises(ValueError, match="0 sample"):
        Thresholds().cover(np.zeros((0, 1)))
    cover = Thresholds().cover([[0.0], [1.0]])
    with pytest.raises(ValueError, match="2 features"):
        cover.scores(np.zeros((3, 2)), [0, 1, 0])
    with pytest.raises(ValueError, match="2D array"):
        cover.predict(0, [0.0, 1.0])
    with pytest.raises(ValueError, match="infinity"):
        cover.scores([[np.inf]], [0])
