"""scikit-learn estimators for semi-private learning.

Models are differentially private with respect to a **private** labeled dataset,
while **public** data (often unlabeled, small, and shifted) is used freely.
"""

# SPDX-License-Identifier: BSD-3-Clause

from ._public import PublicData
from .accounting import PrivacyAccountant, PrivacyCost
from .classifiers import (
    GenericLearnerClassifier,
    LabelBoostClassifier,
    PATEClassifier,
    PrivateSGDClassifier,
    SemiPrivateClassifier,
    SemiPrivateLogisticRegression,
    SemiPrivateTreeClassifier,
    SubsampleTestReweighClassifier,
    SubSamplingActiveClassifier,
    SyntheticDataClassifier,
)
from .exceptions import PrivacyBudgetError, PrivacyLeakWarning, PublicDataWarning
from .pipeline import PublicFittedPipeline, make_public_fitted_pipeline
from .query_release import PublicAssistedQueryRelease
from .utils._rng import reproducible_noise

__version__ = "0.1.0.dev0"

__all__ = [
    "GenericLearnerClassifier",
    "LabelBoostClassifier",
    "PATEClassifier",
    "PrivacyAccountant",
    "PrivacyBudgetError",
    "PrivacyCost",
    "PrivacyLeakWarning",
    "PrivateSGDClassifier",
    "PublicAssistedQueryRelease",
    "PublicData",
    "PublicDataWarning",
    "PublicFittedPipeline",
    "SemiPrivateClassifier",
    "SemiPrivateLogisticRegression",
    "SemiPrivateTreeClassifier",
    "SubSamplingActiveClassifier",
    "SubsampleTestReweighClassifier",
    "SyntheticDataClassifier",
    "__version__",
    "make_public_fitted_pipeline",
    "reproducible_noise",
]
