"""SemiPrivateLogisticRegression: accounting, sensitivity, audit, ecosystem."""

import math
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.preprocessing import StandardScaler

from sklearn_semiprivate import (
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyCost,
    PrivacyLeakWarning,
    PublicData,
    PublicDataWarning,
    PublicFittedPipeline,
    SemiPrivateLogisticRegression,
    reproducible_noise,
)
from sklearn_semiprivate.accounting import gaussian_rdp, rdp_to_dp
from sklearn_semiprivate.accounting._reservation import fit_cost
from sklearn_semiprivate.audit import epsilon_lower_bound
from sklearn_semiprivate.classifiers import _logistic as _logistic_est
from sklearn_semiprivate.classifiers import _logistic_mm as _logistic
from sklearn_semiprivate.classifiers import _logistic_sgd
from sklearn_semiprivate.classifiers._logistic_mm import (
    clip_rows,
    log_loss_gradient,
    release_privacy,
    release_scales,
)


def make_data(n=3000, n_pub=120, seed=0, n_features=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    X_pub = rng.normal(size=(n_pub, n_features))
    X_test = rng.normal(size=(2000, n_features))
    return X, y, X_pub, X_test, (X_test[:, 0] - X_test[:, 1] > 0).astype(int)


def fitted(n=400, n_pub=40, **params):
    X, y, X_pub, _, _ = make_data(n=n, n_pub=n_pub)
    params.setdefault("classes", [0, 1])
    clf = SemiPrivateLogisticRegression(**params)
    return clf.fit(X, y, X_public=PublicData(X_pub))


# --------------------------------------------------------------------------
# Exact accounting
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("epsilon", "delta", "n_steps"),
    [(0.1, 1e-5, 3), (1.0, 1e-5, 1), (1.0, 1e-6, 8), (5.0, 1e-3, 3)],
)
def test_release_scales_meet_the_target_exactly(epsilon, delta, n_steps):
    scales = release_scales(epsilon, delta, n_steps)
    assert len(scales["gradient"]) == n_steps
    spent = release_privacy(scales, delta).epsilon
    assert epsilon * (1 - 1e-6) <= spent <= epsilon


def test_release_privacy_is_an_independent_composition():
    # Hand-composed: three Gaussian curves (counts, Gram, one step) summed.
    scales = release_scales(1.0, 1e-5, 1)
    curve = (
        gaussian_rdp(scales["counts"], sensitivity=1.0)
        + gaussian_rdp(scales["gram"], sensitivity=2.0)
        + gaussian_rdp(scales["gradient"][0], sensitivity=2.0)
    )
    assert rdp_to_dp(curve, 1e-5) == release_privacy(scales, 1e-5)
    # The budget shares: counts 5%, Gram 20%, steps 75%.
    c = [
        g / s**2
        for g, s in [
            (1.0, scales["counts"]),
            (4.0, scales["gram"]),
            (4.0, scales["gradient"][0]),
        ]
    ]
    assert np.allclose(np.array(c) / sum(c), [0.05, 0.2, 0.75])


def test_replace_one_neighbours_get_a_weaker_stated_guarantee():
    scales = release_scales(1.0, 1e-5, 3)
    replace = release_privacy(scales, 1e-5, neighbours="replace-one").epsilon
    assert replace > 2.0  # sensitivities doubled: RDP curve times four


@pytest.mark.parametrize("mutant", ["steps_not_split", "gram_sensitivity_one", "sqrt2"])
def test_accounting_mutants_overspend(monkeypatch, mutant):
    honest = release_scales(1.0, 1e-5, 3)
    if mutant == "steps_not_split":
        # Every step given the whole steps' budget.
        scales = dict(honest, gradient=[s / math.sqrt(3) for s in honest["gradient"]])
    elif mutant == "gram_sensitivity_one":
        scales = dict(honest, gram=honest["gram"] / 2.0)
    else:
        # Calibrated to ||p - e_y|| <= 1 instead of sqrt(2).
        monkeypatch.setattr(_logistic, "_GRADIENT_SENSITIVITY", math.sqrt(2))
        scales = release_scales(1.0, 1e-5, 3)
        monkeypatch.undo()
    assert release_privacy(scales, 1e-5).epsilon > 1.05


