"""GenericLearnerClassifier: Beimel–Nissim–Stemmer's GenericLearner (Alg. 1).

Beimel, Nissim & Stemmer, *Learning Privately with Labeled and Unlabeled
Examples*, Algorithm 1. The unlabeled rows are private too, so they are never
used directly: they are first *sanitized* with respect to
``C⊕ = {h ⊕ f : h, f in C}`` (Definition 3.1; step 2), the cover is built on the
points of the sanitized database (steps 3-4) and the exponential mechanism, on
the labeled rows, picks a member (step 5; Appendix A.1). Theorem 3.3's proof:
each of the two mechanisms is epsilon-DP and they read disjoint data, so the
learner is epsilon-DP. Public rows, when there are some, join the cover's
points and the score for free, as in :class:`SemiPrivateClassifier`.

The sanitizer is this package's query-release machinery,
:class:`~sklearn_semiprivate.query_release.PublicAssistedQueryRelease` with
``support="public"`` (MWEM rounds), run over the whole discretised domain as its
data-independent support, with a workload whose answers determine every answer
of ``C⊕`` (:class:`_StumpXorQueries`).
"""

# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._public import PublicData, column_names
from ..accounting import PrivacyAccountant, PrivacyCost, compose_parallel
from ..accounting._reservation import reserve_budget
from ..hypotheses import DecisionStumps, Intervals, Thresholds
from ..query_release import PublicAssistedQueryRelease
from ..query_release._xor import _grid_codes, _StumpXorQueries
from ..utils._rng import noise_rng, public_seed, spawn_rngs
from ..utils._sklearn_compat import (
    Interval,
    StrOptions,
    _fit_context,
    validate_data,
)
from ._base import (
    check_private_labels,
    describe_member,
    prepare_fit_data,
    warn_no_public_data,
)
from ._bounds import check_bounds, data_independent_points, infer_bounds_with_leak
from ._discretised import (
    ONE_FEATURE_CLASSES,
    bin_centres,
    check_one_feature_class,
    check_unlabeled_rows,
    discretise,
    public_bounds,
)
from ._progress import FitProgress, describe_class
from ._semiprivate import SemiPrivateClassifier, warn_two_label_class

__all__ = ["GenericLearnerClassifier"]


