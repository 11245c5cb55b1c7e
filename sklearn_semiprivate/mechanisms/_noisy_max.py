"""Report-noisy-max and permute-and-flip.

Both select ``argmax_i (s_i + Z_i)`` for i.i.d. noise ``Z_i`` of scale ``2Δ/ε``,
where ``Δ`` bounds how much any one score moves between neighbouring datasets:

* Gumbel noise gives exactly the exponential mechanism (the Gumbel-max trick);
* exponential noise gives exactly permute-and-flip (McKenna & Sheldon 2020; the
  identity is Ding, Zhang, Wang & Kifer 2021), which is how
  :class:`PermuteAndFlip` samples;
* Laplace noise of scale ``2Δ/ε`` is ε-DP for general (non-monotone) scores
  (Dwork & Roth 2014, Claim 3.9 uses scale ``Δ/ε`` only for monotone counts).

Exact output distributions are available for all three: a Gauss-Legendre rule
that integrates the permute-and-flip formula exactly, and adaptive quadrature
(``scipy.integrate.quad``) for Laplace noise.
"""

# SPDX-License-Identifier: BSD-3-Clause

import itertools
import math

import numpy as np
from scipy.integrate import quad
from scipy.special import logsumexp

from ..utils._rng import check_rng
from ..utils._validation import check_epsilon
from ._additive import laplace_scale
from ._base import Mechanism
from ._exponential import ExponentialMechanism, scaled_gaps, selection_coefficient
from ._validation import check_scores, check_sensitivity, check_size

__all__ = [
    "PermuteAndFlip",
    "ReportNoisyMax",
    "permute_and_flip",
    "report_noisy_max",
]

_NOISES = ("laplace", "gumbel", "exponential")
_LOG2 = math.log(2.0)
# Memory cap (number of float64 entries) for the candidates x nodes matrix of the
# exact permute-and-flip probabilities.
_PF_BLOCK_ENTRIES = 1 << 20


def _noisy_argmax(scaled, noise, size, rng):
    """Argmax of ``scaled + Z`` per draw, ``Z`` standard noise of the given kind."""
    n_draws = 1 if size is None else math.prod(size)
    shape = (n_draws, scaled.shape[0])
    if noise == "laplace":
        z = rng.laplace(size=shape)
    elif noise == "gumbel":
        z = rng.gumbel(size=shape)
    else:
        z = rng.standard_exponential(size=shape)
    winner = np.argmax(scaled + z, axis=1).astype(np.int64)
    if size is None:
        return int(winner[0])
    return winner.reshape(size)


