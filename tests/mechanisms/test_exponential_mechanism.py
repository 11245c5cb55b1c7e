"""Exponential mechanism: exact privacy, sampler fidelity, chunking, mutants."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest

from sklearn_semiprivate.accounting import PrivacyCost
from sklearn_semiprivate.audit import max_privacy_loss_over_scores
from sklearn_semiprivate.mechanisms import ExponentialMechanism, exponential_mechanism

EPS = 1.0
TOL = 1e-9


class MissingFactorTwo(ExponentialMechanism):
    """Mutant: exp(ε s / Δ) instead of exp(ε s / (2Δ))."""

    @property
    def _coef(self):
        return self.epsilon / self.sensitivity


class EpsilonTooLarge(ExponentialMechanism):
    """Mutant: runs at 1.5 ε while claiming ε."""

    @property
    def _coef(self):
        return 1.5 * self.epsilon / (2.0 * self.sensitivity)


BASES = [
    [0.0, 8.0, 8.0],
    [0.0, 1.0, 2.0],
    [3.0, 3.0, 3.0, 3.0],
    [0.0, 0.5, 4.0, -2.0],
]


@pytest.mark.parametrize("sensitivity", [1.0, 2.5])
@pytest.mark.parametrize("scores", BASES)
def test_exact_privacy_uniform_base(scores, sensitivity):
    mech = ExponentialMechanism(EPS, sensitivity)
    scores = np.asarray(scores) * sensitivity
    res = max_privacy_loss_over_scores(
        mech.log_probabilities, scores, sensitivity=sensitivity, n_moves=3
    )
    assert res.epsilon <= EPS + TOL


@pytest.mark.parametrize("scores", BASES)
def test_exact_privacy_with_base_measure(scores):
    mech = ExponentialMechanism(EPS)
    k = len(scores)
    log_base = np.log(np.arange(1.0, k + 1))
    log_base[-1] = -np.inf  # excluded by a data-independent prior

    def log_proba(s):
        return mech.log_probabilities(s, log_base)

    res = max_privacy_loss_over_scores(log_proba, scores, n_moves=3)
    assert res.epsilon <= EPS + TOL
    # The excluded candidate stays excluded on every neighbour (no infinite loss).
    assert np.isneginf(log_proba(scores)[-1])


def test_bound_is_nearly_tight():
    # The checker must be able to see a loss close to ε: a rare candidate whose
    # score rises while every other falls.
    mech = ExponentialMechanism(EPS)
    res = max_privacy_loss_over_scores(mech.log_probabilities, [0.0, 8.0, 8.0])
    assert res.epsilon > 0.9 * EPS
    mech_base = ExponentialMechanism(EPS)
    res = max_privacy_loss_over_scores(
        lambda s: mech_base.log_probabilities(s, [0.0, 2.0, 2.0]), [0.0, 8.0, 8.0]
    )
    assert res.epsilon > 0.9 * EPS


@pytest.mark.parametrize("mutant", [MissingFactorTwo, EpsilonTooLarge])
def test_mutants_fail_exact_check(mutant):
    mech = mutant(EPS)
    res = max_privacy_loss_over_scores(mech.log_probabilities, [0.0, 8.0, 8.0])
    assert res.epsilon > EPS + 0.3


def test_privacy_cost():
    assert ExponentialMechanism(0.5, 3.0).privacy_cost == PrivacyCost(0.5, 0.0)


def test_log_probabilities_match_formula():
    scores = np.array([0.0, 1.0, 3.0, -2.0])
    base = np.array([0.0, np.log(2.0), 0.0, np.log(0.5)])
    eps, sens = 0.7, 2.0
    weights = np.exp(base + eps * scores / (2 * sens))
    expected = weights / weights.sum()
    got = np.exp(ExponentialMechanism(eps, sens).log_probabilities(scores, base))
    np.testing.assert_allclose(got, expected, rtol=1e-13)


def test_extreme_scores_are_finite():
    mech = ExponentialMechanism(3.0)
    lp = mech.log_probabilities([1e12, -1e12, 1e12 - 1.0, 0.0])
    assert np.all(np.isfinite(lp))
    assert np.isclose(np.logaddexp.reduce(lp), 0.0, atol=1e-12)
    assert lp[1] == pytest.approx(-3e12, rel=1e-12)


@pytest.mark.statistical
def test_sampler_matches_exact_distribution(assert_draws_match):
    mech = ExponentialMechanism(1.3, 0.5)
    scores = [0.0, 0.4, 1.0, -0.3, 0.7]
    draws = mech.sample(scores, size=30_000, random_state=1)
    assert_draws_match(draws, mech.log_probabilities(scores))


@pytest.mark.statistical
def test_sampler_with_base_measure(assert_draws_match):
    mech = ExponentialMechanism(2.0)
    scores = [0.0, 1.0, 1.5, 2.0]
    base = [np.log(3.0), -np.inf, 0.0, -1.0]
    draws = mech.sample(scores, base, size=30_000, random_state=2)
    assert_draws_match(draws, mech.log_probabilities(scores, base))


@pytest.mark.statistical
def test_sampler_extreme_scores(assert_draws_match):
    mech = ExponentialMechanism(2.0)
    scores = [1e12, 1e12 - 1.0, -1e12, 1e12 - 2.5, -1e12 + 1.0]
    lp = mech.log_probabilities(scores)
    draws = mech.sample(scores, size=30_000, random_state=3)
    assert_draws_match(draws, lp)
    draws = mech.sample(-np.asarray(scores), size=30_000, random_state=4)
    assert_draws_match(draws, mech.log_probabilities(-np.asarray(scores)))


def _blocks(scores, sizes):
    start = 0
    for size in sizes:
        yield np.asarray(scores[start : start + size])
        start += size


@pytest.mark.statistical
def test_chunked_sampler_matches_exact_distribution(assert_draws_match):
    mech = ExponentialMechanism(1.0)
    scores = np.array([0.0, 2.0, 1.0, 3.0, 2.5, -1.0, 1.5, 0.5, 2.2])
    sizes = [2, 0, 4, 1, 2]  # an empty block too
    draws = mech.sample(_blocks(scores, sizes), size=30_000, random_state=5)
    assert_draws_match(draws, mech.log_probabilities(scores))


@pytest.mark.statistical
def test_chunked_sampler_extreme_scores_and_base(assert_draws_match):
    # Blocks with very different reference scores: the running maximum compares
    # keys relative to each block's reference without losing precision.
    mech = ExponentialMechanism(2.0)
    scores = np.array([-1e12, 1e12 - 1.0, 5.0, 1e12, 1e12 - 2.0, -3e11, 1e12 - 0.5])
    base = np.array([0.0, 0.0, 0.0, -np.inf, np.log(2.0), 0.0, 0.0])
    sizes = [3, 2, 2]
    draws = mech.sample(
        _blocks(scores, sizes), _blocks(base, sizes), size=30_000, random_state=6
    )
    assert_draws_match(draws, mech.log_probabilities(scores, base))


def test_chunked_index_is_global():
    # One dominant candidate deep inside the last block.
    blocks = (np.full(100, -50.0) for _ in range(5))
    scores = list(blocks)
    scores[4] = scores[4].copy()
    scores[4][37] = 50.0
    idx = exponential_mechanism(iter(scores), epsilon=10.0, random_state=0)
    assert idx == 437
    assert isinstance(idx, int)


def test_chunked_memory_is_per_block():
    # A generator of many blocks is consumed once; nothing requires its length.
    def gen():
        for k in range(200):
            yield np.arange(k * 1000, (k + 1) * 1000, dtype=float) * 1e-3

    idx = exponential_mechanism(gen(), epsilon=1.0, random_state=0)
    assert 0 <= idx < 200_000
    assert idx > 150_000  # scores grow with the index; ε·Δscore/2 ≫ 1


def test_functional_form_matches_object():
    scores = [0.3, 1.0, -2.0]
    a = exponential_mechanism(scores, 1.0, sensitivity=2.0, random_state=7)
    b = ExponentialMechanism(1.0, 2.0).sample(scores, random_state=7)
    assert a == b


def test_all_excluded_and_empty_raise():
    mech = ExponentialMechanism(1.0)
    with pytest.raises(ValueError, match="log_base_measure"):
        mech.sample([1.0, 2.0], [-np.inf, -np.inf], random_state=0)
    with pytest.raises(ValueError, match="log_base_measure"):
        mech.log_probabilities([1.0, 2.0], [-np.inf, -np.inf])
    with pytest.raises(ValueError, match="scores"):
        mech.sample([], random_state=0)
    with pytest.raises(ValueError, match="scores"):
        mech.sample(iter([np.array([]), np.array([])]), random_state=0)


def test_block_mismatch_raise():
    mech = ExponentialMechanism(1.0)
    blocks = [np.zeros(2), np.zeros(3)]
    with pytest.raises(ValueError, match="log_base_measure has 2 entries"):
        mech.sample(iter(blocks), iter([np.zeros(2), np.zeros(2)]), random_state=0)
    with pytest.raises(ValueError, match="fewer blocks"):
        mech.sample(iter(blocks), iter([np.zeros(2)]), random_state=0)
    with pytest.raises(ValueError, match="more blocks"):
        mech.sample(iter(blocks), iter([np.zeros(2), np.zeros(3), np.zeros(1)]))
    with pytest.raises(ValueError, match="scores must be finite"):
        mech.sample(iter([np.zeros(2), np.array([1.0, np.nan])]), random_state=0)
    with pytest.raises(ValueError, match="1-D blocks"):
        mech.sample(iter([1.0, 2.0]), random_state=0)
