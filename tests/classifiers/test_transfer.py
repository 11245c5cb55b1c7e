"""SubsampleTestReweighClassifier (Kohen-Sheffet 2022, Alg. 1 and 2).

* Pi_kappa is kappa-dense and equals a brute-force root of its equation;
* the local randomizer's epsilon is checked exactly (a Laplace randomizer of
  scale 1/(25 eps), as in a public reference implementation, is caught), and
  its de-biased estimates are unbiased;
* Claim 4.1 and Thm 4.2's arithmetic asserted exactly, and the rows-needed
  boundary;
* each local agent answers at most once;
* a statistical epsilon lower bound of a tiny curator round stays below
  Claim 4.1's epsilon, and exceeds it for a learner left at epsilon 25;
* bad input raises before the ledger is charged or the learner is fitted.
"""

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from sklearn_semiprivate import (
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyCost,
    PrivacyLeakWarning,
    PrivateSGDClassifier,
    PublicData,
    SubsampleTestReweighClassifier,
    reproducible_noise,
)
from sklearn_semiprivate.accounting import compose_advanced
from sklearn_semiprivate.accounting._reservation import reserve_budget
from sklearn_semiprivate.audit import epsilon_lower_bound
from sklearn_semiprivate.classifiers import _transfer_steps as steps
from sklearn_semiprivate.mechanisms import project_kappa_dense
from sklearn_semiprivate.utils import noise_rng, warn_private_read


class NoisyMajority(ClassifierMixin, BaseEstimator):
    """A tiny DP learner: the majority label by a Laplace count (sensitivity 1)."""

    def __init__(self, epsilon=1.0, classes=None, random_state=None):
        self.epsilon = epsilon
        self.classes = classes
        self.random_state = random_state

    def _privacy_cost(self, **fit_params):
        return PrivacyCost(float(self.epsilon), 0.0)

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        ones = np.sum(y == 1) + noise_rng(self.random_state).laplace(
            0.0, 1.0 / self.epsilon
        )
        self.label_ = int(ones > y.size / 2)
        return self

    def predict(self, X):
        return np.full(np.asarray(X).shape[0], self.label_)


class Spy(NoisyMajority):
    """Counts its fits (class-level, clones included)."""

    fits = 0

    def fit(self, X, y):
        type(self).fits += 1
        return super().fit(X, y)


