"""Privacy accounting: costs, composition theorems and a budget ledger."""

# SPDX-License-Identifier: BSD-3-Clause

from ._accountant import PrivacyAccountant
from ._composition import (
    PrivacyCost,
    amplify_by_subsampling,
    compose_advanced,
    compose_basic,
    compose_parallel,
)

__all__ = [
    "PrivacyAccountant",
    "PrivacyCost",
    "amplify_by_subsampling",
    "compose_advanced",
    "compose_basic",
    "compose_parallel",
]
