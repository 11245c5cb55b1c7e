"""LabelBoostClassifier: Beimel–Nissim–Stemmer's LabelBoost (Alg. 3 around Alg. 2).

Beimel, Nissim & Stemmer, *Learning Privately with Labeled and Unlabeled
Examples*, Section 4. A private learner ``A`` that needs ``n`` labeled rows is
turned into one that needs about ``VC(C) / alpha`` labeled rows and many
unlabeled ones: each round relabels a batch of unlabeled rows with a hypothesis
chosen by the exponential mechanism over the dichotomies of the current rows
(LabelBoostProcedure, Alg. 2), after deleting 99/100 of them at random, which
pays for the privacy loss of the round (Claim 4.3). ``A`` finally runs on i.i.d.
draws from 1/300 of the stretched labeled set (Alg. 3 steps 3-5).

The privacy proof (Lemma 4.6, Theorem 4.13; Theorem 4.14 with the extra
sub-sampling of Claim 4.3 for a target epsilon below 1) uses the deletion
fractions and the epsilon = 1 of Alg. 2 step 4; they are module constants
below, never parameters. The growth constants (the 200 and the 30000 of
step 2b, the 90000 of the pool) only drive utility and are parameters.
What the fit works out before its first private read (the label set, the
schedule, the costs) is in ``_labelboost_plan.py``.
"""

# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets

from .._public import (
    check_public_data,
    column_names,
    open_classes,
    without_column_names,
)
from ..accounting import PrivacyAccountant
from ..accounting._reservation import InnerLedgersMixin, reserve_on_every_ledger
from ..utils._nested_fit import forget_secret_seeds, seed_unset_random_states
from ..utils._private_errors import call_inner_on_private, call_on_private
from ..utils._private_reads import private_reads_refused
from ..utils._rng import noise_rng, public_seed, spawn_rngs
from ..utils._sklearn_compat import (
    HasMethods,
    Interval,
    StrOptions,
    _fit_context,
    validate_data,
)
from . import _labelboost_steps as steps
from ._base import check_private_labels, prepare_fit_data
from ._bounds import base_read_refused, refuse_unset_bounds
from ._delegate import FittedBaseMixin
from ._labelboost_plan import _UNLABELED, LabelBoostPlanMixin
from ._labelboost_steps import (
    LabelBoostSchedule,
    labelboost_privacy_cost,
    labelboost_schedule,
)

__all__ = [
    "LabelBoostClassifier",
    "LabelBoostSchedule",
    "labelboost_privacy_cost",
    "labelboost_schedule",
]


