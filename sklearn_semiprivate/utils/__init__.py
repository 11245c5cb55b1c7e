"""Validation and random-number helpers shared by the whole package."""

# SPDX-License-Identifier: BSD-3-Clause

from ._private_reads import private_reads_refused, reads_not_leaks, warn_private_read
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
    "private_reads_refused",
    "reads_not_leaks",
    "reproducible_noise",
    "spawn_rngs",
    "warn_private_read",
]
