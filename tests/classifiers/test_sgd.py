"""PrivateSGDClassifier: accounting, privacy audits and mutants, bad input, use."""

import itertools
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_semiprivate import (
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyCost,
    PrivacyLeakWarning,
    PrivateSGDClassifier,
    PublicData,
    PublicDataWarning,
    PublicFittedPipeline,
    reproducible_noise,
)
from sklearn_semiprivate.accounting import (
    INTEGER_RDP_ORDERS,
    gaussian_rdp,
    rdp_to_dp,
    subsampled_gaussian_rdp,
)
from sklearn_semiprivate.audit import audit_epsilon
from sklearn_semiprivate.classifiers import _sgd, _sgd_steps
from sklearn_semiprivate.classifiers._sgd_steps import (
    clipped_gradient_sum,
    loss_coefficients,
    sgd_noise,
)


def make_data(n=2000, n_pub=100, n_features=3, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=2.0, size=(n_classes, n_features))
    y = rng.integers(n_classes, size=n + n_pub + 1000)
    X = centers[y] + rng.normal(size=(y.size, n_features))
    return (
        X[:n],
        y[:n],
        X[n : n + n_pub],
        y[n : n + n_pub],
        X[n + n_pub :],
        y[n + n_pub :],
    )


# --------------------------------------------------------------------------
# Accounting


def composed_epsilon(z, count_sigma, q, steps, delta):
    """The fit's (epsilon, delta), recomputed here from the public functions."""
    orders = INTEGER_RDP_ORDERS
    curve = steps * subsampled_gaussian_rdp(q, z, orders=orders)
    curve = curve + gaussian_rdp(count_sigma, orders=orders)
    return rdp_to_dp(curve, delta, orders=orders).epsilon


@pytest.mark.parametrize(
    "epsilon, delta, q, epochs",
    [(1.0, 1e-5, 0.01, 5.0), (0.3, 1e-6, 0.05, 2.0), (4.0, 1e-3, 1.0, 3.0)],
)
def test_privacy_spent_is_the_calibrated_cost(epsilon, delta, q, epochs):
    X, y, X_pub, _, _, _ = make_data(n=300)
    clf = PrivateSGDClassifier(
        epsilon=epsilon, delta=delta, sampling_rate=q, n_epochs=epochs, classes=[0, 1]
    ).fit(X, y, X_public=PublicData(X_pub))
    assert clf.privacy_spent_ == PrivacyCost(epsilon, delta)
    # Replace-one by group privacy of two add/remove steps (docs/privacy.rst
    # sizes a replace-one budget with it).
    assert clf.replace_one_privacy_ == PrivacyCost(
        2 * epsilon, (1 + np.exp(epsilon)) * delta
    )
    assert clf.n_steps_ == round(epochs / q)
    z, s = clf.noise_multiplier_, clf.count_noise_
    assert (z, s) == sgd_noise(epsilon, delta, q, clf.n_steps_)
    # The calibration round-trips: the composed curve converts to epsilon
    # (not above it), and any less noise would exceed it.
    spent = composed_epsilon(z, s, q, clf.n_steps_, delta)
    assert spent <= epsilon
    assert spent == pytest.approx(epsilon, rel=1e-6)
    ratio = s / z
    assert (
        composed_epsilon(z * (1 - 1e-8), ratio * z * (1 - 1e-8), q, clf.n_steps_, delta)
        > epsilon
    )
    assert clf.privacy_check().epsilon == pytest.approx(spent, rel=1e-12)


def test_noise_of_every_release_is_as_stated(record_normal_draws):
    """Instrument the noise generator: the count's scale, then z * C per step."""
    clf, calls = spy_noise_scales(record_normal_draws, clip_norm=3.0)
    assert calls[0] == (clf.count_noise_, None)
    steps = calls[1:]
    assert len(steps) == clf.n_steps_
    assert all(sd == clf.noise_multiplier_ * 3.0 for sd, _ in steps)


