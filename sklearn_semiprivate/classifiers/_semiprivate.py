"""SemiPrivateClassifier: the Alon–Bassily–Moran semi-private learner (ASSPP).

Alon, Bassily & Moran, *Limits of Private Learning with Access to Public Data*
(NeurIPS 2019), Algorithm 1: the distinct public points define a finite cover of
the hypothesis class (one member per distinct labeling, steps 1-5); the exponential
mechanism, scored by the number of private rows each member labels correctly,
picks one member (step 6). Lemma 3.2: epsilon-DP for the private sample, whatever
the public sample. Lemma 3.3: with ~d/alpha public points the cover is an
alpha-cover. The final estimator and the predictions, post-processing of the
chosen member, are in ``_semiprivate_predict.py``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from ..accounting import PrivacyAccountant, PrivacyCost
from ..accounting._composition import compose_basic
from ..accounting._reservation import (
    InnerLedgersMixin,
    every_ledger,
    fit_cost,
    reserve_budget,
)
from ..hypotheses import (
    DecisionStumps,
    Halfplanes,
    Intervals,
    PartitionLabelings,
    Thresholds,
)
from ..mechanisms import ExponentialMechanism, PermuteAndFlip
from ..utils._private_errors import call_inner_on_private
from ..utils._rng import noise_rng, spawn_rngs
from ..utils._sklearn_compat import (
    HasMethods,
    Interval,
    StrOptions,
    _fit_context,
)
from ._base import (
    check_private_labels,
    describe_member,
    prepare_fit_data,
    warn_no_public_data,
)
from ._bounds import check_bounds, data_independent_points, infer_bounds_with_leak
from ._progress import FitProgress, describe_class
from ._semiprivate_predict import ChosenMemberMixin

__all__ = ["SemiPrivateClassifier"]


# Size of the data-independent grid used when there is no public data and
# n_public is not an int.
_DEFAULT_GRID_SIZE = 64

_BUILTIN_CLASSES = {
    "thresholds": Thresholds,
    "intervals": Intervals,
    "stumps": DecisionStumps,
    "halfplanes": Halfplanes,
    "partition": PartitionLabelings,
}


def _make_hypothesis_class(spec):
    if isinstance(spec, str):
        return _BUILTIN_CLASSES[spec]()
    return spec


# Built-in classes whose every member predicts at most two labels.
_TWO_LABEL_CLASSES = ("stumps", "thresholds", "intervals")


def warn_two_label_class(hypothesis_class, classes):
    """Warn that a two-label class cannot predict every declared class.

    For the names and for instances (subclasses included) of the built-in
    classes whose members predict at most two labels. Depends on parameters
    and the label set only (public, or read off the private rows after its
    own leak warning).
    """
    if isinstance(hypothesis_class, str):
        two_labels = hypothesis_class in _TWO_LABEL_CLASSES
    else:
        two_labels = isinstance(
            hypothesis_class,
            tuple(_BUILTIN_CLASSES[name] for name in _TWO_LABEL_CLASSES),
        )
    if two_labels and classes.size > 2:
        warnings.warn(
            f"hypothesis_class={hypothesis_class!r} predicts at most two "
            f"labels, and there are {classes.size} classes: the other labels "
            "are never predicted. Use SemiPrivateClassifier("
            "hypothesis_class='partition') or SemiPrivateLogisticRegression "
            "for more classes.",
            UserWarning,
            stacklevel=3,
        )


class SemiPrivateClassifier(
    InnerLedgersMixin, ChosenMemberMixin, ClassifierMixin, BaseEstimator
):
    """Semi-private classifier: a cover from public points, picked privately.

    The distinct public points (unlabeled is enough) define a finite cover of the
    hypothesis class: one member for each distinct way the class can label them
    (Alon, Bassily & Moran 2019, Alg. 1 steps 1-5). Each member is scored by the
    number of private rows it labels correctly, and the exponential mechanism
    picks one (step 6). With about ``d / alpha`` public points and
    ``d / alpha**2 + d / (epsilon alpha)`` private rows the result is within
    ``alpha`` of the best hypothesis of the class.

    Parameters
    ----------
    hypothesis_class : {"stumps", "thresholds", "intervals", "halfplanes", \
            "partition"} or HypothesisClass, default="stumps"
        The class to learn. A string selects a built-in class with its default
        parameters; any object with a ``cover(X_public, classes)`` method (see
        :class:`~sklearn_semiprivate.hypotheses.HypothesisClass`) is used as is.
        A decision stump predicts at most two labels, one per side of its
        threshold (so do ``"thresholds"`` and ``"intervals"``): with more
        classes, use ``"partition"`` or
        :class:`~sklearn_semiprivate.SemiPrivateLogisticRegression`; ``fit``
        warns (``UserWarning``) when there are more.
    epsilon : float, default=1.0
        Privacy parameter, ``> 0``. The fit is ``epsilon``-DP for the private rows.
    mechanism : {"exponential", "permute_and_flip"}, default="exponential"
        How the member is chosen. ``"exponential"`` is the paper's; covers with a
        factorised structure (intervals, partitions) sample it exactly without
        enumerating members. ``"permute_and_flip"`` (McKenna & Sheldon 2020) is
        never worse in expected score, but needs every member's score.
    n_public : int, float or None, default=None
        How many public rows to use: ``None`` for all, an int for that many, a
        float in ``(0, 1]`` for that fraction. The rows are a prefix of one seeded
        permutation, so larger values give supersets. Without public data, an int
        sets the size of the data-independent grid (default 64).
    classes : array-like of shape (n_classes,), default=None
        Every possible label. If None, taken from the public labels, else from the
        private ``y`` with a :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    bounds : array-like of shape (2,) or (n_features, 2), default=None
        Domain box for the private-only case (no public data): the cover is then
        built on a data-independent grid inside it. Giving it is how to ask for
        private-only learning. If None and there is no public data, a
        :class:`~sklearn_semiprivate.PublicDataWarning` says so (a forgotten
        ``X_public`` is the likely cause), and the bounds are read from the
        private ``X`` with a :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    final_estimator : estimator, default=None
        If given, the public points (or the grid) are relabeled by the chosen
        hypothesis and a clone of this estimator is fitted on them; ``predict``
        then goes through it. Post-processing: no extra privacy cost.
    accountant : PrivacyAccountant, default=None
        Ledger charged ``epsilon`` per fit, atomically, before the first private
        read; the charge stays if the fit fails afterwards. It is shared, not
        copied, by :func:`~sklearn.base.clone`.
    random_state : int, RandomState instance or None, default=None
        Seeds the public-side randomness only: the public subsample, the grid and
        an unseeded ``final_estimator``, each from its own independent stream.
        The selection's privacy noise never comes from it: it is fresh OS
        entropy on every fit (see :func:`~sklearn_semiprivate.reproducible_noise`
        for tests and docs).
    verbose : int or bool, default=0
        With ``verbose >= 1`` (or True), ``fit`` prints a line at each stage:
        the size of the public set and of the cover and how long building it
        took, the start of the selection and the chosen rule, the final
        estimator's fit. Lines hold public information only: the selection,
        which reads the private rows, is printed without its duration (which
        depends on them).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The label set.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` has string column names.
    cover_ : Cover
        The finite cover built from public data.
    cover_size_ : int
        Number of members of the cover.
    member_ : int
        Index of the chosen member in ``cover_``.
    hypothesis_ : str
        Human-readable rule of the chosen member, with the feature names of
        ``feature_names_in_`` when ``X`` had string column names (``x[j]``
        otherwise).
    final_estimator_ : estimator or None
        The fitted ``final_estimator``; None when not requested, or when the
        relabeled points hold a single class (then ``predict`` uses the
        hypothesis directly).
    privacy_spent_ : PrivacyCost
        ``(epsilon, 0.0)``.

    See Also
    --------
    GenericLearnerClassifier : for when the unlabeled rows are private too.
    sklearn_semiprivate.research.PublicDataReduction : the reduction of
        Alg. 2-4, a fully private learner (research only).

    Notes
    -----
    **Privacy.** The fit is ``epsilon``-DP with respect to the private ``(X, y)``,
    for add/remove and for replace-one neighbours: the cover depends on public
    data (or the grid) only, and the score of every member (its number of correct
    private predictions) changes by at most 1 when one private row changes
    (Lemma 3.2 of the paper; McSherry & Talwar 2007). Not protected: the public
    data, ``classes``, ``bounds`` and the hyper-parameters. ``n_features_in_``,
    feature names and the input format are treated as public.

    **Labeled public data.** Public labels (Definition 2.2) enter as a base
    measure of the exponential mechanism: each public labeled row counts in the
    score like a private row. Equivalently
    ``P(h) ∝ exp(epsilon/2 · correct_pub(h)) · exp(epsilon/2 · correct_priv(h))``;
    the first factor does not depend on private data, so the guarantee is
    unchanged.

    Hyper-parameter search over private data spends budget: each fit costs
    ``epsilon``; pass an ``accountant`` to record it. A score computed on
    private rows (a validation fold of ``cross_validate`` or ``GridSearchCV``)
    is an exact statistic of them, released outside the guarantee; so is a
    ``best_params_`` chosen from such scores.

    **Noise and seeds.** The selection's noise is fresh OS entropy on every
    fit; ``random_state`` seeds the public side only, so a known or shared
    seed (every clone of a cross-validation) reveals nothing about it.

    References
    ----------
    N. Alon, R. Bassily, S. Moran. Limits of Private Learning with Access to Public
    Data. NeurIPS 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PublicData, SemiPrivateClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(2000, 2))
    >>> y = (X[:, 0] > 0.3).astype(int)
    >>> X_pub = rng.uniform(size=(50, 2))
    >>> clf = SemiPrivateClassifier(epsilon=1.0, classes=[0, 1], random_state=0)
    >>> clf = clf.fit(X, y, X_public=PublicData(X_pub))
    >>> clf.hypothesis_.startswith("x[0]")
    True
    >>> X_test = rng.uniform(size=(1000, 2))  # held-out rows: scoring is free
    >>> bool(clf.score(X_test, (X_test[:, 0] > 0.3).astype(int)) > 0.95)
    True
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}
    # Fitted on the cover's (public or grid) points, never on private rows.
    _params_not_fitted_on_rows = ("final_estimator",)
    # Fitted with its own ledgers, which it charges its own cost.
    _params_charged_own_cost = ("final_estimator",)

    # Its fitted final estimator names the ledgers its parameter names.
    _inner_estimators = (("final_estimator_", "final_estimator"),)

    _parameter_constraints = {
        "hypothesis_class": [
            StrOptions(set(_BUILTIN_CLASSES)),
            HasMethods(["cover"]),
        ],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "mechanism": [StrOptions({"exponential", "permute_and_flip"})],
        "n_public": [
            None,
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="right"),
        ],
        "classes": ["array-like", None],
        "bounds": ["array-like", None],
        "final_estimator": [HasMethods(["fit", "predict"]), None],
        "accountant": [PrivacyAccountant, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        hypothesis_class="stumps",
        *,
        epsilon=1.0,
        mechanism="exponential",
        n_public=None,
        classes=None,
        bounds=None,
        final_estimator=None,
        accountant=None,
        random_state=None,
        verbose=0,
    ):
        self.hypothesis_class = hypothesis_class
        self.epsilon = epsilon
        self.mechanism = mechanism
        self.n_public = n_public
        self.classes = classes
        self.bounds = bounds
        self.final_estimator = final_estimator
        self.accountant = accountant
        self.random_state = random_state
        self.verbose = verbose

    # False: the user's final_estimator gets its own parameter validation.
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, X_public=None, y_public=None):
        """Fit on private ``(X, y)``, using public data freely.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows (protected).
        y : array-like of shape (n_samples,)
            Private labels (protected).
        X_public : PublicData or array-like of shape (n_public, n_features), \
                default=None
            Public rows, preferably wrapped in :class:`~sklearn_semiprivate.PublicData`
            (it may carry public labels too). None: private-only learning on a
            data-independent grid (with a
            :class:`~sklearn_semiprivate.PublicDataWarning` unless ``bounds``
            is given).
        y_public : array-like of shape (n_public,), default=None
            Public labels when ``X_public`` is a raw array.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        # Public-side streams only; the selection's noise is fresh (noise_rng).
        rng_public, rng_grid, rng_final = spawn_rngs(self.random_state, 3)
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
            # Public inputs only: whether public data and bounds were given.
            warn_no_public_data(self)
        warn_two_label_class(self.hypothesis_class, data.classes)
        progress = FitProgress(self, self.verbose)
        # The cover from public points or bounds (public work only); without
        # either, it waits for the bounds read off the private rows.
        points = self._cover_points(data, rng_grid, allow_leak=False)
        cover = None
        if points is not None:
            cover = self._timed_cover(points, data, progress)
            if self.mechanism != "exponential":
                # A cover too large to score member by member is refused on
                # public grounds: before the charge (a review).
                cover._check_scorable()
        else:
            # The grid waits for bounds read off the private rows; its
            # parameter errors (a hypothesis class for another number of
            # features or classes) come now, on a grid of the unit box, free
            # (a review found them charged).
            unit = np.tile([0.0, 1.0], (data.X.shape[1], 1))
            self._build_cover(
                data_independent_points(
                    unit, _DEFAULT_GRID_SIZE, np.random.default_rng(0)
                ),
                data.classes,
            )
        cost = self._privacy_cost()
        self._check_final_ledgers(cost)
        # Reserved atomically before the first private read, and kept whatever
        # happens next: a refused fit has read nothing, a failed one stays
        # charged.
        reserve_budget(self.accountant, cost, self)
        if self.accountant is not None:
            progress.say(f"reserved epsilon={cost.epsilon:g} on the accountant")
        check_private_labels(data.y, data.classes)
        if cover is None:
            points = self._cover_points(data, rng_grid, allow_leak=True)
            cover = self._timed_cover(points, data, progress)
        progress.say(f"selecting a member ({self._mechanism_name()})...")
        member = self._select_member(cover, data, noise_rng(self.random_state))
        self.privacy_spent_ = cost

        self.classes_ = data.classes
        self.cover_ = cover
        self.cover_size_ = cover.size
        self.member_ = member
        self.hypothesis_ = describe_member(
            cover, member, getattr(self, "feature_names_in_", None)
        )
        # The released rule: printing it is post-processing.
        progress.say(f"selected: {self.hypothesis_}")
        self.final_estimator_ = self._fit_final_estimator(points, rng_final, progress)
        self._name_inner_ledgers()
        return self

    def _mechanism_name(self):
        if self.mechanism == "exponential":
            return "exponential mechanism"
        return "permute-and-flip"

    def _timed_cover(self, points, data, progress):
        """Build the cover, announcing its public size and build time.

        The points are public rows or the grid; the grid's bounds may have
        been read off the private rows (after a leak warning), but its size
        and the cover built on it are the output of that documented leak.
        """
        if data.X_public is not None:
            source = f"{points.shape[0]:,} public points"
        elif self.bounds is not None:
            source = f"a data-independent grid of {points.shape[0]:,} points"
        else:
            source = (
                f"a grid of {points.shape[0]:,} points inside bounds read from "
                "the private X"
            )
        started = progress.start(
            f"building the cover from {source} "
            f"({describe_class(self.hypothesis_class)})..."
        )
        cover = self._build_cover(points, data.classes)
        progress.done(started, f"cover: {cover.size:,} members")
        return cover

    def _check_final_ledgers(self, cost):
        """Refuse, before the charge, a final estimator its ledgers cannot fit.

        The final estimator is fitted on public points relabeled by the
        release (post-processing) with its own ledgers, which it charges its
        own cost. A review found it refused there, after this fit's charge
        and private reads. Each of its ledgers is checked for that cost (plus
        this fit's, if it is this fit's ledger too); nothing is charged here.
        """
        final = self.final_estimator
        if final is None or not hasattr(final, "_privacy_cost"):
            return
        final_cost = fit_cost(final)
        for ledger in {id(led): led for led in every_ledger(final) if led}.values():
            total = final_cost
            if ledger is self.accountant:
                total = compose_basic([cost, final_cost])
            ledger.check(total.epsilon, total.delta)

    def _privacy_neighbours(self, **fit_params):
        """The neighbours ``_privacy_cost`` holds for (docs/privacy.rst).

        both: one exponential mechanism of score sensitivity 1 either way.
        """
        return "both"

    def _privacy_cost(self, **fit_params):
        """What ``fit`` reserves: ``(epsilon, 0)``, from the parameters alone.

        The fit arguments (public rows or not) do not change it. A search or a
        pipeline reserves it on this estimator's behalf before any private read.
        """
        return PrivacyCost(float(self.epsilon), 0.0)

    def _cover_points(self, data, rng, *, allow_leak=True):
        """Public points, or a data-independent grid when there are none.

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
        n_grid = (
            self.n_public if isinstance(self.n_public, Integral) else _DEFAULT_GRID_SIZE
        )
        return data_independent_points(bounds, n_grid, rng)

    def _build_cover(self, points, classes):
        """Alg. 1 steps 1-5, on public points (or the grid) only."""
        return _make_hypothesis_class(self.hypothesis_class).cover(
            points, classes=classes
        )

    def _mechanism(self):
        """The selection mechanism, as an object with its exact distribution."""
        # Sensitivity 1 (add/remove and replace-one): one private row changes
        # each member's count of correct predictions by at most 1.
        if self.mechanism == "exponential":
            return ExponentialMechanism(self.epsilon, sensitivity=1.0)
        return PermuteAndFlip(self.epsilon, sensitivity=1.0)

    @staticmethod
    def _score_rows(data):
        """Rows entering the score: the private ones, plus labeled public ones.

        Labeled public rows count like private ones: a base measure
        ``exp(eps/2 * correct_pub(h))`` that does not depend on private data, so
        the score's sensitivity to one private row stays 1.
        """
        if data.y_public is None:
            return data.X, data.y
        return (
            np.vstack([data.X, data.X_public]),
            np.concatenate([data.y, data.y_public]),
        )

    def _select_member(self, cover, data, rng):
        """Alg. 1 step 6: the only place private rows are read."""
        X_score, y_score = self._score_rows(data)
        # A cover of a user's class is code of another library run on private
        # rows after the charge: its errors and warnings, which may quote the
        # rows, are withheld (this package's covers pass unchanged).
        what = "the hypothesis class's scoring of the private rows"
        if self.mechanism == "exponential":
            # exp(epsilon * score / 2), the score of sensitivity 1 (see _mechanism);
            # factorised covers sample it exactly without enumerating members.
            return call_inner_on_private(
                cover, "sample_exponential", X_score, y_score, self.epsilon,
                random_state=rng, what=what,
            )  # fmt: skip
        # Sensitivity 1.
        scores = call_inner_on_private(cover, "scores", X_score, y_score, what=what)
        return int(self._mechanism().sample(scores, random_state=rng))

    def _member_log_probabilities(self, cover, data):
        """Exact distribution of ``_select_member`` over members (for audits).

        Needs every member's score, so only for covers small enough to hold.
        """
        return self._mechanism().log_probabilities(
            cover.scores(*self._score_rows(data))
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
