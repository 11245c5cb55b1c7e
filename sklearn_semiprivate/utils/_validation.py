"""Validation of privacy parameters and mechanism inputs, in one place.

Every mechanism and estimator of the package validates through these helpers, so
an ``epsilon`` of ``0``, ``nan``, ``"1"`` or ``True`` is refused with the same message
everywhere, naming the offending parameter.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numbers

import numpy as np

__all__ = [
    "check_delta",
    "check_epsilon",
    "check_integer",
    "check_positive_real",
    "check_probability",
    "check_real_array",
]


def _check_real(value, name):
    # bool is an int subclass; a privacy parameter of True is surely a mistake.
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
    value = float(value)
    if np.isnan(value):
        raise ValueError(f"{name} must be a number, got nan.")
    return value


def check_integer(value, name, minimum):
    """Return ``value`` as a Python int after checking it is an integer ``>= minimum``.

    Any integral type is accepted (``int``, ``np.int64``); ``bool`` is refused.

    Parameters
    ----------
    value : object
        Value to check.
    name : str
        Parameter name, used in error messages.
    minimum : int
        Smallest allowed value.

    Returns
    -------
    value : int

    Raises
    ------
    TypeError
        If ``value`` is not an integer.
    ValueError
        If ``value < minimum``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.utils import check_integer
    >>> check_integer(np.int64(3), "n_rounds", 1)
    3
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}.")
    return int(value)


def check_positive_real(value, name, *, allow_inf=False):
    """Return ``value`` as a float after checking it is a real number ``> 0``.

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Parameter name used in the error message.
    allow_inf : bool, default=False
        Whether ``+inf`` is accepted.

    Returns
    -------
    value : float

    Raises
    ------
    TypeError
        If ``value`` is not a real number (``bool`` included).
    ValueError
        If ``value`` is NaN, ``<= 0``, or infinite while ``allow_inf`` is False.

    Examples
    --------
    >>> from sklearn_semiprivate.utils import check_positive_real
    >>> check_positive_real(2, "sensitivity")
    2.0
    """
    value = _check_real(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}.")
    if np.isinf(value) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {value!r}.")
    return value


def check_epsilon(epsilon, name="epsilon"):
    """Check a privacy parameter epsilon: a finite real number ``> 0``.

    Parameters
    ----------
    epsilon : object
        The value to check.
    name : str, default="epsilon"
        Parameter name used in the error message.

    Returns
    -------
    epsilon : float

    Examples
    --------
    >>> from sklearn_semiprivate.utils import check_epsilon
    >>> check_epsilon(0.5)
    0.5
    >>> check_epsilon(0)
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be > 0, got 0.0.
    """
    return check_positive_real(epsilon, name)


def check_probability(value, name, *, allow_zero=True, allow_one=False):
    """Check a real number in ``[0, 1)`` (bounds adjustable).

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Parameter name used in the error message.
    allow_zero : bool, default=True
        Whether ``0`` is accepted.
    allow_one : bool, default=False
        Whether ``1`` is accepted.

    Returns
    -------
    value : float

    Examples
    --------
    >>> from sklearn_semiprivate.utils import check_probability
    >>> check_probability(1e-6, "delta")
    1e-06
    """
    value = _check_real(value, name)
    low_ok = value > 0 or (allow_zero and value == 0)
    high_ok = value < 1 or (allow_one and value == 1)
    if not (low_ok and high_ok):
        lo = "[0" if allow_zero else "(0"
        hi = "1]" if allow_one else "1)"
        raise ValueError(f"{name} must be in {lo}, {hi}, got {value!r}.")
    return value


def check_delta(delta, name="delta", *, allow_zero=True):
    """Check a privacy parameter delta: a real number in ``[0, 1)``.

    Parameters
    ----------
    delta : object
        The value to check.
    name : str, default="delta"
        Parameter name used in the error message.
    allow_zero : bool, default=True
        Whether ``delta = 0`` is accepted (pure DP). Mechanisms that need
        ``delta > 0`` (the Gaussian mechanism) pass False.

    Returns
    -------
    delta : float

    Examples
    --------
    >>> from sklearn_semiprivate.utils import check_delta
    >>> check_delta(0)
    0.0
    """
    return check_probability(delta, name, allow_zero=allow_zero)


def check_real_array(values, name, *, ndim=1, allow_empty=False):
    """Return ``values`` as a finite float64 array of the given dimension.

    Parameters
    ----------
    values : array-like
        Numbers to check.
    name : str
        Parameter name used in the error message.
    ndim : int, default=1
        Required number of dimensions.
    allow_empty : bool, default=False
        Whether an array with no elements is accepted.

    Returns
    -------
    values : ndarray of dtype float64

    Raises
    ------
    TypeError
        If the values are not numeric (strings, objects, booleans).
    ValueError
        If the values contain NaN or infinity, have the wrong dimension, or are empty.

    Examples
    --------
    >>> from sklearn_semiprivate.utils import check_real_array
    >>> check_real_array([1, 2.5], "scores")
    array([1. , 2.5])
    """
    arr = np.asarray(values)
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(
            f"{name} must be an array of real numbers, got dtype {arr.dtype}."
        )
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}.")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty.")
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        bad = "NaN" if np.isnan(arr).any() else "infinity"
        raise ValueError(f"{name} must be finite, found {bad}.")
    return arr
