"""Hypothesis classes and their covers built from public points."""

# SPDX-License-Identifier: BSD-3-Clause

from ._base import Cover, HypothesisClass, check_classes, check_points, encode_labels
from ._intervals import IntervalCover, Intervals
from ._stumps import DecisionStumps, StumpCover
from ._thresholds import Thresholds

__all__ = [
    "Cover",
    "DecisionStumps",
    "HypothesisClass",
    "IntervalCover",
    "Intervals",
    "StumpCover",
    "Thresholds",
    "check_classes",
    "check_points",
    "encode_labels",
]
