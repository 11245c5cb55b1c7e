"""The graphical model of support="graphical": exact inference, sampling, fit."""

import itertools
import warnings

import numpy as np
import pytest

from sklearn_semiprivate import PublicData, reproducible_noise
from sklearn_semiprivate.query_release import (
    MarginalQueries,
    PublicAssistedQueryRelease,
    _adaptive,
    _graphical,
)
from sklearn_semiprivate.query_release._graphical import (
    GraphicalModel,
    junction_tree,
    public_base,
)

CARDS = np.array([3, 2, 4, 3, 2, 3])
CLIQUES = [(0, 1), (1, 2, 3), (3, 4), (0, 5), (2, 5)]


def _random_model(seed=0, base=None):
    rng = np.random.default_rng(seed)
    g = GraphicalModel(CARDS, CLIQUES, base=base)
    for c in g.theta:
        g.theta[c] = rng.normal(size=g.theta[c].shape)
    g.calibrate()
    return g


def _dense(g):
    """The model's joint distribution by brute force over the whole domain."""
    d = g.n_categories.size
    logp = np.zeros(g.n_categories)
    for c, t in itertools.chain(g.theta.items(), g.base.items()):
        logp = logp + t.reshape([g.n_categories[i] if i in c else 1 for i in range(d)])
    p = np.exp(logp - logp.max())
    return p / p.sum()


def _dense_marginal(p, cols):
    return p.sum(axis=tuple(i for i in range(p.ndim) if i not in cols)).ravel()


def test_junction_tree_has_the_running_intersection_property():
    maximal, edges = junction_tree(CLIQUES, CARDS)
    assert len(edges) == len(maximal) - 1
    # Every measured set lies in a maximal clique.
    assert all(any(set(c) <= set(m) for m in maximal) for c in CLIQUES)
    # For every column, the cliques holding it form a connected subtree.
    for col in range(CARDS.size):
        holding = {k for k, m in enumerate(maximal) if col in m}
        inner = [(i, j) for i, j in edges if i in holding and j in holding]
        assert len(inner) == len(holding) - 1


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_marginal_is_exact(seed):
    # In-clique marginals (sums of beliefs) and out-of-clique ones (the
    # contraction over the covering subtree) against brute force.
    g = _random_model(seed)
    p = _dense(g)
    for r in (1, 2, 3, 4):
        for cols in itertools.combinations(range(CARDS.size), r):
            np.testing.assert_allclose(
                g.marginal(cols), _dense_marginal(p, cols), atol=1e-12
            )
    assert any(not g.contains(c) for c in itertools.combinations(range(6), 3))


def test_marginals_stay_exact_with_potentials_spanning_thousands():
    # Messages run in probability space: potentials far beyond exp's range
    # (a cell 5000 nats below another) must neither underflow a whole
    # message to 0 nor lose the cells that carry the mass.
    # (0, 1) all but rules out column 1 = 1, (1, 2, 3) column 1 = 0: the
    # two cliques' tables, each shifted by its own maximum, have disjoint
    # support on the separator unless no entry underflows to 0.
    rng = np.random.default_rng(3)
    g = GraphicalModel(CARDS, CLIQUES)
    for c in g.theta:
        g.theta[c] = rng.normal(size=g.theta[c].shape)
    g.theta[0, 1][:, 1] -= 5000.0
    g.theta[1, 2, 3][0] -= 5001.0
    g.calibrate()
    p = _dense(g)
    assert np.all(np.isfinite(np.concatenate([b.ravel() for b in g.beliefs])))
    for cols in itertools.combinations(range(CARDS.size), 2):
        np.testing.assert_allclose(
            g.marginal(cols), _dense_marginal(p, cols), atol=1e-12
        )


def test_all_marginals_share_the_sums_of_a_large_clique_exactly():
    # A 13-column clique (8192 cells, above _DIRECT_CELLS) joined by a chain
    # to two more columns: all_marginals reduces the large clique through
    # shared partial sums, in and out of cliques; every 1-3-way marginal
    # must equal brute force.
    cards = np.array([2] * 13 + [3, 2])
    cliques = [tuple(range(13)), (12, 13), (13, 14)]
    rng = np.random.default_rng(7)
    g = GraphicalModel(cards, cliques)
    for c in g.theta:
        g.theta[c] = rng.normal(size=g.theta[c].shape)
    g.calibrate()
    assert g.size(max(g.maximal, key=len)) > _graphical._DIRECT_CELLS
    p = _dense(g)
    sets = [c for r in (1, 2, 3) for c in itertools.combinations(range(15), r)]
    got = g.all_marginals(sets)
    assert any(not g.contains(c) for c in sets)
    for cols in sets:
        np.testing.assert_allclose(got[cols], _dense_marginal(p, cols), atol=1e-12)