def test_fit_spends_what_it_states():
    clf = fitted(epsilon=2.0, delta=1e-6, n_steps=4, solver="mm")
    assert clf.privacy_spent_ == PrivacyCost(2.0, 1e-6)
    _, _, X_pub, _, _ = make_data(n=400, n_pub=40)
    assert fit_cost(clf, X_public=PublicData(X_pub)) == clf.privacy_spent_
    assert clf.noise_scales_ == release_scales(2.0, 1e-6, 4)
    replace = release_privacy(clf.noise_scales_, 1e-6, neighbours="replace-one")
    assert clf.replace_one_privacy_ == replace
    assert replace.epsilon > 2.0


@pytest.mark.parametrize("solver", ["mm", "sgd"])
def test_noise_of_every_release_is_drawn_at_the_stated_scale(
    record_normal_draws, solver
):
    # The audits of this file check the calibration (release_scales), not the
    # draws: a review halved each draw of the mm fit (counts, Gram, gradients)
    # and no test failed. This spy on the fit's noise generator records them.
    calls = record_normal_draws(_logistic_est)
    clf = fitted(n=300, epsilon=2.0, delta=1e-6, solver=solver, n_steps=4)
    scales, K = clf.noise_scales_, clf.classes_.size
    q = clf._fmap.transform(np.zeros((1, clf.n_features_in_))).shape[1]
    assert calls[0] == (scales["counts"], (K,))
    if solver == "mm":
        expected = [(scales["gram"], (q, q))]
        expected += [(sd, (q, K)) for sd in scales["gradient"]]
    else:
        sd = scales["noise_multiplier"] * _logistic_sgd._CLIP_NORM
        expected = [(sd, (q, 1))] * _logistic_sgd._n_steps()  # one per step
    assert calls[1:] == expected


def test_noise_drawn_is_the_noise_added(monkeypatch, record_normal_draws):
    # A review: halving a draw after it is drawn (0.5 * rng.normal(...)) left
    # the scale-level spy above passing. Here the values drawn must be what
    # the releases add: the counts and the Gram exactly, and the first
    # gradient with the private gradient replaced by zeros, where the step's
    # right-hand side is that gradient's noise alone (the ridge term is 0 at
    # the start: only the intercept row is non-zero, and it is not shrunk).
    calls = record_normal_draws(_logistic_est)
    rhs = []
    real_solve = np.linalg.solve

    def solve(a, b):
        rhs.append(np.array(b))
        return real_solve(a, b)

    monkeypatch.setattr(np.linalg, "solve", solve)
    monkeypatch.setattr(
        _logistic, "log_loss_gradient", lambda P, Y, W: np.zeros_like(W)
    )
    fitted(n=300, epsilon=2.0, delta=1e-6, solver="mm", n_steps=2)
    np.testing.assert_allclose(rhs[0], calls.draws[2], rtol=1e-12)
    rng = _logistic_est.noise_rng(None)
    Y = np.eye(3)[[0, 1, 1, 2]]
    counts = _logistic.noisy_counts(Y, 0.5, rng)
    np.testing.assert_allclose(counts - Y.sum(axis=0), calls.draws[-1], rtol=1e-12)
    noise = _logistic._symmetric_noise(4, 0.5, rng)
    np.testing.assert_array_equal(np.triu(noise), np.triu(calls.draws[-1]))


def test_accountant_is_charged_once_per_fit_and_shared_by_clones():
    X, y, X_pub, _, _ = make_data(n=300, n_pub=20)
    acc = PrivacyAccountant(epsilon=3.0, delta=1e-4)
    clf = SemiPrivateLogisticRegression(epsilon=1.0, classes=[0, 1], accountant=acc)
    clf.fit(X, y, X_public=PublicData(X_pub))
    clone(clf).fit(X, y, X_public=PublicData(X_pub))
    assert acc.spent() == PrivacyCost(pytest.approx(2.0), pytest.approx(2e-5))
    clf.fit(X, y, X_public=PublicData(X_pub))
    with pytest.raises(PrivacyBudgetError):
        clf.fit(X, y, X_public=PublicData(X_pub))
    assert len(acc.history) == 3


def test_refused_fit_reads_no_private_row(monkeypatch):
    X, y, X_pub, _, _ = make_data(n=300, n_pub=20)
    called = []
    # noisy_counts is the first private read, noisy_mm the others.
    for name in ("noisy_counts", "noisy_mm"):
        monkeypatch.setattr(_logistic_est, name, lambda *a, **k: called.append(1))
    acc = PrivacyAccountant(epsilon=0.5)
    clf = SemiPrivateLogisticRegression(classes=[0, 1], accountant=acc)
    with pytest.raises(PrivacyBudgetError):
        clf.fit(X, y, X_public=PublicData(X_pub))
    assert called == [] and acc.history == []


