"""Privacy auditing: exact verification and statistical lower bounds on ε.

Reusable checks that a mechanism keeps its stated privacy cost: exact
enumeration of neighbours for mechanisms with computable output distributions,
and Clopper–Pearson lower confidence bounds on ε from samples for the others;
:func:`audit_epsilon` gives the same bound for a whole fit, ``cross_validate``
or search. :func:`noisy_public_overlap` is the opt-in, charged check for
private rows passed as public data.
"""

# SPDX-License-Identifier: BSD-3-Clause

from ._estimator import audit_epsilon
from ._exact import (
    ExactPrivacyLoss,
    max_privacy_loss_over_pairs,
    max_privacy_loss_over_scores,
    neighbouring_pairs,
)
from ._lower_bound import (
    EpsilonLowerBound,
    clopper_pearson,
    epsilon_lower_bound,
    epsilon_lower_bound_search,
)
from ._overlap import NoisyOverlap, noisy_public_overlap, overlap_privacy_cost
from ._tracing import (
    MembershipRates,
    TracingAttack,
    membership_rates,
    tracing_attack_scores,
)

__all__ = [
    "EpsilonLowerBound",
    "ExactPrivacyLoss",
    "MembershipRates",
    "NoisyOverlap",
    "TracingAttack",
    "audit_epsilon",
    "clopper_pearson",
    "epsilon_lower_bound",
    "epsilon_lower_bound_search",
    "max_privacy_loss_over_pairs",
    "max_privacy_loss_over_scores",
    "membership_rates",
    "neighbouring_pairs",
    "noisy_public_overlap",
    "overlap_privacy_cost",
    "tracing_attack_scores",
]
