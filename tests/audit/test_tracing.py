"""Tracing attack (Bassily et al. 2020, Thm 14; Dwork et al. 2015).

Deterministic tests of the statistic and of the conformal calibration, then
seeded statistical tests: the attack finds the members of an exact release from
too few rows, is at chance against a DP release, and catches mutants of the DP
release whose noise forgot the dimension in the sensitivity.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
import pytest

from sklearn_semiprivate.audit import (
    MembershipRates,
    TracingAttack,
    clopper_pearson,
    membership_rates,
    tracing_attack_scores,
)
from sklearn_semiprivate.mechanisms import GaussianMechanism, LaplaceMechanism
from sklearn_semiprivate.utils import spawn_rngs

ALPHA = 1e-6


def _plus_thresholds(rng, p):
    """A product distribution on ``{±1}^p`` with random coordinate means.

    ``x_j = +1`` when a uniform 16-bit integer falls below ``t_j``, so
    ``P(x_j = +1) = t_j / 2**16`` exactly and ``E[x_j] = 2 t_j / 2**16 - 1``
    is spread over ``[-1, 1)`` (Dwork et al. 2015 draw the means uniformly).
    """
    return rng.integers(0, 2**16, size=p, dtype=np.uint16)


def _rows(rng, thresholds, n):
    """``n`` rows of the product distribution, as int8 in ``{-1, +1}``."""
    u = rng.integers(0, 2**16, size=(n, thresholds.size), dtype=np.uint16)
    return (u < thresholds).view(np.int8) * np.int8(2) - np.int8(1)


# ---------------------------------------------------------------- statistic


def test_scores_match_the_definition():
    rng = np.random.default_rng(0)
    p = 7
    q = rng.uniform(-1, 1, size=p)
    cand = rng.choice([-1, 1], size=(5, p))
    ref = rng.choice([-1, 1], size=(9, p))
    mu = ref.mean(axis=0)
    expected = [float(np.dot(y - mu, q - mu)) for y in cand]
    got = tracing_attack_scores(q, cand, ref)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_fraction_answers_are_converted():
    rng = np.random.default_rng(1)
    p = 6
    frac = rng.uniform(0, 1, size=p)
    cand = rng.choice([-1, 1], size=(4, p))
    ref = rng.choice([-1, 1], size=(8, p))
    a = tracing_attack_scores(frac, cand, ref, answer_scale="fraction")
    b = tracing_attack_scores(2 * frac - 1, cand, ref)
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    # The fraction of +1 entries of the rows: the same scores as their mean.
    rows = rng.choice([-1, 1], size=(30, p))
    a = tracing_attack_scores(
        (rows == 1).mean(axis=0), cand, ref, answer_scale="fraction"
    )
    b = tracing_attack_scores(rows.mean(axis=0), cand, ref)
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_member_gains_its_variance_over_n_in_expectation():
    # E[<y, q>] for a member minus that for an outsider is sum_j Var(x_j) / n
    # when the centre is the true mean: averaged over many exact releases.
    rng = np.random.default_rng(2)
    p, n, reps = 50, 5, 4000
    bias = rng.uniform(-0.8, 0.8, size=p)
    X = np.where(rng.random((reps, n + 1, p)) < (1 + bias) / 2, 1.0, -1.0)
    q = X[:, :n].mean(axis=1)
    gain = np.einsum("rp,rp->r", X[:, 0] - bias, q - bias) - np.einsum(
        "rp,rp->r", X[:, n] - bias, q - bias
    )
    expected = float(np.sum(1 - bias**2) / n)
    # Standard error from the sample; 6 of them is a 1e-9 two-sided normal bound.
    se = gain.std(ddof=1) / math.sqrt(reps)
    assert abs(gain.mean() - expected) < 6 * se


# -------------------------------------------------------------- calibration


@pytest.mark.parametrize(
    ("fpr", "k", "r"), [(0.05, 39, 2), (0.1, 39, 4), (0.05, 19, 1), (0.3, 9, 3)]
)
def test_conformal_threshold_admits_exactly_r_of_k_plus_one(fpr, k, r):
    # k + 1 rows with distinct scores; leave each one out in turn as the
    # candidate and calibrate on the other k. By exchangeability the candidate
    # is declared IN in exactly r = floor(fpr (k + 1)) of the k + 1 cases,
    # which is the exact false positive rate r / (k + 1). An off-by-one in the
    # order statistic changes the count.
    rng = np.random.default_rng(3)
    p = 9
    q = rng.normal(size=p)  # generic answers: distinct rows get distinct scores
    mean_rows = rng.choice([-1, 1], size=(6, p))
    pool = rng.permutation(np.array(np.meshgrid(*[[-1, 1]] * p)).reshape(p, -1).T)
    pool = pool[: k + 1]
    hits = 0
    for i in range(k + 1):
        calibration = np.delete(pool, i, axis=0)
        attack = TracingAttack(false_positive_rate=fpr, n_calibration=k)
        attack.fit(q, np.vstack([mean_rows, calibration]))
        assert attack.false_positive_rate_bound_ == r / (k + 1) <= fpr
        np.testing.assert_array_equal(attack.reference_mean_, mean_rows.mean(axis=0))
        hits += int(attack.predict(pool[i : i + 1])[0])
    assert len(set(tracing_attack_scores(q, pool, mean_rows).tolist())) == k + 1
    assert hits == r


def test_threshold_is_the_order_statistic():
    rng = np.random.default_rng(4)
    p = 12
    q = rng.normal(size=p)
    ref = rng.choice([-1, 1], size=(60, p))
    attack = TracingAttack(false_positive_rate=0.05).fit(q, ref)
    cal = np.sort(attack.calibration_scores_)
    k = 30
    assert cal.size == k
    r = math.floor(0.05 * (k + 1))  # = 1: the largest calibration score
    assert attack.threshold_ == cal[k - r] == cal[-1]
    np.testing.assert_allclose(
        attack.calibration_scores_,
        tracing_attack_scores(q, ref[30:], ref[:30]),
        rtol=1e-12,
    )
    # decision_function agrees with tracing_attack_scores on the mean rows.
    cand = rng.choice([-1, 1], size=(5, p))
    np.testing.assert_allclose(
        attack.decision_function(cand), tracing_attack_scores(q, cand, ref[:30])
    )
    np.testing.assert_array_equal(
        attack.predict(cand), attack.decision_function(cand) > attack.threshold_
    )


def test_fixed_threshold_uses_all_reference_rows():
    rng = np.random.default_rng(5)
    p = 4
    ref = rng.choice([-1, 1], size=(10, p))
    attack = TracingAttack(threshold=1.5, answer_scale="fraction").fit(
        np.full(p, 0.75), ref
    )
    assert attack.threshold_ == 1.5
    assert attack.calibration_scores_ is None
    assert attack.false_positive_rate_bound_ is None
    np.testing.assert_array_equal(attack.reference_mean_, ref.mean(axis=0))
    np.testing.assert_array_equal(attack.answers_, np.full(p, 0.5))
    cand = rng.choice([-1, 1], size=(6, p))
    np.testing.assert_array_equal(
        attack.predict(cand),
        tracing_attack_scores(np.full(p, 0.5), cand, ref) > 1.5,
    )


def test_membership_rates():
    rates = membership_rates([1, 0, 1, 1], np.array([False, False, True]))
    assert rates == MembershipRates(0.75, 1 / 3)
    tpr, fpr = rates
    assert (tpr, fpr) == (0.75, 1 / 3)


# --------------------------------------------------------------- validation


def test_invalid_inputs():
    p = 3
    ref = np.array([[1, -1, 1], [-1, -1, 1], [1, 1, -1], [-1, 1, 1]] * 10)
    q = np.zeros(p)
    with pytest.raises(ValueError, match="rows of"):
        tracing_attack_scores(q, [[1, 0, 1]], ref)
    with pytest.raises(ValueError, match="rows of"):
        tracing_attack_scores(q, [[1, -1, 1]], ref * 0.5)
    with pytest.raises(ValueError, match="features"):
        tracing_attack_scores(q, [[1, -1]], ref)
    with pytest.raises(ValueError, match="features"):
        tracing_attack_scores(q, [[1, -1, 1]], ref[:, :2])
    with pytest.raises(ValueError, match="finite"):
        tracing_attack_scores([0.0, np.nan, 0.0], [[1, -1, 1]], ref)
    with pytest.raises(ValueError, match="1-dimensional"):
        tracing_attack_scores([q], [[1, -1, 1]], ref)
    with pytest.raises(ValueError, match="answer_scale"):
        tracing_attack_scores(q, [[1, -1, 1]], ref, answer_scale="percent")
    with pytest.raises(ValueError, match="2-dimensional"):
        tracing_attack_scores(q, [1, -1, 1], ref)
    with pytest.raises(ValueError, match="false_positive_rate"):
        TracingAttack(false_positive_rate=0.0).fit(q, ref)
    with pytest.raises(ValueError, match="false_positive_rate"):
        TracingAttack(false_positive_rate=1.0).fit(q, ref)
    with pytest.raises(ValueError, match="at least 19 are needed"):
        TracingAttack(false_positive_rate=0.05, n_calibration=18).fit(q, ref)
    TracingAttack(false_positive_rate=0.05, n_calibration=19).fit(q, ref)
    with pytest.raises(ValueError, match="one for calibration"):
        TracingAttack(n_calibration=40).fit(q, ref)
    with pytest.raises(ValueError, match="n_calibration must be >= 1"):
        TracingAttack(n_calibration=0).fit(q, ref)
    with pytest.raises(TypeError, match="n_calibration"):
        TracingAttack(n_calibration=2.0).fit(q, ref)
    with pytest.raises(ValueError, match="finite"):
        TracingAttack(threshold=np.inf).fit(q, ref)
    with pytest.raises(AttributeError, match="not fitted"):
        TracingAttack().predict(ref)
    fitted = TracingAttack(threshold=0.0).fit(q, ref)
    with pytest.raises(ValueError, match="features"):
        fitted.predict([[1, 1]])
    with pytest.raises(ValueError, match="booleans"):
        membership_rates([0.5, 1.0], [True])
    with pytest.raises(ValueError, match="booleans"):
        membership_rates([2, 1], [True])
    with pytest.raises(ValueError, match="non-empty"):
        membership_rates([], [True])
    assert "false_positive_rate=0.05" in repr(TracingAttack())


# -------------------------------------------------------------- statistical

N_ROWS = 50  # rows of the released dataset: too few for p = 2000 stumps
P = 2000
N_MEAN, N_CALIBRATION = 200, 199  # (k + 1) * 0.05 = 10: exact level 0.05
FPR = 0.05
N_TRIALS = 300
EPSILON, DELTA = 0.5, 1e-6


# The whole vector of p averages is released at once; replacing one row of
# {±1}^p moves every average by at most 2 / n, so the L2 sensitivity is
# 2 sqrt(p) / n and the L1 sensitivity 2 p / n.
GAUSSIAN = GaussianMechanism(EPSILON, DELTA, sensitivity=2.0 * math.sqrt(P) / N_ROWS)
LAPLACE = LaplaceMechanism(EPSILON, sensitivity=2.0 * P / N_ROWS)
# Mutants: the sensitivity of one average, not of the whole workload.
GAUSSIAN_MISSING_SQRT_P = GaussianMechanism(EPSILON, DELTA, sensitivity=2.0 / N_ROWS)
LAPLACE_MISSING_P = LaplaceMechanism(EPSILON, sensitivity=2.0 / N_ROWS)


def exact_release(rows, rng):
    return rows.mean(axis=0)


def gaussian_release(rows, rng):
    return GAUSSIAN.sample(rows.mean(axis=0), random_state=rng)


def laplace_release(rows, rng):
    return LAPLACE.sample(rows.mean(axis=0), random_state=rng)


def gaussian_missing_sqrt_p(rows, rng):
    return GAUSSIAN_MISSING_SQRT_P.sample(rows.mean(axis=0), random_state=rng)


def laplace_missing_p(rows, rng):
    return LAPLACE_MISSING_P.sample(rows.mean(axis=0), random_state=rng)


def run_trials(release, seed):
    """Independent trials: fresh data, release, reference rows and candidates.

    Each trial attacks one member (row 0 of the dataset) and one fresh
    non-member, so the member decisions are i.i.d. across trials, and so are
    the non-member decisions: Clopper–Pearson applies to both counts.
    """
    bias_rng, *trial_rngs = spawn_rngs(seed, N_TRIALS + 1)
    thresholds = _plus_thresholds(bias_rng, P)
    tp = fp = 0
    for rng in trial_rngs:
        data_rng, release_rng = rng.spawn(2)
        rows = _rows(data_rng, thresholds, N_ROWS + 1 + N_MEAN + N_CALIBRATION)
        members, outsider = rows[:N_ROWS], rows[N_ROWS : N_ROWS + 1]
        reference = rows[N_ROWS + 1 :]
        answers = release(members, release_rng)
        attack = TracingAttack(false_positive_rate=FPR, n_calibration=N_CALIBRATION)
        attack.fit(answers, reference)
        assert attack.false_positive_rate_bound_ == FPR
        tp += int(attack.predict(members[:1])[0])
        fp += int(attack.predict(outsider)[0])
    return tp, fp


def dp_bound_violated(tp, fp, epsilon, delta):
    """Is there evidence at level ALPHA that TPR > e^ε FPR + δ?

    Every (ε, δ)-DP release obeys this for every test (a member's row and a
    fresh row are neighbours), and the calibration makes FPR <= 0.05 exactly.
    """
    tpr_low, _ = clopper_pearson(tp, N_TRIALS, alpha=ALPHA)
    return tpr_low > math.exp(epsilon) * FPR + delta


@pytest.mark.statistical
def test_exact_release_from_too_few_rows_is_traced():
    tp, fp = run_trials(exact_release, seed=10)
    tpr_low, _ = clopper_pearson(tp, N_TRIALS, alpha=ALPHA)
    fpr_low, _ = clopper_pearson(fp, N_TRIALS, alpha=ALPHA)
    assert tpr_low > 0.9, (tp, fp)
    assert fpr_low <= FPR, (tp, fp)  # calibration keeps FPR <= 0.05
    # A release this accurate from 50 rows is far from (0.5, 1e-6)-DP.
    assert dp_bound_violated(tp, fp, EPSILON, DELTA)


@pytest.mark.statistical
@pytest.mark.parametrize(
    ("release", "delta"), [(gaussian_release, DELTA), (laplace_release, 0.0)]
)
def test_dp_release_is_at_chance(release, delta):
    tp, fp = run_trials(release, seed=11)
    # Noisy answers give continuous scores: the false positive rate is 0.05
    # exactly, and the true positive rate cannot be told apart from it.
    assert clopper_pearson(fp, N_TRIALS, alpha=ALPHA)[0] <= FPR
    assert FPR <= clopper_pearson(fp, N_TRIALS, alpha=ALPHA)[1]
    tpr_low, tpr_high = clopper_pearson(tp, N_TRIALS, alpha=ALPHA)
    assert tpr_low <= FPR <= tpr_high, (tp, fp)
    assert not dp_bound_violated(tp, fp, EPSILON, delta)


@pytest.mark.statistical
@pytest.mark.parametrize(
    ("mutant", "delta"),
    [(gaussian_missing_sqrt_p, DELTA), (laplace_missing_p, 0.0)],
)
def test_attack_catches_releases_with_too_little_noise(mutant, delta):
    tp, fp = run_trials(mutant, seed=12)
    assert dp_bound_violated(tp, fp, EPSILON, delta), (tp, fp)
