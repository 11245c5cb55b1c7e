"""The checks of a Subsample-Test-Reweigh fit's learner and target.

Format and parameter checks for :class:`SubsampleTestReweighClassifier`
(Kohen & Sheffet 2022): that the learner is a DP learner (an ``epsilon``
parameter) that will not read its domain box off the curator's private draws
(Claim 4.1 covers its stated cost only), both on parameters alone before the
charge; that the target comes either as the agents' rows or as an oracle;
that the agents' rows and labels are well-formed, with no value quoted in an
error; and that each oracle answer is a finite real number. The cost premise
of Claim 4.1 (:func:`~._transfer_steps.check_learner_cost`) stays with the
constant it reads, in ``_transfer_steps.py``, where the estimator also looks
these checks up.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
from numbers import Real

import numpy as np
from sklearn.utils import check_array

from .._public import column_names, labels_differ
from ..utils._private_errors import call_on_private
from ._base import check_label_kinds, label_kind
from ._bounds import refuse_unset_bounds

__all__ = [
    "check_learner_bounds",
    "check_oracle_answer",
    "check_private_learner",
    "check_target",
    "check_target_source",
]


def check_private_learner(params):
    """Raise unless the learner's parameters include ``epsilon`` (a DP learner).

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._transfer_checks import (
    ...     check_private_learner)
    >>> check_private_learner({"epsilon": 1.0, "delta": 1e-5})
    """
    if "epsilon" not in params:
        raise TypeError(
            "private=True needs a differentially private learner with an "
            "'epsilon' parameter (e.g. PrivateSGDClassifier): Section 4 runs it "
            "at epsilon = 1."
        )


def check_learner_bounds(learner, has_public):
    """Refuse a learner that would read its domain box off its private rows.

    Each round fits the learner on the curator's secret draws: with its
    ``bounds`` unset and no public data it would read their range, and
    Claim 4.1 covers the learner's stated cost only (see
    :func:`~._bounds.refuse_unset_bounds`).

    Examples
    --------
    >>> from sklearn_semiprivate import PrivateSGDClassifier
    >>> from sklearn_semiprivate.classifiers._transfer_checks import (
    ...     check_learner_bounds)
    >>> check_learner_bounds(PrivateSGDClassifier(bounds=(-1, 1)), False)
    >>> check_learner_bounds(PrivateSGDClassifier(), True)
    """
    refuse_unset_bounds(
        learner,
        has_public,
        reason=(
            "learner is fitted each round on the curator's private draws, and "
            "Claim 4.1 covers its stated cost only"
        ),
    )


def check_target_source(X_target, y_target, target_oracle):
    """Exactly one of ``(X_target, y_target)`` and ``target_oracle``; no read."""
    if target_oracle is not None:
        if X_target is not None or y_target is not None:
            raise ValueError("Give X_target/y_target or target_oracle, not both.")
        if not callable(target_oracle):
            raise TypeError("target_oracle must be callable: h -> loss estimate.")
        return
    if X_target is None or y_target is None:
        raise ValueError(
            "SubsampleTestReweighClassifier needs the target: pass X_target and "
            "y_target (the local agents' rows) or target_oracle (h -> privatized "
            "loss estimate) to fit."
        )


def check_target(X_target, y_target, n_features, classes=None, feature_names=None):
    """Format checks of the agents' rows; no value is quoted in an error.

    ``feature_names``: the column labels of the curator's ``X`` (as
    :func:`~sklearn_semiprivate._public.column_names` gives them); a data frame
    ``X_target`` must have the same, in the same order (a review: reordered
    columns were accepted, charged, and the agents answered about a hypothesis
    evaluated on the wrong columns).

    With ``classes``, string labels against a numeric label set (or the
    reverse) are refused; a label outside ``classes`` is not looked for: it
    counts as a loss in every round (no hypothesis predicts it).
    """
    target_names = column_names(X_target)
    if labels_differ(target_names, feature_names):
        raise ValueError(
            "X_target's column names differ from the private X's: "
            f"{list(target_names)} vs {list(feature_names)}. The agents' rows "
            "must have the curator's features, in the same order."
        )
    X_target = call_on_private(
        check_array, X_target, dtype=np.float64, ensure_all_finite=True,
        what="the target rows (X_target)",
    )  # fmt: skip
    if X_target.shape[1] != n_features:
        raise ValueError(
            f"X_target has {X_target.shape[1]} features, but X has {n_features}: "
            "the target rows must have the curator's features."
        )
    y_kind = label_kind(y_target)  # a pandas column's declared type
    y_target = call_on_private(
        check_array, y_target, ensure_2d=False, dtype=None,
        ensure_all_finite=True,
        what="the target labels (y_target)",
    )  # fmt: skip
    if y_target.ndim != 1 or y_target.shape[0] != X_target.shape[0]:
        raise ValueError(
            "y_target must be 1-D with one label per row of X_target (the "
            "shapes are not quoted: they hold the number of private rows)."
        )
    if classes is not None:
        # Whether every agent's label is in ``classes`` is not asked: exact,
        # before any local randomizer, it would reveal the agents' labels (a
        # review). A label outside them is one no hypothesis predicts, so it
        # counts as a loss in every round, through the randomizer. The dtypes
        # (a format fact) may still rule every label out.
        check_label_kinds(y_target, np.asarray(classes), name="y_target", kind=y_kind)
    return X_target, y_target


def check_oracle_answer(answer):
    """A ``target_oracle`` answer as a float: a finite real scalar.

    Out-of-``[0, 1]`` values are accepted (a de-biased randomized estimate
    can be). Strings, booleans, None, complex numbers and arrays of other
    than one element are a ``TypeError``; NaN and infinities a
    ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._transfer_checks import (
    ...     check_oracle_answer)
    >>> check_oracle_answer(np.float32(0.25)), check_oracle_answer(-0.1)
    (0.25, -0.1)
    """
    value = answer
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (Real, np.integer, np.floating)
    ):
        raise TypeError(
            "target_oracle must return a real number (the estimated 0-1 loss of "
            f"the hypothesis), got {type(answer).__name__}."
        )
    value = float(value)
    if not math.isfinite(value):
        raise ValueError("target_oracle must return a finite loss estimate.")
    return value