def source_target(n=3000, n_target=4000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X_t = rng.normal(0.5, 0.5, size=(n_target, 2))
    return X, (X[:, 0] > 0).astype(int), X_t, (X_t[:, 0] > 0).astype(int)


def stl(estimator=None, **params):
    params = {
        "alpha": 0.1, "epsilon": 2.0, "delta": 1e-5, "kappa": 0.5,
        "local_epsilon": 1.0, "max_iter": 3, "n_subsample": 20, **params,
    }  # fmt: skip
    return SubsampleTestReweighClassifier(
        estimator or NoisyMajority(classes=[0, 1]), **params
    )


# -- Pi_kappa (eq. (2), Def. 4.1) ---------------------------------------------


def brute_force_projection(w, kappa):
    """Smallest c with sum(min(c w, 1)) = kappa n, by bisection on c."""
    n = w.size
    lo, hi = 0.0, 1.0 / w.min()  # at hi every entry is capped: sum = n
    for _ in range(200):
        mid = (lo + hi) / 2
        if np.minimum(mid * w, 1.0).sum() >= kappa * n:
            hi = mid
        else:
            lo = mid
    return np.minimum(hi * w, 1.0)


@pytest.mark.parametrize("kappa", [0.05, 0.3, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_projection_is_kappa_dense_and_solves_its_equation(kappa, seed):
    rng = np.random.default_rng(seed)
    w = np.exp(rng.normal(scale=3.0, size=200))  # weights over many scales
    p = project_kappa_dense(w, kappa)
    assert math.isclose(p.sum(), kappa * w.size, rel_tol=1e-10)
    assert p.max() <= 1.0 + 1e-12
    # Def. 4.1: kappa * max <= mean (so max mu <= 1 / (kappa n)).
    assert kappa * p.max() <= p.mean() * (1 + 1e-10)
    np.testing.assert_allclose(p, brute_force_projection(w, kappa), rtol=1e-9)
    # The same from log weights, as the fit calls it.
    np.testing.assert_allclose(
        project_kappa_dense(np.log(w), kappa, log_weights=True), p, rtol=1e-9
    )


def test_round_distribution_is_kappa_dense_after_reweighing():
    X, y, _, _ = source_target(n=500)
    log_w = np.full(500, math.log(0.2))
    # 400 rounds where only the ~2% of rows with x > 2 are misclassified: the
    # others lose a factor e^5, so unprojected mu would put ~1/(0.02 n) on them.
    for _ in range(400):
        log_w = steps.reweigh(log_w, (X[:, 0] > 2.0).astype(float), 0.1)
    assert np.all(log_w <= math.log(0.2))  # weights stay in (0, kappa]
    _, mu = steps.curator_round(
        X, y, log_w, 0.2, 10, NoisyMajority(), np.random.default_rng(0)
    )
    assert mu.max() <= 1.0 / (0.2 * 500) * (1 + 1e-12)


# -- the local randomizer -------------------------------------------------------


LOSSES = np.linspace(0.0, 1.0, 11)


def exact_local_epsilon(randomizer, losses=LOSSES):
    """max over outputs and pairs of losses of |log P(o|a) - log P(o|b)|."""
    logp = np.log(randomizer.output_probabilities(losses))
    return float(np.max(logp.max(axis=0) - logp.min(axis=0)))


def laplace_epsilon(scale, losses=LOSSES):
    """Exact LDP epsilon of loss + Laplace(scale) on [0, 1], on an output grid."""
    out = np.linspace(-5.0, 6.0, 2201)[:, None]
    logp = -np.abs(out - losses[None, :]) / scale
    return float(np.max(logp.max(axis=1) - logp.min(axis=1)))


@pytest.mark.parametrize("local_epsilon", [0.1, 0.5, 1.0, 3.0])
def test_local_randomizer_epsilon_is_exact(local_epsilon):
    rr = steps.local_randomizer(local_epsilon, 0.0)
    assert math.isclose(exact_local_epsilon(rr), local_epsilon, rel_tol=1e-12)
    assert rr.privacy_cost == PrivacyCost(local_epsilon, 0.0)
    # The reference implementation's Laplace of scale 1/(25 eps) is 25 eps-LDP:
    # the same check catches it.
    mutant = laplace_epsilon(1.0 / (25 * local_epsilon))
    assert math.isclose(mutant, 25 * local_epsilon, rel_tol=1e-9)
    assert mutant > local_epsilon


def test_gaussian_local_randomizer_meets_its_delta_exactly():
    # Balle & Wang 2018, Thm 8: the exact delta(eps) of N(0, s^2), sensitivity 1.
    eps, delta = 1.0, 1e-6
    s = steps.local_randomizer(eps, delta).sigma
    exact = norm.cdf(0.5 / s - eps * s) - math.exp(eps) * norm.cdf(-0.5 / s - eps * s)
    assert exact <= delta * (1 + 1e-9)
    # The paper's sigma^2 = 2 ln(2/delta)/eps^2 is larger (also valid).
    assert s <= math.sqrt(2 * math.log(2 / delta)) / eps


def test_randomized_response_estimate_is_unbiased_exactly():
    rr = steps.local_randomizer(0.7, 0.0)
    for loss in [0.0, 0.25, 0.5, 1.0]:
        p0, p1 = rr.output_probabilities(loss)
        expected = p0 * rr.estimate_mean([0]) + p1 * rr.estimate_mean([1])
        assert math.isclose(expected, loss, abs_tol=1e-12)


@pytest.mark.statistical
@pytest.mark.parametrize("local_delta", [0.0, 1e-5])
def test_local_test_is_unbiased(local_delta):
    # 0-1 losses of a constant hypothesis: the batch's mean is known exactly.
    rng = np.random.default_rng(0)
    y = (rng.random(2000) < 0.3).astype(int)
    h = NoisyMajority().fit(np.zeros((2, 1)), np.array([0, 0]))
    h.label_ = 0
    true = float(np.mean(y != 0))
    rr = steps.local_randomizer(1.0, local_delta)
    est = np.array(
        [steps.local_test(h, np.zeros((2000, 1)), y, rr, rng) for _ in range(400)]
    )
    se = est.std(ddof=1) / math.sqrt(est.size)
    assert abs(est.mean() - true) < 5 * se  # 5 standard errors: p < 1e-6


# -- accounting -----------------------------------------------------------------


def test_composition_arithmetic_exactly():
    X, y, X_t, y_t = source_target(n=6000, n_target=30_000)
    sgd = PrivateSGDClassifier(classes=[0, 1], bounds=(-4, 4), n_epochs=1.0)
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = stl(sgd, kappa=0.5, max_iter=4, n_subsample=50, accountant=acc)
    clf.fit(X, y, X_target=X_t, y_target=y_t)
    kappa, T, m, n, delta = 0.5, 4, 50, 6000, 1e-5
    # The learner at replace-one (1, kappa delta / (8 e T)) (Thm 4.2's proof):
    # stated (1/2, delta_M / (1 + e^(1/2))), doubled by group privacy.
    delta_m = kappa * delta / (8 * math.e * T)
    assert clf.learner_privacy_.epsilon == 1.0
    assert math.isclose(clf.learner_privacy_.delta, delta_m, rel_tol=1e-12)
    # Claim 4.1.
    eps_star = 6 * 1.0 * m / (kappa * n)
    delta_star = 4 * m * math.exp(eps_star) * clf.learner_privacy_.delta / (kappa * n)
    assert clf.round_privacy_ == PrivacyCost(eps_star, delta_star)
    # Thm 4.2: advanced composition with slack delta / 2 (or basic if smaller).
    adv = math.sqrt(2 * T * math.log(2 / delta)) * eps_star + T * eps_star * math.expm1(
        eps_star
    )
    assert clf.curator_bound_ == compose_advanced(clf.round_privacy_, T, delta / 2)
    expected = (
        PrivacyCost(adv, T * delta_star + delta / 2)
        if adv < T * eps_star
        else PrivacyCost(T * eps_star, T * delta_star)
    )
    assert clf.curator_bound_ == expected
    assert clf.curator_bound_.epsilon <= 2.0 and clf.curator_bound_.delta <= delta
    assert clf.privacy_spent_ == PrivacyCost(2.0, 1e-5) == acc.spent()
    assert clf.local_privacy_ == PrivacyCost(1.0, 0.0)


def test_rows_needed_is_the_exact_boundary():
    cost, m, kappa, T, eps, delta = PrivacyCost(1.0, 1e-9), 30, 0.25, 20, 1.0, 1e-6
    needed = steps.curator_rows_needed(cost, m, kappa, T, eps, delta)

    def composed(n):
        return steps.curator_privacy_cost(
            steps.round_privacy_cost(cost, m, kappa, n), T, delta
        )

    assert composed(needed).epsilon <= eps and composed(needed).delta <= delta
    assert composed(needed - 1).epsilon > eps
    # Thm 4.2's closed form is sufficient, hence at least the exact need.
    assert needed <= m * math.sqrt(288 * T * math.log(2 / delta)) / (eps * kappa)


def test_rows_needed_keep_each_round_within_claim_4_1s_range():
    # A review: at a large target epsilon with one round, the composition fit
    # from n = 118 rows, a round at eps* = 2.54; Thm 4.2's proof uses Claim
    # 4.1 only at eps* < 1, and the lemma behind the claim is not at hand to
    # check a wider range. The rows needed now keep eps* <= 1.
    cost, m, kappa, T, eps, delta = PrivacyCost(1.0, 4.6e-7), 50, 1.0, 1, 4.0, 1e-5
    needed = steps.curator_rows_needed(cost, m, kappa, T, eps, delta)
    assert needed == 300  # 6 * 1 * 50 / 300 = 1
    assert steps.round_privacy_cost(cost, m, kappa, needed).epsilon <= 1.0
    assert steps.round_privacy_cost(cost, m, kappa, needed - 1).epsilon > 1.0
    # The composition alone would have allowed far fewer rows.
    composed = steps.curator_privacy_cost(
        steps.round_privacy_cost(cost, m, kappa, 118), T, delta
    )
    assert composed.epsilon <= eps and composed.delta <= delta


def test_too_few_curator_rows_raises_naming_the_rows_needed():
    X, y, X_t, y_t = source_target(n=1000)
    Spy.fits = 0
    clf = stl(Spy(classes=[0, 1]), epsilon=0.5, max_iter=3, n_subsample=20, kappa=0.5)
    needed = steps.curator_rows_needed(PrivacyCost(1.0, 0.0), 20, 0.5, 3, 0.5, 1e-5)
    assert needed > 1000
    with pytest.raises(ValueError, match=f"needs n >= {needed} curator rows"):
        clf.fit(X, y, X_target=X_t, y_target=y_t)
    assert Spy.fits == 0


# -- local agents -------------------------------------------------------------------


def test_each_local_agent_answers_at_most_once(monkeypatch):
    X, y, _, _ = source_target(n=3000)
    rng = np.random.default_rng(1)
    X_t = np.column_stack([np.arange(5000.0), rng.normal(size=5000)])  # ids
    y_t = 1 - (X_t[:, 1] > 0).astype(int)  # never fits: no halt
    seen = []
    original = steps.local_test

    def recording(h, X_batch, y_batch, randomizer, rng):
        seen.append(X_batch[:, 0].copy())
        return original(h, X_batch, y_batch, randomizer, rng)

    monkeypatch.setattr(steps, "local_test", recording)
    answered = []
    original_randomizer = steps.local_randomizer

    def counting(eps, delta):
        rr = original_randomizer(eps, delta)
        sample = rr.sample

        def counted(losses, *, random_state=None):
            answered.append(np.size(losses))
            return sample(losses, random_state=random_state)

        rr.sample = counted
        return rr

    monkeypatch.setattr(steps, "local_randomizer", counting)
    clf = stl(
        epsilon=20.0, local_epsilon=2.0, n_agents_per_round=600, max_iter=8,
        alpha=0.01,
    )  # fmt: skip
    clf.fit(X, y, X_target=X_t, y_target=y_t)
    assert len(seen) == clf.n_iter_ and clf.n_iter_ >= 2
    ids = np.concatenate(seen)
    assert ids.size == 600 * clf.n_iter_ == np.unique(ids).size
    assert answered == [600] * clf.n_iter_  # one answer per agent, per round
    np.testing.assert_array_equal(clf.history_["n_agents"], 600)


def test_too_few_local_agents_raises_before_any_read():
    X, y, X_t, y_t = source_target(n=3000, n_target=1000)
    Spy.fits = 0
    acc = PrivacyAccountant(epsilon=10.0)
    clf = stl(Spy(classes=[0, 1]), max_iter=3, accountant=acc)
    n0 = steps.agents_per_round(0.1, 0.1, 3, 1.0, 0.0)
    with pytest.raises(ValueError, match=f"it needs {3 * n0} target rows"):
        clf.fit(X, y, X_target=X_t, y_target=y_t)
    assert Spy.fits == 0 and acc.spent() == PrivacyCost(0.0, 0.0)


# -- statistical epsilon lower bound ----------------------------------------------


def curator_outputs(y, kappa, m, settings, n_samples, rng):
    """Outputs of Claim 4.1's round (the fit's own code) on labels y."""
    X = np.zeros((y.size, 1))
    log_w = np.full(y.size, math.log(kappa))
    learner = NoisyMajority().set_params(**settings)
    return np.array(
        [
            steps.curator_round(X, y, log_w, kappa, m, clone(learner), rng)[0].label_
            for _ in range(n_samples)
        ]
    )


@pytest.mark.statistical
@pytest.mark.parametrize("mutant", [False, True])
def test_statistical_epsilon_lower_bound_of_a_curator_round(mutant):
    n, m, kappa = 12, 2, 1.0
    settings = steps.learner_settings({"epsilon": 1.0}, kappa, 1e-5, 1)
    assert settings == {"epsilon": 0.5}
    claimed = steps.round_privacy_cost(
        steps.replace_one_cost((settings["epsilon"], 0.0)), m, kappa, n
    )
    assert claimed == PrivacyCost(1.0, 0.0)
    if mutant:
        settings = {"epsilon": 12.5}  # the learner at 25 (replace-one)
    rng = np.random.default_rng(0)
    y = np.zeros(n, dtype=int)
    y_prime = y.copy()
    y_prime[0] = 1
    a = curator_outputs(y_prime, kappa, m, settings, 20_000, rng)
    b = curator_outputs(y, kappa, m, settings, 20_000, rng)
    bound = epsilon_lower_bound(a, b, lambda out: out == 1, alpha=1e-3)
    if mutant:
        assert bound.epsilon > claimed.epsilon
    else:
        assert bound.epsilon <= claimed.epsilon


# -- bad input, before any private read ----------------------------------------


@pytest.mark.parametrize(
    "params, match",
    [
        ({"kappa": 0.0}, "kappa"),
        ({"kappa": 1.5}, "kappa"),
        ({"alpha": 0.125}, "alpha"),
        ({"alpha": 0.2}, "alpha"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"local_epsilon": 0.0}, "local_epsilon"),
        ({"delta": 0.0}, "delta"),
        ({"kappa": None}, "Give kappa or chi2_bound"),
        ({"max_iter": None}, "Give max_iter or chi2_bound"),
    ],
)
def test_bad_parameters_raise_before_any_read(params, match):
    X, y, X_t, y_t = source_target()
    Spy.fits = 0
    acc = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(ValueError, match=match):
        stl(Spy(classes=[0, 1]), accountant=acc, **params).fit(
            X, y, X_target=X_t, y_target=y_t
        )
    assert Spy.fits == 0 and acc.spent() == PrivacyCost(0.0, 0.0)


def _with(arr, value):
    arr = arr.astype(float).copy()
    arr[3, 0] = value
    return arr


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda X, y, Xt, yt: (X, y, Xt[:, :1], yt), "X_target has 1 features"),
        (lambda X, y, Xt, yt: (_with(X, np.nan), y, Xt, yt), "NaN"),
        (lambda X, y, Xt, yt: (X, y, _with(Xt, np.inf), yt), "infinity"),
        (lambda X, y, Xt, yt: (X, y, Xt, yt.astype(float) * np.nan), "NaN"),
        (lambda X, y, Xt, yt: (X, y, Xt, yt[:-1]), "one label per row"),
        (lambda X, y, Xt, yt: (X, y, None, yt), "needs the target"),
    ],
)
def test_bad_data_raises_before_any_read(change, match):
    X, y, X_t, y_t = change(*source_target())
    Spy.fits = 0
    acc = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(ValueError, match=match):
        stl(Spy(classes=[0, 1]), accountant=acc).fit(X, y, X_target=X_t, y_target=y_t)
    assert Spy.fits == 0 and acc.spent() == PrivacyCost(0.0, 0.0)


