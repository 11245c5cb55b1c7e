"""Alg. 3 steps 1-2 (cover) and Definition 2 (representative domain) vs brute force."""

import itertools

import numpy as np
import pytest

from sklearn_semiprivate.query_release import (
    MarginalQueries,
    PredicateQueries,
    StumpQueries,
    ThresholdQueries,
    _base,
    _workloads,
)
from sklearn_semiprivate.query_release._base import (
    RepresentativeDomainTooLarge,
    project_by_public_labels,
)
from sklearn_semiprivate.query_release._xor import _StumpXorQueries


def _signatures(cover, points):
    """Brute force: the answer of every cover member at every point, one by one."""
    return [
        tuple(bool(cover.mask(i, points[j : j + 1])[0]) for i in range(cover.n_queries))
        for j in range(points.shape[0])
    ]


def _check_definition_2(cover, reps, class_map, probe):
    """Definition 2 on ``probe`` (a set meeting every equivalence class)."""
    sig = _signatures(cover, probe)
    rep_sig = _signatures(cover, reps)
    # Representatives are pairwise inequivalent: one per class.
    assert len(set(rep_sig)) == len(rep_sig)
    # Complete: every probed class has a representative, and there are no others.
    assert set(sig) == set(rep_sig)
    # The map sends each point to the representative of its own class.
    cls = class_map(probe)
    assert all(rep_sig[c] == s for c, s in zip(cls, sig))


def _check_cover(cover, labelings_of_class, public):
    """Cover = one member per distinct labeling of the public points (Alg. 3)."""
    cover_lab = [tuple(row) for row in cover.labels(public, 0, cover.n_queries)]
    assert len(set(cover_lab)) == len(cover_lab)
    assert set(cover_lab) == set(labelings_of_class)


def test_thresholds_brute_force():
    rng = np.random.default_rng(0)
    public = rng.integers(0, 8, size=(12, 1)).astype(float)  # duplicates on purpose
    distinct = np.unique(public, axis=0)
    workload = ThresholdQueries([0.0])
    cover = workload._cover(distinct)
    values = distinct[:, 0]
    # Every threshold of the class, up to its public labeling.
    ts = np.concatenate([values, values - 0.5, values + 0.5, [-np.inf, np.inf]])
    labelings = {tuple(values <= t) for t in ts}
    _check_cover(cover, labelings, distinct)
    reps, class_map = workload._representative_domain(cover, distinct)
    assert reps.shape[0] == values.size  # one cell per distinct public value
    probe = np.concatenate([values, (values[:-1] + values[1:]) / 2, [-50, 50]])
    probe = np.concatenate([probe, rng.uniform(-2, 10, 200)])[:, None]
    _check_definition_2(cover, reps, class_map, probe)


def test_coordinate_stumps_brute_force_with_duplicate_coordinates():
    rng = np.random.default_rng(1)
    p = 5
    public = np.where(rng.random((30, p)) < 0.5, 1.0, -1.0)
    public[:, 3] = public[:, 1]  # coordinate 3 duplicates 1 on the public points
    public[:, 4] = -public[:, 0]  # and 4 mirrors 0: same split, other orientation
    distinct = np.unique(public, axis=0)
    workload = StumpQueries()
    cover = workload._cover(distinct)
    # Brute force over the class: stumps of both orientations on every feature.
    labelings = {
        tuple(np.zeros(len(distinct), bool)),
        tuple(np.ones(len(distinct), bool)),
    }
    for j in range(p):
        labelings |= {tuple(distinct[:, j] > 0), tuple(distinct[:, j] <= 0)}
    _check_cover(cover, labelings, distinct)
    reps, class_map = workload._representative_domain(cover, distinct)
    assert reps.shape[0] == 2**3  # coordinates 0, 1, 2 survive the deduplication
    cube = np.array(list(itertools.product([-1.0, 1.0], repeat=p)))
    _check_definition_2(cover, reps, class_map, cube)


def test_real_stumps_brute_force():
    rng = np.random.default_rng(2)
    public = rng.integers(0, 4, size=(10, 2)).astype(float)
    distinct = np.unique(public, axis=0)
    workload = StumpQueries([1.0])
    cover = workload._cover(distinct)
    labelings = {
        tuple(np.zeros(len(distinct), bool)),
        tuple(np.ones(len(distinct), bool)),
    }
    for j in range(2):
        for t in np.arange(-0.5, 4.0, 0.5):
            labelings |= {tuple(distinct[:, j] > t), tuple(distinct[:, j] <= t)}
    _check_cover(cover, labelings, distinct)
    reps, class_map = workload._representative_domain(cover, distinct)
    grid = np.arange(-1.0, 5.0, 0.25)
    probe = np.array(list(itertools.product(grid, grid)))
    _check_definition_2(cover, reps, class_map, probe)


def test_marginals_brute_force():
    rng = np.random.default_rng(3)
    cards = [3, 2, 3]
    public = np.column_stack([rng.integers(0, c, 6) for c in cards]).astype(float)
    distinct = np.unique(public, axis=0)
    workload = MarginalQueries(k=2, n_categories=cards)
    full = workload._bind(3)
    cover = workload._cover(distinct)
    all_lab = {tuple(row) for row in full.labels(distinct, 0, full.n_queries)}
    _check_cover(cover, all_lab, distinct)
    reps, class_map = workload._representative_domain(cover, distinct)
    domain = np.array(list(itertools.product(*[range(c) for c in cards])), float)
    _check_definition_2(cover, reps, class_map, domain)
    # Projection: every query of the class maps to the member labeling the public
    # points as it does.
    member = project_by_public_labels(cover, full, distinct)
    assert np.all(member >= 0)
    np.testing.assert_array_equal(
        cover.take(member).labels(distinct, 0, member.size),
        full.labels(distinct, 0, full.n_queries),
    )


