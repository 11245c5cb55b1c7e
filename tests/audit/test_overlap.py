"""noisy_public_overlap: exact count, sensitivity, ε audit, mutants, ledger order.

The statistical tests call the whole function under ``reproducible_noise()``
with a distinct int ``random_state`` per call (seeded, independent PCG64
streams), and evaluate a Clopper–Pearson lower bound on ε with
``epsilon_lower_bound`` for an event fixed in advance, at ``ALPHA = 1e-4``: on
the correct function the bound exceeds the claimed ε with probability at most
1e-4 whatever the seeds. Each mutant's expected bound (figures next to the
tests, from 2,000 simulated audits on numpy Laplace samples) is above ε.
"""

# SPDX-License-Identifier: BSD-3-Clause

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from sklearn_semiprivate import (
    PrivacyAccountant,
    PrivacyBudgetError,
    PublicData,
    reproducible_noise,
)
from sklearn_semiprivate.audit import (
    NoisyOverlap,
    _overlap,
    epsilon_lower_bound,
    neighbouring_pairs,
    noisy_public_overlap,
    overlap_privacy_cost,
)
from sklearn_semiprivate.audit._overlap import (
    _check_rows,
    _count_public_overlap,
    _row_view,
)
from sklearn_semiprivate.mechanisms import LaplaceMechanism

ALPHA = 1e-4
EPS = 1.0


def _rows(rows, n_features=2):
    return np.asarray(rows, dtype=np.float64).reshape(-1, n_features)


def _count(X, X_public):
    # Through the function's own validation, which normalises -0.0.
    return _count_public_overlap(_check_rows(X, "X"), _check_rows(X_public, "P"))


def _brute_force_count(X, X_public):
    public = {tuple(float(v) + 0.0 for v in row) for row in X_public}
    return sum(tuple(float(v) + 0.0 for v in row) in public for row in X)


# ---------------------------------------------------------------- mutants


def _count_with_multiplicity(X, X_public):
    """Mutant: public matches per private row (duplicated public rows count twice).

    Sensitivity = the largest multiplicity of a public row, 2 in the tests.
    """
    if X.shape[0] == 0:
        return 0
    public = np.sort(_row_view(X_public))
    private = _row_view(X)
    hi = np.searchsorted(public, private, side="right")
    return int((hi - np.searchsorted(public, private, side="left")).sum())


class _LaplaceScaleHalved(LaplaceMechanism):
    """Mutant: noise for 2ε (scale too small)."""

    @property
    def scale(self):
        return 0.5 * self.sensitivity / self.epsilon


class _NoNoise(LaplaceMechanism):
    """Mutant: the exact count is released."""

    def sample(self, value, *, random_state=None):
        return float(value)


# ---------------------------------------------------------------- exact count


def test_count_exact_on_crafted_rows_with_duplicates():
    public = [
        [0.0, 1.0],
        [0.0, 1.0],  # duplicated public row: still one set element
        [0.0, 1.0],
        [2.0, 3.0],
        [-0.0, 5.0],  # -0.0 equals 0.0
        [9.0, 9.0],
    ]
    private = [
        [0.0, 1.0],  # in public (3 copies there): counts 1
        [0.0, 1.0],  # private duplicate: counts 1 more
        [2.0, 3.0],  # in public
        [0.0, 5.0],  # matches [-0.0, 5.0]
        [2.0, 3.0 + 1e-12],  # near-duplicate: not counted
        [4.0, 6.0],  # scaled copy of [2, 3]: not counted
        [9.0, 8.0],  # agrees on one column only: not counted
        [1.0, 0.0],  # permuted columns: not counted
    ]
    assert _count(private, public) == 4
    assert _brute_force_count(private, public) == 4
    # No public duplicate changes it; a private duplicate adds one each.
    assert _count(private, public[2:]) == 4
    assert _count(private + [[9.0, 9.0]] * 3, public) == 7
    assert _count(private, [[7.0, 7.0]]) == 0
    assert _count_public_overlap(np.empty((0, 2)), _check_rows(public, "P")) == 0


