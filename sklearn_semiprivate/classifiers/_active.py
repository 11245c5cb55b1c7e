"""SubSamplingActiveClassifier: Beimel–Nissim–Stemmer's SubSampling (Alg. 4).

Beimel, Nissim & Stemmer, *Learning Privately with Labeled and Unlabeled
Examples*, Section 5.1. From a pool of ``t`` unlabeled rows, a uniformly random
subset ``J`` of ``n`` rows is drawn; only the ``m`` smallest indices of ``J``
(``K``) are sent to a label oracle, and a private semi-supervised learner runs on
``D_J`` (labeled on ``K``, unlabeled elsewhere). Claim 5.7: with
``t >= n (3 + e^{2 eps*}) / epsilon`` the learner is ``epsilon``-DP whatever
``epsilon``, so the labeled sample ``m`` does not grow as ``1 / epsilon``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import functools
import inspect
import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from .._public import (
    check_public_data,
    column_names,
    declared_classes,
    open_classes,
    resolve_classes,
    without_column_names,
)
from ..accounting import PrivacyAccountant, PrivacyCost
from ..accounting._reservation import (
    InnerLedgersMixin,
    probe_on_placeholders,
    replace_one_base_cost,
    reserve_on_every_ledger,
)
from ..utils._nested_fit import forget_secret_seeds, seed_unset_random_states
from ..utils._private_errors import call_inner_on_private, call_on_private
from ..utils._private_reads import private_reads_refused
from ..utils._rng import noise_rng, public_seed, spawn_rngs
from ..utils._sklearn_compat import HasMethods, Interval, _fit_context, validate_data
from ._active_cost import _pool_factor, subsampling_privacy_cost
from ._active_labels import (
    _ArrayOracle,
    _check_answers,
    _check_label_column,
    _with_unlabeled,
)
from ._base import check_label_kinds, check_label_set, check_private_labels, label_kind
from ._bounds import base_read_refused, refuse_unset_bounds
from ._delegate import FittedBaseMixin
from ._labelboost import LabelBoostClassifier

__all__ = ["SubSamplingActiveClassifier", "subsampling_privacy_cost"]


class SubSamplingActiveClassifier(
    InnerLedgersMixin, FittedBaseMixin, ClassifierMixin, BaseEstimator
):
    """Private active learner: label a random subset only (SubSampling).

    Beimel, Nissim & Stemmer, Algorithm 4 and Claim 5.7. On a pool of ``t``
    rows:

    1. a uniformly random subset ``J`` of ``n = n_subsample`` indices is drawn,
       and ``K`` is its ``m = n_labeled`` smallest indices;
    2. the label oracle is asked for the labels of ``K`` only;
    3. a clone of ``estimator`` runs on ``D_J``: the rows of ``K`` with their
       labels, the rows of ``J \\ K`` unlabeled.

    Parameters
    ----------
    estimator : estimator
        A private learner of this package, ``(eps*, delta)``-DP (its cost is
        read from it). The unlabeled rows of ``J \\ K`` go to it as
        ``X_unlabeled`` when its ``fit`` takes that (:class:`GenericLearnerClassifier`),
        as ``y == -1`` for :class:`LabelBoostClassifier` (integer and float
        labels keep their dtype, strings and booleans go in an object array
        with the integer -1, so -1 cannot be a class); any other learner is
        fitted on the labeled rows ``K`` only. One with a ``bounds``
        parameter (at any depth) left at None is refused when no
        ``X_public`` is passed: it would read its domain box off the private
        pool (before the charge, on parameters alone). Any other such read
        while it fits (a search's candidate without ``bounds``, a pipeline
        fitting its transformers on the private rows) stops the fit with a
        ``ValueError``: before the charge where a probe on placeholder rows
        reaches it, else at the read, before the value is used. Its own
        ``accountant`` (and any nested one), if set, is charged this
        estimator's ``privacy_spent_`` with this one, before the oracle is
        asked, each ledger once; ``estimator_`` is fitted with its ledgers
        cleared, so nothing is charged again.
    epsilon : float, default=1.0
        Target epsilon in ``(0, 1]``.
    n_subsample : int, default=None
        ``n = |J|``, at most ``t epsilon / (3 + e^{2 eps*})``. None: that
        largest value.
    n_labeled : int, default=None
        ``m = |K|``, the number of labels asked for, at most ``n``. None:
        ``n`` (every row of ``J`` labeled).
    classes : array-like of shape (n_classes,), default=None
        Every possible label. If None, the base learner's ``classes``, else
        the public labels, else the queried labels with a
        :class:`~sklearn_semiprivate.PrivacyLeakWarning`. The public data and
        a public label set are checked before the charge and before the
        oracle is asked.
    store_transcript : bool, default=False
        Keep the queried indices ``K`` as ``transcript_`` in the fitted (and
        pickled) model. The model with its transcript is only
        ``(eps*, delta)``-DP (Definition 5.4 with the base learner's
        guarantee, no amplification), so ``True`` charges, and sets
        ``privacy_spent_`` to, ``transcript_privacy_spent_``. The default
        keeps no transcript: the fitted model is Claim 5.7's.
    accountant : PrivacyAccountant, default=None
        Charged ``privacy_spent_`` before the oracle is asked (as is the base
        learner's ledger, if it has one).
    random_state : int, RandomState instance or None, default=None
        Seeds the public side only (an unseeded ``estimator``'s
        ``random_state`` when it is of this package or scikit-learn; another
        library's learner may draw its noise from it, and gets a secret seed).
        ``J`` is drawn from fresh OS entropy on every fit.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The label set.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` has string column names.
    n_subsample_ : int
        ``n = |J|``.
    n_labeled_ : int
        ``m = |K|``: labels asked for.
    transcript_ : ndarray of shape (``n_labeled_``,)
        Only with ``store_transcript=True``: the queried indices ``K``, in the
        order asked (ascending), the transcript of Definition 5.4.
    estimator_ : estimator
        The fitted base learner; ``predict`` uses it. Fitted with its ledgers
        cleared (charged through this estimator), it names them again
        afterwards: a refit of it charges them.
    base_privacy_cost_ : PrivacyCost
        ``(eps*, delta)`` of Claim 5.7: the base learner's replace-one cost,
        its stated cost or, when that holds for add/remove only, ``(2 eps,
        (1 + e^eps) delta)`` by group privacy.
    privacy_spent_ : PrivacyCost
        What the ledger was charged, the guarantee of the fitted estimator as
        stored: Claim 5.7's ``(epsilon, (7 + e^{eps*}) / (3 + e^{2 eps*})
        epsilon delta)``; with ``store_transcript=True``,
        ``transcript_privacy_spent_``.
    transcript_privacy_spent_ : PrivacyCost
        ``base_privacy_cost_``, the base learner's replace-one cost: what the
        model *together with* the transcript is (Definition 5.4), whether or
        not it is stored.

    See Also
    --------
    LabelBoostClassifier : a semi-supervised base learner with few labels.

    Notes
    -----
    **Privacy.** Neighbours: two fully labeled pools differing in one row
    (Definition 5.3), the pool size public. ``J`` does not depend on the data,
    so the changed row enters ``D_J`` with probability ``n / t``, and when it
    does ``D_J`` changes in at most two rows (the changed one, and one that
    moves between labeled and unlabeled): Claim 5.7's proof gives
    ``privacy_spent_`` for the fitted model, with ``eps*`` the base learner's
    guarantee for one entry replaced (``base_privacy_cost_``: an add/remove
    learner's cost doubled by group privacy; until a review in November 2026
    the add/remove cost was used, which sized the pool too small).

    **Transcript.** The paper's text says Algorithm 4 satisfies only the
    weaker Definition 5.3, not Definition 5.4: the transcript ``K`` is part of
    ``J``, so publishing it with the model reveals which rows the base
    learner saw, and no amplification is left. The model with the transcript
    is DP at the base learner's replace-one cost (given ``K``, one changed
    row changes ``D_J`` in at most one row): ``base_privacy_cost_``. So, by
    default, ``K`` is not kept: the fitted model (and its pickle) is Claim
    5.7's, and that is what the ledger is charged.
    ``store_transcript=True`` keeps it as ``transcript_`` and charges the
    weaker ``transcript_privacy_spent_`` instead. Either way the label
    oracle itself sees ``K``: it is outside the guarantee of Definition 5.3.

    **Labels read.** ``fit(X, label_oracle=f)`` calls ``f(K)`` once; ``fit(X,
    y)`` simulates it with ``y[K]``: no other label is read, checked or
    validated (the pool's labels are protected even when present). So a bad
    label (NaN, not a class) stops the fit, after its charge, only when its row
    is queried, an event outside the guarantee (limitations page). This holds
    for ``fit`` only. ``cross_validate``, ``GridSearchCV`` and the like split
    a classifier's rows with ``StratifiedKFold`` by default, which reads
    every label of ``y`` to stratify, and score on the held-out rows, which
    reads theirs (an exact release, see the privacy page): pass a
    non-stratified ``cv``
    (:class:`~sklearn_semiprivate.model_selection.PrivateKFold`) and score on
    public labeled rows to keep the labels outside ``K`` unread. The dtype of
    ``y``, and of the oracle's answers, is format: complex or date labels are
    refused before the charge when ``y`` is given.

    References
    ----------
    A. Beimel, K. Nissim, U. Stemmer. Learning Privately with Labeled and
    Unlabeled Examples. SODA 2015; Algorithmica 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import (SemiPrivateClassifier,
    ...                                  SubSamplingActiveClassifier)
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(20_000, 1))
    >>> asked = []
    >>> def oracle(indices):
    ...     asked.append(indices)
    ...     return (X[indices, 0] > 0.3).astype(int)
    >>> base = SemiPrivateClassifier("thresholds", epsilon=1.0, bounds=(0, 1),
    ...                              n_public=64, classes=[0, 1])
    >>> clf = SubSamplingActiveClassifier(base, epsilon=0.1, random_state=0)
    >>> clf = clf.fit(X, label_oracle=oracle)
    >>> clf.n_subsample_, clf.n_labeled_, len(asked), asked[0].size
    (192, 192, 1, 192)
    >>> clf.privacy_spent_
    PrivacyCost(epsilon=0.1, delta=0.0)
    >>> X_test = rng.uniform(size=(1000, 1))
    >>> bool(clf.score(X_test, (X_test[:, 0] > 0.3).astype(int)) > 0.8)
    True
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        "epsilon": [Interval(Real, 0, 1, closed="right")],
        "n_subsample": [Interval(Integral, 1, None, closed="left"), None],
        "n_labeled": [Interval(Integral, 1, None, closed="left"), None],
        "classes": ["array-like", None],
        "store_transcript": ["boolean"],
        "accountant": [PrivacyAccountant, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator,
        *,
        epsilon=1.0,
        n_subsample=None,
        n_labeled=None,
        classes=None,
        store_transcript=False,
        accountant=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.epsilon = epsilon
        self.n_subsample = n_subsample
        self.n_labeled = n_labeled
        self.classes = classes
        self.store_transcript = store_transcript
        self.accountant = accountant
        self.random_state = random_state

    # False: the base learner gets its own parameter validation.
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None, X_public=None, y_public=None, *, label_oracle=None):
        """Fit on the pool ``X``, asking for the labels of ``K`` only.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The pool (protected).
        y : array-like of shape (n_samples,), default=None
            The pool's labels (protected), used to simulate the oracle: only
            ``y[K]`` is read. Give either ``y`` or ``label_oracle``.
        X_public : PublicData or array-like, default=None
            Public rows, passed to the base learner as they are.
        y_public : array-like of shape (n_public,), default=None
            Public labels when ``X_public`` is a raw array.
        label_oracle : callable, default=None
            ``label_oracle(indices) -> labels``: called once with the
            ascending indices ``K`` into ``X``.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        if y is None and label_oracle is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y "
                "is None: give y (to simulate the label oracle) or label_oracle "
                "(a callable: indices -> labels)."
            )
        if y is not None and label_oracle is not None:
            raise ValueError("Give only one of y and label_oracle, not both.")
        if label_oracle is not None and not callable(label_oracle):
            raise TypeError("label_oracle must be callable: indices -> labels.")
        (rng_base,) = spawn_rngs(self.random_state, 1)
        names = column_names(X)  # any labels: feature_names_in_ has strings only
        # Format checks of the pool only; y is not looked at here.
        X = call_on_private(
            validate_data, self, X, reset=True, dtype=np.float64,
            what="the private pool X",
        )  # fmt: skip
        t = X.shape[0]
        if y is not None:
            y_kind = label_kind(y)  # a pandas column's declared type
            y = _check_label_column(y, t)
            label_oracle = _ArrayOracle(y)
        n, m, fit_kw, cost_kw = self._sizes(t, X_public, y_public)
        # Public data and the public label set: checked before the charge and
        # before the oracle is asked (questions about public inputs only).
        classes = self._public_classes(X, X_public, y_public, names)
        if classes is None and m < 2:
            # The label set would be read off m < 2 queried labels: one class
            # at most, refused after the charge whatever the data (a review).
            raise ValueError(
                f"n_labeled={m} with no classes= and no public labels: the label "
                "set would be read off fewer than two queried labels, one class "
                "at most. Pass classes=... listing every possible label, or "
                "public labels."
            )
        if y is not None and classes is not None:
            # The column's dtype against the label set's: a format fact.
            check_label_kinds(y, classes, kind=y_kind)
        base_cost = self._base_cost(**cost_kw)
        cost = self._privacy_cost(**cost_kw)
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
            has_public=X_public is not None,
            reason=(
                "base learner is fitted on the private pool (step 3), and "
                "privacy_spent_ covers its stated cost only"
            ),
        )
        # And its refusals of data of this format (a 1-D class on 2 features),
        # free when it is fitted alone (a review found them charged here).
        self._check_base_before_charge(X.shape[1], n, m, classes, fit_kw)
        # Charged before the oracle is asked and before any private read, on
        # this ledger and the base learner's (each once).
        cleared = reserve_on_every_ledger(self, cost)

        rng = noise_rng(self.random_state)
        # Alg. 4 step 1: J uniform of size n; K = the m smallest indices of J.
        J = rng.choice(t, n, replace=False)
        J.sort()
        K, rest = J[:m], J[m:]
        # Step 2: the oracle answers K only (one call, ascending indices).
        y_K = _check_answers(label_oracle(K.copy()), m)
        if classes is None:
            classes = self._classes_from_answers(y_K)
        check_private_labels(y_K, classes)
        # Step 3: the base learner on the multiset D_J, shuffled (Remark 4.4),
        # its ledgers cleared (charged above).
        estimator = self._base_estimator(estimator, classes, rng_base, cleared)
        # The pool reaches the base learner as an array: so do the public rows
        # (their column names were checked against the pool's above).
        fit_kw = {k: without_column_names(v) for k, v in fit_kw.items()}
        refused = base_read_refused("the private pool (step 3)", charged=True)
        with private_reads_refused(refused):
            self.estimator_ = self._fit_base(
                estimator, X, K, y_K, rest, rng, fit_kw, withhold=True
            )
        self._name_inner_ledgers()
        # Its secret seed (another library's learner) must not stay in it.
        forget_secret_seeds(self.estimator_, self.estimator)

        self.classes_ = classes
        self.n_subsample_ = n
        self.n_labeled_ = m
        if self.store_transcript:
            self.transcript_ = K
        elif hasattr(self, "transcript_"):
            del self.transcript_
        self.base_privacy_cost_ = base_cost
        self.privacy_spent_ = cost
        # The model with the transcript: given K, a replaced row changes D_J
        # in one row, so the base learner's replace-one cost.
        self.transcript_privacy_spent_ = cost if self.store_transcript else base_cost
        return self

    def _public_classes(self, X, X_public, y_public, names):
        """Check the public data; the label set if public (else None).

        ``classes``, else the base learner's, else the public labels. With a
        :class:`LabelBoostClassifier` base learner, its own conditions on the
        label set (two classes, no -1) are checked here too.
        """
        declared = self._declared_classes()
        if declared is not None:
            declared = resolve_classes(declared, None, None)
        _, yp = check_public_data(
            X_public, y_public, n_features=X.shape[1],
            feature_names=names, classes=declared,
        )  # fmt: skip
        if declared is None and yp is None:
            return None
        classes = check_label_set(resolve_classes(declared, yp, None))
        if isinstance(self.estimator, LabelBoostClassifier):
            self.estimator._check_classes(classes)
        return classes

    def _classes_from_answers(self, y_K):
        """The label set read off the queried labels (leak-warned), after the
        charge; the error quotes no label and no count."""
        classes = resolve_classes(None, None, y_K)
        if classes.size < 2:
            raise ValueError(
                "A classifier needs at least two classes, and the label set read "
                "from the queried labels (no classes= and no public labels) holds "
                "only one class. Pass classes=... listing every possible label."
            )
        if isinstance(self.estimator, LabelBoostClassifier):
            self.estimator._check_classes(classes, quote_size=False)
        return classes

    def _base_takes_unlabeled_rows(self):
        return "X_unlabeled" in inspect.signature(self.estimator.fit).parameters

    def _sizes(self, t, X_public, y_public):
        """``n``, ``m`` and the base learner's fit arguments, from public counts."""
        public_kw = {}
        if X_public is not None:
            public_kw = {"X_public": X_public, "y_public": y_public}
        takes_unlabeled = self._base_takes_unlabeled_rows()
        variants = [public_kw]
        if takes_unlabeled:
            variants.append({**public_kw, "X_unlabeled": True})
        # The pool bound of Claim 5.7 with the larger eps* of the two fits.
        eps_base = max(self._base_cost(**kw).epsilon for kw in variants)
        largest = math.floor(t * self.epsilon / _pool_factor(eps_base))
        n = largest if self.n_subsample is None else self.n_subsample
        if n < 1 or n > largest:
            need = max(n, 1) * _pool_factor(eps_base) / self.epsilon
            # inf (printed so) where e^(2 eps*) overflows.
            need = math.ceil(need) if math.isfinite(need) else need
            raise ValueError(
                f"Claim 5.7 needs a pool of t >= n (3 + e^(2 eps*)) / epsilon = "
                f"{need} rows for n_subsample={max(n, 1)} (eps*={eps_base:g} of "
                f"the base learner, epsilon={self.epsilon:g}); the pool has "
                f"n_samples={t}. Pass more rows or a smaller n_subsample."
            )
        m = n if self.n_labeled is None else self.n_labeled
        if m > n:
            raise ValueError(f"n_labeled={m} exceeds n_subsample={n}: K is part of J.")
        cost_kw = variants[-1] if m < n and takes_unlabeled else public_kw
        return n, m, public_kw, cost_kw

    def _fit_base(self, estimator, X, K, y_K, rest, rng, fit_kw, withhold=False):
        """Alg. 4 step 3 on ``D_J``; rows of ``J \\ K`` go in unlabeled.

        ``withhold``: on private rows, a learner of another library's error
        message is withheld (it may quote them); the probe on placeholders
        shows it whole.
        """
        fit = estimator.fit
        if withhold:
            fit = functools.partial(
                call_inner_on_private, estimator, "fit",
                what="the base learner's fit (step 3)",
            )  # fmt: skip
        order = rng.permutation(K.size)
        X_lab, y_lab = X[K[order]], y_K[order]
        if isinstance(estimator, LabelBoostClassifier) and y_lab.dtype.kind in "US":
            y_lab = y_lab.astype(object)  # LabelBoost refuses numpy strings
        if rest.size == 0:
            return fit(X_lab, y_lab, **fit_kw)
        X_rest = X[rng.permutation(rest)]
        if self._base_takes_unlabeled_rows():
            return fit(X_lab, y_lab, **fit_kw, X_unlabeled=X_rest)
        if not isinstance(estimator, LabelBoostClassifier):
            # A supervised learner ignores the unlabeled rows of D_J (a learner
            # of D_J that reads part of it is private on D_J all the same).
            return fit(X_lab, y_lab, **fit_kw)
        # The semi-supervised convention (LabelBoostClassifier): y == -1, in
        # an array that holds both the labels and -1 (object for strings and
        # booleans; LabelBoost masks -1 before it checks the labels).
        X_J = np.vstack([X_lab, X_rest])
        return fit(X_J, _with_unlabeled(y_lab, rest.size), **fit_kw)

    def _check_base_before_charge(self, n_features, n, m, classes, fit_kw):
        """Step 3's code on placeholder rows, up to the base's reservation."""
        if classes is None:
            # No public label set yet (it will be read off the queried
            # labels): placeholder labels, only the format matters here (a
            # review found the probe skipped and the base's refusals charged).
            classes = np.array([0, 1])
        rng = np.random.default_rng(0)  # placeholders: nothing secret
        probe = self._base_estimator(clone(self.estimator), classes, rng, {})
        kw = {k: without_column_names(v) for k, v in fit_kw.items()}

        def step_3(est, X, y):
            K, rest = np.arange(m), np.arange(m, n)
            return self._fit_base(est, X, K, y[:m], rest, rng, kw)

        refused = base_read_refused("the private pool (step 3)", charged=False)
        probe_on_placeholders(
            probe, n, n_features, classes, fit=step_3, refused=refused
        )

    def _declared_classes(self):
        """``classes``, else the label set declared in the base learner,
        however deep (both public); two different ones are an error."""
        return declared_classes(self)

    def _base_cost(self, **fit_params):
        """The base learner's replace-one cost ``(eps*, delta)``.

        Claim 5.7's proof runs the base learner on multisets ``D_J`` that
        differ in entries (one replaced, and possibly one labeled in one and
        unlabeled in the other), its ``eps*`` the guarantee for one entry
        replaced: the stated cost when that holds for replace-one (or both,
        or LabelBoost's restricted relation), else its group-privacy doubling
        (an add/remove learner such as the tree or the logistic regression; a
        review found their add/remove ``eps*`` put in the claim, which sized
        the pool too small).
        """
        # LabelBoost's "restricted" relation (a labeled entry replaced by a
        # labeled one, an unlabeled by an unlabeled one, the number labeled
        # fixed) covers D_J's changes too: K is the m smallest indices of J,
        # so swapping i for q replaces one labeled entry by a labeled one and
        # one unlabeled by an unlabeled one, m unchanged.
        return replace_one_base_cost(
            "SubSamplingActiveClassifier",
            self.estimator,
            also=("restricted",),
            **fit_params,
        )

    def _privacy_neighbours(self, **fit_params):
        """The neighbours ``_privacy_cost`` holds for (docs/privacy.rst).

        replace-one of the fully labeled pool (Claim 5.7).
        """
        return "replace-one"

    def _privacy_cost(self, **fit_params):
        """What a fit charges, from the parameters alone.

        Claim 5.7's guarantee of the model; with ``store_transcript=True``,
        the base learner's (Definition 5.4: the model with the transcript).
        A base learner that takes private unlabeled rows is fitted with them
        when ``n_labeled < n_subsample``, which the pool's size decides; the
        larger of the two costs is charged, so that the cost is a function of
        the parameters alone (a review found a pipeline charging the smaller).
        """
        variants = [fit_params]
        if self._base_takes_unlabeled_rows():
            variants.append({**fit_params, "X_unlabeled": True})
        costs = []
        for kw in variants:
            base_cost = self._base_cost(**kw)
            if self.store_transcript:
                costs.append(base_cost)
            else:
                costs.append(subsampling_privacy_cost(base_cost, self.epsilon))
        return PrivacyCost(max(c.epsilon for c in costs), max(c.delta for c in costs))

    def _base_estimator(self, estimator, classes, rng, cleared):
        """The clone of ``estimator``: label set, public-side seed, no ledger.

        Its ledgers (``cleared``) were charged this estimator's cost before
        the oracle was asked: fitted with them, it would charge its own cost
        again, after the private reads.
        """
        estimator.set_params(**cleared)
        # Every open label set, nested ones too (a pipeline's last step): left
        # None, it would be read off the queried labels (a review).
        estimator.set_params(**dict.fromkeys(open_classes(estimator), classes))
        # Another library's learner may draw its noise from random_state: a
        # seed from the public side would fix it (a review). A secret seed.
        return seed_unset_random_states(
            estimator,
            public_seed(rng),
            secret_seed=public_seed(noise_rng(self.random_state)),
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
