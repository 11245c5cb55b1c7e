"""Where a fit reports a value it reads off its rows outside any mechanism.

Some fits of this package fall back to reading a value off the rows they are
given, outside any mechanism: the domain box (no ``bounds=``, no public
data), the label set (no ``classes=``, no public labels), a pipeline's
preprocessing (``fit_on_private="warn"``). Fitted alone, such a fit warns
with a :class:`~sklearn_semiprivate.PrivacyLeakWarning` and goes on: the user
asked for it. Whether the read is a leak, and what to do about it, depends on
who called the fit:

* A meta-estimator whose stated cost covers only its inner learner's
  mechanisms (LabelBoost's step 5, the active learner's step 3, the transfer
  learner's Algorithm 2) must not return a model whose ``privacy_spent_`` the
  read makes false: inside :func:`private_reads_refused` the read raises a
  ``ValueError`` at once, before the value is used.
* A meta-estimator that fits an inner learner on public, released or
  synthetic rows (PATE's student, the synthetic classifier's learner,
  SemiPrivateClassifier's final estimator), or whose inner fit reaches the
  output only through the meta-estimator's own mechanism (PATE's teachers),
  or that claims no privacy (the transfer learner's Algorithm 1), knows the
  read is not a leak: inside :func:`reads_not_leaks` it is not reported (a
  false warning, and under :func:`private_reads_refused` a false error,
  otherwise).

The mode is a :class:`contextvars.ContextVar`, not a warnings filter. Python's
warning filters are process-wide (before 3.14's context-aware warnings): a
review found an ``"error"`` filter for ``PrivacyLeakWarning`` set by one fit
failing an unrelated fit in another thread after its charge (863 of 1705
fits), and an ``"ignore"`` filter would hide another thread's real leak. A
context variable is seen by the code that runs in the context that sets it:
the thread inside the block, and what copies that context (asyncio tasks
created inside the block, ``asyncio.to_thread``, ``contextvars.copy_context``),
even after the block ends. Other threads, including those a nested estimator
starts itself (``n_jobs`` with the threading backend), begin in the default
mode, where a read warns as usual; worker processes too. The innermost block
wins. Do not suspend a generator inside a block: its mode would then hold in
the code that consumes it.
"""

# SPDX-License-Identifier: BSD-3-Clause

import contextlib
import contextvars
import warnings

from ..exceptions import PrivacyLeakWarning
from ._private_errors import mark_value_free

__all__ = [
    "private_reads_refused",
    "reads_are_not_leaks",
    "reads_not_leaks",
    "warn_private_read",
]

# None: warn (the default); ("refused", message); ("not leaks",).
_MODE = contextvars.ContextVar("sklearn_semiprivate_private_reads", default=None)


def warn_private_read(message, *, stacklevel=2):
    """Report that the value about to be used is read off the fit's rows.

    The one place a fit of this package says it reads a value off its rows
    outside any mechanism. By default a
    :class:`~sklearn_semiprivate.PrivacyLeakWarning` with ``message``; inside
    :func:`private_reads_refused`, a ``ValueError`` (the caller must not use
    the value); inside :func:`reads_not_leaks`, nothing.

    Parameters
    ----------
    message : str
        What is read, and how to avoid it.
    stacklevel : int, default=2
        As for :func:`warnings.warn`, counted from the caller of this
        function.

    Raises
    ------
    ValueError
        Inside :func:`private_reads_refused`.

    Examples
    --------
    >>> import warnings
    >>> from sklearn_semiprivate.utils._private_reads import (
    ...     reads_not_leaks, warn_private_read)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_private_read("the box is read off the rows")
    ...     with reads_not_leaks():
    ...         warn_private_read("not reported: the rows are public")
    >>> [str(w.message) for w in caught]
    ['the box is read off the rows']
    """
    mode = _MODE.get()
    if mode is None:
        warnings.warn(message, PrivacyLeakWarning, stacklevel=stacklevel + 1)
    elif mode[0] == "refused":
        # Written here without private values: it passes a learner of another
        # library unchanged (utils/_private_errors.call_inner_on_private).
        raise mark_value_free(ValueError(f"{mode[1]} (The read: {message})"))


def reads_are_not_leaks():
    """Whether the code runs inside :func:`reads_not_leaks` (innermost block).

    For messages that only make sense on private rows: a fit inside such a
    block (PATE's student, the synthetic classifier's learner) is not told
    that it was given no public data, which its caller could not give it.

    Examples
    --------
    >>> from sklearn_semiprivate.utils._private_reads import (
    ...     reads_are_not_leaks, reads_not_leaks)
    >>> with reads_not_leaks():
    ...     reads_are_not_leaks()
    True
    >>> reads_are_not_leaks()
    False
    """
    mode = _MODE.get()
    return mode is not None and mode[0] == "not leaks"


@contextlib.contextmanager
def private_reads_refused(message):
    """Inside, a read reported by :func:`warn_private_read` is an error.

    For a meta-estimator fitting an inner learner on its private rows after
    its charge, whose stated cost covers only the learner's mechanisms: the
    fit stops at the read, before the value is used (the ledgers stay
    charged), instead of returning a model whose ``privacy_spent_`` is false.
    Seen by the code that runs in this context (see the module's notes).

    Parameters
    ----------
    message : str
        The error's message: what was stopped, and how to avoid it.

    Yields
    ------
    None

    Examples
    --------
    >>> from sklearn_semiprivate.utils._private_reads import (
    ...     private_reads_refused, warn_private_read)
    >>> try:
    ...     with private_reads_refused("Stopped."):
    ...         warn_private_read("the box is read off the rows")
    ... except ValueError as exc:
    ...     print(exc)
    Stopped. (The read: the box is read off the rows)
    """
    with _mode(("refused", str(message))):
        yield


@contextlib.contextmanager
def reads_not_leaks():
    """Inside, a read reported by :func:`warn_private_read` is not reported.

    For a fit whose rows are not private rows of the caller's guarantee:
    public, released or synthetic rows, or rows whose influence on the output
    the caller's own mechanism bounds (PATE's teachers, whose fits reach the
    output only through the noisy votes); or for a caller that claims no
    privacy (the transfer learner's Algorithm 1). Seen by the code that runs
    in this context (see the module's notes); it overrides an outer
    :func:`private_reads_refused` (a private fit nested inside must enter
    that again).

    Yields
    ------
    None

    Examples
    --------
    >>> from sklearn_semiprivate.utils._private_reads import (
    ...     private_reads_refused, reads_not_leaks, warn_private_read)
    >>> with private_reads_refused("Stopped."):
    ...     with reads_not_leaks():
    ...         warn_private_read("the box of a public fit")  # no error
    """
    with _mode(("not leaks",)):
        yield


@contextlib.contextmanager
def _mode(value):
    token = _MODE.set(value)
    try:
        yield
    finally:
        _MODE.reset(token)