def test_both_target_sources_is_an_error():
    X, y, X_t, y_t = source_target()
    with pytest.raises(ValueError, match="not both"):
        stl().fit(X, y, X_target=X_t, y_target=y_t, target_oracle=lambda h: 0.0)
    with pytest.raises(TypeError, match="callable"):
        stl().fit(X, y, target_oracle=0.5)


def test_private_mode_needs_a_private_learner():
    X, y, X_t, y_t = source_target()
    with pytest.raises(TypeError, match="'epsilon' parameter"):
        stl(LogisticRegression()).fit(X, y, X_target=X_t, y_target=y_t)


# -- the algorithms ---------------------------------------------------------------


def test_algorithm_1_on_a_concentrated_target():
    # Appendix C in 2-D: T has sd 0.1 on the label's coordinate and the
    # threshold puts 5% of T's mass on one side; a 20-row subsample of S
    # misses T's boundary until the reweighing moves the mass there.
    rng = np.random.default_rng(3)
    q = 0.1 * norm.ppf(0.05)
    X = rng.normal(size=(20_000, 2))
    X_t = rng.normal(size=(20_000, 2)) * [0.1, 1.0]
    y, y_t = (X[:, 0] > q).astype(int), (X_t[:, 0] > q).astype(int)
    clf = SubsampleTestReweighClassifier(
        LogisticRegression(C=1e4), alpha=0.02, epsilon=1.0, delta=1e-5,
        local_epsilon=1.0, max_iter=300, n_subsample=20, private=False,
        random_state=1,
    )  # fmt: skip
    clf.fit(X, y, X_target=X_t, y_target=y_t)
    tau = math.sqrt(math.log(2 * 300 / 0.1) / (2 * 20_000))
    assert math.isclose(clf.tolerance_, tau) and clf.threshold_ == 0.04 + tau
    assert clf.halted_ and clf.n_iter_ >= 2
    assert clf.history_["target_loss"][-1] <= clf.threshold_
    assert np.all(clf.history_["target_loss"][:-1] > clf.threshold_)
    assert clf.score(X_t, y_t) >= 1 - clf.threshold_
    # Alg. 1's plain weights: uniform at first, then the largest grows.
    assert clf.history_["max_weight"][0] == pytest.approx(1.0)
    assert clf.history_["max_weight"][-1] > 1.0
    assert clf.privacy_spent_ == PrivacyCost(math.inf, 1.0)


