"""Counting a fitted model's correct predictions on private rows, row by row.

Several mechanisms score released (or public) models by their number of
correctly classified private rows, a score of sensitivity 1 because each row
adds 0 or 1. That holds only if each row's term depends on that row alone: a
``predict`` that raises on one row (a scaler overflowing on a huge but finite
value, an encoder meeting an unseen category) must not make the count, or the
fit, fail, and its message (which may quote the value) must not escape.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.tree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)

from ._sklearn_compat import _safe_indexing

__all__ = ["count_correct", "float32_safe", "rowwise", "rowwise_matches"]

# Rows per call.
_CHUNK = 1024
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_FLOAT32_TREES = (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)


def _computes_in_float32(model):
    """Whether ``model`` is a scikit-learn tree or an ensemble of them."""
    if isinstance(model, _FLOAT32_TREES):
        return True
    members = getattr(model, "estimators_", None)
    if members is None:
        return False
    members = np.ravel(np.asarray(members, dtype=object))
    return members.size > 0 and all(isinstance(m, _FLOAT32_TREES) for m in members)


def float32_safe(model, X):
    """``X`` as ``model`` can take every finite row of it.

    scikit-learn's trees (and forests, boosting, isolation forests of them)
    cast their input to float32, and refuse a finite float64 beyond its range
    (a review: a partition by a tree failed on a private 1e39, after the
    charge, on one dataset and not its neighbour). For them the float rows
    are clipped into float32's range, a map of each row on its own: the
    clipped row goes where its cast (±inf) would. Other models get ``X``
    unchanged, so a float64 model keeps every value.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from sklearn_semiprivate.utils._private_predict import float32_safe
    >>> tree = DecisionTreeClassifier().fit([[0.0], [1.0]], [0, 1])
    >>> float32_safe(tree, np.array([[1e39], [0.5]]))[:, 0].tolist()
    [3.4028234663852886e+38, 0.5]
    >>> float32_safe(object(), np.array([[1e39]]))[:, 0].tolist()
    [1e+39]
    """
    if (
        isinstance(X, np.ndarray)
        and X.dtype.kind == "f"
        and _computes_in_float32(model)
    ):
        return np.clip(X, -_FLOAT32_MAX, _FLOAT32_MAX)
    return X


def _chunk_output(func, X, rows, row_shape):
    """``func`` on one chunk, checked; raises if it fails."""
    out = np.asarray(func(_safe_indexing(X, rows)))
    if row_shape is not None and out.shape[1:] != row_shape:
        raise ValueError("the output has the wrong shape")
    if out.shape[:1] != (len(rows),):
        raise ValueError("the output has the wrong number of rows")
    return out


def rowwise(func, X, fill):
    """``func(X)``, whose output has one entry per row, computed row-safely.

    Rows are passed in chunks; a chunk on which ``func`` raises (or returns
    the wrong shape) is passed again one row at a time, and a row on which
    it still fails gets ``fill`` (whose shape is that of one row's output).
    So whether ``func`` fails on a private row changes that row's entry only,
    never the others', and no error (whose message may quote the value)
    escapes. Warnings are the caller's to drop.

    Parameters
    ----------
    func : callable
        Maps rows of ``X`` to an array with one entry (or row) per row.
    X : array-like of shape (n_samples, n_features)
    fill : scalar or array-like
        The output of a row ``func`` fails on.

    Returns
    -------
    out : ndarray of shape (n_samples, *np.shape(fill))
    ok : ndarray of shape (n_samples,) of bool
        False where ``func`` failed (the entry is ``fill``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.utils._private_predict import rowwise
    >>> def f(X):
    ...     if np.any(X > 10):
    ...         raise ValueError("too big")
    ...     return X[:, 0] * 2
    >>> out, ok = rowwise(f, np.array([[1.0], [20.0], [3.0]]), fill=-1.0)
    >>> out.tolist(), ok.tolist()
    ([2.0, -1.0, 6.0], [True, False, True])
    """
    fill = np.asarray(fill)
    n = np.shape(X)[0]
    parts, ok = [], np.ones(n, dtype=bool)
    with np.errstate(all="ignore"):
        for start in range(0, n, _CHUNK):
            rows = np.arange(start, min(start + _CHUNK, n))
            try:
                parts.append(_chunk_output(func, X, rows, fill.shape))
                continue
            except Exception:
                pass
            for i in rows:
                try:
                    parts.append(_chunk_output(func, X, np.array([i]), fill.shape))
                except Exception:
                    parts.append(fill[None, ...])
                    ok[i] = False
    if not parts:
        return np.empty((0, *fill.shape), dtype=fill.dtype), ok
    return np.concatenate(parts, axis=0), ok


def count_correct(estimator, X, y):
    """Rows of ``(X, y)`` that ``estimator`` classifies correctly.

    A row whose prediction raises, or comes back in the wrong shape, counts
    as misclassified instead of raising, so that whether the count (or the
    fit) fails does not depend on the private rows. Rows are predicted in
    chunks; a chunk that fails is predicted again one row at a time. In exact
    arithmetic ``predict`` labels each row on its own, so the count is a sum
    of per-row terms (sensitivity 1); in floating point a chunk's result can
    differ in the last bits from a row's own (see ``docs/limitations.rst``,
    "Idealized numerics"). Warnings are the caller's to drop.

    Parameters
    ----------
    estimator : fitted classifier
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)

    Returns
    -------
    correct : int

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.dummy import DummyClassifier
    >>> from sklearn_semiprivate.utils._private_predict import count_correct
    >>> X, y = np.zeros((5, 1)), np.array([0, 0, 1, 0, 1])
    >>> count_correct(DummyClassifier().fit(X, y), X, y)
    3
    """
    matches, ok = rowwise_matches(estimator.predict, X, y)
    return int(np.count_nonzero(matches & ok))


def rowwise_matches(predict, X, y):
    """Whether ``predict`` gives each row its label, computed row-safely.

    Each chunk's predictions are compared with its labels in their own dtype
    (NumPy's ``==``), and a row ``predict`` fails on is no match. A review
    found that filling such a row with a label (``y[0]``), or with an object
    None, changed the dtype of every other row's prediction, and so their
    comparisons: one row decided the others' (a string label, or int64
    predictions above 2**53 compared as Python objects with float labels).

    Returns
    -------
    matches : ndarray of shape (n_samples,) of bool
    ok : ndarray of shape (n_samples,) of bool
        False where ``predict`` failed (``matches`` is then False).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.utils._private_predict import rowwise_matches
    >>> def predict(X):
    ...     if np.any(X > 10):
    ...         raise ValueError("too big")
    ...     return (X[:, 0] > 0).astype(int)
    >>> m, ok = rowwise_matches(predict, np.array([[1.0], [20.0], [-1.0]]),
    ...                         np.array([1, 1, 1]))
    >>> m.tolist(), ok.tolist()
    ([True, False, False], [True, False, True])
    """
    y = np.asarray(y)
    if y.shape[0] == 0:
        return np.zeros(0, dtype=bool), np.ones(0, dtype=bool)

    def matches(rows):
        pred = np.asarray(predict(_safe_indexing(X, rows)))
        if pred.shape != (len(rows),):
            raise ValueError("the output has the wrong shape")
        return pred == y[rows]

    # The rows' indices stand for the rows: each chunk is compared with its
    # own labels.
    out, ok = rowwise(matches, np.arange(y.shape[0]), fill=False)
    return out.astype(bool) & ok, ok