def test_released_value_is_the_exact_count_plus_noise(monkeypatch):
    # The whole function with the noise removed: validation, -0.0, integer and
    # boolean inputs, PublicData and DataFrames reach the same exact count.
    monkeypatch.setattr(_overlap, "LaplaceMechanism", _NoNoise)
    X = np.array([[0.0, 1.0], [-0.0, 1.0], [1.0, 1.0], [3.0, 0.5]])
    X_public = np.array([[0.0, 1.0], [-0.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
    for Xp in (X_public, PublicData(X_public), pd.DataFrame(X_public)):
        res = noisy_public_overlap(pd.DataFrame(X), Xp, epsilon=1.0)
        assert res.noisy_count == 3.0 and res.noisy_fraction == 0.75
    ints = np.array([[0, 1], [2, 3], [2**53 + 1, 0]])
    res = noisy_public_overlap(ints, [[2.0, 3.0], [2.0**53, 0.0]], epsilon=1.0)
    assert res.noisy_count == 2.0  # compared as float64, as the estimators see
    res = noisy_public_overlap([[True, False]], [[1, 0]], epsilon=1.0)
    assert res.noisy_count == 1.0


def test_count_matches_brute_force_on_random_small_data():
    rng = np.random.default_rng(0)
    for n, m, d in itertools.product([1, 7, 40], [1, 5, 30], [1, 3]):
        X = rng.integers(-2, 3, size=(n, d)).astype(float)
        Xp = rng.integers(-2, 3, size=(m, d)).astype(float)
        assert _count_public_overlap(X + 0.0, Xp + 0.0) == _brute_force_count(X, Xp)


def test_count_is_vectorised_and_handles_many_rows():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 50, size=(200_000, 3)).astype(float)
    Xp = np.vstack([X[:1000], X[:1000]])  # every public row twice
    expected = int(np.isin(X @ [2500.0, 50.0, 1.0], Xp @ [2500.0, 50.0, 1.0]).sum())
    assert _count_public_overlap(X, Xp) == expected


# ---------------------------------------------------------------- sensitivity

DOMAIN = [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (2.0, 2.0)]
# Public sets with duplicates (and one without), over the same domain.
PUBLIC_SETS = [
    [(0.0, 0.0), (0.0, 0.0)],
    [(0.0, 0.0), (0.0, 0.0), (0.0, 1.0)],
    [(0.0, 1.0), (1.0, 0.0), (1.0, 0.0), (2.0, 2.0)],
    [(2.0, 2.0)],
]


def _max_change(count_fn):
    """Largest |count(D) - count(D')| over all neighbours of up to 3 rows."""
    worst = 0
    for public in PUBLIC_SETS:
        Xp = _rows(public)
        cache = {}

        def count(dataset, Xp=Xp, cache=cache):
            if dataset not in cache:
                cache[dataset] = count_fn(_rows(dataset), Xp)
            return cache[dataset]

        for n_rows, relation in itertools.product(
            [1, 2, 3], ["replace_one", "add_remove"]
        ):
            for d, d_prime in neighbouring_pairs(DOMAIN, n_rows, relation=relation):
                worst = max(worst, abs(count(d) - count(d_prime)))
    return worst


def test_sensitivity_is_one_for_add_remove_and_replace_one():
    # Tight: some neighbour moves it by exactly 1.
    assert _max_change(_count_public_overlap) == 1


def test_sensitivity_check_catches_the_multiplicity_mutant():
    assert _max_change(_count_with_multiplicity) == 2


# ---------------------------------------------------------------- ε audit

PUBLIC = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]])  # a duplicated public row
D = np.array([[0.0, 0.0], [5.0, 5.0]])  # count 1 (multiplicity mutant: 2)
NEIGHBOURS = {
    "replace_one": np.array([[7.0, 7.0], [5.0, 5.0]]),  # count 0
    "add_remove": np.array([[5.0, 5.0]]),  # count 0
}


def _noisy_counts(X, n_calls, first_seed):
    with reproducible_noise():
        return np.array(
            [
                noisy_public_overlap(
                    X, PublicData(PUBLIC), epsilon=EPS, random_state=first_seed + i
                ).noisy_count
                for i in range(n_calls)
            ]
        )