def test_fit_failing_after_the_reservation_stays_charged():
    X, y, X_pub, _, _ = make_data(n=300, n_pub=20)
    y = y.copy()
    y[0] = 2  # outside classes: asked after the charge
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = SemiPrivateLogisticRegression(classes=[0, 1], accountant=acc)
    with pytest.raises(ValueError, match="some labels"):
        clf.fit(X, y, X_public=PublicData(X_pub))
    assert acc.spent() == PrivacyCost(1.0, 1e-5)


# --------------------------------------------------------------------------
# Sensitivity: the bounds the calibration uses hold on adversarial rows
# --------------------------------------------------------------------------


def _adversarial_rows(n_features, rng):
    """Rows at the centre, huge (up to the largest float), tiny, on the axes,
    with mixed signs, and random."""
    big = np.finfo(np.float64).max
    rows = [np.zeros(n_features), np.full(n_features, 1e12), np.full(n_features, -1e-9)]
    rows += [
        np.full(n_features, 1e200),
        np.full(n_features, -big),
        -0.0 * np.ones(n_features),
    ]
    rows += [
        np.where(np.arange(n_features) % 2, big, -big),
        big * np.eye(n_features)[0],
    ]
    rows += list(1e6 * np.eye(n_features)) + list(rng.normal(size=(50, n_features)))
    rows += list(50 * rng.standard_cauchy(size=(50, n_features)))
    return np.array(rows)


def _row_terms(clf, rows, rng):
    """Per-row feature vectors and gradient terms at adversarial parameters."""
    P = clf._fmap.transform(rows)
    K = clf.classes_.size
    terms = []
    for _ in range(20):
        # Parameters that make the prediction confidently wrong or right.
        W = rng.normal(scale=rng.choice([0.1, 10.0, 1e4]), size=(P.shape[1], K))
        for k in range(K):
            Y = np.zeros((P.shape[0], K))
            Y[:, k] = 1.0
            terms.append(
                np.array(
                    [
                        np.linalg.norm(log_loss_gradient(P[i : i + 1], Y[i : i + 1], W))
                        for i in range(P.shape[0])
                    ]
                )
            )
    return P, np.concatenate(terms)


@pytest.mark.parametrize("n_features", [2, 5])
def test_every_row_respects_the_stated_sensitivities(n_features):
    rng = np.random.default_rng(0)
    X, y, X_pub, _, _ = make_data(n=200, n_pub=30, n_features=n_features)
    clf = SemiPrivateLogisticRegression(classes=[0, 1], n_bins=8)
    clf.fit(X, y, X_public=PublicData(X_pub))
    assert clf._fmap.binned  # the bins' part of phi is exercised
    rows = _adversarial_rows(n_features, rng)
    P, grad_norms = _row_terms(clf, rows, rng)
    sq_norms = np.einsum("ij,ij->i", P, P)
    gram_norms = np.array([np.linalg.norm(np.outer(p, p)) for p in P])
    # Exactly, in floating point (the feature weights leave room for rounding).
    assert np.all(np.isfinite(P))
    assert sq_norms.max() <= 2.0
    assert gram_norms.max() <= _logistic._GRAM_SENSITIVITY
    assert grad_norms.max() <= _logistic._GRADIENT_SENSITIVITY
    # The bound is attained (it is not loose): a confidently wrong row at the
    # clipping radius.
    assert grad_norms.max() > 0.99 * _logistic._GRADIENT_SENSITIVITY


@pytest.mark.parametrize("bounds", [None, (-0.5, 0.5)])
def test_a_huge_private_row_changes_nothing_but_the_noisy_sums(bounds):
    # Found in review: a row near the largest float overflowed the
    # standardization to inf, inf / inf = NaN, and the fit returned NaN
    # weights or raised after the charge, with a RuntimeWarning: an exact
    # release of that row's presence. Warnings are errors here.
    X, y, X_pub, X_test, _ = make_data(n=300, n_pub=30)
    big = np.finfo(np.float64).max
    X = np.vstack([X, [big, -big, 0.0], [1e200, 1e200, 1e200]])
    y = np.concatenate([y, [0, 1]])
    clf = SemiPrivateLogisticRegression(classes=[0, 1], n_bins=8, bounds=bounds)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.fit(X, y, X_public=None if bounds else PublicData(X_pub))
        assert np.all(np.isfinite(clf.weights_))
        assert np.all(np.isfinite(clf.predict_proba(np.vstack([X_test, X[-2:]]))))


