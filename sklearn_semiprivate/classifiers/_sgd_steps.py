"""The private core of PrivateSGDClassifier: scaling, gradients, noisy steps.

* :class:`PublicScaling`: every row standardized by public statistics (or the
  ``bounds`` box) and scaled into the unit ball, so that each example's
  gradient has a known bound whatever the private rows are.
* :func:`sgd_noise` / :func:`sgd_privacy`: the noise of the fit, calibrated
  by RDP composition of the Poisson-subsampled Gaussian steps (Mironov,
  Talwar & Zhang 2019) and one Gaussian count, and the independent check.
* :func:`clipped_gradient_sum`, :func:`private_sgd`: Algorithm 3 of Kohen &
  Sheffet (ICML 2022, Appendix A), projected online SGD with Gaussian noise
  on each step's gradient, run on Poisson-subsampled batches with clipped
  per-example gradients (Abadi et al. 2016) in place of one draw per step.
"""

# SPDX-License-Identifier: BSD-3-Clause

import functools
import math

import numpy as np
from scipy.special import expit, softmax

from ..accounting import compose_rdp, gaussian_rdp, rdp_to_dp
from ..accounting._rdp import (
    INTEGER_RDP_ORDERS,
    _subsampled_curve,
    calibrate_noise,
    subsampled_gaussian_rdp,
)
from ._logistic_mm import clip_rows

__all__ = [
    "PublicScaling",
    "clipped_gradient_sum",
    "gradient_noise_std",
    "loss_coefficients",
    "private_sgd",
    "public_sgd",
    "sgd_noise",
    "sgd_privacy",
]

# The count of private rows (which scales each step's noisy sum to a mean)
# gets this share of the composed RDP curve, measured against the small-q
# approximation T q^2 alpha / z^2 of the steps' curve (public parameters
# only; the calibration below is exact whatever the share).
_COUNT_SHARE = 0.05
# Non-private steps of the initialization on labeled public rows.
_PUBLIC_STEPS = 200
# Relative shrinkage of the clipping bound: a clipped term's norm, computed in
# floating point, reached C (1 + 3.6e-16) (a review); at C (1 - 1e-12) it stays
# within C, the sensitivity the noise is calibrated to (as _logistic_mm's
# _ROUNDING does for its feature map).
_CLIP_ROUNDING = 1e-12


@functools.lru_cache(maxsize=256)
def sgd_noise(epsilon, delta, sampling_rate, n_steps):
    """Noise multiplier of the steps and noise of the count, from public parameters.

    The fit releases ``n_steps`` Poisson-subsampled Gaussian sums (L2
    sensitivity the clip norm ``C``, noise ``N(0, (z C)² I)``) and one count
    of the private rows (sensitivity 1, noise ``N(0, s²)``) with
    ``s = k z``, ``k = 1 / (q sqrt(2 · share · T))`` a public constant. The
    composed RDP curve (Mironov 2017, Prop. 1) ``T ρ_q(z; α) + α / (2 k² z²)``
    decreases in ``z``; :func:`~sklearn_semiprivate.accounting._rdp.calibrate_noise`
    finds the smallest ``z`` converting to ``(epsilon, delta)``. Cached: a
    pure function of public parameters.

    Parameters
    ----------
    epsilon, delta : float
        The target, add/remove neighbours.
    sampling_rate : float
        Poisson sampling probability ``q``.
    n_steps : int
        Number of steps ``T``.

    Returns
    -------
    noise_multiplier : float
        ``z``; the gradient noise has standard deviation ``z C``.
    count_sigma : float
        Standard deviation of the count's noise.

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._sgd_steps import sgd_noise, sgd_privacy
    >>> z, s = sgd_noise(1.0, 1e-5, 0.01, 500)
    >>> cost = sgd_privacy(z, s, 0.01, 500, 1e-5)
    >>> bool(0.9999 < cost.epsilon <= 1.0)
    True
    """
    orders = INTEGER_RDP_ORDERS
    factor = _count_factor(sampling_rate, n_steps)
    one_step = _subsampled_curve(float(sampling_rate), orders)

    def curve(z):
        return n_steps * one_step(z) + orders / (2.0 * (factor * z) ** 2)

    try:
        z = calibrate_noise(curve, float(epsilon), float(delta), orders=orders)
    except ValueError as refusal:
        # The floor's message asks for larger orders, which an estimator's
        # user cannot pass: say what they can change.
        raise ValueError(
            f"DP-SGD's RDP accounting cannot certify epsilon={epsilon!r} at "
            f"delta={delta!r}: raise epsilon or delta. ({refusal})"
        ) from refusal
    return z, factor * z


