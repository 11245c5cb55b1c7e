"""GenericLearnerClassifier (Beimel-Nissim-Stemmer Alg. 1): behaviour and privacy.

Privacy is checked in two parts, as the proof of Theorem 3.3 argues it:

* labeled side, exactly: conditioned on the sanitizer's coins (so the sanitized
  database is fixed), the output distribution is computed through the
  estimator's own steps for every pair of neighbouring labeled datasets;
* unlabeled side, statistically: the whole fit is run many times on two
  unlabeled datasets differing in one row, and a Clopper-Pearson lower bound on
  epsilon (confidence 1 - 1e-6) must stay below the claim, while it exceeds it
  for the mutant that builds the cover from the raw unlabeled rows.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from sklearn_semiprivate import (
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyCost,
    PrivacyLeakWarning,
    PublicData,
    SemiPrivateClassifier,
    reproducible_noise,
)
from sklearn_semiprivate.accounting import compose_parallel
from sklearn_semiprivate.audit import (
    epsilon_lower_bound,
    max_privacy_loss_over_pairs,
    neighbouring_pairs,
)
from sklearn_semiprivate.classifiers import GenericLearnerClassifier
from sklearn_semiprivate.classifiers._base import prepare_fit_data
from sklearn_semiprivate.query_release import mwem_round_parameters
from sklearn_semiprivate.query_release._pmw_budget import default_n_rounds
from sklearn_semiprivate.query_release._xor import (
    _grid_codes,
    _StumpXorQueries,
)

ALPHA = 1e-6


def make_data(n=300, n_unlabeled=5000, n_features=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, n_features))
    y = (X[:, 1] > 0.2).astype(int)
    X_unlabeled = rng.uniform(-1, 1, size=(n_unlabeled, n_features))
    return X, y, X_unlabeled


def fit_default(**params):
    X, y, X_unl = make_data()
    params = {"bounds": (-1, 1), "classes": [0, 1], "random_state": 0, **params}
    return GenericLearnerClassifier(**params).fit(X, y, X_unlabeled=X_unl), X, y


# --- the C⊕ workload ---------------------------------------------------------


def test_workload_sums_match_brute_force():
    rng = np.random.default_rng(0)
    queries = _StumpXorQueries(5)._bind(3)
    # 3 * 4 grid stumps + 3 pairs * 4 * 4 cross-feature XORs.
    assert queries.n_queries == 3 * 4 + 3 * 16
    X = rng.integers(0, 5, size=(200, 3)).astype(float)
    w = rng.random(200)
    brute = queries.labels(X, 0, queries.n_queries) @ w
    np.testing.assert_allclose(queries.weighted_sums(X, w), brute, atol=1e-12)
    sub = queries.take(np.arange(1, queries.n_queries, 7))
    np.testing.assert_allclose(
        sub.weighted_sums(X, w), sub.labels(X, 0, sub.n_queries) @ w, atol=1e-12
    )


def _stump_labelings(n_bins, n_features, n_classes):
    """Every grid stump (and constant) with any labels, on every grid point."""
    grid = _grid_codes(n_bins, n_features)
    rows = [np.full(grid.shape[0], a) for a in range(n_classes)]
    for j, s in itertools.product(range(n_features), range(n_bins - 1)):
        for a, b in itertools.permutations(range(n_classes), 2):
            rows.append(np.where(grid[:, j] <= s, a, b))
    return np.array(rows)


def _interval_labelings(n_bins, n_classes):
    values = np.arange(n_bins)
    rows = [np.full(n_bins, a) for a in range(n_classes)]
    for i, j in itertools.combinations_with_replacement(range(n_bins), 2):
        for a, b in itertools.permutations(range(n_classes), 2):
            rows.append(np.where((values >= i) & (values <= j), a, b))
    return np.array(rows)


def _xor_error(labelings, p, q):
    """max over h, f of |P(h != f) - Q(h != f)|, by enumeration."""
    differ = labelings[:, None, :] != labelings[None, :, :]
    return float(np.abs(differ @ (p - q)).max())


@pytest.mark.parametrize(
    "kind, n_bins, n_features, n_classes, factor",
    [
        ("stumps", 4, 2, 2, 2.0),
        ("stumps", 4, 2, 3, 2.0),
        ("stumps", 3, 3, 2, 2.0),
        ("intervals", 8, 1, 2, 4.0),
        ("intervals", 6, 1, 3, 4.0),
    ],
)
def test_workload_accuracy_bounds_every_xor_query(
    kind, n_bins, n_features, n_classes, factor
):
    # The documented claim: alpha on the workload => factor * alpha on C⊕.
    queries = _StumpXorQueries(n_bins)._bind(n_features)
    grid = _grid_codes(n_bins, n_features)
    if kind == "stumps":
        labelings = _stump_labelings(n_bins, n_features, n_classes)
    else:
        labelings = _interval_labelings(n_bins, n_classes)
    rng = np.random.default_rng(1)
    ratios = []
    for _ in range(50):
        p, q = rng.dirichlet(np.ones(grid.shape[0]), size=2)
        alpha = np.abs(queries.weighted_sums(grid, p - q)).max()
        ratios.append(_xor_error(labelings, p, q) / alpha)
    assert max(ratios) <= factor + 1e-9
    assert max(ratios) > 1.0  # the same-feature queries do need the factor


def test_workload_representative_domain_is_the_grid():
    workload = _StumpXorQueries(3)
    grid = _grid_codes(3, 2)
    cover = workload._cover(grid)
    reps, class_map = workload._representative_domain(cover, grid)
    # The workload separates every two grid points.
    assert reps.shape == (9, 2)
    assert np.unique(class_map(grid)).size == 9
    with pytest.raises(ValueError, match="grid codes"):
        workload._check_points(np.array([[0.5, 1.0]]), "X")


# --- fitting -----------------------------------------------------------------


def test_fitted_attributes_and_exact_accounting():
    clf, X, y = fit_default()
    assert clf.classes_.tolist() == [0, 1]
    assert clf.n_features_in_ == 2
    np.testing.assert_array_equal(clf.bounds_, [[-1, 1], [-1, 1]])
    assert clf.synthetic_.shape == (100, 2)
    # The sanitized database holds bin centres of the 16-bin grid.
    centres = -1 + (np.arange(16) + 0.5) / 8
    assert np.isin(clf.synthetic_, centres).all()
    assert clf.cover_size_ == len(clf.cover_) > 2
    assert clf.hypothesis_.startswith("x[1]")
    assert clf.score(X, y) > 0.95
    np.testing.assert_array_equal(clf.predict_proba(X[:5]).sum(axis=1), 1.0)
    # The cover is the one built on the synthetic points (Alg. 1 steps 3-4).
    rebuilt = clf._selector(clf.bounds_)._build_cover(clf.synthetic_, clf.classes_)
    probe = np.random.default_rng(1).uniform(-1, 1, size=(200, 2))
    np.testing.assert_array_equal(rebuilt.labelings(probe), clf.cover_.labelings(probe))
    # Privacy: the sanitizer's cost is the query-release's stated MWEM cost, and
    # the fit costs their parallel composition, (epsilon, delta) exactly.
    san = clf.sanitizer_
    assert san.support == "public" and san.measurement == "gaussian"
    stated = mwem_round_parameters(
        1.0, 1e-6, san.n_iterations_, selection="exponential", measurement="gaussian"
    )["cost"]
    assert san.privacy_spent_ == stated
    assert clf.privacy_spent_ == compose_parallel([stated, PrivacyCost(1.0, 0.0)])
    assert clf.privacy_spent_ == PrivacyCost(1.0, 1e-6)


def test_pure_dp_with_delta_zero_and_explicit_rounds():
    clf, _, _ = fit_default(delta=0.0, epsilon=0.5, n_rounds=7)
    san = clf.sanitizer_
    assert san.measurement == "laplace" and san.n_iterations_ == 7
    stated = mwem_round_parameters(
        0.5, 0.0, 7, selection="exponential", measurement="laplace"
    )["cost"]
    assert san.privacy_spent_ == stated
    assert clf.privacy_spent_ == PrivacyCost(max(stated.epsilon, 0.5), 0.0)
    assert clf.privacy_spent_.epsilon == pytest.approx(0.5, abs=1e-15)


def test_no_unlabeled_rows_is_the_grid_baseline():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(300, 1))
    y = (X[:, 0] > 0.4).astype(int)
    clf = GenericLearnerClassifier(
        "thresholds", n_bins=8, bounds=(0, 1), classes=[0, 1], random_state=0
    ).fit(X, y)
    assert clf.sanitizer_ is None and clf.synthetic_ is None
    assert clf.privacy_spent_ == PrivacyCost(1.0, 0.0)
    base = SemiPrivateClassifier(
        "thresholds", n_public=8, bounds=(0, 1), classes=[0, 1], random_state=0
    ).fit(X, y)
    describe = {clf.cover_.describe(i) for i in range(clf.cover_size_)}
    assert describe == {base.cover_.describe(i) for i in range(base.cover_size_)}
    assert "x[0] <= 0.375 -> 0 else 1" in describe


def test_multiclass_and_intervals():
    rng = np.random.default_rng(0)
    X_unl = rng.uniform(0, 3, size=(5000, 1))
    X = rng.uniform(0, 3, size=(2000, 1))
    y = np.where((X[:, 0] > 1) & (X[:, 0] <= 2), "in", "out")
    clf = GenericLearnerClassifier(
        "intervals",
        n_bins=12,
        bounds=(0, 3),
        classes=["in", "mid", "out"],
        random_state=0,
    )
    with pytest.warns(UserWarning, match="predicts at most two labels"):
        clf.fit(X, y, X_unlabeled=X_unl)
    assert clf.classes_.tolist() == ["in", "mid", "out"]
    assert clf.score(X, y) > 0.95


def test_leak_warnings_without_bounds_or_classes():
    X, y, X_unl = make_data(n=100, n_unlabeled=500)
    with pytest.warns(PrivacyLeakWarning, match="bounds"):
        clf = GenericLearnerClassifier(classes=[0, 1], random_state=0)
        clf.fit(X, y, X_unlabeled=X_unl)
    # The bounds cover both private parts.
    lo = np.minimum(X.min(axis=0), X_unl.min(axis=0))
    np.testing.assert_array_equal(clf.bounds_[:, 0], lo)
    with pytest.warns(PrivacyLeakWarning, match="label set"):
        GenericLearnerClassifier(bounds=(-1, 1), random_state=0).fit(
            X, y, X_unlabeled=X_unl
        )


def test_feature_names():
    pd = pytest.importorskip("pandas")
    X, y, X_unl = make_data(n=100, n_unlabeled=500)
    clf = GenericLearnerClassifier(bounds=(-1, 1), classes=[0, 1], random_state=0)
    clf.fit(
        pd.DataFrame(X, columns=["a", "b"]),
        y,
        X_unlabeled=pd.DataFrame(X_unl, columns=["a", "b"]),
    )
    assert clf.feature_names_in_.tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="feature names"):
        clf.fit(
            pd.DataFrame(X, columns=["a", "b"]),
            y,
            X_unlabeled=pd.DataFrame(X_unl, columns=["b", "a"]),
        )


def test_accountant_charged_once_and_refuses_before_reading():
    X, y, X_unl = make_data(n=100, n_unlabeled=500)
    acc = PrivacyAccountant(epsilon=1.5, delta=1e-5)
    clf = GenericLearnerClassifier(classes=[0, 1], accountant=acc, random_state=0)
    with pytest.warns(PrivacyLeakWarning):
        clf.fit(X, y, X_unlabeled=X_unl)
    assert [c.cost for c in acc.history] == [clf.privacy_spent_]
    assert clf.privacy_spent_ == PrivacyCost(1.0, 1e-6)
    # Refused before the bounds are read: no PrivacyLeakWarning (it would raise).
    with pytest.raises(PrivacyBudgetError):
        clf.fit(X, y, X_unlabeled=X_unl)
    # The sanitizer's delta is checked too: an epsilon-only budget refuses it.
    pure = PrivacyAccountant(epsilon=10.0, delta=0.0)
    clf.set_params(accountant=pure, bounds=(-1, 1))
    with pytest.raises(PrivacyBudgetError):
        clf.fit(X, y, X_unlabeled=X_unl)
    clf.fit(X, y)  # no unlabeled rows: (epsilon, 0)
    assert [c.cost for c in pure.history] == [PrivacyCost(1.0, 0.0)]
    assert len(acc.history) == 1


BAD_INPUTS = [
    ({"epsilon": 0}, {}, ValueError),
    ({"epsilon": -1.0}, {}, ValueError),
    ({"delta": 1.0}, {}, ValueError),
    ({"n_bins": 1}, {}, ValueError),
    ({"n_synthetic": 0}, {}, ValueError),
    ({"hypothesis_class": "halfplanes"}, {}, ValueError),
    ({"hypothesis_class": "thresholds"}, {}, ValueError),  # needs one feature
    ({"n_bins": 300}, {}, ValueError),  # 300 ** 2 grid points: too many
    ({}, {"X_nan": True}, ValueError),
    ({}, {"X_unl_nan": True}, ValueError),
    ({}, {"X_unl_inf": True}, ValueError),
    ({}, {"X_unl_features": 1}, ValueError),
    ({}, {"X_unl_empty": True}, ValueError),
    ({}, {"X_unl_public": True}, TypeError),
    ({}, {"X_1d": True}, ValueError),
]


@pytest.mark.parametrize("params, data, error", BAD_INPUTS)
def test_bad_input_raises_before_any_private_release(monkeypatch, params, data, error):
    def no_release(*args, **kwargs):
        raise AssertionError("the sanitizer ran on bad input")

    monkeypatch.setattr(GenericLearnerClassifier, "_cover_points", no_release)
    X, y, X_unl = make_data(n=50, n_unlabeled=50)
    if data.get("X_nan"):
        X[3, 1] = np.nan
    if data.get("X_unl_nan"):
        X_unl[3, 1] = np.nan
    if data.get("X_unl_inf"):
        X_unl[0, 0] = np.inf
    if "X_unl_features" in data:
        X_unl = X_unl[:, : data["X_unl_features"]]
    if data.get("X_unl_empty"):
        X_unl = X_unl[:0]
    if data.get("X_unl_public"):
        X_unl = PublicData(X_unl)
    if data.get("X_1d"):
        X = X[:, 0]
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    params = {"classes": [0, 1], "bounds": (-1, 1), **params}
    clf = GenericLearnerClassifier(accountant=acc, random_state=0, **params)
    with pytest.raises(error):
        clf.fit(X, y, X_unlabeled=X_unl)
    assert acc.history == []


def test_pure_dp_default_rounds_and_cost_within_epsilon():
    # delta = 0: the sanitizer's default rounds follow Hardt, Ligett & McSherry
    # (2012), Thm 2.2, instead of hitting the 500-round cap.
    X, y, X_unl = make_data(n=200, n_unlabeled=3000)
    clf = GenericLearnerClassifier(
        n_bins=8, delta=0.0, bounds=(-1, 1), classes=[0, 1], random_state=0
    ).fit(X, y, X_unlabeled=X_unl)
    san = clf.sanitizer_
    n_queries = _StumpXorQueries(8).n_queries(2)
    assert san.n_iterations_ == default_n_rounds(3000, 1.0, 0.0, n_queries, 64)
    hlm = (3000 * math.sqrt(math.log(64)) / (10 * math.log(n_queries))) ** (2 / 3)
    assert san.n_iterations_ == math.floor(hlm) < 500
    assert clf.privacy_spent_ == PrivacyCost(1.0, 0.0)
    # Rounding of the per-round budget never lifts the cost above epsilon
    # (these once gave 0.10000000000000002).
    for n_rounds in (11, 22, 44):
        clf = GenericLearnerClassifier(
            n_bins=4,
            epsilon=0.1,
            delta=0.0,
            n_rounds=n_rounds,
            bounds=(-1, 1),
            classes=[0, 1],
            random_state=0,
        ).fit(X, y, X_unlabeled=X_unl)
        assert clf.sanitizer_.privacy_spent_.epsilon <= 0.1
        assert clf.privacy_spent_ == PrivacyCost(0.1, 0.0)


def test_predict_proba_delegates_to_the_fitted_selector():
    clf, X, _ = fit_default()
    sel = clf.selector_
    assert isinstance(sel, SemiPrivateClassifier)
    assert sel.member_ == clf.member_ and sel.cover_ is clf.cover_
    proba = clf.predict_proba(X)
    np.testing.assert_array_equal(proba, sel.predict_proba(X))
    expected = (clf.predict(X)[:, None] == clf.classes_).astype(float)
    np.testing.assert_array_equal(proba, expected)
    np.testing.assert_array_equal(clf.predict(X), clf.cover_.predict(clf.member_, X))


def test_sanitizer_is_seeded_with_a_public_int():
    # It used to get the fit's Generator, published in sanitizer_: its seed_seq
    # replayed every stream of the fit, the labeled rows' mechanism included.
    clf, _, _ = fit_default(random_state=3)
    assert type(clf.sanitizer_.random_state) is int


def test_unlabeled_format_errors_name_x_unlabeled():
    X, y, X_unl = make_data(n=50, n_unlabeled=50)
    X_unl[3, 1] = np.nan
    clf = GenericLearnerClassifier(bounds=(-1, 1), classes=[0, 1], random_state=0)
    with pytest.raises(ValueError, match="X_unlabeled"):
        clf.fit(X, y, X_unlabeled=X_unl)
    with pytest.raises(ValueError, match="features"):
        clf.fit(X, y, X_unlabeled=X_unl[:, :1])


def test_same_seed_same_fit_under_reproducible_noise():
    with reproducible_noise():
        a, _, _ = fit_default(random_state=3)
        b, _, _ = fit_default(random_state=3)
    np.testing.assert_array_equal(a.synthetic_, b.synthetic_)
    assert a.hypothesis_ == b.hypothesis_


# --- accuracy ------------------------------------------------------------------


def _concentrated(n, seed):
    # The data sit in a narrow part of the public domain box (0, 1).
    rng = np.random.default_rng(seed)
    X = np.clip(0.5 + 0.005 * rng.standard_normal((n, 1)), 0, 1)
    return X, (X[:, 0] > 0.5025).astype(int)


@pytest.mark.statistical
def test_few_labels_beat_the_grid_baseline_on_a_fine_domain():
    # Theorem 3.3: the labeled sample does not grow with the domain. On a
    # 4096-bin grid with 40 labeled rows, the cover of every grid threshold
    # (8192 members, nearly all of them outside the data) loses to the cover
    # built on 100 sanitized points. Measured over these 48 seeds under
    # reproducible_noise: 0.927 vs 0.798 (paired t-test p = 7.6e-8); one run
    # with fresh noise gave 0.911 vs 0.765 (p = 1.2e-8), another p = 1.0e-5,
    # which is why the test is seeded. At m = 200 both pick the best
    # threshold (0.988 each); with data spread over the whole box (Beta(2, 5))
    # the grid baseline is as good or slightly better from m = 50 on (0.975 vs
    # 0.958 at m = 50, 30 seeds).
    X_test, y_test = _concentrated(5000, 999)
    generic, grid = [], []
    # Seeded (noise included) so that the figures above are reproducible; the
    # privacy tests below run with fresh noise.
    with reproducible_noise():
        _few_labels_scores(X_test, y_test, generic, grid)
    # One-sided paired t-test over the seeds, at level 1e-6.
    test = stats.ttest_rel(generic, grid, alternative="greater")
    assert test.pvalue < ALPHA
    assert np.mean(generic) > 0.9


def _few_labels_scores(X_test, y_test, generic, grid):
    for seed in range(48):
        X, y = _concentrated(40, seed)
        X_unl, _ = _concentrated(5000, 1000 + seed)
        params = dict(n_bins=4096, bounds=(0, 1), classes=[0, 1], random_state=seed)
        clf = GenericLearnerClassifier("thresholds", **params)
        generic.append(clf.fit(X, y, X_unlabeled=X_unl).score(X_test, y_test))
        grid.append(clf.fit(X, y).score(X_test, y_test))


# --- privacy: labeled side, exact ------------------------------------------------

EPSILON = 2.0
DOMAIN = [
    ((x, z), label) for x in (0.0, 2.0, 3.0) for z in (0.0, 2.0) for label in (0, 1)
]
PROBE = np.array([[x, z] for x in (0.25, 0.75, 1.25, 2.25, 3.25) for z in (0.5, 2.5)])
UNLABELED = np.array([[0.2, 0.3], [1.4, 2.6], [2.5, 1.5], [3.6, 0.2], [0.9, 3.1]])


def _fixed_sanitizer():
    """Public-side streams and the sanitizer's int seed of the conditioned fits."""
    return np.random.default_rng(0), 1, np.random.default_rng(2)


