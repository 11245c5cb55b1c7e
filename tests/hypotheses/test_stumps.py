"""DecisionStumps: exact cover (one member per labeling) and exact scores."""

import itertools

import numpy as np
import pytest

from sklearn_semiprivate.hypotheses import DecisionStumps, StumpCover, _stumps


def brute_force_stump_labelings(X_public, classes):
    """Every labeling of the distinct public rows by some stump, from a fine grid."""
    rows = np.unique(np.asarray(X_public, dtype=float), axis=0)
    labelings = set()
    for j in range(rows.shape[1]):
        v = np.unique(rows[:, j])
        grid = np.concatenate(
            [v, (v[:-1] + v[1:]) / 2, v - 1e-3, v + 1e-3, [v[0] - 10, v[-1] + 10]]
        )
        for t in grid:
            below = rows[:, j] <= t
            for a, b in itertools.product(classes, repeat=2):
                labelings.add(tuple(np.where(below, a, b).tolist()))
    return rows, labelings


def brute_force_scores(cover, X, y):
    return (cover.labelings(X) == np.asarray(y)[None, :]).sum(axis=1)


def random_public(rng, n_features):
    n = int(rng.integers(1, 10))
    X = rng.integers(0, 4, size=(n, n_features)).astype(float)
    if n_features > 1 and rng.random() < 0.5:
        # same splits as feature 0: a copy, a mirror, a monotone transform
        X[:, 1] = rng.choice([1.0, -1.0]) * X[:, 0] ** 3 + 0.5
    if n > 1 and rng.random() < 0.5:
        X = np.vstack([X, X[rng.integers(0, n, size=2)]])  # duplicate rows
    return X


def private_points(rng, cover, X_public, n):
    # public values, thresholds themselves (boundary cases) and random values
    pool = np.concatenate([np.unique(X_public), cover.thresholds_, [-5.0, 5.0]])
    X = rng.choice(pool, size=(n, X_public.shape[1]))
    X[::3] = rng.normal(scale=2.0, size=X[::3].shape)
    return X


CLASS_SETS = [(0, 1), (0, 1, 2), ("a", "b", "c", "d")]


@pytest.mark.parametrize("classes", CLASS_SETS)
def test_cover_is_exactly_the_realizable_labelings(classes):
    rng = np.random.default_rng(0)
    for trial in range(60):
        n_features = 1 + trial % 6
        X_public = random_public(rng, n_features)
        cover = DecisionStumps().cover(X_public, classes=classes)
        rows, expected = brute_force_stump_labelings(X_public, classes)
        got = [tuple(row) for row in cover.labelings(rows).tolist()]
        assert len(got) == len(set(got)) == cover.size  # no duplicates
        assert set(got) == expected  # no member missing, none extra
        k = len(classes)
        assert cover.size == k + k * (k - 1) * cover.features_.size


@pytest.mark.parametrize("classes", CLASS_SETS)
def test_scores_equal_brute_force_counts(classes):
    rng = np.random.default_rng(1)
    for trial in range(40):
        n_features = 1 + trial % 6
        X_public = random_public(rng, n_features)
        cover = DecisionStumps().cover(X_public, classes=classes)
        X = private_points(rng, cover, X_public, int(rng.integers(1, 30)))
        y = rng.choice(np.asarray(classes), size=X.shape[0])
        scores = cover.scores(X, y)
        assert scores.dtype == np.int64
        np.testing.assert_array_equal(scores, brute_force_scores(cover, X, y))


def test_dedup_across_features_and_orientations():
    X = np.array([[0.0, 5.0, 0.0], [1.0, 4.0, 7.0], [2.0, 3.0, 7.0]])
    # feature 1 mirrors feature 0; feature 2's only split {row 0} | rest is
    # feature 0's first split
    cover = DecisionStumps().cover(X)
    assert cover.features_.tolist() == [0, 0]
    assert cover.thresholds_.tolist() == [0.5, 1.5]
    assert len(cover) == 2 + 2 * 2


def test_dedup_stays_exact_when_every_hash_collides(monkeypatch):
    # All-zero weights make every split hash to 0: only the exact check separates.
    monkeypatch.setattr(_stumps, "_hash_keys", lambda n: np.zeros(n, dtype=np.uint64))
    rng = np.random.default_rng(2)
    for trial in range(40):
        X_public = random_public(rng, 1 + trial % 6)
        cover = DecisionStumps().cover(X_public, classes=(0, 1, 2))
        rows, expected = brute_force_stump_labelings(X_public, (0, 1, 2))
        got = [tuple(row) for row in cover.labelings(rows).tolist()]
        assert len(got) == len(set(got))
        assert set(got) == expected