def test_agnostic_variant_keeps_the_smallest_estimate():
    X, y, _, _ = source_target(n=3000)
    answers = iter([0.9, 0.5, 0.7, 0.6])
    clf = stl(epsilon=20.0, max_iter=4, alpha=0.05)
    clf.fit(X, y, target_oracle=lambda h: next(answers))
    assert not clf.halted_ and clf.n_iter_ == 4 and clf.best_iter_ == 1
    np.testing.assert_array_equal(clf.history_["target_loss"], [0.9, 0.5, 0.7, 0.6])
    # private: the weight summaries are the public bounds of Def. 4.1
    np.testing.assert_array_equal(clf.history_["max_weight"], 1 / 0.5)
    np.testing.assert_array_equal(clf.history_["effective_size"], 0.5)


def test_private_fit_with_sgd_halts_on_an_easy_target(capsys):
    X, y, X_t, y_t = source_target(n=12_000, n_target=20_000)
    sgd = PrivateSGDClassifier(classes=[0, 1], bounds=(-4, 4))
    clf = stl(sgd, alpha=0.05, max_iter=4, n_subsample=400, verbose=1)
    with reproducible_noise():
        clf.set_params(random_state=0).fit(X, y, X_target=X_t, y_target=y_t)
    out = capsys.readouterr().out
    assert "round 1/4: estimated target loss" in out
    # Halted at a_t <= 3 alpha: err_T <= 4 alpha (Thm 4.3).
    assert clf.halted_ and clf.threshold_ == 3 * 0.05
    assert clf.score(X_t, y_t) >= 1 - 4 * 0.05
    assert clf.estimator_.get_params()["epsilon"] == 0.5
    assert clf.estimator_.get_params()["accountant"] is None


