"""Hypothesis classes and their covers built from public points."""

# SPDX-License-Identifier: BSD-3-Clause

from ._base import Cover, HypothesisClass, check_classes, check_points, encode_labels

__all__ = [
    "Cover",
    "HypothesisClass",
    "check_classes",
    "check_points",
    "encode_labels",
]