def _at_least_one(noisy_counts):
    # Fixed before sampling: "the noisy count reaches D's true count". For the
    # correct function P = 1/2 on D against e^-ε/2 on D': exactly ε.
    return noisy_counts >= 1.0


def _audit(relation="replace_one", n_calls=1500):
    # Seeds of disjoint ranges: every call draws an independent stream.
    first = 0 if relation == "replace_one" else 2 * n_calls
    a = _noisy_counts(D, n_calls, first_seed=first)
    b = _noisy_counts(NEIGHBOURS[relation], n_calls, first_seed=first + n_calls)
    return epsilon_lower_bound(a, b, _at_least_one, alpha=ALPHA)


@pytest.mark.statistical
@pytest.mark.parametrize("relation", ["replace_one", "add_remove"])
def test_epsilon_lower_bound_stays_below_the_claim(relation):
    # P[bound > ε] <= ALPHA = 1e-4 for an ε-DP release. Expected bound 0.69
    # (1,500 calls a side; 2,000 simulated audits all gave 0.49..0.87).
    res = _audit(relation)
    assert res.epsilon <= EPS
    assert res.epsilon > 0.3  # the audit is not vacuous


@pytest.mark.statistical
def test_audit_catches_noise_scale_for_a_larger_epsilon(monkeypatch):
    # Scale 1 / (2ε): 1/2 against e^-2/2, true loss 2ε on this event.
    # Expected bound 1.55 (simulated: all of 2,000 audits above 1.29).
    monkeypatch.setattr(_overlap, "LaplaceMechanism", _LaplaceScaleHalved)
    assert _audit().epsilon > EPS


@pytest.mark.statistical
def test_audit_catches_a_sensitivity_two_count(monkeypatch):
    # D holds the duplicated public row: the mutant counts 2 on D, 0 on D';
    # 1 - e^-1/2 against e^-1/2 on this event, a loss of 1.49 > ε. Expected
    # bound 1.24 (simulated: all of 2,000 audits above 1.06).
    monkeypatch.setattr(_overlap, "_count_public_overlap", _count_with_multiplicity)
    assert _audit().epsilon > EPS


@pytest.mark.statistical
def test_audit_catches_missing_noise(monkeypatch):
    # Outputs exactly 1 and 0: probability 1 against 0; bound 2.26 from 100
    # calls a side.
    monkeypatch.setattr(_overlap, "LaplaceMechanism", _NoNoise)
    assert _audit(n_calls=100).epsilon > EPS


def test_mechanism_is_laplace_with_scale_one_over_epsilon(monkeypatch):
    used = []

    class Spy(LaplaceMechanism):
        def sample(self, value, *, random_state=None):
            used.append((self.epsilon, self.sensitivity, self.scale, value))
            return super().sample(value, random_state=random_state)

    monkeypatch.setattr(_overlap, "LaplaceMechanism", Spy)
    res = noisy_public_overlap(D, PUBLIC, epsilon=0.25)
    assert used == [(0.25, 1.0, 4.0, 1.0)]
    assert res.privacy_spent == overlap_privacy_cost(0.25) == (0.25, 0.0)


# ---------------------------------------------------------------- the ledger


class _Forbidden:
    def __init__(self, what):
        self.what = what
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        raise AssertionError(f"{self.what} ran")


def test_refused_budget_raises_and_reads_nothing(monkeypatch):
    count, noise = _Forbidden("the private count"), _Forbidden("noise_rng")
    monkeypatch.setattr(_overlap, "_count_public_overlap", count)
    monkeypatch.setattr(_overlap, "noise_rng", noise)
    ledger = PrivacyAccountant(epsilon=1.0)
    ledger.spend(0.75)
    with pytest.raises(PrivacyBudgetError):
        noisy_public_overlap(D, PublicData(PUBLIC), epsilon=0.5, accountant=ledger)
    assert count.calls == noise.calls == 0
    assert ledger.spent() == (0.75, 0.0)


