"""Bins from public points only: how a real table becomes categorical columns.

:class:`MarginalQueries` needs integer category codes. Real tables are
continuous; their bins must not come from private rows (bin edges read off
private values would be released without privacy). These helpers take the
edges from public points only; private rows are then binned value by value.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.utils import check_array

__all__ = ["bin_codes", "public_quantile_bins"]


def public_quantile_bins(X_public, n_bins):
    """Bin edges of every feature, from public points only: quantiles.

    A feature with at most ``n_bins`` distinct public values gets one bin per
    value (edges halfway between consecutive values), e.g. a one-hot column
    gets two. The others get the ``n_bins``-quantiles of their public values
    (ties merged, so possibly fewer bins). Codes come from :func:`bin_codes`.

    Parameters
    ----------
    X_public : array-like of shape (n_public, n_features)
        Public points (never private rows).
    n_bins : int
        Largest number of bins per feature, ``>= 1``.

    Returns
    -------
    edges : list of ndarray
        The sorted inner edges of each feature; feature ``j`` has
        ``len(edges[j]) + 1`` bins.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.query_release import public_quantile_bins
    >>> X_pub = np.column_stack([np.arange(8.0), [0, 1] * 4])
    >>> [e.tolist() for e in public_quantile_bins(X_pub, 4)]
    [[1.75, 3.5, 5.25], [0.5]]
    """
    X_public = check_array(X_public, dtype=np.float64, input_name="X_public")
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)):
        raise TypeError(f"n_bins must be an int, got {type(n_bins).__name__}.")
    if n_bins < 1:
        raise ValueError(f"n_bins must be >= 1, got {n_bins}.")
    levels = np.linspace(0.0, 1.0, int(n_bins) + 1)[1:-1]
    edges = []
    for column in X_public.T:
        values = np.unique(column)
        if values.size <= n_bins:
            edges.append((values[1:] + values[:-1]) / 2.0)
        else:
            edges.append(np.unique(np.quantile(column, levels)))
    return edges


def bin_codes(X, edges):
    """The bin code of every value: ``searchsorted(edges[j], x, side="right")``.

    Every real value (±inf included) falls in one of ``len(edges[j]) + 1``
    bins, so a private row is binned from its own values only, and its codes
    are always inside the domain ``n_categories = [len(e) + 1 for e in
    edges]``. NaN is refused.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Points (public or private).
    edges : list of ndarray
        From :func:`public_quantile_bins`.

    Returns
    -------
    codes : ndarray of shape (n_samples, n_features)
        Integer codes, as floats.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.query_release import bin_codes
    >>> bin_codes(np.array([[0.2, 7.0], [5.0, -1.0]]), [np.array([1.0]),
    ...           np.array([0.0, 3.0])]).tolist()
    [[0.0, 2.0], [1.0, 0.0]]
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != len(edges):
        raise ValueError(
            f"X must have shape (n_samples, {len(edges)}) to match the edges."
        )
    if np.isnan(X).any():
        # searchsorted put NaN in the top bin without a word (a review). The
        # message names no row or value: X may be private.
        raise ValueError(
            "X contains NaN, which no bin holds (±inf go to the end bins). "
            "Impute or drop missing values before binning."
        )
    return np.column_stack(
        [np.searchsorted(e, X[:, j], side="right") for j, e in enumerate(edges)]
    ).astype(np.float64)