def test_noise_not_scaled_by_the_clip_norm_is_caught(monkeypatch, record_normal_draws):
    monkeypatch.setattr(_sgd_steps, "gradient_noise_std", lambda z, clip: z)
    clf, calls = spy_noise_scales(record_normal_draws, clip_norm=3.0)
    assert not all(sd == clf.noise_multiplier_ * 3.0 for sd, _ in calls[1:])


def spy_noise_scales(record_normal_draws, clip_norm):
    calls = record_normal_draws(_sgd)
    X, y, X_pub, _, _, _ = make_data(n=300)
    clf = PrivateSGDClassifier(
        sampling_rate=0.1, n_epochs=1.0, clip_norm=clip_norm, classes=[0, 1]
    ).fit(X, y, X_public=PublicData(X_pub))
    return clf, calls


@pytest.mark.parametrize("loss", ["log_loss", "hinge"])
@pytest.mark.parametrize("n_classes", [2, 4])
def test_every_clipped_gradient_is_within_the_clip_norm(loss, n_classes):
    rng = np.random.default_rng(1)
    Xt = rng.normal(scale=5.0, size=(50, 4))
    n_out = 1 if n_classes == 2 else n_classes
    W = rng.normal(scale=3.0, size=(4, n_out))
    codes = rng.integers(n_classes, size=50)
    A = loss_coefficients(Xt @ W, codes, loss, n_classes)
    for i in range(50):  # one example at a time: its own contribution
        g = clipped_gradient_sum(Xt[i : i + 1], A[i : i + 1], 0.5)
        assert np.linalg.norm(g) <= 0.5 * (1 + 1e-12)
        # and it is the example's gradient, scaled
        full = np.outer(Xt[i], A[i])
        if not np.any(full):
            assert not np.any(g)
            continue
        cos = np.sum(g * full) / (np.linalg.norm(g) * np.linalg.norm(full))
        assert cos == pytest.approx(1.0)


