"""Privacy accounting: costs, composition theorems and a budget ledger.

The ledger (:class:`PrivacyAccountant`) lives in memory or in an SQLite file shared
across processes and sessions; its history is a list of :class:`PrivacyCharge`.
"""

# SPDX-License-Identifier: BSD-3-Clause

from ._accountant import PrivacyAccountant, PrivacyCharge
from ._composition import (
    PrivacyCost,
    amplify_by_subsampling,
    compose_advanced,
    compose_basic,
    compose_parallel,
)
from ._rdp import (
    DEFAULT_RDP_ORDERS,
    INTEGER_RDP_ORDERS,
    compose_rdp,
    gaussian_rdp,
    rdp_gaussian_sigma,
    rdp_subsampled_gaussian_sigma,
    rdp_to_dp,
    subsampled_gaussian_rdp,
)

__all__ = [
    "DEFAULT_RDP_ORDERS",
    "INTEGER_RDP_ORDERS",
    "PrivacyAccountant",
    "PrivacyCharge",
    "PrivacyCost",
    "amplify_by_subsampling",
    "compose_advanced",
    "compose_basic",
    "compose_parallel",
    "compose_rdp",
    "gaussian_rdp",
    "rdp_gaussian_sigma",
    "rdp_subsampled_gaussian_sigma",
    "rdp_to_dp",
    "subsampled_gaussian_rdp",
]
