"""Pipelines whose preprocessing is fitted on public data and applied to both sets."""

# SPDX-License-Identifier: BSD-3-Clause

from ._pipeline import PublicFittedPipeline, make_public_fitted_pipeline

__all__ = ["PublicFittedPipeline", "make_public_fitted_pipeline"]