def test_scaled_rows_are_in_the_unit_ball_whatever_the_input():
    from sklearn_semiprivate.classifiers._sgd_steps import PublicScaling

    scaling = PublicScaling.from_bounds(np.array([[-1.0, 1.0], [0.0, 2.0]]), True)
    X = np.array([[1e308, -1e308], [0.0, 1.0], [5.0, 5.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Xt = scaling.transform(X)
    assert np.all(np.isfinite(Xt))
    assert np.all(np.einsum("ij,ij->i", Xt[:, :2], Xt[:, :2]) <= 1 + 1e-12)
    assert np.all(Xt[:, 2] == 1.0)


# --------------------------------------------------------------------------
# Statistical epsilon lower bounds on a tiny instance, and mutants.
#
# D: 1000 rows (x=0.5, y=1) and 1000 rows (x=0.5, y=0), whose hinge gradients
# at W=0 cancel; D' adds (x=1, y=1), with gradient -[1, 1] (norm sqrt(2)).
# One full-batch step (q=1), so the fitted W is -(S + noise) / n_hat: its
# projection on [1, 1] / sqrt(2), in units of the stated noise z C, is
# N(0, 1) under D and shifted by min(sqrt 2, C) / (z C) under D'.
AUDIT_C = 0.25
AUDIT_TRIALS = 3000
_X = np.full((2000, 1), 0.5)
_Y = np.r_[np.ones(1000), np.zeros(1000)].astype(int)
AUDIT_D = (_X, _Y)
AUDIT_D_NEIGHBOUR = (np.r_[_X, [[1.0]]], np.r_[_Y, [1]])


def audit_run_factory():
    seeds = itertools.count()

    def run(data):
        X, y = data
        clf = PrivateSGDClassifier(
            loss="hinge",
            epsilon=1.0,
            sampling_rate=1.0,
            n_epochs=1.0,
            learning_rate=1.0,
            clip_norm=AUDIT_C,
            radius=1e6,
            bounds=(-1.0, 1.0),
            classes=[0, 1],
            random_state=next(seeds),  # per-trial noise seed (see below)
        ).fit(X, y)
        w = np.r_[clf.coef_.ravel(), clf.intercept_]
        return float(w.sum() / np.sqrt(2) * 2000 / (clf.noise_multiplier_ * AUDIT_C))

    return run


def far_left(stat):
    return stat <= -2.0


def run_audit(n_trials=AUDIT_TRIALS):
    # reproducible_noise with a fresh seed per trial: independent trials, and
    # a deterministic test.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with reproducible_noise():
            return audit_epsilon(
                audit_run_factory(),
                AUDIT_D,
                AUDIT_D_NEIGHBOUR,
                far_left,
                n_trials=n_trials,
                alpha=0.05,
                delta=1e-5,
            )


@pytest.mark.statistical
def test_audit_stays_below_the_claimed_epsilon():
    bound = run_audit()
    assert bound.epsilon <= 1.0


@pytest.mark.statistical
def test_audit_catches_missing_clipping(monkeypatch):
    monkeypatch.setattr(
        _sgd_steps, "clipped_gradient_sum", lambda Xt, A, clip_norm: Xt.T @ A
    )
    assert run_audit().epsilon > 1.0


@pytest.mark.statistical
def test_audit_catches_an_epsilon_four_times_too_big(monkeypatch):
    # 6000 trials: at 3000 this bound exceeds 1 with probability 0.76 only
    # (an audit-tool review computed it exactly from the statistic's normal
    # model: /tmp/s14/audit/exp5_sgd_power.py), so the test passed by its
    # seed; at 6000, 0.994. Twice too big stays out of any audit's reach at
    # this size (0.01): the calibration test below catches it.
    real = _sgd.sgd_noise
    monkeypatch.setattr(
        _sgd, "sgd_noise", lambda eps, delta, q, steps: real(4 * eps, delta, q, steps)
    )
    assert run_audit(n_trials=6000).epsilon > 1.0


def test_calibration_catches_an_epsilon_twice_too_big(monkeypatch):
    real = _sgd.sgd_noise
    monkeypatch.setattr(
        _sgd, "sgd_noise", lambda eps, delta, q, steps: real(2 * eps, delta, q, steps)
    )
    X, y, X_pub, _, _, _ = make_data(n=300)
    clf = PrivateSGDClassifier(epsilon=1.0, classes=[0, 1]).fit(
        X, y, X_public=PublicData(X_pub)
    )
    assert clf.privacy_spent_ == PrivacyCost(1.0, 1e-5)  # what it claims
    spent = composed_epsilon(
        clf.noise_multiplier_, clf.count_noise_, clf.sampling_rate, clf.n_steps_, 1e-5
    )
    assert spent > 1.5  # what its noise gives


# --------------------------------------------------------------------------
# The ledger


def test_accountant_charged_once_per_fit_and_shared_by_clones():
    X, y, X_pub, _, _, _ = make_data(n=300)
    acc = PrivacyAccountant(epsilon=3.0, delta=1e-4)
    clf = PrivateSGDClassifier(classes=[0, 1], accountant=acc)
    clf.fit(X, y, X_public=PublicData(X_pub))
    clone(clf).fit(X, y, X_public=PublicData(X_pub))
    assert acc.spent() == PrivacyCost(pytest.approx(2.0), pytest.approx(2e-5))
    clf.fit(X, y, X_public=PublicData(X_pub))
    with pytest.raises(PrivacyBudgetError):
        clf.fit(X, y, X_public=PublicData(X_pub))
    assert len(acc.history) == 3


def test_refused_fit_reads_no_private_row(monkeypatch):
    X, y, X_pub, _, _, _ = make_data(n=300)
    called = []
    monkeypatch.setattr(_sgd, "private_sgd", lambda *a, **k: called.append(1))
    monkeypatch.setattr(_sgd, "noise_rng", lambda *a: called.append(1))
    acc = PrivacyAccountant(epsilon=0.5)
    clf = PrivateSGDClassifier(classes=[0, 1], accountant=acc)
    with pytest.raises(PrivacyBudgetError):
        clf.fit(X, y, X_public=PublicData(X_pub))
    assert called == [] and acc.history == []


def test_fit_failing_after_the_reservation_stays_charged():
    X, y, X_pub, _, _, _ = make_data(n=300)
    y = y.copy()
    y[0] = 2  # outside classes: asked after the charge
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = PrivateSGDClassifier(classes=[0, 1], accountant=acc)
    with pytest.raises(ValueError, match="some labels"):
        clf.fit(X, y, X_public=PublicData(X_pub))
    assert acc.spent() == PrivacyCost(1.0, 1e-5)


# --------------------------------------------------------------------------
# Bad input: refused before the charge, before any private read


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda X, y, P: (np.where(X > 2, np.nan, X), y, PublicData(P)), "NaN"),
        (lambda X, y, P: (np.where(X > 2, np.inf, X), y, PublicData(P)), "infinity"),
        (lambda X, y, P: (X, y, PublicData(P[:, :2])), "features"),
        (lambda X, y, P: (X, y, PublicData(P[:0])), "empty"),
        (lambda X, y, P: (X, y, PublicData(P, np.full(P.shape[0], 7))), "not in"),
        (lambda X, y, P: (X, y, PublicData(np.where(P > 2, np.nan, P))), "NaN"),
        (lambda X, y, P: (X[:, 0], y, PublicData(P)), "2D"),
    ],
)
def test_bad_data_refused_before_the_charge(change, match, monkeypatch):
    X, y, X_pub, _, _, _ = make_data(n=200)
    monkeypatch.setattr(_sgd, "private_sgd", pytest.fail)
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    X, y, pub = change(X, y, X_pub)
    clf = PrivateSGDClassifier(classes=[0, 1], accountant=acc)
    with pytest.raises(ValueError, match=match):
        clf.fit(X, y, X_public=pub)
    assert acc.history == []