def test_reproducible_noise_gives_identical_fits():
    X, y, X_t, y_t = source_target()
    with reproducible_noise():
        a = stl(random_state=0).fit(X, y, X_target=X_t, y_target=y_t)
        b = stl(random_state=0).fit(X, y, X_target=X_t, y_target=y_t)
    np.testing.assert_array_equal(a.history_["target_loss"], b.history_["target_loss"])


# -- scikit-learn contract (check_estimator cannot pass X_target) ---------------


def test_clone_get_params_and_fit_does_not_write_parameters():
    clf = stl(kappa=0.3)
    params = clf.get_params()
    assert clone(clf).get_params()["kappa"] == 0.3
    X, y, X_t, y_t = source_target()
    clf.fit(X, y, X_target=X_t, y_target=y_t)
    assert clf.get_params() == params


def test_pipeline_and_cross_validate_with_fit_params():
    X, y, X_t, y_t = source_target(n=4000, n_target=3500)
    pipe = make_pipeline(FunctionTransformer(), stl())
    pipe.fit(X, y, subsampletestreweighclassifier__X_target=X_t,
             subsampletestreweighclassifier__y_target=y_t)  # fmt: skip
    assert pipe.predict(X_t).shape == (3500,)
    res = cross_validate(stl(), X, y, cv=2, params={"X_target": X_t, "y_target": y_t})
    assert res["test_score"].shape == (2,)


# -- review fixes: the learner's ledgers, leaks and parameters (F1-F3) --------


class LedgeredMajority(NoisyMajority):
    """NoisyMajority with its own ledger, charged by its own fit."""

    def __init__(self, epsilon=1.0, classes=None, random_state=None, accountant=None):
        super().__init__(epsilon=epsilon, classes=classes, random_state=random_state)
        self.accountant = accountant

    def fit(self, X, y):
        if self.accountant is not None:
            self.accountant.spend(*self._privacy_cost(), source=self)
        return super().fit(X, y)


class Wrapper(ClassifierMixin, BaseEstimator):
    """A private learner around another one (nested ledgers and classes)."""

    def __init__(self, inner, epsilon=1.0, classes=(0, 1)):
        self.inner = inner
        self.epsilon = epsilon
        self.classes = classes

    def _privacy_cost(self, **fit_params):
        return PrivacyCost(float(self.epsilon), 0.0)

    def fit(self, X, y):
        self.inner_ = clone(self.inner).set_params(epsilon=self.epsilon).fit(X, y)
        self.classes_ = self.inner_.classes_
        return self

    def predict(self, X):
        return self.inner_.predict(X)


class Leaky(NoisyMajority):
    """Reads a value off its rows outside its cost (as a box would be)."""

    def fit(self, X, y):
        warn_private_read("read off the private rows")
        return super().fit(X, y)


class Greedy(NoisyMajority):
    """States twice its epsilon parameter (composes two releases, say)."""

    def _privacy_cost(self, **fit_params):
        return PrivacyCost(2.0 * float(self.epsilon), 0.0)


@pytest.fixture
def rounds(monkeypatch):
    """The curator rounds run (each reads the private rows)."""
    ran = []
    original = steps.curator_round

    def counting(*args, **kwargs):
        ran.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(steps, "curator_round", counting)
    return ran


def test_ledger_on_the_learner_only_is_charged_the_fit_once(rounds):
    X, y, X_t, y_t = source_target()
    led = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = stl(LedgeredMajority(classes=[0, 1], accountant=led))
    clf.fit(X, y, X_target=X_t, y_target=y_t)
    # Was never charged (the learner's ledger was set to None).
    assert led.spent() == clf.privacy_spent_ == PrivacyCost(2.0, 1e-5)
    assert len(led.history) == 1 and len(rounds) == clf.n_iter_
    assert clf.estimator.accountant is led  # the parameter is left as it was
    # The fitted clones charged nothing (one entry); the kept one names the
    # ledger again for a refit.
    assert clf.estimator_.accountant is led


def test_shared_ledger_on_both_is_charged_once():
    X, y, X_t, y_t = source_target()
    led = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = stl(LedgeredMajority(classes=[0, 1], accountant=led), accountant=led)
    clf.fit(X, y, X_target=X_t, y_target=y_t)
    assert led.spent() == clf.privacy_spent_ and len(led.history) == 1