def _count_factor(sampling_rate, n_steps):
    return 1.0 / (sampling_rate * math.sqrt(2.0 * _COUNT_SHARE * n_steps))


def sgd_privacy(noise_multiplier, count_sigma, sampling_rate, n_steps, delta):
    """``(ε, δ)`` of the fit's releases by RDP composition: checks :func:`sgd_noise`.

    ``n_steps`` subsampled Gaussian steps (the public function
    :func:`~sklearn_semiprivate.accounting.subsampled_gaussian_rdp`) and one
    Gaussian count (:func:`~sklearn_semiprivate.accounting.gaussian_rdp`),
    composed and converted at ``delta``. Add/remove neighbours.

    Parameters
    ----------
    noise_multiplier : float
        ``z`` of the steps.
    count_sigma : float
        Noise of the count.
    sampling_rate : float
        ``q``.
    n_steps : int
        ``T``.
    delta : float
        Target ``δ``.

    Returns
    -------
    cost : PrivacyCost
    """
    orders = INTEGER_RDP_ORDERS
    steps = n_steps * subsampled_gaussian_rdp(
        sampling_rate, noise_multiplier, orders=orders
    )
    count = gaussian_rdp(count_sigma, orders=orders)
    return rdp_to_dp(compose_rdp([steps, count]), delta, orders=orders)


class PublicScaling:
    """``x -> [z(x), 1]`` with ``||z(x)|| <= 1``, from public inputs only.

    ``z`` standardizes by a public centre and scale, divides by a public
    radius and is scaled into the unit ball (:func:`clip_rows`, safe for any
    float row), so every row, private or not, has ``||x̃||² <= 2`` with the
    intercept column (``<= 1`` without it), up to floating-point rounding
    (2 + 5e-16 was seen): no sensitivity rests on this bound, the gradients
    are clipped (:func:`clipped_gradient_sum`).

    Parameters
    ----------
    center, scale : ndarray of shape (n_features,)
        Public standardization (``scale > 0``).
    radius : float
        Public radius ``> 0`` of the standardized rows.
    fit_intercept : bool
        Whether to append the constant column.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._sgd_steps import PublicScaling
    >>> scaling = PublicScaling(np.zeros(2), np.ones(2), 1.0, True)
    >>> scaling.transform(np.array([[3.0, 4.0]])).tolist()
    [[0.6, 0.8, 1.0]]
    """

    # Quantile of the public rows' standardized norms used as the radius;
    # rows beyond it are scaled onto it.
    ROW_QUANTILE = 0.5

    def __init__(self, center, scale, radius, fit_intercept):
        self.center = center
        self.scale = scale
        self.radius = float(radius)
        self.fit_intercept = bool(fit_intercept)

    @classmethod
    def from_public(cls, X_public, fit_intercept):
        """Mean, standard deviation and a norm quantile of public rows."""
        with np.errstate(all="ignore"):  # public values: overflow is harmless
            center = np.nan_to_num(X_public.mean(axis=0), posinf=0.0, neginf=0.0)
            sd = X_public.std(axis=0)
            scale = np.where((sd > 0) & np.isfinite(sd), sd, 1.0)
            Z = np.nan_to_num(np.clip(X_public - center, -1e100, 1e100)) / scale
        norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
        radius = float(np.quantile(norms, cls.ROW_QUANTILE))
        ok = np.isfinite(radius) and radius > 0
        return cls(center, scale, radius if ok else 1.0, fit_intercept)

    @classmethod
    def from_bounds(cls, box, fit_intercept):
        """Centre and half-width of a domain box; radius ``sqrt(n_features)``
        reaches its corners."""
        center = box.mean(axis=1)
        scale = (box[:, 1] - box[:, 0]) / 2.0
        return cls(center, scale, math.sqrt(box.shape[0]), fit_intercept)

    def transform(self, X):
        """``x̃``, of shape ``(n_samples, n_features + fit_intercept)``."""
        with np.errstate(all="ignore"):  # overflow to inf is clipped below
            Z = clip_rows((X - self.center) / self.scale / self.radius)
        if self.fit_intercept:
            return np.column_stack([Z, np.ones(Z.shape[0])])
        return Z


