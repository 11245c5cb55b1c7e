"""Semi-private classifiers and the public-data reduction."""

# SPDX-License-Identifier: BSD-3-Clause

from ._generic import GenericLearnerClassifier
from ._reduction import PublicDataReduction, priv_samp, pub_samp
from ._semiprivate import SemiPrivateClassifier

__all__ = [
    "GenericLearnerClassifier",
    "PublicDataReduction",
    "SemiPrivateClassifier",
    "priv_samp",
    "pub_samp",
]
