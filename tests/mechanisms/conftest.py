"""Shared helpers for the mechanism tests: a goodness-of-fit check for samplers."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from scipy.stats import chisquare

ALPHA = 1e-6


def _assert_draws_match(draws, log_proba, alpha=ALPHA, min_expected=5.0):
    """Chi-square test of integer draws against an exact distribution.

    Outputs of probability 0 must never be drawn. The test design must give every
    other output an expected count of at least ``min_expected``, so the chi-square
    approximation holds; otherwise the helper fails loudly rather than pass.
    """
    draws = np.asarray(draws).ravel()
    proba = np.exp(np.asarray(log_proba, dtype=float))
    counts = np.bincount(draws, minlength=proba.shape[0])
    assert counts.shape == proba.shape, "a draw fell outside the support"
    zero = proba == 0
    assert counts[zero].sum() == 0, "an output of probability 0 was drawn"
    if (~zero).sum() == 1:
        return  # one possible output, and nothing else was drawn
    expected = proba[~zero] / proba[~zero].sum() * draws.size
    assert expected.min() >= min_expected, "test design: expected counts too small"
    pvalue = chisquare(counts[~zero], expected).pvalue
    assert pvalue > alpha, f"chi-square p-value {pvalue:.3g} <= {alpha}"


@pytest.fixture
def assert_draws_match():
    return _assert_draws_match
