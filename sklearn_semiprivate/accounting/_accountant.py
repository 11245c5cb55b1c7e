"""A privacy ledger that survives ``sklearn.base.clone``."""

# SPDX-License-Identifier: BSD-3-Clause

import math
import threading
import warnings

from ..exceptions import PrivacyBudgetError, PrivacyLeakWarning
from ..utils._validation import check_delta, check_positive_real
from ._composition import PrivacyCost, _as_cost, compose_basic

__all__ = ["PrivacyAccountant"]

# Floating-point slack when comparing a sum of spends with the budget, so that
# ten spends of 0.1 fit in a budget of 1.0.
# Relative slack for float rounding of the sums (fsum of many small spends). It is
# relative so that a pure-DP budget (delta = 0) never accepts a delta > 0 spend and
# a tiny delta budget is not doubled by an absolute slack.
_REL_TOL = 1e-12


class PrivacyAccountant:
    """A budget of ``(epsilon, delta)`` and a ledger of what has been spent.

    Spends compose by basic composition (they add up), the bound that holds
    for any sequence of adaptively chosen mechanisms on the same private data.

    Estimators take it as ``accountant=``: they call :meth:`check` before reading
    any private row, and :meth:`spend` when they release. The accountant is
    shared, not copied, by :func:`sklearn.base.clone` (``__sklearn_clone__``
    returns the accountant itself), so every fit of a ``GridSearchCV`` or
    ``cross_validate`` over a private estimator is charged to the same ledger.

    Parameters
    ----------
    epsilon : float, default=inf
        Total epsilon budget, ``> 0``.
    delta : float, default=0.0
        Total delta budget, in ``[0, 1)``.

    Attributes
    ----------
    history : list of PrivacyCost
        Every spend, in order.

    Notes
    -----
    Thread-safe: ``check`` and ``spend`` are atomic, and ``spend`` re-checks the
    budget under a lock, so two threads cannot jointly overspend.

    Parallel fits in *processes* (``n_jobs > 1`` with joblib's default loky
    backend) pickle the estimator, so each worker charges its own copy and the
    parent's ledger misses those spends. A copy made by unpickling therefore emits
    :class:`~sklearn_semiprivate.exceptions.PrivacyLeakWarning` when it is
    charged. Use ``n_jobs=1`` or joblib's threading backend for searches that
    must be accounted.

    Examples
    --------
    >>> from sklearn_semiprivate import PrivacyAccountant
    >>> acc = PrivacyAccountant(epsilon=1.0, delta=1e-6)
    >>> acc.spend(0.25)
    >>> acc.spend(0.5, 1e-7)
    >>> acc.remaining()
    PrivacyCost(epsilon=0.25, delta=9e-07)
    >>> len(acc.history)
    2
    """

    def __init__(self, epsilon=math.inf, delta=0.0):
        self.epsilon = check_positive_real(epsilon, "epsilon", allow_inf=True)
        self.delta = check_delta(delta)
        self._history = []
        self._lock = threading.Lock()
        self._detached = False

    def __repr__(self):
        spent = self.spent()
        return (
            f"PrivacyAccountant(epsilon={self.epsilon!r}, delta={self.delta!r}; "
            f"spent epsilon={spent.epsilon!r}, delta={spent.delta!r})"
        )

    # sklearn.base.clone: share the ledger, do not copy it.
    def __sklearn_clone__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()
        # An unpickled accountant is a copy: its spends do not reach the original.
        self._detached = True

    @property
    def history(self):
        """List of every spend, as :class:`PrivacyCost`, oldest first."""
        with self._lock:
            return list(self._history)

    def spent(self):
        """Total spent so far, by basic composition.

        Returns
        -------
        cost : PrivacyCost
        """
        with self._lock:
            return compose_basic(self._history)

    def remaining(self):
        """Budget left, ``(epsilon, delta)``, never negative.

        Returns
        -------
        cost : PrivacyCost
        """
        spent = self.spent()
        return PrivacyCost(
            max(0.0, self.epsilon - spent.epsilon), max(0.0, self.delta - spent.delta)
        )

    def _would_exceed(self, cost):
        spent = compose_basic(self._history)
        slack = 1 + _REL_TOL
        over_epsilon = spent.epsilon + cost.epsilon > self.epsilon * slack
        return over_epsilon or spent.delta + cost.delta > self.delta * slack

    def check(self, epsilon, delta=0.0):
        """Raise :class:`PrivacyBudgetError` if the spend would exceed the budget.

        Call it before touching private data. Spends nothing.

        Parameters
        ----------
        epsilon : float
            Epsilon about to be spent, ``>= 0``.
        delta : float, default=0.0
            Delta about to be spent.

        Raises
        ------
        PrivacyBudgetError
            If the spend does not fit in the remaining budget.
        """
        cost = _as_cost((epsilon, delta))
        with self._lock:
            if self._would_exceed(cost):
                raise PrivacyBudgetError(self._refusal(cost))

    def spend(self, epsilon, delta=0.0):
        """Record a spend, after checking it fits.

        Parameters
        ----------
        epsilon : float
            Epsilon spent, ``>= 0``.
        delta : float, default=0.0
            Delta spent.

        Raises
        ------
        PrivacyBudgetError
            If the spend does not fit; then nothing is recorded.
        """
        cost = _as_cost((epsilon, delta))
        if self._detached:
            warnings.warn(
                "This PrivacyAccountant is an unpickled copy (e.g. inside a joblib "
                "worker process); its spends are not recorded in the original "
                "ledger. Use n_jobs=1 or a threading backend for accounted searches.",
                PrivacyLeakWarning,
                stacklevel=2,
            )
        with self._lock:
            if self._would_exceed(cost):
                raise PrivacyBudgetError(self._refusal(cost))
            self._history.append(cost)

    def _refusal(self, cost):
        spent = compose_basic(self._history)
        return (
            f"Privacy budget exceeded: requested (epsilon={cost.epsilon:g}, "
            f"delta={cost.delta:g}) with (epsilon={spent.epsilon:g}, "
            f"delta={spent.delta:g}) already spent of a budget of "
            f"(epsilon={self.epsilon:g}, delta={self.delta:g})."
        )
