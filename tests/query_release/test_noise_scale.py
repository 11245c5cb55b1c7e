"""The noise the release's non-default paths add, measured against the stated scale.

The accounting tests check the parameters a plan states (``mwem_round_parameters``,
``sparse_vector_pmw_parameters``, ``MeasureAll``); the statistical audits in
``test_privacy.py`` catch only gross mutants (noise 20 times too small). A review
halved the noise where the fit draws it (``sigma / 2`` at the measurement of
``support="public"``, ``2 * eps_sel`` at its selection, ``2 * eps0`` into the
sparse vector of ``support="representative"``) and no test failed. These tests
observe what ``fit`` itself draws or passes to the mechanism and compare it with
the stated scale; each mutant above fails one of them. (The default,
``support="graphical"``, is measured in ``test_mixture.py``.)
"""

import inspect

import numpy as np
import pytest

from sklearn_semiprivate import PublicData, reproducible_noise
from sklearn_semiprivate.mechanisms import GaussianMechanism, LaplaceMechanism
from sklearn_semiprivate.query_release import (
    MarginalQueries,
    PublicAssistedQueryRelease,
    ThresholdQueries,
    _adaptive,
    _pmw,
    _release,
    mwem_round_parameters,
    sparse_vector_pmw_parameters,
)

THRESHOLDS = [0.2, 0.4, 0.6, 0.8]


def _threshold_data(n=1000, n_pub=30):
    rng = np.random.default_rng(0)
    return rng.uniform(size=(n, 1)), rng.uniform(size=(n_pub, 1))


def _true_threshold_answers(X):
    # Computed here, not by the package: the fraction of rows at or below t.
    return np.array([np.mean(X[:, 0] <= t) for t in THRESHOLDS])


def _record_updates(monkeypatch):
    """Every MW update of the fit: (query, its answer before, factor)."""
    calls = []
    real = _pmw.WeightedSupport.update

    def spy(self, i, factor):
        calls.append((int(i), float(self.answers[i]), float(factor)))
        return real(self, i, factor)

    monkeypatch.setattr(_pmw.WeightedSupport, "update", spy)
    return calls


@pytest.mark.statistical
@pytest.mark.parametrize("measurement", ["gaussian", "laplace"])
def test_public_support_measurement_noise_is_at_the_stated_scale(
    monkeypatch, measurement
):
    # The MWEM update is x <- x exp(q (m - q(x)) / 2): its factor gives back
    # the measurement m the fit used, and m minus the true answer is the noise
    # the fit added, however it was drawn.
    calls = _record_updates(monkeypatch)
    X, Xp = _threshold_data()
    n, t, delta = X.shape[0], 2000, (1e-6 if measurement == "gaussian" else 0.0)
    PublicAssistedQueryRelease(
        ThresholdQueries(THRESHOLDS),
        support="public",
        epsilon=1.0,
        delta=delta,
        measurement=measurement,
        n_iterations=t,
    ).fit(X, X_public=PublicData(Xp))
    assert len(calls) == t
    truth = _true_threshold_answers(X)
    idx, before, factor = (np.array(c) for c in zip(*calls))
    noise = before + factor / _pmw.MWEM_LEARNING_RATE - truth[idx.astype(int)]
    params = mwem_round_parameters(
        1.0, delta, t, selection="exponential", measurement=measurement
    )
    if measurement == "gaussian":
        # z = noise / (sigma / n) ~ N(0, 1): z² has mean 1 and sd sqrt(2), so
        # over 2000 rounds its mean is within 0.25 of 1 unless an honest fit
        # is 7.9 standard errors off (p < 1e-14); a halved sigma gives 0.25.
        z2 = np.mean((noise * n / params["sigma"]) ** 2)
        assert abs(z2 - 1.0) < 0.25
    else:
        # |Lap(b)| has mean b and sd b: over 2000 rounds the mean of |noise| / b
        # is within 0.15 of 1 unless 6.7 standard errors off (p < 1e-10); a
        # halved b gives 0.5.
        b = 1.0 / (n * params["epsilon_measurement"])
        assert abs(np.mean(np.abs(noise)) / b - 1.0) < 0.15


