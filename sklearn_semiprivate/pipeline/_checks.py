"""What the public-fitted pipeline checks, and how its errors name the set.

The formats of the private and public rows are compared before anything is
fitted; a step's failure on the public rows is reported as it is, one on the
private rows keeps only a value-free start of its message (the rest may quote
a private value).
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from joblib import parallel_config

from .._public import PublicData, column_names, labels_differ, warn_raw_public_array
from ..utils._nested_fit import recorded_in_this_thread
from ..utils._private_errors import (
    message_of,
    say_withheld_warnings,
    value_free_start,
    withheld_detail,
)

__all__ = ["check_formats", "on_private", "on_public", "unwrap_public"]


def _shape(X, what):
    """Shape of a 2-D input; the message never quotes a value of ``X``."""
    # np.asarray, not np.shape: array-likes may refuse __array_function__.
    shape = getattr(X, "shape", None)
    shape = np.asarray(X).shape if shape is None else shape
    if len(shape) != 2:
        raise ValueError(
            f"{what} must be 2-dimensional (n_samples, n_features), got "
            f"{len(shape)} dimension(s)."
        )
    return shape


def _feature_names(X):
    """String column names of a data frame, as scikit-learn records them."""
    labels = column_names(X)  # never a pyarrow Table's column data
    if labels is None or not all(isinstance(c, str) for c in labels):
        return None
    return labels


def _listed(labels):
    return None if labels is None else list(labels)


def check_formats(X, X_public):
    """Feature count and names of ``X``, checked against the public rows'.

    The input format (dimensions, column names) is public, as for every
    estimator of the package; no message quotes a value.
    """
    n_features, names = _shape(X, "X")[1], _feature_names(X)
    if X_public is None:
        return n_features, names
    n_public, n_public_features = _shape(X_public, "X_public")
    public_names = _feature_names(X_public)
    if n_public == 0:
        raise ValueError("The public data set is empty (0 rows).")
    if n_public_features != n_features:
        raise ValueError(
            f"X_public has {n_public_features} features, but the private X has "
            f"{n_features}; give the public rows in the input format of X: the "
            "pipeline transforms both."
        )
    # String names (scikit-learn's feature names) on one side only, or
    # labels of any type (a frame's default integers too) that differ.
    labels, public_labels = column_names(X), column_names(X_public)
    if (
        (names is None) != (public_names is None)
        or (names is not None and not np.array_equal(names, public_names))
        or labels_differ(labels, public_labels)
    ):
        raise ValueError(
            "X_public's columns must be those of the private X, in the same "
            f"order: got {_listed(public_labels)} for X_public and "
            f"{_listed(labels)} for X."
        )
    return n_features, names


def unwrap_public(X_public, y_public):
    """``(X_pub, y_pub)`` from ``PublicData`` or raw arrays, without converting.

    Public data may hold string columns (a ColumnTransformer encodes them), so
    unlike ``check_public_data`` this does not cast to float.
    """
    if isinstance(X_public, PublicData):
        if y_public is not None and X_public.y is not None:
            raise TypeError(
                "Public labels were given twice: in PublicData(X, y) and as "
                "y_public. Give them once."
            )
        y_public = X_public.y if X_public.y is not None else y_public
        X_public = X_public.X
    elif X_public is not None:
        warn_raw_public_array(stacklevel=5)
    if X_public is None and y_public is not None:
        raise ValueError("y_public was given without X_public.")
    return X_public, y_public


def on_public(name, method, *args):
    """Run a step on the public rows; its error names the step and the set."""
    try:
        return method(*args)
    except Exception as exc:
        raise (TypeError if isinstance(exc, TypeError) else ValueError)(
            f"Step {name!r} failed on the public rows (X_public): {exc}"
        ) from exc


def on_private(name, method, *args, action="transform"):
    """Run a step on the private rows; its error does not repeat their content.

    Messages may quote private values, so only the exception's type and a
    known value-free start of its message are kept. The new error is raised
    outside the ``except`` block, so the original is neither its cause nor its
    ``__context__``, and no traceback prints it.
    """
    try:
        # A finite private row far out (near the largest float) overflows a
        # scaler's arithmetic: numpy's RuntimeWarning, an error under "error"
        # filters, would depend on private values. The row becomes +-inf,
        # which the pipeline clips back to the largest float.
        # Warnings are recorded, not shown: a transformer may quote the private
        # values it warns about (a review: "clipping outlying value 31415.9",
        # OneHotEncoder naming the column of an unseen category).
        # Sequential: a step's own joblib workers (ColumnTransformer's n_jobs)
        # would print their warnings, private values and all, to stderr
        # where no recorder sees them (a review).
        with (
            np.errstate(over="ignore", invalid="ignore", divide="ignore"),
            recorded_in_this_thread() as recorded,
            parallel_config("sequential"),
        ):
            result = method(*args)
    except Exception as exc:
        failure, kept = type(exc), value_free_start(message_of(exc))
    else:
        say_withheld_warnings(recorded, f"step {name!r} on the private rows (X)")
        return result
    raise (TypeError if issubclass(failure, TypeError) else ValueError)(
        f"Step {name!r} failed to {action} the private rows (X): "
        f"{failure.__name__} ({withheld_detail(kept)})."
    )
