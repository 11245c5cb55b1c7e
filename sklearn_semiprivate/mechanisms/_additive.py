"""Additive noise: the Laplace mechanism and the analytic Gaussian mechanism.

The Gaussian mechanism is calibrated exactly (Balle & Wang 2018, Thm 8): adding
``N(0, σ²)`` to a query of L2 sensitivity ``Δ`` is (ε, δ)-DP if and only if::

    δ(ε) = Φ(Δ/(2σ) - εσ/Δ) - e^ε Φ(-Δ/(2σ) - εσ/Δ) <= δ,

so the smallest valid ``σ`` is found by a root search on this privacy profile.
Unlike the classical ``σ = Δ sqrt(2 ln(1.25/δ)) / ε`` (Dwork & Roth 2014,
Thm A.1) it is valid for every ``ε > 0`` and is never larger.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import erfcx, log_ndtr

from ..utils._rng import check_rng
from ..utils._validation import check_delta, check_epsilon, check_positive_real
from ._base import Mechanism
from ._validation import check_sensitivity, check_values

__all__ = [
    "GaussianMechanism",
    "LaplaceMechanism",
    "analytic_gaussian_sigma",
    "gaussian_mechanism",
    "gaussian_privacy_profile",
    "laplace_mechanism",
]


# analytic_gaussian_sigma calibrates to delta * (1 - _PROFILE_RTOL): _profile's
# relative error stayed below 1e-9 against 60- to 200-digit arithmetic (eps
# from 1e-28 to 1e6, delta down to 1e-300; tests/mechanisms/
# test_additive_mechanisms.py), so the exact profile at the returned sigma is
# at most delta.
_PROFILE_RTOL = 1e-8
# Largest epsilon at which the profile is evaluated as written. Near the
# calibrated sigma, a = Δ/(2σ) and b = εσ/Δ both grow like sqrt(ε / 2), and
# b - a carries an absolute rounding error of about 1e-16 b: the profile's
# relative error was 1e-13 at ε = 1e4, 1e-12 at 1e6, 1e-10 at 1e14, 7e-8 at
# 1e16 (above the margin) and 100% at 1e20, where the calibration returned a
# sigma whose exact delta was about 1, and raised from 1e40 on (against
# 120-digit arithmetic, delta = 1e-6 and 1e-30; a review found it).
# Above this epsilon, the profile and the calibration use the value at it:
# an (ε', δ)-DP mechanism is (ε, δ)-DP for every ε >= ε' (δ(ε) decreases),
# so the guarantee stays exact, only conservative, where noise of scale
# 1e-3 Δ is negligible anyway.
_EPSILON_EXACT_MAX = 1e6
# Floor of the Laplace scale (see LaplaceMechanism.scale).
_SMALLEST_NORMAL = float(np.finfo(np.float64).tiny)


def _profile(epsilon, sigma, sensitivity):
    # Overflows at extreme sigmas (a or b infinite) give the limits 0 or NaN;
    # the calibration counts NaN as infeasible.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _profile_values(epsilon, sigma, sensitivity)


def _profile_values(epsilon, sigma, sensitivity):
    # See _EPSILON_EXACT_MAX: an upper bound beyond it.
    epsilon = np.minimum(epsilon, _EPSILON_EXACT_MAX)
    # Not Δ / (2σ): 2σ overflows to inf for σ above half the largest double.
    a = np.asarray(0.5 * (sensitivity / sigma), dtype=np.float64)
    b = np.asarray(epsilon * sigma / sensitivity, dtype=np.float64)
    # Φ(a - b) - e^ε Φ(-a - b) = Φ(a - b) (1 - exp(ε + log Φ(-a - b) - log Φ(a - b))):
    # no cancellation of large numbers, but ε + (difference of two logs of
    # order (a + b)² / 2) loses relative accuracy when both terms are tiny.
    log_first = log_ndtr(a - b)
    ratio = epsilon + log_ndtr(-a - b) - log_first
    general = np.exp(log_first) * -np.expm1(ratio)
    # Where b > a (small δ), with Φ(-x) = erfcx(x / √2) exp(-x² / 2) / 2 the
    # exponents cancel exactly (e^ε exp(-(a + b)² / 2) = exp(-(b - a)² / 2),
    # since 2ab = ε): δ = exp(-v²) (erfcx(v) - erfcx(u)) / 2 with
    # v = (b - a)/√2 < u = (b + a)/√2, erfcx being accurate where Φ is tiny.
    v = np.maximum(b - a, 0.0) / math.sqrt(2.0)
    u = (b + a) / math.sqrt(2.0)
    with np.errstate(under="ignore"):
        tail = 0.5 * np.exp(-(v**2)) * (erfcx(v) - erfcx(u))
    out = np.where(b > a, tail, general)
    # Both forms take a difference of two nearly equal terms when a is small
    # against b - a (small ε): their relative error grew like 1e-15 times
    # max(|b - a|, √2) / (2a), the condition number of the difference (1e-3
    # at 1e12, 100% at 1e15: ε = 1e-14 gave δ = 0 where the exact one was
    # 1.6e-24; a review, against 300-digit arithmetic). There, the integral
    # without a difference (_profile_integral).
    condition = np.maximum(np.abs(b - a), math.sqrt(2.0)) / (2.0 * a)
    ill = np.broadcast_to(condition > _CONDITION_MAX, out.shape)
    if np.any(ill):
        shape = out.shape
        out, a, b = (np.broadcast_to(x, shape).ravel().copy() for x in (out, a, b))
        for i in np.flatnonzero(ill):
            out[i] = _profile_integral(float(a[i]), float(b[i]))
        out = out.reshape(shape)
    return np.maximum(out, 0.0)


# Above this condition number of the closed forms' difference (see _profile),
# the profile is integrated: below it their relative error stayed under 5e-12
# (against 300-digit arithmetic, ε from 1e-14 to 1e6, b - a from 1e-3 to 37).
_CONDITION_MAX = 1e3


def _profile_integral(a, b):
    """δ by quadrature of a positive integrand, accurate where a << b - a.

    The privacy loss of the Gaussian mechanism is ``L = μ + s Z`` with
    ``Z ~ N(0, 1)``, ``s = 2a`` and ``μ = 2a²``, and ``δ(ε) = E[(1 - e^(ε - L))+]``.
    With ``z0 = (ε - μ)/s = b - a`` (as ``ε = 2ab``)::

        δ = φ(z0) ∫_0^∞ exp(-z0 t - t²/2) (1 - exp(-2a t)) dt,

    whose integrand is positive and computed without cancellation
    (``-expm1``); scipy's ``quad`` reaches a relative 1e-13 on it (5.5e-13 at
    worst against 300-digit arithmetic, ε from 1e-14 to 1e6).
    """
    z0 = b - a
    two_a = 2.0 * a
    if not (two_a > 0.0 and z0 < math.inf):
        # a = 0 (σ so large that Δ/(2σ) underflows) or b = inf: no loss above ε.
        return 0.0

    # ∫ ... dt <= 1/z0²: below, δ underflows.
    if -0.5 * z0 * z0 + math.log(two_a) - 2.0 * math.log(max(z0, 1.0)) < -745.0:
        return 0.0
    # t = s / c: the integrand falls like exp(-s) in s for large z0.
    c = max(z0, 1.0)

    def integrand(s):
        # (1 - exp(-2a t)) / (2a), exact to rounding, and t in the limit a -> 0.
        t = s / c
        x = two_a * t
        ramp = -math.expm1(-x) / two_a if x > 0.0 else t
        return math.exp(-z0 * t - 0.5 * t * t) * ramp / c

    value, _ = quad(integrand, 0.0, math.inf, epsabs=0.0, epsrel=1e-13, limit=200)
    if value <= 0.0:
        return 0.0
    log_phi = -0.5 * z0 * z0 - 0.5 * math.log(2.0 * math.pi)
    log_delta = log_phi + math.log(two_a) + math.log(value)
    return math.exp(log_delta) if log_delta > -745.0 else 0.0


def gaussian_privacy_profile(epsilon, sigma, sensitivity=1.0):
    """Exact privacy profile ``δ(ε)`` of the Gaussian mechanism.

    The smallest ``δ`` such that adding ``N(0, sigma²)`` to a query of L2
    sensitivity ``sensitivity`` is (ε, δ)-DP (Balle & Wang 2018, Thm 8)::

        δ(ε) = Φ(Δ/(2σ) - εσ/Δ) - e^ε Φ(-Δ/(2σ) - εσ/Δ)

    Parameters
    ----------
    epsilon : float or array-like of float
        Values ``ε >= 0`` at which to evaluate the profile.
    sigma : float
        Noise standard deviation, ``> 0``.
    sensitivity : float, default=1.0
        L2 sensitivity ``Δ``.

    Returns
    -------
    delta : float or ndarray
        Same shape as ``epsilon``; decreasing in ``ε``. Exact (to a relative
        1e-9) for ``ε <= 1e6``; above, the value at ``ε = 1e6``, an upper
        bound (double precision cannot resolve the profile there).

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import gaussian_privacy_profile
    >>> round(float(gaussian_privacy_profile(1.0, sigma=1.0)), 6)
    0.126937
    """
    eps, scalar = check_values(epsilon, "epsilon")
    if np.any(eps < 0):
        raise ValueError("epsilon must be >= 0.")
    sigma = check_positive_real(sigma, "sigma")
    sensitivity = check_sensitivity(sensitivity)
    out = _profile(eps, sigma, sensitivity)
    return float(out) if scalar else out


def analytic_gaussian_sigma(epsilon, delta, sensitivity=1.0):
    """Smallest Gaussian noise scale that is (ε, δ)-DP: the analytic calibration.

    Solves ``δ(σ) = δ`` for the exact privacy profile of
    :func:`gaussian_privacy_profile` (Balle & Wang 2018, Thm 8): the first
    float ``σ`` whose computed profile is at most ``delta (1 - 1e-8)``, found
    by bisection. The margin covers the rounding of the computed profile
    (below ``1e-11`` relative; where the closed form would cancel, at small
    ``ε``, the profile is integrated), so that the exact one is at most
    ``delta``. Valid for every ``ε > 0``: above ``ε = 1e6``, where double
    precision cannot resolve the profile, ``σ`` is calibrated at ``ε = 1e6``
    (an ``(ε', δ)``-DP mechanism is ``(ε, δ)``-DP for every ``ε >= ε'``).

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0``.
    delta : float
        Privacy parameter in ``(0, 1)``.
    sensitivity : float, default=1.0
        L2 sensitivity ``Δ``.

    Returns
    -------
    sigma : float

    Raises
    ------
    ValueError
        When no double ``σ`` is large enough (e.g. ``ε = 1e-300`` at
        sensitivity ``1e10``).

    Examples
    --------
    >>> import math
    >>> from sklearn_semiprivate.mechanisms import analytic_gaussian_sigma
    >>> sigma = analytic_gaussian_sigma(0.5, 1e-5)
    >>> round(sigma, 4)
    7.0318
    >>> sigma < math.sqrt(2 * math.log(1.25 / 1e-5)) / 0.5  # classical calibration
    True
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    sensitivity = check_sensitivity(sensitivity)

    # A hair under delta: the margin covers _profile's rounding (see
    # _PROFILE_RTOL), so that the exact profile, not only the computed one,
    # is at most delta.
    target = delta * (1.0 - _PROFILE_RTOL)

    def feasible(sigma):
        # NaN (an overflow at an extreme sigma) counts as infeasible.
        return bool(_profile(epsilon, sigma, sensitivity) <= target)

    # δ(σ) decreases from 1 (σ → 0) to 0 (σ → ∞). The smallest feasible
    # double, by bisection on the bit patterns of the positive doubles (which
    # order them as their values), whatever the magnitudes. (A review: a
    # bracket grown by doubling overflowed to inf and looped forever, e.g. at
    # epsilon = 1e-300 and sensitivity 1e10, and brentq failed to converge
    # at epsilon from about 1e-24 to 1e-28.) brentq only shortens it.
    largest = np.finfo(np.float64).max
    if not feasible(float(largest)):
        raise ValueError(
            f"No noise scale up to the largest double makes the Gaussian "
            f"mechanism ({epsilon}, {delta})-DP at sensitivity {sensitivity}: "
            "raise epsilon or delta, or lower the sensitivity."
        )
    lo, hi = 0, _bits(largest)  # lo infeasible (0 is sigma = 0), hi feasible
    lo, hi = _bisect_bits(feasible, lo, hi, width=2**52)  # within a factor 2
    if lo > 0:
        try:
            root = brentq(
                lambda x: float(_profile(epsilon, x, sensitivity)) - target,
                _value(lo),
                _value(hi),
                xtol=1e-300,
                rtol=4 * np.finfo(float).eps,
            )
        except (RuntimeError, ValueError):  # NaN or no convergence: bisect
            root = None
        if root is not None and lo < _bits(root) < hi:
            # Narrow [lo, hi] to a few ulps around the root, checked.
            for probe in (_bits(root) - 4, _bits(root), _bits(root) + 4):
                if lo < probe < hi:
                    if feasible(_value(probe)):
                        hi = probe
                    else:
                        lo = probe
    return _value(_bisect_bits(feasible, lo, hi, width=1)[1])


def _bits(x):
    """The bit pattern of a positive double, as an int (ordered as the values)."""
    return int(np.float64(x).view(np.int64))


def _value(bits):
    return float(np.int64(bits).view(np.float64))


def _bisect_bits(feasible, lo, hi, width):
    """Shrink ``[lo, hi]`` (infeasible, feasible bit patterns) to ``width``."""
    while hi - lo > width:
        mid = (lo + hi) // 2
        if feasible(_value(mid)):
            hi = mid
        else:
            lo = mid
    return lo, hi


def laplace_scale(sensitivity, epsilon):
    """Laplace scale ``sensitivity / epsilon``, floored at the smallest normal double.

    The quotient can underflow: at ``(sensitivity, epsilon) = (1e-300, 1e300)``
    it is 0.0, and a release with no noise is not DP for any epsilon. A larger
    scale is always valid (the density ratio only shrinks), so the floor keeps
    the guarantee where it binds. Every Laplace draw of the package takes its
    scale from here.
    """
    return max(sensitivity / epsilon, _SMALLEST_NORMAL)


class LaplaceMechanism(Mechanism):
    """Add Laplace noise of scale ``sensitivity / epsilon``.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0``.
    sensitivity : float, default=1.0
        L1 sensitivity ``Δ`` of the released value (for a vector, the largest
        L1 distance between its values on neighbouring datasets).

    Attributes
    ----------
    epsilon : float
    sensitivity : float
    scale : float
        ``sensitivity / epsilon``.
    privacy_cost : PrivacyCost
        ``(epsilon, 0)``.

    Notes
    -----
    **Privacy.** ε-DP (Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014,
    Thm 3.6): the density ratio at any output is at most ``exp(||f(D) -
    f(D')||_1 / scale) <= exp(epsilon)``.

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import LaplaceMechanism
    >>> mech = LaplaceMechanism(epsilon=0.5, sensitivity=2.0)
    >>> mech.scale, mech.privacy_cost
    (4.0, PrivacyCost(epsilon=0.5, delta=0.0))
    >>> round(mech.sample(10.0, random_state=0), 3)
    11.28
    """

    _param_names = ("epsilon", "sensitivity")

    def __init__(self, epsilon, sensitivity=1.0):
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_sensitivity(sensitivity)

    @property
    def scale(self):
        """Noise scale ``sensitivity / epsilon`` (see :func:`laplace_scale`)."""
        return laplace_scale(self.sensitivity, self.epsilon)

    def sample(self, value, *, random_state=None):
        """Release ``value`` plus Laplace noise.

        Parameters
        ----------
        value : float or array-like of float
            The exact (private) value; one release covers the whole array.
        random_state : None, int, numpy.random.Generator or RandomState, \
                default=None
            Source of randomness.

        Returns
        -------
        noisy : float or ndarray of the same shape as ``value``

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import LaplaceMechanism
        >>> LaplaceMechanism(1.0).sample([0.0, 10.0], random_state=0).round(3).tolist()
        [0.32, 9.383]
        """
        arr, scalar = check_values(value)
        rng = check_rng(random_state)
        out = arr + rng.laplace(scale=self.scale, size=arr.shape)
        return float(out) if scalar else out


class GaussianMechanism(Mechanism):
    """Add Gaussian noise calibrated exactly (analytic Gaussian mechanism).

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0`` (any value; no ``ε < 1`` restriction).
    delta : float
        Privacy parameter in ``(0, 1)``.
    sensitivity : float, default=1.0
        L2 sensitivity ``Δ`` of the released value.

    Attributes
    ----------
    epsilon : float
    delta : float
    sensitivity : float
    sigma : float
        Noise standard deviation, ``analytic_gaussian_sigma(epsilon, delta,
        sensitivity)``.
    privacy_cost : PrivacyCost
        ``(epsilon, delta)``.

    Notes
    -----
    **Privacy.** (ε, δ)-DP by Balle & Wang (2018), Thm 8; :meth:`privacy_profile`
    gives the exact ``δ(ε')`` for every other ``ε'``.

    References
    ----------
    .. [1] B. Balle and Y.-X. Wang, "Improving the Gaussian mechanism for
       differential privacy: analytical calibration and optimal denoising",
       ICML 2018.

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import GaussianMechanism
    >>> mech = GaussianMechanism(epsilon=1.0, delta=1e-5)
    >>> round(mech.sigma, 4)
    3.7306
    >>> bool(mech.privacy_profile(1.0) <= 1e-5)
    True
    >>> round(mech.sample(0.0, random_state=0), 3)
    0.469
    """

    _param_names = ("epsilon", "delta", "sensitivity")

    def __init__(self, epsilon, delta, sensitivity=1.0):
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=False)
        self.sensitivity = check_sensitivity(sensitivity)
        self.sigma = analytic_gaussian_sigma(self.epsilon, self.delta, self.sensitivity)

    def privacy_profile(self, epsilon):
        """Exact ``δ(ε)`` of this mechanism, see :func:`gaussian_privacy_profile`.

        Parameters
        ----------
        epsilon : float or array-like of float
            Values ``>= 0``.

        Returns
        -------
        delta : float or ndarray

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import GaussianMechanism
        >>> mech = GaussianMechanism(epsilon=1.0, delta=1e-5)
        >>> bool(mech.privacy_profile(0.5) > 1e-5 >= mech.privacy_profile(1.0))
        True
        """
        return gaussian_privacy_profile(epsilon, self.sigma, self.sensitivity)

    def sample(self, value, *, random_state=None):
        """Release ``value`` plus ``N(0, sigma²)`` noise (independent per entry).

        Parameters
        ----------
        value : float or array-like of float
            The exact (private) value; one release covers the whole array.
        random_state : None, int, numpy.random.Generator or RandomState, \
                default=None
            Source of randomness.

        Returns
        -------
        noisy : float or ndarray of the same shape as ``value``

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import GaussianMechanism
        >>> mech = GaussianMechanism(1.0, 1e-5)
        >>> mech.sample([0.0, 10.0], random_state=0).round(3).tolist()
        [0.469, 9.507]
        """
        arr, scalar = check_values(value)
        rng = check_rng(random_state)
        out = arr + rng.normal(scale=self.sigma, size=arr.shape)
        return float(out) if scalar else out


