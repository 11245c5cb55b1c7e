"""Errors about private rows that do not repeat their content.

scikit-learn's and numpy's input checks quote the data they reject
("could not convert string to float: 'Alice Smith, HIV+'", "Expected 2D
array, got 1D array instead: array=[...]"). Raised before the ledger is
charged, such a message would release private values for free. Only a known
start of the message that quotes no value (at most a shape, a feature count or
a type name, which are format) is kept; the rest is dropped, and the original
exception is neither the cause nor the context of the new one.
"""

# SPDX-License-Identifier: BSD-3-Clause

import re

import numpy as np

from ..exceptions import PrivacyBudgetError

__all__ = [
    "call_inner_on_private",
    "call_on_private",
    "mark_value_free",
    "value_free_start",
    "withheld_detail",
]

# Set on an exception whose message this package wrote without private values
# (a refused private read, a budget error), so that it passes a learner of
# another library unchanged.
_VALUE_FREE = "_sklearn_semiprivate_value_free"

# Leading parts of format errors that quote no value of the data.
_FORMAT_MESSAGES = tuple(
    re.compile(pattern)
    for pattern in (
        r"Input (X |y )?contains (NaN|infinity)",
        r"(This \w+ estimator|\w+) requires y to be passed, but the target y "
        r"is None",
        r"Complex data not supported",
        # The shape holds the number of rows; kept because scikit-learn's
        # check_estimator matches it (docs/limitations.rst).
        r"Found array with \d+ (feature|sample)\(s\) \(shape=\(\d+, \d+\)\) "
        r"while a minimum of \d+ is required",
        r"Found array with dim \d+",
        r"Expected 2D array, got (1D|scalar) array instead",
        r"y should be a 1d array",
        r"Found input variables with inconsistent numbers of samples",
        r"Unknown label type: \w+",
        r"Sparse data was passed( for X)?, but dense data is required",
        r"Cannot center sparse matrices",
        r"X has \d+ features, but \w+ is expecting \d+ features as input",
        r"The feature names should match those that were passed during fit",
        r"(float\(\) )?argument must be a string or a (real )?number, not '\w+'",
        r"could not convert string to float",
        r"setting an array element with a sequence",
        r"Found unknown categories",
    )
)


def value_free_start(message):
    """The start of ``message`` that quotes no data value, or None.

    Parameters
    ----------
    message : str
        An exception's message.

    Returns
    -------
    start : str or None

    Examples
    --------
    >>> from sklearn_semiprivate.utils._private_errors import value_free_start
    >>> value_free_start("could not convert string to float: 'Alice'")
    'could not convert string to float'
    >>> value_free_start("anything else: 42") is None
    True
    """
    for pattern in _FORMAT_MESSAGES:
        match = pattern.match(message)
        if match:
            return match.group(0)
    return None


def call_on_private(func, *args, what="the private rows", **kwargs):
    """Call a format check on private data; its error repeats no private value.

    The new error has the original's kind (``TypeError`` or ``ValueError``),
    keeps a known value-free start of its message, and is raised outside the
    ``except`` block, so no traceback prints the original.

    Parameters
    ----------
    func : callable
        The check (e.g. ``validate_data``).
    *args, **kwargs
        Its arguments.
    what : str, default="the private rows"
        Named in the message.

    Returns
    -------
    result
        What ``func`` returns.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.utils import check_array
    >>> from sklearn_semiprivate.utils._private_errors import call_on_private
    >>> try:
    ...     call_on_private(check_array, np.array([1.5, 2.5]))
    ... except ValueError as exc:
    ...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
    Expected 2D array, got 1D array instead (in the private rows; the rest of
    the message is withheld because it may quote private values).
    """
    try:
        # scikit-learn's finiteness check sums the array first: rows near the
        # largest float (finite, valid input) overflow that sum to inf - inf,
        # and numpy's RuntimeWarning (an error under "error" filters) would
        # then depend on private values. The check itself stays exact.
        with np.errstate(over="ignore", invalid="ignore"):
            return func(*args, **kwargs)
    except (TypeError, ValueError, OverflowError) as exc:
        # OverflowError: numpy's conversion of a Python int beyond float64
        # ("int too large to convert to float") in an object array.
        failure, kept = type(exc), value_free_start(str(exc))
    kind = TypeError if issubclass(failure, TypeError) else ValueError
    if kept is None:
        raise kind(
            f"{what[:1].upper()}{what[1:]} are malformed: {failure.__name__} "
            "(its message is withheld because it may quote private values)."
        )
    raise kind(
        f"{kept} (in {what}; the rest of the message is withheld because it may "
        "quote private values)."
    )