def test_mutant_trusting_the_hash_is_caught(monkeypatch):
    # Mutant: treat equal hashes as equal splits without checking. With colliding
    # hashes it merges different splits, and the brute-force comparison sees it.
    monkeypatch.setattr(_stumps, "_hash_keys", lambda n: np.zeros(n, dtype=np.uint64))
    monkeypatch.setattr(
        _stumps, "_same_split", lambda claim, *args: np.ones(claim.size, dtype=bool)
    )
    X_public = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 5.0]])
    cover = DecisionStumps().cover(X_public)
    rows, expected = brute_force_stump_labelings(X_public, (0, 1))
    got = {tuple(row) for row in cover.labelings(rows).tolist()}
    assert got != expected


def test_hash_dedup_agrees_with_exact_pairwise_dedup_on_larger_sets():
    # Larger m: compare the kept splits with a direct set comparison of splits.
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(40, 5)).astype(float)
    X[:, 3] = -X[:, 0]
    cover = DecisionStumps().cover(X)
    rows = np.unique(X, axis=0)
    seen = set()
    for j in range(rows.shape[1]):
        for t in np.unique(rows[:, j])[:-1]:
            part = rows[:, j] <= t
            seen.add(tuple(part) if part[0] else tuple(~part))
    assert cover.features_.size == len(seen)


def test_threshold_is_midpoint_and_describe_text():
    cover = DecisionStumps().cover([[0.0, 1.0], [2.0, 1.0], [2.0, 1.0]])
    assert cover.thresholds_.tolist() == [1.0]
    texts = [cover.describe(i) for i in range(len(cover))]
    assert texts == ["always 0", "always 1", "x[0] <= 1.0 -> 0 else 1",
                     "x[0] <= 1.0 -> 1 else 0"]  # fmt: skip
    cover = DecisionStumps().cover([[0.0, 1.0], [0.0, 4.0]])
    assert cover.describe(3) == "x[1] <= 2.5 -> 1 else 0"
    np.testing.assert_array_equal(cover.predict(3, [[9.0, 2.5], [9.0, 2.6]]), [1, 0])


def test_adjacent_floats_keep_public_points_apart():
    lo = 1.0
    hi = np.nextafter(lo, 2.0)
    cover = DecisionStumps().cover([[lo], [hi]])
    assert cover.predict(2, [[lo], [hi]]).tolist() == [0, 1]


def test_multiclass_stump_labels_each_side():
    cover = DecisionStumps().cover([[0.0], [1.0]], classes=["x", "y", "z"])
    # 3 constants + 1 split x 6 ordered pairs of different labels
    assert len(cover) == 9
    assert cover.predict(4, [[0.0], [1.0]]).tolist() == ["x", "z"]


def test_constant_public_features_give_constants_only():
    cover = DecisionStumps().cover([[1.0, 2.0], [1.0, 2.0]])
    assert len(cover) == 2
    np.testing.assert_array_equal(cover.scores([[0.0, 0.0]] * 3, [1, 1, 0]), [1, 2])


def test_scoring_does_not_depend_on_public_only_members():
    # A private row equal to a threshold goes left (x <= t), as predict says.
    cover = DecisionStumps().cover([[0.0], [1.0]])
    assert cover.scores([[0.5]], [0]).tolist() == [1, 0, 1, 0]


@pytest.mark.parametrize(
    "X_public, match",
    [
        ([[0.0], [np.nan]], "NaN"),
        ([[0.0], [np.inf]], "infinity"),
        (np.zeros((0, 2)), "0 sample"),
        ([0.0, 1.0], "2D array"),
    ],
)
def test_bad_public_points(X_public, match):
    with pytest.raises(ValueError, match=match):
        DecisionStumps().cover(X_public)


def test_bad_private_input_and_members():
    cover = DecisionStumps().cover([[0.0, 1.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="3 features"):
        cover.scores(np.zeros((2, 3)), [0, 1])
    with pytest.raises(ValueError, match="2D array"):
        cover.scores([0.0, 1.0], [0, 1])
    with pytest.raises(ValueError, match="not in classes"):
        cover.scores(np.zeros((2, 2)), [0, 2])
    with pytest.raises(ValueError, match="rows"):
        cover.scores(np.zeros((2, 2)), [0, 1, 1])
    with pytest.raises(ValueError, match="NaN"):
        cover.predict(0, [[np.nan, 0.0]])
    with pytest.raises(IndexError):
        cover.predict(len(cover), [[0.0, 0.0]])
    with pytest.raises(TypeError):
        cover.describe(1.0)
    with pytest.raises(ValueError, match="two distinct labels"):
        DecisionStumps().cover([[0.0]], classes=[1, 1])


def test_repr_and_type():
    cover = DecisionStumps().cover([[0.0], [1.0]])
    assert isinstance(cover, StumpCover)
    assert repr(cover) == "StumpCover(size=4, n_features=1, n_classes=2)"
    assert repr(DecisionStumps()) == "DecisionStumps()"
