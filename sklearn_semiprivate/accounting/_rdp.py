"""Rényi differential privacy (RDP): Gaussian curves, composition, conversion.

A mechanism is ``(α, ρ(α))``-RDP when the Rényi divergence of order ``α`` between
its output distributions on any two neighbouring datasets is at most ``ρ(α)``
(Mironov 2017, Def. 4). The curve ``α ↦ ρ(α)`` is held as an array over a fixed
grid of orders; every function here is deterministic arithmetic on such arrays.

* :func:`gaussian_rdp`: the Gaussian mechanism, ``ρ(α) = α Δ² / (2 σ²)``
  (Mironov 2017, Prop. 7). The data-independent bound of PATE's GNMax
  aggregator (Papernot et al. 2018, Prop. 8), ``α / σ²``, is this curve at
  ``Δ = sqrt(2)``: one teacher's changed vote moves the vote histogram by one
  in two counts.
* :func:`compose_rdp`: adaptive composition adds the curves order by order
  (Mironov 2017, Prop. 1).
* :func:`rdp_to_dp`: conversion to ``(ε, δ)``-DP, minimised over the orders.
* :func:`rdp_gaussian_sigma`: the smallest Gaussian noise whose ``k``-fold
  composition converts to a target ``(ε, δ)``.
* :func:`subsampled_gaussian_rdp`: the Poisson-subsampled Gaussian mechanism
  at integer orders (Mironov, Talwar & Zhang 2019, Sec. 3.3), the step of
  DP-SGD; :func:`rdp_subsampled_gaussian_sigma` calibrates its noise
  multiplier to ``(ε, δ)`` after ``k`` steps.

Numbers are floating point: the conversion is monotone in every input, and the
solver rounds ``σ`` up until the converted ``ε`` it reports meets the target,
but the arithmetic itself is not interval-checked (see the limitations page).
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln, logsumexp

from ..utils._validation import (
    check_delta,
    check_epsilon,
    check_integer,
    check_positive_real,
    check_real_array,
)
from ._composition import PrivacyCost

__all__ = [
    "DEFAULT_RDP_ORDERS",
    "INTEGER_RDP_ORDERS",
    "compose_rdp",
    "gaussian_rdp",
    "rdp_gaussian_sigma",
    "rdp_subsampled_gaussian_sigma",
    "rdp_to_dp",
    "subsampled_gaussian_rdp",
]

# 1.01 to 1e5, geometric in (alpha - 1): fine near the small orders that
# matter for large epsilon, and reaching the large orders that tiny epsilons
# need. Any grid gives a valid bound; a finer one gives a tighter one.
DEFAULT_RDP_ORDERS = 1.0 + np.geomspace(0.01, 1e5, 1401)
DEFAULT_RDP_ORDERS.setflags(write=False)

# Integer orders for the subsampled Gaussian, whose closed form holds at
# integer orders only: every order up to 64, then geometric up to 1024
# (tiny epsilons, or tiny sampling rates, need the large ones).
INTEGER_RDP_ORDERS = np.array(
    [*range(2, 65), 80, 96, 128, 160, 192, 256, 320, 384, 512, 768, 1024],
    dtype=np.float64,
)
INTEGER_RDP_ORDERS.setflags(write=False)

_CONVERSIONS = ("improved", "standard")


def _check_orders(orders):
    if orders is None:
        return DEFAULT_RDP_ORDERS
    orders = check_real_array(np.atleast_1d(orders), "orders")
    if np.any(orders <= 1):
        raise ValueError("RDP orders must be > 1.")
    return orders


def gaussian_rdp(sigma, *, sensitivity=1.0, orders=None):
    """RDP curve of the Gaussian mechanism: ``α Δ² / (2 σ²)``.

    Adding ``N(0, σ² I)`` to a vector query of L2 sensitivity ``Δ`` is
    ``(α, α Δ² / (2 σ²))``-RDP for every order ``α > 1`` (Mironov 2017,
    Prop. 7), for whichever neighbour relation defines ``Δ``.

    Parameters
    ----------
    sigma : float
        Noise standard deviation, ``> 0``.
    sensitivity : float, default=1.0
        L2 sensitivity ``Δ`` of the query, ``> 0``.
    orders : array-like of float, default=None
        Orders ``α > 1``; None uses :data:`DEFAULT_RDP_ORDERS`.

    Returns
    -------
    rdp : ndarray of shape (n_orders,)

    Examples
    --------
    GNMax's data-independent bound (Papernot et al. 2018, Prop. 8) is
    ``α / σ²``: the Gaussian curve at sensitivity ``sqrt(2)``.

    >>> import math
    >>> from sklearn_semiprivate.accounting import gaussian_rdp
    >>> gaussian_rdp(2.0, sensitivity=math.sqrt(2), orders=[2, 8]).round(12)
    array([0.5, 2. ])
    """
    sigma = check_positive_real(sigma, "sigma")
    sensitivity = check_positive_real(sensitivity, "sensitivity")
    orders = _check_orders(orders)
    if all(1e-150 < v < 1e150 for v in (sigma, sensitivity)):
        return orders * (sensitivity**2 / (2.0 * sigma**2))
    # Squared apart, an extreme sensitivity or sigma under- or overflows (a
    # review: sensitivity 1e-170 gave a curve of exactly 0, so rdp_to_dp
    # claimed epsilon = 0); their ratio is what matters.
    return orders * ((sensitivity / sigma) ** 2 / 2.0)


def compose_rdp(curves):
    """Adaptive composition of RDP mechanisms: the curves add up, order by order.

    Holds for adaptively chosen mechanisms and any neighbour relation
    (Mironov 2017, Prop. 1). ``k`` runs of the same mechanism compose to
    ``k`` times its curve.

    Parameters
    ----------
    curves : iterable of array-like of shape (n_orders,)
        RDP curves on the same orders.

    Returns
    -------
    rdp : ndarray of shape (n_orders,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.accounting import compose_rdp, gaussian_rdp
    >>> one = gaussian_rdp(3.0, orders=[2.0, 4.0])
    >>> bool(np.allclose(compose_rdp([one] * 9), gaussian_rdp(1.0, orders=[2.0, 4.0])))
    True
    """
    curves = [check_real_array(c, "curve") for c in curves]
    if not curves:
        raise ValueError("compose_rdp needs at least one curve.")
    if len({c.shape for c in curves}) != 1:
        raise ValueError("All RDP curves must be on the same orders (same length).")
    if any(np.any(c < 0) for c in curves):
        raise ValueError("RDP values must be >= 0.")
    return np.sum(curves, axis=0)


def _epsilons(orders, rdp, delta, conversion):
    """The ``ε`` each order's RDP value converts to, at ``delta``."""
    log_delta = math.log(delta)
    if conversion == "standard":
        # Mironov 2017, Prop. 3: eps = rho(alpha) + log(1/delta) / (alpha - 1).
        eps = rdp - log_delta / (orders - 1.0)
    else:
        # Canonne, Kamath & Steinke 2020, Prop. 12 (also Asoodeh et al. 2020,
        # eq. 20): eps = rho + log1p(-1/alpha) - log(delta alpha) / (alpha - 1),
        # never larger than the standard one (log1p(-1/a) - log(a)/(a-1) < 0).
        eps = (
            rdp
            + np.log1p(-1.0 / orders)
            - (log_delta + np.log(orders)) / (orders - 1.0)
        )
        # When rho(alpha) <= -log(1 - delta^2), KL <= rho(alpha) bounds the total
        # variation by sqrt(1 - exp(-KL)) <= delta (Bretagnolle-Huber), so the
        # output is (0, delta)-DP; the same shortcut as Google's dp-accounting.
        # Not where delta**2 underflows to 0 (delta below ~1.5e-162): there
        # the test held at rdp = 0 only, which made the calibrations' floor 0
        # and sent their searches to rdp = 0, a division by zero (a review).
        if delta**2 > 0.0:
            eps = np.where(delta**2 + np.expm1(-rdp) >= 0, 0.0, eps)
    return np.maximum(eps, 0.0)


def rdp_to_dp(rdp, delta, *, orders=None, conversion="improved"):
    """Convert an RDP curve to ``(ε, δ)``-DP at the given ``δ``.

    ``ε`` is the minimum over the orders of the conversion of each RDP value:

    * ``"standard"`` (Mironov 2017, Prop. 3): ``ρ(α) + log(1/δ) / (α - 1)``.
    * ``"improved"`` (Canonne, Kamath & Steinke 2020, Prop. 12; Asoodeh et al.
      2020): ``ρ(α) + log(1 - 1/α) - (log δ + log α) / (α - 1)``, never
      larger; orders whose RDP value already bounds the total variation by
      ``δ`` give ``ε = 0``. Google's ``dp-accounting`` uses the same rule.

    Parameters
    ----------
    rdp : array-like of shape (n_orders,)
        RDP values ``ρ(α) >= 0`` at ``orders``.
    delta : float
        Target ``δ`` in ``(0, 1)``.
    orders : array-like of float, default=None
        Orders ``α > 1`` of ``rdp``; None means :data:`DEFAULT_RDP_ORDERS`.
    conversion : {"improved", "standard"}, default="improved"
        The conversion rule.

    Returns
    -------
    cost : PrivacyCost
        ``(ε, δ)``.

    Examples
    --------
    >>> import math
    >>> from sklearn_semiprivate.accounting import gaussian_rdp, rdp_to_dp
    >>> orders = [2.0, 8.0, 32.0]
    >>> rdp = gaussian_rdp(2.0, orders=orders)  # alpha / 8
    >>> cost = rdp_to_dp(rdp, 1e-5, orders=orders, conversion="standard")
    >>> math.isclose(cost.epsilon, 8 / 8 + math.log(1e5) / 7)
    True
    >>> rdp_to_dp(rdp, 1e-5, orders=orders).epsilon < cost.epsilon
    True
    """
    orders = _check_orders(orders)
    rdp = check_real_array(np.atleast_1d(rdp), "rdp")
    if rdp.shape != orders.shape:
        raise ValueError(
            f"rdp has {rdp.shape[0]} values for {orders.shape[0]} orders; they "
            "must match."
        )
    if np.any(rdp < 0):
        raise ValueError("RDP values must be >= 0.")
    delta = check_delta(delta, allow_zero=False)
    if conversion not in _CONVERSIONS:
        raise ValueError(
            f"conversion must be 'improved' or 'standard', got {conversion!r}."
        )
    return PrivacyCost(float(np.min(_epsilons(orders, rdp, delta, conversion))), delta)


def rdp_gaussian_sigma(
    epsilon,
    delta,
    *,
    n_compositions=1,
    sensitivity=1.0,
    orders=None,
    conversion="improved",
):
    """Smallest Gaussian noise whose ``k``-fold composition is ``(ε, δ)``-DP by RDP.

    ``k`` (adaptive) runs of the Gaussian mechanism with L2 sensitivity ``Δ``
    and noise ``σ`` are ``(α, k α Δ² / (2 σ²))``-RDP (Prop. 1 and 7 of Mironov
    2017); :func:`rdp_to_dp` converts the curve. The converted ``ε`` decreases
    in ``σ``: a root search finds the crossing, then ``σ`` is raised by a
    relative ``1e-9`` (repeatedly, until the converted ``ε`` is ``<= epsilon``),
    so that float rounding in how the curve is summed cannot cross the target.

    Parameters
    ----------
    epsilon : float
        Target ``ε > 0``.
    delta : float
        Target ``δ`` in ``(0, 1)``.
    n_compositions : int, default=1
        Number ``k >= 1`` of composed runs (e.g. answered queries).
    sensitivity : float, default=1.0
        L2 sensitivity ``Δ`` of one run.
    orders : array-like of float, default=None
        Orders ``α > 1``; None means :data:`DEFAULT_RDP_ORDERS`.
    conversion : {"improved", "standard"}, default="improved"
        See :func:`rdp_to_dp`.

    Returns
    -------
    sigma : float

    Examples
    --------
    GNMax (sensitivity ``sqrt(2)``) answering 100 queries at ``(1, 1e-5)``:

    >>> import math
    >>> from sklearn_semiprivate.accounting import (
    ...     gaussian_rdp, rdp_gaussian_sigma, rdp_to_dp)
    >>> sigma = rdp_gaussian_sigma(1.0, 1e-5, n_compositions=100,
    ...                            sensitivity=math.sqrt(2))
    >>> rdp = 100 * gaussian_rdp(sigma, sensitivity=math.sqrt(2))
    >>> rdp_to_dp(rdp, 1e-5).epsilon <= 1.0
    True
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    k = check_integer(n_compositions, "n_compositions", 1)
    sensitivity = check_positive_real(sensitivity, "sensitivity")
    orders = _check_orders(orders)
    if conversion not in _CONVERSIONS:
        raise ValueError(
            f"conversion must be 'improved' or 'standard', got {conversion!r}."
        )
    # The composed curve is c * alpha with c = k Δ² / (2 σ²): solve for c.
    # (Δ enters only through σ = Δ sqrt(k / (2 c)): Δ² itself under- or
    # overflowed at Δ = 1e-170 or 1e160, a division by zero; a review.)
    half_k = k / 2.0

    def excess(log_c):
        rdp = math.exp(log_c) * orders
        return float(np.min(_epsilons(orders, rdp, delta, conversion))) - epsilon

    floor = float(np.min(_epsilons(orders, np.zeros_like(orders), delta, conversion)))
    if floor >= epsilon:
        raise ValueError(
            f"epsilon={epsilon!r} is not above {floor!r}, the smallest epsilon "
            f"orders up to {float(np.max(orders))!r} can certify at "
            f"delta={delta!r} whatever the noise; pass larger orders."
        )
    lo, hi = -1.0, 1.0
    while excess(lo) > 0:
        lo -= 2.0
    # Not past c = e^600 (e^700 times the orders overflowed; a review: epsilon
    # = 1e308 raised OverflowError): feasible there, that c is valid, if not
    # minimal.
    while hi < 600.0 and excess(hi) <= 0:
        hi += 2.0
    if excess(hi) <= 0:
        log_c = hi
    else:
        log_c = brentq(excess, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)
    # brentq stops near the crossing, possibly on the wrong side; a relative
    # 1e-9 more noise keeps every float summation of the curve (k * rho, or k
    # curves added one by one) on the safe side, checked on the curve itself.
    ratio = half_k / math.exp(log_c) if log_c > -700.0 else math.inf
    if ratio < math.inf:
        sigma = sensitivity * math.sqrt(ratio) * (1.0 + 1e-9)
    else:  # k / (2 c) overflows, its square root need not
        sigma = sensitivity * math.sqrt(half_k) * math.exp(-0.5 * log_c) * (1.0 + 1e-9)
    if not 0.0 < sigma < math.inf or sensitivity / sigma == 0.0:
        raise ValueError(
            f"No noise scale in double precision calibrates epsilon={epsilon!r} "
            f"at delta={delta!r} for sensitivity {sensitivity!r} and "
            f"{k} compositions."
        )
    while excess(math.log(half_k) + 2.0 * math.log(sensitivity / sigma)) > 0:
        sigma *= 1.0 + 1e-9
    return sigma


def _check_integer_orders(orders):
    if orders is None:
        return INTEGER_RDP_ORDERS
    orders = _check_orders(orders)
    if np.any(orders != np.round(orders)):
        raise ValueError(
            "The subsampled Gaussian's RDP is computed at integer orders only "
            "(Mironov, Talwar & Zhang 2019, Sec. 3.3); got non-integer orders."
        )
    return orders


class _SubsampledGaussianTerms:
    """The terms of ``log A_α`` (Mironov, Talwar & Zhang 2019, Sec. 3.3).

    ``A_α = Σ_{k=0}^{α} C(α, k) (1 - q)^(α - k) q^k exp((k² - k) / (2 σ²))``
    for integer ``α``. The part independent of ``σ`` is tabulated once per
    ``(q, orders)`` (one row per order, ``-inf`` past ``k = α``), so a noise
    calibration evaluates every order with one ``logsumexp``, in log space
    (no overflow for small ``σ`` or large ``α``).
    """

    def __init__(self, q, orders):
        self.orders = orders
        k = np.arange(int(np.max(orders)) + 1, dtype=np.float64)
        a = orders[:, None]
        inside = k[None, :] <= a
        with np.errstate(invalid="ignore"):
            log_binom = gammaln(a + 1.0) - gammaln(k + 1.0) - gammaln(a - k + 1.0)
            base = log_binom + k * math.log(q) + (a - k) * math.log1p(-q)
        self.base = np.where(inside, base, -np.inf)
        self.k_term = (k * k - k) / 2.0

    def __call__(self, sigma):
        # The binomial weights sum to 1, so A - 1 = Σ_k weight_k (exp(x_k) - 1)
        # with x_k = (k² - k) / (2 σ²) >= 0: a sum of non-negative terms (those
        # of k = 0, 1 vanish), summed in log space without cancellation, then
        # log A = log1p(A - 1). Summing the terms of A itself gave log(1 + tiny)
        # and lost relative accuracy where the RDP is tiny (a review: 2e-9 low
        # at q = 1e-4, sigma = 50, order 2).
        x = self.k_term / sigma**2
        with np.errstate(divide="ignore"):
            log_expm1 = x + np.log(-np.expm1(-x))  # log(exp(x) - 1), stable
        log_a = np.logaddexp(0.0, logsumexp(self.base + log_expm1, axis=1))
        return log_a / (self.orders - 1.0)


def subsampled_gaussian_rdp(sampling_rate, noise_multiplier, *, orders=None):
    """RDP curve of one step of the Poisson-subsampled Gaussian mechanism.

    Each row is kept independently with probability ``q``; the sum of the
    kept rows' contributions, each of L2 norm at most ``Δ``, is released
    with ``N(0, (σ Δ)² I)`` noise. For **add/remove** neighbours this is
    ``(α, ρ(α))``-RDP at every integer order ``α >= 2`` with
    ``ρ(α) = log(A_α) / (α - 1)`` and

        ``A_α = Σ_{k=0}^{α} C(α, k) (1 - q)^(α - k) q^k exp((k² - k) / (2 σ²))``

    (Mironov, Talwar & Zhang 2019, Sec. 3.3: ``A_α`` is
    ``E_{μ₀}[(μ / μ₀)^α]`` for ``μ₀ = N(0, σ²)`` and the mixture
    ``μ = (1 - q) μ₀ + q N(1, σ²)``; their Theorem 5 shows the other
    direction, ``D_α(μ₀ || μ)``, is never larger). At ``q = 1`` it is the
    Gaussian curve ``α / (2 σ²)``. It does not hold for replace-one
    neighbours.

    Parameters
    ----------
    sampling_rate : float
        Probability ``q`` in ``(0, 1]`` that a row is in the batch.
    noise_multiplier : float
        ``σ > 0``: the noise standard deviation over the sensitivity ``Δ``.
    orders : array-like of int, default=None
        Integer orders ``α >= 2``; None means :data:`INTEGER_RDP_ORDERS`.

    Returns
    -------
    rdp : ndarray of shape (n_orders,)

    References
    ----------
    I. Mironov, K. Talwar, L. Zhang. Rényi Differential Privacy of the
    Sampled Gaussian Mechanism. arXiv:1908.10530, 2019.

    Examples
    --------
    At ``q = 1`` the mechanism is the plain Gaussian:

    >>> import numpy as np
    >>> from sklearn_semiprivate.accounting import (
    ...     gaussian_rdp, subsampled_gaussian_rdp)
    >>> full = subsampled_gaussian_rdp(1.0, 2.0, orders=[2, 8])
    >>> bool(np.allclose(full, gaussian_rdp(2.0, orders=[2, 8])))
    True
    >>> bool(np.all(subsampled_gaussian_rdp(0.01, 2.0, orders=[2, 8]) < full))
    True
    """
    q = check_positive_real(sampling_rate, "sampling_rate")
    if q > 1:
        raise ValueError(f"sampling_rate must be in (0, 1], got {sampling_rate!r}.")
    sigma = check_positive_real(noise_multiplier, "noise_multiplier")
    orders = _check_integer_orders(orders)
    return _subsampled_curve(q, orders)(sigma)


def _subsampled_curve(q, orders):
    """``σ -> ρ(α)`` of one subsampled Gaussian step, on ``orders``."""
    if q == 1.0:
        return lambda sigma: orders / (2.0 * sigma**2)
    return _SubsampledGaussianTerms(q, orders)


def rdp_subsampled_gaussian_sigma(
    epsilon,
    delta,
    *,
    sampling_rate,
    n_steps,
    orders=None,
    conversion="improved",
):
    """Smallest noise multiplier making ``k`` subsampled Gaussian steps ``(ε, δ)``-DP.

    The ``k``-fold composition (Mironov 2017, Prop. 1) of
    :func:`subsampled_gaussian_rdp` is converted by :func:`rdp_to_dp`; the
    converted ``ε`` decreases in ``σ`` (every term of ``A_α`` does), so a
    bisection on ``log σ`` brackets the crossing and returns its upper end,
    at which the converted ``ε`` is ``<= epsilon`` (checked), within a
    relative ``1e-10`` of the smallest such ``σ``. Add/remove neighbours.

    Parameters
    ----------
    epsilon : float
        Target ``ε > 0``.
    delta : float
        Target ``δ`` in ``(0, 1)``.
    sampling_rate : float
        Poisson sampling probability ``q`` in ``(0, 1]``.
    n_steps : int
        Number ``k >= 1`` of steps.
    orders : array-like of int, default=None
        Integer orders; None means :data:`INTEGER_RDP_ORDERS`.
    conversion : {"improved", "standard"}, default="improved"
        See :func:`rdp_to_dp`.

    Returns
    -------
    noise_multiplier : float

    Examples
    --------
    >>> from sklearn_semiprivate.accounting import (
    ...     rdp_subsampled_gaussian_sigma, rdp_to_dp, subsampled_gaussian_rdp)
    >>> from sklearn_semiprivate.accounting import INTEGER_RDP_ORDERS as orders
    >>> z = rdp_subsampled_gaussian_sigma(1.0, 1e-5, sampling_rate=0.01, n_steps=500)
    >>> rdp = 500 * subsampled_gaussian_rdp(0.01, z, orders=orders)
    >>> eps = rdp_to_dp(rdp, 1e-5, orders=orders).epsilon
    >>> bool(0.9999 < eps <= 1.0)
    True
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    k = check_integer(n_steps, "n_steps", 1)
    orders = _check_integer_orders(orders)
    if conversion not in _CONVERSIONS:
        raise ValueError(
            f"conversion must be 'improved' or 'standard', got {conversion!r}."
        )

    q = check_positive_real(sampling_rate, "sampling_rate")
    if q > 1:
        raise ValueError(f"sampling_rate must be in (0, 1], got {sampling_rate!r}.")
    one_step = _subsampled_curve(q, orders)

    def curve(sigma):
        return k * one_step(sigma)

    return calibrate_noise(curve, epsilon, delta, orders=orders, conversion=conversion)


# Beyond e^700 a noise scale's square overflows a double.
_LOG_SIGMA_MAX = 700.0


def calibrate_noise(curve, epsilon, delta, *, orders, conversion="improved"):
    """Smallest ``σ`` whose finite RDP ``curve(σ)`` converts to at most ``epsilon``.

    ``curve`` maps a noise scale to an RDP curve on ``orders`` and must be
    non-increasing in it at every order. Bisection on ``log σ`` (relative
    width ``1e-10``); the upper end is returned, so the converted ``ε`` at
    the returned ``σ`` is ``<= epsilon`` (asserted on the curve itself). A
    curve with a non-finite order counts as uncertified: near the largest
    double (``epsilon`` from about 1e306) the result is then larger than the
    smallest certifying ``σ`` (up to 21 times, a review measured), and valid.

    Parameters
    ----------
    curve : callable
        ``sigma -> ndarray of shape (n_orders,)``.
    epsilon, delta : float
        The target.
    orders : ndarray of shape (n_orders,)
        Orders of ``curve``'s values.
    conversion : {"improved", "standard"}, default="improved"
        See :func:`rdp_to_dp`.

    Returns
    -------
    sigma : float
    """

    def eps_at(log_sigma):
        # Near the largest double (epsilon ~ 1e305) a small sigma's curve
        # overflows: inf, or NaN from inf - inf. Either is read as "above
        # epsilon" (no certificate), without the RuntimeWarnings, so the
        # search ends at a sigma whose curve is finite (a review: the fit's
        # own check of that curve then failed after the charge).
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                rdp = curve(math.exp(log_sigma))
                eps = float(np.min(_epsilons(orders, rdp, delta, conversion)))
        except OverflowError:
            # A Python float power in a curve (a second review: sigma ~ 1/delta
            # at delta ~ 1e-155, where sigma**2 overflows).
            return math.inf
        return eps if math.isfinite(eps) and np.all(np.isfinite(rdp)) else math.inf

    floor = float(np.min(_epsilons(orders, np.zeros_like(orders), delta, conversion)))
    if floor >= epsilon:
        raise ValueError(
            f"epsilon={epsilon!r} is not above {floor!r}, the smallest epsilon "
            f"orders up to {float(np.max(orders))!r} can certify at "
            f"delta={delta!r} whatever the noise; pass larger orders."
        )
    lo, hi = -2.0, 2.0
    while eps_at(lo) <= epsilon:
        lo -= 2.0
    while eps_at(hi) > epsilon:
        hi += 2.0
        if hi > _LOG_SIGMA_MAX:
            raise ValueError(
                f"epsilon={epsilon!r} cannot be certified at delta={delta!r} by "
                "any noise scale a double can hold; raise epsilon or delta."
            )
    # Invariant: eps_at(lo) > epsilon >= eps_at(hi).
    while hi - lo > 1e-10:
        mid = 0.5 * (lo + hi)
        if eps_at(mid) > epsilon:
            lo = mid
        else:
            hi = mid
    return math.exp(hi)
