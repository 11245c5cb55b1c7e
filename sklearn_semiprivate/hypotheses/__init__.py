"""Hypothesis classes and their covers built from public points."""

# SPDX-License-Identifier: BSD-3-Clause

from ._base import (
    Cover,
    HypothesisClass,
    MemberIndexError,
    check_classes,
    check_points,
    encode_labels,
    feature_labels,
)
from ._finite import FiniteClass, FiniteCover
from ._halfplanes import HalfplaneCover, Halfplanes
from ._intervals import IntervalCover, Intervals
from ._partition import PartitionCover, PartitionLabelings
from ._stumps import DecisionStumps, StumpCover
from ._thresholds import Thresholds

__all__ = [
    "Cover",
    "DecisionStumps",
    "FiniteClass",
    "FiniteCover",
    "HalfplaneCover",
    "Halfplanes",
    "HypothesisClass",
    "IntervalCover",
    "Intervals",
    "MemberIndexError",
    "PartitionCover",
    "PartitionLabelings",
    "StumpCover",
    "Thresholds",
    "check_classes",
    "check_points",
    "encode_labels",
    "feature_labels",
]
