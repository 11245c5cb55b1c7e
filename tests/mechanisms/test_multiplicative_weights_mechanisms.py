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
    assert proj[0] == pytest.approx(0.5 * np.exp(-500.0), rel=1e-9)


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