class GenericLearnerClassifier(ClassifierMixin, BaseEstimator):
    """Private learner from labeled and *private* unlabeled rows (GenericLearner).

    Beimel, Nissim & Stemmer, Algorithm 1. For when the unlabeled data is
    private too, so no public points are available to build a cover from:

    1. the private unlabeled rows are discretised on a public grid (``bounds``,
       ``n_bins``) and *sanitized* with respect to ``C⊕ = {h ⊕ f}`` (step 2):
       :class:`~sklearn_semiprivate.query_release.PublicAssistedQueryRelease`
       (MWEM rounds over the whole grid) releases a distribution whose answers
       to the ``C⊕`` workload are close to the private rows', and
       ``n_synthetic`` synthetic rows are drawn from it;
    2. the cover is built on the distinct synthetic rows (steps 3-4): one
       hypothesis per labeling the class realizes on them;
    3. the exponential mechanism, scored by the number of labeled rows each
       member labels correctly, picks one (step 5).

    Public rows (``X_public``, unprotected), when there are some, are used for
    free, as by :class:`SemiPrivateClassifier`: the public points join the
    points the cover is built on (steps 3-4: ``B`` grows, so the cover still
    holds a member that agrees with the target on every point of ``B``), public
    labels count in the score like labeled rows (a base measure of the
    exponential mechanism, independent of the private rows), and without
    ``bounds`` the grid spans the public points.

    The labeled sample needed is about ``VC(C) / (alpha^3 epsilon)``, independent
    of the domain size (Theorem 3.3): on a fine grid the cover is much smaller
    than the cover of every grid hypothesis.

    Parameters
    ----------
    hypothesis_class : {"stumps", "thresholds", "intervals"}, DecisionStumps, \
            Thresholds or Intervals, default="stumps"
        The class to learn. ``"thresholds"`` and ``"intervals"`` need one
        feature. These are the classes whose ``C⊕`` the sanitizer's workload
        covers (see Notes).
    epsilon : float, default=1.0
        Privacy parameter, ``> 0``, of each of the two mechanisms: the
        sanitizer of the unlabeled rows and the exponential mechanism on the
        labeled rows.
    delta : float, default=1e-6
        Privacy parameter of the sanitizer, in ``[0, 1)``. With ``delta > 0`` the
        MWEM rounds use Gaussian measurements accounted in zCDP; with
        ``delta=0`` Laplace measurements and the whole fit is pure
        ``epsilon``-DP, as in Theorem 3.3.
    n_bins : int, default=16
        Bins per feature of the discretised domain, ``>= 2``. The sanitizer
        holds a distribution over all ``n_bins ** n_features`` grid points
        (at most 65536); candidate rules cut between bins.
    n_synthetic : int, default=100
        Size of the sanitized database ``D~`` drawn from the released
        distribution (the paper takes ``O(VC(C) log(1/alpha) / alpha^2)``).
        More points refine the cover; the cover, and the labeled sample the
        exponential mechanism needs, grow with the number of distinct ones.
    n_rounds : int, default=None
        MWEM rounds of the sanitizer (``n_iterations`` of
        :class:`~sklearn_semiprivate.query_release.PublicAssistedQueryRelease`).
        None uses its default, which balances convergence against noise.
    bounds : array-like of shape (2,) or (n_features, 2), default=None
        The domain box: the grid splits it into ``n_bins`` equal bins per
        feature; rows outside it go to the nearest edge bin. If None, the box
        of the public points when there are some (constant features get unit
        width), else read from the private rows with a
        :class:`~sklearn_semiprivate.PrivacyLeakWarning` (and, without
        unlabeled rows either, a
        :class:`~sklearn_semiprivate.PublicDataWarning`: the fit is then
        private-only learning on a grid; give ``bounds`` to ask for that).
    classes : array-like of shape (n_classes,), default=None
        Every possible label. If None, taken from the public labels, else read
        from the private ``y`` with a
        :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    accountant : PrivacyAccountant, default=None
        Ledger charged ``privacy_spent_`` per fit, atomically, before the first
        private read; the charge stays if the fit fails afterwards. Shared, not
        copied, by :func:`~sklearn.base.clone`.
    random_state : int, RandomState instance or None, default=None
        Seeds the public-side randomness only: the grid, the sanitizer's
        ``random_state`` and the draw of the sanitized database from the
        release (post-processing), each from its own stream. The noise of the
        sanitizer and of the exponential mechanism is fresh OS entropy on every
        fit, never derived from it.
    verbose : int or bool, default=0
        With ``verbose >= 1`` (or True), ``fit`` prints a line at each stage:
        the sanitizer's start and end, the size of the cover and how long
        building it took, the start of the selection and the chosen rule.
        Lines hold public information only: the sanitizer and the selection,
        which read private rows, are printed without their durations (which
        depend on them); the cover is built from the sanitizer's release and
        public points.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The label set.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` has string column names.
    bounds_ : ndarray of shape (``n_features_in_``, 2)
        The domain box used.
    sanitizer_ : PublicAssistedQueryRelease or None
        The fitted sanitizer (its ``privacy_spent_`` is the cost of step 2);
        None without unlabeled rows.
    synthetic_ : ndarray of shape (n_synthetic, ``n_features_in_``) or None
        The sanitized database ``D~``, as bin centres; None without unlabeled
        rows.
    cover_ : Cover
        The cover built from ``synthetic_`` (or from the data-independent grid),
        together with the public points if any.
    cover_size_ : int
        Number of members of the cover.
    member_ : int
        Index of the chosen member in ``cover_``.
    hypothesis_ : str
        Human-readable rule of the chosen member, with the feature names of
        ``feature_names_in_`` when ``X`` had string column names.
    selector_ : SemiPrivateClassifier
        Steps 3-5's machinery holding the chosen member; :meth:`predict` and
        :meth:`predict_proba` delegate to it.
    privacy_spent_ : PrivacyCost
        ``compose_parallel([sanitizer_.privacy_spent_, (epsilon, 0)])``: the
        larger epsilon and the sanitizer's delta, i.e. ``(epsilon, delta)``
        (``(epsilon, 0)`` without unlabeled rows).

    See Also
    --------
    SemiPrivateClassifier : the same exponential mechanism over a cover built
        from *public* unlabeled points.
    sklearn_semiprivate.query_release.PublicAssistedQueryRelease : the sanitizer.

    Notes
    -----
    **Privacy.** Protected: every labeled row of ``(X, y)`` and every unlabeled
    row of ``X_unlabeled``; the two parts must hold *different* people. Not
    protected: ``X_public``, ``y_public``, ``bounds``, ``n_bins``, ``classes``,
    the hyper-parameters, the number of unlabeled rows and the feature format
    (the labeled rows' guarantee holds for add/remove too: their number is
    not used). Neighbouring inputs change one row of one part:

    * one unlabeled row replaced (replace-one; ``n_unlabeled`` is public): the
      grid map is per row, so one grid code changes; the sanitizer is
      ``sanitizer_.privacy_spent_``-DP (each MWEM answer has sensitivity
      ``1 / n_unlabeled``); the synthetic draw, the cover and the exponential
      mechanism only post-process its output, given the unchanged labeled rows;
    * one labeled row replaced, added or removed: the sanitizer does not read
      it; the exponential mechanism's score (correct predictions) has
      sensitivity 1, so the choice is ``epsilon``-DP (Appendix A.1).

    Public rows change neither argument: the cover is a function of the
    sanitizer's release and the public points, and public labels add to every
    member's score a term that does not depend on private rows (a base
    measure), so the score's sensitivity to one labeled row stays 1.

    Hence the fit is ``(max(eps_sanitizer, epsilon), delta_sanitizer)`` =
    ``(epsilon, delta)``-DP: parallel composition over the disjoint parts, as in
    Theorem 3.3's proof (McSherry 2009, Thm 4). If one person may appear in both
    parts, the parts are not disjoint and basic composition applies instead:
    ``(eps_sanitizer + epsilon, delta)``. Without unlabeled rows the cover is
    built on the data-independent grid (and the public points) and the fit is
    ``(epsilon, 0)``-DP. Without ``bounds`` the grid's box is the public
    points' (public) or, with no public data, the private rows' (a leak,
    warned about, outside the guarantee).

    **Sanitizer workload.** The sanitized database must answer every query
    ``h ⊕ f`` nearly as the unlabeled rows do (Theorem 3.3's proof). On the
    grid, the workload is every grid stump ``1[b_j <= s]`` and the XOR of
    every two grid stumps on different features: for stumps with two labels this
    is ``C⊕`` itself except the intervals on one feature, which are differences
    of two grid stumps, so answers within ``alpha`` on the workload give every
    ``C⊕`` answer within ``2 alpha`` (``4 alpha`` for intervals, whose
    ``h ⊕ f`` is a signed sum of at most four grid stumps). The paper's
    sanitizer (Blum, Ligett & Roth, Theorem A.3) is replaced by MWEM (Hardt,
    Ligett & McSherry 2012) over the whole finite grid, which is likewise
    exponential in the number of features.

    Hyper-parameter search over private data spends budget: each fit costs
    ``privacy_spent_``; pass an ``accountant`` to record it. ``X_unlabeled`` of
    the same length as ``X`` is sliced per fold by scikit-learn's
    cross-validation like ``X``. Each fold is then a separate, accounted fit
    only if the folds do not depend on the private rows: with
    ``StratifiedKFold`` (scikit-learn's default for an int ``cv``), one
    changed label moves many labeled and unlabeled rows between folds (a
    review: 628 unlabeled rows, and the released ``synthetic_`` told the two
    datasets apart), which no charge covers; a seeded ``KFold`` does the same
    under add/remove neighbours, its folds being a function of the number of
    rows. Pass ``cv=PrivateKFold(k)``
    (:class:`~sklearn_semiprivate.model_selection.PrivateKFold`). A score
    computed on private rows (a validation fold) is an exact statistic of
    them, released outside the guarantee.

    References
    ----------
    A. Beimel, K. Nissim, U. Stemmer. Learning Privately with Labeled and
    Unlabeled Examples. SODA 2015; Algorithmica 2021.

    M. Hardt, K. Ligett, F. McSherry. A Simple and Practical Algorithm for
    Differentially Private Data Release. NeurIPS 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import GenericLearnerClassifier
    >>> rng = np.random.default_rng(0)
    >>> X_unlabeled = rng.uniform(size=(5000, 1))
    >>> X = rng.uniform(size=(300, 1))
    >>> y = (X[:, 0] > 0.3).astype(int)
    >>> clf = GenericLearnerClassifier("thresholds", epsilon=1.0, n_bins=64,
    ...                                bounds=(0, 1), classes=[0, 1],
    ...                                random_state=0)
    >>> clf = clf.fit(X, y, X_unlabeled=X_unlabeled)
    >>> clf.privacy_spent_
    PrivacyCost(epsilon=1.0, delta=1e-06)
    >>> bool(clf.score(X, y) > 0.9)
    True
    """

    __metadata_request__fit = {"X_public": True, "y_public": True, "X_unlabeled": True}

    _parameter_constraints = {
        "hypothesis_class": [
            StrOptions({"stumps", *ONE_FEATURE_CLASSES}),
            DecisionStumps,
            Thresholds,
            Intervals,
        ],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="left")],
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "n_synthetic": [Interval(Integral, 1, None, closed="left")],
        "n_rounds": [Interval(Integral, 1, None, closed="left"), None],
        "bounds": ["array-like", None],
        "classes": ["array-like", None],
        "accountant": [PrivacyAccountant, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        hypothesis_class="stumps",
        *,
        epsilon=1.0,
        delta=1e-6,
        n_bins=16,
        n_synthetic=100,
        n_rounds=None,
        bounds=None,
        classes=None,
        accountant=None,
        random_state=None,
        verbose=0,
    ):
        self.hypothesis_class = hypothesis_class
        self.epsilon = epsilon
        self.delta = delta
        self.n_bins = n_bins
        self.n_synthetic = n_synthetic
        self.n_rounds = n_rounds
        self.bounds = bounds
        self.classes = classes
        self.accountant = accountant
        self.random_state = random_state
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, X_public=None, y_public=None, *, X_unlabeled=None):
        """Fit on labeled ``(X, y)`` and unlabeled ``X_unlabeled``, all private.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Labeled private rows (protected).
        y : array-like of shape (n_samples,)
            Their labels (protected).
        X_public : PublicData or array-like of shape (n_public, n_features), \
                default=None
            Public rows (unprotected), preferably wrapped in
            :class:`~sklearn_semiprivate.PublicData` (it may carry public
            labels too). They join the cover's points, and their labels the
            score, for free (see above). None: no public data.
        y_public : array-like of shape (n_public,), default=None
            Public labels when ``X_public`` is a raw array.
        X_unlabeled : array-like of shape (n_unlabeled, n_features), default=None
            Unlabeled private rows (protected), of people *not* in ``X``. Only
            the sanitizer reads them. Keyword-only, so that private rows are
            never passed as ``X_public`` by position. None: no unlabeled rows;
            the cover is then built on a data-independent grid (the
            private-only baseline, equal to :class:`SemiPrivateClassifier`
            with ``n_public=n_bins`` and no public data) and the public points,
            if any.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        has_unlabeled = X_unlabeled is not None
        names = column_names(X)  # any labels: feature_names_in_ has strings only
        # Public-side streams only (the grid, the sanitizer's public seed, the
        # draw of the sanitized database from the release); the noise of both
        # mechanisms is fresh (noise_rng).
        rng_grid, rng_sanitizer, rng_sample = spawn_rngs(self.random_state, 3)
        # Format checks only (finite values, label set); they release nothing.
        # Public rows are all kept (n_public=None): the subsample stream is
        # unused.
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
        if data.X_public is None and not has_unlabeled and self.bounds is None:
            # Public inputs only: whether public data, unlabeled rows and
            # bounds were given (the number of unlabeled rows is public).
            warn_no_public_data(self)
        warn_two_label_class(self.hypothesis_class, data.classes)
        progress = FitProgress(self, self.verbose)
        n_features = data.X.shape[1]
        check_one_feature_class(self.hypothesis_class, n_features)
        X_unl = (
            check_unlabeled_rows(self, X_unlabeled, n_features, self.n_bins, names)
            if has_unlabeled
            else None
        )
        if self.bounds is not None:
            # A public parameter: refused before the charge, not after it.
            check_bounds(self.bounds, n_features)
        # Reserved before either mechanism reads a private row (or the bounds
        # are read off them), and charged even if the fit fails afterwards.
        cost = self._privacy_cost(X_unlabeled=X_unl)
        reserve_budget(self.accountant, cost, self)
        if self.accountant is not None:
            progress.say(
                f"reserved epsilon={cost.epsilon:g}, delta={cost.delta:g} on the "
                "accountant"
            )
        check_private_labels(data.y, data.classes)
        bounds = self._resolve_bounds(data.X, X_unl, data.X_public)
        selector = self._selector(bounds)
        if has_unlabeled:
            # No duration: the sanitizer reads the private unlabeled rows.
            progress.say(
                "sanitizing the private unlabeled rows (MWEM over a grid of "
                f"{self.n_bins**n_features:,} points)..."
            )
        points, sanitizer = self._cover_points(
            data,
            X_unl,
            bounds,
            selector,
            rng_grid,
            public_seed(rng_sanitizer),
            rng_sample,
        )
        if has_unlabeled:
            progress.say(f"sanitizer: done; drew {self.n_synthetic:,} synthetic rows")
        cover = self._build_cover(
            selector, points, data, sanitizer is not None, progress
        )
        # Alg. 1 step 5: the only read of the labeled rows (sensitivity 1;
        # labeled public rows, if any, are a base measure).
        progress.say("selecting a member (exponential mechanism)...")
        member = selector._select_member(cover, data, noise_rng(self.random_state))
        # The sanitizer spends at most its (epsilon, delta) (its zCDP split
        # rounds down), so the reserved total is the guarantee reported.
        self.privacy_spent_ = cost

        self.classes_ = data.classes
        self.bounds_ = bounds
        self.sanitizer_ = sanitizer
        self.synthetic_ = None if sanitizer is None else points
        self.cover_ = cover
        self.cover_size_ = cover.size
        self.member_ = member
        self.hypothesis_ = describe_member(
            cover, member, getattr(self, "feature_names_in_", None)
        )
        # The released rule: printing it is post-processing.
        progress.say(f"selected: {self.hypothesis_}")
        self.selector_ = self._fitted_selector(
            selector, cover, member, data.classes, n_features, self.hypothesis_
        )
        return self

    @staticmethod
    def _fitted_selector(selector, cover, member, classes, n_features, hypothesis):
        """Steps 3-5's SemiPrivateClassifier, holding the chosen member.

        Its state is the released model (post-processing): the cover and the
        member, no final estimator. ``predict`` and ``predict_proba`` delegate
        to it, on rows already validated against this estimator.
        """
        selector.n_features_in_ = n_features
        selector.classes_ = classes
        selector.cover_ = cover
        selector.cover_size_ = cover.size
        selector.member_ = member
        selector.hypothesis_ = hypothesis
        selector.final_estimator_ = None
        return selector

    def _resolve_bounds(self, X, X_unl, X_public):
        """``bounds``, else the public points' box, else the private rows' (leak)."""
        if self.bounds is not None:
            return check_bounds(self.bounds, X.shape[1])
        if X_public is not None:
            return public_bounds(X_public)
        rows = X if X_unl is None else np.vstack([X, X_unl])
        return infer_bounds_with_leak(rows)

    def _selector(self, bounds):
        """Steps 3-5's machinery: SemiPrivateClassifier's cover and mechanism."""
        return SemiPrivateClassifier(
            self.hypothesis_class,
            epsilon=self.epsilon,
            n_public=self.n_bins,
            bounds=bounds,
        )

    def _sanitizer(self, seed):
        """Alg. 1 step 2's sanitizer, unfitted: MWEM over the whole grid.

        ``seed`` is a public-side int: the sanitizer is published as
        ``sanitizer_``, and its own noise is fresh, never derived from it.
        """
        return PublicAssistedQueryRelease(
            _StumpXorQueries(self.n_bins),
            epsilon=self.epsilon,
            delta=self.delta,
            support="public",
            n_iterations=self.n_rounds,
            measurement="gaussian" if self.delta > 0 else "laplace",
            random_state=seed,
        )

    def _privacy_neighbours(self, X_unlabeled=None, **fit_params):
        """The neighbours ``_privacy_cost`` holds for: both on the labeled rows
        alone; replace-one with private unlabeled rows (their sanitizer)."""
        return "both" if X_unlabeled is None else "replace-one"

    def _privacy_cost(self, X_unlabeled=None, **fit_params):
        """What ``fit`` reserves, from the parameters and which rows are given.

        ``(epsilon, 0)`` for the selection; with private unlabeled rows the
        sanitizer's ``(epsilon, delta)`` too, by parallel composition: the two
        mechanisms read disjoint parts of the private data.
        """
        costs = [PrivacyCost(float(self.epsilon), 0.0)]
        if X_unlabeled is not None:
            costs.append(PrivacyCost(float(self.epsilon), float(self.delta)))
        return compose_parallel(costs)

    def _cover_points(
        self, data, X_unl, bounds, selector, rng_grid, sanitizer_seed, rng_sample
    ):
        """Points the cover is built on, and the fitted sanitizer (or None).

        The sanitized database ``D~`` (a release), or without unlabeled rows
        the data-independent grid of ``n_bins`` points; the public points, if
        any, are added by :meth:`_build_cover`. ``data`` and ``selector`` are
        not read here; they stay in the signature for subclasses (the privacy
        tests' mutants override this step).
        """
        if X_unl is None:
            # Private-only baseline: the data-independent grid, as
            # SemiPrivateClassifier(n_public=n_bins, bounds=bounds) builds it.
            return data_independent_points(bounds, self.n_bins, rng_grid), None
        n_features = X_unl.shape[1]
        grid = _grid_codes(self.n_bins, n_features)
        # Alg. 1 step 2: the only read of the unlabeled rows. The grid is the
        # sanitizer's data-independent support (its "public" points); every
        # answer of the private codes has sensitivity 1 / n_unlabeled.
        sanitizer = self._sanitizer(sanitizer_seed).fit(
            discretise(X_unl, bounds, self.n_bins), X_public=PublicData(grid)
        )
        # Post-processing: the sanitized database D~ drawn from the release.
        codes = sanitizer.sample(self.n_synthetic, random_state=rng_sample)
        return bin_centres(codes, bounds, self.n_bins), sanitizer

    def _build_cover(self, selector, points, data, synthetic, progress):
        """Alg. 1 steps 3-4 on ``points`` and the public points, if any.

        Public work only: ``points`` is the sanitizer's release (or the grid),
        so building the cover may be timed.
        """
        if progress.enabled:
            n_distinct = np.unique(points, axis=0).shape[0]
            parts = [
                f"{n_distinct:,} distinct synthetic points"
                if synthetic
                else f"a data-independent grid of {points.shape[0]:,} points"
            ]
            if data.X_public is not None:
                parts.append(f"{data.X_public.shape[0]:,} public points")
            started = progress.start(
                f"building the cover from {' and '.join(parts)} "
                f"({describe_class(self.hypothesis_class)})..."
            )
        if data.X_public is not None:
            # Steps 3-4 on B plus the public points: free, and a finer cover.
            points = np.vstack([points, data.X_public])
        cover = selector._build_cover(points, data.classes)
        if progress.enabled:
            progress.done(started, f"cover: {cover.size:,} members")
        return cover

    def predict(self, X):
        """Predict labels with the chosen hypothesis (post-processing, no noise).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to label.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self.selector_.predict(X)

    def predict_proba(self, X):
        """Class probabilities: one-hot of the chosen hypothesis's label.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self.selector_.predict_proba(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
