"""PrivateParameterSearch: hyper-parameter selection with a guarantee.

``GridSearchCV`` on private data releases exact validation scores, and a
``best_params_`` chosen from them, outside any guarantee. This search selects
in one of three ways, each with a cost known before any fit:

* **public validation**: every candidate is fitted once on the private rows
  (each fit charged; basic composition) and scored on public labeled rows;
  the selection reads nothing private, so it is free.
* **random stopping** (Liu & Talwar 2019, Theorem 3.4; see ``_selection.py``):
  a secret geometric number of runs, each drawing a candidate at random,
  fitting it on a private training split and scoring it with Laplace noise on
  the disjoint private validation split; only the best run is released. The
  total is ``3 x`` one run's cost, not a sum over the grid.
* **exponential** (``_private_fits.py``): every candidate fitted once on all
  the private rows (each fit charged), then the exponential mechanism on the
  candidates' counts of correctly classified private rows. The total is the
  sum of the fits plus ``score_epsilon``: cheaper than random stopping for a
  few candidates, and every candidate sees every private row.
"""

# SPDX-License-Identifier: BSD-3-Clause

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils import check_array, check_consistent_length, indexable
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from ..accounting import PrivacyAccountant
from ..accounting._reservation import reserve_budget
from ..classifiers._base import label_kind
from ..classifiers._bounds import unset_bounds
from ..pipeline._checks import unwrap_public
from ..utils._nested_fit import dropped_in_this_thread
from ..utils._private_errors import call_on_private
from ..utils._private_reads import warn_private_read
from ..utils._sklearn_compat import (
    HasMethods,
    Interval,
    StrOptions,
    _fit_context,
    _safe_indexing,
)
from ._candidates import (
    candidate,
    candidate_list,
    dry_run,
    restore_settings,
    search_ledger,
)
from ._delegate import BestEstimatorMixin
from ._private_fits import check_split_size, validation_size
from ._search_plan import SearchPlanMixin
from ._search_steps import SearchStepsMixin

__all__ = ["PrivateParameterSearch"]


