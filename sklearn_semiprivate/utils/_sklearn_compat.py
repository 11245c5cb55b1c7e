"""The one place that touches scikit-learn's private API.

Anything imported here may move between scikit-learn releases; keep the list short
and import from this module only.
"""

# SPDX-License-Identifier: BSD-3-Clause

from sklearn.base import _fit_context
from sklearn.pipeline import _name_estimators
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    StrOptions,
)
from sklearn.utils.metaestimators import _BaseComposition
from sklearn.utils.validation import validate_data

__all__ = [
    "HasMethods",
    "Interval",
    "StrOptions",
    "_BaseComposition",
    "_fit_context",
    "_name_estimators",
    "_safe_indexing",
    "validate_data",
]
