"""The one place that touches scikit-learn's private API.

Anything imported here may move between scikit-learn releases; keep the list short
and import from this module only.
"""

# SPDX-License-Identifier: BSD-3-Clause

from sklearn.base import _fit_context
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    StrOptions,
)
from sklearn.utils.validation import validate_data

__all__ = ["HasMethods", "Interval", "StrOptions", "_fit_context", "validate_data"]