def _as_arrays(dataset):
    X = np.array([row[0] for row in dataset], dtype=float)
    y = np.array([row[1] for row in dataset])
    return X, y


def output_log_distribution(clf, dataset, public=None):
    """Exact log P(released labeling of PROBE), the sanitizer's coins fixed.

    ``public``: labeled public rows, which join the cover's points and the
    selection's score (a base measure), as in the fit.
    """
    X, y = _as_arrays(dataset)
    data = prepare_fit_data(
        clf, X, y, public, None, classes=clf.classes, n_public=None, rng=None
    )
    bounds = np.array([[0.0, 4.0], [0.0, 4.0]])
    selector = clf._selector(bounds)
    # The sanitizer's coins fixed: an int seed under the reproducible opt-in.
    with reproducible_noise():
        points, _ = clf._cover_points(
            data, UNLABELED, bounds, selector, *_fixed_sanitizer()
        )
    if public is not None:
        points = np.vstack([points, public.X])
    cover = selector._build_cover(points, data.classes)
    log_p = selector._member_log_probabilities(cover, data)
    codes = cover.labelings(PROBE) @ (2 ** np.arange(len(PROBE)))
    out = np.full(2 ** len(PROBE), -np.inf)
    np.logaddexp.at(out, codes, log_p)
    return out


