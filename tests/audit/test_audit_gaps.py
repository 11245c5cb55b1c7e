"""The audit tools: tests for the gaps of a mutation round (November 2026).

77 mutants of audit/ and hypotheses/ (11 controls besides); 13 survived, of
which these were real gaps in the audit tools (the covers' are in
tests/hypotheses/test_cover_gaps.py). Each test names the mutant it kills and
passes on the unmutated code; all are deterministic.
"""

import math

import numpy as np
import pytest
from scipy.stats import beta

from sklearn_semiprivate.audit import (
    _lower_bound,
    _overlap,
    epsilon_lower_bound,
    epsilon_lower_bound_search,
    max_privacy_loss_over_pairs,
    neighbouring_pairs,
    noisy_public_overlap,
)
from sklearn_semiprivate.mechanisms import LaplaceMechanism

# =================================================== tests/audit/test_audit_exact.py


def test_add_remove_pairs_remove_every_row():
    # Mutant EX05 (add/remove pairs always drop the first row): every row of
    # every dataset must be removed once, or an order-dependent mechanism whose
    # output follows the last row escapes the audit.
    pairs = neighbouring_pairs([0, 1], n_rows=2, relation="add_remove")
    assert ((0, 1), (0,)) in pairs and ((0, 1), (1,)) in pairs
    assert sorted(pairs) == sorted(
        (d, d[:i] + d[i + 1 :])
        for d in [(0, 0), (0, 1), (1, 0), (1, 1)]
        for i in range(2)
    )

    def distribution(dataset):
        # Two rows: follows the last row; one row: follows that row.
        key = dataset[-1] if len(dataset) == 2 else dataset[0]
        return np.array([0.9, 0.1]) if key == 0 else np.array([0.1, 0.9])

    res = max_privacy_loss_over_pairs(distribution, pairs)
    assert res.epsilon == pytest.approx(math.log(9.0), rel=1e-12)


# ============================================= tests/audit/test_audit_lower_bound.py


def test_search_finds_evidence_in_either_direction():
    # Mutant LB05 (the search scores only "M(D) vs M(D')"): here only
    # M(D') puts mass where M(D) puts none (D' is +-10, D is 0), so all the
    # evidence is in the direction D' first. Deterministic inputs; the split
    # is seeded. Expected bound ~4.8 either way round.
    a = np.zeros(2000)
    b = np.r_[np.full(1000, -10.0), np.full(1000, 10.0)]
    forward = epsilon_lower_bound_search(a, b, alpha=0.05, random_state=0)
    backward = epsilon_lower_bound_search(b, a, alpha=0.05, random_state=0)
    assert forward.epsilon > 3.0, forward
    assert forward.event.endswith("on M(D_neighbour) vs M(D)")
    assert backward.epsilon > 3.0, backward
    assert backward.event.endswith("on M(D) vs M(D_neighbour)")


def test_search_thresholds_come_from_the_selection_halves(monkeypatch):
    # Mutant LB07 (candidate thresholds are quantiles of the held-out halves):
    # the event would then depend on the samples it is evaluated on. The
    # thresholds must be quantiles of the selection halves only.
    pooled_seen = []
    real_quantile = np.quantile

    def spy(x, q, *args, **kwargs):
        pooled_seen.append(np.array(x, copy=True))
        return real_quantile(x, q, *args, **kwargs)

    monkeypatch.setattr(_lower_bound.np, "quantile", spy)
    a, b = np.arange(1000.0), np.arange(1000.0) + 0.5  # every value distinct
    epsilon_lower_bound_search(a, b, random_state=7)
    monkeypatch.undo()
    rng = np.random.default_rng(7)  # the search's split, redone
    selection = set(rng.permutation(a)[:500]) | set(rng.permutation(b)[:500])
    (pooled,) = pooled_seen
    assert set(pooled.tolist()) == selection


def test_bound_with_unequal_sample_sizes():
    # Mutant LB09 (the neighbour's count taken as len(samples)): with 100
    # samples against 1000 the upper bound on P[M(D') in E] must use 1000.
    a = np.r_[np.ones(30), np.zeros(70)].astype(bool)
    b = np.r_[np.ones(10), np.zeros(990)].astype(bool)
    res = epsilon_lower_bound(a, b, lambda x: x, alpha=0.05)
    assert (res.n_samples, res.n_samples_neighbour) == (100, 1000)
    assert res.p_lower == pytest.approx(beta.ppf(0.025, 30, 71), rel=1e-12)
    assert res.q_upper == pytest.approx(beta.ppf(0.975, 11, 990), rel=1e-12)
    assert res.epsilon == pytest.approx(math.log(res.p_lower / res.q_upper), rel=1e-12)


# ======================================================= tests/audit/test_overlap.py


class _Shifted(LaplaceMechanism):
    """Deterministic stand-in for the noise: the exact value plus SHIFT."""

    SHIFT = 0.0

    def sample(self, value, *, random_state=None):
        return float(value) + self.SHIFT


@pytest.mark.parametrize("shift", [5.0, -5.0])
def test_likely_overlap_is_decided_on_the_noisy_count(monkeypatch, shift):
    # Mutant OV05 (likely_overlap = exact count > threshold): the flag is
    # released, so it must be a function of the noisy count only. Exact
    # counts 1 (below the threshold 2.30) and 50 (above it), moved across
    # the threshold by a fixed "noise".
    monkeypatch.setattr(_Shifted, "SHIFT", shift)
    monkeypatch.setattr(_overlap, "LaplaceMechanism", _Shifted)
    X_one = np.array([[0.0, 0.0], [5.0, 5.0]])
    public = np.array([[0.0, 0.0], [1.0, 1.0]])
    X_many = np.arange(100.0).reshape(50, 2)
    for X, Xp, exact in ((X_one, public, 1.0), (X_many, X_many, 50.0)):
        res = noisy_public_overlap(X, Xp, epsilon=1.0, alpha=0.05)
        assert res.noisy_count == exact + shift
        assert res.likely_overlap == (exact + shift > res.threshold)
    # count 1 + 5 is flagged, count 50 - 5 is flagged, count 1 - 5 is not
    one = noisy_public_overlap(X_one, public, epsilon=1.0, alpha=0.05)
    assert one.likely_overlap is (shift > 0)


def test_the_exact_audit_takes_the_worst_pair_not_the_first():
    # Mutant EX03 (only the first pair kept): caught only by a test of the
    # generic learner. The worst pair here is the last one.
    pairs = [((0,), (1,)), ((1,), (2,)), ((2,), (3,))]
    tables = {
        0: [0.5, 0.5],
        1: [0.6, 0.4],
        2: [0.5, 0.5],
        3: [0.9, 0.1],
    }
    res = max_privacy_loss_over_pairs(lambda d: np.array(tables[d[0]]), pairs)
    assert res.epsilon == pytest.approx(math.log(0.5 / 0.1), rel=1e-12)


def test_a_tracing_score_equal_to_the_threshold_is_out():
    # Mutant TR06 (ties admitted): the false positive rate is certified for
    # "score > threshold"; caught only by a docstring example before.
    from sklearn_semiprivate.audit import TracingAttack

    reference = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]])
    attack = TracingAttack(threshold=0.0).fit([0.5, 0.5], reference)
    scores = attack.decision_function([[1, -1], [-1, 1]])
    assert np.all(scores == attack.threshold_)  # ties, exactly
    assert attack.predict([[1, -1], [-1, 1]]).tolist() == [False, False]
