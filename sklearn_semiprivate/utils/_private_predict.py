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

from ._sklearn_compat import _safe_indexing

__all__ = ["count_correct"]

# Rows per predict call.
_CHUNK = 1024


def _chunk_correct(estimator, X, y, rows):
    """Correct predictions of one chunk; raises if its prediction fails."""
    pred = np.asarray(estimator.predict(_safe_indexing(X, rows)))
    if pred.shape != (len(rows),):
        raise ValueError("predict returned the wrong shape")
    return int(np.count_nonzero(pred == y[rows]))


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
    y = np.asarray(y)
    n = y.shape[0]
    correct = 0
    with np.errstate(all="ignore"):
        for start in range(0, n, _CHUNK):
            rows = np.arange(start, min(start + _CHUNK, n))
            try:
                correct += _chunk_correct(estimator, X, y, rows)
                continue
            except Exception:
                pass
            for i in rows:
                try:
                    correct += _chunk_correct(estimator, X, y, np.array([i]))
                except Exception:
                    pass
    return correct
