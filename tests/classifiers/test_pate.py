"""PATEClassifier: accounting, sensitivity, privacy audit, input checks, ecosystem."""

import math
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_semiprivate import (
    PATEClassifier,
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyCost,
    PrivacyLeakWarning,
    PublicData,
    PublicDataWarning,
    PublicFittedPipeline,
    SemiPrivateClassifier,
    reproducible_noise,
)
from sklearn_semiprivate.accounting import rdp_gaussian_sigma
from sklearn_semiprivate.accounting._reservation import fit_cost
from sklearn_semiprivate.audit import epsilon_lower_bound
from sklearn_semiprivate.classifiers import _pate, _pate_votes
from sklearn_semiprivate.classifiers._pate_votes import (
    gnmax_sigma,
    lnmax_scale,
    noisy_votes,
)
from sklearn_semiprivate.mechanisms import gaussian_privacy_profile


def make_data(n=3000, n_pub=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    X_pub = rng.normal(size=(n_pub, 3))
    X_test = rng.normal(size=(2000, 3))
    return X, y, X_pub, X_test, (X_test[:, 0] - X_test[:, 1] > 0).astype(int)


# --------------------------------------------------------------------------
# Exact accounting
# --------------------------------------------------------------------------


@pytest.mark.parametrize(("epsilon", "n_queries"), [(1.0, 100), (0.5, 28), (5.0, 2700)])
def test_gnmax_sigma_meets_the_target_exactly(epsilon, n_queries):
    sigma = gnmax_sigma(epsilon, 1e-5, n_queries)
    # The Q histograms together: one Gaussian of L2 sensitivity sqrt(2 Q).
    delta = gaussian_privacy_profile(epsilon, sigma, math.sqrt(2 * n_queries))
    assert delta <= 1e-5
    assert delta == pytest.approx(1e-5, rel=1e-6)
    # Never more noise than the paper's RDP bound alpha / sigma^2 per query.
    rdp_sigma = rdp_gaussian_sigma(
        epsilon, 1e-5, n_compositions=n_queries, sensitivity=math.sqrt(2)
    )
    assert sigma <= rdp_sigma


def test_gnmax_sigma_where_the_rdp_bound_refuses():
    # A review: at delta = 1e-170 the RDP calibration cannot certify epsilon
    # = 1e-3 (its orders' floor); gnmax_sigma raised (ZeroDivisionError then)
    # although the exact calibration alone is valid. It now keeps that one.
    with pytest.raises(ValueError):
        rdp_gaussian_sigma(1e-3, 1e-170, n_compositions=10, sensitivity=math.sqrt(2))
    sigma = gnmax_sigma(1e-3, 1e-170, 10)
    assert gaussian_privacy_profile(1e-3, sigma, math.sqrt(20)) <= 1e-170


def test_gnmax_sigma_matches_dp_accounting_pld():
    # Google's dp-accounting 0.6.0, computed once (not a dependency):
    #   acc = PLDAccountant(value_discretization_interval=1e-4)
    #   acc.compose(GaussianDpEvent(52.75909854174822 / sqrt(2)), 100)
    #   acc.get_epsilon(1e-5) -> 1.000000000000685
    assert gnmax_sigma(1.0, 1e-5, 100) == pytest.approx(52.75909854174822, rel=1e-9)


def test_lnmax_scale_is_pure_composition():
    # L1 sensitivity 2 per query: each query is 2 / b-DP, Q of them sum to eps.
    b = lnmax_scale(0.5, 40)
    assert b == 160.0
    assert 40 * (2 / b) == pytest.approx(0.5)


def test_fit_spends_what_it_states():
    X, y, X_pub, _, _ = make_data(n=400, n_pub=30)
    clf = PATEClassifier(epsilon=2.0, delta=1e-6, classes=[0, 1], random_state=0)
    clf.fit(X, y, X_public=PublicData(X_pub))
    assert clf.privacy_spent_ == PrivacyCost(2.0, 1e-6)
    assert fit_cost(clf, X_public=PublicData(X_pub)) == clf.privacy_spent_
    assert clf.n_queries_ == 30
    assert clf.noise_scale_ == gnmax_sigma(2.0, 1e-6, 30)
    assert clf.n_teachers_ == math.ceil(_pate._TEACHERS_PER_NOISE_SD * clf.noise_scale_)

    lnmax = PATEClassifier(aggregator="lnmax", epsilon=2.0, classes=[0, 1])
    lnmax.fit(X, y, X_public=PublicData(X_pub))
    assert lnmax.privacy_spent_ == PrivacyCost(2.0, 0.0)
    assert lnmax.noise_scale_ == lnmax_scale(2.0, 30) == 30.0


def test_n_public_sets_the_number_of_queries():
    X, y, X_pub, _, _ = make_data(n=300, n_pub=50)
    clf = PATEClassifier(n_public=20, n_teachers=5, classes=[0, 1], random_state=0)
    clf.fit(X, y, X_public=PublicData(X_pub))
    assert clf.n_queries_ == 20 == clf.query_labels_.shape[0]
    assert clf.n_teachers_ == 5
    assert clf.noise_scale_ == gnmax_sigma(1.0, 1e-5, 20)


def test_accountant_is_charged_and_shared_by_clones():
    X, y, X_pub, _, _ = make_data(n=300, n_pub=20)
    acc = PrivacyAccountant(epsilon=3.0, delta=1e-4)
    clf = PATEClassifier(epsilon=1.0, classes=[0, 1], accountant=acc)
    clf.fit(X, y, X_public=PublicData(X_pub))
    clone(clf).fit(X, y, X_public=PublicData(X_pub))
    assert acc.spent() == PrivacyCost(pytest.approx(2.0), pytest.approx(2e-5))
    clf.fit(X, y, X_public=PublicData(X_pub))
    with pytest.raises(PrivacyBudgetError):
        clf.fit(X, y, X_public=PublicData(X_pub))
    assert len(acc.history) == 3


@pytest.mark.parametrize("n_extra_ones", [0, 1])
def test_teacher_and_student_ledgers_are_charged_once_before_the_votes(n_extra_ones):
    # A review: a teacher fitted with its own ledger charged it once per
    # partition holding two labels (2 charges on labels all 0, 3 with one row
    # labelled 1: a count of the private rows) and logged its secret seed.
    # Now every ledger, nested ones too, is charged PATE's cost once.
    rng = np.random.default_rng(0)
    X, X_pub = rng.uniform(size=(40 + n_extra_ones, 2)), rng.uniform(size=(30, 2))
    y = np.zeros(X.shape[0], dtype=int)
    y[40:] = 1
    shared, teacher_only = (
        PrivacyAccountant(100.0, 1e-3),
        PrivacyAccountant(100.0, 1e-3),
    )
    student_only = PrivacyAccountant(100.0, 1e-3)
    spc = {"bounds": (0, 1), "classes": [0, 1]}
    pate = PATEClassifier(
        teacher=SemiPrivateClassifier(accountant=teacher_only, **spc),
        student=SemiPrivateClassifier(accountant=student_only, **spc),
        n_teachers=1, epsilon=1.0, classes=[0, 1], accountant=shared,
    )  # fmt: skip
    pate.fit(X, y, X_public=PublicData(X_pub))
    for ledger in (shared, teacher_only, student_only):
        assert [c.source for c in ledger.history] == ["PATEClassifier"]
        assert ledger.spent() == pate.privacy_spent_
    # One ledger at every level: charged once, not once per level.
    one = PrivacyAccountant(100.0, 1e-3)
    pate.set_params(accountant=one, teacher__accountant=one, student__accountant=one)
    pate.fit(X, y, X_public=PublicData(X_pub))
    assert len(one.history) == 1 and one.spent() == pate.privacy_spent_


def test_refused_fit_trains_no_teacher(monkeypatch):
    X, y, X_pub, _, _ = make_data(n=300, n_pub=20)
    called = []
    monkeypatch.setattr(
        _pate, "teacher_votes", lambda *args, **kwargs: called.append(1)
    )
    acc = PrivacyAccountant(epsilon=0.5)
    clf = PATEClassifier(epsilon=1.0, classes=[0, 1], accountant=acc)
    with pytest.raises(PrivacyBudgetError):
        clf.fit(X, y, X_public=PublicData(X_pub))
    assert called == [] and acc.history == []


def test_fit_failing_after_the_reservation_stays_charged():
    X, y, X_pub, _, _ = make_data(n=300, n_pub=20)
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    # Label 2 is outside classes: asked after the charge (see
    # check_private_labels), so the refused fit is still charged.
    y = y.copy()
    y[0] = 2
    clf = PATEClassifier(classes=[0, 1], accountant=acc)
    with pytest.raises(ValueError, match="some labels"):
        clf.fit(X, y, X_public=PublicData(X_pub))
    assert acc.spent() == PrivacyCost(1.0, 1e-5)


def test_grid_search_over_epsilon_charges_every_fit():
    X, y, X_pub, _, _ = make_data(n=600, n_pub=40)
    acc = PrivacyAccountant(epsilon=100.0, delta=1e-2)
    search = GridSearchCV(
        PATEClassifier(classes=[0, 1], accountant=acc, random_state=0),
        {"epsilon": [1.0, 4.0]},
        cv=2,
    )
    search.fit(X, y, X_public=PublicData(X_pub))
    expected = 2 * (1.0 + 4.0) + search.best_params_["epsilon"]
    assert len(acc.history) == 5
    assert acc.spent().epsilon == pytest.approx(expected)


# --------------------------------------------------------------------------
# Statistical privacy audit of the aggregation step, and mutants it catches
# --------------------------------------------------------------------------

N_SAMPLES = 4_000_000


def _released_label_is_one(noise, scale, margin, seed):
    """Samples of ``label == 1`` for votes (margin, 0) and, one teacher's vote
    moved, (margin - 1, 1): one query, ``N_SAMPLES`` independent releases."""
    rng = np.random.default_rng(seed)
    out = []
    for votes in ([margin, 0], [margin - 1, 1]):
        table = np.tile(np.array(votes, dtype=float), (N_SAMPLES, 1))
        out.append(np.argmax(noisy_votes(table, noise, scale, rng), axis=1) == 1)
    return out


def _audit(aggregator, margin, seed=0):
    """Lower confidence bound on the epsilon of one answered query, as fitted.

    The noise scale comes from the estimator's own calibration (``_noise``),
    the samples from its release function; the event (label 1) is the
    half-space along the sensitivity direction, the tight one for GNMax.
    """
    clf = PATEClassifier(aggregator=aggregator, epsilon=1.0, delta=1e-5)
    scale, _ = clf._noise(1)
    noise = "gaussian" if aggregator == "gnmax" else "laplace"
    base, moved = _released_label_is_one(noise, scale, margin, seed)
    delta = clf._privacy_cost().delta
    return epsilon_lower_bound(
        moved, base, lambda s: s, alpha=1e-3, delta=delta
    ).epsilon


# Margins chosen from the exact probabilities: at 10 the event's log-ratio
# (minus delta) is 0.45 honest and 1.47 with halved noise; at 18, 0.70 honest
# and 1.32 without the sqrt(2); LNMax at 8: 0.82 honest, 1.78 without the 2.
@pytest.mark.statistical
@pytest.mark.parametrize(("aggregator", "margin"), [("gnmax", 10), ("gnmax", 18)])
def test_gnmax_release_within_claim(aggregator, margin):
    assert _audit(aggregator, margin) <= 1.0


@pytest.mark.statistical
def test_lnmax_release_within_claim():
    assert _audit("lnmax", 8) <= 1.0


@pytest.mark.statistical
def test_halved_gaussian_noise_is_caught(monkeypatch):
    real = _pate_votes.gnmax_sigma
    monkeypatch.setattr(_pate, "gnmax_sigma", lambda *a: real(*a) / 2)
    assert _audit("gnmax", 10) > 1.0


@pytest.mark.statistical
def test_missing_sqrt2_sensitivity_is_caught(monkeypatch):
    # Calibrated to L2 sensitivity sqrt(Q) (one count changes) instead of
    # sqrt(2 Q) (one vote moves between two counts).
    from sklearn_semiprivate.mechanisms import analytic_gaussian_sigma

    monkeypatch.setattr(
        _pate,
        "gnmax_sigma",
        lambda eps, delta, q: analytic_gaussian_sigma(eps, delta, math.sqrt(q)),
    )
    assert _audit("gnmax", 18) > 1.0


@pytest.mark.statistical
def test_missing_factor_two_in_lnmax_is_caught(monkeypatch):
    monkeypatch.setattr(_pate, "lnmax_scale", lambda eps, q: q / eps)
    assert _audit("lnmax", 8) > 1.0


# --------------------------------------------------------------------------
# Bad input: refused before any private read, nothing charged
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        (lambda X, y, P: (np.where(X > 2, np.nan, X), y, P), ValueError, "NaN"),
        (lambda X, y, P: (X, y, PublicData(P[:, :2])), ValueError, "features"),
        (lambda X, y, P: (X, y, PublicData(P[:0])), ValueError, "empty"),
        (lambda X, y, P: (X, y, PublicData(P[:, 0])), ValueError, "2D"),
        (
            lambda X, y, P: (X, y, PublicData(P, np.full(P.shape[0], 7))),
            ValueError,
            "not in classes",
        ),
        (lambda X, y, P: (X[:, 0], y, PublicData(P)), ValueError, "2D"),
    ],
)
def test_bad_data_refused_before_the_charge(change, error, match):
    X, y, X_pub, _, _ = make_data(n=200, n_pub=20)
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    X, y, pub = change(X, y, X_pub)
    clf = PATEClassifier(classes=[0, 1], accountant=acc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PublicDataWarning)
        with pytest.raises(error, match=match):
            clf.fit(X, y, X_public=pub)
    assert acc.history == []


