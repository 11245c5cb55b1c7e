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

Numbers are floating point: the conversion is monotone in every input, and the
solver rounds ``σ`` up until the converted ``ε`` it reports meets the target,
but the arithmetic itself is not interval-checked (see the limitations page).
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from scipy.optimize import brentq

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
    "compose_rdp",
    "gaussian_rdp",
    "rdp_gaussian_sigma",
    "rdp_to_dp",
]

# 1.01 to 1e5, geometric in (alpha - 1): fine near the small orders that
# matter for large epsilon, and reaching the large orders that tiny epsilons
# need. Any grid gives a valid bound; a finer one gives a tighter one.
DEFAULT_RDP_ORDERS = 1.0 + np.geomspace(0.01, 1e5, 1401)
DEFAULT_RDP_ORDERS.setflags(write=False)

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
    return orders * (sensitivity**2 / (2.0 * sigma**2))


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
    scale = k * sensitivity**2 / 2.0

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
    while excess(hi) <= 0:
        hi += 2.0
    log_c = brentq(excess, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)
    # brentq stops near the crossing, possibly on the wrong side; a relative
    # 1e-9 more noise keeps every float summation of the curve (k * rho, or k
    # curves added one by one) on the safe side, checked on the curve itself.
    sigma = math.sqrt(scale / math.exp(log_c)) * (1.0 + 1e-9)
    while excess(math.log(scale / sigma**2)) > 0:
        sigma *= 1.0 + 1e-9
    return sigma
