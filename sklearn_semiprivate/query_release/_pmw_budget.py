"""Calibration and accounting of the private multiplicative weights variants.

The parameter-only half of :mod:`._pmw` (which runs the rounds): the zCDP
conversions (Bun & Steinke 2016), the per-instance budget of the sparse-vector
PMW by advanced composition (Dwork, Rothblum & Vadhan 2010), the per-round
budgets and total cost of the MWEM rounds, their default numbers, and Lemma 7's
private sample size (Bassily et al. 2020). Nothing here reads data: a fit
computes all of it before its charge, and refuses here, free, the budgets
double precision cannot hold.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
import sys

from scipy.optimize import brentq

from ..accounting import PrivacyCost, compose_advanced
from ..utils._validation import (
    check_delta,
    check_epsilon,
    check_integer,
    check_probability,
)

__all__ = [
    "approx_dp_to_zcdp",
    "default_n_rounds",
    "default_n_updates",
    "mwem_round_parameters",
    "pmw_private_sample_size",
    "sparse_vector_pmw_parameters",
    "zcdp_to_approx_dp",
]

# Largest default number of MWEM rounds.
MAX_DEFAULT_ROUNDS = 500
# Share of each MWEM round's zCDP budget spent on selection.
SELECTION_SHARE = 0.5


def zcdp_to_approx_dp(rho, delta):
    """(ε, δ) implied by ρ-zCDP: ``ε = ρ + 2 sqrt(ρ ln(1/δ))``.

    Bun & Steinke (2016), Proposition 1.3.

    Parameters
    ----------
    rho : float
        zCDP parameter, ``>= 0``.
    delta : float
        Target δ in ``(0, 1)``.

    Returns
    -------
    epsilon : float

    Examples
    --------
    >>> from sklearn_semiprivate.query_release import zcdp_to_approx_dp
    >>> round(zcdp_to_approx_dp(0.5, 1e-6), 6)
    5.756522
    """
    delta = check_delta(delta, allow_zero=False)
    rho = float(rho)
    if not rho >= 0:
        raise ValueError(f"rho must be >= 0, got {rho!r}.")
    # -log(delta), not log(1 / delta): 1 / delta overflows at a subnormal delta.
    return rho + 2.0 * math.sqrt(rho * -math.log(delta))


def approx_dp_to_zcdp(epsilon, delta):
    """Largest ρ whose conversion :func:`zcdp_to_approx_dp` is at most ``(ε, δ)``.

    Solves ``ε = ρ + 2 sqrt(ρ L)``, ``L = ln(1/δ)``:
    ``ρ = (sqrt(L + ε) - sqrt(L))²``, rounded down so the conversion never
    exceeds ``epsilon``.

    Parameters
    ----------
    epsilon : float
        Target ε, ``> 0``.
    delta : float
        Target δ in ``(0, 1)``.

    Returns
    -------
    rho : float

    Examples
    --------
    >>> from sklearn_semiprivate.query_release import (
    ...     approx_dp_to_zcdp, zcdp_to_approx_dp)
    >>> rho = approx_dp_to_zcdp(1.0, 1e-6)
    >>> round(rho, 6), zcdp_to_approx_dp(rho, 1e-6) <= 1.0
    (0.017469, True)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    log_inv = -math.log(delta)  # 1 / delta overflows at a subnormal delta
    # (sqrt(L + ε) - sqrt(L))² = ε² / (sqrt(L + ε) + sqrt(L))², without cancellation.
    root = epsilon / (math.sqrt(log_inv + epsilon) + math.sqrt(log_inv))
    # Capped so that the square stays finite: at epsilon near the largest
    # double it overflowed (a review); a smaller rho is valid, only looser.
    rho = min(root, 1e154) ** 2
    # Rounded down until the conversion is within epsilon: one ulp, then a
    # step that doubles each time, so a closed form many ulps off (epsilon
    # near the largest double: a review saw a one-ulp loop never end) is left
    # in a few dozen steps.
    step = 1.0
    while zcdp_to_approx_dp(rho, delta) > epsilon:
        rho = max(rho - step * math.ulp(rho), 0.5 * rho)
        step *= 2.0
    return rho


