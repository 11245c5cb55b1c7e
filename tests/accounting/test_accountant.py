"""The ledger: check before spend, thread safety, survival under clone."""

import pickle
import threading

import pytest
from sklearn.base import clone

from sklearn_semiprivate import (
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyCost,
    PrivacyLeakWarning,
)


def test_spend_and_remaining():
    acc = PrivacyAccountant(epsilon=1.0, delta=1e-5)
    for _ in range(10):
        acc.spend(0.1)
    assert acc.remaining().epsilon == pytest.approx(0.0, abs=1e-12)
    assert acc.history == [PrivacyCost(0.1, 0.0)] * 10
    with pytest.raises(PrivacyBudgetError, match="exceeded"):
        acc.spend(0.01)
    assert len(acc.history) == 10


def test_check_spends_nothing_and_refuses_delta():
    acc = PrivacyAccountant(epsilon=1.0, delta=0.0)
    acc.check(1.0)
    assert acc.history == []
    with pytest.raises(PrivacyBudgetError):
        acc.check(0.5, 1e-9)
    with pytest.raises(PrivacyBudgetError):
        acc.spend(0.5, 1e-9)
    assert acc.spent() == PrivacyCost(0.0, 0.0)


def test_slack_is_relative_so_tiny_deltas_are_not_overspent():
    # an absolute 1e-12 slack let a pure-DP budget take delta 9e-13 and a
    # delta = 1e-12 budget take twice its delta
    pure = PrivacyAccountant(epsilon=1.0, delta=0.0)
    with pytest.raises(PrivacyBudgetError):
        pure.spend(0.1, 9e-13)
    tiny = PrivacyAccountant(epsilon=10.0, delta=1e-12)
    tiny.spend(1.0, 1e-12)
    with pytest.raises(PrivacyBudgetError):
        tiny.spend(1.0, 1e-12)
    # float rounding of many equal spends is still absorbed
    acc = PrivacyAccountant(epsilon=0.3, delta=3e-6)
    for _ in range(3):
        acc.spend(0.1, 1e-6)
    assert len(acc.history) == 3


def test_default_budget_is_unbounded_but_recorded():
    acc = PrivacyAccountant()
    acc.spend(100.0)
    assert acc.spent() == PrivacyCost(100.0, 0.0)
    with pytest.raises(PrivacyBudgetError):  # delta budget defaults to 0
        acc.spend(1.0, 1e-9)


def test_clone_shares_the_ledger():
    acc = PrivacyAccountant(epsilon=2.0)
    assert clone(acc, safe=False) is acc


def test_threads_cannot_jointly_overspend():
    acc = PrivacyAccountant(epsilon=1.0)
    refused = []
    barrier = threading.Barrier(8)

    def worker():
        barrier.wait()
        for _ in range(50):
            try:
                acc.spend(0.01)
            except PrivacyBudgetError:
                refused.append(1)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(acc.history) == 100
    assert len(refused) == 8 * 50 - 100
    assert acc.spent().epsilon <= 1.0 + 1e-12


def test_unpickled_copy_warns_when_charged():
    acc = PrivacyAccountant(epsilon=1.0)
    acc.spend(0.25)
    copy = pickle.loads(pickle.dumps(acc))
    assert copy.history == acc.history
    with pytest.warns(PrivacyLeakWarning, match="unpickled copy"):
        copy.spend(0.25)
    assert acc.spent().epsilon == 0.25


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"epsilon": 0}, ValueError),
        ({"epsilon": -1}, ValueError),
        ({"epsilon": float("nan")}, ValueError),
        ({"epsilon": "1"}, TypeError),
        ({"epsilon": 1.0, "delta": 1.0}, ValueError),
    ],
)
def test_bad_budget(kwargs, error):
    with pytest.raises(error):
        PrivacyAccountant(**kwargs)
