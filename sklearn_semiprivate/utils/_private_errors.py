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
import warnings

import numpy as np
from joblib import parallel_config

from ..exceptions import PrivacyBudgetError
from ._nested_fit import recorded_in_this_thread

__all__ = [
    "call_inner_on_private",
    "call_on_private",
    "mark_value_free",
    "message_of",
    "say_withheld_warnings",
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
        # scikit-learn's type_of_target names only (a review: "\w+" kept a
        # private label).
        r"Unknown label type: '?(multiclass-multioutput|continuous-multioutput|"
        r"multilabel-indicator|multiclass|continuous|binary|unknown)'?(?![\w-])",
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
        failure, kept = type(exc), value_free_start(message_of(exc))
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
    # The message as written here: what is passed on (see _passed_on).
    setattr(exc, _VALUE_FREE, str(exc))
    return exc


def _is_own(obj):
    # A learner (or cover) of this package writes its errors and warnings
    # without private values; its own inner learners' go through this module
    # too. A subclass written elsewhere counts as another library's.
    return type(obj).__module__.split(".")[0] == __name__.split(".")[0]


def _passed_on(exc):
    """A copy of an error this package wrote, if ``exc`` is one, else None.

    The copy carries the message as this package wrote it: notes or
    arguments that a learner of another library added on its way out are
    dropped (a review: a refused read re-raised with ``add_note(value)``).
    """
    # Budget errors are marked where the accountant raises them; one raised
    # or rewritten elsewhere is withheld like any other error (a review).
    written = getattr(exc, _VALUE_FREE, None)
    if not isinstance(written, str):
        return None
    if isinstance(exc, PrivacyBudgetError):
        return PrivacyBudgetError(written)
    return ValueError(written)


def message_of(exc):
    """``str(exc)``, or ``""`` when the exception's ``__str__`` fails.

    Raised inside an ``except`` block, that failure would carry the original
    exception, and its private values, as its ``__context__`` (a review).

    Examples
    --------
    >>> from sklearn_semiprivate.utils._private_errors import message_of
    >>> message_of(ValueError("bad")), message_of(KeyError)
    ('bad', "<class 'KeyError'>")
    """
    try:
        return str(exc)
    except Exception:
        return ""


def say_withheld_warnings(recorded, what):
    """Say, once per category and without the messages, that ``what`` warned."""
    categories = []
    for w in recorded:
        if w.category not in categories:
            categories.append(w.category)
    for category in categories:
        text = (
            f"{what[:1].upper()}{what[1:]} warned: {category.__name__} (its "
            "message is withheld because it may quote private values)."
        )
        try:
            category(text)
        except Exception:  # a category that takes other arguments
            category = UserWarning
        warnings.warn(text, category, stacklevel=4)


def call_inner_on_private(estimator, method, *args, what, **kwargs):
    """Call an inner learner's ``method`` on private rows, after the charge.

    A learner of another library may quote the rows it fails or warns on
    ("cannot handle value 31415.9"), and a wrapper that passed that on would
    release the value outside its mechanism. Its error becomes a
    ``TypeError`` or ``ValueError`` that keeps the original's type name and a
    known value-free start of its message, raised outside the ``except`` block
    (as :func:`call_on_private`); its warnings are recorded, not shown
    (:func:`~._nested_fit.recorded_in_this_thread`, the user's filters
    untouched), and one warning per category says that there were some.
    Errors and warnings of this package's learners pass unchanged: they quote
    no private value. So do a refused private read
    (:func:`mark_value_free`) and a budget error that the learner passes on,
    as this package wrote them. Whether the fit fails or warns at all stays a
    fact about the private rows (docs/limitations.rst).

    Parameters
    ----------
    estimator : object
        The inner learner (or a cover of a hypothesis class).
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
    if _is_own(estimator):
        return call(*args, **kwargs)
    try:
        # Sequential joblib: warnings of worker threads or processes would
        # escape the recorder, which sees this thread only (a review). A
        # learner that names its own joblib backend still escapes it.
        with recorded_in_this_thread() as recorded, parallel_config("sequential"):
            result = call(*args, **kwargs)
    except Exception as exc:
        failure, passed = type(exc), _passed_on(exc)
        kept = None if passed is not None else value_free_start(message_of(exc))
    else:
        say_withheld_warnings(recorded, what)
        return result
    if passed is not None:
        raise passed
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
