"""Tests of the halfplane cover: exactness against brute force, scores, bad input."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest

from sklearn_semiprivate.hypotheses import HalfplaneCover, Halfplanes, _halfplanes


def _rotate(u, angle):
    c, s = np.cos(angle), np.sin(angle)
    return np.array([c * u[0] - s * u[1], s * u[0] + c * u[1]])


def brute_force_labelings(points, rng, n_random=3000):
    """Public labelings (1 = left of an oriented line) found by many explicit lines.

    Candidates: for every ordered pair of distinct points, the line through them
    rotated by 0 or +-1e-6 rad about either point or their midpoint and shifted by
    0 or +-1e-8 along its normal; plus random lines and lines far from all points.
    A candidate counts only if no point is within 1e-12 of it, so every labeling
    found is realized by an open halfplane with a margin.
    """
    points = np.unique(points, axis=0)
    m = points.shape[0]
    found = set()
    centers, normals, shifts = [], [], []
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            u = points[j] - points[i]
            u = u / np.linalg.norm(u)
            for c in (points[i], points[j], (points[i] + points[j]) / 2):
                for angle in (-1e-6, 0.0, 1e-6):
                    d = _rotate(u, angle)
                    for shift in (-1e-8, 0.0, 1e-8):
                        centers.append(c)
                        normals.append([-d[1], d[0]])
                        shifts.append(shift)
    theta = rng.uniform(0, 2 * np.pi, n_random)
    offsets = rng.uniform(-6, 6, n_random)
    normals.extend(np.column_stack((np.cos(theta), np.sin(theta))))
    centers.extend(np.zeros((n_random, 2)))
    shifts.extend(offsets)
    # Lines far from every point: the two constant labelings.
    normals.extend([[1.0, 0.0], [-1.0, 0.0]])
    centers.extend([[1e6, 0.0], [1e6, 0.0]])
    shifts.extend([0.0, 0.0])
    centers, normals, shifts = map(np.asarray, (centers, normals, shifts))
    values = np.einsum("kj,mkj->km", normals, points[:, None, :] - centers[None])
    values -= shifts[:, None]
    ok = np.all(np.abs(values) > 1e-12, axis=1)
    for row in values[ok] > 0:
        found.add(tuple(row.astype(int)))
    return found


def cover_labelings(cover):
    labels = cover.labelings(cover.points_)
    return [tuple(row.tolist()) for row in labels]


def public_sets():
    rng = np.random.default_rng(12345)
    sets = []
    for m in range(1, 9):
        sets.append(("general", rng.normal(size=(m, 2))))
    for _ in range(12):
        m = int(rng.integers(2, 12))
        sets.append(("grid", rng.integers(0, 4, size=(m, 2)).astype(float)))
    sets.append(("line", np.column_stack((np.arange(6.0), 2 * np.arange(6.0)))))
    sets.append(("vertical", np.column_stack((np.ones(5), [3, 1, 4, 1, 5]))))
    sets.append(("line+1", np.array([[0, 0], [1, 1], [2, 2], [3, 3], [0, 3.0]])))
    sets.append(("duplicates", np.array([[0, 0], [0, 0], [1, 0], [1, 0], [0, 1.0]])))
    sets.append(("star", np.array([[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1.0]])))
    sets.append(("3x3", np.array([[i, j] for i in range(3) for j in range(3)], float)))
    return sets


@pytest.mark.parametrize("name, X_public", public_sets())
def test_cover_is_exactly_the_realizable_labelings(name, X_public):
    rng = np.random.default_rng(0)
    cover = Halfplanes().cover(X_public)
    labelings = cover_labelings(cover)
    # No duplicates, and the same set as the brute force.
    assert len(set(labelings)) == len(labelings) == cover.size
    assert set(labelings) == brute_force_labelings(X_public, rng)


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 13])
def test_general_position_count(m):
    X_public = np.random.default_rng(m).normal(size=(m, 2))
    assert Halfplanes().cover(X_public).size == m * m - m + 2


def test_collinear_count():
    # k points on a line: 2 (k - 1) proper labelings (prefixes and suffixes) + 2.
    for k in range(2, 8):
        X_public = np.column_stack((np.arange(k, dtype=float), np.zeros(k)))
        assert Halfplanes().cover(X_public).size == 2 * (k - 1) + 2


def test_members_are_concrete_halfplanes():
    rng = np.random.default_rng(3)
    cover = Halfplanes().cover(rng.integers(0, 5, size=(15, 2)).astype(float))
    X = rng.normal(2, 2, size=(300, 2))
    for member in range(cover.size):
        w, b = cover.halfplane(member)
        values = X @ w - b
        clear = np.abs(values) > 1e-9
        expected = np.where(values >= 0, 1, 0)
        got = cover.predict(member, X)
        np.testing.assert_array_equal(got[clear], expected[clear])
        if member >= 2:
            # Only the pivot lies on the line: every other public point is clear.
            on_line = np.abs(cover.points_ @ w - b) < 1e-9
            assert on_line.sum() == 1
            assert cover.predict(member, cover.points_[on_line]).tolist() == [1]


def brute_force_scores(cover, X, y):
    return np.array(
        [np.sum(cover.predict(i, X) == y) for i in range(cover.size)], dtype=np.int64
    )


def boundary_points(cover, rng, n):
    """Points on (float-rounded) member lines: both sides of the predicate occur."""
    members = rng.integers(2, cover.size, size=n)
    w = cover.normal_[members - 2]
    p = cover.points_[cover.pivot_[members - 2]]
    t = rng.uniform(-3, 3, size=n)
    return p + t[:, None] * np.column_stack((w[:, 1], -w[:, 0]))


@pytest.mark.parametrize("name, X_public", public_sets()[6:])
def test_scores_match_brute_force(name, X_public):
    rng = np.random.default_rng(7)
    cover = Halfplanes().cover(X_public)
    pieces = [
        rng.normal(1.5, 2.0, size=(150, 2)),
        np.repeat(cover.points_, 3, axis=0),  # duplicates of pivots: ties
        rng.integers(-1, 5, size=(60, 2)).astype(float),  # on public lines
    ]
    if cover.size > 2:
        pieces.append(boundary_points(cover, rng, 200))
    X = np.concatenate(pieces)
    y = rng.integers(0, 2, size=X.shape[0])
    scores = cover.scores(X, y)
    assert scores.dtype == np.int64
    np.testing.assert_array_equal(scores, brute_force_scores(cover, X, y))


def test_scores_with_string_classes():
    rng = np.random.default_rng(1)
    cover = Halfplanes().cover(rng.normal(size=(6, 2)), classes=["no", "yes"])
    X = rng.normal(size=(40, 2))
    y = np.where(rng.random(40) < 0.5, "yes", "no")
    np.testing.assert_array_equal(cover.scores(X, y), brute_force_scores(cover, X, y))
    assert set(cover.predict(5, X)) <= {"no", "yes"}


def test_window_correction_is_needed(monkeypatch):
    # Mutant: without re-evaluating near-boundary points with the predicate of
    # predict, scores disagree with predict on points lying on member lines.
    rng = np.random.default_rng(11)
    cover = Halfplanes().cover(rng.normal(size=(8, 2)))
    X = boundary_points(cover, rng, 2000)
    y = rng.integers(0, 2, size=X.shape[0])
    expected = brute_force_scores(cover, X, y)
    np.testing.assert_array_equal(cover.scores(X, y), expected)
    monkeypatch.setattr(_halfplanes, "_WINDOW", 0.0)
    assert not np.array_equal(cover.scores(X, y), expected)


def test_tie_convention_pivot_is_positive():
    cover = Halfplanes().cover([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    for member in range(2, cover.size):
        pivot = cover.points_[cover.pivot_[member - 2]]
        assert cover.predict(member, pivot[None]).tolist() == [1]


def test_nearly_collinear_public_points_are_deduplicated():
    # Points on a line computed in floating point are not exactly collinear; the
    # cover treats them as one line and still has no duplicate labelings.
    t = np.linspace(0, 1, 7)
    X_public = np.column_stack((0.1 * t, 0.3 * t)) + np.array([0.7, 0.2])
    cover = Halfplanes().cover(X_public)
    labelings = cover_labelings(cover)
    assert len(set(labelings)) == len(labelings)
    # Every member is a valid labeling: prefixes or suffixes along the line.
    brute = brute_force_labelings(X_public, np.random.default_rng(0))
    assert set(labelings) <= brute


def test_describe_and_halfplane():
    cover = Halfplanes().cover([[0.0, 0.0], [2.0, 0.0]], classes=["a", "b"])
    assert cover.describe(0) == "always a"
    assert cover.describe(1) == "always b"
    w, b = cover.halfplane(2)
    assert np.isclose(np.linalg.norm(w), 1.0)
    text = cover.describe(2)
    assert text.endswith("-> b else a")
    assert f"{b:.6g}" in text
    assert isinstance(cover.size, int)
    assert isinstance(cover, HalfplaneCover)


@pytest.mark.parametrize(
    "X_public, message",
    [
        ([[0.0, np.nan]], "NaN"),
        ([[0.0, np.inf]], "infinity"),
        (np.empty((0, 2)), "0 sample"),
        ([0.0, 1.0], "2D array"),
        ([[0.0, 1.0, 2.0]], "2 features"),
        ([[0.0]], "2 features"),
    ],
)
def test_bad_public_input(X_public, message):
    with pytest.raises(ValueError, match=message):
        Halfplanes().cover(X_public)


def test_bad_classes_and_private_input():
    with pytest.raises(ValueError, match="binary"):
        Halfplanes().cover([[0.0, 0.0]], classes=[0, 1, 2])
    cover = Halfplanes().cover([[0.0, 0.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="features"):
        cover.scores([[0.0, 0.0, 0.0]], [0])
    with pytest.raises(ValueError, match="NaN"):
        cover.scores([[0.0, np.nan]], [0])
    with pytest.raises(ValueError, match="not in classes"):
        cover.scores([[0.0, 0.0]], [2])
    with pytest.raises(ValueError, match="rows"):
        cover.scores([[0.0, 0.0]], [0, 1])
    with pytest.raises(ValueError, match="2D array"):
        cover.predict(0, [0.0, 1.0])
    with pytest.raises(ValueError, match="member"):
        cover.predict(cover.size, [[0.0, 1.0]])
    with pytest.raises(TypeError, match="member"):
        cover.predict(1.0, [[0.0, 1.0]])


def test_exact_deduplication_when_all_hashes_collide(monkeypatch):
    # With every key zero all labelings hash alike, so the dedupe must compare
    # labelings in full; a "first per hash" shortcut would keep a single member.
    X_public = np.random.default_rng(5).integers(0, 4, size=(9, 2)).astype(float)
    expected = set(cover_labelings(Halfplanes().cover(X_public)))
    monkeypatch.setattr(
        _halfplanes, "_hash_keys", lambda m: np.zeros(m, dtype=np.uint64)
    )
    cover = Halfplanes().cover(X_public)
    labelings = cover_labelings(cover)
    assert len(labelings) == len(set(labelings)) == len(expected)
    assert set(labelings) == expected


def test_sample_exponential_prefers_the_best_member():
    # The default sampler of Cover lives in sklearn_semiprivate.mechanisms.
    pytest.importorskip("sklearn_semiprivate.mechanisms")
    rng = np.random.default_rng(4)
    cover = Halfplanes().cover(rng.normal(size=(10, 2)))
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    scores = cover.scores(X, y)
    # exp(-epsilon / 2) = exp(-200) per point of score lost: the max is certain.
    member = cover.sample_exponential(X, y, 400.0, random_state=0)
    assert scores[member] == scores.max()


SQUARE = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
# Offsets so small that w[0] * d[0] rounds to zero in predict's predicate.
TINY_OFFSETS = np.array(
    [
        [5e-324, 0.0],
        [0.0, 5e-324],
        [-5e-324, 0.0],
        [0.0, -5e-324],
        [5e-324, 5e-324],
        [1e-320, -3e-321],
        [-2e-310, 7e-311],
        [3e-300, 1e-300],
    ]
)


def test_scores_match_predict_for_subnormal_offsets_from_a_pivot():
    # Regression: a private point at (5e-324, 0) sits at angle 0 from the pivot
    # (0, 0), but w . d rounds to 0 for some members, which predict labels
    # classes_[1]; the angular count used to say classes_[0].
    cover = Halfplanes().cover(SQUARE)
    X = np.array([[5e-324, 0.0]])
    np.testing.assert_array_equal(
        cover.scores(X, [0]), brute_force_scores(cover, X, np.array([0]))
    )
    X = (cover.points_[:, None, :] + TINY_OFFSETS[None]).reshape(-1, 2)
    for seed in range(3):
        y = np.random.default_rng(seed).integers(0, 2, size=X.shape[0])
        np.testing.assert_array_equal(
            cover.scores(X, y), brute_force_scores(cover, X, y)
        )


def huge_problem(seed):
    """Public and private points near +-1.7e308: x - p overflows to +-inf."""
    rng = np.random.default_rng(seed)
    cover = Halfplanes().cover(rng.uniform(-1.7, 1.7, size=(4, 2)) * 1e308)
    X = rng.choice([-1.7e308, 1.7e308, 0.0, 1e308], size=(30, 2))
    return cover, X, rng.integers(0, 2, size=30)


@pytest.mark.parametrize("seed", range(4))
def test_scores_match_predict_for_overflowing_offsets(seed):
    # x - p = inf; predict's predicate may then give inf - inf = NaN, which it
    # labels classes_[0] whatever the angle says. No overflow warning escapes
    # (pytest turns warnings into errors).
    cover, X, y = huge_problem(seed)
    np.testing.assert_array_equal(cover.scores(X, y), brute_force_scores(cover, X, y))


def test_overflowing_offsets_need_the_direct_predicate(monkeypatch):
    # Mutant: only tiny offsets evaluated directly, infinite ones by angle.
    def tiny_only(d):
        size = np.max(np.abs(d), axis=-1)
        return (size != 0) & (size < _halfplanes._TINY)

    problems = [huge_problem(seed) for seed in range(4)]
    expected = [brute_force_scores(*problem) for problem in problems]
    monkeypatch.setattr(_halfplanes, "_needs_direct", tiny_only)
    with np.errstate(over="ignore", invalid="ignore"):
        got = [cover.scores(X, y) for cover, X, y in problems]
    assert not all(map(np.array_equal, got, expected))


def test_tiny_offsets_need_the_direct_predicate(monkeypatch):
    # Mutant: counting tiny offsets by their angle (no direct evaluation) makes
    # scores disagree with predict, and public duplicates slip through the dedup.
    cover = Halfplanes().cover(SQUARE)
    X = (cover.points_[:, None, :] + TINY_OFFSETS[None]).reshape(-1, 2)
    y = np.random.default_rng(0).integers(0, 2, size=X.shape[0])
    expected = brute_force_scores(cover, X, y)
    monkeypatch.setattr(_halfplanes, "_TINY", 0.0)
    assert not np.array_equal(cover.scores(X, y), expected)
    labelings = cover_labelings(
        Halfplanes().cover([[0, 0], [5e-324, 0], [0, 1], [1, 1]])
    )
    assert len(set(labelings)) < len(labelings)


def test_public_points_at_subnormal_distance_keep_distinct_labelings():
    for X_public in (
        [[0, 0], [5e-324, 0], [0, 1], [1, 1]],
        [[0, 0], [1e-310, 3e-310], [1, 0], [0, 1], [-1, -2]],
    ):
        cover = Halfplanes().cover(X_public)
        labelings = cover_labelings(cover)
        assert len(set(labelings)) == len(labelings) == cover.size
        rng = np.random.default_rng(1)
        X = cover.points_[rng.integers(0, cover.points_.shape[0], 200)]
        X = X + rng.choice([0.0, 5e-324, -5e-324, 1e-320, 2e-310], size=(200, 2))
        y = rng.integers(0, 2, size=200)
        np.testing.assert_array_equal(
            cover.scores(X, y), brute_force_scores(cover, X, y)
        )


def test_direct_evaluation_in_blocks(monkeypatch):
    # Many tiny offsets, evaluated a few (member, row) pairs at a time.
    cover = Halfplanes().cover(SQUARE)
    X = np.repeat(cover.points_, 40, axis=0) + np.random.default_rng(2).choice(
        [0.0, 5e-324, -5e-324, 1e-321], size=(160, 2)
    )
    y = np.random.default_rng(3).integers(0, 2, size=X.shape[0])
    expected = brute_force_scores(cover, X, y)
    monkeypatch.setattr(_halfplanes, "_DIRECT_BLOCK", 7)
    np.testing.assert_array_equal(cover.scores(X, y), expected)