def test_nested_ledger_is_charged_and_an_exhausted_one_refuses_before_any_read(
    rounds,
):
    X, y, X_t, y_t = source_target()
    own, inner = PrivacyAccountant(epsilon=10.0), PrivacyAccountant(epsilon=1.0)
    clf = stl(Wrapper(LedgeredMajority(accountant=inner)), accountant=own)
    with pytest.raises(PrivacyBudgetError):
        clf.fit(X, y, X_target=X_t, y_target=y_t)
    # Every ledger is checked before any is charged; no round ran.
    assert rounds == [] and own.spent() == inner.spent() == (0.0, 0.0)
    inner = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf.set_params(estimator=Wrapper(LedgeredMajority(accountant=inner)))
    clf.fit(X, y, X_target=X_t, y_target=y_t)
    assert own.spent() == inner.spent() == clf.privacy_spent_
    assert len(inner.history) == 1
    # The nested classes were set to the fit's public ones.
    assert list(clf.estimator_.get_params()["inner__classes"]) == [0, 1]
    assert clf.estimator_.get_params()["inner__accountant"] is inner


def test_learner_without_bounds_or_public_data_is_refused_before_the_charge(rounds):
    X, y, X_t, y_t = source_target()
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = stl(PrivateSGDClassifier(classes=[0, 1]), accountant=acc)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # not one round
        with pytest.raises(ValueError, match=r"estimator__bounds.*no public data"):
            clf.fit(X, y, X_target=X_t, y_target=y_t)
    assert rounds == [] and acc.spent() == (0.0, 0.0)


