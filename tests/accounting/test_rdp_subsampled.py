"""RDP of the Poisson-subsampled Gaussian, checked against independent numbers.

* the closed form at ``q = 1`` (the plain Gaussian, Mironov 2017, Prop. 7);
* a direct numerical integration of the Rényi divergence between the mixture
  ``(1 - q) N(0, σ²) + q N(1, σ²)`` and ``N(0, σ²)``, in both directions;
* the values published in Google's dp_accounting test suite
  (``python/dp_accounting/dp_accounting/rdp/rdp_privacy_accountant_test.py``,
  ``test_compute_rdp_poisson_sampled_gaussian``: ``q = 0.01``, ``σ = 2.5``,
  50 steps), at its integer orders 5, 50 and 100, to the 5 digits printed.
"""

import math

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import norm

from sklearn_semiprivate.accounting import (
    INTEGER_RDP_ORDERS,
    gaussian_rdp,
    rdp_subsampled_gaussian_sigma,
    rdp_to_dp,
    subsampled_gaussian_rdp,
)


def renyi_by_integration(q, sigma, order, mixture_first=True):
    """``D_α`` between the mixture and ``N(0, σ²)`` by quadrature."""
    p0 = norm(0.0, sigma)

    def mixture(x):
        return (1.0 - q) * p0.pdf(x) + q * norm(1.0, sigma).pdf(x)

    if mixture_first:

        def integrand(x):
            return p0.pdf(x) * (mixture(x) / p0.pdf(x)) ** order

    else:

        def integrand(x):
            return mixture(x) * (p0.pdf(x) / mixture(x)) ** order

    lim = 12.0 * sigma + order / sigma
    value, _ = quad(integrand, -lim, lim, points=[0.0, 0.5, 1.0], limit=400)
    return math.log(value) / (order - 1.0)


def test_q_one_is_the_gaussian_closed_form():
    orders = [2, 3, 10, 64, 1024]
    for sigma in (0.5, 1.0, 3.0):
        np.testing.assert_allclose(
            subsampled_gaussian_rdp(1.0, sigma, orders=orders),
            gaussian_rdp(sigma, orders=orders),
            rtol=1e-14,
        )
    # q -> 1 from below (the binomial sum) reaches the same value.
    np.testing.assert_allclose(
        subsampled_gaussian_rdp(1.0 - 1e-12, 1.5, orders=orders),
        gaussian_rdp(1.5, orders=orders),
        rtol=1e-9,
    )


@pytest.mark.parametrize(
    "q, sigma, order",
    [(0.01, 1.0, 2), (0.01, 1.0, 8), (0.1, 2.0, 5), (0.3, 0.8, 3), (0.05, 4.0, 16)],
)
def test_matches_numerical_integration(q, sigma, order):
    ours = subsampled_gaussian_rdp(q, sigma, orders=[order])[0]
    forward = renyi_by_integration(q, sigma, order, mixture_first=True)
    backward = renyi_by_integration(q, sigma, order, mixture_first=False)
    assert ours == pytest.approx(forward, rel=1e-6)
    # Mironov, Talwar & Zhang 2019, Thm. 5: the other direction is smaller,
    # so the curve bounds both add and remove.
    assert backward <= forward * (1 + 1e-9)


def test_published_dp_accounting_values():
    rdp = 50 * subsampled_gaussian_rdp(0.01, 2.5, orders=[5, 50, 100])
    np.testing.assert_allclose(rdp, [2.1808e-03, 2.3846e-02, 1.6742e02], rtol=1e-4)