def test_base_measure_enters_the_distribution():
    rng = np.random.default_rng(5)
    base = {(0, 4): rng.normal(size=(3, 2))}
    g = _random_model(0, base=base)
    np.testing.assert_allclose(g.marginal((0, 4)), _dense_marginal(_dense(g), (0, 4)))
    assert not np.allclose(
        g.marginal((0, 4)), _dense_marginal(_dense(_random_model(0)), (0, 4))
    )


def test_unsorted_column_sets_follow_the_given_order():
    # Cells in the C order of the columns as given (as a workload lists
    # them), in a clique and out of one; a repeated column is refused.
    g = _random_model(1)
    p = _dense(g)
    for cols in [(2, 0), (5, 1, 3), (4, 0, 2)]:
        want = np.transpose(
            _dense_marginal(p, sorted(cols)).reshape(CARDS[sorted(cols)]),
            [sorted(cols).index(c) for c in cols],
        ).ravel()
        np.testing.assert_allclose(g.marginal(cols), want, atol=1e-12)
    with pytest.raises(ValueError, match="distinct"):
        g.marginal((1, 1))


@pytest.mark.statistical
def test_sample_follows_the_model():
    # Total variation of 200k rows over 864 cells: its mean is about 0.02
    # and its sd about 1e-3; 0.03 fails with probability < 1e-10.
    g = _random_model(3)
    rows = g.sample(200_000, np.random.default_rng(0))
    freq = np.bincount(np.ravel_multi_index(rows.T, CARDS), minlength=CARDS.prod())
    tv = 0.5 * np.abs(freq / rows.shape[0] - _dense(g).ravel()).sum()
    assert tv < 0.03
    # A sampler that ignored the separators would be far off.
    assert rows.min() >= 0 and np.all(rows.max(axis=0) < CARDS)


def test_fit_reaches_consistent_targets():
    # Targets that are the marginals of a model on the same sets: the fit
    # (mirror descent, Armijo search) drives the loss to near zero.
    target = _random_model(4)
    meas = [(c, target.marginal(c), 1.0) for c in CLIQUES]
    g = GraphicalModel(CARDS)
    g.fit(meas, 500)
    worst = max(np.abs(g.marginal(c) - y).max() for c, y, _ in meas)
    assert worst < 1e-3
    # And never increases it from one step to the next.
    h = GraphicalModel(CARDS)
    losses = []
    for _ in range(20):
        h.fit(meas, 1)
        losses.append(h._loss(h.beliefs, meas)[0])
    assert all(b <= a + 1e-15 for a, b in itertools.pairwise(losses))


def test_a_long_chain_of_60_columns_is_contracted_exactly():
    # Far more columns than einsum's 52 labels: the contraction runs clique
    # by clique. The marginal of the chain's two ends is the normalised
    # product of its transfer matrices.
    rng = np.random.default_rng(0)
    g = GraphicalModel(np.full(60, 2), [(i, i + 1) for i in range(59)])
    for c in g.theta:
        g.theta[c] = rng.normal(size=(2, 2))
    g.calibrate()
    m = np.eye(2)
    for i in range(59):
        m = m @ np.exp(g.theta[(i, i + 1)])
    np.testing.assert_allclose(g.marginal((0, 59)), (m / m.sum()).ravel())
    np.testing.assert_allclose(g.marginal((59, 0)), (m.T / m.sum()).ravel())


def _latent(n, rng):
    z = (rng.random(n) < 0.4).astype(int)
    modes = np.array([[0, 1, 2, 0, 1, 2], [2, 2, 0, 1, 0, 1]])
    return np.where(rng.random((n, 6)) < 0.7, modes[z], rng.integers(0, 3, (n, 6)))


def test_model_size_cap_is_respected(monkeypatch):
    # With a cap of 100 cells, no selection grows the junction tree past it.
    monkeypatch.setattr(_adaptive, "MAX_MODEL_CELLS", 100)
    rng = np.random.default_rng(0)
    X, Xp = _latent(3000, rng).astype(float), _latent(100, rng).astype(float)
    qr = PublicAssistedQueryRelease(
        MarginalQueries(k=3, n_categories=3),
        epsilon=4.0,
        support="graphical",
        random_state=0,
    ).fit(X, X_public=PublicData(Xp))
    assert qr.graphical_model_.model_size() <= 100
    assert len(qr.selected_) >= 5


def _public_marginals(Xp, cards):
    m = Xp.shape[0]
    return {
        c: np.bincount(
            _adaptive._codes(Xp, c, cards), minlength=int(np.prod(cards[list(c)]))
        )
        / m
        for r in (1, 2, 3)
        for c in itertools.combinations(range(cards.size), r)
    }


