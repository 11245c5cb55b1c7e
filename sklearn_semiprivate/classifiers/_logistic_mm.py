"""The private core of SemiPrivateLogisticRegression: features, releases, MM steps.

* :class:`PublicFeatureMap`: ``φ(x)``, built from public rows (or ``bounds``)
  only: a clipped, standardized linear part, one-hot bins of public quantiles
  (a generalized additive model), and a constant, with ``||φ(x)||² <= 2``
  for every ``x``, which the sensitivities below rely on.
* :func:`release_scales` / :func:`release_privacy`: the Gaussian noise of
  every release, from the privacy target by RDP composition (Mironov 2017,
  Prop. 1 and 7), and the independent check of it.
* :func:`noisy_counts`, :func:`noisy_mm`: the releases (class counts, the
  Gram matrix, gradients) and the majorize-minimize steps on Böhning's bound
  of the multinomial log-loss (Böhning 1992: ``∇²ℓ ≼ ½ (I − 11ᵀ/K) ⊗ φφᵀ``).
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from scipy.special import softmax

from ..accounting import compose_rdp, gaussian_rdp, rdp_gaussian_sigma, rdp_to_dp
from ..query_release._binning import bin_codes, public_quantile_bins

__all__ = [
    "PublicFeatureMap",
    "auto_n_bins",
    "clip_rows",
    "log_loss_gradient",
    "noisy_counts",
    "noisy_mm",
    "release_privacy",
    "release_scales",
]

# Shares of the privacy budget (of the composed RDP curve, which is linear in
# the order for Gaussian releases): class counts, Gram matrix, and the rest
# split evenly over the gradient steps. Chosen on wa_churn, mlc_churn,
# diamonds, CPSSW8 and digits (benchmarks/results/logistic_candidates.md):
# Gram shares 0.1 and 0.2 were within noise of each other.
_COUNT_SHARE = 0.05
_GRAM_SHARE = 0.2
# Add/remove sensitivities (L2). Every row phi(x) has ||phi||^2 <= 2
# (PublicFeatureMap):
# counts: one row adds one to one class count;
_COUNT_SENSITIVITY = 1.0
# Gram: ||phi phi^T||_F = ||phi||^2 <= 2 (the released upper triangle is no
# longer than the whole matrix);
_GRAM_SENSITIVITY = 2.0
# gradient: ||(p - e_y) phi^T||_F = ||p - e_y|| ||phi|| <= sqrt(2) sqrt(2),
# since ||p - e_y||^2 = (1 - p_y)^2 + sum_{k != y} p_k^2 <= 2 (1 - p_y)^2.
_GRADIENT_SENSITIVITY = 2.0
# Ridge of each step: this fraction of the gradient noise's expected norm
# sqrt(q K) sigma, so a noisier step moves less (public parameters only).
_RIDGE_PER_NOISE = 0.1
# Share of ||phi||^2 given to the bins when there are some (the linear part
# gets the rest, the constant 1 on top).
_BIN_SHARE = 0.5
# n_bins="auto": this many bins when released rows / gradient noise sd is at
# least _AUTO_BINS_MIN_SNR (see auto_n_bins), none below.
_AUTO_BINS = 8
_AUTO_BINS_MIN_SNR = 450.0
# clip_rows: entries beyond this are clipped first (see there).
_HUGE = 1e100
# Relative shrinkage of the feature weights that keeps ||phi||^2 <= 2 exact
# in floating point (see PublicFeatureMap).
_ROUNDING = 1e-12
# Eigenvalues of the noisy Gram are floored at this many times sigma_G sqrt(q),
# about half the spectral norm of the symmetric Gaussian noise matrix.
_GRAM_FLOOR = 1.0


def release_scales(epsilon, delta, n_steps):
    """Noise standard deviations of every release, from public parameters only.

    All releases are Gaussian, so their composed RDP curve is ``c α`` with
    ``c = Σ Δᵢ² / (2 σᵢ²)``. One noise multiplier ``z`` is solved for the
    whole fit (:func:`~sklearn_semiprivate.accounting.rdp_gaussian_sigma`
    with one unit-sensitivity release), and release ``i`` with budget share
    ``sᵢ`` gets ``σᵢ = Δᵢ z / sqrt(sᵢ)``: the shares sum to one, so the
    curves sum to that of the single release, which converts to
    ``(epsilon, delta)``.

    Parameters
    ----------
    epsilon : float
        Target ``ε > 0``.
    delta : float
        Target ``δ`` in ``(0, 1)``.
    n_steps : int
        Number of gradient steps.

    Returns
    -------
    scales : dict
        ``{"counts": σ_c, "gram": σ_G, "gradient": [σ_1, ..., σ_T]}``.

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._logistic_mm import (
    ...     release_privacy, release_scales)
    >>> scales = release_scales(1.0, 1e-5, n_steps=3)
    >>> cost = release_privacy(scales, 1e-5)
    >>> bool(0.999 < cost.epsilon <= 1.0)
    True
    """
    z = rdp_gaussian_sigma(epsilon, delta, n_compositions=1, sensitivity=1.0)
    step_share = (1.0 - _COUNT_SHARE - _GRAM_SHARE) / n_steps
    return {
        "counts": _COUNT_SENSITIVITY * z / math.sqrt(_COUNT_SHARE),
        "gram": _GRAM_SENSITIVITY * z / math.sqrt(_GRAM_SHARE),
        "gradient": [_GRADIENT_SENSITIVITY * z / math.sqrt(step_share)] * n_steps,
    }


def release_privacy(scales, delta, *, neighbours="add/remove"):
    """``(ε, δ)`` of the releases with noise ``scales``, by RDP composition.

    An independent check of :func:`release_scales`: each release's Gaussian
    RDP curve at its own sensitivity, summed (adaptive composition) and
    converted.

    Parameters
    ----------
    scales : dict
        As returned by :func:`release_scales`.
    delta : float
        Target ``δ``.
    neighbours : {"add/remove", "replace-one"}, default="add/remove"
        Replacing a row is removing one and adding another: every release's
        sensitivity at most doubles (the Gram's grows only by ``sqrt(2)``,
        a difference of two positive semi-definite rank-one matrices; the
        bound 2 is used here for simplicity).

    Returns
    -------
    cost : PrivacyCost
    """
    factor = {"add/remove": 1.0, "replace-one": 2.0}[neighbours]
    curves = [
        gaussian_rdp(scales["counts"], sensitivity=factor * _COUNT_SENSITIVITY),
        gaussian_rdp(scales["gram"], sensitivity=factor * _GRAM_SENSITIVITY),
    ]
    curves += [
        gaussian_rdp(s, sensitivity=factor * _GRADIENT_SENSITIVITY)
        for s in scales["gradient"]
    ]
    return rdp_to_dp(compose_rdp(curves), delta)


def clip_rows(Z):
    """Scale every row of ``Z`` into the unit ball (rows inside are unchanged).

    Safe for any float input, so that the bound holds for every private row
    and no row makes a warning or an error (either would be a release without
    noise): entries are first clipped to ``±1e100`` (a row with such an entry
    is far outside the ball; squares stay finite for up to ``1e108``
    features) and NaN (``inf / inf`` from an overflowing standardization)
    becomes 0.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)

    Returns
    -------
    Z_clipped : ndarray of shape (n_samples, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._logistic_mm import clip_rows
    >>> clip_rows(np.array([[3.0, 4.0], [0.3, 0.4]])).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    Z = _finite(Z)
    norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
    return Z / np.maximum(norms, 1.0)[:, None]


def _finite(Z):
    """``Z`` with entries clipped to ``±1e100`` and NaN set to 0, silently."""
    with np.errstate(all="ignore"):
        return np.nan_to_num(np.clip(Z, -_HUGE, _HUGE), nan=0.0)


def log_loss_gradient(P, Y, W):
    """Gradient ``Σ (softmax(φ W) − e_y) φᵀ`` of the summed multinomial log-loss.

    Each row contributes ``φ (p − e_y)ᵀ``, of Frobenius norm
    ``||φ|| ||p − e_y|| <= 2`` when ``||φ||² <= 2``: the L2 sensitivity of
    the sum to adding or removing a row.

    Parameters
    ----------
    P : ndarray of shape (n_samples, q)
        Feature rows ``φ(x)``.
    Y : ndarray of shape (n_samples, n_classes)
        One-hot labels.
    W : ndarray of shape (q, n_classes)
        Parameters.

    Returns
    -------
    grad : ndarray of shape (q, n_classes)
    """
    return P.T @ (softmax(P @ W, axis=1) - Y)


def _symmetric_noise(q, sigma, rng):
    """A symmetric matrix whose upper triangle (diagonal included) is i.i.d.
    ``N(0, σ²)``: the Gaussian mechanism on the upper triangle, mirrored."""
    upper = np.triu(rng.normal(0.0, sigma, size=(q, q)))
    return upper + np.triu(upper, 1).T


class PublicFeatureMap:
    """``φ(x) = [a z(x), b onehot(bins(x)), 1]``, from public inputs only.

    ``z`` standardizes ``x`` by a public centre and scale, divides by a public
    radius and is scaled into the unit ball (:func:`clip_rows`). Each binned
    feature adds the one-hot code of its bin. With ``m`` binned features,
    ``b² = _BIN_SHARE / m`` and ``a² = 1 − _BIN_SHARE`` (``a = 1`` without
    bins), so ``||φ(x)||² <= a² + m b² + 1 = 2`` for every ``x``: the bound
    the sensitivities of :func:`noisy_mm` use, whatever the private rows.

    Parameters
    ----------
    center, scale : ndarray of shape (n_features,)
        Public standardization (``scale > 0``).
    radius : float
        Public clipping radius ``> 0`` of the standardized rows.
    bin_edges : list of (ndarray or None)
        Inner bin edges of each feature (None: not binned).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._logistic_mm import PublicFeatureMap
    >>> fmap = PublicFeatureMap(np.zeros(2), np.ones(2), 1.0, [np.array([0.0]), None])
    >>> P = fmap.transform(np.array([[3.0, 4.0], [-0.1, 0.0]]))
    >>> P.shape, bool(np.all(np.einsum("ij,ij->i", P, P) <= 2.0 + 1e-12))
    ((2, 5), True)
    """

    def __init__(self, center, scale, radius, bin_edges):
        self.center = center
        self.scale = scale
        self.radius = float(radius)
        self.bin_edges = bin_edges
        self.binned = [j for j, e in enumerate(bin_edges) if e is not None]
        n_binned = len(self.binned)
        # Shrunk by _ROUNDING so that float rounding (a clipped row's norm can
        # come out 1 + 1 ulp, sqrt(0.5)**2 is 0.5 + 1 ulp) cannot push
        # ||phi||^2 above 2.
        linear = math.sqrt(1.0 - _BIN_SHARE) if n_binned else 1.0
        self.linear_weight = linear * (1.0 - _ROUNDING)
        bins = math.sqrt(_BIN_SHARE / n_binned) if n_binned else 0.0
        self.bin_weight = bins * (1.0 - _ROUNDING)
        sizes = [bin_edges[j].size + 1 for j in self.binned]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        self.n_outputs = center.size + int(self.offsets[-1]) + 1

    @classmethod
    def from_public(cls, X_public, clip_quantile, n_bins):
        """Centre, scale, radius and quantile bins of public rows.

        Features with at most two distinct public values (e.g. one-hot
        columns) are not binned: the linear part already holds them.
        """
        with np.errstate(all="ignore"):  # public values: overflow is harmless
            center = np.nan_to_num(X_public.mean(axis=0), posinf=0.0, neginf=0.0)
            sd = X_public.std(axis=0)
            scale = np.where((sd > 0) & np.isfinite(sd), sd, 1.0)
            Z = _finite(X_public - center) / scale
        norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
        radius = float(np.quantile(norms, clip_quantile))
        edges = [None] * X_public.shape[1]
        if n_bins > 1:
            quantiles = public_quantile_bins(X_public, n_bins)
            for j, e in enumerate(quantiles):
                if np.unique(X_public[:, j]).size > 2 and e.size:
                    edges[j] = e
        ok = np.isfinite(radius) and radius > 0
        return cls(center, scale, radius if ok else 1.0, edges)

    @classmethod
    def from_bounds(cls, box, n_bins):
        """Centre and half-width of a domain box, equal-width bins inside it.

        The radius ``sqrt(n_features)`` reaches the box's corners.
        """
        center = box.mean(axis=1)
        scale = (box[:, 1] - box[:, 0]) / 2.0
        edges = [None] * box.shape[0]
        if n_bins > 1:
            edges = [np.linspace(lo, hi, n_bins + 1)[1:-1] for lo, hi in box]
        return cls(center, scale, math.sqrt(box.shape[0]), edges)

    def transform(self, X):
        """``φ(X)``, of shape ``(n_samples, n_outputs)``; ``||φ(x)||² <= 2``."""
        n = X.shape[0]
        with np.errstate(all="ignore"):  # overflow to inf is clipped below
            Z = clip_rows((X - self.center) / self.scale / self.radius)
        P = np.zeros((n, self.n_outputs))
        d = self.center.size
        P[:, :d] = self.linear_weight * Z
        if self.binned:
            edges = [self.bin_edges[j] for j in self.binned]
            codes = bin_codes(X[:, self.binned], edges).astype(np.intp)
            cols = d + self.offsets[:-1] + codes
            P[np.arange(n)[:, None], cols] = self.bin_weight
        P[:, -1] = 1.0
        return P


def noisy_counts(Y, sigma, rng):
    """Release 1: the class counts plus ``N(0, σ²)`` each; L2 sensitivity 1.

    Adding or removing a row changes one count by one (add/remove).

    Parameters
    ----------
    Y : ndarray of shape (n_samples, K)
        Private one-hot labels.
    sigma : float
        Noise standard deviation (``release_scales(...)["counts"]``).
    rng : numpy.random.Generator
        Privacy noise (fresh entropy).

    Returns
    -------
    counts : ndarray of shape (K,)
    """
    return Y.sum(axis=0) + rng.normal(0.0, sigma, size=Y.shape[1])


def auto_n_bins(n_rows, gradient_sigma):
    """``n_bins="auto"``: bins when the gradients' signal-to-noise is high.

    A function of the released (noisy) number of rows and the public noise
    scale only, so choosing by it is post-processing. On the tuning datasets
    (``benchmarks/tune_logistic.py``) bins gained accuracy when
    ``n_rows / sigma`` was at least about 450 and lost it below.

    Parameters
    ----------
    n_rows : float
        Released row count (the sum of :func:`noisy_counts`).
    gradient_sigma : float
        Noise standard deviation of one gradient coordinate.

    Returns
    -------
    n_bins : int

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._logistic_mm import auto_n_bins
    >>> auto_n_bins(15000.0, 15.0), auto_n_bins(3000.0, 15.0)
    (8, 0)
    """
    return _AUTO_BINS if n_rows / gradient_sigma >= _AUTO_BINS_MIN_SNR else 0


def noisy_mm(P, Y, counts, scales, rng, *, exact=None):
    """Releases 2.. and the MM steps; returns ``W`` of shape ``(q, K)``.

    Parameters
    ----------
    P : ndarray of shape (n_samples, q)
        Private feature rows, ``||φ||² <= 2`` (:class:`PublicFeatureMap`).
    Y : ndarray of shape (n_samples, K)
        Private one-hot labels.
    counts : ndarray of shape (K,)
        Released class counts (:func:`noisy_counts`, public labels added).
    scales : dict
        Noise of every release (:func:`release_scales`).
    rng : numpy.random.Generator
        Privacy noise (fresh entropy).
    exact : tuple of ndarray or None, default=None
        ``(P_pub, Y_pub)`` of labeled public rows, added without noise.

    Returns
    -------
    W : ndarray of shape (q, K)
    """
    q, K = P.shape[1], Y.shape[1]
    # Release 2: Gram matrix, L2 sensitivity ||phi||^2 <= 2.
    G = P.T @ P + _symmetric_noise(q, scales["gram"], rng)
    if exact is not None:
        P_pub, Y_pub = exact
        G += P_pub.T @ P_pub
    # Post-processing: a positive definite Gram (noise can break it).
    eigvals, eigvecs = np.linalg.eigh(G)
    eigvals = np.maximum(eigvals, _GRAM_FLOOR * scales["gram"] * math.sqrt(q))
    G = (eigvecs * eigvals) @ eigvecs.T
    prior = np.maximum(counts, 1.0)
    W = np.zeros((q, K))
    W[-1] = np.log(prior / prior.sum())
    not_intercept = np.ones((q, 1))
    not_intercept[-1] = 0.0
    for sigma in scales["gradient"]:
        # Release 3..: the gradient of the summed log-loss at W (which
        # depends on private rows only through earlier releases), L2
        # sensitivity ||p - e_y|| ||phi|| <= 2.
        grad = log_loss_gradient(P, Y, W)
        grad += rng.normal(0.0, sigma, size=grad.shape)
        if exact is not None:
            grad += log_loss_gradient(P_pub, Y_pub, W)
        ridge = _RIDGE_PER_NOISE * sigma * math.sqrt(q * K)
        grad += ridge * not_intercept * W
        # Böhning's bound: the Hessian is below (1/2) I_K (x) G.
        W = W - np.linalg.solve(G / 2.0 + ridge * np.eye(q), grad)
    return W