def sparse_vector_pmw_parameters(epsilon, delta, n_updates):
    """Per-instance budget of the sparse-vector PMW, and its total cost.

    The run is at most ``n_updates`` AboveThreshold instances, each followed by
    one Laplace measurement (an instance that finds nothing ends the run): an
    adaptive composition of ``n_updates`` mechanisms, each ``ε0``-DP. ``ε0`` is
    the largest value whose advanced composition (Dwork, Rothblum & Vadhan
    2010; Dwork & Roth 2014, Thm 3.20, via
    :func:`~sklearn_semiprivate.accounting.compose_advanced`, which falls back to
    basic composition when that is tighter) is at most ``epsilon``. With
    ``delta = 0`` it is basic composition, ``ε0 = epsilon / n_updates``.

    Parameters
    ----------
    epsilon : float
        Total ε, ``> 0``.
    delta : float
        Total δ in ``[0, 1)``.
    n_updates : int
        Largest number of multiplicative-weights updates, ``>= 1``.

    Returns
    -------
    epsilon0 : float
        Budget of one instance (AboveThreshold plus measurement).
    cost : PrivacyCost
        Total cost of the run, ``<= (epsilon, delta)``.

    Examples
    --------
    >>> from sklearn_semiprivate.query_release import sparse_vector_pmw_parameters
    >>> eps0, cost = sparse_vector_pmw_parameters(1.0, 1e-6, n_updates=1000)
    >>> round(eps0, 6), round(cost.epsilon, 12), cost.delta
    (0.005812, 1.0, 1e-06)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    k = check_integer(n_updates, "n_updates", 1)
    # Advanced composition squares the budget of one instance, which is at
    # least epsilon / k: keep that square a normal double (a review: at
    # epsilon = 1e-300 the root search never returned, and an instance budget
    # of 0 made the fit fail after its charge). Above 1 the square is not
    # needed: compose_advanced falls back to basic composition there.
    _check_round_budgets(epsilon, k, min(epsilon / k, 1.0) ** 2)
    if delta == 0:
        eps0 = epsilon / k
        while k * eps0 > epsilon:
            eps0 = math.nextafter(eps0, 0.0)
        return eps0, PrivacyCost(k * eps0, 0.0)

    def total(e0):
        return compose_advanced(PrivacyCost(e0, 0.0), k, delta).epsilon

    # total() is continuous and increasing from 0: solve total(ε0) = epsilon.
    if total(epsilon) <= epsilon:
        eps0 = epsilon
    else:
        eps0 = brentq(
            lambda e: total(e) - epsilon, 0.0, epsilon, xtol=1e-300, rtol=1e-15
        )
        while total(eps0) > epsilon:
            eps0 = math.nextafter(eps0, 0.0)
    return eps0, compose_advanced(PrivacyCost(eps0, 0.0), k, delta)


def default_n_updates(alpha, support_size):
    """``c = ceil(4 ln|X~| / alpha²)`` (Dwork & Roth 2014, Thm 4.15), at least 1."""
    return max(1, math.ceil(4.0 * math.log(max(support_size, 1)) / alpha**2))


def default_n_rounds(n, epsilon, delta, n_queries, n_support):
    """Default number of MWEM rounds, balancing convergence against noise.

    After ``T`` rounds MW is within about ``sqrt(ln|support| / T)`` of the best
    distribution on the support. The per-round noise depends on the accounting:

    * ``delta > 0`` (zCDP, per-round budget ``ρ / T``): about
      ``ln|Q| sqrt(T) / (n sqrt(ρ))``; the two balance at
      ``T = sqrt(ln|support|) n sqrt(ρ) / ln|Q|``, ``ρ = approx_dp_to_zcdp``;
    * ``delta = 0`` (basic composition, per-round budget ``ε / T``): the noise
      grows like ``T``. Hardt, Ligett & McSherry (2012), Thm 2.2, bound the
      error (in counts) by ``2 n sqrt(ln|support| / T) + 10 T ln|Q| / ε``,
      minimised at ``T = (n ε sqrt(ln|support|) / (10 ln|Q|))^(2/3)``.

    Kept within ``[1, 500]``. Depends on public quantities only (``n`` is
    public).
    """
    log_q = math.log(max(n_queries, 2))
    log_s = math.log(max(n_support, 2))
    if delta > 0:
        rho = approx_dp_to_zcdp(epsilon, delta)
        t = math.sqrt(log_s) * n * math.sqrt(rho) / log_q
    else:
        t = (n * epsilon * math.sqrt(log_s) / (10.0 * log_q)) ** (2.0 / 3.0)
    # Capped before floor: t overflows to inf at epsilon near 1e308 (a review).
    return int(max(1, math.floor(min(MAX_DEFAULT_ROUNDS, t))))


def pmw_private_sample_size(alpha, beta, epsilon, delta, domain_size, n_queries):
    """Private sample size of Lemma 7 (Bassily et al. 2020) for PMW.

    With ``n`` at least::

        200 / (ε α²) · sqrt(ln|X~| · ln(2/δ)) · (ln|H~| + ln(128 ln|X~| / (α² β)))

    PMW is (ε, δ)-DP and, with probability ``1 - β``, every answer of the cover
    ``H~`` is within ``α`` of its expectation.

    Parameters
    ----------
    alpha, beta : float
        Accuracy and failure probability, in ``(0, 1)``.
    epsilon, delta : float
        Privacy parameters in ``(0, 1)``.
    domain_size : int
        ``|X~|``, at least 2.
    n_queries : int
        ``|H~|``, at least 1.

    Returns
    -------
    n : float

    Examples
    --------
    >>> from sklearn_semiprivate.query_release import pmw_private_sample_size
    >>> round(pmw_private_sample_size(0.1, 0.05, 0.5, 1e-6, 100, 100))
    6076670
    """
    alpha = check_probability(alpha, "alpha", allow_zero=False)
    beta = check_probability(beta, "beta", allow_zero=False)
    epsilon = check_probability(epsilon, "epsilon", allow_zero=False)
    delta = check_delta(delta, allow_zero=False)
    if domain_size < 2 or n_queries < 1:
        raise ValueError("Need domain_size >= 2 and n_queries >= 1.")
    log_x = math.log(domain_size)
    return (
        200.0
        / (epsilon * alpha**2)
        * math.sqrt(log_x * math.log(2.0 / delta))
        * (math.log(n_queries) + math.log(128.0 * log_x / (alpha**2 * beta)))
    )


def _check_round_budgets(epsilon, n_rounds, *budgets):
    """Refuse per-round budgets outside the normal doubles (before any charge).

    Below the smallest normal double rounding is no longer relative, so the
    cost of the rounds, computed in floating point, can exceed ``epsilon``
    (a review: 4-24% at epsilon near 1e-160); past the largest, the noise
    scales are not representable.
    """
    if not all(sys.float_info.min <= b < math.inf for b in budgets):
        raise _out_of_range(epsilon, n_rounds)


def _out_of_range(epsilon, n_rounds):
    return ValueError(
        f"epsilon={epsilon} is outside the range this accounting handles for "
        f"{n_rounds} rounds: the budget of one round is not a normal double "
        f"(it must be at least {sys.float_info.min:.3g}) or the total cost "
        "overflows. Use an epsilon between about 1e-150 and 1e300, or fewer "
        "rounds."
    )


def mwem_round_parameters(epsilon, delta, n_rounds, *, selection, measurement):
    """Per-round parameters of the MWEM rounds, and the total cost.

    With ``delta > 0`` the run is accounted in zCDP: the total
    ``ρ = approx_dp_to_zcdp(epsilon, delta)`` is split evenly over the rounds and,
    in each round, half to selection and half to measurement:

    * exponential mechanism: ``ε_sel = sqrt(8 ρ_sel)``; it is ε-DP with bounded
      range, hence ``ε²/8``-zCDP (Cesar & Rogers 2021, Lemma 3.2);
    * permute-and-flip: ``ε_sel = sqrt(2 ρ_sel)``; ε-DP, hence ``ε²/2``-zCDP
      (Bun & Steinke 2016, Prop. 1.4);
    * Gaussian measurement: ``σ = Δ / sqrt(2 ρ_meas)`` (Bun & Steinke 2016,
      Prop. 1.6), returned in units of the sensitivity ``Δ``;
    * Laplace measurement: ``ε_meas = sqrt(2 ρ_meas)``; ε-DP, ``ε²/2``-zCDP.

    Rounds compose by adding ρ (Bun & Steinke 2016, Lemma 1.7); the total ρ is
    converted by :func:`zcdp_to_approx_dp`. With ``delta = 0`` (Laplace only) the
    rounds are accounted in pure DP by basic composition: ``epsilon / n_rounds``
    per round (rounded down until the sum of the per-step budgets is at most
    ``epsilon``), half to each step.

    Parameters
    ----------
    epsilon : float
        Total ε, ``> 0``.
    delta : float
        Total δ in ``[0, 1)``; ``0`` needs ``measurement="laplace"``.
    n_rounds : int
        Number of rounds, ``>= 1``.
    selection : {"exponential", "permute_and_flip"}
    measurement : {"gaussian", "laplace"}

    Returns
    -------
    params : dict
        ``epsilon_selection``; ``sigma`` (Gaussian, per unit sensitivity) or
        ``epsilon_measurement`` (Laplace); ``rho`` (total zCDP, or None);
        ``cost`` (PrivacyCost of the run).

    Examples
    --------
    >>> from sklearn_semiprivate.query_release import mwem_round_parameters
    >>> p = mwem_round_parameters(1.0, 1e-6, 10, selection="exponential",
    ...                           measurement="gaussian")
    >>> round(p["epsilon_selection"], 6), round(p["sigma"], 4)
    (0.083592, 23.9258)
    >>> round(p["cost"].epsilon, 12), p["cost"].delta
    (1.0, 1e-06)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    n_rounds = check_integer(n_rounds, "n_rounds", 1)
    if selection not in ("exponential", "permute_and_flip"):
        raise ValueError(f"Unknown selection {selection!r}.")
    if measurement not in ("gaussian", "laplace"):
        raise ValueError(f"Unknown measurement {measurement!r}.")
    if delta == 0:
        if measurement == "gaussian":
            raise ValueError(
                "The Gaussian measurement needs delta > 0 (it is not pure DP); use "
                "delta > 0 or measurement='laplace'."
            )
        per_round = epsilon / n_rounds
        while True:
            eps_sel = per_round * SELECTION_SHARE
            eps_meas = per_round - eps_sel
            total = math.fsum([eps_sel, eps_meas] * n_rounds)
            if total <= epsilon:
                break
            # epsilon / n_rounds, rounded, can sum to an ulp above epsilon.
            per_round = math.nextafter(per_round, 0.0)
        _check_round_budgets(epsilon, n_rounds, eps_sel, eps_meas)
        cost = PrivacyCost(total, 0.0)
        return {
            "epsilon_selection": eps_sel,
            "epsilon_measurement": eps_meas,
            "sigma": None,
            "rho": None,
            "cost": cost,
        }
    # A relative headroom of 1e-13 keeps the rounding of the per-round split
    # (square roots and squares below) from landing a few ulps above the target.
    rho = approx_dp_to_zcdp(epsilon, delta) * (1.0 - 1e-13)
    rho_sel = rho / n_rounds * SELECTION_SHARE
    rho_meas = rho / n_rounds * (1.0 - SELECTION_SHARE)
    # A review: epsilon = 1e-200 made rho underflow, and a division by it
    # raised ZeroDivisionError; a later one found subnormal budgets (epsilon
    # near 1e-160) whose rounding put the plan's cost 4-24% above epsilon.
    _check_round_budgets(epsilon, n_rounds, rho_sel, rho_meas)
    if selection == "exponential":
        eps_sel = math.sqrt(8.0 * rho_sel)
        rho_sel_spent = eps_sel**2 / 8.0
    else:
        eps_sel = math.sqrt(2.0 * rho_sel)
        rho_sel_spent = eps_sel**2 / 2.0
    params = {"epsilon_selection": eps_sel}
    if measurement == "gaussian":
        sigma = 1.0 / math.sqrt(2.0 * rho_meas)
        rho_meas_spent = 1.0 / (2.0 * sigma**2)
        params.update(sigma=sigma, epsilon_measurement=None)
    else:
        eps_meas = math.sqrt(2.0 * rho_meas)
        rho_meas_spent = eps_meas**2 / 2.0
        params.update(sigma=None, epsilon_measurement=eps_meas)
    spent = n_rounds * (rho_sel_spent + rho_meas_spent)
    params["rho"] = spent
    params["cost"] = PrivacyCost(zcdp_to_approx_dp(spent, delta), delta)
    if not params["cost"].epsilon <= epsilon:
        # Past the top of the double range the conversion overflows (a
        # review: epsilon = 1.7e308 with delta = 0.3 cost inf).
        raise _out_of_range(epsilon, n_rounds)
    return params
