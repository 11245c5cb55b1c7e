"""Composition arithmetic, asserted against figures computed by hand."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sklearn_semiprivate.accounting import (
    PrivacyCost,
    amplify_by_subsampling,
    compose_advanced,
    compose_basic,
    compose_parallel,
)


def test_basic_composition_adds_exactly():
    assert compose_basic([0.1] * 10) == PrivacyCost(math.fsum([0.1] * 10), 0.0)
    assert compose_basic([(0.5, 1e-6), (0.25, 2e-6)]) == PrivacyCost(0.75, 3e-6)
    assert compose_basic([]) == PrivacyCost(0.0, 0.0)


def test_parallel_composition_is_the_max():
    assert compose_parallel([(0.5, 0.0), (2.0, 1e-9), (1.0, 1e-6)]) == PrivacyCost(
        2.0, 1e-6
    )


def test_advanced_composition_known_figures():
    # eps0 = 0.1, k = 100, delta' = 1e-5 (Dwork & Roth 2014, Thm 3.20):
    # sqrt(200 ln 1e5) * 0.1 + 100 * 0.1 * (e^0.1 - 1)
    #   = 0.1 * sqrt(2302.5850929940457) + 10 * 0.10517091807564771
    #   = 4.798526...  + 1.051709...
    cost = compose_advanced((0.1, 1e-7), k=100, delta_slack=1e-5)
    assert cost.epsilon == pytest.approx(5.850235, abs=1e-6)
    assert cost.delta == pytest.approx(100 * 1e-7 + 1e-5, rel=1e-12, abs=0)
    # eps0 = 0.01, k = 1000, delta' = 1e-5: sqrt(2000 ln 1e5) * 0.01 + 10 (e^.01 - 1)
    cost = compose_advanced(0.01, k=1000, delta_slack=1e-5)
    assert cost.epsilon == pytest.approx(1.517427 + 0.100502, abs=1e-6)


def test_advanced_composition_falls_back_to_basic_when_tighter():
    # eps0 = 1: advanced gives sqrt(2 * 10 * ln 1e5) + 10 (e - 1) > 10 = basic.
    assert compose_advanced(1.0, k=10, delta_slack=1e-5) == PrivacyCost(10.0, 0.0)


def test_advanced_composition_at_a_subnormal_slack():
    # log(1 / 1e-310) overflowed to inf, so the bound fell back to basic.
    advanced = compose_advanced(0.001, k=10**6, delta_slack=1e-310)
    expected = math.sqrt(2e6 * 310 * math.log(10)) * 0.001 + 1e6 * 0.001 * math.expm1(
        0.001
    )
    assert advanced == PrivacyCost(pytest.approx(expected, rel=1e-12), 1e-310)


@given(
    eps=st.floats(0.01, 1.0),
    k=st.integers(1, 10_000),
    delta_slack=st.floats(1e-12, 0.5),
)
def test_advanced_composition_corollary(eps, k, delta_slack):
    # Dwork & Roth Cor. 3.21: eps0 = eps / (2 sqrt(2k ln(1/delta'))) composes to <= eps.
    eps0 = eps / (2 * math.sqrt(2 * k * math.log(1 / delta_slack)))
    assert compose_advanced(eps0, k=k, delta_slack=delta_slack).epsilon <= eps + 1e-12


def test_amplification_known_figure():
    # q = 0.01, eps = 1: log(1 + 0.01 (e - 1)) = 0.0170369...
    cost = amplify_by_subsampling((1.0, 1e-6), 0.01)
    assert cost.epsilon == pytest.approx(math.log(1 + 0.01 * (math.e - 1)), rel=1e-15)
    assert cost.epsilon == pytest.approx(0.0170369, abs=1e-7)
    assert cost.delta == pytest.approx(1e-8, rel=1e-12, abs=0)
    assert amplify_by_subsampling(2.0, 1.0, method="without_replacement") == (2.0, 0.0)


@given(
    eps=st.floats(1e-6, 50.0),
    q1=st.floats(1e-6, 1.0),
    q2=st.floats(1e-6, 1.0),
)
def test_amplification_is_at_most_eps_and_monotone(eps, q1, q2):
    lo, hi = sorted((q1, q2))
    a = amplify_by_subsampling(eps, lo).epsilon
    b = amplify_by_subsampling(eps, hi).epsilon
    assert a <= b <= eps


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: compose_advanced(0.1, k=0, delta_slack=1e-5), "k must"),
        (lambda: compose_advanced(0.1, k=3, delta_slack=0), "delta_slack"),
        (lambda: amplify_by_subsampling(1.0, 0.0), "rate"),
        (lambda: amplify_by_subsampling(1.0, 0.5, method="bernoulli"), "method"),
        (lambda: compose_basic([(-1.0, 0.0)]), "epsilon"),
        (lambda: compose_basic([(1.0, 1.5)]), "delta"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