def test_unclipped_rows_break_the_sensitivity(monkeypatch):
    # Mutant: no clipping. The same check must fail.
    monkeypatch.setattr(_logistic, "clip_rows", lambda Z: Z)
    clf = fitted(n=200, n_pub=30, n_bins=8)
    rows = _adversarial_rows(3, np.random.default_rng(0))
    with np.errstate(all="ignore"):  # unclipped huge rows overflow
        _, grad_norms = _row_terms(clf, rows, np.random.default_rng(1))
    # NaN or inf norms count as breaking the bound too.
    assert not np.all(grad_norms <= _logistic._GRADIENT_SENSITIVITY)


def test_auto_bins_follow_the_released_counts(monkeypatch):
    # "auto" reads the released counts only (post-processing): forcing the
    # release forces the choice, whatever the private rows.
    sigma = release_scales(1.0, 1e-5, 3)["gradient"][0]
    for total, expected in [(500.0 * sigma, 8), (400.0 * sigma, 0)]:
        monkeypatch.setattr(
            _logistic_est,
            "noisy_counts",
            lambda Y, s, rng, total=total: np.array([total / 2, total / 2]),
        )
        clf = fitted(n=300, n_pub=60, solver="mm")
        assert clf.n_bins_ == expected
        assert bool(clf._fmap.binned) == (expected > 0)
    monkeypatch.undo()
    assert fitted(n=300, n_pub=60, n_bins=5).n_bins_ == 5


def test_clip_rows_keeps_rows_inside_the_ball():
    Z = np.array([[0.0, 0.0], [0.6, 0.8], [30.0, 40.0], [0.1, 0.0]])
    out = clip_rows(Z)
    assert np.allclose(np.linalg.norm(out, axis=1), [0.0, 1.0, 1.0, 0.1])
    assert np.array_equal(out[[0, 1, 3]], Z[[0, 1, 3]])


# --------------------------------------------------------------------------
# Statistical audit of a gradient release, as the estimator calibrates it
# --------------------------------------------------------------------------

N_SAMPLES = 4_000_000
# Audited at a total epsilon of 2, at a threshold 2 noise sds beyond the
# neighbour's mean: there (exact tails) the honest release's log-ratio is
# 1.03 against its claim 1.71, the mutant's 1.93, with events at 3e-4.
AUDIT_EPSILON = 2.0


def _gradient_audit(sigma, threshold_sd, seed=0):
    """Lower bound on the epsilon of one gradient release with noise ``sigma``.

    Neighbours: D and D plus one row that is confidently misclassified at the
    clipping radius (its gradient term has the full norm 2). The release is
    the noisy gradient; the event is a half-space along the difference, the
    tight event for the Gaussian mechanism, placed from the honest noise
    ``threshold_sd`` (fixed before sampling).
    """
    rng = np.random.default_rng(seed)
    X, y, X_pub, _, _ = make_data(n=50, n_pub=20)
    clf = SemiPrivateLogisticRegression(classes=[0, 1]).fit(
        X, y, X_public=PublicData(X_pub)
    )
    P = clf._fmap.transform(X)
    Y = np.eye(2)[y]
    extra = clf._fmap.transform(
        clf.center_ + 100 * clf.scale_ * np.array([[1.0, 0, 0]])
    )
    W = np.zeros((P.shape[1], 2))
    W[:, 1] = 50.0 * extra[0]  # predicts class 1 with certainty for the extra row
    g = log_loss_gradient(P, Y, W).ravel()
    g_neighbour = g + log_loss_gradient(extra, np.array([[1.0, 0.0]]), W).ravel()
    diff = g_neighbour - g
    assert np.linalg.norm(diff) == pytest.approx(2.0, rel=1e-6)
    u = diff / np.linalg.norm(diff)
    # Only the projection on u matters (the noise is isotropic).
    proj = rng.normal(0.0, sigma, size=N_SAMPLES) + g @ u
    proj_neighbour = rng.normal(0.0, sigma, size=N_SAMPLES) + g_neighbour @ u
    threshold = g_neighbour @ u + 2.0 * threshold_sd
    return epsilon_lower_bound(
        proj_neighbour, proj, lambda s: s > threshold, alpha=1e-3, delta=1e-5
    ).epsilon