class PrivateParameterSearch(
    SearchPlanMixin,
    SearchStepsMixin,
    BestEstimatorMixin,
    MetaEstimatorMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Hyper-parameter search whose selection is private, at a cost known upfront.

    Three ways to select, each charging the ledger **once, for the whole
    search, before any fit**:

    * ``selection="public"``: each candidate is fitted once on all the private
      rows and scored on **public labeled** rows. The fits are charged (their
      costs add up); the selection reads no private row, so it is free.
    * ``selection="random_stopping"``: the private rows are split (secretly) into
      training and validation parts. A run draws a candidate uniformly at
      random, fits it on the training part, and counts its correct predictions
      on the validation part, released with Laplace noise. The number of runs
      is secret and geometric with mean ``n_runs``; only the best run is
      released. Total cost: ``3 x`` the cost of one run (Liu & Talwar 2019,
      Thm 3.4), plus one refit, whatever the number of candidates.
    * ``selection="exponential"``: each candidate is fitted once on all the
      private rows, and the exponential mechanism at ``score_epsilon`` picks
      one by its count of correctly classified private rows (sensitivity 1).
      Total cost: the candidates' costs added up, plus ``score_epsilon``. For
      two or three candidates this is cheaper than random stopping, and it
      takes approximate-DP candidates (``delta > 0``). Training accuracy is a
      fair score here because a DP fit barely overfits: with thousands of
      rows, ``score_epsilon = 0.1`` already tells apart candidates one point
      of accuracy apart (``exp(0.1 x 50 / 2)`` on 5,000 rows).

    Parameters
    ----------
    estimator : estimator
        A classifier of this package (or a
        :class:`~sklearn_semiprivate.PublicFittedPipeline` ending in one) that
        reserves its cost on an ``accountant`` before its first private read.
    param_distributions : dict or list of dicts
        Candidates, as for :class:`~sklearn.model_selection.RandomizedSearchCV`:
        lists (a grid) or scipy distributions. A grid of lists gives every
        combination; otherwise ``n_candidates`` are drawn (public-side, from
        ``random_state``).
    classes : array-like of shape (n_classes,), default=None
        Every possible label (public). It fills every candidate's open
        ``classes`` parameter (None, under no declared one), so the search
        reads no label set off the private rows; an estimator that nests the
        search (:class:`~sklearn_semiprivate.SubSamplingActiveClassifier`,
        :class:`~sklearn_semiprivate.LabelBoostClassifier`) sets it to its
        own label set. None: the public labels' set with public selection;
        otherwise, when a candidate has an open ``classes``, the private
        labels' set, read once with a
        :class:`~sklearn_semiprivate.exceptions.PrivacyLeakWarning`.
    n_candidates : int, default=None
        How many candidates to draw from ``param_distributions``; None takes the
        whole grid when every value is a list, else 10.
    selection : {"auto", "public", "random_stopping", "exponential"}, \
            default="auto"
        ``"auto"`` is ``"public"`` when public labels are given; without
        them, ``"random_stopping"``, or ``"exponential"`` when a candidate
        costs ``delta > 0`` (random stopping needs pure-DP candidates).
    validation_fraction : float, default=0.2
        Random stopping only: the share of private rows held out for scoring.
    n_runs : float, default=None
        Random stopping only: the expected number of runs, ``>= 1`` (the stopping
        probability is ``1 / n_runs``). More runs cost time, not privacy. None
        uses the number of candidates.
    score_epsilon : float, default=None
        Random stopping: epsilon of the Laplace noise on each run's
        validation count (sensitivity 1). None uses the largest candidate
        replace-one epsilon (see Notes), which is free: training and
        validation rows are disjoint, so a run costs the larger of the two,
        not their sum.
        Exponential: epsilon of the exponential mechanism that selects (it
        adds to the cost). None uses a tenth of the candidates' summed epsilon.
    refit : bool, default=True
        Random stopping only. True refits the winner on all the private rows
        (one more fit, charged upfront at the largest candidate replace-one
        cost). False keeps the winning run's model, fitted on the training
        part, at no extra cost. With public selection the winner is already
        fitted on every private row and nothing is refitted.
    accountant : PrivacyAccountant, default=None
        Ledger charged the search's whole cost before any fit. An accountant
        set on ``estimator`` itself is used when this one is None (two
        different ledgers are an error); the candidates' own fits are then not
        charged again.
    n_jobs : int, default=None
        Parallel fits (joblib). The total is reserved before dispatch, and the
        fits charge no ledger, so any backend is safe.
    verbose : int, default=0
        Print the stages of the search (public information only: never the
        number of runs nor a score before the end).
    random_state : int, RandomState instance or None, default=None
        Seeds the public side only: which candidates are drawn from
        distributions (from a copy of a RandomState instance, so the same
        ones on every fit; a nested search with drawn candidates needs an
        int). The split, the number of runs, the candidate of each
        run and the score noise are privacy noise, fresh on every fit.

    Attributes
    ----------
    best_estimator_ : estimator
        The selected candidate, fitted. Its ``verbose`` and ``memory`` are
        the given ones (switched off during the search), and its ledgers are
        the search's: refitted, or cloned and fitted, it charges that ledger
        again.
    best_params_ : dict
        Its parameters.
    best_index_ : int
        Its index in ``cv_results_["params"]``.
    best_score_ : float
        Its accuracy: on the public labeled rows (exact), on the private
        validation part (random stopping: noisy, clipped to ``[0, 1]``), or
        NaN (exponential: the counts are not released).
    cv_results_ : dict of arrays
        One entry per candidate, DP quantities only: ``params``,
        ``param_<name>``, ``cost_epsilon``, ``cost_delta`` (public),
        ``selected``, and ``mean_test_score``. With public selection every
        candidate has its exact public score and ``rank_test_score``; with
        random stopping only the winner has a (noisy) score, the others NaN:
        which candidates ran, and their scores, are not covered by the
        guarantee and are not released; with exponential selection every
        score is NaN.
    selection_ : str
        ``"public"``, ``"random_stopping"`` or ``"exponential"``.
    privacy_spent_ : PrivacyCost
        The search's whole cost, as reserved, for the neighbours in
        ``privacy_neighbours_``.
    privacy_neighbours_ : {"both", "add/remove", "replace-one"}
        The neighbour relation ``privacy_spent_`` holds for (see Notes).
    replace_one_privacy_ : PrivacyCost
        Only when ``privacy_neighbours_`` is ``"add/remove"``: the cost for
        replace-one neighbours.
    classes_ : ndarray of shape (n_classes,)
        The winner's classes.
    n_features_in_ : int
        Number of features seen by the winner.

    See Also
    --------
    sklearn_semiprivate.display.PrivacyUtilityDisplay : accuracy against
        epsilon, which is what a grid over ``epsilon`` usually means to ask.

    Notes
    -----
    **Privacy.** Each candidate states the neighbour relation its cost holds
    for (add/remove, replace-one or both; the table in :doc:`/privacy`); a
    candidate's replace-one cost is its stated cost when that holds for
    replace-one, else ``(2 epsilon, (1 + e^epsilon) delta)`` by group privacy
    (also for an estimator that does not say). *Public selection*: the
    candidates' fits compose (basic composition) and the scores on public rows
    are post-processing. *Exponential*: the fits are released models (basic
    composition); given them, one row added, removed or replaced changes each
    candidate's count of correct predictions by at most 1, so the exponential
    mechanism is ``score_epsilon``-DP (McSherry & Talwar 2007, Theorem 6), and
    adaptive composition adds the two. These two hold for the relation every
    candidate holds for: both, when every candidate is private for both;
    add/remove, when every one holds for add/remove (``replace_one_privacy_``
    then adds up the replace-one costs); else replace-one, with every
    candidate's replace-one cost. *Random stopping* holds for replace-one
    only (the number of private rows is treated as public, so the validation
    size is too; adding a row would move another across the split): the
    split is a secret permutation independent of the data, so a replaced row
    is in exactly one part; a run is then ``max(eps_fit, eps_score)``-DP
    (``eps_fit`` the candidate's replace-one epsilon in the training part,
    the count of correct validation predictions has sensitivity 1), and the
    best of a secret geometric number of such runs is ``3 max(eps_fit,
    eps_score)``-DP (Liu & Talwar 2019, Theorem 3.4), which needs pure-DP
    candidates. The refit adds the largest candidate replace-one cost. The
    number of runs, the runs' candidates and their scores stay secret; the
    wall-clock time of ``fit`` grows with the number of runs, a side channel
    outside the model. Until a review in November 2026 the search stated
    replace-one while it composed the candidates' add/remove costs: a search
    over a :class:`~sklearn_semiprivate.SemiPrivateTreeClassifier` was
    charged less than its replace-one loss (tested exactly in
    ``tests/model_selection/test_search_neighbours.py``).

    **Stateless parameters.** Parameter values are cloned for every run, but
    ``clone`` leaves functions as they are: a callable parameter (a
    ``dummy_sampler``) with state of its own is shared by the runs, and its
    state would count them. Give stateless callables.

    **A grid over epsilon.** Selection then prefers the largest epsilon, and
    the search costs three times the largest; it answers "which candidate is
    best", not "what does each epsilon buy". For the privacy-utility curve,
    use :class:`~sklearn_semiprivate.display.PrivacyUtilityDisplay`.

    References
    ----------
    J. Liu, K. Talwar. Private Selection from Private Candidates. STOC 2019.
    N. Papernot, T. Steinke. Hyperparameter Tuning with Renyi Differential
    Privacy. ICLR 2022.
    F. McSherry, K. Talwar. Mechanism Design via Differential Privacy.
    FOCS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PublicData, SemiPrivateClassifier
    >>> from sklearn_semiprivate.model_selection import PrivateParameterSearch
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(size=(2000, 3))
    >>> y = (X[:, 1] > 0.6).astype(int)
    >>> X_pub = rng.uniform(size=(100, 3))
    >>> search = PrivateParameterSearch(
    ...     SemiPrivateClassifier(classes=[0, 1]),
    ...     {"hypothesis_class": ["stumps", "partition"], "epsilon": [0.5]},
    ... )
    >>> search = search.fit(X, y, X_public=PublicData(X_pub))
    >>> search.selection_, search.privacy_spent_
    ('random_stopping', PrivacyCost(epsilon=2.0, delta=0.0))
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}
    # Its candidates may set the estimator's parameters (its box): a
    # meta-estimator's check of unset bounds leaves them to the search, which
    # warns of a candidate without one (see classifiers/_base.py).
    _params_set_by_candidates = ("estimator",)

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        "param_distributions": [dict, list],
        "classes": ["array-like", None],
        "n_candidates": [Interval(Integral, 1, None, closed="left"), None],
        "selection": [StrOptions({"auto", "public", "random_stopping", "exponential"})],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_runs": [Interval(Real, 1, None, closed="left"), None],
        "score_epsilon": [Interval(Real, 0, None, closed="neither"), None],
        "refit": ["boolean"],
        "accountant": [PrivacyAccountant, None],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator,
        param_distributions,
        *,
        classes=None,
        n_candidates=None,
        selection="auto",
        validation_fraction=0.2,
        n_runs=None,
        score_epsilon=None,
        refit=True,
        accountant=None,
        n_jobs=None,
        verbose=0,
        random_state=None,
    ):
        self.estimator = estimator
        self.param_distributions = param_distributions
        self.classes = classes
        self.n_candidates = n_candidates
        self.selection = selection
        self.validation_fraction = validation_fraction
        self.n_runs = n_runs
        self.score_epsilon = score_epsilon
        self.refit = refit
        self.accountant = accountant
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.random_state = random_state

    # --- public-side preparation -------------------------------------------

    def _candidates(self):
        return candidate_list(
            self.param_distributions, self.n_candidates, self.random_state
        )

    def _ledger(self, candidates):
        return search_ledger(self.estimator, self.accountant, candidates)

    def _name_inner_ledgers(self):
        """``best_estimator_`` names the search's ledger again (after a fit)."""
        if hasattr(self, "best_estimator_"):
            ledger = self._ledger(self.cv_results_["params"])
            restore_settings(
                self.best_estimator_, self.estimator, self.best_params_, ledger
            )

    def _make(self, params, classes=None):
        """A silent candidate whose ledgers are cleared: the search has paid."""
        return candidate(self.estimator, params, None, classes=classes)

    def _log(self, message):
        if self.verbose:
            print(f"[PrivateParameterSearch] {message}", flush=True)

    # --- fit ----------------------------------------------------------------

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, X_public=None, y_public=None):
        """Select a candidate privately and fit it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows (protected). DataFrames are passed to the candidates
            as they are.
        y : array-like of shape (n_samples,)
            Private labels (protected).
        X_public : PublicData or array-like, default=None
            Public rows, passed to every candidate. Public labels (in
            ``PublicData(X_pub, y_pub)`` or ``y_public``) are used for public
            selection only: the candidates get the public rows unlabeled, so
            that they are not scored on labels they were fitted on.
        y_public : array-like of shape (n_public,), default=None
            Public labels when ``X_public`` is a raw array.

        Returns
        -------
        self : object
        """
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y "
                "is None."
            )
        # Their messages would quote the number of private rows (indexable
        # checks the lengths too): cut to their start.
        call_on_private(check_consistent_length, X, y)
        y_kind = label_kind(y)  # a pandas column's declared type
        X, y = call_on_private(indexable, X, y)
        # Format checks only (shape, finite, class-like): free, like the
        # candidates' own; X is checked by each candidate's probe fit.
        y = call_on_private(
            lambda labels: check_array(
                column_or_1d(labels, warn=True),
                ensure_2d=False,
                dtype=None,
                input_name="y",
            ),
            y,
            what="the private labels (y)",
        )
        call_on_private(check_classification_targets, y, what="the private labels (y)")
        if y_kind == "U" and y.dtype.kind == "O":
            # A pandas string or categorical column, checked free of missing
            # values above: all strings. As such, so that the candidates'
            # probes refuse it against numeric classes before the charge
            # (label_kind; they see an array, not the column).
            y = y.astype(str)
        X_pub, y_pub = unwrap_public(X_public, y_public)
        y_pub = self._check_public_labels_format(X_pub, y_pub)
        plan = self._plan(X_pub, y_pub)
        selection, candidates, fit_params = plan[:3]
        ledger = self._ledger(candidates)
        classes = self._label_set(selection, candidates, y, y_pub)

        if X_pub is None and any(
            unset_bounds(clone(self.estimator).set_params(**params))
            for params in candidates
        ):
            # Decided by public inputs; the candidates themselves would warn
            # only after their reservation, inside the silent runs. Not for
            # the box of an inner learner never fitted on the private rows
            # (a final estimator, PATE's student): a review found such
            # searches refused inside LabelBoost.
            warn_private_read(
                "No public data and no bounds= for some candidates: their fits "
                "read the domain bounds off the private rows, and the selected "
                "model then leaks the private range (not differentially "
                "private). Pass bounds=... or public data.",
                stacklevel=2,
            )
        # A dry run of every candidate up to its reservation (format checks
        # only) that raises, once and naming the candidate, the errors its
        # parameters meet on data of this format, before anything is charged.
        self._log(f"checking {len(candidates)} candidates (input format only)")
        shown = set()

        def show_once(caught):
            # The dry runs' warnings (public: format only), each shown once.
            for w in caught:
                key = (w.category, str(w.message))
                if key not in shown:
                    shown.add(key)
                    warnings.warn(w.message, w.category, stacklevel=3)

        for params, cost in zip(candidates, plan.costs):
            probe = self._make(params, classes)
            if selection == "public":
                # Public only: a public label no candidate can predict would
                # be scored as a mistake of every candidate, silently.
                self._check_public_labels(probe, params, y_pub)
            show_once(dry_run(probe, params, cost, X, y, fit_params))
        if selection == "random_stopping":
            # After the candidates' own checks (they name a 1-row fit so).
            check_split_size(len(y))
            # Its runs fit on the training part, whose size is public: a check
            # that depends on the number of rows (e.g. an active classifier's
            # pool size) would pass on all of them and then fail every run
            # after the charge (a review).
            n_train = len(y) - validation_size(len(y), self.validation_fraction)
            head = np.arange(n_train)
            X_head, y_head = _safe_indexing(X, head), y[head]
            for params, cost in zip(candidates, plan.costs):
                probe = self._make(params, classes)
                show_once(dry_run(probe, params, cost, X_head, y_head, fit_params))
        total, relation, replace_one, score_epsilon = self._total(plan)
        self._log(f"reserving the whole search's cost {total}")
        reserve_budget(ledger, total, self)

        # Warnings of the fits on private rows are not shown: the dry run
        # showed the public ones once, and any other may depend on the private
        # rows or, printed once per run, count the secret runs. The "ignore"
        # filter keeps them out of the warnings registry; each run also marks
        # its thread (_silenced_in_worker), whose guard drops them even when
        # another thread swaps the filters meanwhile. (Worker processes drop
        # them themselves.)
        with warnings.catch_warnings(), dropped_in_this_thread():
            warnings.simplefilter("ignore")
            if selection == "public":
                self._fit_public(
                    candidates, classes, X, y, fit_params, X_pub, np.asarray(y_pub)
                )
            else:
                self._fit_private(
                    selection, candidates, classes, X, y, fit_params, score_epsilon
                )
        self.selection_ = selection
        self.privacy_spent_ = total
        self.privacy_neighbours_ = relation
        if replace_one is not None:
            self.replace_one_privacy_ = replace_one
        elif hasattr(self, "replace_one_privacy_"):
            del self.replace_one_privacy_
        self.cv_results_["cost_epsilon"] = np.array([c.epsilon for c in plan.costs])
        self.cv_results_["cost_delta"] = np.array([c.delta for c in plan.costs])
        self.best_params_ = candidates[self.best_index_]
        self._name_inner_ledgers()
        self._log("done")
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        sub = self.estimator.__sklearn_tags__()
        tags.input_tags.allow_nan = sub.input_tags.allow_nan
        tags.input_tags.string = getattr(sub.input_tags, "string", False)
        return tags