def test_learner_without_bounds_takes_them_from_public_data():
    X, y, X_t, y_t = source_target(n=6000)
    clf = stl(PrivateSGDClassifier(classes=[0, 1], n_epochs=1.0), max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        clf.fit(X, y, X_public=PublicData(X_t[:100]), X_target=X_t, y_target=y_t)
    assert clf.n_iter_ == 1


def test_a_leak_inside_the_rounds_is_an_error_not_a_claim():
    X, y, X_t, y_t = source_target()
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = stl(Leaky(classes=[0, 1]), accountant=acc)
    with warnings.catch_warnings():
        # Even with the user's filter ignoring it (as doctests do).
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises(ValueError, match="read a value off the curator's"):
            clf.fit(X, y, X_target=X_t, y_target=y_t)
    assert not hasattr(clf, "privacy_spent_")
    assert acc.spent() == (2.0, 1e-5)  # charged before the read: stays charged
    # Algorithm 1 is not private: no backstop there.
    clf.set_params(private=False, accountant=None)
    with pytest.warns(PrivacyLeakWarning, match="read off"):
        clf.fit(X, y, X_target=X_t, y_target=y_t)


class LeakyWithLedger(NoisyMajority):
    """Reads a value off its rows, then reserves its cost on its ledger."""

    def __init__(self, epsilon=1.0, classes=None, random_state=None, accountant=None):
        super().__init__(epsilon, classes, random_state)
        self.accountant = accountant

    def fit(self, X, y):
        warn_private_read("read off the private rows")
        reserve_budget(self.accountant, self._privacy_cost(), self)
        return super().fit(X, y)


def test_a_leak_before_the_learners_reservation_is_refused_for_free():
    # The probe on placeholder rows reaches a read that comes before the
    # learner's reservation: refused there, before any charge.
    X, y, X_t, y_t = source_target()
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = stl(LeakyWithLedger(classes=[0, 1]), accountant=acc)
    with pytest.raises(ValueError, match=r"would read a value off.*nothing was spent"):
        clf.fit(X, y, X_target=X_t, y_target=y_t)
    assert acc.spent() == (0.0, 0.0)


@pytest.mark.parametrize(
    "bad, match",
    [({"loss": "bogus"}, "'loss'"), ({"n_epochs": -1.0}, "'n_epochs'")],
)
def test_bad_learner_parameters_raise_before_the_charge(rounds, bad, match):
    X, y, X_t, y_t = source_target()
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    sgd = PrivateSGDClassifier(classes=[0, 1], bounds=(-4, 4), **bad)
    with pytest.raises(ValueError, match=match):
        stl(sgd, accountant=acc).fit(X, y, X_target=X_t, y_target=y_t)
    assert rounds == [] and acc.spent() == (0.0, 0.0)
    # Nested too.
    with pytest.raises(ValueError, match=match):
        stl(Wrapper(sgd), accountant=acc).fit(X, y, X_target=X_t, y_target=y_t)
    assert rounds == [] and acc.spent() == (0.0, 0.0)


def test_learner_stating_more_than_half_is_refused_before_the_charge(rounds):
    X, y, X_t, y_t = source_target()
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    with pytest.raises(ValueError, match=r"states epsilon=1 at its epsilon=0\.5"):
        stl(Greedy(classes=[0, 1]), accountant=acc).fit(
            X, y, X_target=X_t, y_target=y_t
        )
    assert rounds == [] and acc.spent() == (0.0, 0.0)


# -- review fixes: agents, oracle, target labels, docs (F4-F7) ----------------


def test_target_as_long_as_x_warns_that_cv_slices_it():
    X, y, X_t, y_t = source_target(n=3000, n_target=3000)
    with pytest.warns(PrivacyLeakWarning, match="as many rows as X"):
        stl().fit(X, y, X_target=X_t, y_target=y_t)
    X, y, X_t, y_t = source_target(n=3000, n_target=4000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        stl().fit(X, y, X_target=X_t, y_target=y_t)


def test_docs_say_every_fit_asks_every_agent_again():
    doc = " ".join(SubsampleTestReweighClassifier.__doc__.split())
    assert "every fit (each fold, candidate and refit) asks every agent" in doc
    assert "another ``local_epsilon``" in doc
    assert "PublicData" in doc  # why no opaque container for the target


def test_oracle_gives_no_local_privacy_and_is_the_callers_responsibility():
    X, y, _, _ = source_target()
    clf = stl().fit(X, y, target_oracle=lambda h: 0.5)
    assert clf.local_privacy_ is None  # was (local_epsilon, local_delta)
    doc = " ".join(SubsampleTestReweighClassifier.fit.__doc__.split())
    assert "the caller's responsibility" in doc
    doc = " ".join(SubsampleTestReweighClassifier.__doc__.split())
    assert "None with a ``target_oracle``" in doc


@pytest.mark.parametrize(
    "answer, error",
    [
        (None, TypeError),
        ("0.05", TypeError),
        (np.array([0.1, 0.2]), TypeError),
        (True, TypeError),
        (0.1 + 0j, TypeError),
        (np.nan, ValueError),
        (np.inf, ValueError),
    ],
)
def test_bad_oracle_answers_are_refused_naming_the_oracle(answer, error):
    X, y, _, _ = source_target()
    with pytest.raises(error, match="target_oracle must return"):
        stl().fit(X, y, target_oracle=lambda h: answer)


@pytest.mark.parametrize("answer", [np.float32(0.25), np.array(0.25), 1, -0.2])
def test_real_scalar_oracle_answers_are_accepted(answer):
    X, y, _, _ = source_target()
    clf = stl(max_iter=1).fit(X, y, target_oracle=lambda h: answer)
    assert clf.history_["target_loss"][0] == float(answer)


def test_target_labels_of_the_wrong_kind_raise_before_the_charge(rounds):
    X, y, X_t, y_t = source_target()
    acc = PrivacyAccountant(epsilon=10.0)
    strings = np.where(y_t == 1, "pos", "neg")
    with pytest.raises(ValueError, match="y_target holds strings"):
        stl(accountant=acc).fit(X, y, X_target=X_t, y_target=strings)
    assert rounds == [] and acc.spent() == (0.0, 0.0)


def test_target_labels_outside_the_classes_are_losses_not_an_oracle(rounds):
    # A review: every agent's exact label was checked against classes before
    # any charge or local randomizer, a free membership oracle on the agents.
    # Now no error depends on them: a label outside the classes is a label no
    # hypothesis predicts, a loss in every round, answered through the
    # randomizer like any other.
    X, y, X_t, y_t = source_target()
    acc = PrivacyAccountant(epsilon=10.0)
    clf = stl(accountant=acc, max_iter=1).fit(X, y, X_target=X_t, y_target=y_t + 1)
    assert acc.spent().epsilon > 0 and len(rounds) == 1
    losses = steps.zero_one_losses(clf.estimator_, X_t, np.full(len(y_t), 2))
    assert losses.tolist() == [1.0] * len(y_t)


def test_privacy_page_describes_the_hybrid_model():
    page = Path(__file__).parents[2] / "docs" / "privacy.rst"
    text = " ".join(page.read_text().split())
    start = text.index(":class:`~sklearn_semiprivate.SubsampleTestReweighClassifier`")
    para = text[start : start + 2000]
    for phrase in [
        "replace-one",
        "``local_epsilon``-LDP",
        "neither private nor public",
        "every fit",
    ]:
        assert phrase in para


def test_curator_row_the_hypothesis_cannot_predict_counts_as_a_loss():
    # Review: the reweigh step predicted all curator rows at once, and a tree
    # final estimator (float32) raised on one value above 3.4e38, after the
    # charge, on that curator set and not its neighbour.
    from sklearn.tree import DecisionTreeClassifier

    from sklearn_semiprivate.classifiers._transfer_steps import zero_one_losses

    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    y = (X[:, 0] > 0).astype(int)
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    losses = zero_one_losses(tree, X, y)
    X[5, 0] = 1e39
    losses_huge = zero_one_losses(tree, X, y)
    assert losses_huge[5] == 1.0
    np.testing.assert_array_equal(np.delete(losses_huge, 5), np.delete(losses, 5))


def test_learners_own_errors_cost_nothing():
    # Review: the learner's errors on public grounds (bounds for another
    # number of features) surfaced in round 1, after every ledger was charged.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    y = (X[:, 0] > 0).astype(int)
    X_target = rng.normal(size=(4000, 2))
    learner = PrivateSGDClassifier(classes=[0, 1], bounds=[(-4, 4)] * 3)
    ledger = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = SubsampleTestReweighClassifier(
        learner,
        alpha=0.1,
        epsilon=2.0,
        delta=1e-5,
        kappa=1.0,
        local_epsilon=1.0,
        max_iter=2,
        n_subsample=50,
        n_agents_per_round=100,
        accountant=ledger,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="bounds must have shape"):
            clf.fit(X, y, X_target=X_target, y_target=(X_target[:, 0] > 0).astype(int))
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_private_draws_come_from_the_secret_generator(monkeypatch):
    # Claim 4.1 needs the curator's draws (and the agents' coins) hidden: they
    # come from the fit's secret generator; its premise is weights starting
    # at kappa, and the agents answer through the local randomizer at
    # (local_epsilon, local_delta). A mutation review drew the draws from the
    # public seed, started the weights at 1, and doubled the local epsilon;
    # no test failed on any of the three.
    from sklearn_semiprivate.classifiers import _transfer

    secret, used, starts, local = [], [], [], []
    real_rng, real_round = _transfer.noise_rng, steps.curator_round
    real_local = steps.local_randomizer

    def fresh(random_state):
        secret.append(real_rng(random_state))
        return secret[-1]

    def curator_round(*args):
        used.append(args[-1])
        starts.append(np.array(args[2], copy=True))
        return real_round(*args)

    def local_randomizer(*args):
        local.append(args)
        return real_local(*args)

    monkeypatch.setattr(_transfer, "noise_rng", fresh)
    monkeypatch.setattr(steps, "curator_round", curator_round)
    monkeypatch.setattr(steps, "local_randomizer", local_randomizer)
    X, y, X_t, y_t = source_target()
    clf = stl(random_state=0)
    clf.fit(X, y, X_target=X_t, y_target=y_t)
    assert len(secret) == 1
    assert used and all(rng is secret[0] for rng in used)
    np.testing.assert_array_equal(starts[0], np.full(X.shape[0], math.log(0.5)))
    assert local == [(clf.local_epsilon, clf.local_delta)]


# -- mutation review: survivors of the curator's rows, delta and coins ---------


class DeltaHeavy(NoisyMajority):
    """States a delta (1e-4) that is not a parameter the curator sets."""

    def _privacy_cost(self, **fit_params):
        return PrivacyCost(float(self.epsilon), 1e-4)


def _fit_quietly(clf, n):
    X, y, X_t, y_t = source_target(n=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return clf.fit(X, y, X_target=X_t, y_target=y_t)


def test_one_curator_row_below_the_exact_need_is_refused():
    # test_rows_needed_is_the_exact_boundary checks the function; a fit
    # accepting needed - 1 rows (curator bound 2.0056 > 2) survived.
    needed = steps.curator_rows_needed(PrivacyCost(1.0, 0.0), 20, 0.5, 3, 2.0, 1e-5)
    with pytest.raises(ValueError, match=f"needs n >= {needed} curator rows"):
        _fit_quietly(stl(), needed - 1)
    clf = _fit_quietly(stl(), needed)
    assert clf.curator_bound_.epsilon <= clf.privacy_spent_.epsilon
    assert clf.curator_bound_.delta <= clf.privacy_spent_.delta


def test_the_curators_delta_is_met_whatever_delta_the_learner_states():
    # The learner's stated delta enters Claim 4.1 (a search for the rows
    # needed that checked epsilon only survived).
    with pytest.raises(ValueError, match="needs n >="):
        _fit_quietly(stl(DeltaHeavy(classes=[0, 1])), 3000)
    clf = _fit_quietly(stl(DeltaHeavy(classes=[0, 1])), 13_000)
    assert clf.curator_bound_.delta <= clf.privacy_spent_.delta == 1e-5


def test_agents_answer_with_the_fits_secret_generator(monkeypatch):
    # The randomized-response coins are privacy noise: from the fit's one
    # noise_rng, never the public stream seeded by random_state (a mutation
    # review took them from it; with a known seed each answer was then a
    # function of the agent's loss, and no test failed).
    from sklearn_semiprivate.classifiers import _transfer

    secret, used = [], []
    real_rng, real_test = _transfer.noise_rng, steps.local_test

    def fresh(random_state):
        secret.append(real_rng(random_state))
        return secret[-1]

    def local_test(h, X_batch, y_batch, randomizer, rng):
        used.append(rng)
        return real_test(h, X_batch, y_batch, randomizer, rng)

    monkeypatch.setattr(_transfer, "noise_rng", fresh)
    monkeypatch.setattr(steps, "local_test", local_test)
    _fit_quietly(stl(random_state=0), 3000)
    assert len(secret) == 1 and used and all(rng is secret[0] for rng in used)


def test_curator_draws_follow_the_generator_in_algorithm_2():
    # Claim 4.1 needs the m1 draws secret and random: with uniform weights a
    # row is drawn in about 1 - 0.99^5 of the rounds, never in every one (a
    # fixed seed inside curator_round, for kappa set only, survived).
    class Recorder:
        def fit(self, X, y):
            self.rows_ = X[:, 0].astype(int)
            return self

    n, m, rounds = 100, 5, 200
    X = np.arange(n, dtype=float)[:, None]
    counts = np.zeros(n)
    for _ in range(rounds):
        fitted, _ = steps.curator_round(
            X, np.zeros(n, dtype=int), np.full(n, math.log(0.5)), 0.5, m,
            Recorder(), noise_rng(),
        )  # fmt: skip
        counts[np.unique(fitted.rows_)] += 1
    assert counts.max() < 0.3 * rounds  # expected about 0.05 * rounds


def test_target_columns_in_another_order_are_refused_before_the_charge():
    # A review: X_target with the curator's named columns reordered was
    # accepted, charged, and the agents answered (each at local_epsilon)
    # about a hypothesis evaluated on the wrong columns (n_iter_ 5 -> 1).
    # The same X_public was refused for free. Integer labels are compared too.
    pd = pytest.importorskip("pandas")
    X, y, X_t, y_t = source_target()
    for cols in (["income", "age"], [0, 1]):
        ledger = PrivacyAccountant(epsilon=100.0, delta=1e-3)
        frame, target = pd.DataFrame(X, columns=cols), pd.DataFrame(X_t, columns=cols)
        clf = stl(accountant=ledger)
        with pytest.raises(ValueError, match="X_target's column names differ"):
            clf.fit(frame, y, X_target=target[cols[::-1]], y_target=y_t)
        assert ledger.history == []
        clf.fit(frame, y, X_target=target, y_target=y_t)  # the same order: fits
        assert len(ledger.history) == 1
