"""The ledger: atomic spends, fail-closed copies, readable history, survival under
clone. File-backed (SQLite) and multi-process behaviour: test_ledger_store.py."""

import copy
import math
import multiprocessing
import pickle
import threading
from datetime import datetime, timedelta, timezone

import pytest
from sklearn.base import BaseEstimator, clone

from sklearn_semiprivate import PrivacyAccountant, PrivacyBudgetError, PrivacyCost
from sklearn_semiprivate.accounting import PrivacyCharge


@pytest.fixture(params=["memory", "sqlite"])
def make_accountant(request, tmp_path):
    """Build an accountant of either storage; same budget logic is expected."""

    def make(*args, **kwargs):
        if request.param == "sqlite":
            kwargs["path"] = tmp_path / "budget.db"
        return PrivacyAccountant(*args, **kwargs)

    return make


class _Estimator(BaseEstimator):
    def __init__(self, accountant=None, alpha=0.5, big=None):
        self.accountant = accountant
        self.alpha = alpha
        self.big = big


def costs(acc):
    return [charge.cost for charge in acc.history]


def test_spend_and_remaining(make_accountant):
    acc = make_accountant(epsilon=1.0, delta=1e-5)
    for _ in range(10):
        acc.spend(0.1)
    assert acc.remaining().epsilon == pytest.approx(0.0, abs=1e-12)
    assert costs(acc) == [PrivacyCost(0.1, 0.0)] * 10
    with pytest.raises(PrivacyBudgetError, match="exceeded"):
        acc.spend(0.01)
    assert len(acc.history) == 10


def test_check_spends_nothing_and_refuses_delta(make_accountant):
    acc = make_accountant(epsilon=1.0, delta=0.0)
    acc.check(1.0)
    assert acc.history == []
    with pytest.raises(PrivacyBudgetError):
        acc.check(0.5, 1e-9)
    with pytest.raises(PrivacyBudgetError):
        acc.spend(0.5, 1e-9)
    assert acc.spent() == PrivacyCost(0.0, 0.0)
    assert acc.history == []


def test_refusal_names_the_short_part(make_accountant):
    # A user review: a ledger of epsilon=20 refused a second fit at delta=1e-5
    # with a message that did not say delta was what ran out.
    acc = make_accountant(epsilon=20.0)
    acc.spend(0.5, 1e-5)
    with pytest.raises(PrivacyBudgetError, match=r"exceeded \(delta\).*Only delta"):
        acc.spend(0.5, 1e-5)
    with pytest.raises(PrivacyBudgetError, match=r"exceeded \(epsilon\): ") as info:
        acc.spend(30.0)
    assert "Only delta" not in str(info.value)
    with pytest.raises(PrivacyBudgetError, match=r"\(epsilon and delta\)"):
        acc.spend(30.0, 1e-5)


def test_slack_is_relative_so_tiny_deltas_are_not_overspent(make_accountant):
    # an absolute 1e-12 slack let a pure-DP budget take delta 9e-13 and a
    # delta = 1e-12 budget take twice its delta
    pure = PrivacyAccountant(epsilon=1.0, delta=0.0)
    with pytest.raises(PrivacyBudgetError):
        pure.spend(0.1, 9e-13)
    tiny = make_accountant(epsilon=10.0, delta=1e-12)
    tiny.spend(1.0, 1e-12)
    with pytest.raises(PrivacyBudgetError):
        tiny.spend(1.0, 1e-12)


def test_float_rounding_of_many_spends_is_absorbed(make_accountant):
    acc = make_accountant(epsilon=0.3, delta=3e-6)
    for _ in range(3):
        acc.spend(0.1, 1e-6)
    assert len(acc.history) == 3
    with pytest.raises(PrivacyBudgetError):
        acc.spend(1e-9)