def _make(cls=GenericLearnerClassifier, **params):
    params = {
        "epsilon": EPSILON,
        "n_bins": 4,
        "n_synthetic": 30,
        "bounds": (0, 4),
        "classes": [0, 1],
        **params,
    }
    return cls(**params)


def worst_labeled_loss(clf, relation, public=None):
    cache = {}

    def distribution(dataset):
        if dataset not in cache:
            cache[dataset] = output_log_distribution(clf, dataset, public)
        return cache[dataset]

    pairs = neighbouring_pairs(DOMAIN, n_rows=2, relation=relation)
    return max_privacy_loss_over_pairs(distribution, pairs, log=True).epsilon


class SelectionEpsilonTooBig(GenericLearnerClassifier):
    def _selector(self, bounds):
        selector = super()._selector(bounds)
        return selector.set_params(epsilon=1.5 * self.epsilon)


class CoverFromLabeledRows(GenericLearnerClassifier):
    def _cover_points(self, data, *args):
        points, sanitizer = super()._cover_points(data, *args)
        return np.vstack([points, data.X]), sanitizer


@pytest.mark.parametrize("relation", ["replace_one", "add_remove"])
def test_labeled_side_is_epsilon_dp_exactly(relation):
    clf = _make()
    loss = worst_labeled_loss(clf, relation)
    assert loss <= EPSILON + 1e-9
    # Not vacuous. Measured: 1.43 (replace-one) and 0.81 (add/remove) of the
    # bound 2.0; under add/remove every score moves the same way, so at most
    # epsilon / 2 of the factor is used. The mutants reach 2.36 and infinity.
    assert loss > (0.7 if relation == "replace_one" else 0.35) * EPSILON


