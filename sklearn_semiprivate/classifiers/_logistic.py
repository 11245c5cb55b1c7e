"""SemiPrivateLogisticRegression: multinomial logistic regression on public features.

Two solvers read the private rows. ``solver="sgd"`` (the default): the class
counts, then DP-SGD on Poisson-subsampled batches (``_logistic_sgd.py``).
``solver="mm"``: a few Gaussian releases of sufficient statistics and
gradients, every one with a stated L2 sensitivity, composed in Rényi DP
(Mironov 2017) and converted to ``(epsilon, delta)``:

1. the class counts (the intercept's start);
2. the Gram matrix ``Σ φ(x) φ(x)ᵀ`` of the clipped, public-standardized rows,
   which fixes Böhning's quadratic bound on the multinomial log-loss
   (Böhning 1992, Lemma: ``∇²ℓ ≼ ½ (I − 11ᵀ/K) ⊗ φφᵀ``), so that
3. ``n_steps`` noisy gradients of the log-loss each drive one
   majorize-minimize (MM) step ``W ← W − (G/2 + λI)⁻¹ (g + λW)``.

Public data sets the geometry for free: the centre, the per-feature scale,
the clipping radius and the bins of each feature. Nothing else is read off the
private rows. The mechanisms live in ``_logistic_mm.py``.
"""

# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral, Real

import numpy as np
from scipy.special import log_softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..accounting import PrivacyAccountant, PrivacyCost
from ..accounting._reservation import reserve_budget
from ..utils._rng import noise_rng, spawn_rngs
from ..utils._sklearn_compat import (
    Interval,
    StrOptions,
    _fit_context,
    validate_data,
)
from ._base import check_private_labels, prepare_fit_data, warn_no_public_data
from ._bounds import domain_box
from ._logistic_mm import (
    PublicFeatureMap,
    auto_n_bins,
    noisy_counts,
    noisy_mm,
    release_privacy,
    release_scales,
)
from ._logistic_sgd import (
    auto_n_bins_sgd,
    sgd_release_privacy,
    sgd_scales,
    sgd_weights,
)

__all__ = ["SemiPrivateLogisticRegression"]


def _one_hot(y, classes):
    Y = np.zeros((y.shape[0], classes.size))
    Y[np.arange(y.shape[0]), np.searchsorted(classes, y)] = 1.0
    return Y