def test_predicates_brute_force_and_missing_domain():
    domain = np.array(list(itertools.product(range(3), range(3))), float)
    preds = [
        lambda X: X[:, 0] > 0,
        lambda X: X[:, 0] > 1,
        lambda X: X[:, 0] + X[:, 1] >= 3,
        lambda X: X[:, 1] == 0,
    ]
    public = np.array([[0.0, 0.0], [2.0, 2.0], [1.0, 0.0]])
    workload = PredicateQueries(preds, domain=domain)
    full = workload._bind(2)
    cover = workload._cover(public)
    _check_cover(
        cover, {tuple(r) for r in full.labels(public, 0, full.n_queries)}, public
    )
    reps, class_map = workload._representative_domain(cover, public)
    _check_definition_2(cover, reps, class_map, domain)
    with pytest.raises(ValueError, match="outside the declared domain"):
        workload._check_points(np.array([[5.0, 5.0]]), "X_public")
    no_domain = PredicateQueries(preds)
    with pytest.raises(ValueError, match="domain="):
        no_domain._representative_domain(no_domain._cover(public), public)


def test_too_large_representative_domain_points_to_public_support():
    rng = np.random.default_rng(0)
    public = rng.normal(size=(60, 6))  # 61^6 grid cells
    workload = StumpQueries([0.0])
    cover = workload._cover(public)
    with pytest.raises(RepresentativeDomainTooLarge, match="support='public'"):
        workload._representative_domain(cover, public)


def _stump_projection_cases(seed):
    """Public sets with ties, duplicated and reversed features, and stump lists."""
    rng = np.random.default_rng(seed)
    for trial in range(25):
        d = int(rng.integers(1, 4))
        X = rng.integers(0, 4, size=(int(rng.integers(1, 12)), d)).astype(float)
        if d > 1 and trial % 2:
            X[:, 1] = X[:, 0]  # the same split on two features
        if d > 2 and trial % 3 == 0:
            X[:, 2] = -X[:, 0]  # the same split, other orientation
        distinct = np.unique(X, axis=0)
        workload = StumpQueries(np.array([-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0]))
        cover = workload._cover(distinct)
        for queries in (
            workload._bind(d),
            cover,
            StumpQueries(np.linspace(-1, 4, 11))._bind(d),
        ):
            yield cover, queries, distinct
            lower = _workloads._StumpSet(
                d, queries.features, queries.thresholds, ~queries.upper
            )
            yield cover, lower, distinct
        if d == 1:
            thresholds = ThresholdQueries(np.linspace(-1, 4, 9))
            t_cover = thresholds._cover(distinct)
            yield t_cover, thresholds._bind(1), distinct
            # Upper stumps are not in the threshold class: mostly -1.
            yield t_cover, StumpQueries(np.linspace(-1, 4, 9))._bind(1), distinct


def test_stump_projection_by_searchsorted_matches_the_labeling_table():
    n_outside = 0
    for cover, queries, distinct in _stump_projection_cases(0):
        fast = cover.project_queries(queries, distinct)
        np.testing.assert_array_equal(
            fast, project_by_public_labels(cover, queries, distinct)
        )
        n_outside += int(np.sum(fast < 0))
    assert n_outside > 0  # the "not in the class" answer is exercised


def test_stump_projection_is_exact_under_hash_collisions(monkeypatch):
    # Every labeling hashes to 0: every member is a candidate, and only the
    # exact comparison decides.
    monkeypatch.setattr(
        _workloads, "_hash_keys", lambda n: np.zeros(n, dtype=np.uint64)
    )
    for cover, queries, distinct in _stump_projection_cases(1):
        np.testing.assert_array_equal(
            cover.project_queries(queries, distinct),
            project_by_public_labels(cover, queries, distinct),
        )


def test_stump_projection_builds_no_cover_by_points_table(monkeypatch):
    # The table would need |H~| x n_public labels; the projection needs none.
    monkeypatch.setattr(_base, "MAX_LABEL_BITS", 1000)
    rng = np.random.default_rng(0)
    distinct = np.unique(rng.normal(size=(2000, 2)), axis=0)
    workload = StumpQueries(np.linspace(-2, 2, 9))
    cover = workload._cover(distinct)
    queries = workload._bind(2)
    with pytest.raises(RepresentativeDomainTooLarge):
        project_by_public_labels(cover, queries, distinct)
    member = cover.project_queries(queries, distinct)
    assert np.all(member >= 0)
    # The member labels the public points as the query does.
    np.testing.assert_array_equal(
        cover.take(member).labels(distinct, 0, member.size),
        queries.labels(distinct, 0, queries.n_queries),
    )


@pytest.mark.parametrize(
    "workload, n_features",
    [(_StumpXorQueries(64), 4), (MarginalQueries(k=1, n_categories=40), 4)],
)
def test_grid_domain_size_is_checked_before_the_grid_is_built(
    monkeypatch, workload, n_features
):
    def no_grid(cards):
        raise AssertionError("the grid was built before its size was checked")

    monkeypatch.setattr(_base, "grid_points", no_grid)
    public = np.zeros((3, n_features))
    public[1] = 1.0
    cover = workload._cover(public)
    with pytest.raises(RepresentativeDomainTooLarge, match="support='public'"):
        workload._representative_domain(cover, public)
