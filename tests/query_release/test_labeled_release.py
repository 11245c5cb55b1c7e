"""Labeled query release: (x, label) rows, their privacy, accounting and bad input.

The labeled release runs the unlabeled machinery on the joint dataset of
``(x, label code)`` rows. Its privacy rests on one claim, checked here exactly
by enumerating every neighbouring pair of tiny joint datasets: replacing one
private row ``(x, y)`` moves the workload's vector of counts by at most the
sensitivity the mechanisms are calibrated to. Mutants that leave the label
column out of that sensitivity, or halve the noise, are caught; an end-to-end
statistical audit bounds the released measurements' ε from below.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_semiprivate import (
    PrivacyAccountant,
    PrivacyCost,
    PrivacyLeakWarning,
    PublicData,
    reproducible_noise,
)
from sklearn_semiprivate.audit import (
    epsilon_lower_bound_search,
    neighbouring_pairs,
)
from sklearn_semiprivate.query_release import (
    MarginalQueries,
    PublicAssistedQueryRelease,
    StumpQueries,
    _labeled,
    _measure,
    bin_codes,
    mwem_round_parameters,
    public_quantile_bins,
)
from sklearn_semiprivate.query_release._marginals import _MarginalSet

# Two binary features and a binary label: every (feature, label) marginal.
LABEL_PAIRS = MarginalQueries(k=2, n_categories=[2, 2, 2], subsets=[[0, 2], [1, 2]])


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(2, size=(n, 2)).astype(float)
    # The label follows the first feature (90% of the time).
    y = np.where((X[:, 0] == 1) ^ (rng.random(n) < 0.1), "yes", "no")
    X_pub = rng.integers(2, size=(40, 2)).astype(float)
    return X, y, X_pub


def _release(**kw):
    kw.setdefault("support", "public")
    kw.setdefault("selection", "all")
    kw.setdefault("classes", ["no", "yes"])
    kw.setdefault("random_state", 0)
    return PublicAssistedQueryRelease(LABEL_PAIRS, **kw)


def _joint(X, y, classes=("no", "yes")):
    return np.column_stack([X, np.searchsorted(np.asarray(classes), y)])


# --- what a labeled fit releases ------------------------------------------------


@pytest.mark.parametrize("selection", ["all", "exponential", "permute_and_flip"])
def test_labeled_release_answers_the_joint_workload(selection):
    X, y, X_pub = _data()
    qr = _release(selection=selection).fit(X, y, X_public=PublicData(X_pub))
    truth = LABEL_PAIRS.evaluate(_joint(X, y))
    assert np.abs(qr.answers_ - truth).max() < 0.06
    # The support: every distinct public point once per label, classes order.
    distinct = np.unique(X_pub, axis=0)
    np.testing.assert_array_equal(qr.support_, np.repeat(distinct, 2, axis=0))
    np.testing.assert_array_equal(
        qr.support_labels_, np.tile(["no", "yes"], distinct.shape[0])
    )
    np.testing.assert_array_equal(qr.classes_, ["no", "yes"])
    assert np.isclose(qr.weights_.sum(), 1.0)
    # transform answers queries over (features, label code): post-processing.
    np.testing.assert_array_equal(qr.transform(LABEL_PAIRS), qr.answers_)
    label_marginal = MarginalQueries(k=1, n_categories=[2, 2, 2], subsets=[[2]])
    assert abs(qr.transform(label_marginal)[1] - np.mean(y == "yes")) < 0.05


def test_sample_returns_labeled_rows_that_keep_the_conditional():
    X, y, X_pub = _data(n=5000)
    qr = _release().fit(X, y, X_public=PublicData(X_pub))
    X_syn, y_syn = qr.sample(4000, random_state=0)
    assert X_syn.shape == (4000, 2) and y_syn.shape == (4000,)
    assert set(np.unique(y_syn)) <= {"no", "yes"}
    # Synthetic rows are public points.
    public = {tuple(row) for row in X_pub}
    assert {tuple(row) for row in X_syn} <= public
    # P(yes | x0 = 1) is about 0.9, P(yes | x0 = 0) about 0.1.
    assert np.mean(y_syn[X_syn[:, 0] == 1] == "yes") > 0.8
    assert np.mean(y_syn[X_syn[:, 0] == 0] == "yes") < 0.2
    # Post-processing: seeded draws repeat.
    X2, y2 = qr.sample(4000, random_state=0)
    np.testing.assert_array_equal(X_syn, X2)
    np.testing.assert_array_equal(y_syn, y2)


def test_unlabeled_fit_still_samples_rows_only():
    X, _, X_pub = _data()
    q = MarginalQueries(k=2, n_categories=2)
    qr = PublicAssistedQueryRelease(q, support="public", selection="all").fit(
        X, X_public=PublicData(X_pub)
    )
    out = qr.sample(5, random_state=0)
    assert isinstance(out, np.ndarray) and out.shape == (5, 2)
    assert not hasattr(qr, "classes_") and not hasattr(qr, "support_labels_")


@pytest.mark.parametrize("support", ["public", "mixture"])
@pytest.mark.parametrize("labeled", [True, False])
def test_dataframe_column_names_are_kept(labeled, support):
    # support="mixture": mutation round D's RL29 (the adaptive labeled
    # sample dropped the names) survived with the public support only.
    X, y, X_pub = _data()
    df, df_pub = (pd.DataFrame(a, columns=["age", "zip"]) for a in (X, X_pub))
    q = LABEL_PAIRS if labeled else MarginalQueries(k=1, n_categories=2)
    options = {"selection": "all"} if support == "public" else {}
    qr = PublicAssistedQueryRelease(
        q, support=support, classes=["no", "yes"], **options
    )
    if labeled:
        qr.fit(df, y, X_public=PublicData(df_pub))
        X_syn, y_syn = qr.sample(10, random_state=0)
        assert y_syn.shape == (10,)
    else:
        X_syn = qr.fit(df, X_public=PublicData(df_pub)).sample(10, random_state=0)
    assert isinstance(X_syn, pd.DataFrame)
    assert list(X_syn.columns) == ["age", "zip"]
    np.testing.assert_array_equal(qr.feature_names_in_, ["age", "zip"])


# --- the label set and the starting distribution ------------------------------


def test_label_set_from_classes_public_labels_or_private_with_a_warning():
    X, y, X_pub = _data()
    y_pub = np.where(X_pub[:, 0] == 1, "yes", "no")
    # From y_public: no warning.
    qr = _release(classes=None).fit(X, y, X_public=PublicData(X_pub, y_pub))
    np.testing.assert_array_equal(qr.classes_, ["no", "yes"])
    # Raw arrays: y_public as a keyword.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the raw-array PublicDataWarning
        qr = _release(classes=None).fit(X, y, X_public=X_pub, y_public=y_pub)
    np.testing.assert_array_equal(qr.classes_, ["no", "yes"])
    # From the private y: a leak warning.
    with pytest.warns(PrivacyLeakWarning, match="label set is read from the private"):
        qr = _release(classes=None).fit(X, y, X_public=PublicData(X_pub))
    np.testing.assert_array_equal(qr.classes_, ["no", "yes"])
    # A declared label absent from the data is still a label of the support.
    qr = _release(classes=["maybe", "no", "yes"])
    q3 = MarginalQueries(k=2, n_categories=[2, 2, 3], subsets=[[0, 2], [1, 2]])
    qr.set_params(queries=q3).fit(X, y, X_public=PublicData(X_pub))
    assert set(qr.support_labels_) == {"maybe", "no", "yes"}


def test_public_labels_give_the_starting_distribution():
    X_pub = np.array([[0.0], [0.0], [1.0]])
    codes = np.array([1, 0, 1])
    points, init = _labeled.labeled_support(X_pub, codes, n_classes=2)
    np.testing.assert_array_equal(points, [[0, 0], [0, 1], [1, 0], [1, 1]])
    # Pairs (0,0) once, (0,1) once, (1,1) once; plus the smoothing times the
    # public point counts (2 and 1) spread uniformly over the two labels;
    # scaled to sum to the 3 public rows (a review found them summing to 6,
    # which doubled the public prior's precision in the adaptive supports).
    s = _labeled.LABEL_SMOOTHING
    raw = np.array([1 + s, 1 + s, 0 + s / 2, 1 + s / 2])
    np.testing.assert_allclose(init, raw * 3 / raw.sum())
    assert init.sum() == pytest.approx(3.0)
    points, init = _labeled.labeled_support(X_pub, None, n_classes=2)
    np.testing.assert_allclose(init, [1.0, 1.0, 0.5, 0.5])


def test_public_labels_change_the_release_only_through_the_start():
    X, y, X_pub = _data()
    y_pub = np.where(X_pub[:, 0] == 1, "yes", "no")
    with reproducible_noise():
        a = _release(n_iterations=1).fit(X, y, X_public=PublicData(X_pub))
        b = _release(n_iterations=1).fit(X, y, X_public=PublicData(X_pub, y_pub))
    # Same noise (same seed), different starting distributions.
    np.testing.assert_array_equal(a.measurements_, b.measurements_)
    assert not np.allclose(a.weights_, b.weights_)


# --- accounting -----------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, cost",
    [
        ({}, PrivacyCost(1.0, 1e-6)),
        ({"epsilon": 0.3, "delta": 1e-8}, PrivacyCost(0.3, 1e-8)),
        ({"delta": 0.0, "measurement": "laplace"}, PrivacyCost(1.0, 0.0)),
    ],
)
def test_measure_all_spends_exactly_its_target(kw, cost):
    X, y, X_pub = _data()
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    qr = _release(accountant=acc, **kw).fit(X, y, X_public=PublicData(X_pub))
    assert qr.privacy_spent_ == cost
    assert [c.cost for c in acc.history] == [cost]
    assert qr.rho_ is None


def test_labeled_mwem_spends_exactly_the_round_parameters_cost():
    X, y, X_pub = _data()
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    qr = _release(selection="exponential", n_iterations=7, accountant=acc)
    qr.fit(X, y, X_public=PublicData(X_pub))
    expected = mwem_round_parameters(
        1.0, 1e-6, 7, selection="exponential", measurement="gaussian"
    )["cost"]
    assert qr.privacy_spent_ == expected
    assert [c.cost for c in acc.history] == [expected]
    assert qr.selected_.shape == (7,)


def test_private_labels_outside_classes_fail_after_the_charge():
    X, y, X_pub = _data()
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    qr = _release(classes=["no", "maybe"], accountant=acc)
    with pytest.raises(ValueError, match="some labels that are not among") as info:
        qr.fit(X, y, X_public=PublicData(X_pub))
    assert "yes" not in str(info.value)
    # The (public) label set chose the question: asked after the charge.
    assert len(acc.history) == 1
    assert not hasattr(qr, "answers_")


# --- bad input: raised before the private rows are read (nothing charged) ------


def _bad_inputs():
    X, y, X_pub = _data(n=200)
    X_nan, X_inf = X.copy(), X.copy()
    X_nan[5, 0], X_inf[7, 1] = np.nan, np.inf
    y_nan = np.zeros(200)
    y_nan[3] = np.nan
    return [
        ("nan", {"X": X_nan}, ValueError, "NaN"),
        ("inf", {"X": X_inf}, ValueError, "infinity"),
        ("public nan", {"X_public": PublicData(X_pub * np.nan)}, ValueError, "NaN"),
        ("y nan", {"y": y_nan}, ValueError, "NaN"),
        ("1-D X", {"X": X[:, 0]}, ValueError, "2D array"),
        ("y length", {"y": y[:-1]}, ValueError, "different numbers of rows"),
        ("y 2-D", {"y": np.column_stack([y, y])}, ValueError, "1-dimensional"),
        ("y continuous", {"y": np.linspace(0, 1, 200)}, ValueError, "Unknown label"),
        (
            "feature mismatch",
            {"X_public": PublicData(np.zeros((5, 3)))},
            ValueError,
            "features",
        ),
        (
            "empty public",
            {"X_public": PublicData(np.zeros((0, 2)))},
            ValueError,
            "empty",
        ),
        ("no public", {"X_public": None}, ValueError, "requires public data"),
        (
            "unknown y_public",
            {"X_public": PublicData(X_pub, ["no", "yes", "maybe", "no"] * 10)},
            ValueError,
            "not in classes",
        ),
        ("epsilon 0", {"params": {"epsilon": 0.0}}, InvalidParameterError, "epsilon"),
        ("epsilon <0", {"params": {"epsilon": -1.0}}, InvalidParameterError, "epsilon"),
        (
            "representative",
            {"params": {"support": "representative", "selection": "exponential"}},
            ValueError,
            "does not release labeled rows",
        ),
        (
            "all needs public",
            {"params": {"support": "representative"}},
            ValueError,
            "option of support='public'",
        ),
        (
            "label codes outside the workload",
            {"params": {"classes": ["a", "b", "c"]}},
            ValueError,
            "outside the declared domain",
        ),
        (
            "regularization",
            {"params": {"regularization": 0.0}},
            InvalidParameterError,
            "regularization",
        ),
    ]


@pytest.mark.parametrize(
    "case, change, error, match", _bad_inputs(), ids=[c[0] for c in _bad_inputs()]
)
def test_bad_input_fails_before_any_private_read(
    monkeypatch, case, change, error, match
):
    X, y, X_pub = _data(n=200)
    args = {"X": X, "y": y, "X_public": PublicData(X_pub)}
    params = change.pop("params", {})
    args.update(change)
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    answered = []
    real = _MarginalSet.weighted_sums

    def spy(self, points, weights):
        answered.append(points.shape[0])
        return real(self, points, weights)

    monkeypatch.setattr(_MarginalSet, "weighted_sums", spy)
    qr = _release(accountant=acc, **params)
    with pytest.raises(error, match=match):
        qr.fit(args["X"], args["y"], X_public=args["X_public"])
    assert acc.history == []  # nothing charged
    assert 200 not in answered  # no query was answered on the private rows
    assert not hasattr(qr, "answers_")


@pytest.mark.parametrize("support", ["public", "mixture", "graphical"])
def test_label_column_wider_than_classes_is_refused_before_the_charge(support):
    # A review: a label column of 3 codes for 2 classes was charged and
    # fitted; the supports that model the whole domain then gave mass to
    # code 2, and sample() raised IndexError. A narrower one was refused.
    # The public support's points hold real codes only: it fits (a second
    # review found it refused, e.g. a scalar n_categories for 3-valued x).
    X, y, X_pub = _data(n=200)
    wide = MarginalQueries(k=2, n_categories=[2, 2, 3], subsets=[[0, 2], [1, 2]])
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    kw = {"selection": "all"} if support == "public" else {}
    qr = PublicAssistedQueryRelease(
        wide, support=support, classes=["no", "yes"], accountant=acc, **kw
    )
    if support == "public":
        qr.fit(X, y, X_public=PublicData(X_pub))
        assert set(qr.sample(50, random_state=0)[1].tolist()) <= {"no", "yes"}
        return
    with pytest.raises(ValueError, match=r"n_categories=3, but there are 2 classes"):
        qr.fit(X, y, X_public=PublicData(X_pub))
    assert acc.history == []


# --- privacy: the sensitivity, exactly, and mutants ----------------------------


# The joint domain of one binary feature and a 3-class label.
DOMAIN = [(x, c) for x in (0, 1) for c in (0, 1, 2)]


def _max_count_change(query_set, n_rows):
    """Largest L1, L2 and L-inf change of the counts over all neighbours."""
    worst = np.zeros(3)
    for data, neighbour in neighbouring_pairs(DOMAIN, n_rows):
        a = query_set.weighted_sums(np.array(data, float), np.ones(n_rows))
        b = query_set.weighted_sums(np.array(neighbour, float), np.ones(n_rows))
        d = np.abs(a - b)
        worst = np.maximum(worst, [d.sum(), math.sqrt(d @ d), d.max()])
    return worst


@pytest.mark.parametrize(
    "queries",
    [
        MarginalQueries(k=2, n_categories=[2, 3]),  # (x, label)
        MarginalQueries(k=1, n_categories=[2, 3]),  # x, and the label alone
        MarginalQueries(k=2, n_categories=[2, 3], subsets=[[0, 1], [1, 0]]),
    ],
)
def test_replace_one_sensitivity_is_exact_on_the_joint_domain(queries):
    query_set = queries._bind(2)
    l1, l2 = query_set.replace_one_sensitivity()
    worst = _max_count_change(query_set, n_rows=3)
    # Exactly the claimed bound: attained, never exceeded. The L-inf change
    # (what MWEM's selection and measurement assume) is 1 count.
    assert worst[0] == l1
    assert math.isclose(worst[1], l2)
    assert worst[2] == 1.0
    # Repeated and partial queries (a take) are bounded too.
    sub = query_set.take(np.array([0, 0, 1, 3]))
    worst = _max_count_change(sub, n_rows=2)
    l1, l2 = sub.replace_one_sensitivity()
    assert worst[0] <= l1 and worst[1] <= l2 + 1e-12


def test_mutant_sensitivity_without_the_label_column_is_caught():
    # A bug that binds the workload to the features only (forgetting the
    # label column) computes the sensitivity of the x-marginal alone.
    queries = MarginalQueries(k=1, n_categories=[2, 3])
    mutant_l1, _ = (
        MarginalQueries(k=1, n_categories=[2])._bind(1).replace_one_sensitivity()
    )
    worst = _max_count_change(queries._bind(2), n_rows=2)
    assert worst[0] > mutant_l1  # changing a label moves the counts further


def _laplace_privacy_loss(monkeypatch, scale_factor=1.0):
    """Exact largest privacy loss of the Laplace measurement over all neighbours.

    The release's own mechanism (its scale) against every neighbouring pair of
    tiny joint datasets: the density ratio of a Laplace vector at any output
    is at most exp(||a(D) - a(D')||_1 / scale), attained.
    """
    mechanisms = []
    real_init = _measure.MeasureAll.__init__

    def record(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        self.mechanism.sensitivity *= scale_factor  # a mutant when != 1
        mechanisms.append(self.mechanism)

    monkeypatch.setattr(_measure.MeasureAll, "__init__", record)
    queries = MarginalQueries(k=2, n_categories=[2, 3])
    X_pub = PublicData(np.array([[0.0], [1.0]]))
    qr = PublicAssistedQueryRelease(
        queries,
        support="public",
        selection="all",
        delta=0.0,
        measurement="laplace",
        classes=[0, 1, 2],
    )
    qr.fit(np.zeros((2, 1)), [0, 0], X_public=X_pub)
    (mechanism,) = mechanisms
    query_set = queries._bind(2)
    worst = 0.0
    for data, neighbour in neighbouring_pairs(DOMAIN, 2):
        a = query_set.answers(np.array(data, float))
        b = query_set.answers(np.array(neighbour, float))
        worst = max(worst, np.abs(a - b).sum() / mechanism.scale)
    return worst, qr.privacy_spent_.epsilon


def test_labeled_laplace_measurement_privacy_loss_is_exactly_epsilon(monkeypatch):
    loss, epsilon = _laplace_privacy_loss(monkeypatch)
    assert math.isclose(loss, epsilon, rel_tol=1e-12) and loss <= epsilon * (1 + 1e-12)


def test_mutant_halved_noise_is_caught_exactly(monkeypatch):
    loss, epsilon = _laplace_privacy_loss(monkeypatch, scale_factor=0.5)
    assert loss > 1.9 * epsilon


# --- statistical: end to end, through fit ---------------------------------------

N_SAMPLES = 600
# Neighbours under replace-one that differ in the label only.
D = (np.zeros((2, 1)), np.array([0, 0]))
D_PRIME = (np.zeros((2, 1)), np.array([0, 1]))
STAT_QUERIES = MarginalQueries(k=2, n_categories=[1, 2])  # cells (x=0, label)


def _released_statistic(data, seed0, epsilon=1.0, n_samples=N_SAMPLES):
    """The Laplace privacy-loss statistic of each release (post-processing).

    A distinct seed per release under ``reproducible_noise()``: independent
    releases and a deterministic verdict. (With fresh noise the bound below the
    claim failed with probability up to its alpha, 1e-6: the Laplace loss
    reaches epsilon on a set of positive probability.)
    """
    X, y = data
    out = np.empty(n_samples)
    with reproducible_noise():
        for s in range(n_samples):
            m = (
                PublicAssistedQueryRelease(
                    STAT_QUERIES,
                    support="public",
                    selection="all",
                    epsilon=epsilon,
                    delta=0.0,
                    measurement="laplace",
                    classes=[0, 1],
                    n_iterations=1,
                    random_state=seed0 + s,
                )
                .fit(X, y, X_public=PublicData(np.zeros((1, 1))))
                .measurements_
            )
            # Log-likelihood ratio of D' against D at the claimed scale (b = 1):
            # D has answers (1, 0), D' has (1/2, 1/2).
            out[s] = abs(m[0] - 1) - abs(m[0] - 0.5) + abs(m[1]) - abs(m[1] - 0.5)
    return out


def _statistical_bound(n_samples=N_SAMPLES):
    a = _released_statistic(D, 0, n_samples=n_samples)
    b = _released_statistic(D_PRIME, 10**6, n_samples=n_samples)
    return epsilon_lower_bound_search(a, b, alpha=1e-6, random_state=0).epsilon


@pytest.mark.statistical
def test_labeled_release_epsilon_lower_bound_below_claim():
    assert _statistical_bound() <= 1.0


@pytest.mark.statistical
def test_mutant_noise_four_times_too_small_is_caught(monkeypatch):
    real_init = _measure.MeasureAll.__init__

    def mutant(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        self.mechanism.sensitivity /= 4.0  # noise 4x too small, cost unchanged

    monkeypatch.setattr(_measure.MeasureAll, "__init__", mutant)
    # 1,000 releases a side. At 600 the mutant's bound (simulated from its
    # Laplace(1/4) measurements, 300 runs) had mean 1.60, sd 0.17, lowest 1.12:
    # 3.5 sd above 1.0, ~2e-4 per run (tail fits: 4e-6 to 8e-4). At 1,000:
    # mean 1.94, sd 0.18, lowest of 300 1.48 (5.3 sd, about 1e-7 per run with
    # fresh noise); seeded now, so the verdict is fixed: 1.90 with these seeds.
    assert _statistical_bound(n_samples=1000) > 1.0


# --- the public binning helpers -------------------------------------------------


def test_public_quantile_bins_and_codes():
    rng = np.random.default_rng(0)
    X_pub = np.column_stack([rng.normal(size=400), rng.integers(2, size=400)])
    edges = public_quantile_bins(X_pub, 4)
    assert edges[0].size == 3 and edges[1].tolist() == [0.5]
    codes = bin_codes(rng.normal(size=(1000, 2)) * 10, edges)
    # Any real value gets a code inside the declared domain.
    assert codes[:, 0].min() >= 0 and codes[:, 0].max() <= 3
    assert set(np.unique(codes[:, 1])) <= {0.0, 1.0}
    # Quantile bins hold about a quarter of the public points each.
    counts = np.bincount(bin_codes(X_pub, edges)[:, 0].astype(int))
    assert counts.min() >= 90
    with pytest.raises(ValueError, match="n_bins"):
        public_quantile_bins(X_pub, 0)
    with pytest.raises(ValueError, match="shape"):
        bin_codes(np.zeros((3, 3)), edges)


def test_bin_codes_refuse_nan_and_put_infinities_in_the_end_bins():
    edges = [np.array([0.0, 1.0])]
    codes = bin_codes(np.array([[-np.inf], [np.inf], [0.5]]), edges)
    assert codes[:, 0].tolist() == [0.0, 2.0, 1.0]
    with pytest.raises(ValueError, match="NaN, which no bin holds"):
        bin_codes(np.array([[0.5], [np.nan]]), edges)


def test_stump_workload_on_joint_rows():
    # Any workload over n_features + 1 columns works (here with +-1 labels).
    rng = np.random.default_rng(0)
    X = np.where(rng.random((2000, 2)) < 0.5, 1.0, -1.0)
    y = np.where(X[:, 0] > 0, 1, -1)
    X_pub = np.where(rng.random((50, 2)) < 0.5, 1.0, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        qr = PublicAssistedQueryRelease(
            StumpQueries(thresholds=0.5), support="public", selection="all"
        ).fit(X, y, X_public=PublicData(X_pub))
    np.testing.assert_array_equal(qr.classes_, [-1, 1])
    # Query x_label > 0.5 (code 1, label +1): about half the rows.
    assert abs(qr.answers_[2] - 0.5) < 0.05


# --- mutation round D: survivors of the labeled helpers -----------------------


def test_pairs_absent_from_public_labels_keep_positive_weight():
    # LB02 (no label smoothing): a (point, label) pair no public row shows
    # would start at weight 0, which multiplicative weights can never move.
    from sklearn_semiprivate.query_release._labeled import labeled_support

    points, weights = labeled_support(
        np.array([[0.0], [0.0], [1.0]]), np.array([0, 0, 1]), 2
    )
    assert points[:, -1].tolist() == [0, 1, 0, 1]
    assert np.all(weights > 0)
    assert weights.sum() == pytest.approx(3.0)


def test_the_label_length_message_quotes_no_row_count():
    # LB05: the number of private rows is private under add/remove.
    from sklearn_semiprivate.query_release._labeled import (
        check_private_label_format,
    )

    with pytest.raises(ValueError) as info:
        check_private_label_format(np.array(["no"] * 1234), 1233)
    assert not any(ch.isdigit() for ch in str(info.value))


def test_a_value_on_a_bin_edge_goes_to_the_upper_bin():
    # LB09 (searchsorted side="left"): edges are lower bounds of their bins.
    codes = bin_codes(np.array([[1.0], [3.0], [2.999]]), [np.array([1.0, 3.0])])
    assert codes[:, 0].tolist() == [1.0, 2.0, 1.0]


@pytest.mark.parametrize("support", ["graphical", "mixture"])
def test_adaptive_labeled_release_needs_a_public_label_set(support):
    # A review: with classes=None and no public labels, the label set came
    # from y (with a leak warning) and the label column's checks, before the
    # charge, quoted "there are N classes" for free, even on a spent ledger.
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(200, 2)).astype(float)
    y = rng.integers(0, 5, size=200)
    ledger = PrivacyAccountant(epsilon=1.0)
    ledger.spend(1.0)
    release = PublicAssistedQueryRelease(
        MarginalQueries(k=2, n_categories=[2, 2, 10]),
        support=support,
        accountant=ledger,
    )
    with pytest.raises(ValueError, match="needs a public label set") as info:
        release.fit(X, y, X_public=PublicData(X[:20]))
    assert "5" not in str(info.value)
    assert len(ledger.history) == 1  # only the spend above


def test_a_release_s_label_errors_carry_no_classifier_hint():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(100, 2)).astype(float)
    release = PublicAssistedQueryRelease(
        MarginalQueries(k=2, n_categories=2), support="public", classes=[0, 1]
    )
    with pytest.raises(ValueError, match="some labels") as info:
        release.fit(X, np.full(100, 2), X_public=PublicData(X[:20]))
    assert "OutputCodeClassifier" not in str(info.value)
    assert "VotingClassifier" not in str(info.value)
