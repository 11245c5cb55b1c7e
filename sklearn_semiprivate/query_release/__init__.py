"""Private query release assisted by public data.

APAP (Bassily, Cheu, Moran, Nikolov, Ullman & Wu 2020, Alg. 3) and its scalable
variant PMW^Pub (Liu et al. 2021), with query workloads that evaluate fast on
weighted datasets.
"""

# SPDX-License-Identifier: BSD-3-Clause

from ._base import QueryWorkload
from ._binning import bin_codes, public_quantile_bins
from ._marginals import MarginalQueries, PredicateQueries
from ._pmw_budget import (
    approx_dp_to_zcdp,
    mwem_round_parameters,
    pmw_private_sample_size,
    sparse_vector_pmw_parameters,
    zcdp_to_approx_dp,
)
from ._public_assisted import PublicAssistedQueryRelease
from ._workloads import StumpQueries, ThresholdQueries

__all__ = [
    "MarginalQueries",
    "PredicateQueries",
    "PublicAssistedQueryRelease",
    "QueryWorkload",
    "StumpQueries",
    "ThresholdQueries",
    "approx_dp_to_zcdp",
    "bin_codes",
    "mwem_round_parameters",
    "pmw_private_sample_size",
    "public_quantile_bins",
    "sparse_vector_pmw_parameters",
    "zcdp_to_approx_dp",
]