def _permute_and_flip_log_proba(scaled):
    """Exact log-probabilities of permute-and-flip given ``scaled = c (s - max s)``.

    With ``q_j = exp(scaled_j) <= 1``, candidate ``r`` is output with probability
    (McKenna & Sheldon 2020, averaging over the position of ``r`` in the random
    permutation and the subset ``A`` of candidates before it, all rejected)::

        P(r) = q_r · Σ_k k! (K-1-k)! / K! · e_k({1 - q_j}_{j≠r})
             = q_r · ∫_0^1 ∏_{j≠r} (1 - t q_j) dt

    where the second line uses ``k!(m-k)!/(m+1)! = ∫ t^k (1-t)^(m-k) dt`` (a Beta
    integral) and the generating function of the elementary symmetric
    polynomials. The integrand is a polynomial of degree ``K - 1``, which a
    Gauss-Legendre rule with ``K // 2 + 1`` nodes integrates exactly; all factors
    lie in (0, 1], so the sum is formed in log space with no cancellation.
    """
    k = scaled.shape[0]
    nodes, weights = np.polynomial.legendre.leggauss(k // 2 + 1)
    t = 0.5 * (nodes + 1.0)
    log_w = np.log(0.5 * weights)
    q = np.exp(scaled)
    # log(1 - t q_j) for every node; t < 1 strictly, so the argument is > -1.
    total = np.zeros(t.shape[0])
    log_terms_rows = max(1, _PF_BLOCK_ENTRIES // t.shape[0])
    for start in range(0, k, log_terms_rows):
        total += np.log1p(-np.outer(q[start : start + log_terms_rows], t)).sum(axis=0)
    out = np.empty(k)
    for start in range(0, k, log_terms_rows):
        qb = q[start : start + log_terms_rows]
        inner = total[None, :] - np.log1p(-np.outer(qb, t)) + log_w[None, :]
        out[start : start + log_terms_rows] = logsumexp(inner, axis=1)
    return scaled + out


def _laplace_log_cdf(x):
    # log F(x) for the standard Laplace distribution, stable on both sides.
    if x < 0:
        return x - _LOG2
    return math.log1p(-0.5 * math.exp(-x))


def _abs_increment(x0, w):
    # -|x0 + w| + |x0|, exact when no sign change (the usual case).
    if x0 >= 0 and x0 + w >= 0:
        return -w
    if x0 <= 0 and x0 + w <= 0:
        return w
    return -abs(x0 + w) + abs(x0)


def _log_cdf_increment(x0, w):
    # log F(x0 + w) - log F(x0), exact on the linear branch.
    if x0 < 0 and x0 + w < 0:
        return w
    return _laplace_log_cdf(x0 + w) - _laplace_log_cdf(x0)


def _laplace_rnm_log_proba_one(d):
    """log P(candidate wins) under report-noisy-max with standard Laplace noise.

    ``d[j] = u_j - u_r`` are the other candidates' scaled scores relative to this
    one. ``P = ∫ f(z) ∏_j F(z - d_j) dz``; the log-integrand ``h`` is concave
    (Laplace is log-concave) and piecewise smooth with kinks at ``0`` and ``d_j``.
    Between kinks it is linear plus a bounded monotone part, so its mass sits
    within a few dozen units of a kink unless it is flat; each long piece is split
    near its ends so the adaptive rule cannot miss the mass.

    For accuracy when the scores are far apart (``|d_j|`` up to ``1e12``), the
    integral is taken in ``w = z - z0`` around the best kink ``z0``, and
    ``h(z0 + w) - h(z0)`` is summed from per-term increments that are exact on the
    linear branches, so no large numbers cancel near the mass.
    """
    d = [float(v) for v in d]

    def log_integrand(z):
        acc = -abs(z) - _LOG2
        for dj in d:
            acc += _laplace_log_cdf(z - dj)
        return acc

    kinks = sorted({0.0, *d})
    z0 = max(kinks, key=log_integrand)
    shift = log_integrand(z0)
    offsets = [z0 - dj for dj in d]

    def integrand(w):
        acc = _abs_increment(z0, w)
        for x0 in offsets:
            acc += _log_cdf_increment(x0, w)
        return math.exp(acc)

    local_kinks = sorted({-z0, *(-x0 for x0 in offsets)})
    margin = 64.0
    points = []
    for a, b in itertools.pairwise(local_kinks):
        points.append(a)
        if b - a > 2 * margin:
            points.extend((a + margin, b - margin))
    points.append(local_kinks[-1])
    # The integrand is 1 at w = 0 and its log has slope at most K + 1, so the
    # integral is >= 2/(K + 1): this absolute tolerance is a relative one. The
    # pieces' error estimates are checked against the total at the end (quad's
    # own warnings are collected with full_output instead of raised, since a
    # piece that is tiny next to the total need not be accurate on its own).
    opts = {
        "epsabs": 1e-15 / (len(d) + 1),
        "epsrel": 1e-13,
        "limit": 200,
        "full_output": 1,
    }
    bounds = [(-math.inf, points[0])]
    bounds.extend(itertools.pairwise(points))
    bounds.append((points[-1], math.inf))
    total = err = 0.0
    for a, b in bounds:
        value, abserr = quad(integrand, a, b, **opts)[:2]
        total += value
        err += abserr
    if not err <= 1e-10 * total:
        raise FloatingPointError(
            "Quadrature of the report-noisy-max probability did not converge "
            f"(estimated relative error {err / total:.2g})."
        )
    return shift + math.log(total)


class PermuteAndFlip(Mechanism):
    """Permute-and-flip selection (McKenna & Sheldon 2020).

    Visit the candidates in a uniformly random order and stop at candidate ``r``
    with probability ``exp(epsilon (s_r - max s) / (2 sensitivity))``. Sampled as
    the identical report-noisy-max with exponential noise of scale
    ``2 sensitivity / epsilon``, vectorized.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0``.
    sensitivity : float, default=1.0
        Per-score sensitivity ``Δ``.

    Attributes
    ----------
    epsilon : float
    sensitivity : float
    privacy_cost : PrivacyCost
        ``(epsilon, 0)``.

    See Also
    --------
    permute_and_flip : Functional form.
    ExponentialMechanism : Same privacy, never better expected score.

    Notes
    -----
    **Privacy.** ε-DP whenever every score moves by at most ``Δ`` between
    neighbours (McKenna & Sheldon 2020, Thm 1). Its expected score is never worse
    than the exponential mechanism's at the same ε (their Thm 2).

    **Exact distribution.** :meth:`log_probabilities` evaluates
    ``P(r) = q_r Σ_k k!(K-1-k)!/K! e_k({1 - q_j}_{j≠r})`` in its integral form
    ``q_r ∫_0^1 ∏_{j≠r}(1 - t q_j) dt`` with an exact Gauss-Legendre rule, in
    O(K²) time.

    References
    ----------
    .. [1] R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism for
       differentially private selection", NeurIPS 2020.
    .. [2] Z. Ding, D. Kifer, S. M. S. N. E., T. Steinke, Y. Wang, Y. Xiao and
       D. Zhang, "The permute-and-flip mechanism is identical to report-noisy-max
       with exponential noise", 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.mechanisms import PermuteAndFlip
    >>> mech = PermuteAndFlip(epsilon=2.0)
    >>> np.exp(mech.log_probabilities([0.0, 1.0, 2.0])).round(3).tolist()
    [0.059, 0.176, 0.765]
    >>> mech.sample([0.0, 1.0, 2.0], random_state=0)
    2
    """

    _param_names = ("epsilon", "sensitivity")

    def __init__(self, epsilon, sensitivity=1.0):
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_sensitivity(sensitivity)

    def _scaled(self, scores):
        scores = check_scores(scores)
        # Factor 2: scores may move in opposite directions (McKenna & Sheldon 2020).
        coef = selection_coefficient(self.epsilon, self.sensitivity)
        return scaled_gaps(coef, scores, scores.max())

    def log_probabilities(self, scores):
        """Exact log-probability of every candidate.

        Parameters
        ----------
        scores : array-like of shape (n_candidates,)
            Finite scores.

        Returns
        -------
        log_proba : ndarray of shape (n_candidates,)

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import PermuteAndFlip
        >>> lp = PermuteAndFlip(epsilon=1.0).log_probabilities([1.0, 1.0])
        >>> np.exp(lp).tolist()
        [0.5, 0.5]
        """
        return _permute_and_flip_log_proba(self._scaled(scores))

    def sample(self, scores, *, size=None, random_state=None):
        """Draw candidate indices.

        Parameters
        ----------
        scores : array-like of shape (n_candidates,)
            Finite scores.
        size : int or tuple of int, default=None
            Number of independent draws, each costing :attr:`privacy_cost`.
        random_state : None, int, numpy.random.Generator or RandomState, \
                default=None
            Source of randomness.

        Returns
        -------
        index : int or ndarray of int64 of shape ``size``

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import PermuteAndFlip
        >>> PermuteAndFlip(epsilon=1.0).sample([0.0, 5.0], size=3,
        ...                                     random_state=0).tolist()
        [1, 1, 1]
        """
        rng = check_rng(random_state)
        size = check_size(size)
        return _noisy_argmax(self._scaled(scores), "exponential", size, rng)


class ReportNoisyMax(Mechanism):
    """Report the index of the largest noisy score.

    Adds i.i.d. noise of scale ``2 sensitivity / epsilon`` to every score and
    returns the argmax.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0``.
    sensitivity : float, default=1.0
        Per-score sensitivity ``Δ`` (scores may move in different directions).
    noise : {"laplace", "gumbel", "exponential"}, default="laplace"
        Noise distribution. ``"gumbel"`` is the exponential mechanism and
        ``"exponential"`` is permute-and-flip, exactly.

    Attributes
    ----------
    epsilon : float
    sensitivity : float
    noise : str
    scale : float
        Noise scale ``2 sensitivity / epsilon``.
    privacy_cost : PrivacyCost
        ``(epsilon, 0)``.

    See Also
    --------
    report_noisy_max : Functional form.

    Notes
    -----
    **Privacy.** With scale ``b = 2Δ/ε``: fix the noise of the other candidates;
    ``r`` wins iff its noise exceeds a threshold that moves by at most ``2Δ``
    between neighbours, and the survival function of each noise changes by at
    most a factor ``exp(2Δ/b) = exp(ε)`` under a shift of ``2Δ`` (the log
    survival functions of Laplace, Gumbel and exponential noise of scale ``b``
    are ``1/b``-Lipschitz: their hazard rates are at most ``1/b``); hence ε-DP.

    **Exact distribution.** Gumbel: softmax of ``ε s/(2Δ)``; exponential: the
    permute-and-flip formula; Laplace: ``∫ f(z) ∏_{j≠r} F(z + u_r - u_j) dz``
    by ``scipy.integrate.quad`` on the pieces between kinks (absolute tolerance
    far below the integral, relative ``1e-13``), one integral per candidate:
    meant for auditing small candidate sets, while sampling is vectorized.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.mechanisms import ReportNoisyMax
    >>> mech = ReportNoisyMax(epsilon=2.0, noise="laplace")
    >>> mech.scale
    1.0
    >>> np.exp(mech.log_probabilities([0.0, 1.0, 2.0])).round(3).tolist()
    [0.083, 0.246, 0.671]
    >>> mech.sample([0.0, 1.0, 2.0], random_state=0)
    1
    """

    _param_names = ("epsilon", "sensitivity", "noise")

    def __init__(self, epsilon, sensitivity=1.0, noise="laplace"):
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_sensitivity(sensitivity)
        if not isinstance(noise, str) or noise not in _NOISES:
            raise ValueError(
                f"noise must be one of {', '.join(map(repr, _NOISES))}, got {noise!r}."
            )
        self.noise = noise

    @property
    def scale(self):
        """Noise scale ``2 sensitivity / epsilon``, at least the smallest normal double.

        A larger scale is a smaller epsilon, still valid; at ``(epsilon,
        sensitivity) = (1e300, 1e-300)`` the quotient was 0.0, and the scaled
        scores NaN.
        """
        return laplace_scale(2.0 * self.sensitivity, self.epsilon)

    def _scaled(self, scores):
        scores = check_scores(scores)
        # (s - max s) / scale, scale = 2 sensitivity / epsilon (floored, so
        # 1 / scale is finite; inf at an absurd sensitivity: then 0, uniform).
        return scaled_gaps(1.0 / self.scale, scores, scores.max())

    def log_probabilities(self, scores):
        """Exact log-probability of every candidate.

        Parameters
        ----------
        scores : array-like of shape (n_candidates,)
            Finite scores.

        Returns
        -------
        log_proba : ndarray of shape (n_candidates,)

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import ReportNoisyMax
        >>> lp = ReportNoisyMax(1.0, noise="laplace").log_probabilities([0.0, 0.0])
        >>> np.exp(lp).round(12).tolist()
        [0.5, 0.5]
        """
        if self.noise == "gumbel":
            return ExponentialMechanism(
                self.epsilon, self.sensitivity
            ).log_probabilities(scores)
        scaled = self._scaled(scores)
        if self.noise == "exponential":
            return _permute_and_flip_log_proba(scaled)
        # A candidate scaled to -inf (its probability is below any double)
        # never wins and is left out of the others' integrals; -inf - -inf
        # was NaN there (a review).
        finite = np.flatnonzero(np.isfinite(scaled))
        out = np.full(scaled.shape[0], -np.inf)
        kept = scaled[finite]
        out[finite] = [
            _laplace_rnm_log_proba_one(np.delete(kept, r) - kept[r])
            for r in range(kept.shape[0])
        ]
        return out

    def sample(self, scores, *, size=None, random_state=None):
        """Draw candidate indices.

        Parameters
        ----------
        scores : array-like of shape (n_candidates,)
            Finite scores.
        size : int or tuple of int, default=None
            Number of independent draws, each costing :attr:`privacy_cost`.
        random_state : None, int, numpy.random.Generator or RandomState, \
                default=None
            Source of randomness.

        Returns
        -------
        index : int or ndarray of int64 of shape ``size``

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import ReportNoisyMax
        >>> ReportNoisyMax(1.0, noise="gumbel").sample([0.0, 9.0], random_state=0)
        1
        """
        rng = check_rng(random_state)
        size = check_size(size)
        return _noisy_argmax(self._scaled(scores), self.noise, size, rng)


def permute_and_flip(scores, epsilon, *, sensitivity=1.0, random_state=None):
    """Select one candidate with permute-and-flip.

    Equal in distribution to report-noisy-max with exponential noise of scale
    ``2 sensitivity / epsilon``, which is how it is sampled. ε-DP. See
    :class:`PermuteAndFlip`.

    Parameters
    ----------
    scores : array-like of shape (n_candidates,)
        Finite scores.
    epsilon : float
        Privacy parameter, ``> 0``.
    sensitivity : float, default=1.0
        Per-score sensitivity ``Δ``.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Source of randomness.

    Returns
    -------
    index : int

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import permute_and_flip
    >>> permute_and_flip([3.0, 40.0, 5.0], epsilon=1.0, random_state=0)
    1
    """
    return PermuteAndFlip(epsilon, sensitivity).sample(
        scores, random_state=random_state
    )


def report_noisy_max(
    scores, epsilon, *, sensitivity=1.0, noise="laplace", random_state=None
):
    """Return the index of the largest score plus noise of scale ``2Δ/ε``.

    See :class:`ReportNoisyMax`. ε-DP.

    Parameters
    ----------
    scores : array-like of shape (n_candidates,)
        Finite scores.
    epsilon : float
        Privacy parameter, ``> 0``.
    sensitivity : float, default=1.0
        Per-score sensitivity ``Δ``.
    noise : {"laplace", "gumbel", "exponential"}, default="laplace"
        Noise distribution.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Source of randomness.

    Returns
    -------
    index : int

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import report_noisy_max
    >>> report_noisy_max([3.0, 40.0, 5.0], epsilon=1.0, random_state=0)
    1
    """
    return ReportNoisyMax(epsilon, sensitivity, noise).sample(
        scores, random_state=random_state
    )
