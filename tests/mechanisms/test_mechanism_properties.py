"""Property-based tests (hypothesis) of the mechanisms' invariants."""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.special import logsumexp

from sklearn_semiprivate.accounting import amplify_by_subsampling
from sklearn_semiprivate.mechanisms import (
    ExponentialMechanism,
    KaryRandomizedResponse,
    PermuteAndFlip,
    RandomizedResponse,
    ReportNoisyMax,
    project_kappa_dense,
)

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)

epsilons = st.floats(min_value=1e-3, max_value=50.0)
sensitivities = st.floats(min_value=1e-3, max_value=1e3)
extreme_scores = arrays(
    np.float64,
    st.integers(1, 12),
    elements=st.one_of(
        st.floats(-1e12, 1e12),
        st.sampled_from([1e12, -1e12, 0.0]),
    ),
)


@SETTINGS
@given(scores=extreme_scores, eps=epsilons, sens=sensitivities)
def test_exponential_sums_to_one_and_full_support(scores, eps, sens):
    lp = ExponentialMechanism(eps, sens).log_probabilities(scores)
    assert np.all(np.isfinite(lp))  # support = every candidate, whatever the scores
    assert abs(logsumexp(lp)) < 1e-12


@SETTINGS
@given(scores=extreme_scores, eps=epsilons, data=st.data())
def test_exponential_support_is_the_base_measure_support(scores, eps, data):
    k = scores.shape[0]
    excluded = data.draw(arrays(bool, k))
    excluded[data.draw(st.integers(0, k - 1))] = False  # keep one candidate
    base = np.where(
        excluded, -np.inf, data.draw(arrays(np.float64, k, elements=st.floats(-5, 5)))
    )
    lp = ExponentialMechanism(eps).log_probabilities(scores, base)
    np.testing.assert_array_equal(np.isfinite(lp), ~excluded)
    assert abs(logsumexp(lp)) < 1e-12
    rng_draws = ExponentialMechanism(eps).sample(scores, base, size=20, random_state=0)
    assert not np.any(excluded[rng_draws])


@SETTINGS
@given(scores=extreme_scores, eps=epsilons, sens=sensitivities)
def test_permute_and_flip_sums_to_one_and_full_support(scores, eps, sens):
    lp = PermuteAndFlip(eps, sens).log_probabilities(scores)
    assert np.all(np.isfinite(lp))
    assert abs(logsumexp(lp)) < 1e-10
    assert np.argmax(lp) == np.argmax(scores) or np.isclose(
        lp[np.argmax(scores)], lp.max(), rtol=0, atol=1e-12
    )


@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    scores=arrays(np.float64, st.integers(1, 4), elements=st.floats(-1e12, 1e12)),
    eps=st.floats(0.05, 10.0),
)
def test_laplace_noisy_max_sums_to_one_and_full_support(scores, eps):
    lp = ReportNoisyMax(eps).log_probabilities(scores)
    assert np.all(np.isfinite(lp))
    assert abs(logsumexp(lp)) < 1e-9


@SETTINGS
@given(eps=st.floats(1e-4, 30.0), k=st.integers(2, 20))
def test_randomized_response_ratio_is_exactly_e_epsilon(eps, k):
    for rr in (RandomizedResponse(eps), KaryRandomizedResponse(eps, k)):
        t = rr.transition_matrix
        np.testing.assert_allclose(t.sum(axis=1), 1.0, rtol=1e-13)
        ratio = t.max(axis=0) / t.min(axis=0)
        np.testing.assert_allclose(ratio, math.exp(eps), rtol=1e-12)
        log_t = rr.log_transition_matrix
        np.testing.assert_allclose(
            log_t.max(axis=0) - log_t.min(axis=0), eps, atol=1e-12
        )


@SETTINGS
@given(
    eps=st.floats(1e-4, 20.0),
    q1=st.floats(1e-6, 1.0),
    q2=st.floats(1e-6, 1.0),
    delta=st.floats(0.0, 0.5),
)
def test_amplified_epsilon_is_at_most_epsilon_and_monotone(eps, q1, q2, delta):
    lo, hi = sorted((q1, q2))
    a = amplify_by_subsampling((eps, delta), lo)
    b = amplify_by_subsampling((eps, delta), hi)
    assert a.epsilon <= b.epsilon <= eps
    assert a.delta <= b.delta <= delta
    assert amplify_by_subsampling((eps, delta), 1.0).epsilon == eps


@SETTINGS
@given(
    w=arrays(np.float64, st.integers(1, 60), elements=st.floats(1e-6, 1.0)),
    kappa=st.floats(1e-3, 1.0),
)
def test_kappa_projection_properties(w, kappa):
    p = project_kappa_dense(w, kappa)
    n = w.shape[0]
    assert abs(p.sum() - kappa * n) <= 1e-10 * kappa * n
    assert np.all(p <= 1.0) and np.all(p > 0)
    assert kappa * p.max() <= p.mean() * (1 + 1e-10)  # κ-dense (Def. 4.1)
    # min(c w, 1) for a single c: uncapped entries are proportional to w.
    free = p < 1.0
    if free.sum() >= 2:
        ratios = p[free] / w[free]
        np.testing.assert_allclose(ratios, ratios[0], rtol=1e-10)
        # and every capped entry would have exceeded 1: c w >= 1
        assert np.all(ratios[0] * w[~free] >= 1.0 - 1e-10)
