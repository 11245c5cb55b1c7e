"""SemiPrivateLogisticRegression(solver="sgd"): accounting, the releases, bins."""

import math

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from sklearn_semiprivate import PrivacyCost, PublicData, SemiPrivateLogisticRegression
from sklearn_semiprivate.accounting._reservation import fit_cost
from sklearn_semiprivate.classifiers import _logistic as _logistic_est
from sklearn_semiprivate.classifiers import _logistic_sgd
from sklearn_semiprivate.classifiers._logistic_sgd import (
    SGD_SETTINGS,
    auto_n_bins_sgd,
    sgd_release_privacy,
    sgd_scales,
)
from sklearn_semiprivate.classifiers._sgd_steps import clipped_gradient_sum, sgd_noise


def make_data(n=3000, n_pub=120, seed=0, n_features=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    X_pub = rng.normal(size=(n_pub, n_features))
    X_test = rng.normal(size=(2000, n_features))
    return X, y, X_pub, X_test, (X_test[:, 0] - X_test[:, 1] > 0).astype(int)


def test_clipped_terms_stay_within_the_bound_in_floating_point():
    # A review: a clipped term's norm, computed in float64, reached
    # C (1 + 3.6e-16) on random rows, above the sensitivity C the noise is
    # calibrated to. Measured in extended precision, row by row.
    rng = np.random.default_rng(0)
    worst = -np.inf
    for _ in range(100):
        m, p, k = 64, int(rng.integers(2, 8)), int(rng.integers(1, 4))
        X = rng.normal(size=(m, p)) * rng.uniform(0.1, 10)
        A = rng.normal(size=(m, k)) * rng.uniform(0.1, 10)
        for clip in (1.0, 0.3, 7.0):
            for i in range(m):
                g = clipped_gradient_sum(X[i : i + 1], A[i : i + 1], clip)
                g = g.astype(np.longdouble)
                worst = max(worst, float(np.sqrt((g * g).sum()) / clip - 1))
    assert worst <= 0.0


def test_sgd_is_the_default_solver():
    assert SemiPrivateLogisticRegression().solver == "sgd"


@pytest.mark.parametrize(("epsilon", "delta"), [(0.1, 1e-5), (1.0, 1e-5), (3.0, 1e-7)])
def test_scales_meet_the_target_exactly(epsilon, delta):
    scales = sgd_scales(epsilon, delta)
    cost = sgd_release_privacy(scales, delta)
    # Calibrated by bisection: at most the target, and tight.
    assert cost.epsilon <= epsilon
    assert cost.epsilon > epsilon * (1 - 1e-4)
    n_steps = math.ceil(SGD_SETTINGS["n_epochs"] / SGD_SETTINGS["sampling_rate"])
    z, count_sigma = sgd_noise(epsilon, delta, SGD_SETTINGS["sampling_rate"], n_steps)
    assert scales == {"counts": count_sigma, "gradient": z, "noise_multiplier": z}


@pytest.mark.parametrize("mutant", ["counts_tenth", "steps_for_4eps"])
def test_accounting_mutants_overspend(mutant):
    honest = sgd_scales(1.0, 1e-5)
    scales = dict(honest)
    if mutant == "counts_tenth":
        scales["counts"] = honest["counts"] / 10
    else:
        z = sgd_scales(4.0, 1e-5)["noise_multiplier"]
        scales["noise_multiplier"] = scales["gradient"] = z
    assert sgd_release_privacy(scales, 1e-5).epsilon > 1.0


def test_fit_spends_what_it_states():
    X, y, X_pub, _, _ = make_data(n=400, n_pub=40)
    clf = SemiPrivateLogisticRegression(epsilon=2.0, delta=1e-6, classes=[0, 1])
    clf.fit(X, y, X_public=PublicData(X_pub))
    assert clf.privacy_spent_ == PrivacyCost(2.0, 1e-6)
    assert fit_cost(clf, X_public=PublicData(X_pub)) == clf.privacy_spent_
    assert clf.noise_scales_ == sgd_scales(2.0, 1e-6)
    # Replace-one: group privacy of the add/remove guarantee, (2e, (1+e^e) d).
    check = sgd_release_privacy(clf.noise_scales_, 1e-6)
    assert clf.replace_one_privacy_ == PrivacyCost(
        2 * check.epsilon, (1 + math.exp(check.epsilon)) * check.delta
    )


def test_fit_releases_exactly_the_calibrated_mechanisms(monkeypatch):
    # The counts get the count noise; the steps get the multiplier z, clip
    # norm 1, the released count, rows with ||phi||^2 <= 2 and a constant.
    seen = {}
    real_counts, real_sgd = _logistic_est.noisy_counts, _logistic_sgd.private_sgd

    def counts(Y, sigma, rng):
        seen["count_sigma"] = sigma
        out = real_counts(Y, sigma, rng)
        seen["counts"] = out
        return out

    def steps(Xt, codes, W0, **kw):
        seen["Xt"], seen["kw"] = Xt, kw
        return real_sgd(Xt, codes, W0, **kw)

    monkeypatch.setattr(_logistic_est, "noisy_counts", counts)
    monkeypatch.setattr(_logistic_sgd, "private_sgd", steps)
    X, y, X_pub, _, _ = make_data(n=500, n_pub=60)
    clf = SemiPrivateLogisticRegression(epsilon=0.7, n_bins=8, classes=[0, 1])
    clf.fit(X, y, X_public=PublicData(X_pub))
    scales = sgd_scales(0.7, 1e-5)
    assert seen["count_sigma"] == scales["counts"]
    kw = seen["kw"]
    assert kw["noise_multiplier"] == scales["noise_multiplier"]
    assert kw["clip_norm"] == 1.0
    assert kw["sampling_rate"] == SGD_SETTINGS["sampling_rate"]
    assert kw["n_rows"] == pytest.approx(seen["counts"].sum())
    assert kw["public"] is None  # unlabeled public rows: no public gradient
    Xt = seen["Xt"]
    assert np.einsum("ij,ij->i", Xt, Xt).max() <= 2.0
    assert np.all(Xt[:, -1] == 1.0)
    # Two classes: the first column is zero, the second the logit.
    assert np.all(clf.weights_[:, 0] == 0.0)


def test_auto_bins_follow_the_released_counts(monkeypatch):
    # "auto" reads the released counts only (post-processing): forcing the
    # release forces the choice, whatever the private rows.
    z = sgd_scales(1.0, 1e-5)["noise_multiplier"]
    q = SGD_SETTINGS["sampling_rate"]
    for total, expected in [(26.0 * z / q, 8), (24.0 * z / q, 0)]:
        monkeypatch.setattr(
            _logistic_est,
            "noisy_counts",
            lambda Y, s, rng, total=total: np.array([total / 2, total / 2]),
        )
        X, y, X_pub, _, _ = make_data(n=300, n_pub=60)
        clf = SemiPrivateLogisticRegression(classes=[0, 1])
        clf.fit(X, y, X_public=PublicData(X_pub))
        assert clf.n_bins_ == expected == auto_n_bins_sgd(total, z)
        assert bool(clf._fmap.binned) == (expected > 0)


def test_public_labels_enter_every_step(monkeypatch):
    seen = {}
    real_sgd = _logistic_sgd.private_sgd

    def steps(Xt, codes, W0, **kw):
        seen["public"] = kw["public"]
        return real_sgd(Xt, codes, W0, **kw)

    monkeypatch.setattr(_logistic_sgd, "private_sgd", steps)
    X, y, X_pub, _, _ = make_data(n=300, n_pub=50)
    y_pub = (X_pub[:, 0] - X_pub[:, 1] > 0).astype(int)
    clf = SemiPrivateLogisticRegression(epsilon=1.0)
    clf.fit(X, y, X_public=PublicData(X_pub, y_pub))
    P_pub, codes_pub = seen["public"]
    assert np.array_equal(P_pub, clf._fmap.transform(X_pub))
    assert np.array_equal(codes_pub, y_pub)


def test_three_classes():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6000, 2))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    clf = SemiPrivateLogisticRegression(epsilon=1.0, classes=[0, 1, 2])
    clf.fit(X, y, X_public=PublicData(rng.normal(size=(200, 2))))
    assert clf.weights_.shape[1] == 3
    X_test = rng.normal(size=(2000, 2))
    assert clf.score(X_test, np.digitize(X_test[:, 0], [-0.5, 0.5])) > 0.85


def test_matches_logistic_regression_when_noise_is_negligible():
    X, y, X_pub, X_test, _ = make_data(n=3000, n_pub=200)
    clf = SemiPrivateLogisticRegression(epsilon=1e6, n_bins=0, classes=[0, 1])
    clf.fit(X, y, X_public=PublicData(X_pub))
    ref = LogisticRegression().fit(X, y)
    assert np.mean(clf.predict(X_test) == ref.predict(X_test)) > 0.98
    # A vacuous replace-one delta is capped at 1 rather than overflowing.
    assert clf.replace_one_privacy_.delta == 1.0
