"""The discretised domain of GenericLearnerClassifier, and its input checks.

Beimel, Nissim & Stemmer's sanitizer (Alg. 1 step 2) holds a distribution over
a finite domain: here ``n_bins`` equal bins per feature of a public box. The
maps between rows and grid codes are per row and fixed by public parameters,
so neighbouring datasets stay neighbouring. The checks read the format of the
private rows only (their number of features, finiteness), never their values.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.utils import check_array

from .._public import PublicData, column_names, labels_differ
from ..hypotheses import Intervals, Thresholds
from ..utils._private_errors import call_on_private
from ..utils._sklearn_compat import validate_data

__all__ = [
    "MAX_DOMAIN_SIZE",
    "ONE_FEATURE_CLASSES",
    "bin_centres",
    "check_one_feature_class",
    "check_unlabeled_rows",
    "discretise",
    "public_bounds",
]

# Largest discretised domain (n_bins ** n_features points) the sanitizer holds a
# distribution over.
MAX_DOMAIN_SIZE = 1 << 16

# Hypothesis classes whose C⊕ the stump-XOR workload spans (see _StumpXorQueries).
ONE_FEATURE_CLASSES = frozenset({"thresholds", "intervals"})


def discretise(X, bounds, n_bins):
    """Grid code of every row: ``n_bins`` equal bins per feature, clipped.

    A per-row map fixed by the public ``bounds``: replacing one row changes one
    code row, so neighbouring datasets stay neighbouring.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._discretised import discretise
    >>> discretise(np.array([[0.1], [0.6], [2.0]]), np.array([[0.0, 1.0]]), 4)
    array([[0.],
           [2.],
           [3.]])
    """
    width = (bounds[:, 1] - bounds[:, 0]) / n_bins
    # errstate: a huge but finite private value overflows to +-inf, which the
    # clip maps to the end bin; the overflow warning would be a release (a
    # review: docs/limitations.rst, "Magnitudes").
    with np.errstate(over="ignore", invalid="ignore"):
        codes = np.floor((X - bounds[:, 0]) / width)
    return np.clip(codes, 0, n_bins - 1)


def bin_centres(codes, bounds, n_bins):
    """The centre of every grid code's bin (a row of the sanitized database)."""
    width = (bounds[:, 1] - bounds[:, 0]) / n_bins
    return bounds[:, 0] + (codes + 0.5) * width


def public_bounds(X_public):
    """The box of the public points (public); constant features get unit width."""
    lo, hi = X_public.min(axis=0), X_public.max(axis=0)
    pad = np.where(hi > lo, 0.0, 0.5)
    return np.column_stack([lo - pad, hi + pad])


def check_one_feature_class(spec, n_features):
    """Refuse a 1-D class (thresholds, intervals) on more than one feature."""
    one_feature = (
        spec in ONE_FEATURE_CLASSES
        if isinstance(spec, str)
        else isinstance(spec, (Thresholds, Intervals))
    )
    if one_feature and n_features != 1:
        raise ValueError(
            f"{spec!r} is a 1-D class: X must have exactly one feature, got "
            f"{n_features}. Select a column, or use hypothesis_class='stumps'."
        )


def check_unlabeled_rows(estimator, X_unlabeled, n_features, n_bins, names=None):
    """Validate the unlabeled rows' format and the grid size; release nothing.

    Parameters
    ----------
    estimator : GenericLearnerClassifier
        Fitted on ``X`` already (``n_features_in_``, ``feature_names_in_``):
        the unlabeled rows must have the same format.
    X_unlabeled : array-like of shape (n_unlabeled, n_features)
        Private unlabeled rows.
    n_features : int
        Number of features of ``X``.
    n_bins : int
        Bins per feature.
    names : ndarray of object or None, default=None
        ``X``'s column labels (:func:`~sklearn_semiprivate._public.column_names`):
        those of a data frame ``X_unlabeled`` must be the same, in the same
        order (integer labels too, which ``feature_names_in_`` leaves out).

    Returns
    -------
    X_unlabeled : ndarray of shape (n_unlabeled, n_features), dtype float64
    """
    if isinstance(X_unlabeled, PublicData):
        raise TypeError(
            "X_unlabeled holds *private* unlabeled rows; PublicData marks "
            "public ones. Pass them as X_public=PublicData(...) if they are "
            "public, or pass the raw array as X_unlabeled if they are private."
        )
    if np.ndim(X_unlabeled) == 2 and np.shape(X_unlabeled)[0] == 0:
        raise ValueError(
            "X_unlabeled is empty (0 rows). Pass X_unlabeled=None for no "
            "unlabeled data."
        )
    if labels_differ(column_names(X_unlabeled), names):
        raise ValueError(
            "X_unlabeled's feature names differ from the private X's: "
            f"{list(column_names(X_unlabeled))} vs {list(names)}."
        )
    # The format fitted on X (n_features_in_, feature_names_in_, set by
    # prepare_fit_data): feature names and count must match, as at predict.
    # Messages repeat no private value (see utils/_private_errors).
    call_on_private(
        validate_data,
        estimator,
        X_unlabeled,
        reset=False,
        skip_check_array=True,
        what="the private unlabeled rows (X_unlabeled)",
    )
    X_unl = call_on_private(
        check_array,
        X_unlabeled,
        dtype=np.float64,
        ensure_all_finite=True,
        input_name="X_unlabeled",
        what="the private unlabeled rows (X_unlabeled)",
    )
    if n_bins**n_features > MAX_DOMAIN_SIZE:
        raise ValueError(
            f"The discretised domain has n_bins ** n_features = "
            f"{n_bins}**{n_features} points, more than the "
            f"{MAX_DOMAIN_SIZE} the sanitizer holds a distribution over. Lower "
            "n_bins or use fewer features."
        )
    return X_unl
