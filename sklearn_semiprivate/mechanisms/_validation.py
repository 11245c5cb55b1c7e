"""Input checks shared by every mechanism, in one place.

They build on :mod:`sklearn_semiprivate.utils` (``check_epsilon``,
``check_real_array``, ...) and add what only mechanisms need: score vectors,
log base measures (which may exclude candidates with ``-inf``), blocks of scores
for candidate sets too large to hold, and released values of any shape.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numbers

import numpy as np

from ..utils._validation import check_integer, check_positive_real, check_real_array

__all__ = [
    "check_log_base_measure",
    "check_n_categories",
    "check_scores",
    "check_sensitivity",
    "check_size",
    "check_values",
    "iter_score_blocks",
]


def check_sensitivity(sensitivity, name="sensitivity"):
    """Return ``sensitivity`` as a finite float ``> 0``."""
    return check_positive_real(sensitivity, name)


def check_scores(scores, name="scores"):
    """Return ``scores`` as a non-empty, finite, 1-D float64 array.

    Scores are data-dependent, so ``-inf`` is refused: excluding a candidate
    because of the private data would change the support and break privacy.
    Exclusions belong in the (data-independent) base measure.
    """
    return check_real_array(scores, name, ndim=1)


def check_log_base_measure(log_base_measure, n_candidates, name="log_base_measure"):
    """Return log weights of a data-independent base measure as float64.

    ``-inf`` is allowed (it excludes a candidate: the base measure does not depend
    on private data, so the support stays data-independent); NaN and ``+inf`` are
    not. ``n_candidates`` is the required length, or None to skip that check.
    """
    arr = np.asarray(log_base_measure)
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(
            f"{name} must be an array of real numbers, got dtype {arr.dtype}."
        )
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}.")
    if n_candidates is not None and arr.shape[0] != n_candidates:
        raise ValueError(
            f"{name} has {arr.shape[0]} entries but there are {n_candidates} "
            "candidate scores."
        )
    arr = arr.astype(np.float64, copy=False)
    if np.isnan(arr).any():
        raise ValueError(f"{name} must not contain NaN.")
    if np.isposinf(arr).any():
        raise ValueError(f"{name} must not contain +inf (log weights are < inf).")
    return arr


def iter_score_blocks(scores, log_base_measure=None):
    """Yield ``(score_block, log_base_block_or_None)`` pairs of 1-D arrays.

    ``scores`` is either one 1-D array-like (a list or tuple of numbers, or an
    ndarray) or an iterable of 1-D blocks (a generator, or a list/tuple whose
    elements are 1-D array-likes). ``log_base_measure`` is then None, a 1-D
    array-like of the same total length (only when ``scores`` is one array), or an
    iterable of blocks matching ``scores`` block by block.

    Blocks are validated as they are read, so the whole candidate set never needs
    to be held in memory. Empty blocks are allowed; an empty candidate set is
    refused by the caller, which counts candidates.
    """
    if _is_single_array(scores):
        arr = check_real_array(scores, "scores", ndim=1, allow_empty=True)
        if log_base_measure is None:
            yield arr, None
            return
        if not _is_single_array(log_base_measure):
            raise TypeError(
                "log_base_measure must be a 1-D array-like when scores is one array."
            )
        yield arr, check_log_base_measure(log_base_measure, arr.shape[0])
        return
    if isinstance(scores, (str, bytes)) or not hasattr(scores, "__iter__"):
        raise TypeError(
            "scores must be a 1-D array-like of real numbers or an iterable of 1-D "
            f"blocks of them, got {type(scores).__name__}."
        )
    sentinel = object()
    base_iter = None if log_base_measure is None else iter(log_base_measure)
    for i, block in enumerate(scores):
        if np.ndim(block) != 1:
            raise ValueError(
                "scores given as an iterable must yield 1-D blocks; block "
                f"{i} has shape {np.shape(block)}."
            )
        block = check_real_array(block, "scores", ndim=1, allow_empty=True)
        if base_iter is None:
            yield block, None
            continue
        base_block = next(base_iter, sentinel)
        if base_block is sentinel:
            raise ValueError(
                f"log_base_measure has fewer blocks than scores (ran out at block {i})."
            )
        yield block, check_log_base_measure(base_block, block.shape[0])
    if base_iter is not None and next(base_iter, sentinel) is not sentinel:
        raise ValueError("log_base_measure has more blocks than scores.")


def _is_single_array(obj):
    if isinstance(obj, np.ndarray):
        return True
    if isinstance(obj, (list, tuple)):
        return all(np.ndim(v) == 0 for v in obj)
    return False


def check_values(value, name="value"):
    """Return ``(array, is_scalar)`` for a finite real scalar or array of any shape."""
    arr = np.asarray(value)
    if arr.dtype == bool or not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(
            f"{name} must be a real number or an array of them, got dtype {arr.dtype}."
        )
    arr = arr.astype(np.float64, copy=False)
    if not np.all(np.isfinite(arr)):
        bad = "NaN" if np.isnan(arr).any() else "infinity"
        raise ValueError(f"{name} must be finite, found {bad}.")
    return arr, arr.ndim == 0


def check_n_categories(n_categories, name="n_categories"):
    """Return ``n_categories`` as a Python int ``>= 2``."""
    return check_integer(n_categories, name, 2)


def check_size(size, name="size"):
    """Return ``size`` as None, or a tuple of non-negative ints (numpy's convention)."""
    if size is None:
        return None
    shape = (size,) if np.ndim(size) == 0 else tuple(size)
    for s in shape:
        if isinstance(s, (bool, np.bool_)) or not isinstance(s, numbers.Integral):
            raise TypeError(
                f"{name} must be None, an int or a tuple of ints, got {size!r}."
            )
        if s < 0:
            raise ValueError(f"{name} must be non-negative, got {size!r}.")
    return tuple(int(s) for s in shape)