@pytest.mark.parametrize(
    ("q", "sigma", "order"),
    [(1e-4, 50.0, 2), (1e-6, 100.0, 32), (1e-3, 1.0, 64), (0.01, 2.0, 8)],
)
def test_tiny_rdp_keeps_its_relative_accuracy(q, sigma, order):
    # A review: log A summed as log(1 + tiny) was 2e-9 low (relative) at
    # q = 1e-4, sigma = 50, order 2, and 3e-6 low at q = 1e-6, sigma = 100.
    # Against A_alpha's sum in 60-digit arithmetic.
    mp = pytest.importorskip("mpmath")
    with mp.workdps(60):
        qm, sm = mp.mpf(q), mp.mpf(sigma)
        a = mp.fsum(
            mp.binomial(order, k)
            * (1 - qm) ** (order - k)
            * qm**k
            * mp.exp(mp.mpf(k * k - k) / (2 * sm * sm))
            for k in range(order + 1)
        )
        exact = mp.log(a) / (order - 1)
    got = subsampled_gaussian_rdp(q, sigma, orders=[order])[0]
    assert abs(float(got / exact) - 1.0) < 1e-12


def test_monotone_in_q_and_sigma():
    orders = INTEGER_RDP_ORDERS
    a = subsampled_gaussian_rdp(0.01, 1.0, orders=orders)
    assert np.all(subsampled_gaussian_rdp(0.02, 1.0, orders=orders) >= a)
    assert np.all(subsampled_gaussian_rdp(0.01, 1.1, orders=orders) <= a)
    assert np.all(a <= gaussian_rdp(1.0, orders=orders))


def test_no_overflow_for_small_noise_and_large_orders():
    rdp = subsampled_gaussian_rdp(0.5, 0.05, orders=[2, 1024])
    assert np.all(np.isfinite(rdp)) and np.all(rdp > 0)


@pytest.mark.parametrize(
    "epsilon, delta, q, steps",
    [(1.0, 1e-5, 0.01, 500), (0.1, 1e-6, 0.001, 2000), (8.0, 1e-5, 1.0, 3)],
)
def test_sigma_calibration_round_trips(epsilon, delta, q, steps):
    z = rdp_subsampled_gaussian_sigma(epsilon, delta, sampling_rate=q, n_steps=steps)
    orders = INTEGER_RDP_ORDERS

    def eps_at(sigma):
        curve = steps * subsampled_gaussian_rdp(q, sigma, orders=orders)
        return rdp_to_dp(curve, delta, orders=orders).epsilon

    assert eps_at(z) <= epsilon
    # The smallest such noise, to the bisection's relative 1e-10.
    assert eps_at(z * (1 - 1e-8)) > epsilon
    assert eps_at(z) == pytest.approx(epsilon, rel=1e-6)


def test_q_one_calibration_agrees_with_the_gaussian_solver():
    from sklearn_semiprivate.accounting import rdp_gaussian_sigma

    z = rdp_subsampled_gaussian_sigma(1.0, 1e-5, sampling_rate=1.0, n_steps=10)
    ref = rdp_gaussian_sigma(1.0, 1e-5, n_compositions=10, orders=INTEGER_RDP_ORDERS)
    assert z == pytest.approx(ref, rel=1e-8)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"sampling_rate": 0.0}, "sampling_rate"),
        ({"sampling_rate": 1.5}, "sampling_rate"),
        ({"noise_multiplier": -1.0}, "noise_multiplier"),
        ({"orders": [2.5]}, "integer"),
        ({"orders": [1]}, "> 1"),
    ],
)
def test_bad_input(kwargs, match):
    args = {"sampling_rate": 0.1, "noise_multiplier": 1.0} | kwargs
    with pytest.raises(ValueError, match=match):
        subsampled_gaussian_rdp(**args)


def test_calibration_bad_input():
    with pytest.raises(ValueError, match="epsilon"):
        rdp_subsampled_gaussian_sigma(0.0, 1e-5, sampling_rate=0.1, n_steps=1)
    with pytest.raises(ValueError, match="delta"):
        rdp_subsampled_gaussian_sigma(1.0, 1.0, sampling_rate=0.1, n_steps=1)
    with pytest.raises(ValueError, match="sampling_rate"):
        rdp_subsampled_gaussian_sigma(1.0, 1e-5, sampling_rate=2.0, n_steps=1)
