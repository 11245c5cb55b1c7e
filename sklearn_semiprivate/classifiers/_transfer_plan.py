"""The plan of a SubsampleTestReweighClassifier fit: public work only.

Every constant of a fit (rounds ``T``, draws ``m1``, ``kappa``, the
learner's settings and cost, the curator's bound, agents per round) is
computed here from public parameters and counts, before the first private
read; ``_transfer.py`` runs the rounds. Also the checks of the learner that
must come before the charge, and Algorithm 2's treatment of a leaking
learner.
"""

# SPDX-License-Identifier: BSD-3-Clause

import contextlib

from sklearn.base import clone

from ..accounting._reservation import accountant_keys, fit_cost
from ..utils._private_reads import private_reads_refused
from . import _transfer_steps as steps

__all__ = [
    "ALPHA_MAX",
    "fit_rounds",
    "leaks_are_errors",
    "learner_read_refused",
    "make_plan",
    "validate_learner_params",
]

# The paper's range for alpha and beta (Algorithms 1 and 2: 0 < alpha, beta < 1/8).
ALPHA_MAX = 0.125


@contextlib.contextmanager
def leaks_are_errors(private):
    """Algorithm 2: the learner's read of a value off the draws is an error.

    The backstop of :func:`~._transfer_checks.check_learner_bounds`: a learner
    that reads a value off the curator's draws outside its mechanisms (its
    bounds, its label set) makes the round's cost unknown, so the fit stops
    at the read (the ledgers stay charged) rather than return a model whose
    ``privacy_spent_`` is false. The signal is a context variable
    (:func:`~sklearn_semiprivate.utils.private_reads_refused`): other
    threads' fits are not affected.
    """
    if not private:
        yield
        return
    with private_reads_refused(learner_read_refused(charged=True)):
        yield


def learner_read_refused(*, charged):
    """Algorithm 2's message for a learner that reads a value off the draws.

    In the probe on placeholder rows before the charge (``charged=False``),
    or in a round after it.
    """
    when = (
        "while fitted in a round, so Claim 4.1 does not cover the round and "
        "no (epsilon, delta) can be claimed. The fit is stopped; the ledgers "
        "stay charged."
        if charged
        else "in a round, so Claim 4.1 would not cover it. Refused before the "
        "charge (found on placeholder rows; nothing was spent)."
    )
    return (
        f"The learner {'read' if charged else 'would read'} a value off the "
        f"curator's private draws outside its stated cost {when} Give the "
        "learner its bounds= and classes= (or public data)."
    )


def validate_learner_params(learner):
    """Check the parameters of the learner and of every estimator inside it.

    scikit-learn's own check (``_validate_params`` against
    ``_parameter_constraints``), which an estimator otherwise runs at the
    start of its fit, i.e. in the first round, after the charge and a
    private draw. Estimators that declare no constraints are skipped.
    """
    nested = [learner]
    nested += [
        value
        for value in learner.get_params(deep=True).values()
        if hasattr(value, "get_params") and not isinstance(value, type)
    ]
    for estimator in nested:
        if hasattr(estimator, "_parameter_constraints") and hasattr(
            estimator, "_validate_params"
        ):
            estimator._validate_params()


class _Plan:
    """Every constant of a fit, computed from public parameters and counts."""

    __slots__ = (
        "curator_bound",
        "kappa",
        "learner",
        "learner_cost",
        "m",
        "n0",
        "round_cost",
        "rounds",
        "threshold",
        "tolerance",
    )

    def __init__(self, **values):
        for name in self.__slots__:
            setattr(self, name, values.get(name))


def fit_rounds(est):
    """``T``: ``max_iter``, or the paper's rounds from ``chi2_bound``."""
    if est.max_iter is not None:
        return int(est.max_iter)
    if est.chi2_bound is None:
        raise ValueError(
            "Give max_iter or chi2_bound: the number of rounds T is "
            "32 log2(8(chi2+1)/alpha)/alpha^2 (Alg. 1) or 128 ... (Alg. 2)."
        )
    return steps.default_rounds(float(est.alpha), float(est.chi2_bound), est.private)


