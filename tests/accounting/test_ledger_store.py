"""A file-backed (SQLite) ledger: shared by processes, threads and later sessions."""

import math
import os
import pickle
import sqlite3
import threading
import time
import warnings

import joblib
import numpy as np
import pytest
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV

from sklearn_semiprivate import (
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyCost,
    PublicData,
    SemiPrivateClassifier,
)


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "budget.db")


def test_survives_restarts(path):
    acc = PrivacyAccountant(epsilon=2.0, delta=1e-5, path=path)
    acc.spend(0.5, 1e-6, source="first")
    acc.spend(0.25, source="second")
    history = acc.history
    del acc
    reopened = PrivacyAccountant(epsilon=2.0, delta=1e-5, path=path)
    assert reopened.spent() == PrivacyCost(0.75, 1e-6)
    assert reopened.history == history
    assert [c.source for c in history] == ["first", "second"]
    reopened.spend(1.25)
    with pytest.raises(PrivacyBudgetError):
        reopened.spend(1e-3)


@pytest.mark.parametrize("budget", [(3.0, 1e-5), (2.0, 0.0), (math.inf, 1e-5)])
def test_stored_budget_is_never_changed(path, budget):
    PrivacyAccountant(epsilon=2.0, path=path).spend(1.0)
    with pytest.raises(ValueError, match="never changed"):
        PrivacyAccountant(*budget, path=path)
    acc = PrivacyAccountant(epsilon=2.0, path=path)
    assert acc.spent() == PrivacyCost(1.0, 0.0)
    with pytest.raises(PrivacyBudgetError):
        acc.spend(1.5)


def test_infinite_budget_round_trips(path):
    acc = PrivacyAccountant(path=path)
    acc.spend(1e300)
    reopened = PrivacyAccountant(epsilon=math.inf, path=path)
    assert reopened.epsilon == math.inf
    assert reopened.spent() == PrivacyCost(1e300, 0.0)
    assert "float('inf')" in repr(reopened)


def test_sums_round_like_the_memory_ledger(path):
    memory = PrivacyAccountant(epsilon=1.0)
    stored = PrivacyAccountant(epsilon=1.0, path=path)
    for acc in (memory, stored):
        for _ in range(10):
            acc.spend(0.1)
        with pytest.raises(PrivacyBudgetError):
            acc.spend(1e-9)
    assert stored.spent() == memory.spent() == PrivacyCost(math.fsum([0.1] * 10), 0)


def test_unpickled_copy_charges_the_same_file(path):
    acc = PrivacyAccountant(epsilon=1.0, path=path)
    twin = pickle.loads(pickle.dumps(acc))
    assert twin.path == acc.path == os.path.abspath(path)
    twin.spend(0.75, source="twin")
    assert acc.spent() == PrivacyCost(0.75, 0.0)
    with pytest.raises(PrivacyBudgetError):
        acc.spend(0.5)
    assert [c.source for c in acc.history] == ["twin"]


def test_relative_path_is_fixed_at_construction(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    acc = PrivacyAccountant(epsilon=1.0, path="budget.db")
    assert acc.path == str(tmp_path / "budget.db")
    monkeypatch.chdir(tmp_path.parent)
    acc.spend(0.5)
    assert PrivacyAccountant(epsilon=1.0, path=tmp_path / "budget.db").spent() == (
        PrivacyCost(0.5, 0.0)
    )


def test_deleted_ledger_file_is_an_error_not_a_fresh_budget(path):
    acc = PrivacyAccountant(epsilon=1.0, path=path)
    acc.spend(1.0)
    os.remove(path)
    with pytest.raises(sqlite3.OperationalError):
        acc.spend(1.0)
    assert not os.path.exists(path)


def test_refused_spend_leaves_no_row(path):
    acc = PrivacyAccountant(epsilon=1.0, path=path)
    acc.spend(0.75)
    with pytest.raises(PrivacyBudgetError):
        acc.spend(0.5, source="refused")
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT epsilon, source FROM charges").fetchall()
        budget = connection.execute("SELECT epsilon, delta FROM budget").fetchall()
    connection.close()
    assert rows == [(0.75, "")]
    assert budget == [(1.0, 1e-5)]


def test_separate_accountants_on_one_file_cannot_jointly_overspend(path):
    # one object per thread: no shared Python lock, only the SQLite transaction
    PrivacyAccountant(epsilon=1.0, path=path)
    barrier = threading.Barrier(8)
    won = []

    def worker():
        acc = PrivacyAccountant(epsilon=1.0, path=path)
        barrier.wait()
        for _ in range(5):
            try:
                acc.spend(0.05)
            except PrivacyBudgetError:
                pass
            else:
                won.append(1)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    acc = PrivacyAccountant(epsilon=1.0, path=path)
    assert len(won) == len(acc.history) == 20
    assert acc.spent().epsilon == pytest.approx(1.0)


def _try_spend(acc, epsilon):
    time.sleep(0.01)  # spread the tasks over both workers
    try:
        acc.spend(epsilon, source=f"process {os.getpid()}")
    except PrivacyBudgetError:
        return os.getpid(), False
    return os.getpid(), True


def test_processes_race_for_the_budget(path):
    acc = PrivacyAccountant(epsilon=5.0, path=path)
    results = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(_try_spend)(acc, 0.25) for _ in range(40)
    )
    pids = {pid for pid, _ in results}
    assert os.getpid() not in pids
    assert len(pids) == 2
    successes = sum(ok for _, ok in results)
    assert successes == 20  # floor(5.0 / 0.25)
    assert len(acc.history) == successes
    assert acc.spent() == PrivacyCost(20 * 0.25, 0.0)
    assert {c.source for c in acc.history} <= {f"process {pid}" for pid in pids}


