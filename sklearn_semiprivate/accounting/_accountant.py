"""A privacy ledger that survives ``clone``, threads, processes and restarts.

One :class:`PrivacyAccountant` holds the budget logic; where the charges live is a
small storage class: a list in memory, or an SQLite file shared by every process
and session that opens it.
"""

# SPDX-License-Identifier: BSD-3-Clause

import json
import math
import os
import pathlib
import sqlite3
import threading
from datetime import datetime, timezone
from typing import NamedTuple

from ..exceptions import PrivacyBudgetError
from ..utils._private_errors import mark_value_free
from ..utils._validation import check_delta, check_positive_real
from ._composition import PrivacyCost, _as_cost, compose_basic

__all__ = ["PrivacyAccountant", "PrivacyCharge"]

# Relative slack for float rounding of the sums (fsum of many small spends), so that
# ten spends of 0.1 fit in a budget of 1.0. It is relative so that a pure-DP budget
# (delta = 0) never accepts a delta > 0 spend and a tiny delta budget is not doubled
# by an absolute slack.
_REL_TOL = 1e-12

# Longest repr of one hyper-parameter kept in a charge's ``params``.
_MAX_PARAM_REPR = 200

# Seconds a spend waits for another process's transaction on the same file.
_BUSY_TIMEOUT = 60.0

_SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS budget (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    epsilon REAL NOT NULL,
    delta REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS charges (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    epsilon REAL NOT NULL,
    delta REAL NOT NULL,
    source TEXT NOT NULL,
    params TEXT NOT NULL,
    time TEXT NOT NULL
);
"""


class PrivacyCharge(NamedTuple):
    """One entry of a ledger's history: what was spent, by what, and when.

    Parameters
    ----------
    cost : PrivacyCost
        The ``(epsilon, delta)`` charged.
    source : str
        What spent it: the class name of the estimator, the string given as
        ``source=``, or ``""`` when none was given.
    params : dict of str to str
        The estimator's ``get_params(deep=False)`` without ``accountant``, each
        value as its (truncated) ``repr``; empty for a string source.
    time : str
        When it was recorded, ISO 8601 in UTC (``datetime.fromisoformat`` reads it).

    Examples
    --------
    >>> from sklearn_semiprivate.accounting import PrivacyAccountant
    >>> acc = PrivacyAccountant(epsilon=1.0)
    >>> acc.spend(0.5, source="a count")
    >>> charge = acc.history[0]
    >>> charge.cost, charge.source
    (PrivacyCost(epsilon=0.5, delta=0.0), 'a count')
    """

    cost: PrivacyCost
    source: str
    params: dict[str, str]
    time: str


def _truncated_repr(value):
    text = repr(value)
    if len(text) > _MAX_PARAM_REPR:
        text = text[: _MAX_PARAM_REPR - 3] + "..."
    return text


def _describe_source(source):
    """``(name, params)`` recorded for ``source``: None, a string or an estimator."""
    if source is None:
        return "", {}
    if isinstance(source, str):
        return source, {}
    params = {}
    if callable(getattr(source, "get_params", None)):
        params = {
            str(key): _truncated_repr(value)
            for key, value in sorted(source.get_params(deep=False).items())
            if key != "accountant"
        }
    return type(source).__name__, params


def _utc_now():
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


class _MemoryLedger:
    """Charges in a list, private to one accountant object in one process."""

    path = None

    def __init__(self, charges=()):
        self._charges = list(charges)

    def charges(self):
        return list(self._charges)

    def record(self, admit, budget):
        # Atomic under the accountant's lock, the only place that calls it.
        self._charges.append(admit([c.cost for c in self._charges]))


class _SQLiteLedger:
    """Charges in an SQLite file: one connection per operation, one transaction
    per spend, so threads, processes and later sessions share the same ledger."""

    def __init__(self, path):
        self.path = path

    def _connect(self, *, create=False):
        # mode=rw: a ledger file deleted after it was opened is an error, never
        # silently replaced by an empty ledger.
        uri = pathlib.Path(self.path).as_uri() + ("?mode=rwc" if create else "?mode=rw")
        # isolation_level=None: transactions are begun and ended explicitly below.
        return sqlite3.connect(
            uri, uri=True, timeout=_BUSY_TIMEOUT, isolation_level=None
        )

    def _transaction(self, body, *, create=False):
        """Run ``body(connection)`` in one ``BEGIN IMMEDIATE`` transaction.

        IMMEDIATE takes the file's write lock before the first read, so the sum
        read and the row inserted by one spend cannot interleave with another's.
        """
        connection = self._connect(create=create)
        try:
            connection.execute("BEGIN IMMEDIATE")
            try:
                result = body(connection)
            except BaseException:
                if connection.in_transaction:  # SQLite may have rolled back itself
                    connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
            return result
        finally:
            connection.close()

    def open(self, budget):
        """Create the ledger, or check ``budget`` equals the one stored in it."""

        def body(connection):
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, _SCHEMA_VERSION):
                raise ValueError(
                    f"{self.path!r} is a ledger of an unknown schema version {version}."
                )
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {_SCHEMA_VERSION}")
            row = connection.execute("SELECT epsilon, delta FROM budget").fetchone()
            if row is None:
                connection.execute(
                    "INSERT INTO budget (id, epsilon, delta) VALUES (1, ?, ?)", budget
                )
            elif PrivacyCost(*row) != budget:
                raise ValueError(
                    f"The ledger {self.path!r} holds the budget (epsilon={row[0]!r}, "
                    f"delta={row[1]!r}), not (epsilon={budget.epsilon!r}, "
                    f"delta={budget.delta!r}). A lifetime budget is never changed: "
                    "open it with its stored budget, or use a new file."
                )

        self._transaction(body, create=True)

    def charges(self):
        connection = self._connect()
        try:
            rows = connection.execute(
                "SELECT epsilon, delta, source, params, time FROM charges ORDER BY id"
            ).fetchall()
        finally:
            connection.close()
        return [
            PrivacyCharge(PrivacyCost(eps, delta), source, json.loads(params), time)
            for eps, delta, source, params, time in rows
        ]

    def record(self, admit, budget):
        def body(connection):
            # The file may have been replaced since this object opened it (by
            # one with another budget): charge only the ledger it agreed to.
            row = connection.execute("SELECT epsilon, delta FROM budget").fetchone()
            if row is None or PrivacyCost(*row) != budget:
                raise mark_value_free(
                    PrivacyBudgetError(
                        f"The ledger file {self.path!r} no longer holds the budget "
                        f"(epsilon={budget.epsilon!r}, delta={budget.delta!r}) this "
                        "accountant was opened with; refusing to charge it."
                    )
                )
            rows = connection.execute("SELECT epsilon, delta FROM charges").fetchall()
            charge = admit([PrivacyCost(eps, delta) for eps, delta in rows])
            connection.execute(
                "INSERT INTO charges (epsilon, delta, source, params, time) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    charge.cost.epsilon,
                    charge.cost.delta,
                    charge.source,
                    json.dumps(charge.params, sort_keys=True),
                    charge.time,
                ),
            )

        self._transaction(body)


class PrivacyAccountant:
    """A lifetime budget of ``(epsilon, delta)`` and a ledger of what was spent.

    Spends compose by basic composition (they add up), the bound that holds
    for any sequence of adaptively chosen mechanisms on the same private data.

    Estimators take it as ``accountant=`` and call :meth:`spend` once, before
    their first private read: a reservation that checks and records the cost in
    one atomic step, and stays charged even if the fit fails afterwards.
    :meth:`check` is a non-binding preview. The accountant is shared, not copied,
    by :func:`sklearn.base.clone`, ``copy`` and ``deepcopy``, so every fit of a
    ``GridSearchCV`` or ``cross_validate`` is charged to the same ledger.

    Parameters
    ----------
    epsilon : float, default=inf
        Total epsilon budget, ``> 0``.
    delta : float, default=1e-5
        Total delta budget, in ``[0, 1)``. The default allows ten fits at
        ``delta=1e-6`` (the default of most estimators) but one at ``1e-5``
        (the default of SemiPrivateLogisticRegression, PrivateSGDClassifier
        and PATEClassifier): size it for the fits of a cross-validation. Pass
        ``delta=0`` for a pure-DP budget, which then refuses every spend with
        ``delta > 0``.
    path : str or path-like, default=None
        ``None`` keeps the ledger in memory, for this object in this process only.
        A file path keeps it in an SQLite database there, created if missing: a
        ledger shared by every thread, process and later session that opens the
        same file with the same budget. If the file exists, ``epsilon`` and
        ``delta`` must equal its stored budget, else ``ValueError``: the budget
        of a dataset is for its lifetime and is never silently changed.

    Attributes
    ----------
    history : list of PrivacyCharge
        Every charge, oldest first.

    See Also
    --------
    PrivacyCost : An ``(epsilon, delta)`` pair.
    compose_basic : The composition the ledger applies.

    Notes
    -----
    **Threads.** :meth:`spend` is atomic under a lock: concurrent fits cannot
    jointly overspend.

    **Processes.** Parallel fits in processes (``n_jobs > 1`` with joblib's default
    loky backend) pickle the estimator and its accountant. A file-backed copy
    opens the same file: each spend is one SQLite ``BEGIN IMMEDIATE`` transaction
    (read the charges, compare with the budget, insert, commit), so processes
    cannot jointly overspend either. An in-memory ledger cannot be shared: its
    copy in another process (made by unpickling, or by ``fork``) is *detached*,
    and its :meth:`spend` and :meth:`check` raise
    :class:`~sklearn_semiprivate.PrivacyBudgetError` (fail closed) instead of
    charging a ledger nobody reads. Its ``history``, :meth:`spent` and
    :meth:`remaining` are a snapshot from when it was copied.

    Examples
    --------
    >>> from sklearn_semiprivate import PrivacyAccountant
    >>> acc = PrivacyAccountant(epsilon=1.0, delta=1e-6)
    >>> acc.spend(0.25)
    >>> acc.spend(0.5, 1e-7, source="a mean")
    >>> acc.remaining()
    PrivacyCost(epsilon=0.25, delta=9e-07)
    >>> [charge.source for charge in acc.history]
    ['', 'a mean']

    A ledger in a file outlives the process that wrote it:

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "budget.db")
    ...     PrivacyAccountant(epsilon=2.0, path=path).spend(1.5)
    ...     later = PrivacyAccountant(epsilon=2.0, path=path)  # e.g. after a restart
    ...     print(later.spent())
    PrivacyCost(epsilon=1.5, delta=0.0)
    """

    def __init__(self, epsilon=math.inf, delta=1e-5, path=None):
        self.epsilon = check_positive_real(epsilon, "epsilon", allow_inf=True)
        self.delta = check_delta(delta)
        if path is None:
            self._ledger = _MemoryLedger()
        else:
            self._ledger = _SQLiteLedger(_check_path(path))
            self._ledger.open(PrivacyCost(self.epsilon, self.delta))
        self._lock = threading.Lock()
        self._owner_pid = os.getpid()
        self._detached = False

    @property
    def path(self):
        """Absolute path of the ledger's SQLite file, or None for memory."""
        return self._ledger.path

    def __repr__(self):
        path = "" if self.path is None else f", path={self.path!r}"
        epsilon, delta = _exact_repr(self.epsilon), _exact_repr(self.delta)
        return f"PrivacyAccountant(epsilon={epsilon}, delta={delta}{path})"

    # sklearn.base.clone, copy and deepcopy share the ledger, never copy it.
    def __sklearn_clone__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def __getstate__(self):
        state = {"epsilon": self.epsilon, "delta": self.delta, "path": self.path}
        if self.path is None:
            state["charges"] = self._ledger.charges()
        return state

    def __setstate__(self, state):
        self.epsilon, self.delta = state["epsilon"], state["delta"]
        if state["path"] is None:
            # A copy: its spends could not reach the original, so it refuses them.
            self._ledger = _MemoryLedger(state["charges"])
            self._detached = True
        else:
            # The same file, hence the same ledger; the file must still exist.
            self._ledger = _SQLiteLedger(state["path"])
            self._detached = False
        self._lock = threading.Lock()
        self._owner_pid = os.getpid()

    @property
    def history(self):
        """Every charge, as :class:`PrivacyCharge`, oldest first."""
        with self._lock:
            return self._ledger.charges()

    def spent(self):
        """Total spent so far, by basic composition.

        Returns
        -------
        cost : PrivacyCost
        """
        return compose_basic(charge.cost for charge in self.history)

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

    def check(self, epsilon, delta=0.0):
        """Raise :class:`PrivacyBudgetError` if the spend would exceed the budget.

        A preview that spends and reserves nothing: another fit may spend the
        budget between ``check`` and :meth:`spend`, which checks again.

        Parameters
        ----------
        epsilon : float
            Epsilon about to be spent, ``>= 0``.
        delta : float, default=0.0
            Delta about to be spent.

        Raises
        ------
        PrivacyBudgetError
            If the spend does not fit in the remaining budget, or if this is a
            detached copy (see Notes of :class:`PrivacyAccountant`).
        """
        cost = _as_cost((epsilon, delta))
        self._refuse_if_detached()
        self._admit([charge.cost for charge in self.history], cost)

    def spend(self, epsilon, delta=0.0, *, source=None):
        """Check that a spend fits and record it, in one atomic step.

        Parameters
        ----------
        epsilon : float
            Epsilon spent, ``>= 0``.
        delta : float, default=0.0
            Delta spent.
        source : None, str or estimator, default=None
            What spends it, for the history: a description, or an object whose
            class name and ``get_params(deep=False)`` (without ``accountant``)
            are recorded.

        Raises
        ------
        PrivacyBudgetError
            If the spend does not fit, or if this is a detached copy (see Notes
            of :class:`PrivacyAccountant`); then nothing is recorded.
        """
        cost = _as_cost((epsilon, delta))
        self._refuse_if_detached()
        name, params = _describe_source(source)

        def admit(spent_costs):
            self._admit(spent_costs, cost)
            return PrivacyCharge(cost, name, params, _utc_now())

        with self._lock:
            self._ledger.record(admit, PrivacyCost(self.epsilon, self.delta))

    def summary(self, n_charges=10):
        """The budget, what is spent and left, and the latest charges, as text.

        Parameters
        ----------
        n_charges : int, default=10
            How many of the most recent charges to list.

        Returns
        -------
        text : str

        Examples
        --------
        >>> from sklearn_semiprivate import PrivacyAccountant
        >>> acc = PrivacyAccountant(epsilon=2.0)
        >>> acc.spend(0.5, source="a histogram")
        >>> print(acc.summary())  # doctest: +ELLIPSIS
        PrivacyAccountant(epsilon=2.0, delta=1e-05)
        spent:     PrivacyCost(epsilon=0.5, delta=0.0) in 1 charge
        remaining: PrivacyCost(epsilon=1.5, delta=1e-05)
          1. ...+00:00  epsilon=0.5 delta=0  a histogram
        """
        history = self.history
        spent = compose_basic(charge.cost for charge in history)
        remaining = PrivacyCost(
            max(0.0, self.epsilon - spent.epsilon), max(0.0, self.delta - spent.delta)
        )
        plural = "" if len(history) == 1 else "s"
        lines = [
            repr(self),
            f"spent:     {spent!r} in {len(history)} charge{plural}",
            f"remaining: {remaining!r}",
        ]
        first = max(0, len(history) - n_charges)
        if first:
            lines.append(f"  ... {first} earlier charge{'s' if first > 1 else ''}")
        for number, charge in enumerate(history[first:], start=first + 1):
            params = ", ".join(f"{key}={value}" for key, value in charge.params.items())
            source = f"{charge.source}({params})" if params else charge.source
            lines.append(
                f"  {number}. {charge.time}  epsilon={charge.cost.epsilon:.12g} "
                f"delta={charge.cost.delta:.12g}  {source}".rstrip()
            )
        return "\n".join(lines)

    def _refuse_if_detached(self):
        if self.path is None and (self._detached or os.getpid() != self._owner_pid):
            raise mark_value_free(
                PrivacyBudgetError(
                    "This PrivacyAccountant is a detached copy (e.g. in a joblib "
                    "worker process): its spends would not reach the original "
                    "ledger. Pass path= for a ledger shared across processes, or "
                    "use n_jobs=1 or a threading backend."
                )
            )

    def _admit(self, spent_costs, cost):
        """Raise PrivacyBudgetError unless ``cost`` fits on top of ``spent_costs``.

        The one budget comparison, for both storages.
        """
        spent = compose_basic(spent_costs)
        slack = 1 + _REL_TOL
        over_epsilon = spent.epsilon + cost.epsilon > self.epsilon * slack
        over_delta = spent.delta + cost.delta > self.delta * slack
        if over_epsilon or over_delta:
            parts = [("epsilon", over_epsilon), ("delta", over_delta)]
            which = " and ".join(name for name, over in parts if over)
            hint = (
                " Only delta is short: estimators with delta > 0 default to "
                "1e-5 or 1e-6 per fit, and a ledger to delta=1e-5 in all; pass "
                "a larger delta= to PrivacyAccountant, or a smaller one to the "
                "estimator."
                if over_delta and not over_epsilon
                else ""
            )
            raise mark_value_free(
                PrivacyBudgetError(
                    f"Privacy budget exceeded ({which}): requested "
                    f"(epsilon={cost.epsilon:g}, delta={cost.delta:g}) with "
                    f"(epsilon={spent.epsilon:g}, delta={spent.delta:g}) already spent "
                    f"of a budget of (epsilon={self.epsilon:g}, delta={self.delta:g})."
                    f"{hint}"
                )
            )


def _check_path(path):
    try:
        path = os.fspath(path)
    except TypeError:
        raise TypeError(
            f"path must be None, a str or a path-like object, got {path!r}."
        ) from None
    if not isinstance(path, str):
        path = os.fsdecode(path)
    if path == "" or path == ":memory:" or path.startswith("file:"):
        raise ValueError(
            f"path must name a file, got {path!r}; use path=None for a ledger in "
            "memory."
        )
    return os.path.abspath(path)


def _exact_repr(value):
    """``repr`` of a float that is valid Python, ``inf`` included."""
    return f"float('{value}')" if math.isinf(value) else repr(value)
