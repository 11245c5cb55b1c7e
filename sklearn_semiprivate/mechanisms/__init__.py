"""Differentially private mechanisms: pure, framework-free, each with its cost.

Every mechanism is a small object (validated parameters, a ``privacy_cost`` you
can assert on, the exact output distribution where it is discrete, and a sampler
taking an explicit ``random_state``) plus a functional form that samples once.
"""

# SPDX-License-Identifier: BSD-3-Clause

from ._additive import (
    GaussianMechanism,
    LaplaceMechanism,
    analytic_gaussian_sigma,
    gaussian_mechanism,
    gaussian_privacy_profile,
    laplace_mechanism,
)
from ._base import Mechanism
from ._exponential import ExponentialMechanism, exponential_mechanism
from ._loss_randomized_response import (
    GaussianLossRandomizedResponse,
    LossRandomizedResponse,
    debias_loss_mean,
    randomized_response_losses,
)
from ._multiplicative_weights import multiplicative_weights_update, project_kappa_dense
from ._noisy_max import (
    PermuteAndFlip,
    ReportNoisyMax,
    permute_and_flip,
    report_noisy_max,
)
from ._randomized_response import (
    KaryRandomizedResponse,
    RandomizedResponse,
    debias_bit_mean,
    debias_kary_histogram,
    randomized_response_bits,
    randomized_response_kary,
)

__all__ = [
    "ExponentialMechanism",
    "GaussianLossRandomizedResponse",
    "GaussianMechanism",
    "KaryRandomizedResponse",
    "LaplaceMechanism",
    "LossRandomizedResponse",
    "Mechanism",
    "PermuteAndFlip",
    "RandomizedResponse",
    "ReportNoisyMax",
    "analytic_gaussian_sigma",
    "debias_bit_mean",
    "debias_kary_histogram",
    "debias_loss_mean",
    "exponential_mechanism",
    "gaussian_mechanism",
    "gaussian_privacy_profile",
    "laplace_mechanism",
    "multiplicative_weights_update",
    "permute_and_flip",
    "project_kappa_dense",
    "randomized_response_bits",
    "randomized_response_kary",
    "randomized_response_losses",
    "report_noisy_max",
]
