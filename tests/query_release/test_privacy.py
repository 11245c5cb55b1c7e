"""Statistical ε lower bounds on tiny end-to-end releases, and mutants they catch.

Each release is fitted thousands of times on two neighbouring private datasets
(one row replaced); the released answer is the output audited. A
Clopper–Pearson lower bound on ε (confidence 1 - 1e-6, event chosen on held-out
halves) must stay below the claimed ε, and must exceed it for a mutant whose
noise is too small (a budget 20x larger than accounted). Every fit has its own
seed under ``reproducible_noise()``: independent releases, and a deterministic
verdict (with fresh noise each bound failed with probability up to 1e-6).
"""

import numpy as np
import pytest

from sklearn_semiprivate import PublicData, reproducible_noise
from sklearn_semiprivate.audit import epsilon_lower_bound_search
from sklearn_semiprivate.query_release import (
    PublicAssistedQueryRelease,
    ThresholdQueries,
    _pmw_release,
)

N_SAMPLES = 1000
ALPHA = 1e-6
QUERY = ThresholdQueries([0.5])
PUBLIC = PublicData(np.array([[0.0], [1.0]]))
# Neighbours under replace-one: the second private row moves from 0 to 1.
D = np.array([[0.0], [0.0]])
D_PRIME = np.array([[0.0], [1.0]])

CONFIGS = {
    # APAP with one sparse-vector instance: ε0 = ε, AboveThreshold then Laplace.
    "representative": {"support": "representative", "alpha": 0.5, "n_iterations": 1},
    # One MWEM round, Laplace measurement, pure DP.
    "public": {
        "support": "public",
        "delta": 0.0,
        "measurement": "laplace",
        "n_iterations": 1,
    },
}


def _answers(X, params, seed0):
    with reproducible_noise():
        return np.array(
            [
                PublicAssistedQueryRelease(
                    QUERY, epsilon=1.0, random_state=seed0 + s, **params
                )
                .fit(X, X_public=PUBLIC)
                .answers_[0]
                for s in range(N_SAMPLES)
            ]
        )


def _lower_bound(params):
    a = _answers(D, params, 0)
    b = _answers(D_PRIME, params, 10**6)
    claimed = PublicAssistedQueryRelease(QUERY, epsilon=1.0, **params)
    delta = claimed.delta if params.get("delta", 1e-6) else 0.0
    res = epsilon_lower_bound_search(a, b, alpha=ALPHA, delta=delta, random_state=0)
    return res.epsilon


@pytest.mark.statistical
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_release_epsilon_lower_bound_below_claim(name):
    assert _lower_bound(CONFIGS[name]) <= 1.0


@pytest.mark.statistical
def test_mutant_representative_noise_too_small_is_caught(monkeypatch):
    real = _pmw_release.sparse_vector_pmw_parameters

    def mutant(epsilon, delta, n_updates):
        eps0, cost = real(epsilon, delta, n_updates)
        return 20.0 * eps0, cost  # noise 20x too small, cost unchanged

    monkeypatch.setattr(_pmw_release, "sparse_vector_pmw_parameters", mutant)
    assert _lower_bound(CONFIGS["representative"]) > 1.0


@pytest.mark.statistical
def test_mutant_public_noise_too_small_is_caught(monkeypatch):
    real = _pmw_release.mwem_round_parameters

    def mutant(*args, **kwargs):
        params = dict(real(*args, **kwargs))
        params["epsilon_measurement"] *= 20.0  # noise 20x too small
        return params

    monkeypatch.setattr(_pmw_release, "mwem_round_parameters", mutant)
    assert _lower_bound(CONFIGS["public"]) > 1.0