def test_labeled_side_with_public_labels_is_epsilon_dp_exactly():
    # Labeled public rows are a base measure of the score: they must not
    # change the private rows' sensitivity. A mutation review counted private
    # rows twice when public labels were given and no test here failed.
    public = PublicData(
        np.array([[1.0, 1.0], [2.5, 3.0], [3.5, 1.0]]), np.array([0, 1, 1])
    )
    loss = worst_labeled_loss(_make(), "replace_one", public)
    assert 0.7 * EPSILON < loss <= EPSILON + 1e-9


@pytest.mark.parametrize("mutant", [SelectionEpsilonTooBig, CoverFromLabeledRows])
def test_labeled_side_mutants_are_caught(mutant):
    assert worst_labeled_loss(_make(mutant), "replace_one") > EPSILON + 1e-3


@pytest.mark.statistical
def test_fit_samples_the_audited_distribution():
    dataset = (((0.0, 0.0), 0), ((2.0, 2.0), 1), ((3.0, 0.0), 1), ((2.0, 0.0), 1))
    X, y = _as_arrays(dataset)
    p = np.exp(output_log_distribution(_make(), dataset))

    class FixedCoins(GenericLearnerClassifier):
        # The sanitizer's coins as in output_log_distribution; the mechanism's
        # coins come from each fit's own seed (below).
        def _cover_points(self, data, X_unl, bounds, selector, *rngs):
            with reproducible_noise():
                return super()._cover_points(
                    data, X_unl, bounds, selector, *_fixed_sanitizer()
                )

    clf = _make(FixedCoins)
    n_fits = 2000
    weights = 2 ** np.arange(len(PROBE))
    # A distinct seed per fit under reproducible_noise: independent draws of the
    # mechanism and a fixed verdict. With fresh noise this test at ALPHA = 1e-6
    # failed at about its nominal rate (1e-6 to 3e-6 per run, simulated).
    with reproducible_noise():
        codes = [
            int(
                clf.set_params(random_state=seed)
                .fit(X, y, X_unlabeled=UNLABELED)
                .predict(PROBE)
                @ weights
            )
            for seed in range(n_fits)
        ]
    observed = np.bincount(codes, minlength=p.size)
    support = p > 0
    assert observed[~support].sum() == 0
    keep = p * n_fits > 5  # the chi-square approximation holds on these cells
    rest = support & ~keep
    expected, counts = p[keep] * n_fits, observed[keep]
    if rest.any():  # the rare outputs, lumped into one cell
        expected = np.append(expected, p[rest].sum() * n_fits)
        counts = np.append(counts, observed[rest].sum())
    assert expected.min() > 5
    _, p_value = stats.chisquare(counts, expected)
    assert p_value > ALPHA  # p = 0.44 with these seeds


