"""The public plans of PublicAssistedQueryRelease's APAP and PMW^Pub paths.

``support="representative"`` (APAP, Bassily et al. 2020, Alg. 3) and
``support="public"`` with a selection mechanism (PMW^Pub, Liu et al. 2021;
``selection="all"`` is ``_measure.py``). The plans read parameters and public
data only, before the budget is reserved; the private rounds stay in
``_release.py``.
"""

# SPDX-License-Identifier: BSD-3-Clause

from ._pmw import WeightedSupport
from ._pmw_budget import (
    default_n_rounds,
    default_n_updates,
    mwem_round_parameters,
    sparse_vector_pmw_parameters,
)

__all__ = ["plan_public", "plan_representative"]


def plan_representative(est, workload, query_set, distinct):
    """Alg. 3's public part: cover, representative domain, projection, budget."""
    # Alg. 3 steps 1-2: the cover, from the distinct public points only.
    cover = workload._cover(distinct)
    # Definition 2: the representative domain of the cover (public); raises
    # RepresentativeDomainTooLarge (a ValueError) pointing to support="public".
    reps, class_map = workload._representative_domain(cover, distinct)
    # Alg. 3, function G: the member answering each query of the workload.
    member = est._project(cover, query_set, distinct)
    # Alg. 3 step 4: PMW at accuracy alpha / 2.
    alpha_pmw = est.alpha / 2.0
    c = (
        est.n_iterations
        if est.n_iterations is not None
        else default_n_updates(alpha_pmw, reps.shape[0])
    )
    eps0, cost = sparse_vector_pmw_parameters(est.epsilon, est.delta, c)
    return {
        "cover": cover,
        "reps": reps,
        "class_map": class_map,
        "member": member,
        "distinct": distinct,
        "alpha_pmw": alpha_pmw,
        "c": int(c),
        "eps0": eps0,
        "cost": cost,
        # The uniform distribution over the representatives (public).
        "support": WeightedSupport(cover, reps),
    }


def plan_public(est, query_set, points, init, n):
    """PMW^Pub's public part: initial distribution, rounds, budget."""
    t = (
        est.n_iterations
        if est.n_iterations is not None
        else default_n_rounds(
            n, est.epsilon, est.delta, query_set.n_queries, points.shape[0]
        )
    )
    params = mwem_round_parameters(
        est.epsilon,
        est.delta,
        t,
        selection=est.selection,
        measurement=est.measurement,
    )
    return {
        "t": int(t),
        "params": params,
        "cost": params["cost"],
        # Initial distribution: the public empirical distribution on the
        # distinct public points (Liu et al. 2021), times the starting
        # label distribution in a labeled fit; evaluated here (public).
        "support": WeightedSupport(query_set, points, init),
    }