def loss_coefficients(S, codes, loss, n_classes):
    """Per-example ``a_i`` with gradient ``∇ℓ_i = x̃_i a_iᵀ``; shape ``(n, n_out)``.

    * binary log-loss: ``a = sigmoid(s) - y``, ``|a| <= 1``;
    * multinomial log-loss: ``a = softmax(s) - e_y``, ``||a|| <= sqrt(2)``;
    * binary hinge: ``a = -t 1[t s < 1]``, ``t = ±1``, ``|a| <= 1``;
    * one-vs-rest hinge: the same per class, ``||a|| <= sqrt(K)``; the ``K``
      binary problems share each step's clipping and noise, so the budget is
      that of one mechanism, not ``K``.

    Parameters
    ----------
    S : ndarray of shape (n, n_out)
        Scores ``x̃ W``.
    codes : ndarray of shape (n,)
        Label indices in ``0 .. n_classes - 1``.
    loss : {"log_loss", "hinge"}
    n_classes : int

    Returns
    -------
    A : ndarray of shape (n, n_out)
    """
    n = S.shape[0]
    if n_classes == 2:
        y = codes.astype(np.float64)[:, None]
        if loss == "log_loss":
            return expit(S) - y
        t = 2.0 * y - 1.0
        return -t * (t * S < 1.0)
    onehot = np.zeros((n, n_classes))
    onehot[np.arange(n), codes] = 1.0
    if loss == "log_loss":
        return softmax(S, axis=1) - onehot
    t = 2.0 * onehot - 1.0
    return -t * (t * S < 1.0)


def clipped_gradient_sum(Xt, A, clip_norm):
    """``Σ_i min(1, C / ||∇ℓ_i||) ∇ℓ_i`` with ``∇ℓ_i = x̃_i a_iᵀ``.

    ``||x̃ aᵀ||_F = ||x̃|| ||a||``, so the per-example norms and the sum are
    matrix products on the batch; no per-example gradient is materialized.
    Each clipped term has Frobenius norm ``<= C``: adding or removing one
    example moves the sum by at most ``C`` (the L2 sensitivity).

    Parameters
    ----------
    Xt : ndarray of shape (m, p)
        The batch's rows ``x̃``.
    A : ndarray of shape (m, n_out)
        Their :func:`loss_coefficients`.
    clip_norm : float
        ``C > 0``.

    Returns
    -------
    G : ndarray of shape (p, n_out)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._sgd_steps import clipped_gradient_sum
    >>> clipped_gradient_sum(np.array([[3.0, 4.0]]), np.array([[2.0]]), 1.0).ravel()
    array([0.6, 0.8])
    """
    norms = np.sqrt(np.einsum("ij,ij->i", Xt, Xt) * np.einsum("ij,ij->i", A, A))
    factors = clip_norm * (1.0 - _CLIP_ROUNDING) / np.maximum(norms, clip_norm)
    return Xt.T @ (A * factors[:, None])


def gradient_noise_std(noise_multiplier, clip_norm):
    """Standard deviation of each step's noise: ``z C`` (sensitivity ``C``)."""
    return noise_multiplier * clip_norm


def project(W, radius):
    """Euclidean projection onto ``{W : ||W||_F <= radius}`` (Alg. 3's ``Π_H``)."""
    norm = math.sqrt(float(np.sum(W * W)))
    return W if norm <= radius else W * (radius / norm)


def _step_sizes(n_steps, learning_rate, radius, gradient_bound):
    """``η_r = η₀ / sqrt(r)``; ``"auto"``: ``η₀ = D / G`` (Alg. 3, Thm. A.1).

    ``D = 2 radius`` is the diameter of the ball and ``G`` bounds the root
    mean square of the noisy gradient (``E||∇ + v||² <= L² + σ² d`` in the
    proof of Theorem A.1).
    """
    eta0 = (2.0 * radius / gradient_bound) if learning_rate == "auto" else learning_rate
    return eta0 / np.sqrt(np.arange(1, n_steps + 1, dtype=np.float64))


