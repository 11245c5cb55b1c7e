"""The one place that touches scikit-learn's private API.

Anything imported here may move between scikit-learn releases; keep the list short
and import from this module only.
"""

# SPDX-License-Identifier: BSD-3-Clause

from sklearn.base import _fit_context  # noqa: F401  (private, stable since 1.3)
from sklearn.utils._param_validation import (  # noqa: F401  (private)
    Interval,
    StrOptions,
    HasMethods,
)
from sklearn.utils.validation import validate_data  # noqa: F401  (public since 1.6)

__all__ = ["HasMethods", "Interval", "StrOptions", "_fit_context", "validate_data"]