@pytest.mark.parametrize("selection", ["exponential", "permute_and_flip"])
def test_public_support_selection_runs_at_the_stated_epsilon(monkeypatch, selection):
    # The selection's own sampling is checked by the mechanism tests; here,
    # what the fit passes to it: the stated epsilon, sensitivity 1, and the
    # scores n |a_q(D) - a_q(x_t)| (counts) against the current support.
    calls = []
    name = "exponential_mechanism" if selection == "exponential" else selection
    real = getattr(_pmw, name)

    def spy(scores, eps, *, sensitivity, random_state):
        support = inspect.currentframe().f_back.f_locals["support"]
        calls.append((np.array(scores), eps, sensitivity, support.answers.copy()))
        return real(scores, eps, sensitivity=sensitivity, random_state=random_state)

    monkeypatch.setattr(_pmw, name, spy)
    X, Xp = _threshold_data()
    t = 20
    PublicAssistedQueryRelease(
        ThresholdQueries(THRESHOLDS),
        support="public",
        epsilon=1.0,
        selection=selection,
        n_iterations=t,
    ).fit(X, X_public=PublicData(Xp))
    params = mwem_round_parameters(
        1.0, 1e-6, t, selection=selection, measurement="gaussian"
    )
    truth = _true_threshold_answers(X)
    assert len(calls) == t
    for scores, eps, sensitivity, answers in calls:
        assert eps == params["epsilon_selection"] and sensitivity == 1.0
        np.testing.assert_allclose(scores, X.shape[0] * np.abs(truth - answers))


class _RecordingGenerator(np.random.Generator):
    """A real generator that records the scale of every Laplace draw."""

    def __init__(self, seed=None):
        super().__init__(np.random.PCG64(seed))
        self.laplace_calls = []

    def laplace(self, loc=0.0, scale=1.0, size=None):
        self.laplace_calls.append(
            (float(scale), 1 if size is None else int(np.prod(size)))
        )
        return super().laplace(loc, scale, size)


@pytest.mark.parametrize("delta", [1e-6, 1e-3])
def test_representative_sparse_vector_draws_at_the_stated_scales(monkeypatch, delta):
    # Dwork & Roth 2014, Alg. 1 and 5: each AboveThreshold instance draws its
    # threshold noise Lap(2Δ/ε_svt), one Lap(4Δ/ε_svt) per query visited, and
    # the query found is measured with Lap(Δ/(ε0 - ε_svt)); Δ = 1/n and
    # ε_svt = 3/4 ε0, ε0 the stated per-instance budget.
    gens = []

    def recording_noise_rng(random_state=None):
        # A fixed draw: with fresh noise an instance found no query (7
        # updates, not 8) in 32 of 3,000 fits, and the run's shape below
        # assumes 8; the scales checked do not depend on the draw.
        gens.append(_RecordingGenerator(seed=0))
        return gens[-1]

    monkeypatch.setattr(_release, "noise_rng", recording_noise_rng)
    X, Xp = _threshold_data(n=500, n_pub=10)
    c = 8
    qr = PublicAssistedQueryRelease(
        ThresholdQueries(THRESHOLDS),
        support="representative",
        alpha=0.05,
        epsilon=1.0,
        delta=delta,
        n_iterations=c,
    ).fit(X, X_public=PublicData(Xp))
    eps0, _ = sparse_vector_pmw_parameters(1.0, delta, c)
    assert qr.epsilon0_ == eps0
    sens, eps_svt = 1.0 / X.shape[0], 0.75 * eps0
    threshold, query, measure = (
        2.0 * sens / eps_svt,
        4.0 * sens / eps_svt,
        sens / (eps0 - eps_svt),
    )
    (gen,) = gens
    calls = gen.laplace_calls
    # alpha = 0.05 is far below the public start's error: every instance finds
    # a query, so the run is c triples (threshold, the cover's queries,
    # measurement).
    assert qr.n_updates_ == c and len(calls) == 3 * c
    for k in range(c):
        (s0, m0), (s1, m1), (s2, m2) = calls[3 * k : 3 * k + 3]
        assert (m0, m1, m2) == (1, qr.cover_size_, 1)
        np.testing.assert_allclose(
            [s0, s1, s2], [threshold, query, measure], rtol=1e-12
        )