@pytest.mark.parametrize(
    "params",
    [
        {"epsilon": 0.0},
        {"epsilon": -1.0},
        {"delta": 1.0},
        {"aggregator": "gnmax", "delta": 0.0},
        {"n_teachers": 0},
        {"min_margin": -1.0},
        {"aggregator": "max"},
        {"teacher": LogisticRegression(C=-1.0)},
        {"student": LogisticRegression(penalty="nope")},
        {"n_public": 500},
    ],
)
def test_bad_parameters_refused_before_the_charge(params):
    X, y, X_pub, _, _ = make_data(n=200, n_pub=20)
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = PATEClassifier(classes=[0, 1], accountant=acc, **params)
    with pytest.raises(ValueError):
        clf.fit(X, y, X_public=PublicData(X_pub))
    assert acc.history == []


def test_teacher_without_predict_is_refused():
    with pytest.raises(ValueError, match="teacher"):
        PATEClassifier(teacher=StandardScaler()).fit(
            np.zeros((4, 1)), [0, 1, 0, 1], X_public=PublicData(np.zeros((2, 1)))
        )


# --------------------------------------------------------------------------
# Behaviour and the scikit-learn ecosystem
# --------------------------------------------------------------------------


def test_beats_the_majority_class_and_predicts_through_the_student():
    X, y, X_pub, X_test, y_test = make_data()
    clf = PATEClassifier(epsilon=1.0, classes=[0, 1], random_state=0)
    clf.fit(X, y, X_public=PublicData(X_pub))
    assert clf.score(X_test, y_test) > 0.85
    assert np.array_equal(clf.predict(X_test), clf.student_.predict(X_test))
    proba = clf.predict_proba(X_test)
    assert np.array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X_test))
    assert np.array_equal(clf.decision_function(X_test) > 0, clf.predict(X_test) == 1)