@pytest.mark.statistical
def test_selection_with_rejection_is_the_restricted_exponential_mechanism(
    monkeypatch,
):
    # select_candidate draws, rejects the candidates the model cannot hold
    # and draws again; its output must follow the exponential mechanism with
    # base measure -inf on exactly those. 40000 draws: every frequency is
    # within 6 standard errors of the exact probability (p < 1e-7 in all).
    from sklearn_semiprivate.mechanisms import ExponentialMechanism

    monkeypatch.setattr(_adaptive, "MAX_MODEL_CELLS", 30)
    cards = np.array([3, 3, 3, 3])
    model = GraphicalModel(cards, [(0, 1), (1, 2)])  # 9 + 9 cells
    cliques = [(0,), (1,), (0, 1), (2, 3), (0, 3), (1, 2, 3), (0, 2, 3)]
    allowed = np.array([_adaptive._holds(model, c) for c in cliques])
    assert allowed.tolist() == [True, True, True, True, True, False, False]
    scores = np.array([1.0, 0.0, 2.0, 1.5, 0.5, 4.0, 3.0])
    base = np.where(allowed, 0.0, -np.inf)
    exact = np.exp(
        ExponentialMechanism(2.0, 1.0).log_probabilities(scores, log_base_measure=base)
    )
    rng = np.random.default_rng(0)
    n = 40_000
    draws = [
        _adaptive.select_candidate(scores, 2.0, 1.0, model, cliques, rng)
        for _ in range(n)
    ]
    freq = np.bincount(draws, minlength=len(cliques)) / n
    se = np.sqrt(exact * (1 - exact) / n)
    assert np.all(np.abs(freq - exact) <= 6 * se + 1e-12)
    # The unrestricted mechanism (the mutant: no filter) would draw the two
    # refused candidates most of the time.
    free = np.exp(ExponentialMechanism(2.0, 1.0).log_probabilities(scores))
    assert free[~allowed].sum() > 0.5


def test_public_base_is_a_fitted_pair_model_within_its_size():
    # The base is the tempered pair potentials of a graphical model fitted to
    # the public pairs of positive (bias-corrected) mutual information, its
    # junction tree within the cap.
    rng = np.random.default_rng(0)
    Xp = _latent(300, rng)
    cards = np.full(6, 3)
    public = _public_marginals(Xp, cards)
    base = public_base(public, cards, 300.0, cap=2**15, steps=300, temper=0.5)
    assert base and all(len(c) == 2 for c in base)
    # Every column pair of the latent class is dependent: the pairs span the
    # columns, and the model is within its cap.
    assert {j for c in base for j in c} == set(range(6))
    assert GraphicalModel(cards, base=base).model_size() <= 2**15
    # Untempered, the pair potentials with 1-way ones refitted to the public
    # 1-way marginals give back the public pairs they were fitted to.
    untempered = public_base(public, cards, 300.0, cap=2**15, steps=300, temper=1.0)
    full = GraphicalModel(cards, base=untempered)

    def smooth(c):
        return (public[c] * 300 + 0.5) / (300 + 0.5 * public[c].size)

    full.fit([((j,), smooth((j,)), 1.0) for j in range(6)], 300)
    for c in base:
        assert np.abs(full.marginal(c) - smooth(c)).max() < 5e-3
    # A smaller cap holds fewer pairs (a tree of 3 x 3 cliques needs 45).
    small = public_base(public, cards, 300.0, cap=45, steps=300, temper=0.5)
    assert 0 < len(small) < len(base)
    assert GraphicalModel(cards, base=small).model_size() <= 45


def test_workload_leaving_a_column_out_fits():
    # A column in no column set of the workload: no candidate, no base pair;
    # the release still answers the workload (the reviewer's KeyError).
    rng = np.random.default_rng(0)
    X, Xp = _latent(2000, rng).astype(float), _latent(100, rng).astype(float)
    queries = MarginalQueries(k=2, subsets=[[0, 1], [2, 1]], n_categories=3)
    qr = PublicAssistedQueryRelease(queries, epsilon=1.0, random_state=0)
    qr.fit(X[:, :4], X_public=PublicData(Xp[:, :4]))
    assert qr.support_type_ == "graphical"
    truth = queries.evaluate(X[:, :4])
    assert np.abs(qr.answers_ - truth).max() < 0.1
    # The unsorted set (2, 1) is answered in its own cell order.
    np.testing.assert_allclose(qr.transform(queries), qr.answers_)


def test_public_base_is_empty_for_independent_public_columns():
    # Independent columns: bias-corrected mutual information is <= 0 for
    # (almost) every pair; exactly independent marginals give no pair at all.
    cards = np.full(4, 3)
    flat = {
        **{(j,): np.full(3, 1 / 3) for j in range(4)},
        **{c: np.full(9, 1 / 9) for c in itertools.combinations(range(4), 2)},
    }
    assert public_base(flat, cards, 300.0, cap=2**15, steps=300, temper=0.5) == {}