def test_charge_comes_before_the_read_and_stays(monkeypatch):
    count = _Forbidden("the private count")
    monkeypatch.setattr(_overlap, "_count_public_overlap", count)
    ledger = PrivacyAccountant(epsilon=1.0)
    with pytest.raises(AssertionError, match="the private count ran"):
        noisy_public_overlap(D, PublicData(PUBLIC), epsilon=0.5, accountant=ledger)
    assert count.calls == 1
    assert ledger.spent() == (0.5, 0.0)  # a failed check stays charged


def test_charge_is_recorded_with_its_source():
    ledger = PrivacyAccountant(epsilon=1.0)
    res = noisy_public_overlap(D, PublicData(PUBLIC), epsilon=0.4, accountant=ledger)
    assert ledger.spent() == res.privacy_spent == overlap_privacy_cost(0.4)
    assert [c.source for c in ledger.history] == ["noisy_public_overlap"]
    noisy_public_overlap(D, PublicData(PUBLIC), epsilon=0.6, accountant=ledger)
    with pytest.raises(PrivacyBudgetError):
        noisy_public_overlap(D, PublicData(PUBLIC), epsilon=0.1, accountant=ledger)


# ---------------------------------------------------------------- result


def test_result_fields_and_threshold():
    with reproducible_noise():
        res = noisy_public_overlap(D, PUBLIC, epsilon=2.0, alpha=0.01, random_state=5)
    assert isinstance(res, NoisyOverlap)
    assert res.n_private == 2
    assert res.noisy_fraction == res.noisy_count / 2
    assert res.threshold == pytest.approx(math.log(50) / 2.0)
    assert res.likely_overlap == (res.noisy_count > res.threshold)
    assert res.false_alarm_probability == 0.01
    # P[Lap(1/ε) > t] = exp(-ε t) / 2 = alpha at a true count of 0, and a true
    # count of 2t is missed with probability alpha.
    assert 0.5 * math.exp(-2.0 * res.threshold) == pytest.approx(0.01)
    assert isinstance(res.likely_overlap, bool)


def test_noise_is_fresh_and_seed_only_counts_under_the_opt_in():
    a = noisy_public_overlap(D, PUBLIC, epsilon=1.0, random_state=0)
    b = noisy_public_overlap(D, PUBLIC, epsilon=1.0, random_state=0)
    assert a.noisy_count != b.noisy_count
    with reproducible_noise():
        c = noisy_public_overlap(D, PUBLIC, epsilon=1.0, random_state=0)
        d = noisy_public_overlap(D, PUBLIC, epsilon=1.0, random_state=0)
    assert c == d


def test_raw_array_dataframe_and_public_labels_accepted():
    X = pd.DataFrame(D, columns=["a", "b"])
    with reproducible_noise():
        ref = noisy_public_overlap(D, PUBLIC, epsilon=1.0, random_state=1)
        for Xp in (
            PublicData(PUBLIC, y=[0, 1, 0]),
            PUBLIC.tolist(),
            pd.DataFrame(PUBLIC, columns=["a", "b"]),
        ):
            assert noisy_public_overlap(X, Xp, epsilon=1.0, random_state=1) == ref


def test_large_true_overlap_is_detected():
    with reproducible_noise():
        res = noisy_public_overlap(
            np.arange(100.0).reshape(50, 2),
            np.arange(100.0).reshape(50, 2),
            epsilon=1.0,
            random_state=0,
        )
    # Missed with probability exp(-(50 - 2.3)) / 2 < 1e-20.
    assert res.likely_overlap and 0.5 < res.noisy_fraction < 1.5


# ---------------------------------------------------------------- input errors

SECRET = 123456.789
X_OK = np.array([[SECRET, 1.0], [0.0, 0.0]])