def test_one_label_gives_a_constant_student():
    X, _, X_pub, X_test, _ = make_data(n=500, n_pub=30)
    y = np.zeros(500, dtype=int)
    # 100 teachers: a vote margin of 100 against noise of sd 1.6, so no query
    # is labeled 1 (with "auto", 5 teachers, one was in about 1% of fits).
    clf = PATEClassifier(epsilon=50.0, n_teachers=100, classes=[0, 1], random_state=0)
    clf.fit(X, y, X_public=PublicData(X_pub))
    assert clf.student_ is None and clf.constant_label_ == 0
    assert (clf.predict(X_test) == 0).all()
    assert clf.predict_proba(X_test)[:, 0].tolist() == [1.0] * len(X_test)
    assert (clf.decision_function(X_test) < 0).all()


def test_public_labels_set_the_classes_and_train_the_student():
    X, y, X_pub, _, _ = make_data(n=400, n_pub=40)
    y_pub = (X_pub[:, 0] - X_pub[:, 1] > 0).astype(int)
    clf = PATEClassifier(random_state=0, min_margin=1e9)  # no teacher label kept
    clf.fit(X, y, X_public=PublicData(X_pub, y_pub))
    assert clf.classes_.tolist() == [0, 1]
    assert not clf.query_kept_.any()
    assert clf.student_.score(X_pub, y_pub) > 0.9