@pytest.mark.parametrize(
    "params",
    [
        {"epsilon": 0.0},
        {"epsilon": -1.0},
        {"delta": 0.0},
        {"delta": 1.0},
        {"delta": 1.5},
        {"sampling_rate": 0.0},
        {"sampling_rate": 1.5},
        {"n_epochs": 0},
        # Found in review: no step, or infinitely many, raised a bare
        # ZeroDivisionError / OverflowError.
        {"n_epochs": 1e-12, "sampling_rate": 1.0},
        {"n_epochs": 1e-10, "sampling_rate": 0.5},
        {"sampling_rate": 1e-320},
        {"clip_norm": 0.0},
        {"radius": -1.0},
        {"learning_rate": "fast"},
        {"loss": "squared_error"},
        {"n_public": 500},
        {"bounds": [1.0, 0.0]},
    ],
)
def test_bad_parameters_refused_before_the_charge(params, monkeypatch):
    X, y, X_pub, _, _, _ = make_data(n=200)
    monkeypatch.setattr(_sgd, "private_sgd", pytest.fail)
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = PrivateSGDClassifier(classes=[0, 1], accountant=acc, **params)
    pub = None if "bounds" in params else PublicData(X_pub)
    with pytest.raises(ValueError):
        clf.fit(X, y, X_public=pub)
    assert acc.history == []


def test_bad_types_are_type_errors():
    X, y, X_pub, _, _, _ = make_data(n=200)
    with pytest.raises(TypeError):
        PrivateSGDClassifier(epsilon="one", classes=[0, 1]).fit(
            X, y, X_public=PublicData(X_pub)
        )


# --------------------------------------------------------------------------
# What it learns