@pytest.mark.parametrize(
    "X, X_public, kwargs, error, match",
    [
        (X_OK, PUBLIC, {"epsilon": 0.0}, ValueError, "epsilon must be > 0"),
        (X_OK, PUBLIC, {"epsilon": -1.0}, ValueError, "epsilon must be > 0"),
        (X_OK, PUBLIC, {"epsilon": math.inf}, ValueError, "epsilon must be finite"),
        (X_OK, PUBLIC, {"epsilon": "1"}, TypeError, "epsilon must be a real"),
        (X_OK, PUBLIC, {"epsilon": True}, TypeError, "epsilon must be a real"),
        (X_OK, PUBLIC, {"epsilon": 1.0, "alpha": 0.0}, ValueError, "alpha"),
        (X_OK, PUBLIC, {"epsilon": 1.0, "alpha": 0.6}, ValueError, "alpha"),
        (X_OK, PUBLIC, {"epsilon": 1.0, "random_state": "0"}, TypeError, "random"),
        (X_OK, PUBLIC, {"epsilon": 1.0, "random_state": -1}, ValueError, "random"),
        (X_OK, None, {"epsilon": 1.0}, ValueError, "X_public is None"),
        (X_OK, PublicData(None), {"epsilon": 1.0}, ValueError, "X_public is None"),
        (X_OK, np.empty((0, 2)), {"epsilon": 1.0}, ValueError, "at least one row"),
        (X_OK, [[1.0, np.inf]], {"epsilon": 1.0}, ValueError, "X_public must be f"),
        (X_OK, [1.0, 2.0], {"epsilon": 1.0}, ValueError, "X_public must be 2-d"),
        (X_OK, [[1.0]], {"epsilon": 1.0}, ValueError, "X_public has 1 features"),
        (X_OK, [["a", "b"]], {"epsilon": 1.0}, TypeError, "real numbers"),
        (X_OK[:, 0], PUBLIC, {"epsilon": 1.0}, ValueError, "X must be 2-dim"),
        (X_OK[None], PUBLIC, {"epsilon": 1.0}, ValueError, "X must be 2-dim"),
        (np.empty((0, 2)), PUBLIC, {"epsilon": 1.0}, ValueError, "at least one row"),
        (np.empty((2, 0)), PUBLIC, {"epsilon": 1.0}, ValueError, "one feature"),
        (
            np.array([[SECRET, np.nan]]),
            PUBLIC,
            {"epsilon": 1.0},
            ValueError,
            "X must be finite",
        ),
        (
            np.array([[SECRET, np.inf]]),
            PUBLIC,
            {"epsilon": 1.0},
            ValueError,
            "X must be finite",
        ),
        (
            np.array([[str(SECRET), "x"]]),
            PUBLIC,
            {"epsilon": 1.0},
            TypeError,
            "X must hold real",
        ),
        (
            [[SECRET, 1.0], [SECRET]],
            PUBLIC,
            {"epsilon": 1.0},
            ValueError,
            "X could not be read",
        ),
        (PublicData(X_OK), PUBLIC, {"epsilon": 1.0}, TypeError, "only as X_public"),
        (sparse.csr_matrix(X_OK), PUBLIC, {"epsilon": 1.0}, TypeError, "dense"),
        (
            pd.DataFrame(X_OK, columns=["a", "b"]),
            pd.DataFrame(PUBLIC, columns=["b", "a"]),
            {"epsilon": 1.0},
            ValueError,
            "feature names differ",
        ),
    ],
)
def test_input_errors_come_before_the_charge(X, X_public, kwargs, error, match):
    ledger = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(error, match=match) as info:
        noisy_public_overlap(X, X_public, accountant=ledger, **kwargs)
    assert ledger.spent() == (0.0, 0.0)
    message = str(info.value)
    assert "123456" not in message
    assert info.value.__cause__ is None


def test_messages_never_quote_private_values_or_row_counts():
    # scikit-learn's check_array would print a 1-D array in its message.
    rows = np.full((7, 2), SECRET)
    with_nan = rows.copy()
    with_nan[3, 1] = np.nan
    ragged = [*rows.tolist(), [SECRET]]
    for X in (rows[:, 0], rows[None], with_nan, ragged, rows.astype(str)):
        with pytest.raises((ValueError, TypeError)) as info:
            noisy_public_overlap(X, PUBLIC, epsilon=1.0)
        message = str(info.value)
        assert "123456" not in message
        assert "7" not in message, message  # the number of rows