def make_plan(est, n, d, n_target, classes, learner_kw):
    """All constants of ``est``'s fit; raises naming the rows or agents needed."""
    alpha, beta = float(est.alpha), float(est.beta)
    rounds = fit_rounds(est)
    m = est.n_subsample
    if m is None:
        m = steps.default_subsample(alpha, beta, rounds, d)
    learner = clone(est.estimator)
    # Its ledgers (nested ones too) are charged this fit's cost before the
    # first private read (reserve_on_every_ledger): the rounds charge none.
    learner.set_params(**dict.fromkeys(accountant_keys(learner), None))
    # Every unset label set (nested ones too) is the fit's public one: a
    # learner must not read it off the secret draws.
    unset = [
        key
        for key, value in learner.get_params(deep=True).items()
        if value is None and key.rsplit("__", 1)[-1] == "classes"
    ]
    learner.set_params(**dict.fromkeys(unset, classes))
    params = learner.get_params(deep=False)
    if not est.private:
        tolerance = 0.0
        if n_target is not None:
            tolerance = steps.sq_tolerance(n_target, rounds, beta)
        # Alg. 1: halt when a_t <= 2 alpha + tau (+ alpha_H = 0).
        return _Plan(
            rounds=rounds, m=m, n0=0, learner=learner, tolerance=tolerance,
            threshold=2.0 * alpha + tolerance,
        )  # fmt: skip
    kappa = est.kappa
    if kappa is None:
        if est.chi2_bound is None:
            raise ValueError(
                "Give kappa or chi2_bound: Algorithm 2 sets kappa = alpha / "
                "(8 (chi2 + 1))."
            )
        kappa = steps.default_kappa(alpha, float(est.chi2_bound))
    kappa = float(kappa)
    epsilon, delta = float(est.epsilon), float(est.delta)
    learner.set_params(**steps.learner_settings(params, kappa, delta, rounds))
    stated = fit_cost(learner, **learner_kw)
    steps.check_learner_cost(stated)
    learner_cost = steps.replace_one_cost(stated)
    needed = steps.curator_rows_needed(learner_cost, m, kappa, rounds, epsilon, delta)
    if n < needed:
        raise ValueError(
            f"Algorithm 2 needs n >= {needed} curator rows for "
            f"(epsilon={epsilon:g}, delta={delta:g}) over T={rounds} rounds "
            f"with m1={m} draws per round and kappa={kappa:g} (Claim 4.1 "
            f"with eps* <= 1 per round, and advanced composition, Thm 4.2); X "
            f"has {n} rows. Pass more "
            "rows, or a smaller max_iter or n_subsample, or a larger kappa."
        )
    round_cost = steps.round_privacy_cost(learner_cost, m, kappa, n)
    curator_bound = steps.curator_privacy_cost(round_cost, rounds, delta)
    n0 = est.n_agents_per_round
    if n0 is None:
        n0 = steps.agents_per_round(
            alpha, beta, rounds, float(est.local_epsilon),
            float(est.local_delta),
        )  # fmt: skip
    if n_target is not None and n_target < n0 * rounds:
        raise ValueError(
            f"Algorithm 2 asks a fresh batch of N0={n0} local agents in each "
            f"of T={rounds} rounds, each agent once: it needs "
            f"{n0 * rounds} target rows; X_target has {n_target}. Pass more "
            "agents, or a smaller max_iter or n_agents_per_round."
        )
    return _Plan(
        rounds=rounds, m=m, n0=n0 if n_target is not None else 0,
        learner=learner, tolerance=alpha, threshold=3.0 * alpha,
        kappa=kappa, learner_cost=learner_cost, round_cost=round_cost,
        curator_bound=curator_bound,
    )  # fmt: skip