# --- privacy: unlabeled side, statistical -------------------------------------

LABELED_X = np.array([[0.1], [0.2], [0.3], [0.4], [0.6], [0.7], [0.8], [0.9]])
LABELED_Y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
# Neighbours under replace-one: one unlabeled row moves from bin 0 to bin 3.
D = np.array([[0.1], [0.1], [0.1], [0.1]])
D_PRIME = np.array([[0.1], [0.1], [0.1], [0.9]])
N_FITS = 400


class CoverFromRawUnlabeled(GenericLearnerClassifier):
    def _cover_points(self, data, X_unl, *args):
        _, sanitizer = super()._cover_points(data, X_unl, *args)
        return X_unl, sanitizer


def _released_codes(clf, X_unl, seed0):
    # A distinct seed per fit under reproducible_noise (the sanitizer's noise
    # follows from it too): independent fits and a fixed verdict. With fresh
    # noise each bound at ALPHA = 1e-6 failed with probability up to ALPHA.
    probe = (np.arange(4)[:, None] + 0.5) / 4
    weights = 2 ** np.arange(4)
    with reproducible_noise():
        return np.array(
            [
                int(
                    clf.set_params(random_state=seed0 + s)
                    .fit(LABELED_X, LABELED_Y, X_unlabeled=X_unl)
                    .predict(probe)
                    @ weights
                )
                for s in range(N_FITS)
            ]
        )