def _single_release_epsilon(sigma):
    return rdp_to_dp(gaussian_rdp(sigma, sensitivity=2.0), 1e-5).epsilon


@pytest.mark.statistical
def test_gradient_release_within_its_share():
    sigma = release_scales(AUDIT_EPSILON, 1e-5, 1)["gradient"][0]
    claim = _single_release_epsilon(sigma)
    assert claim < AUDIT_EPSILON
    assert _gradient_audit(sigma, sigma) <= claim


@pytest.mark.statistical
def test_gradient_with_missing_factor_sqrt2_is_caught(monkeypatch):
    # Mutant: calibrated to ||p - e_y|| <= 1 (forgetting it reaches sqrt 2).
    monkeypatch.setattr(_logistic, "_GRADIENT_SENSITIVITY", math.sqrt(2))
    sigma = release_scales(AUDIT_EPSILON, 1e-5, 1)["gradient"][0]
    monkeypatch.undo()
    honest = release_scales(AUDIT_EPSILON, 1e-5, 1)["gradient"][0]
    assert _gradient_audit(sigma, honest) > _single_release_epsilon(honest)


# --------------------------------------------------------------------------
# Bad input: refused before any private read, nothing charged
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda X, y, P: (np.where(X > 2, np.nan, X), y, PublicData(P)), "NaN"),
        (lambda X, y, P: (np.where(X > 2, np.inf, X), y, PublicData(P)), "infinity"),
        (lambda X, y, P: (X, y, PublicData(P[:, :2])), "features"),
        (lambda X, y, P: (X, y, PublicData(P[:0])), "empty"),
        (lambda X, y, P: (X, y, PublicData(P[:, 0])), "2D"),
        (lambda X, y, P: (X, y, PublicData(P, np.full(P.shape[0], 7))), "not in"),
        (lambda X, y, P: (X[:, 0], y, PublicData(P)), "2D"),
    ],
)
def test_bad_data_refused_before_the_charge(change, match):
    X, y, X_pub, _, _ = make_data(n=200, n_pub=20)
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    X, y, pub = change(X, y, X_pub)
    clf = SemiPrivateLogisticRegression(classes=[0, 1], accountant=acc)
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
        {"n_steps": 0},
        {"clip_quantile": 0.0},
        {"n_public": 500},
        {"bounds": [1.0, 0.0]},
    ],
)
def test_bad_parameters_refused_before_the_charge(params):
    X, y, X_pub, _, _ = make_data(n=200, n_pub=20)
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = SemiPrivateLogisticRegression(classes=[0, 1], accountant=acc, **params)
    pub = None if "bounds" in params else PublicData(X_pub)
    with pytest.raises(ValueError):
        clf.fit(X, y, X_public=pub)
    assert acc.history == []


# --------------------------------------------------------------------------
# What it learns
# --------------------------------------------------------------------------


def test_learns_a_linear_rule_and_its_model_is_consistent():
    X, y, X_pub, X_test, y_test = make_data(n=3000, n_pub=100)
    clf = SemiPrivateLogisticRegression(epsilon=1.0, classes=[0, 1])
    clf.fit(X, y, X_public=PublicData(X_pub))
    # Non-private LogisticRegression scores ~0.99; 0.95-0.99 over noise draws.
    assert clf.score(X_test, y_test) > 0.93
    scores = clf.decision_function(X_test)
    logits = clf._fmap.transform(X_test) @ clf.weights_
    assert np.allclose(scores, logits[:, 1] - logits[:, 0])
    proba = clf.predict_proba(X_test)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(clf.predict(X_test), clf.classes_[proba.argmax(axis=1)])


def test_three_classes_and_string_labels():
    rng = np.random.default_rng(0)
    centers = np.array([[0.0, 3.0], [3.0, -2.0], [-3.0, -2.0]])
    labels = np.array(["a", "b", "c"])
    codes = rng.integers(3, size=3000)
    X = centers[codes] + rng.normal(size=(3000, 2))
    X_pub = centers[rng.integers(3, size=100)] + rng.normal(size=(100, 2))
    clf = SemiPrivateLogisticRegression(epsilon=1.0, classes=labels)
    clf.fit(X, labels[codes], X_public=PublicData(X_pub))
    assert clf.weights_.shape == (clf._fmap.n_outputs, 3)
    assert clf.score(X, labels[codes]) > 0.9


