"""Semi-private classifiers.

The public-data reduction of the lower bound lives in
:mod:`sklearn_semiprivate.research`.
"""

# SPDX-License-Identifier: BSD-3-Clause

from ._generic import GenericLearnerClassifier
from ._logistic import SemiPrivateLogisticRegression
from ._pate import PATEClassifier
from ._semiprivate import SemiPrivateClassifier
from ._synthetic import SyntheticDataClassifier
from ._tree import SemiPrivateTreeClassifier

__all__ = [
    "GenericLearnerClassifier",
    "PATEClassifier",
    "SemiPrivateClassifier",
    "SemiPrivateLogisticRegression",
    "SemiPrivateTreeClassifier",
    "SyntheticDataClassifier",
]