def _unlabeled_lower_bound(cls):
    # Pure DP (delta = 0): the claim is (epsilon, 0) for the unlabeled rows.
    clf = cls(
        "thresholds",
        epsilon=1.0,
        delta=0.0,
        n_bins=4,
        bounds=(0, 1),
        classes=[0, 1],
    )
    a = _released_codes(clf, D, 0)
    b = _released_codes(clf, D_PRIME, 10**6)
    return categorical_lower_bound(a, b)


def categorical_lower_bound(a, b):
    """Clopper-Pearson lower bound on epsilon for categorical outputs.

    The event ``{output == c}`` and its direction are chosen on the first
    halves of the samples; the bound is computed on the second halves only, so
    it holds with probability ``1 - ALPHA``.
    """
    half_a, half_b = a.size // 2, b.size // 2
    sel_a, test_a, sel_b, test_b = a[:half_a], a[half_a:], b[:half_b], b[half_b:]
    candidates = []
    for code in np.union1d(a, b):
        for first, second in ((sel_a, sel_b), (sel_b, sel_a)):
            res = epsilon_lower_bound(
                first, second, lambda x, c=code: x == c, alpha=ALPHA
            )
            candidates.append((res.epsilon, code, first is sel_a))
    _, code, a_first = max(candidates, key=lambda c: c[0])
    first, second = (test_a, test_b) if a_first else (test_b, test_a)
    return epsilon_lower_bound(first, second, lambda x: x == code, alpha=ALPHA).epsilon


