"""Mutation round E: the RDP Gaussian solver's rounding (mutant R17)."""

import pytest

from sklearn_semiprivate.accounting import (
    compose_rdp,
    gaussian_rdp,
    rdp_gaussian_sigma,
    rdp_to_dp,
)


# Mutant R17: rdp_gaussian_sigma rounds its sigma down by a relative 1e-9
# instead of up; the final loop (which checks the single product k * rho)
# does not repair it. The curve composed one Gaussian at a time then
# converts to an epsilon above the target, by a few ulps (111 of 672 inputs
# of a grid, a scratch script of the review): the contract "float rounding in
# how the curve is summed cannot cross the target" breaks. The existing
# test_solver_meets_target_tightly checks 3 inputs, none of which crosses.
# These do (found on the grid); exact float comparisons, deterministic.
@pytest.mark.parametrize(
    ("epsilon", "delta", "k", "sensitivity", "conversion"),
    [
        (0.01, 1e-3, 2700, 1.0, "improved"),
        (0.01, 1e-10, 2700, 2**0.5, "standard"),
        (0.01, 1e-10, 1, 2**0.5, "improved"),
        (0.01, 1e-3, 100, 3.0, "improved"),
    ],
)
def test_solver_stays_below_the_target_however_the_curve_is_summed(
    epsilon, delta, k, sensitivity, conversion
):
    sigma = rdp_gaussian_sigma(
        epsilon, delta, n_compositions=k, sensitivity=sensitivity,
        conversion=conversion,
    )  # fmt: skip
    one = gaussian_rdp(sigma, sensitivity=sensitivity)
    for curve in (compose_rdp([one] * k), k * one):
        assert rdp_to_dp(curve, delta, conversion=conversion).epsilon <= epsilon