def make_data(n=300, n_pub=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3))
    y = (X[:, 1] > 0.2).astype(int)
    X_pub = rng.uniform(-1, 1, size=(n_pub, 3))
    return X, y, X_pub


def search(acc, **kwargs):
    clf = SemiPrivateClassifier(
        epsilon=0.5, classes=[0, 1], accountant=acc, random_state=0
    )
    return GridSearchCV(clf, {"n_public": [10, 40]}, cv=3, **kwargs)


def test_process_parallel_search_charges_every_fit(path):
    X, y, X_pub = make_data()
    acc = PrivacyAccountant(epsilon=10.0, path=path)
    search(acc, n_jobs=2).fit(X, y, X_public=PublicData(X_pub))
    n_fits = 2 * 3 + 1  # candidates x splits, then the refit
    history = acc.history
    assert len(history) == n_fits
    assert acc.spent() == PrivacyCost(n_fits * 0.5, 0.0)
    assert {c.source for c in history} == {"SemiPrivateClassifier"}
    assert sorted(c.params["n_public"] for c in history[:-1]) == ["10"] * 3 + ["40"] * 3
    assert all("accountant" not in c.params for c in history)


def test_process_parallel_search_over_budget_is_refused(path):
    X, y, X_pub = make_data()
    acc = PrivacyAccountant(epsilon=2.0, path=path)
    with warnings.catch_warnings():
        # the refused fits score nan, so the search warns about them
        warnings.simplefilter("ignore", FitFailedWarning)
        warnings.filterwarnings("ignore", "One or more of the test scores")
        with pytest.raises(PrivacyBudgetError, match="exceeded"):  # the refit
            search(acc, n_jobs=2).fit(X, y, X_public=PublicData(X_pub))
    assert len(acc.history) == 4  # 2.0 / 0.5 of the 6 cross-validation fits
    assert acc.spent() == PrivacyCost(2.0, 0.0)


def test_process_parallel_search_with_memory_ledger_fails_closed():
    X, y, X_pub = make_data()
    acc = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(PrivacyBudgetError, match="detached copy"):
        search(acc, n_jobs=2, error_score="raise").fit(X, y, X_public=PublicData(X_pub))
    assert acc.history == []
    assert acc.spent() == PrivacyCost(0.0, 0.0)


def test_thread_parallel_search_with_memory_ledger_charges_every_fit():
    X, y, X_pub = make_data()
    acc = PrivacyAccountant(epsilon=10.0)
    with joblib.parallel_backend("threading"):
        search(acc, n_jobs=2).fit(X, y, X_public=PublicData(X_pub))
    assert len(acc.history) == 7
    assert {c.source for c in acc.history} == {"SemiPrivateClassifier"}


def test_replaced_file_with_another_budget_is_refused(tmp_path):
    # A reviewer's case: the file is deleted and recreated with a larger
    # budget; a copy unpickled from the original (budget 1.0) must not charge it.
    path = tmp_path / "budget.db"
    acc = PrivacyAccountant(epsilon=1.0, path=path)
    acc.spend(0.5)
    copy = pickle.loads(pickle.dumps(acc))
    path.unlink()
    PrivacyAccountant(epsilon=1000.0, path=path)
    with pytest.raises(PrivacyBudgetError, match="no longer holds the budget"):
        copy.spend(0.9)
    assert PrivacyAccountant(epsilon=1000.0, path=path).spent().epsilon == 0.0