class SemiPrivateLogisticRegression(ClassifierMixin, BaseEstimator):
    """Multinomial logistic regression, DP for the private rows; features public.

    Public rows (unlabeled) give the features: a centre, per-feature scale and
    clipping radius for a linear part, and quantile bins of every numeric
    feature (an additive model, one step function per feature, on top of the
    linear part). The private rows are then read only through Gaussian
    releases: the class counts, then, with ``solver="sgd"``, the noisy
    clipped gradient sums of DP-SGD on Poisson-subsampled batches (as
    :class:`PrivateSGDClassifier`), or, with ``solver="mm"``, the Gram matrix
    of the feature rows and ``n_steps`` gradients of the log-loss, each
    driving one majorize-minimize step on Böhning's quadratic bound.
    Noise-free, both converge to logistic regression on those features.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy target ``> 0`` for the whole fit.
    delta : float, default=1e-5
        Privacy target in ``(0, 1)``.
    solver : {"sgd", "mm"}, default="sgd"
        ``"sgd"``: projected DP-SGD as in :class:`PrivateSGDClassifier`
        (sampling rate 0.01, 20 epochs, clip norm 1, weights in a ball of
        radius 40: twice that estimator's epochs and radius, for the bins'
        weights; ``benchmarks/results/sgd_tuning.md``). ``"mm"``: the
        private Gram matrix and
        ``n_steps`` MM steps. On seven tables held out of the accuracy
        benchmark SGD had the smaller mean and worst gap to non-private
        logistic regression at every epsilon
        (``benchmarks/results/logistic_tuning.md``); MM is exact-ridge and
        fast on many rows with few features.
    n_steps : int, default=3
        Number of noisy gradient (MM) steps of ``solver="mm"`` (ignored by
        ``"sgd"``). More steps converge further but split the budget more
        ways.
    clip_quantile : float, default=0.5
        The clipping radius is this quantile of the public rows' norms after
        public standardization; rows beyond it are scaled onto it (when
        fitting and when predicting: the model is a function of the clipped
        rows).
    n_bins : int or "auto", default="auto"
        Largest number of public-quantile bins of each feature with more than
        two distinct public values (fewer when the public values tie). 0 or 1:
        no bins, a linear model. ``"auto"``: 8 bins when the gradients'
        signal-to-noise is high enough, else none. With ``"sgd"``: when the
        expected batch, 0.01 times the released number of rows, is at least
        25 times the noise multiplier; with ``"mm"``: when the released
        number of rows is at least 450 times the noise standard deviation of
        a gradient coordinate. Both thresholds were chosen on seven tables
        held out of the accuracy benchmark (``benchmarks/tune_logistic.py``).
        Decided after the class counts are released, from them:
        post-processing.
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
        clipping radius ``sqrt(n_features)``, equal-width bins. If None and
        there is no public data, a
        :class:`~sklearn_semiprivate.PublicDataWarning` is emitted and the
        bounds are read from the private ``X`` with a
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
    weights_ : ndarray of shape (n_outputs, n_classes)
        The model: the scores are ``φ(X) @ weights_``, with ``φ`` the public
        feature map (the clipped linear part, the one-hot bins of the binned
        features in order, then a constant 1).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` has string column names.
    center_, scale_ : ndarray of shape (``n_features_in_``,)
        Public standardization: ``z = (x - center_) / scale_``.
    clip_norm_ : float
        Clipping radius of the standardized rows (public).
    n_bins_ : int
        ``n_bins`` resolved (``"auto"`` decided from the released counts).
    bin_edges_ : list of (ndarray or None)
        Inner bin edges of each feature (public); None for a feature that is
        not binned.
    noise_scales_ : dict
        Standard deviation of the noise of every release (from the
        parameters only): ``"counts"``; with ``"sgd"``, ``"gradient"`` (of
        every step's clipped gradient sum) and ``"noise_multiplier"``; with
        ``"mm"``, ``"gram"`` and ``"gradient"`` (one per step).
    privacy_spent_ : PrivacyCost
        ``(epsilon, delta)``, for add/remove neighbours.
    replace_one_privacy_ : PrivacyCost
        The guarantee of the same releases for replace-one neighbours
        (weaker), from the parameters only: with ``"mm"`` every sensitivity
        doubled; with ``"sgd"`` group privacy, ``(2ε', (1 + e^ε') δ')`` of
        the add/remove guarantee ``(ε', δ')`` (capped at ``δ = 1``).

    See Also
    --------
    SemiPrivateClassifier : one private selection over a cover built from
        public points.

    Notes
    -----
    **Privacy.** The fit is ``(epsilon, delta)``-DP with respect to the
    private ``(X, y)`` for add/remove neighbours. Every row is standardized
    with public statistics and scaled into the unit ball, its bins come from
    public edges, and ``φ(x) = [a z, b onehot, 1]`` with ``a² + m b² = 1``
    (``m`` binned features) has ``||φ||² <= 2`` whatever ``x``. The releases
    and their L2 sensitivities: class counts 1; the upper triangle of
    ``Σ φφᵀ``, ``||φφᵀ||_F <= 2``; each gradient ``Σ (p(x) − e_y) φ(x)ᵀ``,
    ``||p − e_y|| ||φ|| <= 2``. With ``solver="sgd"`` the releases are the
    class counts (L2 sensitivity 1) and, per step, the sum of the per-example
    gradients of a Poisson batch (each row in with probability 0.01, drawn
    from the secret noise generator), every gradient clipped to norm 1, plus
    ``N(0, z²)``: the RDP of the Poisson-subsampled Gaussian (Mironov,
    Talwar & Zhang 2019) composed with the counts' (``_sgd_steps.sgd_noise``,
    checked by ``_logistic_sgd.sgd_release_privacy``). The
    model a gradient is evaluated at depends on the private rows only
    through earlier releases (adaptive composition). Gaussian noise is
    calibrated so that the composed RDP curve converts to ``(epsilon,
    delta)`` (``release_scales`` in ``_logistic_mm.py``, checked by
    ``release_privacy``).
    For replace-one neighbours every sensitivity at most doubles:
    ``replace_one_privacy_`` gives that guarantee. Not protected: the public
    data, ``classes``, ``bounds`` and the hyper-parameters.

    **Public data.** Only its geometry is used (mean, standard deviation,
    a norm quantile, quantile bins): the Gram matrix that shapes each step is
    private, not public, so public rows from a shifted population move the
    features, not the fit to them.
    Public labels, when given, add their exact counts, Gram and gradients to
    the private ones (free): with ``"sgd"`` they also give the starting
    weights, and every step adds ``0.01`` times their exact gradient sum.

    **Utility.** Noise-free, ``"mm"`` is Böhning's MM algorithm for
    ridge-regularized multinomial logistic regression (ridge proportional to
    the gradient noise), a monotone descent method; with few steps it stops
    short of the optimum on hard multiclass problems; its Gram release adds
    noise that grows with the number of features. ``"sgd"`` spends the
    whole budget (but the counts) on gradients and averages its iterates.
    Either is an additive model: it cannot learn interactions between
    features (see :class:`SemiPrivateTreeClassifier`).

    References
    ----------
    D. Böhning. Multinomial logistic regression algorithm. Annals of the
    Institute of Statistical Mathematics 44, 1992.

    I. Mironov. Rényi Differential Privacy. CSF 2017.

    I. Mironov, K. Talwar, L. Zhang. Rényi Differential Privacy of the
    Sampled Gaussian Mechanism. arXiv:1908.10530, 2019.

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
        "solver": [StrOptions({"sgd", "mm"})],
        "n_steps": [Interval(Integral, 1, None, closed="left")],
        "clip_quantile": [Interval(Real, 0, 1, closed="right")],
        "n_bins": [Interval(Integral, 0, None, closed="left"), StrOptions({"auto"})],
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
        solver="sgd",
        n_steps=3,
        clip_quantile=0.5,
        n_bins="auto",
        n_public=None,
        classes=None,
        bounds=None,
        accountant=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.solver = solver
        self.n_steps = n_steps
        self.clip_quantile = clip_quantile
        self.n_bins = n_bins
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
        if self.solver == "sgd":
            scales = sgd_scales(float(self.epsilon), float(self.delta))
        else:
            scales = release_scales(
                float(self.epsilon), float(self.delta), int(self.n_steps)
            )
        box = domain_box(self.bounds, data, allow_leak=False)
        # Reserved atomically before the first private read; a fit that fails
        # afterwards stays charged.
        reserve_budget(self.accountant, self._privacy_cost(), self)
        check_private_labels(data.y, data.classes)
        if data.X_public is None and box is None:
            box = domain_box(self.bounds, data, allow_leak=True)
        self.classes_ = data.classes
        self.noise_scales_ = scales
        rng = noise_rng(self.random_state)
        Y = _one_hot(data.y, self.classes_)
        private_counts = noisy_counts(Y, scales["counts"], rng)
        counts = private_counts.copy()
        if data.y_public is not None:
            counts += _one_hot(data.y_public, self.classes_).sum(axis=0)
        # Post-processing of the released counts: how many bins.
        if self.n_bins != "auto":
            self.n_bins_ = int(self.n_bins)
        elif self.solver == "sgd":
            self.n_bins_ = auto_n_bins_sgd(
                float(private_counts.sum()), scales["noise_multiplier"]
            )
        else:
            self.n_bins_ = auto_n_bins(float(counts.sum()), scales["gradient"][0])
        fmap = self._feature_map(data, box, self.n_bins_)
        self._fmap = fmap
        exact = None
        if data.y_public is not None:
            # Labeled public rows: exact statistics, free.
            P_pub = fmap.transform(data.X_public)
            exact = (P_pub, _one_hot(data.y_public, self.classes_))
        P = fmap.transform(data.X)
        if self.solver == "sgd":
            if exact is not None:
                exact = (exact[0], np.searchsorted(self.classes_, data.y_public))
            self.weights_ = sgd_weights(
                P,
                np.searchsorted(self.classes_, data.y),
                counts,
                private_counts.sum(),
                scales,
                rng,
                exact=exact,
            )
            check = sgd_release_privacy
        else:
            self.weights_ = noisy_mm(P, Y, counts, scales, rng, exact=exact)
            check = release_privacy
        self.privacy_spent_ = self._privacy_cost()
        self.replace_one_privacy_ = check(
            scales, float(self.delta), neighbours="replace-one"
        )
        # Post-processing: the public maps, as fitted attributes.
        self.center_, self.scale_ = fmap.center, fmap.scale
        self.clip_norm_, self.bin_edges_ = fmap.radius, fmap.bin_edges
        return self

    def _feature_map(self, data, box, n_bins):
        """The feature map, from public rows or the box: public inputs only."""
        if data.X_public is not None:
            return PublicFeatureMap.from_public(
                data.X_public, float(self.clip_quantile), n_bins
            )
        return PublicFeatureMap.from_bounds(box, n_bins)

    def _privacy_neighbours(self, **fit_params):
        """The neighbours ``_privacy_cost`` holds for (docs/privacy.rst).

        add/remove (``replace_one_privacy_`` after a fit).
        """
        return "add/remove"

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
        scores = self._fmap.transform(X) @ self.weights_
        if self.classes_.size == 2:
            return scores[:, 1] - scores[:, 0]
        return scores

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