@pytest.mark.statistical
def test_unlabeled_side_epsilon_lower_bound_below_claim():
    # Blind to the sanitizer's noise (a review): on this 4-bin grid the
    # sanitized database fills every bin whatever the noise, so the released
    # cover is the same on D and D', even with the sanitizer at 4 epsilon;
    # with one synthetic draw the bound is 0.0 at 1x and 4x too (400 fits a
    # side). What it catches is a cover read off the raw rows (next test).
    # The sanitizer's epsilon is pinned by test_fitted_attributes_and_exact_
    # accounting (a 2x mutant fails it), its noise by the query-release tests.
    assert _unlabeled_lower_bound(GenericLearnerClassifier) <= 1.0


@pytest.mark.statistical
def test_cover_from_raw_unlabeled_rows_is_caught():
    # The mutant's cover on D has no cut at all; on D' it has the perfect one.
    assert _unlabeled_lower_bound(CoverFromRawUnlabeled) > 1.0


# --- scikit-learn conformance ------------------------------------------------------


def test_metadata_routing_passes_unlabeled_rows():
    import sklearn
    from sklearn.model_selection import cross_validate

    # 600 rows (400 a training fold): with 200, the lowest fold score was
    # <= 0.9 in 2 of 300 runs (0.85 at worst). With 600: lowest of 550 runs
    # 0.94 (396 of 400 at 0.96).
    X, y, X_unl = make_data(n=600, n_unlabeled=1000)
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-4)
    clf = GenericLearnerClassifier(
        bounds=(-1, 1), classes=[0, 1], accountant=acc, random_state=0
    )
    with sklearn.config_context(enable_metadata_routing=True):
        res = cross_validate(clf, X, y, cv=3, params={"X_unlabeled": X_unl})
    assert res["test_score"].min() > 0.9
    # One spend per fold, each the full (epsilon, delta) of a fit.
    assert [c.cost for c in acc.history] == [PrivacyCost(1.0, 1e-6)] * 3


