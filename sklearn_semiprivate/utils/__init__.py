"""Validation and random-number helpers shared by the whole package."""

# SPDX-License-Identifier: BSD-3-Clause

from ._rng import check_rng, noise_rng, reproducible_noise, spawn_rngs
from ._validation import (
    check_delta,
    check_epsilon,
    check_integer,
    check_positive_real,
    check_probability,
    check_real_array,
)

__all__ = [
    "check_delta",
    "check_epsilon",
    "check_integer",
    "check_positive_real",
    "check_probability",
    "check_real_array",
    "check_rng",
    "noise_rng",
    "reproducible_noise",
    "spawn_rngs",
]
