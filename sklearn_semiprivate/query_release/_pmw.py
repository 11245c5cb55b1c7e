"""Private multiplicative weights: the engine, its calibration and its accounting.

Two variants over a finite, public support of points (the synthetic distribution
is a weight vector over it):

* ``sparse_vector_pmw`` — the offline Private Multiplicative Weights of Hardt &
  Rothblum (2010) as used by APAP (Bassily et al. 2020, Alg. 3 step 4 and
  Lemma 7; Dwork & Roth 2014, Alg. 5 / Thm 4.15): the queries are visited in
  turn, the sparse vector technique (``above_threshold``) finds one whose error
  on the current distribution is above ``3 alpha / 4``, the Laplace mechanism
  measures it, and the multiplicative-weights step ``x <- x exp(±alpha/2 q)``
  moves the distribution towards it. At most ``c = ceil(4 ln|X~| / alpha^2)``
  updates (Dwork & Roth's bound); calibrated to (ε, δ) by advanced composition
  over the ``c`` sparse-vector instances. Here ``alpha`` is PMW's own accuracy
  parameter; APAP runs it at half its target (Alg. 3 step 4).
* ``mwem_rounds`` — MWEM-style rounds (Hardt, Ligett & McSherry 2012) over the
  public points (PMW^Pub, Liu et al. 2021): each round selects a badly answered
  query with the exponential mechanism or permute-and-flip, measures it with
  the Gaussian or Laplace mechanism and applies the MWEM update
  ``x <- x exp(q (m - q(x)) / 2)``. Accounted in zero-concentrated DP (zCDP),
  converted to (ε, δ) at the end.

Neighbouring private datasets differ by replacing one row (``n`` is public), so
every answer (a fraction of the ``n`` rows) has sensitivity ``1 / n``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
import sys

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp

from ..accounting import PrivacyCost, compose_advanced
from ..mechanisms import (
    LaplaceMechanism,
    exponential_mechanism,
    multiplicative_weights_update,
    permute_and_flip,
)
from ..mechanisms._additive import laplace_scale
from ..utils._validation import (
    check_delta,
    check_epsilon,
    check_integer,
    check_probability,
)

__all__ = [
    "approx_dp_to_zcdp",
    "mwem_round_parameters",
    "pmw_private_sample_size",
    "sparse_vector_pmw_parameters",
    "zcdp_to_approx_dp",
]

# Share of each sparse-vector instance's budget spent on AboveThreshold; the
# rest pays the Laplace measurement of the query found.
SVT_SHARE = 0.75
# AboveThreshold noise scales, in units of sensitivity / epsilon (Dwork & Roth
# 2014, Alg. 1 and Thm 3.23): threshold Lap(2Δ/ε), every query Lap(4Δ/ε).
SVT_THRESHOLD_NOISE = 2.0
SVT_QUERY_NOISE = 4.0
# Largest default number of MWEM rounds.
MAX_DEFAULT_ROUNDS = 500
# Share of each MWEM round's zCDP budget spent on selection.
SELECTION_SHARE = 0.5
# Every this many updates the synthetic answers are recomputed from the weights,
# so incremental updates do not accumulate rounding.
_REFRESH_EVERY = 64
# The incremental answer update (see WeightedSupport) divides by
# D = 1 + (e^f - 1) a_i, which multiplies the rounding error of the cached
# answers by up to 1/D (D < 1 when f < 0; at a_i near 1 the numerator cancels
# too). It is used only while the product of these factors since the answers
# were last recomputed stays at most _MAX_ERROR_AMPLIFICATION (each of at most
# _REFRESH_EVERY = 2^6 updates adds a few ulps, grown by at most 2^10: an error
# of order 2^-34 at worst, 4.6e-11 in the tests' worst case), and
# while f is at most _MAX_INCREMENTAL_EXPONENT (so e^f is finite and the mass of
# points whose weights underflowed to 0, below 2^-1074 each, stays below
# 2^-335 after the update); otherwise the answers are recomputed from the
# log-weights.
_MAX_ERROR_AMPLIFICATION = 2.0**10
_MAX_INCREMENTAL_EXPONENT = 512.0
# MWEM's learning rate on fractions: x <- x exp(q (m - q(x)) / 2) (Hardt,
# Ligett & McSherry 2012).
MWEM_LEARNING_RATE = 0.5


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
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


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
    log_inv = math.log(1.0 / delta)
    # (sqrt(L + ε) - sqrt(L))² = ε² / (sqrt(L + ε) + sqrt(L))², without cancellation.
    rho = (epsilon / (math.sqrt(log_inv + epsilon) + math.sqrt(log_inv))) ** 2
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
    # of 0 made the fit fail after its charge).
    _check_round_budgets(epsilon, k, (epsilon / k) ** 2)
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
    return int(min(MAX_DEFAULT_ROUNDS, max(1, math.floor(t))))


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


class WeightedSupport:
    """A distribution over a finite public support, with the answers it gives.

    Keeps normalised log-weights (so long runs of updates never underflow, and a
    single update, however large, never overflows: see
    :func:`~sklearn_semiprivate.mechanisms.multiplicative_weights_update`) and
    the answers of every query of ``query_set`` on the current distribution,
    updated incrementally: multiplying the weights of the points satisfying
    query ``i`` by ``exp(f)`` changes answer ``a_q`` to
    ``(a_q + (e^f - 1) b_q) / (1 + (e^f - 1) a_i)``, where ``b_q`` is the mass of
    the points satisfying both ``q`` and ``i``: an evaluation on those points
    only. For ``f < 0`` the division by ``1 + (e^f - 1) a_i < 1`` multiplies the
    rounding error of the cached answers, and for ``a_i`` near 1 the formula
    cancels (at ``f`` below about -37 and ``a_i = 1`` it divides 0 by 0); above
    ``f ≈ 709.8``, ``e^f`` overflows. So the answers are recomputed from the
    log-weights instead when the error growth since they were last recomputed
    would pass ``_MAX_ERROR_AMPLIFICATION``, when ``f`` is above
    ``_MAX_INCREMENTAL_EXPONENT``, and every ``_REFRESH_EVERY`` updates.
    Everything here is public (post-processing of released values).
    """

    def __init__(self, query_set, points, init_weights=None):
        self.query_set = query_set
        self.points = points
        if init_weights is None:
            self.log_weights = np.zeros(points.shape[0])
        else:
            # A zero initial weight (log -inf) is a point the distribution never
            # puts mass on.
            with np.errstate(divide="ignore"):
                self.log_weights = np.log(init_weights)
        with np.errstate(under="ignore"):
            self.log_weights -= logsumexp(self.log_weights)
        self._n_updates = 0
        self.refresh()

    @property
    def weights(self):
        """Normalised weights, shape (n_points,)."""
        # Weights below the float range are 0; the largest is >= 1/n_points.
        with np.errstate(under="ignore"):
            return np.exp(self.log_weights)

    def refresh(self):
        """Recompute every answer from the weights."""
        with np.errstate(under="ignore"):
            self.answers = self.query_set.weighted_sums(self.points, self.weights)
        # Bound on the growth of the rounding error of the cached answers.
        self._amplification = 1.0

    def update(self, i, factor):
        """Multiply the weights of the points of query ``i`` by ``exp(factor)``.

        Then renormalise. ``factor`` is any number but NaN (``eta`` times a
        noisy measurement minus the current answer can be far outside
        ``[-1, 1]``); at ``±inf`` (a product beyond the float range) its limit is
        taken: all the mass moves on or off the points of query ``i``.
        """
        factor = float(factor)
        if math.isnan(factor):
            raise ValueError("factor must not be NaN.")
        mask = self.query_set.mask(i, self.points)
        if not mask.any() or factor == 0.0:
            return
        incremental = factor <= _MAX_INCREMENTAL_EXPONENT
        if incremental:
            w = self.weights
            g = math.expm1(factor)
            a_i = float(w[mask].sum())
            denominator = 1.0 + g * a_i
            # amplification / min(D, 1) <= the largest, without dividing by D.
            shrink = min(denominator, 1.0)
            incremental = self._amplification <= _MAX_ERROR_AMPLIFICATION * shrink
        if incremental:
            self._amplification /= shrink
            with np.errstate(under="ignore"):
                b = self.query_set.weighted_sums(self.points[mask], w[mask])
        # Log-weights: + factor on the mask (exactly: lw - |f| (-sign f)), then
        # normalised; an infinite factor is the largest float (the same limit).
        step = min(abs(factor), sys.float_info.max)
        losses = np.where(mask, -1.0 if factor > 0 else 1.0, 0.0)
        self.log_weights = multiplicative_weights_update(
            self.log_weights, losses, step, log_weights=True, normalize=True
        )
        self._n_updates += 1
        if incremental and self._n_updates % _REFRESH_EVERY != 0:
            with np.errstate(under="ignore"):
                self.answers = (self.answers + g * b) / denominator
        else:
            self.refresh()


def above_threshold(values, threshold, epsilon, sensitivity, rng):
    """One AboveThreshold instance over ``values`` (Dwork & Roth 2014, Alg. 1).

    Draws the noisy threshold ``threshold + Lap(2Δ/ε)``, then adds
    ``Lap(4Δ/ε)`` to every value in turn and stops at the first that reaches
    the noisy threshold. ε-DP (Thm 3.23) when every value has sensitivity
    ``Δ``, whatever the length of ``values``.

    Parameters
    ----------
    values : ndarray of shape (m,)
        The (private) values, in the order they are visited.
    threshold : float
        The (public) threshold.
    epsilon : float
        Budget of the instance.
    sensitivity : float
        Sensitivity ``Δ`` of each value.
    rng : numpy.random.Generator

    Returns
    -------
    index : int
        Position of the first value reaching the noisy threshold, -1 if none.
    """
    noisy_threshold = threshold + rng.laplace(
        scale=laplace_scale(SVT_THRESHOLD_NOISE * sensitivity, epsilon)
    )
    noisy = values + rng.laplace(
        scale=laplace_scale(SVT_QUERY_NOISE * sensitivity, epsilon), size=values.shape
    )
    hits = np.flatnonzero(noisy >= noisy_threshold)
    return int(hits[0]) if hits.size else -1


def sparse_vector_pmw(support, true_answers, n, *, epsilon0, alpha, n_updates, rng):
    """Offline PMW with the sparse vector technique (Dwork & Roth 2014, Alg. 5).

    Parameters
    ----------
    support : WeightedSupport
        Uniform distribution over the representative domain, with the cover's
        queries.
    true_answers : ndarray of shape (n_queries,)
        Private answers of the cover on the private representatives (fractions).
    n : int
        Number of private rows (public): the sensitivity of an answer is 1/n.
    epsilon0 : float
        Budget of one AboveThreshold instance plus its measurement.
    alpha : float
        PMW's accuracy parameter: threshold ``3 alpha / 4``, learning rate
        ``alpha / 2``.
    n_updates : int
        Largest number of updates ``c``.
    rng : numpy.random.Generator

    Returns
    -------
    n_done : int
        Number of updates made (at most ``n_updates``).
    """
    sens = 1.0 / n
    eps_svt = SVT_SHARE * epsilon0
    # Laplace measurement of the query found: sensitivity 1/n, (ε0 - ε_svt)-DP.
    measure = LaplaceMechanism(epsilon0 - eps_svt, sensitivity=sens)
    threshold = 0.75 * alpha
    eta = 0.5 * alpha
    m = true_answers.size
    start = 0
    done = 0
    while done < n_updates:
        # One AboveThreshold instance, with a fresh noisy threshold, over one
        # pass of the queries from `start`. The value |a_q(D) - a_q(x_t)| has
        # sensitivity Δ = 1/n: x_t depends only on released values.
        order = (np.arange(m) + start) % m
        err = np.abs(true_answers[order] - support.answers[order])
        hit = above_threshold(err, threshold, eps_svt, sens, rng)
        if hit < 0:
            # A full pass over the queries found nothing: the run ends with
            # every answer below the threshold.
            break
        i = int(order[hit])
        measured = measure.sample(true_answers[i], random_state=rng)
        direction = 1.0 if measured > support.answers[i] else -1.0
        support.update(i, direction * eta)
        done += 1
        start = (i + 1) % m
    return done


def mwem_rounds(
    support,
    true_answers,
    n,
    *,
    n_rounds,
    params,
    selection,
    measurement,
    rng,
):
    """MWEM rounds over a public support (PMW^Pub, Liu et al. 2021).

    Parameters
    ----------
    support : WeightedSupport
        Initial distribution (the public empirical distribution) and queries.
    true_answers : ndarray of shape (n_queries,)
        Private answers (fractions).
    n : int
        Number of private rows (public).
    n_rounds : int
        Number of rounds.
    params : dict
        From :func:`mwem_round_parameters`.
    selection : {"exponential", "permute_and_flip"}
    measurement : {"gaussian", "laplace"}
    rng : numpy.random.Generator

    Returns
    -------
    selected : ndarray of shape (n_rounds,)
        Index of the query measured in each round.
    """
    selected = np.empty(n_rounds, dtype=np.intp)
    eps_sel = params["epsilon_selection"]
    laplace = (
        None
        if measurement == "gaussian"
        else LaplaceMechanism(params["epsilon_measurement"], sensitivity=1.0 / n)
    )
    for r in range(n_rounds):
        # Score n |a_q(D) - a_q(x_t)|: a count, sensitivity 1 (x_t is public
        # given the released history).
        scores = n * np.abs(true_answers - support.answers)
        if selection == "exponential":
            i = exponential_mechanism(
                scores, eps_sel, sensitivity=1.0, random_state=rng
            )
        else:
            i = permute_and_flip(scores, eps_sel, sensitivity=1.0, random_state=rng)
        if laplace is None:
            # Gaussian noise of standard deviation σΔ, Δ = 1/n: ρ = 1/(2σ²)-zCDP
            # (Bun & Steinke 2016, Prop. 1.6); σ from mwem_round_parameters.
            measured = true_answers[i] + rng.normal(scale=params["sigma"] / n)
        else:
            # Laplace mechanism, sensitivity 1/n.
            measured = laplace.sample(true_answers[i], random_state=rng)
        # MWEM update (Hardt, Ligett & McSherry 2012): x <- x exp(q (m - q(x)) / 2).
        # The measurement is used as drawn, as in MWEM. Clipping it to [0, 1]
        # (post-processing: no privacy cost) would change the release of every
        # run with a measurement outside [0, 1]. With noise large against 1/n
        # the exponent can be large: WeightedSupport.update works in log space.
        support.update(i, MWEM_LEARNING_RATE * (measured - support.answers[i]))
        selected[r] = i
    return selected
