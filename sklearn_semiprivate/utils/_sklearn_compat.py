"""The one place that touches scikit-learn's private API.

Anything imported here may move between scikit-learn releases; keep the list short
and import from this module only.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.base import _fit_context as _sklearn_fit_context
from sklearn.pipeline import _name_estimators
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import (
    HasMethods,
    StrOptions,
)
from sklearn.utils._param_validation import Interval as _SklearnInterval
from sklearn.utils.metaestimators import _BaseComposition
from sklearn.utils.validation import validate_data as _validate_data

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


class Interval(_SklearnInterval):
    """scikit-learn's ``Interval`` constraint, refusing booleans.

    ``True`` is an ``int`` (so a ``Real`` too) to Python, and scikit-learn's
    constraint takes ``epsilon=True`` as 1. A boolean privacy parameter,
    depth or row count is surely a mistake (as ``utils.check_epsilon`` says):
    refused by ``_validate_params``, before any charge. Found by a review:
    ``SemiPrivateClassifier(epsilon=True)`` passed the constraint, was charged
    1, and then failed in the mechanism's own check.
    """

    def is_satisfied_by(self, val):
        if isinstance(val, (bool, np.bool_)):
            return False
        return super().is_satisfied_by(val)


def _fit_context(*, prefer_skip_nested_validation):
    """scikit-learn's ``_fit_context``, with floating-point underflow ignored.

    Every ``fit`` of the package runs under ``np.errstate(under="ignore")``:
    a value that underflows to zero (a subnormal private input times a
    weight, say) must not warn or raise, since under a non-default numpy
    error state (``np.seterr(under="warn")`` or ``"raise"``) that warning or
    error would depend on private values, after the charge (a review:
    ``SemiPrivateLogisticRegression(solver="mm")``, ``PATEClassifier`` and
    ``PrivateSGDClassifier`` raised on a private ``1e-310``). Flushing to zero
    is what the computations mean; overflow and invalid values are handled
    where they can occur.
    """
    outer = _sklearn_fit_context(
        prefer_skip_nested_validation=prefer_skip_nested_validation
    )

    def decorator(fit_method):
        return outer(np.errstate(under="ignore")(fit_method))

    return decorator


def validate_data(*args, **kwargs):
    """scikit-learn's ``validate_data``, without a spurious RuntimeWarning.

    Its finiteness check sums the array first; finite rows near the largest
    float overflow that sum (``inf - inf``), and numpy warns ("invalid value
    encountered in reduce"), an error under an ``"error"`` warnings filter.
    On private rows that warning would depend on private values. The check
    itself stays exact: NaN and infinity are still refused.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return _validate_data(*args, **kwargs)