def mark_value_free(exc):
    """Mark ``exc`` as written by this package without private values.

    :func:`call_inner_on_private` passes such an exception unchanged through a
    learner of another library.

    Parameters
    ----------
    exc : BaseException

    Returns
    -------
    exc : BaseException
        The same exception, marked.

    Examples
    --------
    >>> from sklearn_semiprivate.utils._private_errors import mark_value_free
    >>> exc = mark_value_free(ValueError("no bounds given; refused"))
    >>> str(exc)
    'no bounds given; refused'
    """
    setattr(exc, _VALUE_FREE, True)
    return exc


def _quotes_no_private_value(estimator, exc):
    # A learner of this package writes its errors without private values (its
    # own inner learners' errors go through this function too); so does a
    # refused read or a budget error that a learner of another library passes on.
    # A subclass written elsewhere counts as another library's.
    own = type(estimator).__module__.split(".")[0] == __name__.split(".")[0]
    return own or getattr(exc, _VALUE_FREE, False) or (type(exc) is PrivacyBudgetError)


def call_inner_on_private(estimator, method, *args, what, **kwargs):
    """Call an inner learner's ``method`` on private rows, after the charge.

    A learner of another library may quote the rows it fails on ("cannot
    handle value 31415.9"), and a wrapper that passed the error on would
    release that value outside its mechanism. Its error becomes a
    ``TypeError`` or ``ValueError`` that keeps the original's type name and a
    known value-free start of its message, raised outside the ``except`` block
    (as :func:`call_on_private`). Errors of this package's learners, and those
    marked by :func:`mark_value_free`, pass unchanged: they quote no private
    value. Whether the fit fails at all stays a fact about the private rows
    (docs/limitations.rst, "Errors after the charge").

    Parameters
    ----------
    estimator : estimator
        The inner learner.
    method : str
        The method to call (``"fit"``, ``"predict"``).
    *args, **kwargs
        Its arguments.
    what : str
        Names the learner and the rows in the message.

    Returns
    -------
    result
        What the method returns.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_semiprivate.utils._private_errors import (
    ...     call_inner_on_private)
    >>> X, y = np.array([[0.0], [31415.9]]), np.array([0, 0])
    >>> try:
    ...     call_inner_on_private(
    ...         LogisticRegression(), "fit", X, y, what="the base learner's fit")
    ... except ValueError as exc:
    ...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
    The base learner's fit failed: ValueError (its message is withheld because
    it may quote private values).
    """
    call = getattr(estimator, method)
    try:
        return call(*args, **kwargs)
    except Exception as exc:
        if _quotes_no_private_value(estimator, exc):
            raise
        failure, kept = type(exc), value_free_start(str(exc))
    raise (TypeError if issubclass(failure, TypeError) else ValueError)(
        f"{what[:1].upper()}{what[1:]} failed: {failure.__name__} "
        f"({withheld_detail(kept)})."
    )


def withheld_detail(kept):
    """What an error that withholds a message says of it.

    Parameters
    ----------
    kept : str or None
        The message's value-free start (:func:`value_free_start`), if any.

    Returns
    -------
    detail : str

    Examples
    --------
    >>> from sklearn_semiprivate.utils._private_errors import withheld_detail
    >>> withheld_detail("Input X contains NaN")
    'Input X contains NaN; the rest of the message is withheld'
    """
    if kept is None:
        return "its message is withheld because it may quote private values"
    return f"{kept}; the rest of the message is withheld"
