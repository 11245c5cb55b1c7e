"""Permute-and-flip and report-noisy-max: exact distributions, privacy, mutants."""

# SPDX-License-Identifier: BSD-3-Clause

import itertools
import math

import numpy as np
import pytest
from scipy.integrate import quad

from sklearn_semiprivate.accounting import PrivacyCost
from sklearn_semiprivate.audit import max_privacy_loss_over_scores
from sklearn_semiprivate.mechanisms import (
    ExponentialMechanism,
    PermuteAndFlip,
    ReportNoisyMax,
    permute_and_flip,
    report_noisy_max,
)

EPS = 1.0
TOL = 1e-9
NOISES = ["laplace", "gumbel", "exponential"]


def _q(scores, eps, sens):
    s = np.asarray(scores, dtype=float)
    return np.exp(eps * (s - s.max()) / (2 * sens))


def pf_by_enumeration(scores, eps, sens=1.0):
    """The literal algorithm: every permutation, accept r with probability q_r."""
    q = _q(scores, eps, sens)
    k = q.shape[0]
    out = np.zeros(k)
    for perm in itertools.permutations(range(k)):
        still_running = 1.0 / math.factorial(k)
        for r in perm:
            out[r] += still_running * q[r]
            still_running *= 1.0 - q[r]
    return out


def pf_by_symmetric_polynomials(scores, eps, sens=1.0):
    """p_r · Σ_k k!(K-1-k)!/K! · e_k({1 - q_j}_{j≠r}) (McKenna & Sheldon 2020)."""
    q = _q(scores, eps, sens)
    k = q.shape[0]
    out = np.zeros(k)
    for r in range(k):
        others = 1.0 - np.delete(q, r)
        e = np.zeros(k)  # elementary symmetric polynomials e_0..e_{K-1}
        e[0] = 1.0
        for a in others:
            e[1:] = e[1:] + a * e[:-1]
        coef = [
            math.factorial(j) * math.factorial(k - 1 - j) / math.factorial(k)
            for j in range(k)
        ]
        out[r] = q[r] * float(np.dot(coef, e))
    return out


def rnm_exponential_by_quadrature(scores, eps, sens=1.0):
    """argmax(s + Exp(2Δ/ε)) integrated directly: P(r) = ∫ f(z) ∏ F(...)."""
    b = 2 * sens / eps
    s = np.asarray(scores, dtype=float)
    out = []
    for r in range(s.shape[0]):
        others = np.delete(s, r)

        def integrand(z, r=r, others=others):
            x = s[r] + z - others
            return (
                math.exp(-z / b) / b * float(np.prod(-np.expm1(-np.maximum(x, 0) / b)))
            )

        lo = max(0.0, float((others - s[r]).max()))
        out.append(quad(integrand, lo, math.inf, epsabs=0, epsrel=1e-12)[0])
    return np.array(out)


PF_SCORES = [
    [0.0, 1.0, 2.0],
    [0.0, 0.3, 5.0, 2.2],
    [1.0, 1.0, 1.0],
    [0.5, -1.0, 0.0, 0.7, 0.2],
]


