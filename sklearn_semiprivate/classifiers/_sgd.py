"""PrivateSGDClassifier: a linear classifier trained by differentially private SGD.

Algorithm 3 of Kohen & Sheffet (*Transfer Learning in Differential Privacy's
Hybrid-Model*, ICML 2022, Appendix A): projected online SGD over a ball, with
Gaussian noise added to each step's gradient, the Lipschitz constant enforced
by clipping every example's gradient, and the averaged iterate returned. Each
step reads a Poisson-subsampled batch (Abadi et al. 2016) and the fit is
accounted in Rényi DP of the subsampled Gaussian (Mironov, Talwar & Zhang
2019), converted to ``(epsilon, delta)``. The mechanisms live in
``_sgd_steps.py``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
from numbers import Integral, Real

import numpy as np
from scipy.special import expit, log_softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..accounting import PrivacyAccountant, PrivacyCost
from ..accounting._reservation import replace_one_cost, reserve_budget
from ..utils._rng import noise_rng, spawn_rngs
from ..utils._sklearn_compat import (
    Interval,
    StrOptions,
    _fit_context,
    validate_data,
)
from ._base import check_private_labels, prepare_fit_data, warn_no_public_data
from ._bounds import domain_box
from ._sgd_steps import (
    PublicScaling,
    private_sgd,
    public_sgd,
    sgd_noise,
    sgd_privacy,
)

__all__ = ["PrivateSGDClassifier"]


def _has_log_loss(estimator):
    return estimator.loss == "log_loss"


class PrivateSGDClassifier(ClassifierMixin, BaseEstimator):
    """Linear classifier by DP-SGD: clipped gradients, Gaussian noise, projection.

    Every row is scaled into the unit ball by public statistics (public rows,
    or the ``bounds`` box). Each of ``ceil(n_epochs / sampling_rate)`` steps
    keeps each private row with probability ``sampling_rate`` (Poisson
    sampling), clips each kept example's gradient to ``clip_norm``, adds
    Gaussian noise to their sum, and takes a projected step inside the ball
    of radius ``radius``; the averaged iterate is the model (Algorithm 3 of
    Kohen & Sheffet 2022). The noise is calibrated so that the whole fit is
    ``(epsilon, delta)``-DP. Labeled public rows, when given, initialize the
    weights (non-private gradient descent on them, free).

    Parameters
    ----------
    loss : {"log_loss", "hinge"}, default="log_loss"
        ``"log_loss"``: logistic regression (multinomial for more than two
        classes). ``"hinge"``: a linear SVM (one-vs-rest for more than two
        classes, the classes sharing each step's clipping and noise).
    epsilon : float, default=1.0
        Privacy target ``> 0`` for the whole fit.
    delta : float, default=1e-5
        Privacy target in ``(0, 1)``.
    n_epochs : float, default=10.0
        Expected number of passes over the private rows: the number of steps
        is ``ceil(n_epochs / sampling_rate)``. The defaults of ``n_epochs``
        and ``radius`` were chosen on seven tables held out of the accuracy
        benchmark (``benchmarks/tune_logistic.py --estimator sgd``,
        ``benchmarks/results/sgd_tuning.md``).
    sampling_rate : float, default=0.01
        Probability ``q`` in ``(0, 1]`` that a private row is in a step's
        batch. The expected batch size is ``q n``; ``q`` is a parameter, not
        derived from ``n``, so the cost does not depend on the private data.
    learning_rate : "auto" or float, default="auto"
        Step ``r`` has size ``η₀ / sqrt(r)``. ``"auto"``: ``η₀ = D / G`` with
        ``D = 2 radius`` and ``G`` the bound on the noisy gradient's root mean
        square (Theorem A.1 of Kohen & Sheffet).
    clip_norm : float, default=1.0
        Every example's gradient is scaled to at most this L2 (Frobenius)
        norm: the Lipschitz bound ``L`` of Algorithm 3 and the sensitivity of
        each step's sum. Scaled rows have ``||x̃||² <= 2``, so the gradients
        are at most ``sqrt(2)`` (binary), 2 (multinomial) or ``sqrt(2 K)``
        (one-vs-rest hinge over ``K`` classes) before clipping.
    radius : float, default=20.0
        Radius of the ball ``{W : ||W||_F <= radius}`` the weights are
        projected onto (the convex set ``H`` of diameter ``D = 2 radius``).
    fit_intercept : bool, default=True
        Whether to add a constant feature (its weight is the intercept).
    n_public : int, float or None, default=None
        How many public rows to use: ``None`` for all, an int for that many,
        a float in ``(0, 1]`` for that fraction (a prefix of one seeded
        permutation).
    classes : array-like of shape (n_classes,), default=None
        Every possible label. If None, taken from the public labels, else
        from the private ``y`` with a
        :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    bounds : array-like of shape (2,) or (n_features, 2), default=None
        Domain box, used without public data for the scaling. If None and
        there is no public data, a
        :class:`~sklearn_semiprivate.PublicDataWarning` is emitted and the
        box is read from the private ``X`` with a
        :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    accountant : PrivacyAccountant, default=None
        Ledger charged ``(epsilon, delta)`` per fit, atomically, before the
        first private read; shared, not copied, by :func:`~sklearn.base.clone`.
    random_state : int, RandomState instance or None, default=None
        Seeds the public subsample (``n_public``) only. The batches and the
        noise never come from it: they are fresh OS entropy on every fit (see
        :func:`~sklearn_semiprivate.reproducible_noise` for tests and docs).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The label set.
    coef_ : ndarray of shape (1, ``n_features_in_``) or (n_classes, ``n_features_in_``)
        Weights on the scaled features ``z(x)`` (see ``center_``, ``scale_``,
        ``row_radius_``).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Weights of the constant feature (zeros without ``fit_intercept``).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` has string column names.
    center_, scale_ : ndarray of shape (``n_features_in_``,)
        Public standardization.
    row_radius_ : float
        Public radius: ``z(x)`` is ``(x - center_) / scale_ / row_radius_``
        scaled into the unit ball.
    n_steps_ : int
        Number of noisy steps, ``ceil(n_epochs / sampling_rate)``.
    sampling_rate_ : float
        The sampling rate of the fit (what :meth:`privacy_check` uses).
    noise_multiplier_ : float
        ``z``: each step's noise has standard deviation ``z * clip_norm``.
    count_noise_ : float
        Standard deviation of the noise of the released row count.
    privacy_spent_ : PrivacyCost
        ``(epsilon, delta)``, for add/remove neighbours.
    replace_one_privacy_ : PrivacyCost
        ``(2 epsilon, (1 + e^epsilon) delta)``: the guarantee for replace-one
        neighbours (group privacy of two add/remove steps), to size a
        replace-one budget with.

    See Also
    --------
    SemiPrivateLogisticRegression : the estimator to try first on a table
        (DP-SGD on a feature map built from the public rows).

    Notes
    -----
    **Privacy.** The fit is ``(epsilon, delta)``-DP with respect to the
    private ``(X, y)`` for **add/remove** neighbours (one row added or
    removed); the subsampled-Gaussian analysis does not cover replace-one,
    for which the guarantee is that of two add/remove steps (group privacy).
    The releases: one count of the private rows (sensitivity 1, Gaussian
    noise ``count_noise_``), then each step's sum of clipped per-example
    gradients over a Poisson-subsampled batch (sensitivity ``clip_norm``,
    Gaussian noise ``noise_multiplier_ * clip_norm``). Their RDP curves at
    integer orders (Mironov, Talwar & Zhang 2019, Sec. 3.3, for the steps;
    Mironov 2017, Prop. 7, for the count) add up (Prop. 1) and convert to
    ``(epsilon, delta)`` (Canonne, Kamath & Steinke 2020, Prop. 12); the
    noise multiplier is the smallest for which they do. The batches are
    drawn from the secret noise generator (the amplification needs them
    hidden). Not protected: the public data, ``classes``, ``bounds`` and
    the hyper-parameters.

    **Public data.** Unlabeled public rows give the scaling (mean, standard
    deviation, median norm); labeled ones also give the starting weights.
    Nothing else is read from the private rows.

    **Differences from Algorithm 3.** Mini-batches drawn by Poisson sampling
    instead of one draw per step, with clipping in place of an assumed
    Lipschitz constant; RDP accounting instead of the paper's tCDP
    (Theorem A.3's amplification needs ``ρ <= 0.1`` and a small sampling
    rate, and is looser); the average of the iterates after each step (the
    paper averages ``h_1 .. h_R``, the start included).

    References
    ----------
    D. Kohen, O. Sheffet. Transfer Learning in Differential Privacy's
    Hybrid-Model. ICML 2022 (Algorithm 3, Appendix A).

    M. Abadi et al. Deep Learning with Differential Privacy. CCS 2016.

    I. Mironov, K. Talwar, L. Zhang. Rényi Differential Privacy of the
    Sampled Gaussian Mechanism. arXiv:1908.10530, 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PrivateSGDClassifier, PublicData
    >>> rng = np.random.default_rng(0)
    >>> X, X_test = rng.normal(size=(5000, 3)), rng.normal(size=(1000, 3))
    >>> y, y_test = (X[:, 0] - X[:, 1] > 0).astype(int), X_test[:, 0] > X_test[:, 1]
    >>> X_pub = rng.normal(size=(200, 3))  # public, unlabeled
    >>> clf = PrivateSGDClassifier(epsilon=1.0, classes=[0, 1], random_state=0)
    >>> clf = clf.fit(X, y, X_public=PublicData(X_pub))
    >>> clf.privacy_spent_
    PrivacyCost(epsilon=1.0, delta=1e-05)
    >>> bool(clf.score(X_test, y_test.astype(int)) > 0.9)
    True
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}

    _parameter_constraints = {
        "loss": [StrOptions({"log_loss", "hinge"})],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "n_epochs": [Interval(Real, 0, None, closed="neither")],
        "sampling_rate": [Interval(Real, 0, 1, closed="right")],
        "learning_rate": [
            StrOptions({"auto"}),
            Interval(Real, 0, None, closed="neither"),
        ],
        "clip_norm": [Interval(Real, 0, None, closed="neither")],
        "radius": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
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
        loss="log_loss",
        epsilon=1.0,
        delta=1e-5,
        n_epochs=10.0,
        sampling_rate=0.01,
        learning_rate="auto",
        clip_norm=1.0,
        radius=20.0,
        fit_intercept=True,
        n_public=None,
        classes=None,
        bounds=None,
        accountant=None,
        random_state=None,
    ):
        self.loss = loss
        self.epsilon = epsilon
        self.delta = delta
        self.n_epochs = n_epochs
        self.sampling_rate = sampling_rate
        self.learning_rate = learning_rate
        self.clip_norm = clip_norm
        self.radius = radius
        self.fit_intercept = fit_intercept
        self.n_public = n_public
        self.classes = classes
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, X_public=None, y_public=None):
        """Fit on private ``(X, y)``, with public rows for scaling and start.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows (protected).
        y : array-like of shape (n_samples,)
            Private labels (protected).
        X_public : PublicData or array-like of shape (n_public, n_features), \
                default=None
            Public rows, preferably wrapped in
            :class:`~sklearn_semiprivate.PublicData`. None: the scaling comes
            from ``bounds``.
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
        n_steps = self._n_steps()
        # Calibrated from public parameters only, before any private read.
        z, count_sigma = sgd_noise(
            float(self.epsilon), float(self.delta), float(self.sampling_rate), n_steps
        )
        box = domain_box(self.bounds, data, allow_leak=False)
        # Reserved atomically before the first private read; a fit that fails
        # afterwards stays charged.
        reserve_budget(self.accountant, self._privacy_cost(), self)
        check_private_labels(data.y, data.classes)
        if data.X_public is None and box is None:
            box = domain_box(self.bounds, data, allow_leak=True)
        classes = data.classes
        if data.X_public is not None:
            scaling = PublicScaling.from_public(data.X_public, self.fit_intercept)
        else:
            scaling = PublicScaling.from_bounds(box, self.fit_intercept)
        n_out = 1 if classes.size == 2 else classes.size
        n_params = data.X.shape[1] + int(self.fit_intercept)
        W0 = np.zeros((n_params, n_out))
        if data.y_public is not None:
            # Labeled public rows: a non-private start (free).
            W0 = public_sgd(
                scaling.transform(data.X_public),
                np.searchsorted(classes, data.y_public),
                W0,
                loss=self.loss,
                n_classes=classes.size,
                radius=float(self.radius),
            )
        rng = noise_rng(self.random_state)
        # Release 1: the row count, sensitivity 1 (add/remove).
        n_rows = data.X.shape[0] + rng.normal(0.0, count_sigma)
        W = private_sgd(
            scaling.transform(data.X),
            np.searchsorted(classes, data.y),
            W0,
            loss=self.loss,
            n_classes=classes.size,
            sampling_rate=float(self.sampling_rate),
            n_steps=n_steps,
            clip_norm=float(self.clip_norm),
            noise_multiplier=z,
            n_rows=n_rows,
            learning_rate=self.learning_rate,
            radius=float(self.radius),
            rng=rng,
        )
        self.classes_ = classes
        self._scaling = scaling
        d = data.X.shape[1]
        self.coef_ = W[:d].T.copy()
        self.intercept_ = W[d].copy() if self.fit_intercept else np.zeros(n_out)
        self.center_, self.scale_ = scaling.center, scaling.scale
        self.row_radius_ = scaling.radius
        self.n_steps_ = n_steps
        self.sampling_rate_ = float(self.sampling_rate)
        self.noise_multiplier_ = z
        self.count_noise_ = count_sigma
        self.privacy_spent_ = self._privacy_cost()
        self.replace_one_privacy_ = replace_one_cost(self.privacy_spent_)
        return self

    def _n_steps(self):
        """``ceil(n_epochs / sampling_rate)``: a positive, finite count, or a
        ValueError (public parameters, before any charge)."""
        ratio = float(self.n_epochs) / float(self.sampling_rate)
        if not math.isfinite(ratio) or ratio > 1e9:
            raise ValueError(
                f"n_epochs / sampling_rate = {ratio:g} steps: too many to run "
                "(at most 1e9)."
            )
        n_steps = math.ceil(ratio - 1e-9)
        if n_steps < 1:
            raise ValueError(
                f"n_epochs / sampling_rate = {ratio:g} gives no step: raise "
                "n_epochs or sampling_rate."
            )
        return n_steps

    def _privacy_neighbours(self, **fit_params):
        """The neighbours ``_privacy_cost`` holds for (docs/privacy.rst).

        add/remove (replace-one by group privacy).
        """
        return "add/remove"

    def _privacy_cost(self, **fit_params):
        """What ``fit`` reserves, from the parameters alone: ``(ε, δ)``."""
        return PrivacyCost(float(self.epsilon), float(self.delta))

    def privacy_check(self):
        """``(ε, δ)`` recomputed from the fitted noise: the calibration's check.

        Returns
        -------
        cost : PrivacyCost
            At most ``privacy_spent_`` (add/remove neighbours).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_semiprivate import PrivateSGDClassifier
        >>> X = np.random.default_rng(0).normal(size=(100, 2))
        >>> clf = PrivateSGDClassifier(classes=[0, 1], bounds=(-4, 4))
        >>> clf = clf.fit(X, (X[:, 0] > 0).astype(int))
        >>> bool(clf.privacy_check().epsilon <= clf.privacy_spent_.epsilon)
        True
        """
        check_is_fitted(self)
        return sgd_privacy(
            self.noise_multiplier_,
            self.count_noise_,
            self.sampling_rate_,
            self.n_steps_,
            self.privacy_spent_.delta,
        )

    def decision_function(self, X):
        """Scores: one column (the second class's) for two classes.

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
        d = self.coef_.shape[1]
        scores = self._scaling.transform(X)[:, :d] @ self.coef_.T + self.intercept_
        if self.classes_.size == 2:
            return scores[:, 0]
        return scores

    @available_if(_has_log_loss)
    def predict_log_proba(self, X):
        """Log class probabilities (log-loss only), in the layout of ``classes_``.

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

    @available_if(_has_log_loss)
    def predict_proba(self, X):
        """Class probabilities (log-loss only), in the layout of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            p = expit(scores)
            return np.column_stack([1.0 - p, p])
        return np.exp(log_softmax(scores, axis=1))

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
