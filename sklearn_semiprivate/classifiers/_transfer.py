"""SubsampleTestReweighClassifier: transfer learning in the hybrid model.

Kohen & Sheffet, *Transfer Learning in Differential Privacy's Hybrid-Model*,
ICML 2022. A curator holds ``n`` labeled rows from a source distribution S;
``N`` local agents hold rows from the target T and answer once each through a
local randomizer. Repeat: draw a subsample from multiplicative weights over the
curator's rows, train a learner on it, test the hypothesis on the target,
reweigh. ``private=False`` is Algorithm 1, ``private=True`` Algorithm 2. The
constants, costs and steps live in ``_transfer_steps.py``; the public plan of
a fit (public work only, before the charge) in ``_transfer_plan.py``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import contextlib
import math
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._public import column_names, without_column_names
from ..accounting import PrivacyAccountant, PrivacyCost
from ..accounting._reservation import (
    InnerLedgersMixin,
    probe_on_placeholders,
    reserve_on_every_ledger,
)
from ..exceptions import PrivacyLeakWarning
from ..utils._nested_fit import forget_secret_seeds, seed_unset_random_states
from ..utils._private_reads import reads_not_leaks
from ..utils._rng import noise_rng, public_seed, spawn_rngs
from ..utils._sklearn_compat import HasMethods, Interval, _fit_context, validate_data
from . import _transfer_checks as checks
from . import _transfer_steps as steps
from ._base import check_private_labels, prepare_fit_data
from ._delegate import FittedBaseMixin, base_has
from ._progress import FitProgress
from ._transfer_plan import (
    ALPHA_MAX,
    leaks_are_errors,
    learner_read_refused,
    make_plan,
    validate_learner_params,
)

__all__ = ["SubsampleTestReweighClassifier"]


class SubsampleTestReweighClassifier(
    InnerLedgersMixin, FittedBaseMixin, ClassifierMixin, BaseEstimator
):
    """Subsample-Test-Reweigh: learn for a target from source rows (hybrid model).

    The curator's rows ``(X, y)`` come from a source distribution S; the
    target's rows belong to local agents, who each answer one question once.
    Each round ``t``:

    1. (private) project the weights onto κ-dense ones (eq. (2)) and
       normalize: ``µ_t``;
    2. draw ``n_subsample`` rows i.i.d. from ``µ_t`` and fit a clone of
       ``estimator`` on them: ``h_t``;
    3. estimate ``h_t``'s 0-1 loss on the target: ``a_t`` (Algorithm 1: an
       exact statistical query on ``X_target``; Algorithm 2: a fresh batch of
       local agents, each answering once through randomized response);
    4. halt with ``h_t`` if ``a_t`` is small (``<= 2α + τ``, Algorithm 1;
       ``<= 3α``, Algorithm 2), else reweigh every curator row
       ``w_i ← w_i exp(-α/8 [1 - L(h_t(x_i), y_i)])``.

    Without halting within ``max_iter`` rounds, the hypothesis of smallest
    estimated target loss is kept (the agnostic variant of Section 3).

    Parameters
    ----------
    estimator : estimator
        The learner ``M``. With ``private=True``: a differentially private
        classifier of this package with an ``epsilon`` parameter (and
        ``delta`` if approximate), e.g. :class:`PrivateSGDClassifier`; its
        ``epsilon``/``delta`` are set so that it is ``(1, δ_M)``-DP for
        replace-one neighbours (Section 4: "apply M with ε = 1"); a learner
        whose stated ``_privacy_cost`` is then above ``ε = 1/2`` is refused,
        and so is one with a ``bounds`` parameter (at any depth) left at None
        when no ``X_public`` is passed (it would read its domain box off the
        curator's draws). With ``private=False``: any classifier. Its
        parameters (nested ones too) are validated before the charge; its
        unset ``classes`` (nested ones too) are set to ``classes_``. Its own
        ``accountant`` (and any nested one), if set, is charged this
        estimator's ``privacy_spent_`` with this one, before the first
        private read, each ledger once; every round fits a clone with its
        ledgers cleared, so nothing is charged again.
    alpha : float
        Accuracy target α in ``(0, 1/8)`` (the paper's range); the
        multiplicative-weights rate is ``η = α/8``.
    beta : float, default=0.1
        Failure probability β in ``(0, 1/8)``; sets the default round,
        subsample and batch sizes.
    epsilon : float
        The curator's privacy target ``> 0`` (``private=True``).
    delta : float
        The curator's privacy target in ``(0, 1)`` (``private=True``).
    chi2_bound : float, default=None
        A bound on ``χ²(T || S)``; gives the defaults ``kappa = α / (8
        (χ² + 1))`` (Alg. 2) and ``max_iter`` (Thm 3.1, 4.3).
    kappa : float, default=None
        Density κ in ``(0, 1]`` of the projection (Def. 4.1). None: from
        ``chi2_bound``.
    local_epsilon : float
        Each local agent's ε ``> 0``.
    local_delta : float, default=0.0
        Each local agent's δ in ``[0, 1)``: 0 is binary randomized response of
        a Bernoulli(loss) bit (pure ε); above 0, the paper's Gaussian
        ``RR_{ε,δ}``.
    max_iter : int, default=None
        ``T``, the most rounds. None: Algorithm 1's ``32 log2(8(χ²+1)/α)/α²``
        or Algorithm 2's ``128 log2(8(χ²+1)/α)/α²`` (needs ``chi2_bound``).
        The curator's accounting is for ``T`` rounds, and ``T`` batches of
        agents are set aside.
    n_subsample : int, default=None
        ``m1``, rows drawn per round. None: ``ceil((d + 1 + ln(T/β)) / α)``
        (a utility constant; the privacy analysis covers every value).
    n_agents_per_round : int, default=None
        ``N0``, agents per round (Alg. 2). None: enough for ``|a_t -
        err_T(h_t)| <= α`` with probability ``1 - β/T`` by Hoeffding for the
        randomizer used.
    private : bool, default=True
        Algorithm 2 (True) or Algorithm 1 (False, not private).
    random_state : int, RandomState instance or None, default=None
        Seeds the public side only: the assignment of agents to batches and
        the learner's unset ``random_state`` (with ``private=True``, only a
        learner of this package or scikit-learn: another library's may draw
        its noise from it, and gets a secret seed; with ``private=False``, the
        draws too). With ``private=True`` the draws from ``µ_t`` and the
        randomized responses are fresh OS entropy on every fit (see
        :func:`~sklearn_semiprivate.reproducible_noise`).
    verbose : int, default=0
        Print the plan and one line per round (round, estimated target loss).
    accountant : PrivacyAccountant, default=None
        Charged ``privacy_spent_`` before the first private read (as is the
        learner's ledger, if it has one).

    Attributes
    ----------
    estimator_ : estimator
        The kept hypothesis ``h``; ``predict`` uses it. Fitted with its
        ledgers cleared (charged through this estimator), it names them again
        afterwards: a refit of it charges them.
    classes_ : ndarray of shape (n_classes,)
        The label set.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` has string column names.
    n_iter_ : int
        Rounds run.
    best_iter_ : int
        The round (0-based) of ``estimator_``.
    halted_ : bool
        Whether the halting rule stopped the loop (else ``max_iter`` rounds
        ran and the best estimate was kept).
    history_ : dict of ndarray of shape (``n_iter_``,)
        Per round: ``"target_loss"`` (``a_t``), ``"n_agents"`` (agents
        asked), ``"max_weight"`` (``n · max_i µ_t,i``) and
        ``"effective_size"`` (``1 / (n Σ µ_t,i²)``). With ``private=True``
        the two weight summaries are their public bounds ``1/κ`` and ``κ``
        (Def. 4.1): the weights themselves are computed from the curator's
        rows outside the accounted releases and are never released.
    max_iter_, kappa_, n_subsample_, n_agents_per_round_ : int or float
        The constants used (``kappa_`` is None and ``n_agents_per_round_``
        0 with ``private=False``).
    threshold_ : float
        The halting threshold on ``a_t``.
    tolerance_ : float
        Algorithm 1's τ (Hoeffding on ``X_target``; 0 with a
        ``target_oracle``); with ``private=True``, α.
    learner_privacy_ : PrivacyCost or None
        The learner's replace-one cost ``(ε, δ_M)``.
    round_privacy_ : PrivacyCost or None
        Claim 4.1's ``(ε*, δ*)`` per round.
    curator_bound_ : PrivacyCost or None
        Advanced composition of ``max_iter_`` rounds (Thm 4.2): at most
        ``privacy_spent_``.
    privacy_spent_ : PrivacyCost
        The curator's ``(epsilon, delta)`` (replace-one neighbours); ``(inf,
        1)`` with ``private=False``.
    local_privacy_ : PrivacyCost or None
        Each agent's ``(local_epsilon, local_delta)`` for this fit (one answer
        each); ``(inf, 1)`` with ``private=False``; None with a
        ``target_oracle``, whose answers this class cannot check (their
        privacy is the caller's responsibility). Every fit asks the agents
        again: see the Notes.

    See Also
    --------
    PrivateSGDClassifier : the paper's private learner (Algorithm 3).

    Notes
    -----
    **Privacy (private=True).** Curator: replace-one neighbours on ``(X, y)``,
    ``n`` public. The weights start at κ and only decrease, so they stay in
    ``(0, κ]``; each round's draws from the κ-dense ``µ_t`` followed by the
    learner (replace-one ``(ε, δ_M)``, its stated cost doubled by group
    privacy) are ``(ε*, δ*)``-DP with ``ε* = 6 ε m1/(κn)``, ``δ* = 4 m1
    e^{ε*} δ_M/(κn)`` (Claim 4.1); the ``max_iter`` rounds compose by
    advanced composition with slack ``δ/2`` (Thm 4.2), and ``δ_M = κδ/(8eT)``
    makes ``T δ* <= δ/2``. ``fit`` raises a ``ValueError`` naming the rows
    needed when ``n`` is too small for ``(epsilon, delta)``. Reweighing and
    the halting rule read the curator's rows only through ``h_t`` and the
    agents' answers (the weights are never released). Local agents: each
    agent of ``X_target`` is in at most one batch and answers once, through
    :class:`~sklearn_semiprivate.mechanisms.LossRandomizedResponse`
    (``local_epsilon``-LDP, exactly) or the Gaussian randomizer, once per
    fit. ``local_privacy_`` is the cost of one fit: every fit (each fold,
    candidate and refit) asks every agent it is given again, each answer
    costing another ``local_epsilon`` (``local_delta``), so under
    ``cross_validate`` or ``GridSearchCV`` an agent answers up to once per
    fit and its LDP cost adds up. An ``X_target`` as long as ``X`` is sliced
    per fold together with ``X`` (a ``PrivacyLeakWarning`` says so); no
    opaque container (such as
    :class:`~sklearn_semiprivate.PublicData`, which is for public rows, and
    the target's rows are not public) is offered for it, since the whole
    target in every fit would ask every agent in every fit: the agents are
    asked again either way. A ``target_oracle`` is the caller's: its
    privacy is the caller's responsibility (``local_privacy_`` is None).
    Learner: a learner that reads a value off its rows outside its stated
    cost (its box or label set; reported through
    :func:`~sklearn_semiprivate.utils.warn_private_read`, as every estimator
    of this package does) stops the fit with a ``ValueError`` rather than
    return a false ``privacy_spent_``: before the charge where a probe on
    placeholder rows reaches the read, else at the read, after the charge.

    **Differences from the paper.** The learner is configured at replace-one
    ``ε = 1`` (stated ``ε = 1/2``, add/remove learners doubled); the curator
    composition is solved exactly instead of Thm 4.2's sufficient ``n >= m1
    sqrt(288 T ln(2/δ))/(εκ)``; ``N0`` is Hoeffding for the randomizer used;
    the loss is the 0-1 loss.

    References
    ----------
    D. Kohen, O. Sheffet. Transfer Learning in Differential Privacy's
    Hybrid-Model. ICML 2022 (Algorithms 1-2, Claim 4.1, Theorems 4.2-4.3).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from sklearn_semiprivate import (PrivacyLeakWarning, PrivateSGDClassifier,
    ...                                  SubsampleTestReweighClassifier,
    ...                                  reproducible_noise)
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(12_000, 2))                # curator: source S
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> X_t = rng.normal(0.5, 0.5, size=(6_000, 2))     # local agents: target T
    >>> y_t = (X_t[:, 0] + X_t[:, 1] > 0).astype(int)
    >>> sgd = PrivateSGDClassifier(classes=[0, 1], bounds=(-4, 4))
    >>> clf = SubsampleTestReweighClassifier(
    ...     sgd, alpha=0.1, epsilon=1.0, delta=1e-5, kappa=0.5,
    ...     local_epsilon=1.0, max_iter=5, n_subsample=200, random_state=0)
    >>> with warnings.catch_warnings():  # seeded noise for the doc: not private
    ...     warnings.simplefilter("ignore", PrivacyLeakWarning)
    ...     with reproducible_noise():
    ...         clf = clf.fit(X, y, X_target=X_t, y_target=y_t)
    >>> clf.privacy_spent_, clf.local_privacy_
    (PrivacyCost(epsilon=1.0, delta=1e-05), PrivacyCost(epsilon=1.0, delta=0.0))
    >>> clf.n_agents_per_round_, clf.n_iter_ <= 5, round(clf.threshold_, 6)
    (1079, True, 0.3)

    Halting at ``a_t <= 3 alpha`` gives ``err_T <= 4 alpha`` with probability
    ``1 - 3 beta`` (Thm 4.3):

    >>> bool(clf.score(X_t, y_t) >= 1 - 4 * clf.alpha)
    True
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        "alpha": [Interval(Real, 0, ALPHA_MAX, closed="neither")],
        "beta": [Interval(Real, 0, ALPHA_MAX, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "chi2_bound": [Interval(Real, 0, None, closed="left"), None],
        "kappa": [Interval(Real, 0, 1, closed="right"), None],
        "local_epsilon": [Interval(Real, 0, None, closed="neither")],
        "local_delta": [Interval(Real, 0, 1, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "n_subsample": [Interval(Integral, 1, None, closed="left"), None],
        "n_agents_per_round": [Interval(Integral, 1, None, closed="left"), None],
        "private": ["boolean"],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "accountant": [PrivacyAccountant, None],
    }

    def __init__(
        self,
        estimator,
        *,
        alpha,
        beta=0.1,
        epsilon,
        delta,
        chi2_bound=None,
        kappa=None,
        local_epsilon,
        local_delta=0.0,
        max_iter=None,
        n_subsample=None,
        n_agents_per_round=None,
        private=True,
        random_state=None,
        verbose=0,
        accountant=None,
    ):
        self.estimator = estimator
        self.alpha = alpha
        self.beta = beta
        self.epsilon = epsilon
        self.delta = delta
        self.chi2_bound = chi2_bound
        self.kappa = kappa
        self.local_epsilon = local_epsilon
        self.local_delta = local_delta
        self.max_iter = max_iter
        self.n_subsample = n_subsample
        self.n_agents_per_round = n_agents_per_round
        self.private = private
        self.random_state = random_state
        self.verbose = verbose
        self.accountant = accountant

    # False: the learner's parameters are validated by its own fit.
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(
        self,
        X,
        y,
        X_public=None,
        y_public=None,
        *,
        X_target=None,
        y_target=None,
        target_oracle=None,
    ):
        """Run Subsample-Test-Reweigh on the curator's rows and the target.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The curator's rows from the source S (protected).
        y : array-like of shape (n_samples,)
            Their labels (protected).
        X_public : PublicData or array-like, default=None
            Public rows, passed to every fit of the learner as they are (for
            :class:`PrivateSGDClassifier`: scaling and start).
        y_public : array-like, default=None
            Public labels when ``X_public`` is a raw array.
        X_target : array-like of shape (n_agents, n_features), default=None
            The local agents' rows from the target T (each agent's own).
            Every fit asks its agents again (another ``local_epsilon``
            each): see the Notes on ``cross_validate`` and ``GridSearchCV``.
        y_target : array-like of shape (n_agents,), default=None
            Their labels. A label outside ``classes_`` is a loss for every
            hypothesis; it is not looked for, since an exact check would read
            the agents' labels outside their local randomizer. String labels
            against a numeric label set (or the reverse) are a ``ValueError``
            before the charge.
        target_oracle : callable, default=None
            ``target_oracle(h) -> float``: a privatized estimate of the
            fitted hypothesis ``h``'s 0-1 loss on T, for agents that are
            remote. Give either it or ``X_target``/``y_target``. Its privacy
            is the caller's responsibility: this class cannot check it and
            reports ``local_privacy_ = None``. Each answer must be a finite
            real scalar (a ``TypeError``, or a ``ValueError`` for NaN or
            infinity, naming ``target_oracle``); the oracle is first asked
            about the first round's hypothesis, so such errors come after
            the charge.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        progress = FitProgress(self, self.verbose)
        rng_agents, rng_learner, rng_draws = spawn_rngs(self.random_state, 3)
        checks.check_target_source(X_target, y_target, target_oracle)
        # The learner's parameters are checked first (free): a bad one must
        # not cost, nor wait for the first round's fit to be found.
        learner = clone(self.estimator)
        validate_learner_params(learner)
        if self.private:
            checks.check_private_learner(learner.get_params(deep=False))
            # It would read its box off the secret draws, outside Claim 4.1.
            checks.check_learner_bounds(learner, has_public=X_public is not None)
        names = column_names(X)  # any labels: feature_names_in_ has strings only
        # Algorithm 1 is not private: reading the labels is no leak.
        with reads_not_leaks() if not self.private else contextlib.nullcontext():
            data = prepare_fit_data(
                self, X, y, X_public, y_public,
                classes=self._declared_classes(), n_public=None, rng=None,
            )  # fmt: skip
        n, d = data.X.shape
        n_target = None
        if target_oracle is None:
            X_target, y_target = checks.check_target(
                X_target, y_target, d, classes=data.classes, feature_names=names
            )
            n_target = X_target.shape[0]
            if self.private and n_target == n:
                # Both counts are public (replace-one; the batches' sizes).
                warnings.warn(
                    "X_target has as many rows as X: cross_validate and "
                    "GridSearchCV slice it per fold together with X, so the "
                    "folds ask overlapping sets of agents. Every fit (each "
                    "fold, candidate and refit) asks its agents again, each "
                    "answer costing another local_epsilon: an agent in k fits "
                    "is (k * local_epsilon)-LDP, not local_epsilon.",
                    PrivacyLeakWarning,
                    stacklevel=3,
                )
        learner_kw = {}
        if X_public is not None:
            # The learner gets the curator's draws as arrays: the public rows
            # too (their names were checked against X's by prepare_fit_data).
            learner_kw = {
                "X_public": without_column_names(X_public),
                "y_public": y_public,
            }
        # Every constant from public parameters and counts, before any read.
        plan = make_plan(self, n, d, n_target, data.classes, learner_kw)
        progress.say(
            f"T={plan.rounds} rounds, m1={plan.m} draws per round, "
            f"kappa={plan.kappa}, N0={plan.n0} agents per round, halt at "
            f"a_t <= {plan.threshold:.4g}"
        )
        # The learner's own errors on data of this format (its bounds for
        # another number of features, a 1-D class on 2 features), which it
        # raises before its reservation when fitted alone, come now too: a fit
        # of a clone on placeholder rows (zeros, the public labels' set) up to
        # its reservation, which a probe ledger stops (a review found them
        # charged, in round 1).
        self._check_learner_before_charge(plan, d, data.classes, learner_kw)
        # Reserved atomically before the first private read, on this ledger
        # and every (nested) ledger of the learner, each once; the rounds fit
        # clones of plan.learner, whose ledgers are cleared.
        reserve_on_every_ledger(self, self._privacy_cost())
        check_private_labels(data.y, data.classes)

        # Alg. 2's draws and answers are privacy noise (Claim 4.1 needs the
        # draws hidden): fresh entropy. Alg. 1 is not private: seeded.
        rng = noise_rng(self.random_state) if self.private else rng_draws
        if target_oracle is None and self.private:
            # Agents -> batches: a data-independent assignment, each agent in
            # at most one batch (Alg. 2: "a new batch of N0 local-users").
            batches = rng_agents.permutation(n_target)[: plan.n0 * plan.rounds]
            batches = batches.reshape(plan.rounds, plan.n0)
            randomizer = steps.local_randomizer(
                float(self.local_epsilon), float(self.local_delta)
            )
        kappa = plan.kappa if self.private else None
        # Alg. 2 starts every weight at kappa (Alg. 1 at 1): in (0, kappa].
        log_w = np.full(n, math.log(kappa) if self.private else 0.0)
        losses, max_w, ess, n_agents = [], [], [], []
        best, best_loss, best_iter, halted = None, np.inf, 0, False
        for t in range(plan.rounds):
            # Another library's learner may draw its noise from random_state:
            # a secret seed in the private rounds (a review).
            learner = seed_unset_random_states(
                clone(plan.learner),
                public_seed(rng_learner),
                secret_seed=public_seed(rng) if self.private else None,
            )
            # Claim 4.1's round: kappa-dense mu_t, m1 secret draws, M.
            with leaks_are_errors(self.private):
                fitted, mu = steps.curator_round(
                    data.X, data.y, log_w, kappa, plan.m,
                    steps.FitWith(learner, learner_kw, self.private), rng,
                )  # fmt: skip
            h = fitted.estimator
            if target_oracle is not None:
                a_t = checks.check_oracle_answer(target_oracle(h))
                asked = 0
            elif self.private:
                # One answer per agent of batch t, through the LDP randomizer.
                batch = batches[t]
                a_t = steps.local_test(
                    h, X_target[batch], y_target[batch], randomizer, rng
                )
                asked = batch.size
            else:
                # Algorithm 1's SQ oracle: the exact mean loss on the target.
                a_t = float(steps.zero_one_losses(h, X_target, y_target).mean())
                asked = n_target
            losses.append(a_t)
            n_agents.append(asked)
            if self.private:
                max_w.append(1.0 / kappa)
                ess.append(kappa)
            else:
                max_w.append(n * mu.max())
                ess.append(1.0 / (n * np.dot(mu, mu)))
            progress.say(
                f"round {t + 1}/{plan.rounds}: estimated target loss {a_t:.4f}"
            )
            if a_t < best_loss:
                best, best_loss, best_iter = h, a_t, t
            if a_t <= plan.threshold:
                halted = True
                break
            log_w = steps.reweigh(
                log_w, steps.zero_one_losses(h, data.X, data.y), float(self.alpha)
            )
        progress.say(
            f"{'halted' if halted else 'stopped'} after {len(losses)} rounds; "
            f"kept round {best_iter + 1} (estimated target loss {best_loss:.4f})"
        )
        self.estimator_ = best
        self._name_inner_ledgers()
        # Its secret seed (another library's learner) must not stay in it.
        forget_secret_seeds(self.estimator_, self.estimator)
        self.classes_ = data.classes
        self.n_iter_ = len(losses)
        self.best_iter_ = best_iter
        self.halted_ = halted
        self.history_ = {
            "target_loss": np.asarray(losses),
            "n_agents": np.asarray(n_agents, dtype=np.int64),
            "max_weight": np.asarray(max_w),
            "effective_size": np.asarray(ess),
        }
        self.max_iter_ = plan.rounds
        self.kappa_ = kappa
        self.n_subsample_ = plan.m
        self.n_agents_per_round_ = plan.n0
        self.threshold_ = plan.threshold
        self.tolerance_ = plan.tolerance
        self.learner_privacy_ = plan.learner_cost
        self.round_privacy_ = plan.round_cost
        self.curator_bound_ = plan.curator_bound
        self.privacy_spent_ = self._privacy_cost()
        self.local_privacy_ = self._local_privacy(target_oracle)
        return self

    def _declared_classes(self):
        """The learner's ``classes`` parameter (public), if any."""
        return self.estimator.get_params(deep=False).get("classes")

    def _privacy_neighbours(self, **fit_params):
        """The neighbours ``_privacy_cost`` holds for (docs/privacy.rst).

        replace-one for the curator's rows (Claim 4.1).
        """
        return "replace-one"

    def _check_learner_before_charge(self, plan, n_features, classes, learner_kw):
        """Fit a clone of the learner on placeholders up to its reservation.

        Under Algorithm 2, a value it would read off its rows up to there is
        refused now, for free (as in the rounds, after the charge).
        """
        if classes is None:
            return
        m = max(int(plan.m), len(classes))
        refused = learner_read_refused(charged=False) if self.private else None
        probe_on_placeholders(
            clone(plan.learner), m, n_features, classes, refused=refused, **learner_kw
        )

    def _privacy_cost(self, **fit_params):
        """The curator's cost, from the parameters alone."""
        if not self.private:
            return PrivacyCost(math.inf, 1.0)
        return PrivacyCost(float(self.epsilon), float(self.delta))

    def _local_privacy(self, target_oracle=None):
        if target_oracle is not None:
            # The oracle's answers are the caller's: nothing here can check them.
            return None
        if not self.private:
            return PrivacyCost(math.inf, 1.0)
        return PrivacyCost(float(self.local_epsilon), float(self.local_delta))

    @available_if(base_has("decision_function"))
    def decision_function(self, X):
        """Scores from the kept hypothesis.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        scores : ndarray
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self.estimator_.decision_function(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
