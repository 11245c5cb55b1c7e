"""Composition results checked exactly against the theorems, delta included.

A mutation review found that compose_advanced's two basic-composition
branches could return delta instead of k delta, and compose_parallel the
last cost's delta instead of the largest, with no test failing: the existing
cases had delta = 0 or their largest delta last. Dwork & Roth 2014, Thm 3.16
(k mechanisms, each (eps, delta)-DP, compose to (k eps, k delta)); McSherry
2009, Thm 4 (disjoint parts: the largest of each coordinate).
"""

import itertools

from sklearn_semiprivate.accounting import (
    PrivacyCost,
    compose_advanced,
    compose_parallel,
)


def test_basic_fallback_sums_the_deltas():
    # eps0 = 1, k = 10: advanced > basic, so basic (10, 10 * 1e-6) is returned.
    assert compose_advanced((1.0, 1e-6), k=10, delta_slack=1e-5) == PrivacyCost(
        10.0, 10 * 1e-6
    )


def test_huge_epsilon_branch_is_basic_composition():
    assert compose_advanced((800.0, 1e-6), k=3, delta_slack=1e-5) == PrivacyCost(
        2400.0, 3e-6
    )


def test_parallel_composition_is_the_max_in_any_order():
    costs = [(0.5, 0.0), (2.0, 1e-9), (1.0, 1e-6)]
    for perm in itertools.permutations(costs):
        assert compose_parallel(perm) == PrivacyCost(2.0, 1e-6)
