"""The ledger as estimators use it: reserved before the first private read.

Issue 9, section 2. Before the fix an estimator called ``check`` before its
mechanism and ``spend`` after it: two threads both ran their mechanism before
one was refused, and a fit failing after its private read charged nothing, so
it could be retried without limit. Each test below fails on that code.
"""

import threading

import numpy as np
import pytest

from sklearn_semiprivate import (
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyCost,
    PublicAssistedQueryRelease,
    PublicData,
    SemiPrivateClassifier,
)
from sklearn_semiprivate.query_release import (
    PredicateQueries,
    ThresholdQueries,
    _release,
)


def _data():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 2))
    return X, (X[:, 0] > 0.5).astype(int), PublicData(rng.uniform(size=(20, 2)))


def test_concurrent_fits_run_one_mechanism_within_budget(monkeypatch):
    X, y, pub = _data()
    acc = PrivacyAccountant(epsilon=1.0)
    barrier = threading.Barrier(2)
    selections = []
    original = SemiPrivateClassifier._select_member

    def slow_selection(self, *args):
        selections.append(threading.get_ident())
        barrier.wait(timeout=2)  # would let the other thread's selection run too
        return original(self, *args)

    monkeypatch.setattr(SemiPrivateClassifier, "_select_member", slow_selection)
    errors = []

    def fit():
        clf = SemiPrivateClassifier(classes=[0, 1], accountant=acc)
        try:
            clf.fit(X, y, X_public=pub)
        except (PrivacyBudgetError, threading.BrokenBarrierError) as exc:
            errors.append(type(exc))

    threads = [threading.Thread(target=fit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # One thread was refused before its private read; the other's selection
    # then waited in vain for a partner and failed, but stays charged.
    assert len(selections) == 1
    assert sorted(e.__name__ for e in errors) == [
        "BrokenBarrierError",
        "PrivacyBudgetError",
    ]
    assert [c.cost for c in acc.history] == [PrivacyCost(1.0, 0.0)]


def test_fit_failing_after_the_private_read_stays_charged(monkeypatch):
    X, y, pub = _data()
    acc = PrivacyAccountant(epsilon=2.5)

    def failing_selection(self, cover, data, rng):
        raise FloatingPointError("failed while reading private rows")

    monkeypatch.setattr(SemiPrivateClassifier, "_select_member", failing_selection)
    clf = SemiPrivateClassifier(classes=[0, 1], accountant=acc)
    for _ in range(2):
        with pytest.raises(FloatingPointError):
            clf.fit(X, y, X_public=pub)
    # The third retry is refused: the failures were charged.
    with pytest.raises(PrivacyBudgetError):
        clf.fit(X, y, X_public=pub)
    assert acc.spent() == PrivacyCost(2.0, 0.0)


def test_query_release_failing_in_its_rounds_stays_charged(monkeypatch):
    rng = np.random.default_rng(1)
    X, pub = rng.uniform(size=(300, 1)), PublicData(rng.uniform(size=(20, 1)))
    acc = PrivacyAccountant(epsilon=1.0, delta=1e-5)

    def failing_rounds(*args, **kwargs):
        raise OverflowError("math range error")

    monkeypatch.setattr(_release, "mwem_rounds", failing_rounds)
    qr = PublicAssistedQueryRelease(
        ThresholdQueries(np.linspace(0, 1, 5)),
        epsilon=0.5,
        support="public",
        accountant=acc,
    )
    with pytest.raises(OverflowError):
        qr.fit(X, X_public=pub)
    # The whole (epsilon, delta) was reserved before the rounds read the rows.
    assert len(acc.history) == 1
    assert acc.spent().epsilon == pytest.approx(0.5, rel=1e-9)
    assert acc.spent().delta == pytest.approx(1e-6, rel=1e-9, abs=0)
    assert not hasattr(qr, "answers_")


def test_estimator_repr_does_not_show_the_ledger_state():
    X, y, pub = _data()
    acc = PrivacyAccountant(epsilon=3.0)
    clf = SemiPrivateClassifier(classes=[0, 1], accountant=acc, random_state=0)
    before = repr(clf)
    clf.fit(X, y, X_public=pub)
    assert repr(clf) == before
    assert "spent" not in before
    assert "PrivacyAccountant(epsilon=3.0, delta=1e-05)" in before


def test_history_names_what_spent_it():
    X, y, pub = _data()
    acc = PrivacyAccountant(epsilon=3.0)
    SemiPrivateClassifier(classes=[0, 1], epsilon=0.5, accountant=acc).fit(
        X, y, X_public=pub
    )
    (charge,) = acc.history
    assert charge.source == "SemiPrivateClassifier"
    assert charge.params["epsilon"] == "0.5"
    assert "accountant" not in charge.params


def test_no_domain_membership_oracle_on_an_exhausted_ledger():
    # A reviewer's attack: a workload whose declared domain leaves out one
    # target record. Before, the "outside the declared domain" error came
    # before the charge, so it answered "is the target in the private data?"
    # for free, also after the budget was spent.
    domain = np.array([[a, b] for a in (0.0, 1.0) for b in (0.0, 1.0)])
    target = domain[3]
    queries = PredicateQueries([lambda Z: Z[:, 0] > 0], domain=domain[:3])
    rng = np.random.default_rng(0)
    without = domain[:3][rng.integers(0, 3, size=50)]
    with_target = np.vstack([without, target])
    acc = PrivacyAccountant(epsilon=1.0, delta=1e-5)
    qr = PublicAssistedQueryRelease(queries, support="public", accountant=acc)
    pub = PublicData(domain[:3])
    with pytest.raises(ValueError, match="outside the declared domain"):
        qr.fit(with_target, X_public=pub)
    assert acc.spent().epsilon == pytest.approx(1.0, rel=1e-9)  # charged
    for X in (with_target, without):
        with pytest.raises(PrivacyBudgetError):
            qr.fit(X, X_public=pub)
