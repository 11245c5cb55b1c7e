"""Stated costs and refusals at extreme but legal parameters.

An adversarial numeric review (November 2026) found costs whose ``e^eps``
overflowed (OverflowError instead of a bound, or instead of the intended
"needs more rows" ValueError), and Laplace scales that underflowed to no
noise. Each case here failed before its fix.
"""

import math

import numpy as np
import pytest

from sklearn_semiprivate import (
    PrivacyAccountant,
    PrivacyCost,
    PrivateSGDClassifier,
    PublicData,
    SemiPrivateClassifier,
    SubsampleTestReweighClassifier,
    SubSamplingActiveClassifier,
)
from sklearn_semiprivate.accounting import gaussian_rdp, rdp_gaussian_sigma, rdp_to_dp
from sklearn_semiprivate.accounting._reservation import replace_one_cost
from sklearn_semiprivate.classifiers._active import subsampling_privacy_cost
from sklearn_semiprivate.classifiers._pate_votes import lnmax_scale
from sklearn_semiprivate.classifiers._transfer_steps import (
    curator_rows_needed,
    default_kappa,
    default_rounds,
    round_privacy_cost,
)
from sklearn_semiprivate.mechanisms import LaplaceMechanism
from sklearn_semiprivate.mechanisms._additive import laplace_scale
from sklearn_semiprivate.query_release._pmw import above_threshold


def test_group_privacy_where_e_to_the_epsilon_overflows():
    assert replace_one_cost((800.0, 1e-5)) == PrivacyCost(1600.0, 1.0)
    assert replace_one_cost((800.0, 0.0)) == PrivacyCost(1600.0, 0.0)
    # Unchanged below: (1 + e^eps) delta.
    assert replace_one_cost((1.0, 1e-6)).delta == pytest.approx((1 + math.e) * 1e-6)


def test_claim_4_1_round_cost_where_e_to_the_epsilon_overflows():
    # eps* = 6 eps m / (kappa n) = 960: delta* = 4 m e^eps* delta / (kappa n)
    # is far above 1.
    cost = round_privacy_cost((1.0, 1e-8), m=200, kappa=0.005, n=250)
    assert cost == PrivacyCost(960.0, 1.0)
    assert round_privacy_cost((1.0, 0.0), m=200, kappa=0.005, n=250).delta == 0.0


@pytest.mark.parametrize("chi2_bound", [0.5, 1.0])
def test_curator_rows_are_found_for_a_small_kappa(chi2_bound):
    kappa = default_kappa(0.1, chi2_bound)
    rounds = default_rounds(0.1, chi2_bound, True)
    n = curator_rows_needed((1.0, 1e-8), 239, kappa, rounds, 1.0, 1e-6)
    assert n > 0
    # ... and the rounds at n rows then fit the budget (Claim 4.1).
    assert round_privacy_cost((1.0, 1e-8), 239, kappa, n).epsilon < 1.0


def test_a_small_kappa_is_refused_for_too_few_rows_before_the_charge():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2_000, 2))
    y = (X[:, 0] > 0).astype(int)
    ledger = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = SubsampleTestReweighClassifier(
        PrivateSGDClassifier(classes=[0, 1], bounds=(-4, 4)),
        alpha=0.1,
        epsilon=1.0,
        delta=1e-5,
        kappa=0.005,
        local_epsilon=1.0,
        max_iter=5,
        n_subsample=200,
        random_state=0,
        accountant=ledger,
    )
    with pytest.raises(ValueError, match="curator rows"):
        clf.fit(X, y, X_target=X[:500], y_target=y[:500])
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_subsampling_cost_and_pool_where_e_to_the_2_eps_overflows():
    # (7 + e^eps*) / (3 + e^(2 eps*)) ~ e^-eps* at eps* = 400.
    cost = subsampling_privacy_cost((400.0, 1e-6), 1.0)
    assert cost.delta == pytest.approx(math.exp(-400.0) * 1e-6, rel=1e-12, abs=0)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 2))
    y = (X[:, 0] > 0).astype(int)
    ledger = PrivacyAccountant(epsilon=10.0)
    active = SubSamplingActiveClassifier(
        SemiPrivateClassifier(epsilon=400.0, classes=[0, 1]),
        classes=[0, 1],
        accountant=ledger,
    )
    with pytest.raises(ValueError, match="inf rows"):
        active.fit(X, y, X_public=PublicData(X[:20]))
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_gaussian_rdp_depends_on_the_ratio_only():
    # sensitivity**2 underflowed at 1e-170: a curve of 0, so rdp_to_dp
    # claimed epsilon = 0 (a review).
    unit = gaussian_rdp(1e20, orders=[2.0, 32.0])
    tiny = gaussian_rdp(1e-150, sensitivity=1e-170, orders=[2.0, 32.0])
    assert tiny == pytest.approx(unit, rel=1e-12, abs=0)
    assert rdp_to_dp(tiny, 1e-30, orders=[2.0, 32.0]).epsilon > 0