@pytest.mark.statistical
@pytest.mark.parametrize("measurement", ["gaussian", "laplace"])
def test_measure_all_noise_is_at_the_stated_scale(measurement):
    # selection="all": every answer measured once, kept in measurements_. One
    # 1-way marginal of 2000 categories: replacing a row moves two counts by
    # one, so the replace-one sensitivity of the answers is 2/n in L1 and
    # sqrt(2)/n in L2 (stated here, not read from the package).
    rng = np.random.default_rng(0)
    k, n = 2000, 5000
    X = rng.integers(0, k, size=(n, 1)).astype(float)
    Xp = rng.integers(0, k, size=(50, 1)).astype(float)
    delta = 1e-6 if measurement == "gaussian" else 0.0
    qr = PublicAssistedQueryRelease(
        MarginalQueries(k=1, n_categories=k),
        support="public",
        selection="all",
        epsilon=1.0,
        delta=delta,
        measurement=measurement,
    ).fit(X, X_public=PublicData(Xp))
    noise = qr.measurements_ - np.bincount(X[:, 0].astype(int), minlength=k) / n
    if measurement == "gaussian":
        sigma = GaussianMechanism(1.0, delta, sensitivity=np.sqrt(2.0) / n).sigma
        # 2000 cells: the mean of z² is within 0.25 of 1 (7.9 se, p < 1e-14).
        assert abs(np.mean((noise / sigma) ** 2) - 1.0) < 0.25
    else:
        b = LaplaceMechanism(1.0, sensitivity=2.0 / n).scale
        # 2000 cells: the mean of |z| is within 0.15 of 1 (6.7 se, p < 1e-10).
        assert abs(np.mean(np.abs(noise)) / b - 1.0) < 0.15


@pytest.mark.statistical
@pytest.mark.parametrize("measurement", ["gaussian", "laplace"])
def test_measure_all_noise_of_a_threshold_workload_is_at_the_stated_scale(
    measurement,
):
    # The workloads without a marginal structure (thresholds, stumps,
    # predicates) use the generic sensitivity: replacing a row can move every
    # one of the q answers by 1/n, so q/n in L1 and sqrt(q)/n in L2 (stated
    # here). A mutation review halved the L2 one (noise sqrt(2) too small)
    # and no test failed: the test above uses a marginal workload.
    rng = np.random.default_rng(0)
    q, n = 400, 2000
    X = rng.normal(size=(n, 1))
    Xp = rng.normal(size=(50, 1))
    thresholds = np.linspace(-2.0, 2.0, q)
    delta = 1e-6 if measurement == "gaussian" else 0.0
    qr = PublicAssistedQueryRelease(
        ThresholdQueries(thresholds),
        support="public",
        selection="all",
        epsilon=1.0,
        delta=delta,
        measurement=measurement,
    ).fit(X, X_public=PublicData(Xp))
    exact = (X[:, 0][None, :] <= thresholds[:, None]).mean(axis=1)
    noise = qr.measurements_ - exact
    if measurement == "gaussian":
        sigma = GaussianMechanism(1.0, delta, sensitivity=np.sqrt(q) / n).sigma
        # 400 answers: the mean of z² is within 0.3 of 1 (4.2 se, p < 3e-5).
        assert abs(np.mean((noise / sigma) ** 2) - 1.0) < 0.3
    else:
        b = LaplaceMechanism(1.0, sensitivity=q / n).scale
        # 400 answers: the mean of |z| is within 0.2 of 1 (4 se, p < 1e-4).
        assert abs(np.mean(np.abs(noise)) / b - 1.0) < 0.2


# Weak kill AD04 (_adaptive_steps.py: one Gaussian draw shared by every cell
# of a marginal). Killed in this round only by
# test_noise_matches_the_accounted_scale, whose mean of z^2 over a few
# marginals, with shared noise, is a mean of a few chi^2(1) draws: with the
# 4 marginals of that run (z.size 2000) it passes with probability 0.32 per
# support. Independence across cells, checked
# directly: within one measured marginal of 200 cells the sample variance of
# z is chi^2(199)/200 for independent noise (below 0.5 with probability
# 3.5e-10 per marginal; the fit is seeded by reproducible_noise, so the
# verdict is fixed), and exactly 0 for shared noise.
@pytest.mark.parametrize("support", ["mixture", "graphical"])
def test_noise_is_independent_across_the_cells_of_a_marginal(support):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 200, size=(2000, 1)).astype(float)
    X_pub = rng.integers(0, 200, size=(50, 1)).astype(float)
    with reproducible_noise():
        qr = PublicAssistedQueryRelease(
            MarginalQueries(k=1, n_categories=200),
            support=support,
            n_iterations=3,
            random_state=0,
        ).fit(X, X_public=PublicData(X_pub))
    cards = qr._adaptive_model().n_categories
    assert len(qr.measurements_) >= 2
    for cols, noisy, sigma in qr.measurements_:
        true = _adaptive._counts(X.astype(np.int64), cols, cards)
        assert np.var((noisy - true) / sigma) > 0.5
