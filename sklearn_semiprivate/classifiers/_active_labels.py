"""The labels of :class:`SubSamplingActiveClassifier`: the oracle and ``D_J``'s.

The label oracle simulated from ``y`` (``y[K]`` only), the format check of
``y`` that reads no value before the charge, the check of the oracle's
answers after it, and the labels of ``D_J`` in the semi-supervised convention
(-1 for the rows of ``J \\ K``). ``_active.py`` imports them and looks them
up in its own namespace, where the tests' mutants patch them.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.utils import check_array
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from ..utils._private_errors import call_on_private

__all__ = []

# The semi-supervised convention: -1 marks the rows of J \ K for a base learner
# that takes unlabeled rows in y (LabelBoostClassifier).
_UNLABELED = -1


class _ArrayOracle:
    """The label oracle simulated from ``y``: returns ``y[indices]`` only."""

    def __init__(self, y):
        self._y = y

    def __call__(self, indices):
        return self._y[indices]


def _check_label_column(y, n_rows):
    """``y`` as a 1-D array of ``n_rows`` entries, of a label dtype; no value
    is checked.

    ``column_or_1d`` only reshapes (a column vector warns, as scikit-learn
    does); finiteness and the label type are checked on the answers only.
    """
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = column_or_1d(y, warn=True)
    if y.ndim != 1 or y.shape[0] != n_rows:
        raise ValueError(
            "y must be 1-D with one label per row of X (the shapes are not "
            "quoted: they hold the number of private rows)."
        )
    if y.dtype.kind not in "biufUSO":
        # The dtype is format (no value is read): refused before the charge.
        raise ValueError(
            f"y has dtype {y.dtype}, which cannot hold class labels: give "
            "integers, floats, booleans or strings."
        )
    return y


def _check_answers(labels, m):
    """The oracle's answers: ``m`` finite, class-like labels (queried rows only)."""
    labels = call_on_private(
        check_array, labels, ensure_2d=False, dtype=None, input_name="y",
        ensure_all_finite=True, what="the queried labels",
    )  # fmt: skip
    if labels.ndim != 1 or labels.shape[0] != m:
        raise ValueError(
            f"The label oracle must return {m} labels, one per queried index; "
            f"got shape {labels.shape}."
        )
    call_on_private(check_classification_targets, labels, what="the queried labels")
    return labels


def _with_unlabeled(y_lab, n_unlabeled):
    """``y_lab`` followed by ``n_unlabeled`` entries -1, in a dtype holding both.

    Integers and floats keep a numeric dtype (-1 or -1.0); strings and
    booleans go in an object array with the integer -1 (scikit-learn's
    ``SelfTrainingClassifier`` convention).
    """
    if y_lab.dtype.kind in "iuf":
        dtype = np.result_type(y_lab.dtype, np.int8)
        return np.concatenate([y_lab.astype(dtype), np.full(n_unlabeled, -1, dtype)])
    y_J = np.empty(y_lab.size + n_unlabeled, dtype=object)
    y_J[: y_lab.size] = y_lab
    y_J[y_lab.size :] = _UNLABELED
    return y_J