def test_default_delta_budget_allows_ten_default_fits():
    # estimators default to delta = 1e-6 per fit; a delta budget of 0 refused the
    # first one
    acc = PrivacyAccountant(epsilon=2.0)
    acc.spend(1.0, 1e-6)
    assert acc.delta == 1e-5
    unbounded = PrivacyAccountant()
    for _ in range(10):
        unbounded.spend(100.0, 1e-6)
    assert unbounded.spent().epsilon == 1000.0
    with pytest.raises(PrivacyBudgetError):
        unbounded.spend(1.0, 1e-6)


def test_clone_copy_and_deepcopy_share_the_ledger(make_accountant):
    acc = make_accountant(epsilon=2.0)
    assert clone(acc, safe=False) is acc
    assert copy.copy(acc) is acc
    assert copy.deepcopy(acc) is acc
    est = clone(_Estimator(accountant=acc))
    assert est.accountant is acc


def test_threads_race_for_the_last_of_the_budget(make_accountant):
    # eight threads released together each try 0.3 of 1.0: exactly three win,
    # and the history names exactly the winners
    acc = make_accountant(epsilon=1.0)
    barrier = threading.Barrier(8)
    won, refused = [], []

    def worker(number):
        barrier.wait()
        try:
            acc.spend(0.3, source=f"thread {number}")
        except PrivacyBudgetError:
            refused.append(number)
        else:
            won.append(number)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 3
    assert len(refused) == 5
    assert sorted(c.source for c in acc.history) == sorted(f"thread {i}" for i in won)
    assert acc.spent().epsilon <= 1.0


def test_detached_copy_fails_closed():
    acc = PrivacyAccountant(epsilon=1.0)
    acc.spend(0.25, source="before")
    detached = pickle.loads(pickle.dumps(acc))
    with pytest.raises(PrivacyBudgetError, match=r"detached copy.*path="):
        detached.spend(0.25)
    with pytest.raises(PrivacyBudgetError, match="detached copy"):
        detached.check(0.25)
    # a pickled estimator carries a detached accountant too
    est = pickle.loads(pickle.dumps(_Estimator(accountant=acc)))
    with pytest.raises(PrivacyBudgetError, match="detached copy"):
        est.accountant.spend(0.1)
    # its history is a readable snapshot; the original is untouched and works
    assert detached.history == acc.history
    assert acc.spent() == PrivacyCost(0.25, 0.0)
    acc.spend(0.25)
    assert len(acc.history) == 2
    assert len(detached.history) == 1


def _spend_in_child(acc, queue):
    try:
        acc.spend(0.5)
    except PrivacyBudgetError as exc:
        queue.put(str(exc))
    else:
        queue.put("charged")


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs fork"
)
@pytest.mark.filterwarnings("ignore:This process .* multi-threaded:DeprecationWarning")
def test_forked_copy_fails_closed():
    # fork copies the object without pickling it; the copy is detached all the same
    acc = PrivacyAccountant(epsilon=1.0)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_spend_in_child, args=(acc, queue))
    child.start()
    message = queue.get(timeout=60)
    child.join(timeout=60)
    assert "detached copy" in message
    assert acc.history == []
    acc.spend(0.5)


def test_history_records_source_params_and_time(make_accountant):
    acc = make_accountant(epsilon=10.0)
    before = datetime.now(timezone.utc)
    acc.spend(1.0, 1e-6, source=_Estimator(accountant=acc, big=list(range(1000))))
    acc.spend(0.5, source="a count")
    acc.spend(0.25)
    acc.spend(0.125, source=object())
    after = datetime.now(timezone.utc)
    history = acc.history
    assert all(isinstance(charge, PrivacyCharge) for charge in history)
    assert [c.source for c in history] == ["_Estimator", "a count", "", "object"]
    first = history[0]
    assert first.cost == PrivacyCost(1.0, 1e-6)
    assert set(first.params) == {"alpha", "big"}  # no accountant
    assert first.params["alpha"] == "0.5"
    assert first.params["big"].startswith("[0, 1, 2")
    assert len(first.params["big"]) <= 200
    assert [c.params for c in history[1:]] == [{}, {}, {}]
    for charge in history:
        time = datetime.fromisoformat(charge.time)
        assert time.utcoffset() == timedelta(0)
        assert before <= time <= after
    assert [c.time for c in history] == sorted(c.time for c in history)


