"""SemiPrivateLogisticRegression: multinomial logistic regression by noisy MM steps.

The private rows are read through a few Gaussian releases of sufficient
statistics and gradients, every one with a stated L2 sensitivity, composed in
Rényi DP (Mironov 2017) and converted to ``(epsilon, delta)``:

1. the class counts (the intercept's start);
2. the Gram matrix ``Σ φ(x) φ(x)ᵀ`` of the clipped, public-standardized rows,
   which fixes Böhning's quadratic bound on the multinomial log-loss
   (Böhning 1992, Lemma: ``∇²ℓ ≼ ½ (I − 11ᵀ/K) ⊗ φφᵀ``), so that
3. ``n_steps`` noisy gradients of the log-loss each drive one
   majorize-minimize (MM) step ``W ← W − (G/2 + λI)⁻¹ (g + λW)``.

Public data sets the geometry for free: the centre, the per-feature scale and
the clipping radius. Nothing else is read off the private rows.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
from numbers import Integral, Real

import numpy as np
from scipy.special import log_softmax, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..accounting import (
    PrivacyAccountant,
    PrivacyCost,
    compose_rdp,
    gaussian_rdp,
    rdp_gaussian_sigma,
    rdp_to_dp,
)
from ..accounting._reservation import reserve_budget
from ..utils._rng import noise_rng, spawn_rngs
from ..utils._sklearn_compat import Interval, _fit_context, validate_data
from ._base import (
    check_bounds,
    check_private_labels,
    infer_bounds_with_leak,
    prepare_fit_data,
    warn_no_public_data,
)

__all__ = ["SemiPrivateLogisticRegression"]

# Shares of the privacy budget (of the composed RDP curve, which is linear in
# the order for Gaussian releases): class counts, Gram matrix, and the rest
# split evenly over the gradient steps. Chosen on wa_churn, mlc_churn,
# diamonds, CPSSW8 and digits (benchmarks/results/logistic_candidates.md):
# Gram shares 0.1 and 0.2 were within noise of each other.
_COUNT_SHARE = 0.05
_GRAM_SHARE = 0.2
# Add/remove sensitivities (L2). Every row phi(x) = [z, 1] has ||z|| <= 1
# after clipping, so ||phi||^2 <= 2:
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
    >>> from sklearn_semiprivate.classifiers._logistic import (
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

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)

    Returns
    -------
    Z_clipped : ndarray of shape (n_samples, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._logistic import clip_rows
    >>> clip_rows(np.array([[3.0, 4.0], [0.3, 0.4]])).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    norms = np.linalg.norm(Z, axis=1)
    return Z / np.maximum(norms, 1.0)[:, None]


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


class SemiPrivateLogisticRegression(ClassifierMixin, BaseEstimator):
    """Multinomial logistic regression, DP for the private rows; geometry public.

    Public rows (unlabeled) give the centre, per-feature scale and clipping
    radius of the features. The private rows are then read only through
    Gaussian releases: the class counts, the Gram matrix of the clipped rows
    and ``n_steps`` gradients of the log-loss, each driving one
    majorize-minimize step on Böhning's quadratic bound. Noise-free, the
    steps converge to (ridge-regularized) logistic regression.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy target ``> 0`` for the whole fit.
    delta : float, default=1e-5
        Privacy target in ``(0, 1)``.
    n_steps : int, default=3
        Number of noisy gradient (MM) steps. More steps converge further
        but split the budget more ways.
    clip_quantile : float, default=0.9
        The clipping radius is this quantile of the public rows' norms after
        public standardization; private rows beyond it are scaled onto it.
    n_public : int, float or None, default=None
        How many public rows to use: ``None`` for all, an int for that many,
        a float in ``(0, 1]`` for that fraction (a prefix of one seeded
        permutation).
    classes : array-like of shape (n_classes,), default=None
        Every possible label. If None, taken from the public labels, else
        from the private ``y`` with a
        :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    bounds : array-like of shape (2,) or (n_features, 2), default=None
        Domain box, used without public data: centre and scale from the box,
        clipping radius ``sqrt(n_features)``. If None and there is no public
        data, a :class:`~sklearn_semiprivate.PublicDataWarning` is emitted
        and the bounds are read from the private ``X`` with a
        :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    accountant : PrivacyAccountant, default=None
        Ledger charged ``(epsilon, delta)`` per fit, atomically, before the
        first private read; shared, not copied, by :func:`~sklearn.base.clone`.
    random_state : int, RandomState instance or None, default=None
        Seeds the public subsample (``n_public``) only. The noise never comes
        from it: it is fresh OS entropy on every fit (see
        :func:`~sklearn_semiprivate.reproducible_noise` for tests and docs).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The label set.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Coefficients on the original features (one row for two classes, as
        in scikit-learn's :class:`~sklearn.linear_model.LogisticRegression`).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names, when ``X`` has string column names.
    center_, scale_ : ndarray of shape (n_features_in_,)
        Public standardization: ``z = (x - center_) / scale_``.
    clip_norm_ : float
        Clipping radius of the standardized rows (public).
    noise_scales_ : dict
        Standard deviation of the noise of every release (from the
        parameters only): ``"counts"``, ``"gram"`` and ``"gradient"`` (one
        per step).
    privacy_spent_ : PrivacyCost
        ``(epsilon, delta)``, for add/remove neighbours.

    See Also
    --------
    SemiPrivateClassifier : one private selection over a cover built from
        public points.

    Notes
    -----
    **Privacy.** The fit is ``(epsilon, delta)``-DP with respect to the
    private ``(X, y)`` for add/remove neighbours. Every row is standardized
    with public statistics and scaled into the unit ball, then ``φ(x) =
    [z, 1]`` has ``||φ||² <= 2``. The releases and their L2 sensitivities:
    class counts 1; the upper triangle of ``Σ φφᵀ``, ``||φφᵀ||_F <= 2``;
    each gradient ``Σ (p(x) − e_y) φ(x)ᵀ``, ``||p − e_y|| ||φ|| <= 2``. The
    model a gradient is evaluated at depends on the private rows only
    through earlier releases (adaptive composition). Gaussian noise is
    calibrated so that the composed RDP curve converts to ``(epsilon,
    delta)`` (:func:`release_scales`, checked by :func:`release_privacy`).
    For replace-one neighbours every sensitivity at most doubles:
    ``release_privacy(noise_scales_, delta, neighbours="replace-one")``
    gives that guarantee. Not protected: the public data, ``classes``,
    ``bounds`` and the hyper-parameters.

    **Public data.** Only its geometry is used (mean, standard deviation,
    a norm quantile), so public rows from a shifted population cost little
    accuracy: the Gram matrix that shapes each step is private, not public.
    Public labels, when given, add their exact counts, Gram and gradients to
    the private ones (free).

    **Utility.** Noise-free the iteration is Böhning's MM algorithm for
    ridge-regularized multinomial logistic regression (ridge proportional to
    the gradient noise), a monotone descent method; with few steps it stops
    short of the optimum on hard multiclass problems. A linear model: it
    cannot learn interactions the features do not encode.

    References
    ----------
    D. Böhning. Multinomial logistic regression algorithm. Annals of the
    Institute of Statistical Mathematics 44, 1992.

    I. Mironov. Rényi Differential Privacy. CSF 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PublicData, SemiPrivateLogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X, X_test = rng.normal(size=(5000, 3)), rng.normal(size=(1000, 3))
    >>> y, y_test = (X[:, 0] - X[:, 1] > 0).astype(int), X_test[:, 0] > X_test[:, 1]
    >>> X_pub = rng.normal(size=(200, 3))  # public, unlabeled
    >>> clf = SemiPrivateLogisticRegression(epsilon=1.0, classes=[0, 1])
    >>> clf = clf.fit(X, y, X_public=PublicData(X_pub))
    >>> clf.privacy_spent_
    PrivacyCost(epsilon=1.0, delta=1e-05)
    >>> bool(clf.score(X_test, y_test.astype(int)) > 0.95)
    True
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}

    _parameter_constraints = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "n_steps": [Interval(Integral, 1, None, closed="left")],
        "clip_quantile": [Interval(Real, 0, 1, closed="right")],
        "n_public": [
            None,
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="right"),
        ],
        "classes": ["array-like", None],
        "bounds": ["array-like", None],
        "accountant": [PrivacyAccountant, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=1e-5,
        n_steps=3,
        clip_quantile=0.9,
        n_public=None,
        classes=None,
        bounds=None,
        accountant=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.n_steps = n_steps
        self.clip_quantile = clip_quantile
        self.n_public = n_public
        self.classes = classes
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, X_public=None, y_public=None):
        """Fit on private ``(X, y)``, with public rows for the geometry.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows (protected).
        y : array-like of shape (n_samples,)
            Private labels (protected).
        X_public : PublicData or array-like of shape (n_public, n_features), \
                default=None
            Public rows, preferably wrapped in
            :class:`~sklearn_semiprivate.PublicData`. None: the geometry
            comes from ``bounds``.
        y_public : array-like of shape (n_public,), default=None
            Public labels when ``X_public`` is a raw array.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        (rng_public,) = spawn_rngs(self.random_state, 1)
        data = prepare_fit_data(
            self,
            X,
            y,
            X_public,
            y_public,
            classes=self.classes,
            n_public=self.n_public,
            rng=rng_public,
        )
        if data.X_public is None and self.bounds is None:
            warn_no_public_data(self)
        scales = release_scales(
            float(self.epsilon), float(self.delta), int(self.n_steps)
        )
        geometry = self._public_geometry(data, allow_leak=False)
        # Reserved atomically before the first private read; a fit that fails
        # afterwards stays charged.
        reserve_budget(self.accountant, self._privacy_cost(), self)
        check_private_labels(data.y, data.classes)
        if geometry is None:
            geometry = self._public_geometry(data, allow_leak=True)
        self.center_, self.scale_, self.clip_norm_ = geometry
        self.classes_ = data.classes
        self.noise_scales_ = scales
        W = self._noisy_mm(data, scales, noise_rng(self.random_state))
        self.privacy_spent_ = self._privacy_cost()
        # Post-processing: back to the original features.
        A = W[:-1] / (self.scale_ * self.clip_norm_)[:, None]
        b = W[-1] - self.center_ @ A
        if self.classes_.size == 2:
            A, b = A[:, 1:] - A[:, :1], b[1:] - b[:1]
        self.coef_ = np.ascontiguousarray(A.T)
        self.intercept_ = b
        return self

    def _features(self, X):
        """``φ(x) = [clip((x - centre) / scale / radius), 1]``: public maps only."""
        Z = clip_rows((X - self.center_) / self.scale_ / self.clip_norm_)
        return np.column_stack([Z, np.ones(X.shape[0])])

    def _noisy_mm(self, data, scales, rng):
        """The releases and the MM steps; returns ``W`` of shape (q, K)."""
        K = self.classes_.size
        codes = np.searchsorted(self.classes_, data.y)
        P = self._features(data.X)
        q = P.shape[1]
        Y = np.zeros((P.shape[0], K))
        Y[np.arange(P.shape[0]), codes] = 1.0
        # Release 1: class counts, L2 sensitivity 1 (add/remove).
        counts = Y.sum(axis=0) + rng.normal(0.0, scales["counts"], size=K)
        # Release 2: Gram matrix, L2 sensitivity ||phi||^2 <= 2.
        G = P.T @ P + _symmetric_noise(q, scales["gram"], rng)
        exact = self._public_statistics(data, K)
        if exact is not None:
            P_pub, Y_pub = exact
            counts += Y_pub.sum(axis=0)
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

    def _public_statistics(self, data, n_classes):
        """Features and one-hot labels of the labeled public rows, or None."""
        if data.y_public is None:
            return None
        P_pub = self._features(data.X_public)
        Y_pub = np.zeros((P_pub.shape[0], n_classes))
        Y_pub[
            np.arange(P_pub.shape[0]), np.searchsorted(self.classes_, data.y_public)
        ] = 1
        return P_pub, Y_pub

    def _public_geometry(self, data, *, allow_leak):
        """``(centre, scale, radius)`` from public rows or ``bounds``.

        Without either, None (``allow_leak=False``) or from the private rows'
        range with a :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
        """
        n_features = data.X.shape[1]
        if data.X_public is not None:
            Xp = data.X_public
            center = Xp.mean(axis=0)
            sd = Xp.std(axis=0)
            scale = np.where(sd > 0, sd, 1.0)
            norms = np.linalg.norm((Xp - center) / scale, axis=1)
            radius = float(np.quantile(norms, self.clip_quantile))
            return center, scale, radius if radius > 0 else 1.0
        if self.bounds is not None:
            box = check_bounds(self.bounds, n_features)
        elif allow_leak:
            box = infer_bounds_with_leak(data.X)
        else:
            return None
        center = box.mean(axis=1)
        scale = (box[:, 1] - box[:, 0]) / 2.0
        return center, scale, math.sqrt(n_features)

    def _privacy_cost(self, **fit_params):
        """What ``fit`` reserves, from the parameters alone: ``(ε, δ)``."""
        return PrivacyCost(float(self.epsilon), float(self.delta))

    def decision_function(self, X):
        """Logits (one column, the second class's, for two classes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        scores = X @ self.coef_.T + self.intercept_
        return scores.ravel() if self.classes_.size == 2 else scores

    def predict_log_proba(self, X):
        """Log class probabilities, in the layout of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            scores = np.column_stack([np.zeros_like(scores), scores])
        return log_softmax(scores, axis=1)

    def predict_proba(self, X):
        """Class probabilities, in the layout of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """Predict labels (deterministic post-processing, no noise).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to label.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