class LabelBoostClassifier(
    InnerLedgersMixin,
    LabelBoostPlanMixin,
    FittedBaseMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Private learning from few labeled and many unlabeled private rows.

    Beimel, Nissim & Stemmer, Algorithm 3 (LabelBoost) around Algorithm 2
    (LabelBoostProcedure). ``fit(X, y)`` takes one private database whose
    unlabeled rows are marked ``y == -1`` (scikit-learn's semi-supervised
    convention, as in ``SelfTrainingClassifier``: ``-1`` or ``-1.0``; string
    labels go in an object array with the integer ``-1``, and a numpy string
    array is refused, since it cannot hold it). ``-1`` therefore cannot be a
    class: recode labels in ``{-1, +1}`` (e.g. to 0/1). Labeled rows form
    ``S``, unlabeled rows the pool ``D``. While
    ``|S| < 300 n`` (``n = n_base``, the base learner's sample complexity):

    1. ``alpha_i = alpha / (10 2^i)``, ``beta_i = beta / (4 2^i)``;
    2. the next ``v`` unlabeled rows form ``T``;
    3. 99/100 of ``T`` and of ``S`` are deleted at random;
    4. the exponential mechanism (epsilon 1) picks one hypothesis per dichotomy
       of the points of ``S ∘ T``, scored on ``S``;
    5. ``S ∘ T`` is relabeled by it and becomes the new ``S``.

    Then 299/300 of ``S`` are deleted, ``|S|`` i.i.d. draws are taken from the
    rest, and a clone of ``estimator`` is fitted on them (``estimator_``).

    Parameters
    ----------
    estimator : estimator
        A private learner of this package (it states its cost through
        ``_privacy_cost``), ``(eps*, delta)``-DP with ``eps* <= 1`` for
        replace-one neighbours, as Lemma 4.6 needs: ``epsilon=1`` for a learner
        private for replace-one neighbours, ``epsilon=0.5`` for one private for
        add/remove neighbours only (the tree, the logistic regression,
        PrivateSGDClassifier), whose cost group privacy doubles. One with a
        ``bounds`` parameter (at any depth) left at None is refused when no
        ``X_public`` is passed: it would read its domain box off the private
        rows of step 5 (before the charge, on parameters alone). Any other such
        read while it fits (a search's candidate without ``bounds``, a pipeline
        fitting its transformers on the private rows) stops the fit with a
        ``ValueError``: before the charge where a probe on placeholder rows
        reaches it, else at the read, before the value is used. Its ``classes``,
        when None, is set to ``classes_``. Its own ``accountant`` (and any
        nested one), if set, is charged LabelBoost's ``privacy_spent_`` with
        this one, before the first private read, each ledger once;
        ``estimator_`` is fitted with its ledgers cleared, so nothing is charged
        again.
    hypothesis_class : {"thresholds", "intervals"} or HypothesisClass, \
            default="thresholds"
        The class ``C`` whose dichotomies Alg. 2 enumerates: any object whose
        ``cover(X, classes)`` holds exactly one member per labeling of the
        distinct points of ``X`` that the class realizes. The strings are 1-D
        classes (one feature); with several features pass an object, e.g.
        :class:`~sklearn_semiprivate.hypotheses.DecisionStumps`, and ``vc_dim``.
        Unlike elsewhere in this package, its ``cover`` runs on private
        points: the class must be fixed in advance (``PartitionLabelings``
        with a string partitioner, which fits its cells on those points, is
        refused) and take any finite point. Its warnings there are dropped,
        and an error it raises is replaced by one that does not show it
        (whether it fails still depends on the private points).
    vc_dim : int, default=None
        VC dimension of ``hypothesis_class`` (step 2b). None: 2 for
        thresholds, 3 for intervals; required for another class.
    epsilon : float, default=1.0
        Target epsilon in ``(0, 1]``. Below 1, the fit first keeps a random
        ``epsilon / (3 + e)`` fraction of the labeled and of the unlabeled rows
        (Claim 4.3, Theorem 4.14).
    delta : float, default=None
        Largest delta you accept. None accepts the theorem's (``41`` times the
        base learner's, times ``4 epsilon / (3 + e)`` below epsilon 1); a
        float makes ``fit`` raise, before any private read, when it is larger.
    alpha, beta : float, default=0.1
        Utility parameters of step 2a (and of step 2b's growth).
    n_base : int, default=None
        The base learner's sample complexity ``n``: the loop stops at
        ``|S| >= 300 n``. None: ``n_unlabeled // pool_factor`` (the paper's
        pool of ``90000 n`` unlabeled rows).
    growth_denominator : float, default=200.0
        The 200 of step 2b's ``e^{alpha_i |S| / (200 VC)}``. Utility only.
    batch_factor : float, default=30000.0
        The 30000 of step 2b's cap ``v <= 30000 n``. Utility only.
    pool_factor : float, default=90000.0
        The 90000 of the pool ``|D| = 90000 n`` (used only when ``n_base`` is
        None). Utility only.
    classes : array-like of shape (2,), default=None
        The two labels (LabelBoost is binary; -1 cannot be one). If None, the
        base learner's ``classes``, else the public labels, else the private
        labels with a :class:`~sklearn_semiprivate.PrivacyLeakWarning`. A
        label set that is not two classes, or holds -1, is refused before the
        charge; when it was read off the private labels, the error does not
        say how many labels there are.
    accountant : PrivacyAccountant, default=None
        Charged ``privacy_spent_`` before the first private read (as is the
        base learner's ledger, if it has one).
    random_state : int, RandomState instance or None, default=None
        Seeds the public side only (an unseeded ``estimator``'s
        ``random_state`` when it is of this package or scikit-learn; another
        library's learner may draw its noise from it, and gets a secret seed).
        The deletions, the sub-sampling and the
        exponential mechanism draw fresh OS entropy on every fit.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The label set.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` has string column names.
    schedule_ : LabelBoostSchedule
        Every step's sizes (public counts only).
    n_rounds_ : int
        Number of rounds of step 2.
    labeled_sizes_ : ndarray of shape (``n_rounds_ + 1``,)
        ``|S|`` at the start of each round, then when the loop stops: the
        exponentiation tower of Remark 4.10.
    n_base_rows_ : int
        Rows of ``S`` after step 3, and draws the base learner is fitted on.
    estimator_ : estimator
        The fitted base learner: the final hypothesis. ``predict`` uses it.
        Fitted with its ledgers cleared (charged through LabelBoost), it names
        them again afterwards: a refit of it charges them.
    base_privacy_cost_ : PrivacyCost
        The base learner's replace-one cost: its stated cost, or that cost
        doubled by group privacy when it holds for add/remove only.
    privacy_spent_ : PrivacyCost
        Theorem 4.13's ``(1, 41 delta)``, or Theorem 4.14's ``(epsilon,
        4 epsilon / (3 + e) 41 delta)`` below epsilon 1.

    See Also
    --------
    SemiPrivateClassifier : with a *public* unlabeled pool, relabeling it is
        free: ``SemiPrivateClassifier(final_estimator=...)``.
    SubSamplingActiveClassifier : labels only a random subset (Alg. 4).

    Notes
    -----
    **Privacy.** Replace-one neighbours within each part of Alg. 3's input
    (a labeled database ``S`` and an unlabeled one ``D``; Lemma 4.6): one
    labeled row replaced by a labeled row, or one unlabeled row by an
    unlabeled row, narrower than Definition 2.1's any-entry replacement; the
    number of labeled and of unlabeled rows, and the hyper-parameters, are
    public, so every size in ``schedule_`` is. The proof (Lemma 4.6) is an
    induction over the rounds: Alg. 2 followed by the rest is
    ``(4, 446 delta)``-DP (Lemma 4.1), and step 2c's deletion (Claim 4.3)
    brings it back to ``(1, 41 delta)``; steps 3-5 use Claims 4.5 and 4.3.
    Step 2c deletes within ``S`` and within ``T`` separately, and Claim 4.3 is
    applied the same way to the labeled and unlabeled parts for a target
    epsilon below 1: its proof only uses that the changed row is kept with
    probability at most the rate, independently of the data. The kept rows are
    in random order (Remark 4.4). The dichotomies of a round depend on private
    points; neither they nor the chosen hypotheses are stored.

    **Public data.** ``X_public``/``y_public`` are passed to the base learner
    unchanged. With a public unlabeled pool the relabeled pool can be public:
    the exponential mechanism over the dichotomies of the public points,
    scored on the private labeled rows, followed by a learner fitted on the
    relabeled public points, is exactly :class:`SemiPrivateClassifier` with
    ``final_estimator`` (no deletion needed: the cover is public). Use it.

    **Sample sizes.** With the paper's constants a round grows ``S`` only
    when ``|S|`` is of order ``40000 VC / alpha_i`` times a logarithm (Claim
    4.9 asks ``96000 VC log(2240 / (alpha beta)) / alpha`` labeled rows, and
    the rounds about ``90000 n`` unlabeled ones). ``fit`` computes the
    schedule from the counts before reading any row and, when it cannot run,
    raises a ``ValueError`` naming the labeled and unlabeled rows it would
    need. Smaller ``growth_denominator``/``batch_factor`` are a change of the
    utility analysis only; the privacy steps and the guarantee are the same.

    References
    ----------
    A. Beimel, K. Nissim, U. Stemmer. Learning Privately with Labeled and
    Unlabeled Examples. SODA 2015; Algorithmica 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import LabelBoostClassifier, SemiPrivateClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(320_000, 1))
    >>> y = (X[:, 0] > 0.3).astype(int)
    >>> y[2500:] = -1  # 2500 labeled rows, the rest unlabeled
    >>> base = SemiPrivateClassifier("thresholds", epsilon=1.0, bounds=(0, 1),
    ...                              n_public=64)
    >>> clf = LabelBoostClassifier(base, n_base=10, growth_denominator=0.1,
    ...                            classes=[0, 1], random_state=0).fit(X, y)
    >>> clf.n_rounds_, clf.labeled_sizes_.tolist(), clf.n_base_rows_
    (1, [2500, 3025], 10)
    >>> clf.schedule_.batch_sizes  # v of each round: 30000 n unlabeled rows
    (300000,)
    >>> clf.privacy_spent_  # Theorem 4.13 with a pure (1, 0)-DP base learner
    PrivacyCost(epsilon=1.0, delta=0.0)
    >>> clf.predict([[0.1], [0.9]]).shape
    (2,)
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        "hypothesis_class": [
            StrOptions(set(steps._BUILTIN_CLASSES)),
            HasMethods(["cover"]),
        ],
        "vc_dim": [Interval(Integral, 1, None, closed="left"), None],
        "epsilon": [Interval(Real, 0, 1, closed="right")],
        "delta": [Interval(Real, 0, 1, closed="both"), None],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "beta": [Interval(Real, 0, 1, closed="neither")],
        "n_base": [Interval(Integral, 1, None, closed="left"), None],
        "growth_denominator": [Interval(Real, 0, None, closed="neither")],
        "batch_factor": [Interval(Real, 0, None, closed="neither")],
        "pool_factor": [Interval(Real, 0, None, closed="neither")],
        "classes": ["array-like", None],
        "accountant": [PrivacyAccountant, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator,
        *,
        hypothesis_class="thresholds",
        vc_dim=None,
        epsilon=1.0,
        delta=None,
        alpha=0.1,
        beta=0.1,
        n_base=None,
        growth_denominator=200.0,
        batch_factor=30000.0,
        pool_factor=90000.0,
        classes=None,
        accountant=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.hypothesis_class = hypothesis_class
        self.vc_dim = vc_dim
        self.epsilon = epsilon
        self.delta = delta
        self.alpha = alpha
        self.beta = beta
        self.n_base = n_base
        self.growth_denominator = growth_denominator
        self.batch_factor = batch_factor
        self.pool_factor = pool_factor
        self.classes = classes
        self.accountant = accountant
        self.random_state = random_state

    # False: the base learner gets its own parameter validation.
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, X_public=None, y_public=None):
        """Fit on private ``(X, y)``; rows with ``y == -1`` are unlabeled.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows (protected), labeled and unlabeled.
        y : array-like of shape (n_samples,)
            Private labels (protected); ``-1`` marks an unlabeled row. String
            labels: an object array (with the integer ``-1``); numpy string
            dtypes are refused.
        X_public : PublicData or array-like, default=None
            Public rows, passed to the base learner as they are.
        y_public : array-like of shape (n_public,), default=None
            Public labels when ``X_public`` is a raw array.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        (rng_base,) = spawn_rngs(self.random_state, 1)
        names = column_names(X)  # any labels: feature_names_in_ has strings only
        # Format checks only: shapes, finite values, the label dtype.
        X, y = call_on_private(
            validate_data, self, X, y, reset=True, dtype=np.float64,
            what="the private rows (X, y)",
        )  # fmt: skip
        _check_label_dtype(y)
        # -1 is masked before the labels are checked: the labeled rows only
        # must be class-like (strings in an object array with -1, as
        # scikit-learn's SelfTrainingClassifier takes them).
        unlabeled = _unlabeled_mask(y)
        # Which rows are labeled is public (Definition 2.6: S is the first
        # portion of the database), and so are the two counts.
        X_lab, y_lab, X_unl = X[~unlabeled], y[~unlabeled], X[unlabeled]
        if X_lab.shape[0] == 0:
            raise ValueError(
                "LabelBoostClassifier needs labeled rows: every label is -1 "
                "(unlabeled). Step 4 of Alg. 2 scores hypotheses on them."
            )
        y_lab = _labeled_values(y_lab)
        call_on_private(check_classification_targets, y_lab, what="the private labels")
        # prepare_fit_data re-validates the (array) rows: keep the names.
        if names is not None and X_public is not None:
            # Public column names checked against X's, then dropped: the rows
            # below are arrays (public data only).
            check_public_data(
                X_public, y_public, n_features=X.shape[1], feature_names=names
            )
            X_public = without_column_names(X_public)
        declared = self._declared_classes()
        data = prepare_fit_data(
            self, X_lab, y_lab, X_public, y_public,
            classes=declared, n_public=None, rng=None,
        )  # fmt: skip
        if names is not None:
            self.feature_names_in_ = names
        classes = data.classes
        # Read off the private labels (the leak-warned fallback, whose label
        # set is released anyway), the error does not quote how many there are.
        public_classes = declared is not None or data.y_public is not None
        self._check_classes(classes, quote_size=public_classes)
        hypothesis_class = self._relabeling_class(X.shape[1])
        base_kwargs = {}
        if data.X_public is not None:
            base_kwargs = {"X_public": X_public, "y_public": y_public}
        base_cost = self._base_cost(**base_kwargs)
        schedule = self._schedule(X_lab.shape[0], X_unl.shape[0])
        cost = self._privacy_cost(**base_kwargs)
        # The base learner's parameters are checked first (free).
        estimator = clone(self.estimator)
        # (A learner of another library may have _validate_params from
        # BaseEstimator without _parameter_constraints: a review's
        # AttributeError.)
        if hasattr(estimator, "_parameter_constraints") and hasattr(
            estimator, "_validate_params"
        ):
            estimator._validate_params()
        refuse_unset_bounds(
            estimator,
            has_public=bool(base_kwargs),
            reason=(
                "base learner is fitted on private rows (step 5), and "
                "privacy_spent_ covers its stated cost only"
            ),
        )
        self._check_before_charge(
            hypothesis_class, X.shape[1], schedule.base_rows, classes, base_kwargs
        )
        # Reserved before the first private read, on this ledger and the base
        # learner's (each once); kept if the fit fails later.
        cleared = reserve_on_every_ledger(self, cost)
        check_private_labels(y_lab, classes)

        rng = noise_rng(self.random_state)
        # Theorem 4.14 (Claim 4.3, per part), in random order (Remark 4.4).
        lab = rng.choice(X_lab.shape[0], schedule.n_labeled, replace=False)
        unl = rng.choice(X_unl.shape[0], schedule.n_unlabeled, replace=False)
        X_S, y_S, pool = X_lab[lab], y_lab[lab], X_unl[unl]
        start = 0
        for size, v in zip(schedule.labeled_sizes, schedule.batch_sizes):
            X_T = pool[start : start + v]  # Alg. 3 step 2b: the next v rows
            start += v
            # Step 2c (Claim 4.3 in Lemma 4.6): keep 1/100 of S and of T.
            keep_S = rng.choice(size, size // steps._ROUND_KEEP, replace=False)
            keep_T = rng.choice(v, v // steps._ROUND_KEEP, replace=False)
            # Steps 2d-2e: Alg. 2 relabels S ∘ T, which becomes S.
            X_S, y_S = steps._relabel(
                hypothesis_class, classes, X_S[keep_S], y_S[keep_S],
                X_T[keep_T], rng,
            )  # fmt: skip
        # Step 3 (Claim 4.3 with eps* = ln 244): keep 1/300 of S.
        keep = rng.choice(X_S.shape[0], schedule.base_rows, replace=False)
        # Step 4 (Claim 4.5): |S| i.i.d. draws from the kept rows.
        draws = keep[rng.integers(schedule.base_rows, size=schedule.base_rows)]
        # Step 5: the base learner on S', its ledgers cleared (charged above).
        estimator = self._base_estimator(estimator, classes, rng_base, cleared)
        refused = base_read_refused("its private rows (step 5)", charged=True)
        with private_reads_refused(refused):
            # A learner of another library may quote its rows in an error.
            self.estimator_ = call_inner_on_private(
                estimator, "fit", X_S[draws], y_S[draws],
                what="the base learner's fit (step 5)", **base_kwargs,
            )  # fmt: skip
        self._name_inner_ledgers()
        # Its secret seed (another library's learner) must not stay in it.
        forget_secret_seeds(self.estimator_, self.estimator)

        self.classes_ = classes
        self.schedule_ = schedule
        self.n_rounds_ = len(schedule.labeled_sizes)
        self.labeled_sizes_ = np.array(
            [*schedule.labeled_sizes, schedule.final_size], dtype=np.int64
        )
        self.n_base_rows_ = schedule.base_rows
        self.base_privacy_cost_ = base_cost
        self.privacy_spent_ = cost
        return self

    def _base_estimator(self, estimator, classes, rng, cleared):
        """The clone of ``estimator``: label set, public-side seed, no ledger.

        Its ledgers (``cleared``) were charged LabelBoost's cost before the
        first private read: fitted with them, it would charge its own cost
        again, after the rounds read private rows.
        """
        estimator.set_params(**cleared)
        # Every open label set, nested ones too (a pipeline's last step): left
        # None, it would be read off the relabeled rows (a review).
        estimator.set_params(**dict.fromkeys(open_classes(estimator), classes))
        # Package estimators seed only their public side with random_state;
        # another library's learner may draw its noise from it: a secret seed.
        return seed_unset_random_states(
            estimator,
            public_seed(rng),
            secret_seed=public_seed(noise_rng(self.random_state)),
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.classifier_tags.multi_class = False
        return tags


def _check_label_dtype(y):
    """Refuse numpy string labels, which cannot hold the integer -1 (format).

    As scikit-learn's ``SelfTrainingClassifier``: string labels go in an
    object array, with the integer -1 for unlabeled rows.
    """
    if y.dtype.kind in "US":
        raise ValueError(
            "y has a numpy string dtype, which cannot mark unlabeled rows with "
            "the integer -1 (the string '-1' would be a label). For string "
            "labels use dtype=object, with -1 for the unlabeled rows."
        )


def _unlabeled_mask(y):
    """Rows marked ``-1`` (unlabeled): ``-1`` or ``-1.0``, never ``'-1'``."""
    if y.dtype.kind in "iufO":
        return np.asarray(y == _UNLABELED, dtype=bool)
    return np.zeros(y.shape[0], dtype=bool)


def _labeled_values(y_lab):
    """The labeled rows' labels; an object array of numbers becomes numeric.

    scikit-learn reads an object array whose first label is not a string as
    an unknown target type, and an object array is what holds string labels
    next to the integer -1 (and what SubSamplingActiveClassifier builds for
    float or boolean labels). Strings stay an object array; a mix of strings
    and numbers among the labeled rows is a format error (no value quoted).
    """
    if y_lab.dtype.kind != "O":
        return y_lab
    is_str = np.fromiter((isinstance(v, str) for v in y_lab), bool, y_lab.size)
    if is_str.all():
        return y_lab
    if is_str.any():
        raise TypeError(
            "The labeled rows of y mix strings and numbers (in the private "
            "labels; no value is quoted). Give every label the same type."
        )
    return np.asarray(y_lab.tolist())