def test_huge_private_unlabeled_row_warns_nothing():
    # Review: the grid codes of the unlabeled rows overflowed on a value near
    # the largest double, and the overflow warning depended on that row.
    import warnings

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 1))
    y = (X[:, 0] > 0.3).astype(int)
    X_unlabeled = rng.uniform(size=(300, 1))
    X_unlabeled[0, 0] = 1e308
    clf = GenericLearnerClassifier(
        "thresholds", epsilon=1.0, n_bins=16, bounds=(0, 1), classes=[0, 1]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.fit(X, y, X_unlabeled=X_unlabeled)


@pytest.mark.parametrize("bad", [(1, 0), (0, np.nan), (0, np.inf)])
def test_bad_bounds_are_refused_before_the_charge(bad):
    # A public parameter; a review found it checked after the reservation
    # (and so inside pipelines, searches and the active classifier too).
    rng = np.random.default_rng(0)
    X, y = rng.uniform(size=(50, 1)), np.arange(50) % 2
    ledger = PrivacyAccountant(epsilon=10.0)
    clf = GenericLearnerClassifier(bounds=bad, classes=[0, 1], accountant=ledger)
    with pytest.raises(ValueError, match="bounds must be finite"):
        clf.fit(X, y)
    assert len(ledger.history) == 0


@pytest.mark.parametrize("unlabeled", [False, True])
def test_generic_private_labels_outside_classes_fail_after_the_charge(unlabeled):
    # As for PATE and the synthetic classifier (their tests of the same
    # name): whether the private y holds a label outside classes is read
    # off the private rows, so the fit that finds one stays charged. A
    # mutation review moved GenericLearnerClassifier's check before its
    # reservation and no test failed.
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(50, 1))
    y = (X[:, 0] > 0.5).astype(int)
    y[7] = 2
    X_unlabeled = rng.uniform(size=(100, 1)) if unlabeled else None
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = GenericLearnerClassifier(
        "thresholds", bounds=(0, 1), classes=[0, 1], accountant=acc
    )
    with pytest.raises(ValueError, match="some labels that are not among"):
        clf.fit(X, y, X_unlabeled=X_unlabeled)
    assert len(acc.history) == 1
    assert acc.spent() == PrivacyCost(1.0, 1e-6 if unlabeled else 0.0)
