"""Bad input gets a clear ValueError/TypeError naming the parameter."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest

from sklearn_semiprivate.mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    PermuteAndFlip,
    RandomizedResponse,
    ReportNoisyMax,
    exponential_mechanism,
    permute_and_flip,
    report_noisy_max,
)

SELECTORS = [exponential_mechanism, permute_and_flip, report_noisy_max]
CLASSES = [ExponentialMechanism, PermuteAndFlip, ReportNoisyMax]


@pytest.mark.parametrize("select", SELECTORS)
@pytest.mark.parametrize(
    "epsilon,error",
    [
        (0.0, ValueError),
        (-1.0, ValueError),
        (np.nan, ValueError),
        (np.inf, ValueError),
        ("1", TypeError),
        (True, TypeError),
        (None, TypeError),
    ],
)
def test_bad_epsilon(select, epsilon, error):
    with pytest.raises(error, match="epsilon"):
        select([1.0, 2.0], epsilon)


@pytest.mark.parametrize("select", SELECTORS)
@pytest.mark.parametrize(
    "sensitivity,error",
    [(0.0, ValueError), (-2.0, ValueError), (np.inf, ValueError), ("a", TypeError)],
)
def test_bad_sensitivity(select, sensitivity, error):
    with pytest.raises(error, match="sensitivity"):
        select([1.0, 2.0], 1.0, sensitivity=sensitivity)


@pytest.mark.parametrize("select", SELECTORS)
@pytest.mark.parametrize(
    "scores,error,match",
    [
        ([], ValueError, "scores must not be empty"),
        ([1.0, np.nan], ValueError, "scores must be finite, found NaN"),
        ([1.0, np.inf], ValueError, "scores must be finite, found infinity"),
        ([1.0, -np.inf], ValueError, "scores must be finite"),
        (["a", "b"], TypeError, "scores"),
        ([1.0, None], TypeError, "scores"),
        (np.array([True, False]), TypeError, "scores"),
        (np.zeros((2, 2)), ValueError, "scores must be 1-dimensional"),
    ],
)
def test_bad_scores(select, scores, error, match):
    with pytest.raises(error, match=match):
        select(scores, 1.0, random_state=0)


@pytest.mark.parametrize("cls", CLASSES)
def test_log_probabilities_validate_scores(cls):
    with pytest.raises(ValueError, match="scores"):
        cls(1.0).log_probabilities([0.0, np.nan])
    with pytest.raises(ValueError, match="scores"):
        cls(1.0).log_probabilities([])


@pytest.mark.parametrize(
    "base,error,match",
    [
        ([0.0, np.nan], ValueError, "log_base_measure must not contain NaN"),
        ([0.0, np.inf], ValueError, r"log_base_measure must not contain \+inf"),
        ([0.0], ValueError, "log_base_measure has 1 entries"),
        (["a", "b"], TypeError, "log_base_measure"),
    ],
)
def test_bad_log_base_measure(base, error, match):
    with pytest.raises(error, match=match):
        exponential_mechanism([1.0, 2.0], 1.0, log_base_measure=base)
    with pytest.raises(error, match=match):
        ExponentialMechanism(1.0).log_probabilities([1.0, 2.0], base)


def test_bad_size_and_random_state():
    with pytest.raises(TypeError, match="size"):
        ExponentialMechanism(1.0).sample([1.0], size=2.5)
    with pytest.raises(ValueError, match="size"):
        PermuteAndFlip(1.0).sample([1.0], size=-1)
    with pytest.raises(TypeError, match="random_state"):
        report_noisy_max([1.0], 1.0, random_state="seed")


def test_size_shapes():
    assert ExponentialMechanism(1.0).sample([0.0, 1.0], size=(2, 3)).shape == (2, 3)
    assert ReportNoisyMax(1.0).sample([0.0, 1.0], size=0).shape == (0,)


def test_repr_and_equality():
    assert repr(ReportNoisyMax(1.0, 2.0, "gumbel")) == (
        "ReportNoisyMax(epsilon=1.0, sensitivity=2.0, noise='gumbel')"
    )
    assert ExponentialMechanism(1.0) == ExponentialMechanism(1, 1)
    assert ExponentialMechanism(1.0) != PermuteAndFlip(1.0)
    assert len({RandomizedResponse(1.0), RandomizedResponse(1.0)}) == 1
    assert LaplaceMechanism(1.0) != LaplaceMechanism(2.0)
    assert repr(GaussianMechanism(1.0, 1e-5)) == (
        "GaussianMechanism(epsilon=1.0, delta=1e-05, sensitivity=1.0)"
    )