def test_labels_from_private_y_warn():
    X, y, X_pub, _, _ = make_data(n=200, n_pub=10)
    with pytest.warns(PrivacyLeakWarning, match="label set"):
        PATEClassifier().fit(X, y, X_public=PublicData(X_pub))


def test_without_public_data_warns_and_uses_local_votes():
    X, y, _, X_test, y_test = make_data(n=2000)
    with pytest.warns(PublicDataWarning, match="No public data"):
        with pytest.warns(PrivacyLeakWarning, match="bounds"):
            clf = PATEClassifier(classes=[0, 1], random_state=0).fit(X, y)
    assert clf.n_teachers_ is None and clf.n_queries_ == _pate._DEFAULT_GRID_SIZE
    assert clf.noise_scale_ == 2.0  # Lap(2 / epsilon): L1 sensitivity 2
    # With bounds there is nothing to warn about. Seeded (reproducible_noise,
    # entered outside the error filter: it warns on entry) for a fixed verdict:
    # with fresh noise the score was 0.950 +- 0.024 over 850 fits (lowest
    # 0.859) with a left tail heavier than normal, about 2e-5 below 0.8 by an
    # exponential fit to it. Grid votes that ignored the labels score about 0.5.
    with reproducible_noise():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            clf = PATEClassifier(
                classes=[0, 1], bounds=(-2.5, 2.5), n_public=64, random_state=0
            )
            clf.fit(X, y)
    assert clf.n_queries_ == 64
    assert clf.score(X_test, y_test) > 0.8  # 0.976 with this seed


