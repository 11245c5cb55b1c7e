"""The sparse vector technique inside PMW: exact privacy of one instance, mutants.

* Exact: the output distribution of one AboveThreshold instance (Dwork & Roth
  2014, Alg. 1) is computed in closed form (the integrand is piecewise a sum of
  exponentials between the threshold and the values), from the noise scales
  the module declares; the largest privacy loss over every neighbouring pair of
  tiny inputs (each value moved by at most the sensitivity) must be at most ε,
  and exceeds it for the mutant with query noise ``Lap(2Δ/ε)``.
* Statistical (alpha = 1e-6): ``above_threshold`` samples that distribution, and
  two instances of ``sparse_vector_pmw`` are independent with the second
  starting after the query found; a sampler with the wrong scale and a run that
  does not refresh the threshold noise after a hit are caught.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from sklearn_semiprivate.query_release import _pmw

ALPHA = 1e-6


# --- exact output distribution of one instance ----------------------------------


def _times(a, b):
    """Product of two sums of exponentials ``{rate: coef}``."""
    out = {}
    for r1, c1 in a.items():
        for r2, c2 in b.items():
            out[r1 + r2] = out.get(r1 + r2, 0.0) + c1 * c2
    return out


def _integral(terms, lo, hi):
    """Integral over ``[lo, hi]`` of ``sum coef * exp(rate * t)``."""
    total = 0.0
    for r, c in terms.items():
        if c == 0.0:
            continue
        if lo == -math.inf:
            assert r > 0
            total += c * math.exp(r * hi) / r
        elif hi == math.inf:
            assert r < 0
            total -= c * math.exp(r * lo) / r
        elif r == 0.0:
            total += c * (hi - lo)
        else:
            total += c * math.exp(r * lo) * math.expm1(r * (hi - lo)) / r
    return total


def above_threshold_probabilities(values, threshold, epsilon, sensitivity):
    """``P(output = k)``, k = 0 .. m - 1, then ``P(no hit)``, in closed form.

    ``P(k) = int f_T(t) prod_{j<k} F_j(t) (1 - F_k(t)) dt`` with ``f_T`` the
    density of the noisy threshold and ``F_j(t) = P(v_j + noise < t)``.
    """
    b_t = _pmw.SVT_THRESHOLD_NOISE * sensitivity / epsilon
    b_q = _pmw.SVT_QUERY_NOISE * sensitivity / epsilon
    kinks = sorted({float(threshold), *map(float, values)})
    edges = [-math.inf, *kinks, math.inf]
    probs = np.zeros(len(values) + 1)
    for lo, hi in itertools.pairwise(edges):
        # A point inside the piece tells which side of each kink it lies on.
        if lo == -math.inf:
            mid = hi - 1.0
        elif hi == math.inf:
            mid = lo + 1.0
        else:
            mid = lo / 2 + hi / 2
        if mid < threshold:
            run = {1.0 / b_t: math.exp(-threshold / b_t) / (2 * b_t)}
        else:
            run = {-1.0 / b_t: math.exp(threshold / b_t) / (2 * b_t)}
        for k, v in enumerate(values):
            if mid < v:
                below = {1.0 / b_q: 0.5 * math.exp(-v / b_q)}
                above = {0.0: 1.0, 1.0 / b_q: -0.5 * math.exp(-v / b_q)}
            else:
                below = {0.0: 1.0, -1.0 / b_q: -0.5 * math.exp(v / b_q)}
                above = {-1.0 / b_q: 0.5 * math.exp(v / b_q)}
            probs[k] += _integral(_times(run, above), lo, hi)
            run = _times(run, below)
        probs[-1] += _integral(run, lo, hi)
    return probs


def _quadrature(values, threshold, epsilon, sensitivity):
    """The same integrals by adaptive quadrature (an independent cross-check)."""
    b_t = _pmw.SVT_THRESHOLD_NOISE * sensitivity / epsilon
    b_q = _pmw.SVT_QUERY_NOISE * sensitivity / epsilon
    f_t = stats.laplace(loc=threshold, scale=b_t).pdf
    cdfs = [stats.laplace(loc=v, scale=b_q).cdf for v in values]
    kinks = sorted({threshold, *values})
    out = []
    for k in range(len(values) + 1):

        def f(t, k=k):
            p = f_t(t) * np.prod([c(t) for c in cdfs[:k]])
            return p * (1.0 - cdfs[k](t)) if k < len(values) else p

        out.append(integrate.quad(f, -60, 60, points=kinks, limit=200, epsabs=1e-13)[0])
    return np.array(out)


def worst_log_ratio(epsilon=1.0, sensitivity=1.0, grid=(-3.0, 0.0, 3.0), m=3):
    """Largest ``|log P(o | v) - log P(o | v')|`` over ``v`` in ``grid^m``, every
    neighbour ``v' = v + s``, ``s`` in ``{-Δ, 0, Δ}^m``, and every output."""
    worst = 0.0
    cache = {}

    def log_p(v):
        if v not in cache:
            cache[v] = np.log(
                above_threshold_probabilities(v, 0.0, epsilon, sensitivity)
            )
        return cache[v]

    for base in itertools.product(grid, repeat=m):
        for shift in itertools.product((-sensitivity, 0.0, sensitivity), repeat=m):
            other = tuple(b + s for b, s in zip(base, shift))
            worst = max(worst, float(np.abs(log_p(base) - log_p(other)).max()))
    return worst


def test_closed_form_matches_quadrature():
    for values in [(0.5,), (1.0, -2.0), (3.0, 3.0, -3.0), (0.0, 0.0, 4.0)]:
        exact = above_threshold_probabilities(values, 0.3, 1.0, 1.0)
        assert exact.sum() == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(exact, _quadrature(values, 0.3, 1.0, 1.0), rtol=1e-7)


def test_one_instance_is_epsilon_dp_exactly():
    # Dwork & Roth 2014, Thm 3.23: epsilon-DP for any number of queries.
    worst = worst_log_ratio()
    assert worst <= 1.0 + 1e-9
    assert worst > 0.5  # the grid reaches the interesting pairs
    # The claim scales with epsilon / sensitivity.
    assert worst_log_ratio(epsilon=0.5, sensitivity=0.25, grid=(-0.75, 0.0, 0.75)) <= (
        0.5 + 1e-9
    )


def test_mutant_query_noise_too_small_is_caught_exactly(monkeypatch):
    # Query noise Lap(2Δ/ε) instead of Lap(4Δ/ε): the query part alone costs ε.
    monkeypatch.setattr(_pmw, "SVT_QUERY_NOISE", 2.0)
    assert worst_log_ratio() > 1.3


# --- the sampler and the PMW loop follow that distribution ----------------------

N_DRAWS = 20_000
VALUES = np.array([1.0, 0.5, -0.5])


def _gof_pvalue(counts, probs):
    expected = probs * counts.sum()
    return stats.chisquare(counts, expected).pvalue


def _sample_instances(sampler, seed):
    rng = np.random.default_rng(seed)
    out = np.array(
        [sampler(VALUES, 0.0, 1.0, 1.0, rng) for _ in range(N_DRAWS)], dtype=np.intp
    )
    return np.bincount(out % (VALUES.size + 1), minlength=VALUES.size + 1)


def _mutant_sampler(values, threshold, epsilon, sensitivity, rng):
    # Query noise Lap(2Δ/ε) in the sampler only.
    noisy_t = threshold + rng.laplace(scale=2.0 * sensitivity / epsilon)
    noisy = values + rng.laplace(scale=2.0 * sensitivity / epsilon, size=values.size)
    hits = np.flatnonzero(noisy >= noisy_t)
    return int(hits[0]) if hits.size else -1


@pytest.mark.statistical
def test_above_threshold_samples_the_exact_distribution():
    probs = above_threshold_probabilities(VALUES, 0.0, 1.0, 1.0)
    # Output -1 (no hit) is counted in the last cell.
    assert _gof_pvalue(_sample_instances(_pmw.above_threshold, 0), probs) > ALPHA
    assert _gof_pvalue(_sample_instances(_mutant_sampler, 1), probs) < ALPHA


class _FixedSupport:
    """A released distribution whose answers stay at 0: records the updates."""

    def __init__(self, m):
        self.answers = np.zeros(m)
        self.updated = []

    def update(self, i, factor):
        self.updated.append(i)


# Two instances, errors |true - 0| = TRUE; n = 1 (sensitivity 1); eps_svt = 1;
# threshold 3 alpha / 4 = 0.6.
TRUE = np.array([0.2, 1.5])
EPS0 = 1.0 / _pmw.SVT_SHARE
PMW_ALPHA = 0.8


def _transcripts(seed, before_run=None):
    """Counts of (first hit, second hit), -1 for "none", over N_DRAWS runs."""
    rng = np.random.default_rng(seed)
    m = TRUE.size
    counts = np.zeros((m + 1, m + 1), dtype=np.int64)
    for _ in range(N_DRAWS):
        if before_run is not None:
            before_run()
        support = _FixedSupport(m)
        done = _pmw.sparse_vector_pmw(
            support, TRUE, 1, epsilon0=EPS0, alpha=PMW_ALPHA, n_updates=2, rng=rng
        )
        hits = support.updated + [-1] * (2 - done)
        counts[hits[0], hits[1]] += 1
    return counts


def _transcript_probabilities():
    """Independent instances; the second starts after the query found."""
    m = TRUE.size
    threshold = 0.75 * PMW_ALPHA
    probs = np.zeros((m + 1, m + 1))
    first = above_threshold_probabilities(TRUE, threshold, 1.0, 1.0)
    probs[-1, -1] = first[-1]
    for i in range(m):
        order = (np.arange(m) + i + 1) % m
        second = above_threshold_probabilities(TRUE[order], threshold, 1.0, 1.0)
        probs[i, order] = first[i] * second[:m]
        probs[i, -1] = first[i] * second[-1]
    return probs


def _transcript_pvalue(counts):
    probs = _transcript_probabilities()
    cells = probs > 0  # (-1, i) is impossible: a run stops at its first miss
    assert counts[~cells].sum() == 0
    return _gof_pvalue(counts[cells], probs[cells])


@pytest.mark.statistical
def test_pmw_instances_are_fresh_and_independent():
    assert _transcript_pvalue(_transcripts(2)) > ALPHA


@pytest.mark.statistical
def test_mutant_threshold_not_refreshed_is_caught(monkeypatch):
    # The noisy threshold is drawn once per run and kept after an
    # above-threshold answer.
    state = {}

    def stale(values, threshold, epsilon, sensitivity, rng):
        if "noise" not in state:
            state["noise"] = rng.laplace(
                scale=_pmw.SVT_THRESHOLD_NOISE * sensitivity / epsilon
            )
        noisy = values + rng.laplace(
            scale=_pmw.SVT_QUERY_NOISE * sensitivity / epsilon, size=values.size
        )
        hits = np.flatnonzero(noisy >= threshold + state["noise"])
        return int(hits[0]) if hits.size else -1

    monkeypatch.setattr(_pmw, "above_threshold", stale)
    assert _transcript_pvalue(_transcripts(3, before_run=state.clear)) < ALPHA