def test_same_seed_same_release_and_deterministic_outputs():
    rng = np.random.default_rng(1)
    X, Xp = _latent(2000, rng).astype(float), _latent(100, rng).astype(float)

    def fit():
        with reproducible_noise():
            return PublicAssistedQueryRelease(
                MarginalQueries(k=3, n_categories=3),
                epsilon=1.0,
                support="graphical",
                random_state=3,
            ).fit(X, X_public=PublicData(Xp))

    a, b = fit(), fit()
    np.testing.assert_array_equal(a.answers_, b.answers_)
    np.testing.assert_array_equal(a.transform(a.queries), a.answers_)
    s1, s2 = a.sample(50, random_state=0), a.sample(50, random_state=0)
    np.testing.assert_array_equal(s1, s2)


def test_seventy_unmeasured_columns_hang_off_one_clique():
    # Columns in no measured set become 1-column cliques joined to node 0 by
    # empty separators: a node with 69 neighbours (beyond einsum's 64
    # operands) must still pass its messages.
    g = GraphicalModel([2] * 70)
    g.theta[(3,)] = np.array([0.0, np.log(3.0)])
    g.calibrate()
    np.testing.assert_allclose(g.marginal((3,)), [0.25, 0.75], atol=1e-12)
    np.testing.assert_allclose(g.marginal((0, 69)), [0.25] * 4, atol=1e-12)


def test_partial_sum_cache_stays_within_its_bound_with_one_category_columns():
    # Summing out a 1-category column does not shrink a table: the chain
    # must skip them, or the cache grows with their number (it was 724x the
    # clique with 10 of them, 8058x with 20).
    cards = np.array([1] * 20 + [2] * 13)
    g = GraphicalModel(cards, [tuple(range(33))])
    for c in g.theta:
        g.theta[c] = np.random.default_rng(0).normal(size=g.theta[c].shape)
    g.calibrate()
    cache = {}
    sets = [c for r in (1, 2, 3) for c in itertools.combinations(range(33), r)]
    for cols in sets:
        g._clique_marginal(cols, g.beliefs, cache)
    assert sum(t.size for t in cache.values()) < 2**4 * g.beliefs[0].size
    p = _dense(g)
    for cols in sets[::37]:
        np.testing.assert_allclose(
            g.marginal(cols), _dense_marginal(p, cols), atol=1e-12
        )


def test_marginals_are_copies_not_views_of_the_model():
    g = _random_model(4)
    whole = g.maximal[0]
    before = g.marginal(whole).copy()
    g.marginal(whole)[:] = 0.0
    g.all_marginals([whole])[whole][:] = 0.0
    np.testing.assert_array_equal(g.marginal(whole), before)


def test_potentials_stay_bounded_when_noisy_targets_do_not_sum_to_one():
    # The part of a gradient along the constants moves no probability; left
    # in, it drifted the potentials to |theta| ~ 1e10 (the step grows while
    # the loss cannot fall), losing float precision.
    g = GraphicalModel([1, 2, 3], [(0,), (1, 2)])
    target = np.array([0.3, 0.2, 0.1, 0.1, 0.2, 0.4])  # sums to 1.3
    g.fit([((0,), np.array([1.4]), 1.0), ((1, 2), target, 1.0)], 300)
    assert max(np.abs(t).max() for t in g.theta.values()) < 50
    # The fit still reaches the least-squares point of the simplex: the
    # target less 0.3 / 6 in every cell (all of them stay positive).
    np.testing.assert_allclose(g.marginal((1, 2)), target - 0.05, atol=1e-3)


def test_a_subnormal_separator_mass_neither_warns_nor_overflows():
    # A review: the inverse of a separator's subnormal mass overflowed with a
    # RuntimeWarning (1 fit in 80 on all-zero rows, depending on the noise),
    # which pytest made a flaky failure. Column 1 takes value 1 with mass
    # about 5e-323 here; the marginal of (0, 2), in no clique, divides by it.
    g = GraphicalModel([2, 2, 2], [(0, 1), (1, 2)])
    g.theta[(0, 1)] = np.array([[0.0, -742.0], [0.0, -742.0]])
    g.theta[(1, 2)] = np.array([[0.0, 0.3], [0.0, 0.0]])
    g.calibrate()
    assert 0.0 < g.marginal((1,))[1] < np.finfo(float).tiny
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = g.marginal((0, 2))
    np.testing.assert_allclose(got, _dense_marginal(_dense(g), (0, 2)), atol=1e-12)