@pytest.mark.parametrize("loss", ["log_loss", "hinge"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_learns_binary_and_multiclass(loss, n_classes):
    X, y, X_pub, _, X_test, y_test = make_data(n=5000, n_classes=n_classes)
    clf = PrivateSGDClassifier(loss=loss, classes=np.arange(n_classes))
    clf.fit(X, y, X_public=PublicData(X_pub))
    ceiling = LogisticRegression().fit(X, y).score(X_test, y_test)
    assert clf.score(X_test, y_test) > ceiling - 0.08
    n_out = 1 if n_classes == 2 else n_classes
    assert clf.coef_.shape == (n_out, 3) and clf.intercept_.shape == (n_out,)
    scores = clf.decision_function(X_test)
    assert scores.shape == ((y_test.size,) if n_classes == 2 else (y_test.size, 3))
    assert hasattr(clf, "predict_proba") == (loss == "log_loss")
    if loss == "log_loss":
        proba = clf.predict_proba(X_test)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        np.testing.assert_array_equal(
            clf.classes_[proba.argmax(axis=1)], clf.predict(X_test)
        )


def test_string_labels_and_public_label_set():
    X, y, X_pub, y_pub, X_test, y_test = make_data(n=3000, n_classes=3)
    names = np.array(["a", "b", "c"])
    clf = PrivateSGDClassifier().fit(
        X, names[y], X_public=PublicData(X_pub, names[y_pub])
    )
    assert clf.classes_.tolist() == ["a", "b", "c"]
    assert clf.score(X_test, names[y_test]) > 0.7


def test_public_labels_give_the_start(monkeypatch):
    X, y, X_pub, y_pub, X_test, y_test = make_data(n=2000, n_pub=300, seed=3)
    starts = []
    real = _sgd.private_sgd

    def spy(Xt, codes, W0, **kwargs):
        starts.append(W0.copy())
        return real(Xt, codes, W0, **kwargs)

    monkeypatch.setattr(_sgd, "private_sgd", spy)
    clf = PrivateSGDClassifier(classes=[0, 1])
    clf.fit(X, y, X_public=PublicData(X_pub))
    clf.fit(X, y, X_public=PublicData(X_pub, y_pub))
    # A neighbour (one private row fewer): the start, released without noise,
    # must not move (a mutation review fitted it on the private rows and only
    # the accuracy check below ran).
    clf.fit(X[1:], y[1:], X_public=PublicData(X_pub, y_pub))
    unlabeled, labeled, neighbour = starts
    assert not np.any(unlabeled)
    np.testing.assert_array_equal(labeled, neighbour)
    # The start alone (non-private, public rows only) already classifies.
    Xt = clf._scaling.transform(X_test)
    assert np.mean((Xt @ labeled[:, 0] > 0) == y_test) > 0.9
    assert np.linalg.norm(labeled) <= clf.radius * (1 + 1e-12)


def test_steps_are_divided_by_the_released_count():
    # The expected batch size is q times the released (noisy) count, never the
    # exact number of rows (a mutation review used len(X): the output then
    # depends on n outside the accounting, and no test noticed). One full
    # batch, no noise: the step is -G / n_rows exactly.
    rng = np.random.default_rng(0)
    Xt = rng.normal(size=(10, 3)) / 3
    codes = rng.integers(2, size=10)
    W0 = np.zeros((3, 1))
    W = _sgd_steps.private_sgd(
        Xt, codes, W0, loss="log_loss", n_classes=2, sampling_rate=1.0,
        n_steps=1, clip_norm=1.0, noise_multiplier=0.0, n_rows=1000.0,
        learning_rate=1.0, radius=1e9, rng=np.random.default_rng(1),
    )  # fmt: skip
    G = clipped_gradient_sum(Xt, loss_coefficients(Xt @ W0, codes, "log_loss", 2), 1.0)
    np.testing.assert_allclose(W, -G / 1000.0)


def test_noise_is_fresh_unless_reproducible():
    X, y, X_pub, _, _, _ = make_data(n=500)
    clf = PrivateSGDClassifier(classes=[0, 1], random_state=0)
    a = clf.fit(X, y, X_public=PublicData(X_pub)).coef_.copy()
    b = clf.fit(X, y, X_public=PublicData(X_pub)).coef_.copy()
    assert not np.array_equal(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with reproducible_noise():
            a = clf.fit(X, y, X_public=PublicData(X_pub)).coef_.copy()
            b = clf.fit(X, y, X_public=PublicData(X_pub)).coef_.copy()
    np.testing.assert_array_equal(a, b)


def test_without_public_data_warns_and_bounds_silence_the_leak():
    X, y, _, _, _, _ = make_data(n=500)
    with pytest.warns(PublicDataWarning, match="No public data"):
        with pytest.warns(PrivacyLeakWarning, match="bounds"):
            PrivateSGDClassifier(classes=[0, 1]).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = PrivateSGDClassifier(classes=[0, 1], bounds=(-8, 8)).fit(X, y)
    np.testing.assert_array_equal(clf.center_, np.zeros(3))
    np.testing.assert_array_equal(clf.scale_, np.full(3, 8.0))


def test_fit_does_not_write_parameters():
    X, y, X_pub, _, _, _ = make_data(n=300)
    clf = PrivateSGDClassifier(classes=[0, 1])
    before = clf.get_params()
    clf.fit(X, y, X_public=PublicData(X_pub))
    assert clf.get_params() == before


def test_no_python_loop_over_rows(monkeypatch):
    """Per-step work is a few array operations on the batch."""
    X, y, X_pub, _, _, _ = make_data(n=20000)
    calls = []
    real = _sgd_steps.loss_coefficients
    monkeypatch.setattr(
        _sgd_steps,
        "loss_coefficients",
        lambda *a: calls.append(1) or real(*a),
    )
    clf = PrivateSGDClassifier(classes=[0, 1], n_epochs=1.0, sampling_rate=0.1)
    clf.fit(X, y, X_public=PublicData(X_pub))
    assert len(calls) == clf.n_steps_ == 10


# --------------------------------------------------------------------------
# Inside scikit-learn workflows


@pytest.mark.parametrize("routing", [False, True])
def test_public_fitted_pipeline_and_cross_validate(routing):
    X, y, X_pub, _, X_test, y_test = make_data(n=1500)
    ceiling = LogisticRegression().fit(X, y).score(X_test, y_test)
    pipe = PublicFittedPipeline(
        [("scale", StandardScaler()), ("sgd", PrivateSGDClassifier(classes=[0, 1]))]
    )
    with sklearn.config_context(enable_metadata_routing=routing):
        res = cross_validate(
            pipe,
            X,
            y,
            cv=3,
            params={"X_public": PublicData(X_pub)},
            return_estimator=True,
        )
    # Scored on the held-out test rows (the CV folds' scores would be exact
    # statistics of private rows).
    for est in res["estimator"]:
        assert est.score(X_test, y_test) > ceiling - 0.05


def test_plain_pipeline_with_routing():
    X, y, X_pub, _, X_test, y_test = make_data(n=1500)
    ceiling = LogisticRegression().fit(X, y).score(X_test, y_test)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = Pipeline([("sgd", PrivateSGDClassifier(classes=[0, 1]))])
        pipe.fit(X, y, X_public=PublicData(X_pub))
    assert pipe.score(X_test, y_test) > ceiling - 0.05


def test_grid_search_with_two_jobs_charges_every_fit(tmp_path):
    X, y, X_pub, _, _, _ = make_data(n=600)
    acc = PrivacyAccountant(epsilon=100.0, delta=1e-2, path=tmp_path / "ledger.db")
    search = GridSearchCV(
        PrivateSGDClassifier(classes=[0, 1], accountant=acc),
        {"epsilon": [1.0, 4.0]},
        cv=2,
        n_jobs=2,
    )
    search.fit(X, y, X_public=PublicData(X_pub))
    expected = 2 * (1.0 + 4.0) + search.best_params_["epsilon"]
    assert len(acc.history) == 5
    assert acc.spent().epsilon == pytest.approx(expected)


def test_privacy_check_uses_the_fitted_settings():
    # Found in review: privacy_check read the current sampling_rate and delta,
    # so set_params after the fit changed the check of the fitted noise.
    X, y, X_pub, _, _, _ = make_data(n=200)
    clf = PrivateSGDClassifier(classes=[0, 1]).fit(X, y, X_public=PublicData(X_pub))
    before = clf.privacy_check()
    clf.set_params(sampling_rate=0.5, delta=0.1)
    assert clf.privacy_check() == before
    assert before.epsilon <= clf.privacy_spent_.epsilon