def test_repr_is_static_and_valid_python(tmp_path):
    namespace = {"PrivacyAccountant": PrivacyAccountant}
    acc = PrivacyAccountant(epsilon=2.0)
    assert repr(acc) == "PrivacyAccountant(epsilon=2.0, delta=1e-05)"
    acc.spend(1.0)
    assert repr(acc) == "PrivacyAccountant(epsilon=2.0, delta=1e-05)"
    again = eval(repr(acc), namespace)
    assert (again.epsilon, again.delta, again.path) == (2.0, 1e-5, None)
    unbounded = eval(repr(PrivacyAccountant(delta=0.0)), namespace)
    assert (unbounded.epsilon, unbounded.delta) == (math.inf, 0.0)

    path = tmp_path / "budget.db"
    stored = PrivacyAccountant(epsilon=0.1 + 0.2, path=path)
    text = repr(stored)
    expected = "PrivacyAccountant(epsilon=0.30000000000000004, delta=1e-05, path={!r})"
    assert text == expected.format(str(path))
    stored.spend(0.1)
    assert repr(stored) == text
    assert eval(text, namespace).spent() == PrivacyCost(0.1, 0.0)


def test_privacy_cost_repr_rounds_display_only():
    cost = PrivacyCost(0.9999999999999492, 0.0)
    assert repr(cost) == "PrivacyCost(epsilon=1.0, delta=0.0)"
    assert cost.epsilon == 0.9999999999999492
    assert cost != PrivacyCost(1.0, 0.0)
    assert repr(PrivacyCost(0.1 + 0.2, 1e-6)) == "PrivacyCost(epsilon=0.3, delta=1e-06)"
    assert repr(PrivacyCost(1 / 3)) == "PrivacyCost(epsilon=0.333333333333, delta=0.0)"
    infinite = PrivacyCost(math.inf)
    assert eval(repr(infinite), {"PrivacyCost": PrivacyCost}) == infinite


def test_summary_shows_the_spent_budget_and_recent_charges():
    acc = PrivacyAccountant(epsilon=2.0)
    for i in range(12):
        acc.spend(0.1, source=f"step {i}")
    text = acc.summary(n_charges=3)
    lines = text.splitlines()
    assert lines[0] == repr(acc)
    assert "PrivacyCost(epsilon=1.2, delta=0.0) in 12 charges" in lines[1]
    assert "PrivacyCost(epsilon=0.8, delta=1e-05)" in lines[2]
    assert "9 earlier charges" in lines[3]
    assert [line.split()[-1] for line in lines[4:]] == ["9", "10", "11"]


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"epsilon": 0}, ValueError),
        ({"epsilon": -1}, ValueError),
        ({"epsilon": float("nan")}, ValueError),
        ({"epsilon": "1"}, TypeError),
        ({"epsilon": 1.0, "delta": 1.0}, ValueError),
        ({"epsilon": 1.0, "path": ":memory:"}, ValueError),
        ({"epsilon": 1.0, "path": ""}, ValueError),
        ({"epsilon": 1.0, "path": 3}, TypeError),
    ],
)
def test_bad_budget(kwargs, error):
    match = "path must" if "path" in kwargs else None
    with pytest.raises(error, match=match):
        PrivacyAccountant(**kwargs)


@pytest.mark.parametrize("cost", [(-0.1, 0.0), (float("nan"), 0.0), (0.1, 1.5)])
def test_bad_spend_records_nothing(make_accountant, cost):
    acc = make_accountant(epsilon=1.0)
    with pytest.raises(ValueError):
        acc.spend(*cost)
    assert acc.history == []