def laplace_mechanism(value, epsilon, *, sensitivity=1.0, random_state=None):
    """Release ``value`` plus Laplace noise of scale ``sensitivity / epsilon``.

    ε-DP for a value of L1 sensitivity ``sensitivity``. See
    :class:`LaplaceMechanism`.

    Parameters
    ----------
    value : float or array-like of float
        The exact value.
    epsilon : float
        Privacy parameter, ``> 0``.
    sensitivity : float, default=1.0
        L1 sensitivity.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Source of randomness.

    Returns
    -------
    noisy : float or ndarray

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import laplace_mechanism
    >>> round(laplace_mechanism(100.0, epsilon=1.0, random_state=0), 3)
    100.32
    """
    return LaplaceMechanism(epsilon, sensitivity).sample(
        value, random_state=random_state
    )


def gaussian_mechanism(value, epsilon, delta, *, sensitivity=1.0, random_state=None):
    """Release ``value`` plus analytically calibrated Gaussian noise.

    (ε, δ)-DP for a value of L2 sensitivity ``sensitivity``. See
    :class:`GaussianMechanism`.

    Parameters
    ----------
    value : float or array-like of float
        The exact value.
    epsilon : float
        Privacy parameter, ``> 0``.
    delta : float
        Privacy parameter in ``(0, 1)``.
    sensitivity : float, default=1.0
        L2 sensitivity.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Source of randomness.

    Returns
    -------
    noisy : float or ndarray

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import gaussian_mechanism
    >>> gaussian_mechanism([1.0, 2.0], epsilon=1.0, delta=1e-5,
    ...                    random_state=0).round(2).tolist()
    [1.47, 1.51]
    """
    return GaussianMechanism(epsilon, delta, sensitivity).sample(
        value, random_state=random_state
    )