def test_shifted_public_rows_cost_little():
    # Public rows from one side of the boundary only: the geometry comes
    # from them, the Gram matrix that shapes the steps is private. 0.94-0.95
    # over noise draws (0.97-0.99 with i.i.d. public rows).
    X, y, _, X_test, y_test = make_data(n=4000)
    X_pub = X[X[:, 0] > 0][:80]
    clf = SemiPrivateLogisticRegression(epsilon=1.0, classes=[0, 1])
    clf.fit(X, y, X_public=PublicData(X_pub))
    assert clf.score(X_test, y_test) > 0.92


@pytest.mark.parametrize("solver", ["sgd", "mm"])
def test_public_labels_are_used_for_free(solver):
    X, y, X_pub, X_test, y_test = make_data(n=50, n_pub=5000)
    y_pub = (X_pub[:, 0] - X_pub[:, 1] > 0).astype(int)
    clf = SemiPrivateLogisticRegression(epsilon=0.1, solver=solver)
    clf.fit(X, y, X_public=PublicData(X_pub, y_pub))
    assert clf.classes_.tolist() == [0, 1]
    # At epsilon 0.1 on 50 private rows the noise on each gradient coordinate
    # (sd ~190) dwarfs the private signal; 5000 public labels carry it:
    # 0.87-0.99 over 30 noise draws, against 0.50 on average (at most 0.75)
    # with the same public rows unlabeled.
    assert clf.score(X_test, y_test) > 0.8


def test_noise_is_fresh_unless_reproducible():
    X, y, X_pub, _, _ = make_data(n=300, n_pub=60)
    clf = SemiPrivateLogisticRegression(classes=[0, 1], random_state=0)
    fits = [clone(clf).fit(X, y, X_public=PublicData(X_pub)) for _ in range(2)]
    assert not np.array_equal(fits[0].weights_, fits[1].weights_)
    with pytest.warns(UserWarning), reproducible_noise():
        fits = [clone(clf).fit(X, y, X_public=PublicData(X_pub)) for _ in range(2)]
    assert np.array_equal(fits[0].weights_, fits[1].weights_)


def test_without_public_data_warns_and_uses_bounds():
    X, y, _, X_test, y_test = make_data(n=3000)
    with pytest.warns(PublicDataWarning), pytest.warns(PrivacyLeakWarning):
        SemiPrivateLogisticRegression(classes=[0, 1]).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf = SemiPrivateLogisticRegression(classes=[0, 1], bounds=(-4, 4))
        clf.fit(X, y)
    assert clf.clip_norm_ == math.sqrt(3)
    assert clf.score(X_test, y_test) > 0.9


# --------------------------------------------------------------------------
# The ecosystem: pipelines, searches, cross-validation
# --------------------------------------------------------------------------


@pytest.mark.parametrize("routing", [False, True])
def test_public_fitted_pipeline_and_cross_validation(routing):
    X, y, X_pub, _, _ = make_data(n=900, n_pub=60)
    pipe = PublicFittedPipeline(
        [
            ("scale", StandardScaler()),
            ("lr", SemiPrivateLogisticRegression(classes=[0, 1])),
        ]
    )
    with sklearn.config_context(enable_metadata_routing=routing):
        scores = cross_val_score(
            pipe, X, y, cv=3, params={"X_public": PublicData(X_pub)}
        )
    assert scores.min() > 0.8


def test_grid_search_with_two_jobs_charges_every_fit(tmp_path):
    X, y, X_pub, _, _ = make_data(n=600, n_pub=40)
    acc = PrivacyAccountant(epsilon=100.0, delta=1e-2, path=tmp_path / "ledger.db")
    search = GridSearchCV(
        SemiPrivateLogisticRegression(classes=[0, 1], accountant=acc),
        {"epsilon": [1.0, 4.0]},
        cv=2,
        n_jobs=2,
    )
    search.fit(X, y, X_public=PublicData(X_pub))
    expected = 2 * (1.0 + 4.0) + search.best_params_["epsilon"]
    assert len(acc.history) == 5
    assert acc.spent().epsilon == pytest.approx(expected)


def test_matches_logistic_regression_when_noise_is_negligible():
    X, y, X_pub, X_test, _ = make_data(n=3000, n_pub=200)
    clf = SemiPrivateLogisticRegression(
        epsilon=1e6, solver="mm", n_steps=10, n_bins=0, classes=[0, 1]
    )
    clf.fit(X, y, X_public=PublicData(X_pub))
    ref = LogisticRegression().fit(X, y)
    agree = np.mean(clf.predict(X_test) == ref.predict(X_test))
    assert agree > 0.98
