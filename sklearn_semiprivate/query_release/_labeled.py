"""Labeled query release: the label as one more categorical column.

A labeled release lives on the joint domain of ``(x, label)`` pairs: the
workload is bound to ``n_features + 1`` columns, the last holding the label's
code (its index in the sorted label set ``classes_``). The public rows are
usually unlabeled, so the support is every distinct public point paired with
every label; public labels, when given, only shape the starting distribution.

Replacing one private row ``(x, y)`` by ``(x', y')`` changes one row of the
joint dataset, so every counting query on the joint domain changes its count
by at most 1 and its answer by at most ``1/n``: the mechanisms' sensitivity is
exactly that of an unlabeled release over ``n_features + 1`` columns.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.utils import check_array
from sklearn.utils.multiclass import check_classification_targets

from .._public import resolve_classes
from ..utils._private_errors import call_on_private

__all__ = []

# Pseudo-count of the uniform label distribution at each public point when
# public labels are given: the starting weight of (x, c) is count(x, c) +
# LABEL_SMOOTHING * count(x) / n_classes, so every pair keeps positive weight
# (multiplicative weights can never move mass onto a pair of weight 0) while
# the public labels carry half the starting mass.
LABEL_SMOOTHING = 1.0


def check_private_label_format(y, n_samples):
    """Format checks of the private labels: 1-D, finite, one per row, classes.

    Reads only the format (questions no parameter chooses); error messages
    quote no private value.
    """
    y = call_on_private(
        check_array,
        y,
        ensure_2d=False,
        dtype=None,
        ensure_all_finite=True,
        input_name="y",
        what="the private labels (y)",
    )
    if y.ndim != 1:
        raise ValueError(f"y must be 1-dimensional, got {y.ndim} dimensions.")
    if y.shape[0] != n_samples:
        # No counts: the number of private rows is private under add/remove.
        raise ValueError("y and X have different numbers of rows.")
    call_on_private(check_classification_targets, y, what="the private labels (y)")
    return y


def label_set(classes, y_public, y):
    """``classes``, else the public labels, else the private ones (leak warning)."""
    declared = None if classes is None else np.asarray(classes)
    return resolve_classes(declared, y_public, y)


def labeled_support(X_public, y_public_codes, n_classes):
    """Every distinct public point with every label, and the starting weights.

    Parameters
    ----------
    X_public : ndarray of shape (n_public, n_features)
        Public rows.
    y_public_codes : ndarray of shape (n_public,) or None
        Codes of the public labels, if any.
    n_classes : int
        Size of the label set.

    Returns
    -------
    points : ndarray of shape (n_distinct * n_classes, n_features + 1)
        Each distinct public point once per label code ``0 .. n_classes - 1``
        (in that order), the code in the last column.
    init_weights : ndarray of shape (n_distinct * n_classes,)
        The public empirical distribution of the points times the uniform
        distribution of the labels; with public labels, their empirical
        pairs plus ``LABEL_SMOOTHING`` times that. Either way they sum to the
        number of public rows, which the adaptive supports take as the public
        sample's size (the precision of its prior).
    """
    distinct, inverse, counts = np.unique(
        X_public, axis=0, return_inverse=True, return_counts=True
    )
    inverse = inverse.reshape(-1)
    codes = np.tile(np.arange(n_classes, dtype=np.float64), distinct.shape[0])
    points = np.column_stack([np.repeat(distinct, n_classes, axis=0), codes])
    uniform = np.repeat(counts / n_classes, n_classes).astype(np.float64)
    if y_public_codes is None:
        return points, uniform
    pairs = np.bincount(
        inverse * n_classes + y_public_codes, minlength=points.shape[0]
    ).astype(np.float64)
    weights = pairs + LABEL_SMOOTHING * uniform
    return points, weights * (counts.sum() / weights.sum())


def joint_points(X, codes):
    """Rows ``(x, code)``: the feature columns and the label code last."""
    return np.column_stack([X, np.asarray(codes, dtype=np.float64)])


def as_frame(X, feature_names):
    """``X`` as a DataFrame with the fit's column names, when it had some."""
    if feature_names is None:
        return X
    import pandas as pd

    return pd.DataFrame(X, columns=list(feature_names))
