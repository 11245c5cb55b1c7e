"""Multiplicative-weights update and the κ-dense projection."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest

from sklearn_semiprivate.mechanisms import (
    multiplicative_weights_update,
    project_kappa_dense,
)


def test_update_matches_definition():
    w = np.array([0.5, 1.0, 0.25])
    losses = np.array([1.0, -0.5, 0.0])
    out = multiplicative_weights_update(w, losses, 0.3)
    np.testing.assert_allclose(out, w * np.exp(-0.3 * losses), rtol=1e-15)
    log_out = multiplicative_weights_update(np.log(w), losses, 0.3, log_weights=True)
    np.testing.assert_allclose(np.exp(log_out), out, rtol=1e-15)
    norm = multiplicative_weights_update(w, losses, 0.3, normalize=True)
    np.testing.assert_allclose(norm, out / out.sum(), rtol=1e-15)


def test_long_runs_in_log_space_do_not_underflow():
    lw = np.zeros(3)
    losses = np.array([1.0, 0.0, 0.5])
    for _ in range(1000):
        lw = multiplicative_weights_update(lw, losses, 1.0, log_weights=True)
    assert np.all(np.isfinite(lw))
    assert lw[0] == pytest.approx(-1000.0)
    assert np.exp(lw)[0] == 0.0  # as plain weights, the first one is lost
    # The projection from log weights keeps it: top capped at 1, the others share
    # 1.5 - 1 = 0.5 in proportion e^-1000 : e^-500, i.e. ≈ 0.5 e^-500 and 0.5.
    proj = project_kappa_dense(lw, 0.5, log_weights=True)
    assert proj.sum() == pytest.approx(1.5, rel=1e-12)
    assert proj[1] == 1.0
    # abs=0: pytest's default absolute 1e-12 would accept 0.0 here.
    assert proj[0] == pytest.approx(0.5 * np.exp(-500.0), rel=1e-9, abs=0)


def _project_by_bisection(w, kappa, iters=200):
    # Reference: bisection on c for sum(min(c w, 1)) = κ n.
    lo, hi = 0.0, 1.0 / w.min()
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        if np.minimum(mid * w, 1.0).sum() < kappa * w.size:
            lo = mid
        else:
            hi = mid
    return np.minimum(hi * w, 1.0)


@pytest.mark.parametrize("kappa", [0.05, 0.3, 0.5, 0.9, 1.0])
def test_projection_matches_bisection(kappa):
    rng = np.random.default_rng(int(kappa * 100))
    w = rng.random(200) ** 4 + 1e-6
    got = project_kappa_dense(w, kappa)
    np.testing.assert_allclose(got, _project_by_bisection(w, kappa), rtol=1e-10)
    assert got.sum() == pytest.approx(kappa * w.size, rel=1e-12)
    assert got.max() <= 1.0
    assert kappa * got.max() <= got.mean() * (1 + 1e-12)


def test_projection_hand_example():
    # Cap the first weight; the other three share 2 - 1 = 1 equally.
    np.testing.assert_allclose(
        project_kappa_dense([1.0, 0.1, 0.1, 0.1], 0.5), [1.0, 1 / 3, 1 / 3, 1 / 3]
    )
    # Already dense: a pure rescaling (c < 1 is allowed).
    np.testing.assert_allclose(project_kappa_dense([0.9, 0.9], 0.5), [0.5, 0.5])
    # κ = 1: everything capped.
    np.testing.assert_allclose(project_kappa_dense([0.2, 0.7, 1.0], 1.0), 1.0)


def test_projection_is_scale_invariant_and_order_preserving():
    w = np.array([0.3, 0.01, 0.6, 0.6, 0.2])
    a = project_kappa_dense(w, 0.4)
    np.testing.assert_allclose(project_kappa_dense(7.5 * w, 0.4), a, rtol=1e-14)
    np.testing.assert_allclose(
        project_kappa_dense(np.log(w), 0.4, log_weights=True), a, rtol=1e-14
    )
    order = np.argsort(w)
    assert np.all(np.diff(a[order]) >= 0)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="kappa"):
        project_kappa_dense([0.5], 0.0)
    with pytest.raises(ValueError, match="kappa"):
        project_kappa_dense([0.5], 1.5)
    with pytest.raises(ValueError, match="weights"):
        project_kappa_dense([0.5, 0.0], 0.5)
    with pytest.raises(ValueError, match="weights"):
        project_kappa_dense([0.5, np.nan], 0.5)
    with pytest.raises(ValueError, match="weights"):
        project_kappa_dense([0.0, -np.inf], 0.5, log_weights=True)
    with pytest.raises(ValueError, match="weights"):
        project_kappa_dense([], 0.5)
    with pytest.raises(ValueError, match="eta"):
        multiplicative_weights_update([1.0], [0.0], 0.0)
    with pytest.raises(ValueError, match="losses"):
        multiplicative_weights_update([1.0, 1.0], [0.0], 1.0)
    with pytest.raises(ValueError, match="losses"):
        multiplicative_weights_update([1.0], [np.inf], 1.0)
    with pytest.raises(ValueError, match="weights_or_log_weights"):
        multiplicative_weights_update([-1.0], [0.0], 1.0)


# --- extreme updates (issue 9): never overflow, never NaN, never all zero --------


def _check_log_distribution(lw):
    assert not np.isnan(lw).any() and not np.isposinf(lw).any()
    w = np.exp(lw)
    assert w.max() > 0
    assert w.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("eta", [1e-300, 1e-8, 1.0, 1e8, 1e300])
@pytest.mark.parametrize("scale", [1.0, 1e8, 1e300, 1.7e308])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_normalized_update_with_extreme_steps_is_a_distribution(eta, scale, sign):
    lw = np.log([0.1, 0.2, 0.3, 0.4])
    losses = sign * scale * np.array([0.0, 0.0, 1.0, 1.0])
    with np.errstate(all="raise"):
        out = multiplicative_weights_update(
            lw, losses, eta, log_weights=True, normalize=True
        )
    _check_log_distribution(out)
    # Exact: the mass on the points of loss 0 is 1 / (1 + 7/3 exp(-eta * loss)).
    step = eta * sign * scale  # a Python float: inf on overflow
    with np.errstate(over="ignore", under="ignore"):
        low = np.exp(-np.logaddexp(0.0, np.log(7 / 3) - step))
        high = np.exp(-np.logaddexp(0.0, np.log(3 / 7) + step))
    expected = np.array(
        [0.1 / 0.3 * low, 0.2 / 0.3 * low, 0.3 / 0.7 * high, 0.4 / 0.7 * high]
    )
    np.testing.assert_allclose(np.exp(out), expected, rtol=1e-12, atol=1e-300)


def test_huge_steps_keep_the_proportions_of_the_winners():
    w = np.array([0.1, 0.2, 0.3, 0.4])
    with np.errstate(all="raise"):
        out = multiplicative_weights_update(
            w, [1e300, 0.0, 1e300, 0.0], 1e300, normalize=True
        )
    np.testing.assert_allclose(out, [0.0, 1 / 3, 0.0, 2 / 3], rtol=1e-15)
    assert out[0] == 0.0 and out[2] == 0.0


def test_a_common_offset_of_the_losses_cancels_exactly():
    # 2^40 + k is exact; added to log weights of size 1 it would round them by
    # 2^-13. Normalised, the offset must not matter.
    lw = np.log([0.1, 0.2, 0.3, 0.4])
    losses = np.array([0.0, 1.0, 2.0, 3.0])
    plain = multiplicative_weights_update(
        lw, losses, 0.5, log_weights=True, normalize=True
    )
    for offset in (2.0**40, -(2.0**40), 1e300):
        shifted = multiplicative_weights_update(
            lw, losses + offset, 0.5, log_weights=True, normalize=True
        )
        if offset == 1e300:  # 1e300 + k == 1e300: all losses equal
            np.testing.assert_allclose(shifted, lw, rtol=1e-14)
        else:
            np.testing.assert_allclose(shifted, plain, rtol=1e-14)


def test_large_log_weights_normalise_to_a_distribution():
    # Two equal log weights of 1e300: logsumexp rounds away log 2 unless the
    # largest is subtracted first.
    out = multiplicative_weights_update(
        [1e300, 1e300], [0.0, 0.0], 1.0, log_weights=True, normalize=True
    )
    np.testing.assert_allclose(np.exp(out), [0.5, 0.5], rtol=1e-15)


def test_one_point():
    for loss in (-1.7e308, -1.0, 0.0, 1.0, 1.7e308):
        for eta in (1e-300, 1.0, 1e300):
            with np.errstate(all="raise"):
                out = multiplicative_weights_update([3.0], [loss], eta, normalize=True)
            assert out.tolist() == [1.0]


def test_zero_weights_stay_zero():
    w = [0.0, 0.5, 0.0, 0.5]
    with np.errstate(all="raise"):
        out = multiplicative_weights_update(w, [-1e300, 1.0, -1e300, 0.0], 1e300)
        assert out[0] == 0.0 and out[2] == 0.0
        norm = multiplicative_weights_update(
            w, [-1e300, 1.0, -1e300, 0.0], 1e300, normalize=True
        )
        np.testing.assert_array_equal(norm, [0.0, 0.0, 0.0, 1.0])
        lw = multiplicative_weights_update(
            np.array([-np.inf, 0.0, 0.0, 0.0]),
            [-5.0, 0.0, 1.0, 2.0],
            1.0,
            log_weights=True,
            normalize=True,
        )
    assert lw[0] == -np.inf
    np.testing.assert_allclose(
        np.exp(lw[1:]), np.exp([0, -1, -2]) / np.exp([0, -1, -2]).sum()
    )


def test_tiny_eta_changes_nothing_visible():
    w = np.array([0.25, 0.75])
    with np.errstate(all="raise"):
        out = multiplicative_weights_update(w, [1.0, -1.0], 1e-300, normalize=True)
    np.testing.assert_array_equal(out, w)


def test_unnormalized_overflow_raises_instead_of_inf():
    with pytest.raises(ValueError, match="normalize=True"):
        multiplicative_weights_update(
            [1.0, 1.0], [-1e300, 0.0], 1e300, log_weights=True
        )
    with pytest.raises(ValueError, match="normalize=True"):
        multiplicative_weights_update([1.0, 1.0], [-1e3, 0.0], 1.0)


def test_zero_weights_need_a_positive_one():
    with pytest.raises(ValueError, match="weights_or_log_weights"):
        multiplicative_weights_update([0.0, 0.0], [0.0, 1.0], 1.0)
    with pytest.raises(ValueError, match="weights_or_log_weights"):
        multiplicative_weights_update(
            [-np.inf, -np.inf], [0.0, 1.0], 1.0, log_weights=True
        )
    with pytest.raises(ValueError, match="weights_or_log_weights"):
        multiplicative_weights_update([np.inf, 0.0], [0.0, 1.0], 1.0, log_weights=True)
