"""Transformers that map a batch jointly, found on public rows and run row by row.

The pipeline's guarantee rests on its transformers mapping each private row
on its own: one changed private row is then one changed transformed row. Most
do (scalers, encoders, PCA), but some solve for the whole batch at once:
scikit-learn's ``NMF.transform`` stops its coordinate descent when a
violation *summed over the batch* has fallen enough, so the number of
iterations, and every row's output, depends on every row. A review replaced
one of 400 private rows and moved a cover member's score by 199 instead of 1
(an exact log-probability ratio near 60 against epsilon = 1).

Before any private read, each fitted step transforms up to ``N_PROBE`` public
rows one at a time and compares them with the same rows transformed with all
the public rows (a free check on public data). A step whose outputs differ
beyond rounding transforms the private rows one at a time: slower, and
row-wise by construction. The probe needs two public rows; a step that
couples rows only on inputs the public rows do not show is not caught (the
limitations page).
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from scipy import sparse

from ..utils._sklearn_compat import _safe_indexing

__all__ = ["N_PROBE", "one_row_at_a_time", "row_coupling_gap"]

# Public rows probed per step: each costs one transform call.
N_PROBE = 32
# Differences below this, relative to the output's scale, are rounding (a
# matrix product of one row and of many rows may round differently).
RTOL = 1e-9


def _dense(X):
    X = X.toarray() if sparse.issparse(X) else X
    return np.asarray(getattr(X, "values", X))


def row_coupling_gap(step, X_in, X_out):
    """Largest difference between one-at-a-time and batch outputs, or 0.0.

    Parameters
    ----------
    step : fitted transformer
        A step fitted on the public rows.
    X_in : array-like of shape (n_public, n_features)
        The public rows the step transformed.
    X_out : array-like of shape (n_public, n_out)
        ``step.transform(X_in)``, the batch output.

    Returns
    -------
    gap : float
        0.0 when every probed row's own output matches the batch output up to
        rounding (or when fewer than two public rows make a probe
        impossible), else the largest absolute difference (``inf`` when the
        outputs differ in shape or in a non-numeric value).
    """
    n = X_out.shape[0]
    if n < 2 or not hasattr(step, "transform"):
        return 0.0
    batch = _dense(_safe_indexing(X_out, slice(0, min(n, N_PROBE))))
    rows = [
        _dense(step.transform(_safe_indexing(X_in, slice(i, i + 1))))
        for i in range(batch.shape[0])
    ]
    if any(r.shape != (1, *batch.shape[1:]) for r in rows):
        return float("inf")
    single = np.concatenate(rows, axis=0)
    if batch.dtype.kind not in "biuf" or single.dtype.kind not in "biuf":
        return 0.0 if np.array_equal(single, batch) else float("inf")
    batch, single = batch.astype(np.float64), single.astype(np.float64)
    same = (np.isnan(batch) & np.isnan(single)) | (batch == single)
    diff = np.where(same, 0.0, np.abs(single - batch))
    finite = np.abs(batch[np.isfinite(batch)])
    scale = 1.0 + (finite.max() if finite.size else 0.0)
    gap = float(diff.max()) if diff.size else 0.0
    return gap if gap > RTOL * scale else 0.0


def one_row_at_a_time(transform):
    """``transform`` applied to each row on its own, the outputs stacked."""

    def transform_rows(X):
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        outputs = [transform(_safe_indexing(X, slice(i, i + 1))) for i in range(n)]
        if not outputs:
            return transform(X)
        first = outputs[0]
        if sparse.issparse(first):
            return sparse.vstack(outputs, format=first.format)
        if hasattr(first, "iloc"):
            import pandas as pd

            out = pd.concat(outputs, axis=0)
            out.index = X.index if hasattr(X, "index") else range(n)
            return out
        return np.concatenate([np.asarray(o) for o in outputs], axis=0)

    return transform_rows