@pytest.mark.parametrize(
    ("epsilon", "delta", "k", "sensitivity"),
    [
        (1.0, 1e-5, 1, 1e-170),  # ZeroDivisionError
        (1.0, 1e-5, 1, 1e160),  # OverflowError
        (1e308, 1e-5, 1, 1.0),  # OverflowError
        (1e-12, 1e-150, 10**9, 1.0),  # math domain error
    ],
)
def test_rdp_gaussian_sigma_at_extreme_magnitudes(epsilon, delta, k, sensitivity):
    sigma = rdp_gaussian_sigma(
        epsilon, delta, n_compositions=k, sensitivity=sensitivity
    )
    assert 0 < sigma < math.inf
    curve = k * gaussian_rdp(sigma, sensitivity=sensitivity)
    assert rdp_to_dp(curve, delta).epsilon <= epsilon


def test_dp_sgd_refuses_a_tiny_delta_before_the_charge_and_says_why():
    # delta**2 underflowed and DP-SGD raised OverflowError (a review); the
    # orders' floor now refuses, in words an estimator's user can act on.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int)
    ledger = PrivacyAccountant(epsilon=10.0, delta=0.5)
    clf = PrivateSGDClassifier(
        epsilon=0.1, delta=1e-300, classes=[0, 1], accountant=ledger
    )
    with pytest.raises(ValueError, match="raise epsilon or delta"):
        clf.fit(X, y, X_public=PublicData(X[:10]))
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_zcdp_budget_at_a_huge_epsilon():
    # "rdp must be finite" at epsilon = 1e305 (a review): the search now
    # targets 1e6 beyond it, feasible at every larger epsilon.
    from sklearn_semiprivate.query_release._adaptive import zcdp_budget, zcdp_privacy

    rho = zcdp_budget(1e305, 1e-5)
    assert rho == zcdp_budget(1e6, 1e-5)
    assert zcdp_privacy(rho, 1e-5).epsilon <= 1e6


@pytest.mark.parametrize(
    "sensitivity, epsilon", [(1e-300, 1e300), (1.0, 1e308), (1e-200, 1e200)]
)
def test_laplace_scale_that_underflows_is_floored_not_zero(sensitivity, epsilon):
    # sensitivity / epsilon underflowed to 0.0 (or a subnormal): a release
    # with no noise. The floor is a larger, so still valid, scale.
    tiny = np.finfo(np.float64).tiny
    mech = LaplaceMechanism(epsilon, sensitivity=sensitivity)
    assert mech.scale == tiny
    assert laplace_scale(sensitivity, epsilon) == tiny
    out = mech.sample(np.zeros(200), random_state=0)
    assert np.count_nonzero(out) == out.size
    # The local votes and LNMax of PATE, and the sparse vector's noise, take
    # their scale from the same place.
    assert lnmax_scale(1e308, 3) == pytest.approx(6e-308, abs=0, rel=1e-15)
    assert lnmax_scale(1.7e308, 1) == tiny
    rng = np.random.default_rng(0)
    hits = [above_threshold(np.zeros(1), 0.0, 1e308, 1.0, rng) for _ in range(200)]
    # Threshold and value both noisy: about half of the draws are no hit.
    assert 50 < hits.count(-1) < 150


def test_laplace_scale_is_unchanged_where_it_is_normal():
    assert LaplaceMechanism(1e300, sensitivity=1.0).scale == 1e-300
    assert LaplaceMechanism(0.5, sensitivity=2.0).scale == 4.0
    assert lnmax_scale(0.5, 3) == 12.0


@pytest.mark.parametrize("epsilon", [1e305, 1e306, 1e308, 1.7e308])
def test_dp_sgd_calibration_near_the_largest_double(epsilon):
    # A review: from epsilon = 1e306 SemiPrivateLogisticRegression was
    # charged, read the rows, and then failed ("curve must be finite, found
    # NaN") in its own check of the calibrated noise; from 1e305 the
    # calibration's search raised RuntimeWarnings (overflowing curves). The
    # search now reads a non-finite curve as uncertified, so the noise it
    # returns has a finite curve that certifies at most epsilon.
    from sklearn_semiprivate import SemiPrivateLogisticRegression
    from sklearn_semiprivate.classifiers._sgd_steps import sgd_noise, sgd_privacy

    z, s = sgd_noise(epsilon, 1e-7, 0.01, 2000)  # warnings are errors here
    cost = sgd_privacy(z, s, 0.01, 2000, 1e-7)
    assert 0 < cost.epsilon <= epsilon and cost.delta <= 1e-7
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    ledger = PrivacyAccountant(epsilon=math.inf, delta=1e-3)
    clf = SemiPrivateLogisticRegression(epsilon=epsilon, delta=1e-7, accountant=ledger)
    clf.set_params(classes=[0, 1]).fit(X, y, X_public=PublicData(X[:40]))
    assert math.isfinite(clf.replace_one_privacy_.epsilon)


@pytest.mark.parametrize("delta", [1e-154, 1e-158, 1e-161])
def test_dp_sgd_calibration_at_a_tiny_delta_is_a_value_error(delta):
    # A second review: a bare OverflowError (sigma**2 in the subsampled
    # curve, as the search climbed towards sigma ~ 1/delta), before any
    # charge; limitations.rst promises a ValueError.
    from sklearn_semiprivate.classifiers._sgd_steps import sgd_noise

    with pytest.raises(ValueError, match="cannot certify"):
        sgd_noise(0.1, delta, 0.01, 2000)
