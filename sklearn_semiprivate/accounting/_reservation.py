"""The one way an estimator charges its ledger: before its first private read."""

# SPDX-License-Identifier: BSD-3-Clause

__all__ = ["reserve_budget"]


def reserve_budget(accountant, cost, estimator):
    """Charge ``cost`` to ``accountant`` (if any) before any private read.

    Every estimator's cost is a function of its public parameters, so it is known
    before the mechanisms run. Charging it then, atomically (check and record in
    one step, across threads and, with a file-backed ledger, processes), means
    two concurrent fits cannot both run before one is refused, and a fit that
    fails after reading private rows stays charged: it cannot be retried for
    free. On refusal (:class:`~sklearn_semiprivate.PrivacyBudgetError`) nothing
    private has been read.

    Parameters
    ----------
    accountant : PrivacyAccountant or None
        The ledger; None charges nothing.
    cost : PrivacyCost
        What the fit may spend at most.
    estimator : object
        Recorded in the ledger's history as what spent it.
    """
    if accountant is not None:
        accountant.spend(cost.epsilon, cost.delta, source=estimator)
