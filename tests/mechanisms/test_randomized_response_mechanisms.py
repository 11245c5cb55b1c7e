"""Randomized response: exact transition matrices, privacy, de-biasing, mutants."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest
from scipy.stats import norm

from sklearn_semiprivate.accounting import PrivacyCost
from sklearn_semiprivate.audit import (
    max_privacy_loss_over_pairs,
    neighbouring_pairs,
)
from sklearn_semiprivate.mechanisms import (
    GaussianLossRandomizedResponse,
    KaryRandomizedResponse,
    LossRandomizedResponse,
    RandomizedResponse,
    analytic_gaussian_sigma,
    debias_bit_mean,
    debias_kary_histogram,
    debias_loss_mean,
    randomized_response_bits,
    randomized_response_kary,
    randomized_response_losses,
)

TOL = 1e-9
Z = norm.isf(1e-6 / 2)  # two-sided z at alpha = 1e-6


def test_privacy_cost():
    assert RandomizedResponse(epsilon=np.log(3)).privacy_cost == PrivacyCost(
        math.log(3), 0
    )
    assert KaryRandomizedResponse(0.5, 4).privacy_cost == PrivacyCost(0.5, 0.0)
    assert LossRandomizedResponse(0.5).privacy_cost == PrivacyCost(0.5, 0.0)
    assert GaussianLossRandomizedResponse(0.5, 1e-6).privacy_cost == PrivacyCost(
        0.5, 1e-6
    )


@pytest.mark.parametrize("eps", [0.1, math.log(3), 2.0, 8.0])
def test_bits_exact_privacy_is_tight(eps):
    rr = RandomizedResponse(eps)
    pairs = neighbouring_pairs([0, 1], n_rows=1)
    res = max_privacy_loss_over_pairs(
        lambda d: rr.log_transition_matrix[d[0]], pairs, log=True
    )
    assert abs(res.epsilon - eps) <= TOL
    # Probabilities themselves, too.
    res = max_privacy_loss_over_pairs(lambda d: rr.transition_matrix[d[0]], pairs)
    assert abs(res.epsilon - eps) <= TOL


@pytest.mark.parametrize("k", [2, 3, 7])
@pytest.mark.parametrize("eps", [0.2, 1.0, 5.0])
def test_kary_exact_privacy_is_tight(k, eps):
    rr = KaryRandomizedResponse(eps, k)
    pairs = neighbouring_pairs(list(range(k)), n_rows=1)
    res = max_privacy_loss_over_pairs(
        lambda d: rr.log_transition_matrix[d[0]], pairs, log=True
    )
    assert abs(res.epsilon - eps) <= TOL
    np.testing.assert_allclose(rr.transition_matrix.sum(axis=1), 1.0, rtol=1e-14)
    assert rr.transition_matrix[0, 0] == pytest.approx(
        math.exp(eps) / (math.exp(eps) + k - 1), rel=1e-14
    )


def test_kary_two_respondents_dataset_level():
    # Two respondents, each randomized once: a dataset-level mechanism whose
    # output (pair of responses) changes by at most e^ε when one row changes.
    rr = KaryRandomizedResponse(0.7, 3)
    t = rr.transition_matrix

    def dist(d):
        return np.outer(t[d[0]], t[d[1]]).ravel()

    res = max_privacy_loss_over_pairs(dist, neighbouring_pairs([0, 1, 2], n_rows=2))
    assert abs(res.epsilon - 0.7) <= TOL


def test_loss_rr_exact_privacy_on_grid():
    rr = LossRandomizedResponse(1.3)
    grid = np.linspace(0, 1, 11)
    pairs = neighbouring_pairs(list(grid), n_rows=1)
    res = max_privacy_loss_over_pairs(lambda d: rr.output_probabilities(d[0]), pairs)
    assert abs(res.epsilon - 1.3) <= TOL
    assert set(map(float, (res.pair[0][0], res.pair[1][0]))) == {0.0, 1.0}


class BitsEpsilonTooLarge(RandomizedResponse):
    @property
    def log_transition_matrix(self):
        return RandomizedResponse(1.5 * self.epsilon).log_transition_matrix


class KaryEpsilonTooLarge(KaryRandomizedResponse):
    def _log_keep_other(self):
        eps = 1.5 * self.epsilon
        log_norm = np.logaddexp(eps, math.log(self.n_categories - 1))
        return eps - log_norm, -log_norm


class LossRRMissingFlip(LossRandomizedResponse):
    # Mutant: reports the Bernoulli(loss) bit without randomized response.
    def output_probabilities(self, losses):
        losses = np.asarray(losses, dtype=float)
        return np.stack([1.0 - losses, losses], axis=-1)


def test_mutants_fail_exact_check():
    pairs2 = neighbouring_pairs([0, 1], n_rows=1)
    res = max_privacy_loss_over_pairs(
        lambda d: BitsEpsilonTooLarge(1.0).log_transition_matrix[d[0]], pairs2, log=True
    )
    assert res.epsilon > 1.0 + 0.3
    mutant = KaryEpsilonTooLarge(1.0, 4)
    res = max_privacy_loss_over_pairs(
        lambda d: mutant.log_transition_matrix[d[0]],
        neighbouring_pairs([0, 1, 2, 3], n_rows=1),
        log=True,
    )
    assert res.epsilon > 1.0 + 0.3
    res = max_privacy_loss_over_pairs(
        lambda d: LossRRMissingFlip(1.0).output_probabilities(d[0]),
        neighbouring_pairs([0.0, 0.5, 1.0], n_rows=1),
    )
    assert res.epsilon == math.inf


@pytest.mark.statistical
@pytest.mark.parametrize("value", [0, 1])
def test_bits_sampler_matches_transition(value, assert_draws_match):
    rr = RandomizedResponse(0.8)
    draws = rr.sample(np.full(20_000, value), random_state=value)
    assert_draws_match(draws, rr.log_transition_matrix[value])


@pytest.mark.statistical
@pytest.mark.parametrize("value", [0, 2, 4])
def test_kary_sampler_matches_transition(value, assert_draws_match):
    rr = KaryRandomizedResponse(1.1, 5)
    draws = rr.sample(np.full(30_000, value), random_state=10 + value)
    assert_draws_match(draws, rr.log_transition_matrix[value])


@pytest.mark.statistical
@pytest.mark.parametrize("loss", [0.0, 0.25, 1.0])
def test_loss_sampler_matches_output_probabilities(loss, assert_draws_match):
    rr = LossRandomizedResponse(0.9)
    draws = rr.sample(np.full(20_000, loss), random_state=20)
    assert_draws_match(draws, np.log(rr.output_probabilities(loss)))


def test_debiasing_is_exactly_unbiased_by_linearity():
    # The estimators are affine in the response frequencies, so they are unbiased
    # iff they map the EXPECTED frequencies back to the truth. At ε = log 3 the
    # expected frequencies are small rationals that a response list can match.
    # bits: p = 3/4; a true mean of 1/2 gives E[freq of 1] = 1/2.
    assert debias_bit_mean([1, 0], math.log(3)) == pytest.approx(0.5, abs=1e-15)
    # true bits all 1: E[freq] = 3/4.
    assert debias_bit_mean([1, 1, 1, 0], math.log(3)) == pytest.approx(1.0, abs=1e-15)
    # k = 3, p = 3/5, q = 1/5; truth (1/2, 1/2, 0) gives E[freq] = (2/5, 2/5, 1/5).
    est = debias_kary_histogram([0, 0, 1, 1, 2], math.log(3), n_categories=3)
    np.testing.assert_allclose(est, [0.5, 0.5, 0.0], atol=1e-15)
    # Generic check against the transition matrix for arbitrary ε and truth.
    rr = KaryRandomizedResponse(0.37, 4)
    truth = np.array([0.1, 0.2, 0.3, 0.4])
    expected_freq = truth @ rr.transition_matrix
    n = 10**6
    counts = np.round(expected_freq * n).astype(int)
    responses = np.repeat(np.arange(4), counts)
    np.testing.assert_allclose(rr.estimate_histogram(responses), truth, atol=5e-5)


@pytest.mark.statistical
def test_debiased_estimates_concentrate_on_truth():
    rng = np.random.default_rng(0)
    n = 40_000
    # bits
    eps = 0.5
    bits = (rng.random(n) < 0.3).astype(int)
    est = debias_bit_mean(randomized_response_bits(bits, eps, random_state=1), eps)
    p = 1 / (1 + math.exp(-eps))
    sd = 0.5 / math.sqrt(n) / (2 * p - 1)  # Var(response) <= 1/4
    assert abs(est - bits.mean()) <= Z * sd
    # k-ary histogram, every coordinate (Bonferroni over 4)
    values = rng.integers(0, 4, size=n)
    resp = randomized_response_kary(values, 1.0, n_categories=4, random_state=2)
    est = debias_kary_histogram(resp, 1.0, n_categories=4)
    keep = math.e / (math.e + 3)
    other = 1 / (math.e + 3)
    sd = 0.5 / math.sqrt(n) / (keep - other)
    z4 = norm.isf(1e-6 / 8)
    truth = np.bincount(values, minlength=4) / n
    assert np.all(np.abs(est - truth) <= z4 * sd)
    assert est.sum() == pytest.approx(1.0, abs=1e-12)
    # losses, pure and Gaussian
    losses = rng.random(n)
    resp = randomized_response_losses(losses, 1.0, random_state=3)
    assert set(np.unique(resp)) <= {0, 1}
    est = debias_loss_mean(resp, 1.0)
    sd = 0.5 / math.sqrt(n) / math.tanh(0.5)
    assert abs(est - losses.mean()) <= Z * sd
    resp = randomized_response_losses(losses, 1.0, delta=1e-6, random_state=4)
    est = debias_loss_mean(resp, 1.0, delta=1e-6)
    sigma = analytic_gaussian_sigma(1.0, 1e-6)
    assert abs(est - losses.mean()) <= Z * sigma / math.sqrt(n)


def test_gaussian_loss_rr_uses_analytic_sigma():
    rr = GaussianLossRandomizedResponse(0.5, 1e-6)
    assert rr.sigma == analytic_gaussian_sigma(0.5, 1e-6, 1.0)
    # Smaller than the paper's classical sigma^2 = 2 ln(2/δ) / ε^2 (ε < 1).
    assert rr.sigma < math.sqrt(2 * math.log(2 / 1e-6)) / 0.5


def test_shapes_and_dtypes():
    out = randomized_response_bits([[True, False], [False, True]], 1.0, random_state=0)
    assert out.shape == (2, 2) and out.dtype == np.int64
    out = randomized_response_kary([[0, 1, 2]], 1.0, n_categories=3, random_state=0)
    assert out.shape == (1, 3)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="bits"):
        randomized_response_bits([0, 2], 1.0)
    with pytest.raises(ValueError, match="values"):
        randomized_response_kary([0, 3], 1.0, n_categories=3)
    with pytest.raises(ValueError, match="values"):
        randomized_response_kary([0.5], 1.0, n_categories=3)
    with pytest.raises(TypeError, match="values"):
        randomized_response_kary(["a"], 1.0, n_categories=3)
    with pytest.raises(ValueError, match="n_categories"):
        KaryRandomizedResponse(1.0, 1)
    with pytest.raises(TypeError, match="n_categories"):
        KaryRandomizedResponse(1.0, 2.5)
    with pytest.raises(ValueError, match="losses"):
        randomized_response_losses([0.5, 1.5], 1.0)
    with pytest.raises(ValueError, match="losses"):
        randomized_response_losses([np.nan], 1.0)
    with pytest.raises(ValueError, match="delta"):
        GaussianLossRandomizedResponse(1.0, 0.0)
    with pytest.raises(ValueError, match="responses"):
        debias_bit_mean([], 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        RandomizedResponse(0.0)


@pytest.mark.parametrize("k", [2, 3, 10])
@pytest.mark.parametrize("eps", [1.0, 20.0, 30.0, 34.0, 36.0, 38.0, 45.0])
def test_kary_sampler_in_doubles_stays_within_epsilon(k, eps):
    # Review: log p_keep cancelled to 0.0 from about eps = 34 and the sampler
    # kept when U < p_keep (rounding toward keeping), so a report never
    # flipped. Now it flips when U < P[flip], U = j 2^-53: the flip
    # probability the sampler really has is ceil(P[flip] 2^53) / 2^53.
    rr = KaryRandomizedResponse(eps, n_categories=k)
    p_flip = rr._flip_probability()
    assert p_flip > 0.0
    real_flip = math.ceil(p_flip * 2.0**53) / 2.0**53
    real_keep, real_other = 1.0 - real_flip, real_flip / (k - 1)
    assert math.log(real_keep / real_other) <= eps + 1e-9
    np.testing.assert_allclose(rr.transition_matrix.sum(axis=1), 1.0, rtol=1e-12)


class _LowestUniform(np.random.Generator):
    """A generator whose uniforms are all 0.0, the lowest double ``random``
    can return (probability ``2^-53`` each)."""

    def random(self, size=None, dtype=np.float64, out=None):
        return np.zeros(size)


@pytest.mark.parametrize("k", [2, 4])
@pytest.mark.parametrize("eps", [1.0, 38.0, 45.0, 800.0])
def test_kary_sample_flips_on_the_lowest_uniform(k, eps):
    # The sampler must flip when U < P[flip]: on U = 0.0 a report flips at
    # every epsilon. A review brought back "keep when U < p_keep" in
    # sample() (p_keep rounds to 1.0 from about eps = 37, so no report ever
    # flips, an unbounded loss) and the test above, which reads
    # _flip_probability() only, let it through. At eps = 800 the exact flip
    # probability underflowed to 0.0: U < 0.0 never held.
    rr = KaryRandomizedResponse(eps, n_categories=k)
    values = np.arange(k).repeat(5)
    out = rr.sample(values, random_state=_LowestUniform(np.random.PCG64(0)))
    assert np.all(out != values)


@pytest.mark.parametrize("eps", [1.0, 38.0, 709.8, 800.0, 1e300])
def test_binary_sample_flips_on_the_lowest_uniform(eps):
    # A review: the binary sampler flipped when U < expit(-eps), which is 0.0
    # from eps = 709.8: no bit ever flipped, and the two inputs' outputs had
    # disjoint supports (an unbounded loss at a stated finite epsilon), also
    # through LossRandomizedResponse. On U = 0.0 every bit flips.
    bits = np.array([0, 1] * 5)
    out = RandomizedResponse(eps).sample(
        bits, random_state=_LowestUniform(np.random.PCG64(0))
    )
    assert np.all(out != bits)
    # The loss version draws its bit with the same uniforms (U = 0 < loss = 1
    # gives 1, and U = 0 < 0 fails: 0), then randomizes it.
    losses = np.array([0.0, 1.0] * 5)
    out = LossRandomizedResponse(eps).sample(
        losses, random_state=_LowestUniform(np.random.PCG64(0))
    )
    assert np.all(out != losses.astype(int))
