"""Which transformers map each row on its own; the others run one row at a time.

The pipeline's guarantee rests on its transformers mapping each private row
on its own: one changed private row is then one changed transformed row. Most
scikit-learn transformers do (scalers, encoders, PCA), but not all:
``NMF.transform`` stops its coordinate descent when a violation *summed over
the batch* has fallen enough, so the number of iterations, and every row's
output, depends on every row. A review replaced one of 400 private rows and
moved a cover member's score by 199 instead of 1 (an exact log-probability
ratio near 60 against epsilon = 1). A user's transformer (a
``FunctionTransformer`` included) may use statistics of its batch outright.

A probe on the public rows (one at a time against the batch) was tried first
and given up: a review hid a coupled step from it behind a large passthrough
column, slipped a crafted coupling under its rounding tolerance, and found
float32 rounding flagged as coupling. So the rule is a list instead: the
scikit-learn transformers in ``ROW_WISE`` (exact classes, whose ``transform``
is a map of each row fixed at fit; composites when every part is listed)
transform a batch; any other step transforms the private rows one at a time,
row-wise by construction and slower, and says so with a ``UserWarning``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import numpy as np
from scipy import sparse
from sklearn import (
    decomposition,
    feature_selection,
    impute,
    kernel_approximation,
    preprocessing,
    random_projection,
)
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import FeatureUnion, Pipeline

from ..utils._sklearn_compat import _safe_indexing

__all__ = [
    "ROW_WISE",
    "maps_rows_independently",
    "one_row_at_a_time",
    "output_format",
    "warn_row_by_row",
]

# Each of these transforms a row from the row and the fitted state alone
# (tests/pipeline/test_row_coupling.py checks every one, batch against one
# row at a time). Exact classes: a subclass may override transform.
ROW_WISE = frozenset(
    [
        preprocessing.StandardScaler,
        preprocessing.MinMaxScaler,
        preprocessing.MaxAbsScaler,
        preprocessing.RobustScaler,
        preprocessing.Normalizer,
        preprocessing.Binarizer,
        preprocessing.QuantileTransformer,
        preprocessing.PowerTransformer,
        preprocessing.OneHotEncoder,
        preprocessing.OrdinalEncoder,
        preprocessing.TargetEncoder,
        preprocessing.KBinsDiscretizer,
        preprocessing.PolynomialFeatures,
        preprocessing.SplineTransformer,
        impute.SimpleImputer,
        impute.MissingIndicator,
        decomposition.PCA,
        decomposition.IncrementalPCA,
        decomposition.TruncatedSVD,
        kernel_approximation.RBFSampler,
        kernel_approximation.Nystroem,
        kernel_approximation.SkewedChi2Sampler,
        kernel_approximation.AdditiveChi2Sampler,
        random_projection.GaussianRandomProjection,
        random_projection.SparseRandomProjection,
        feature_selection.SelectKBest,
        feature_selection.SelectPercentile,
        feature_selection.VarianceThreshold,
        feature_selection.SelectFromModel,
    ]
)

_SKIP = (None, "passthrough", "drop")


def maps_rows_independently(step):
    """Whether ``step`` (fitted) is known to transform each row on its own.

    Parameters
    ----------
    step : transformer
        A step of the pipeline.

    Returns
    -------
    bool
        True for the classes in ``ROW_WISE`` (``Nystroem`` with a named
        kernel only), the identity ``FunctionTransformer``, and a
        scikit-learn ``Pipeline``, ``ColumnTransformer`` or ``FeatureUnion``
        whose parts all are (or are skipped).
    """
    if step is None or (isinstance(step, str) and step in _SKIP):
        return True
    kind = type(step)
    if kind is Pipeline:
        return all(maps_rows_independently(s) for _, s in step.steps)
    if kind is FeatureUnion:
        return all(maps_rows_independently(s) for _, s in step.transformer_list)
    if kind is ColumnTransformer:
        parts = getattr(step, "transformers_", step.transformers)
        return all(maps_rows_independently(t) for _, t, _ in parts)
    if kind is preprocessing.FunctionTransformer:
        # The identity only (a fitted ColumnTransformer's passthrough
        # remainder). Not ufuncs: a review aliased public and private outputs
        # through kw_args={"out": ...}, np.frompyfunc wraps any callable, a
        # gufunc mixes rows, and the input's dtype is the batch's.
        return step.func is None and not step.kw_args
    if kind is kernel_approximation.Nystroem:
        # A callable kernel is user code run on the rows.
        return isinstance(step.kernel, str)
    return kind in ROW_WISE


def _rows(X):
    """``X`` in a form ``_safe_indexing`` can slice by rows."""
    return X.tocsr() if sparse.issparse(X) and X.format not in ("csr", "csc") else X


def output_format(out):
    """What must be the same for every row's output: container, dtypes, columns."""
    if sparse.issparse(out):
        return ("sparse", out.format, out.dtype, out.shape[1:])
    if hasattr(out, "iloc"):
        return ("frame", tuple(map(str, out.dtypes)), tuple(out.columns))
    out = np.asarray(out)
    return ("array", out.dtype, out.shape[1:])


def one_row_at_a_time(transform, reference=None):
    """``transform`` applied to each row on its own, the outputs stacked.

    Every row's output must have the format of ``reference`` (a batch output
    of the step, e.g. the public rows'), or else of the first row's: stacking
    outputs of different formats would align frames on their column labels or
    promote one row's dtype onto the others (a review), letting a row change
    the others. A mismatch is a ``ValueError`` that quotes no value.
    """

    def transform_rows(X):
        X = _rows(X)
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        if n == 0:
            return transform(X)
        outputs = [transform(_safe_indexing(X, slice(i, i + 1))) for i in range(n)]
        first = outputs[0] if reference is None else reference
        want = output_format(first)
        if any(output_format(o) != want for o in outputs):
            raise ValueError(
                "A step transforming the rows one at a time returned outputs "
                "of different formats (container, dtypes or columns) for "
                "different rows; they cannot be stacked without one row "
                "changing the others."
            )
        if sparse.issparse(first):
            return sparse.vstack(outputs, format=first.format)
        if hasattr(first, "iloc"):
            import pandas as pd

            out = pd.concat(outputs, axis=0, ignore_index=True)
            out.index = X.index if hasattr(X, "index") else range(n)
            return out
        return np.concatenate([np.asarray(o) for o in outputs], axis=0)

    return transform_rows


def warn_row_by_row(names):
    """Say which steps transform the private rows one at a time, and why."""
    warnings.warn(
        f"Steps {names} are not known to transform each row on its own (a "
        "transform that uses its batch, as NMF's does, would let one private "
        "row change the others' features), so they transform the rows one at "
        "a time: slower. scikit-learn's scalers, encoders, imputers, PCA and "
        "the like are known (sklearn_semiprivate.pipeline._row_coupling."
        "ROW_WISE); declare others with PublicFittedPipeline(row_wise=[...]) "
        "if their transform maps each row on its own.",
        UserWarning,
        stacklevel=3,
    )
