"""Semi-private classifiers.

The public-data reduction of the lower bound lives in
:mod:`sklearn_semiprivate.research`.
"""

# SPDX-License-Identifier: BSD-3-Clause

from ._active import SubSamplingActiveClassifier
from ._generic import GenericLearnerClassifier
from ._labelboost import LabelBoostClassifier
from ._logistic import SemiPrivateLogisticRegression
from ._pate import PATEClassifier
from ._semiprivate import SemiPrivateClassifier
from ._sgd import PrivateSGDClassifier
from ._synthetic import SyntheticDataClassifier
from ._transfer import SubsampleTestReweighClassifier
from ._tree import SemiPrivateTreeClassifier

__all__ = [
    "GenericLearnerClassifier",
    "LabelBoostClassifier",
    "PATEClassifier",
    "PrivateSGDClassifier",
    "SemiPrivateClassifier",
    "SemiPrivateLogisticRegression",
    "SemiPrivateTreeClassifier",
    "SubSamplingActiveClassifier",
    "SubsampleTestReweighClassifier",
    "SyntheticDataClassifier",
]