def test_random_state_seeds_a_student_inside_a_pipeline():
    X, y, X_pub, X_test, _ = make_data(n=1000, n_pub=100)
    student = make_pipeline(StandardScaler(), RandomForestClassifier(n_estimators=5))
    clf = PATEClassifier(student=student, epsilon=5.0, classes=[0, 1], random_state=0)
    with reproducible_noise():
        fits = [clone(clf).fit(X, y, X_public=PublicData(X_pub)) for _ in range(2)]
    a, b = (f.predict_proba(X_test) for f in fits)
    assert np.array_equal(a, b)
    assert student.get_params()["randomforestclassifier__random_state"] is None


def test_noise_is_fresh_unless_reproducible():
    X, y, X_pub, _, _ = make_data(n=300, n_pub=60)
    clf = PATEClassifier(epsilon=0.5, n_teachers=20, classes=[0, 1], random_state=0)
    fits = [clone(clf).fit(X, y, X_public=PublicData(X_pub)) for _ in range(2)]
    assert not np.array_equal(fits[0].query_labels_, fits[1].query_labels_)
    with reproducible_noise():
        fits = [clone(clf).fit(X, y, X_public=PublicData(X_pub)) for _ in range(2)]
    assert np.array_equal(fits[0].query_labels_, fits[1].query_labels_)


@pytest.mark.parametrize("routing", [False, True])
def test_public_fitted_pipeline_and_cross_validation(routing):
    # 1000 private rows per fold: at 600 (n=900) one fold in about 45 fell
    # to 0.48-0.70 by the fresh vote noise alone (measured, 400 fits), a
    # CI failure in about one run in eight. At 1000 the fold scores were
    # 0.929 +- 0.029 over 120 folds (lowest 0.85), but with fresh noise their
    # lower tail cannot be certified below 1e-6 per run (extrapolated: about
    # 1e-5), so the noise is seeded (reproducible_noise; clone copies the seed
    # into every fold) and the verdict is fixed. Scaled, shifted columns: a
    # pipeline that left the public rows untransformed scores about 0.5 here
    # (measured).
    X, y, X_pub, _, _ = make_data(n=1500, n_pub=60)
    scale, shift = np.array([40.0, 0.05, 3.0]), np.array([100.0, -2.0, 7.0])
    X, X_pub = X * scale + shift, X_pub * scale + shift
    pipe = PublicFittedPipeline(
        [
            ("scale", StandardScaler()),
            ("pate", PATEClassifier(classes=[0, 1], random_state=0)),
        ]
    )
    with (
        sklearn.config_context(enable_metadata_routing=routing),
        reproducible_noise(),
    ):
        scores = cross_val_score(
            pipe, X, y, cv=3, params={"X_public": PublicData(X_pub)}
        )
    assert scores.min() > 0.7  # 0.870, 0.874, 0.892 with this seed


def test_verbose_prints_public_information_only(capsys):
    X, y, X_pub, _, _ = make_data(n=300, n_pub=20)
    PATEClassifier(classes=[0, 1], n_teachers=7, verbose=1).fit(
        X, y, X_public=PublicData(X_pub)
    )
    out = capsys.readouterr().out
    assert "20 queries, 7 teachers" in out
    assert "300" not in out  # the private row count is not printed