def private_sgd(
    Xt,
    codes,
    W0,
    *,
    loss,
    n_classes,
    sampling_rate,
    n_steps,
    clip_norm,
    noise_multiplier,
    n_rows,
    learning_rate,
    radius,
    rng,
    public=None,
):
    """Projected noisy SGD on Poisson-subsampled batches; the averaged iterate.

    Step ``r`` (Alg. 3 of Kohen & Sheffet, one batch in place of one example):
    the batch keeps each private row with probability ``q`` (drawn from the
    secret ``rng``: the amplification needs it hidden); the clipped gradient
    sum (sensitivity ``C``) gets ``N(0, (z C)² I)`` noise, which is the only
    private release of the step; divided by the expected batch size
    ``max(q n̂, 1)`` (``n̂`` the released count) it drives
    ``W ← Π(W − η_r g)``. The iterate a step reads depends on private rows only
    through earlier releases (adaptive composition). The average of the
    iterates after each step is returned (post-processing).

    Parameters
    ----------
    Xt : ndarray of shape (n, p)
        Scaled private rows (:class:`PublicScaling`), ``||x̃||² <= 2``.
    codes : ndarray of shape (n,)
        Private label indices.
    W0 : ndarray of shape (p, n_out)
        Public initialization.
    loss, n_classes, sampling_rate, n_steps, clip_norm, noise_multiplier : \
            see :class:`PrivateSGDClassifier` and :func:`sgd_noise`.
    n_rows : float
        Released (noisy) count of private rows.
    learning_rate : "auto" or float
    radius : float
        Radius of the ball ``H``.
    rng : numpy.random.Generator
        Privacy randomness (fresh entropy): the batches and the noise.
    public : tuple (Xt_pub, codes_pub) or None
        Labeled public rows (scaled like ``Xt``): every step adds ``q`` times
        their exact clipped gradient sum (the expected sum of a Poisson batch
        of them) to the noisy private sum, and ``q`` times their number to the
        batch size. Free: no private row is involved.

    Returns
    -------
    W : ndarray of shape (p, n_out)
    """
    n = Xt.shape[0]
    n_pub = 0 if public is None else public[0].shape[0]
    batch = max(sampling_rate * (n_rows + n_pub), 1.0)
    sd = gradient_noise_std(noise_multiplier, clip_norm)
    # sqrt(E||g||^2) <= sqrt(C^2 + (sd / batch)^2 p n_out): Theorem A.1's G.
    bound = math.sqrt(clip_norm**2 + (sd / batch) ** 2 * W0.size)
    etas = _step_sizes(n_steps, learning_rate, radius, bound)
    W = W0.copy()
    total = np.zeros_like(W0)
    for eta in etas:
        # Poisson subsampling: size ~ Binomial(n, q), then a uniform subset
        # of that size (the same law as independent coins per row).
        size = rng.binomial(n, sampling_rate)
        idx = rng.choice(n, size=size, replace=False, shuffle=False)
        Xb = Xt[idx]
        A = loss_coefficients(Xb @ W, codes[idx], loss, n_classes)
        # The release: sensitivity C (clipped_gradient_sum), noise z C.
        noisy = clipped_gradient_sum(Xb, A, clip_norm) + rng.normal(
            0.0, sd, size=W.shape
        )
        if n_pub:
            A_pub = loss_coefficients(public[0] @ W, public[1], loss, n_classes)
            noisy += sampling_rate * clipped_gradient_sum(public[0], A_pub, clip_norm)
        W = project(W - eta * noisy / batch, radius)
        total += W
    return total / n_steps


def public_sgd(Xt, codes, W0, *, loss, n_classes, radius):
    """Non-private projected gradient descent on labeled public rows (free).

    Full-batch mean gradients, ``η_r = D / (G sqrt(r))`` with
    ``G = sqrt(2) max ||a||``, the averaged iterate: an initialization of
    the private steps from public data only.
    """
    a_bound = math.sqrt(n_classes) if n_classes > 2 else 1.0
    etas = _step_sizes(_PUBLIC_STEPS, "auto", radius, math.sqrt(2.0) * a_bound)
    W = W0.copy()
    total = np.zeros_like(W0)
    for eta in etas:
        A = loss_coefficients(Xt @ W, codes, loss, n_classes)
        W = project(W - eta * (Xt.T @ A) / Xt.shape[0], radius)
        total += W
    return total / _PUBLIC_STEPS