@pytest.mark.parametrize("scores", PF_SCORES)
@pytest.mark.parametrize("eps,sens", [(1.0, 1.0), (2.0, 0.5), (0.3, 3.0)])
def test_permute_and_flip_formula_cross_checks(scores, eps, sens):
    # Three independent routes to the same distribution: the literal algorithm
    # enumerated, the symmetric-polynomial formula, and report-noisy-max with
    # exponential noise integrated numerically. The library's Gauss-Legendre
    # form must agree with all of them: this is the proof that sampling
    # permute-and-flip as exponential-noise report-noisy-max is exact.
    got = np.exp(PermuteAndFlip(eps, sens).log_probabilities(scores))
    enum = pf_by_enumeration(scores, eps, sens)
    esp = pf_by_symmetric_polynomials(scores, eps, sens)
    rnm = rnm_exponential_by_quadrature(scores, eps, sens)
    np.testing.assert_allclose(enum, esp, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(enum, rnm, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(got, enum, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        np.exp(ReportNoisyMax(eps, sens, "exponential").log_probabilities(scores)),
        enum,
        rtol=1e-12,
    )


def test_permute_and_flip_large_candidate_set():
    # Exact for many candidates too (degree K - 1 polynomial, K // 2 + 1 nodes),
    # with the block loop exercised.
    rng = np.random.default_rng(0)
    scores = rng.normal(size=2500)
    lp = PermuteAndFlip(1.0).log_probabilities(scores)
    assert np.isclose(np.logaddexp.reduce(lp), 0.0, atol=1e-10)
    small = scores[:7]
    np.testing.assert_allclose(
        np.exp(PermuteAndFlip(1.0).log_probabilities(small)),
        pf_by_symmetric_polynomials(small, 1.0),
        rtol=1e-12,
    )


@pytest.mark.statistical
def test_permute_and_flip_sampler_matches_literal_algorithm(assert_draws_match):
    scores = [0.0, 0.3, 2.0, 1.2]
    draws = PermuteAndFlip(1.5).sample(scores, size=30_000, random_state=0)
    assert_draws_match(draws, np.log(pf_by_enumeration(scores, 1.5)))


def test_gumbel_noise_is_the_exponential_mechanism():
    scores = [0.0, 1.0, -0.5, 2.0]
    np.testing.assert_allclose(
        ReportNoisyMax(0.8, 2.0, "gumbel").log_probabilities(scores),
        ExponentialMechanism(0.8, 2.0).log_probabilities(scores),
        rtol=0,
        atol=1e-15,
    )


@pytest.mark.parametrize("scores", [[0.0, 1.0, 2.5], [0.0, 0.0], [3.0, -1.0, 0.5, 0.2]])
def test_laplace_probabilities_sum_to_one(scores):
    lp = ReportNoisyMax(1.0, noise="laplace").log_probabilities(scores)
    assert abs(np.exp(lp).sum() - 1.0) < 1e-11


def test_laplace_two_candidates_closed_form():
    # P(Z1 - Z2 > d) for i.i.d. Laplace(b): exp(-d/b) (2 + d/b) / 4 for d >= 0.
    eps, sens = 1.0, 1.0
    b = 2 * sens / eps
    d = 1.7
    lp = ReportNoisyMax(eps, sens).log_probabilities([0.0, d])
    expected = math.exp(-d / b) * (2 + d / b) / 4
    assert np.exp(lp[0]) == pytest.approx(expected, rel=1e-12)


def test_laplace_extreme_scores():
    lp = ReportNoisyMax(1.0).log_probabilities([1e12, 1e12 - 1.0, -1e12])
    assert np.all(np.isfinite(lp))
    assert abs(np.exp(lp).sum() - 1.0) < 1e-10
    np.testing.assert_allclose(
        lp[:2], ReportNoisyMax(1.0).log_probabilities([1.0, 0.0, -1e6])[:2], rtol=1e-9
    )
    assert lp[2] < -1e11


@pytest.mark.statistical
@pytest.mark.parametrize("noise", NOISES)
def test_sampler_matches_exact_distribution(noise, assert_draws_match):
    mech = ReportNoisyMax(1.2, 0.7, noise)
    scores = [0.0, 0.5, 1.0, -0.4]
    draws = mech.sample(scores, size=30_000, random_state=11)
    assert_draws_match(draws, mech.log_probabilities(scores))


@pytest.mark.statistical
@pytest.mark.parametrize("noise", NOISES)
def test_sampler_extreme_scores(noise, assert_draws_match):
    mech = ReportNoisyMax(2.0, 1.0, noise)
    scores = [1e12, 1e12 - 1.0, -1e12, 1e12 - 2.0]
    draws = mech.sample(scores, size=30_000, random_state=12)
    assert_draws_match(draws, mech.log_probabilities(scores))


BASES = [[0.0, 8.0, 8.0], [0.0, 1.0, 2.0], [0.0, 0.0, 0.5]]


@pytest.mark.parametrize("scores", BASES)
@pytest.mark.parametrize("sens", [1.0, 3.0])
def test_permute_and_flip_exact_privacy(scores, sens):
    mech = PermuteAndFlip(EPS, sens)
    res = max_privacy_loss_over_scores(
        mech.log_probabilities, np.asarray(scores) * sens, sensitivity=sens, n_moves=3
    )
    assert res.epsilon <= EPS + TOL


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("scores", BASES)
def test_report_noisy_max_exact_privacy(noise, scores):
    mech = ReportNoisyMax(EPS, 1.0, noise)
    res = max_privacy_loss_over_scores(mech.log_probabilities, scores, n_moves=3)
    assert res.epsilon <= EPS + TOL


@pytest.mark.parametrize(
    "mech",
    [
        PermuteAndFlip(EPS),
        ReportNoisyMax(EPS, noise="laplace"),
        ReportNoisyMax(EPS, noise="gumbel"),
        ReportNoisyMax(EPS, noise="exponential"),
    ],
    ids=repr,
)
def test_bound_is_nearly_tight(mech):
    res = max_privacy_loss_over_scores(mech.log_probabilities, [0.0, 8.0, 8.0])
    assert res.epsilon > 0.9 * EPS


class PermuteAndFlipMissingFactorTwo(PermuteAndFlip):
    def _scaled(self, scores):
        s = np.asarray(scores, dtype=float)
        return self.epsilon / self.sensitivity * (s - s.max())


class LaplaceScaleHalved(ReportNoisyMax):
    @property
    def scale(self):
        return self.sensitivity / self.epsilon


class ExponentialNoiseEpsilonTooLarge(ReportNoisyMax):
    @property
    def scale(self):
        return 2.0 * self.sensitivity / (1.5 * self.epsilon)


@pytest.mark.parametrize(
    "mech",
    [
        PermuteAndFlipMissingFactorTwo(EPS),
        LaplaceScaleHalved(EPS, noise="laplace"),
        ExponentialNoiseEpsilonTooLarge(EPS, noise="exponential"),
    ],
    ids=lambda m: type(m).__name__,
)
def test_mutants_fail_exact_check(mech):
    res = max_privacy_loss_over_scores(
        mech.log_probabilities, [0.0, 4.0, 4.0], n_moves=3
    )
    assert res.epsilon > EPS + 0.3


def test_privacy_cost_and_scale():
    assert PermuteAndFlip(0.5).privacy_cost == PrivacyCost(0.5, 0.0)
    mech = ReportNoisyMax(0.5, 2.0, "gumbel")
    assert mech.privacy_cost == PrivacyCost(0.5, 0.0)
    assert mech.scale == 8.0


def test_functional_forms():
    scores = [0.0, 3.0, 1.0]
    assert permute_and_flip(scores, 1.0, random_state=3) == PermuteAndFlip(1.0).sample(
        scores, random_state=3
    )
    for noise in NOISES:
        a = report_noisy_max(scores, 1.0, noise=noise, random_state=4)
        b = ReportNoisyMax(1.0, noise=noise).sample(scores, random_state=4)
        assert a == b and isinstance(a, int)


def test_bad_noise():
    with pytest.raises(ValueError, match="noise"):
        ReportNoisyMax(1.0, noise="cauchy")
    with pytest.raises(ValueError, match="noise"):
        report_noisy_max([1.0], 1.0, noise=None)
