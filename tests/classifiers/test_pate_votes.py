"""PATE teachers' vote tables: exact sensitivity on neighbouring datasets,
per-teacher seeds, failing teachers, warnings in threads (_pate_votes.py)."""

import contextlib
import math
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from sklearn_semiprivate import (
    PATEClassifier,
    PrivacyAccountant,
    PrivacyCost,
    PublicData,
    reproducible_noise,
)
from sklearn_semiprivate.classifiers import _pate
from sklearn_semiprivate.classifiers._pate_votes import (
    local_votes,
    teacher_votes,
)


def make_data(n=3000, n_pub=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    X_pub = rng.normal(size=(n_pub, 3))
    X_test = rng.normal(size=(2000, 3))
    return X, y, X_pub, X_test, (X_test[:, 0] - X_test[:, 1] > 0).astype(int)


# --------------------------------------------------------------------------
# Sensitivity of the vote tables (exact, on neighbouring datasets)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("relation", ["remove", "replace"])
def test_teacher_votes_one_vote_moves_per_query(relation):
    rng = np.random.default_rng(0)
    classes = np.array([0, 1, 2])
    X, X_query = rng.normal(size=(60, 2)), rng.normal(size=(25, 2))
    y = rng.integers(3, size=60)
    teacher = DecisionTreeClassifier(max_depth=2, random_state=0)
    for trial in range(20):
        n_teachers = [1, 3, 7, 100][trial % 4]
        assignment = rng.integers(n_teachers, size=60)
        seeds = rng.integers(2**32, size=n_teachers)
        votes = teacher_votes(
            teacher, X, y, X_query, classes, assignment, n_teachers, seeds=seeds
        )
        i = rng.integers(60)
        if relation == "remove":
            keep = np.arange(60) != i
            X2, y2, a2 = X[keep], y[keep], assignment[keep]
        else:
            X2, y2, a2 = X.copy(), y.copy(), assignment
            X2[i], y2[i] = rng.normal(size=2), (y[i] + 1) % 3
        other = teacher_votes(
            teacher, X2, y2, X_query, classes, a2, n_teachers, seeds=seeds
        )
        diff = np.abs(votes - other)
        assert diff.sum(axis=1).max() <= 2  # L1 per query
        assert np.sqrt((diff**2).sum()) <= math.sqrt(2 * X_query.shape[0])


def test_teacher_votes_counts_abstentions_and_constant_teachers():
    classes = np.array([0, 1])
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([1, 1, 0, 1])
    # Teacher 0: one class (votes 1 everywhere); teacher 1: empty (abstains);
    # teacher 2: both classes (fitted).
    assignment = np.array([0, 0, 2, 2])
    votes = teacher_votes(
        DummyClassifier(strategy="constant", constant=0),
        X,
        y,
        np.zeros((5, 1)),
        classes,
        assignment,
        3,
        seeds=np.arange(3),
    )
    assert votes.tolist() == [[1, 1]] * 5


@contextlib.contextmanager
def _global_rng_seeded(seed):
    """numpy's global generator seeded (as the old code's teachers drew from
    it), and restored afterwards for the other tests."""
    state = np.random.get_state()  # noqa: NPY002
    np.random.seed(seed)  # noqa: NPY002
    try:
        yield
    finally:
        np.random.set_state(state)  # noqa: NPY002


def _one_row_flips_teacher_zero(n=2000, n_teachers=100, seed=1):
    """D and D' differing in one label, which turns teacher 0 from fitted
    (two classes) into constant (one class): with a shared generator, the
    teachers after it would draw from another position of it."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    assignment = rng.integers(n_teachers, size=n)
    rows0 = np.flatnonzero(assignment == 0)
    y[rows0] = 0
    y2 = y.copy()
    y[rows0[-1]] = 1
    # Queries near the decision boundary, where stochastic teachers disagree.
    return X, y, y2, 0.3 * rng.normal(size=(50, 2)), assignment


def test_teacher_votes_one_row_changes_one_teacher_whatever_the_global_rng():
    X, y, y2, X_query, assignment = _one_row_flips_teacher_zero()
    classes = np.array([0, 1])
    # random_state=None, nested in a pipeline: without its own seed it draws
    # from numpy's global generator (seeded alike for both runs here).
    teacher = make_pipeline(StandardScaler(), SGDClassifier(max_iter=5, tol=None))
    seeds = np.random.default_rng(2).integers(2**32, size=100)
    tables = []
    for labels in (y, y2):
        with _global_rng_seeded(0):
            tables.append(
                teacher_votes(
                    teacher, X, labels, X_query, classes, assignment, 100, seeds=seeds
                )
            )
    diff = np.abs(tables[0] - tables[1])
    assert diff.sum(axis=1).max() <= 2  # one teacher's vote moves per query


def _spy_teacher_votes(monkeypatch):
    """Record the assignment, the seeds and the vote table of every fit."""
    calls = []
    real = _pate.teacher_votes

    def spy(*args, **kwargs):
        votes = real(*args, **kwargs)
        calls.append((args[5].copy(), kwargs.get("seeds"), votes))
        return votes

    monkeypatch.setattr(_pate, "teacher_votes", spy)
    return calls


def test_fit_gives_each_teacher_its_own_seed(monkeypatch):
    calls = _spy_teacher_votes(monkeypatch)
    X, y, _, X_pub, _ = _one_row_flips_teacher_zero(n=1000, n_teachers=50)
    clf = PATEClassifier(
        teacher=make_pipeline(StandardScaler(), SGDClassifier(max_iter=5, tol=None)),
        n_teachers=50,
        classes=[0, 1],
        random_state=0,
    )
    with reproducible_noise():
        # The assignment is drawn from the (here reproducible) noise, not from
        # the labels: fit once to learn it, then make D and D' differ in one
        # row that turns teacher 0 from fitted into constant.
        clone(clf).fit(X, y, X_public=PublicData(X_pub))
        assignment = calls[0][0]
        rows0 = np.flatnonzero(assignment == 0)
        y, y2 = y.copy(), y.copy()
        y[rows0], y2[rows0] = 0, 0
        y[rows0[-1]] = 1
        for labels in (y, y2):
            with _global_rng_seeded(0):
                clone(clf).fit(X, labels, X_public=PublicData(X_pub))
    (a1, _, v1), (a2, _, v2) = calls[1:]
    assert np.array_equal(assignment, a1) and np.array_equal(a1, a2)
    assert np.abs(v1 - v2).sum(axis=1).max() <= 2


def test_teacher_seeds_are_fresh_secret_noise(monkeypatch):
    calls = _spy_teacher_votes(monkeypatch)
    X, y, X_pub, _, _ = make_data(n=300, n_pub=20)
    clf = PATEClassifier(n_teachers=10, classes=[0, 1], random_state=0)
    for _ in range(2):
        clone(clf).fit(X, y, X_public=PublicData(X_pub))
    (_, seeds_a, _), (_, seeds_b, _) = calls
    assert seeds_a.shape == (10,)
    # Not from random_state: the same seed gives other teachers' seeds.
    assert not np.array_equal(seeds_a, seeds_b)


@pytest.mark.parametrize(
    "teacher",
    [
        # Fails in predict: more neighbours than a partition's rows.
        KNeighborsClassifier(n_neighbors=15),
        # Fails in fit: the constant label is in no partition.
        DummyClassifier(strategy="constant", constant=2),
    ],
)
def test_teacher_failing_on_its_partition_abstains(teacher):
    rng = np.random.default_rng(0)
    classes = np.array([0, 1, 2])
    # Every teacher holds both of labels 0 and 1, and 10 rows.
    assignment = np.repeat(np.arange(6), 10)
    y = np.tile([0, 1], 30)
    X = rng.normal(size=(60, 2))
    votes = teacher_votes(
        teacher, X, y, rng.normal(size=(7, 2)), classes, assignment, 6, seeds=[0] * 6
    )
    assert votes.tolist() == [[0, 0, 0]] * 7


def test_teacher_failing_on_small_partitions_fits_and_is_charged_once():
    # The review's reproducer: the dry run passes (20 placeholder rows), but
    # the partitions hold about 3 rows, fewer than the 5 neighbours: the old
    # code raised after the charge, quoting a partition's size.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] > 0).astype(int)
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    clf = PATEClassifier(
        teacher=KNeighborsClassifier(n_neighbors=5),
        n_teachers=100,
        classes=[0, 1],
        accountant=acc,
    )
    clf.fit(X, y, X_public=PublicData(rng.normal(size=(40, 2))))
    assert len(acc.history) == 1 and acc.spent() == PrivacyCost(1.0, 1e-5)


def test_teacher_warnings_stay_dropped_with_fits_in_threads():
    # The review's reproducer: catch_warnings swaps the process-wide filters,
    # so two fits in threads restored each other's filters mid-fit and the
    # teachers' ConvergenceWarnings (a function of their partitions) escaped.
    # A third thread swaps them the way scikit-learn's own input checks do
    # (check_array, type_of_target), in the other fit's thread as well.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 5))
    y = (X.sum(axis=1) > 0).astype(int)
    X_pub = rng.normal(size=(30, 5))
    clf = PATEClassifier(
        teacher=LogisticRegression(max_iter=1),  # never converges
        student=DecisionTreeClassifier(random_state=0),  # never warns
        n_teachers=60,
        classes=[0, 1],
    )
    done = threading.Event()

    def fits(_):
        for _ in range(6):
            clone(clf).fit(X, y, X_public=PublicData(X_pub))

    def swaps():
        while not done.is_set():
            with warnings.catch_warnings():
                time.sleep(1e-4)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        swapper = threading.Thread(target=swaps)
        swapper.start()
        try:
            with ThreadPoolExecutor(max_workers=2) as pool:
                list(pool.map(fits, range(2)))
        finally:
            done.set()
            swapper.join()
    assert [w for w in caught if w.category is ConvergenceWarning] == []


def test_teacher_failing_on_every_partition_gives_no_signal(monkeypatch):
    calls = _spy_teacher_votes(monkeypatch)
    X, y, X_pub, X_test, _ = make_data(n=300, n_pub=40)
    # Partitions hold Binomial(300, 1/n_teachers) rows. With 50 teachers and
    # 15 neighbours one reached 15 rows in about 6% of fits (a CI run met
    # one, whose teacher then voted); with 100 teachers and 20 neighbours (the
    # most the dry run's 20 placeholder rows allow) about 1e-10.
    clf = PATEClassifier(
        teacher=KNeighborsClassifier(n_neighbors=20),
        n_teachers=100,
        epsilon=5.0,
        classes=[0, 1],
    )
    clf.fit(X, y, X_public=PublicData(X_pub))
    ((_, _, votes),) = calls
    # Every fitted teacher abstained: only single-class teachers voted, the
    # same on every query.
    assert (votes == votes[0]).all() and votes[0].sum() < 100
    predicted = clf.predict(X_test)
    assert predicted.shape == (X_test.shape[0],) and set(predicted) <= {0, 1}


def test_local_votes_sensitivity_is_independent_of_the_queries():
    rng = np.random.default_rng(1)
    classes = np.array([0, 1])
    bounds = np.array([[-3.0, 3.0], [-3.0, 3.0]])
    X, y = rng.normal(size=(50, 2)), rng.integers(2, size=50)
    X_query = rng.uniform(-3, 3, size=(40, 2))
    votes = local_votes(X, y, X_query, classes, bounds)
    assert votes.sum() == 50
    X2, y2 = X.copy(), y.copy()
    X2[3], y2[3] = -X[3], 1 - y[3]
    assert np.abs(votes - local_votes(X2, y2, X_query, classes, bounds)).sum() <= 2
    removed = local_votes(X[1:], y[1:], X_query, classes, bounds)
    assert np.abs(votes - removed).sum() == 1


@pytest.mark.parametrize("backend", ["loky", "threading"])
def test_parallel_teachers_vote_as_serial_ones_and_stay_silent(backend):
    # n_jobs through joblib: the same table as one at a time (each teacher's
    # votes depend on its rows and seed alone), whatever the backend; the
    # threading backend's workers must not deadlock on the warnings lock the
    # caller holds, and the teachers' warnings (a function of their rows)
    # must not escape from the workers.
    import joblib

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    y = (X[:, 0] + 0.3 * rng.normal(size=600) > 0).astype(int)
    X_query = rng.normal(size=(25, 4))
    classes = np.array([0, 1])
    assignment = rng.integers(12, size=600)
    seeds = rng.integers(2**31, size=12)
    teacher = LogisticRegression(max_iter=1)  # warns on every fit
    serial = teacher_votes(teacher, X, y, X_query, classes, assignment, 12, seeds=seeds)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with joblib.parallel_backend(backend, n_jobs=2):
            parallel = teacher_votes(
                teacher, X, y, X_query, classes, assignment, 12, seeds=seeds, n_jobs=2
            )
    np.testing.assert_array_equal(parallel, serial)
    assert serial.sum() == 12 * 25
    assert [w for w in caught if w.category is ConvergenceWarning] == []


def test_pate_n_jobs_gives_the_serial_model():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1200, 3))
    y = (X[:, 1] > 0).astype(int)
    X_pub = rng.normal(size=(40, 3))
    X_test = rng.normal(size=(200, 3))
    predictions = []
    for n_jobs in (None, 2):
        clf = PATEClassifier(
            n_teachers=20, classes=[0, 1], n_jobs=n_jobs, random_state=0
        )
        with reproducible_noise():
            clf.fit(X, y, X_public=PublicData(X_pub))
        predictions.append((clf.query_labels_, clf.predict(X_test)))
    for a, b in zip(*predictions):
        np.testing.assert_array_equal(a, b)


def test_huge_private_value_without_public_data_fits_like_any_other():
    # Review: local votes scaled the private rows by the box's width before
    # any clipping, so one huge (finite) value overflowed and the fit raised,
    # after its charge, on that dataset and not on its neighbour.
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 2))
    y = (X[:, 0] > 0.5).astype(int)
    X[0, 0] = 1e308
    votes = local_votes(
        X, y, rng.uniform(size=(10, 2)), np.array([0, 1]), np.array([[0.0, 0.5]] * 2)
    )
    assert votes.sum() == 200
    clf = PATEClassifier(classes=[0, 1], bounds=(0.0, 0.5), epsilon=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning either
        clf.fit(X, y)
    assert clf.privacy_spent_.epsilon == 1.0


class _Chatty(LogisticRegression):
    """Prints its training size when verbose, as many estimators' progress does."""

    def fit(self, X, y, sample_weight=None):
        if self.verbose:
            print(f"chatty fit on {len(X)} rows")
        return super().fit(X, y, sample_weight)


def test_teachers_print_nothing(capsys):
    # Review: teachers kept their verbose setting and printed their private
    # partitions' sizes. Only the dry run on placeholder public rows may print.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(301, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = PATEClassifier(
        teacher=_Chatty(verbose=1),
        student=LogisticRegression(),
        n_teachers=3,
        classes=[0, 1],
        epsilon=1.0,
    )
    clf.fit(X, y, X_public=PublicData(rng.normal(size=(30, 2))))
    lines = [line for line in capsys.readouterr().out.splitlines() if "chatty" in line]
    assert len(lines) <= 1  # the dry run's, on public placeholder rows


def test_teachers_write_no_cache(tmp_path):
    # Review: a Pipeline teacher's memory= cached every teacher's fitted
    # scaler and transformed private partition on disk.
    import joblib
    from sklearn.pipeline import make_pipeline as pipe

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    X[7] = [123.456, -654.321, 42.0]  # a recognisable private row
    teacher = pipe(StandardScaler(), LogisticRegression(), memory=str(tmp_path))
    clf = PATEClassifier(teacher=teacher, classes=[0, 1], n_teachers=4, epsilon=1.0)
    clf.fit(X, y, X_public=PublicData(rng.normal(size=(30, 3))))
    for path in tmp_path.rglob("output.pkl"):
        Xt, scaler = joblib.load(path)
        rows = scaler.inverse_transform(Xt)
        assert rows.shape[0] != 10  # no teacher's partition (40 rows / 4)
        assert not np.all(np.isclose(rows, X[7]), axis=1).any()


@pytest.mark.parametrize("aggregator", ["gnmax", "lnmax"])
def test_noise_added_to_the_votes_is_at_the_stated_scale(monkeypatch, aggregator):
    # Review: the accounting tests checked the stated noise_scale_, not the
    # noise the fit adds; halving the scale at the call site went unnoticed.
    # Here the noise actually added to the vote table is measured: its
    # standard deviation must be that of N(0, s^2) (GNMax) or Lap(s) (LNMax).
    added = []
    real = _pate.noisy_votes

    def spy(votes, noise, scale, rng):
        out = real(votes, noise, scale, rng)
        added.append(out - votes)
        return out

    monkeypatch.setattr(_pate, "noisy_votes", spy)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = PATEClassifier(
        n_teachers=20, aggregator=aggregator, epsilon=1.0, classes=[0, 1]
    )
    clf.fit(X, y, X_public=PublicData(rng.normal(size=(1000, 2))))
    (noise,) = added
    sd = float(np.std(noise))
    expected = clf.noise_scale_ * (1.0 if aggregator == "gnmax" else np.sqrt(2.0))
    # 2000 draws: 15% is about 8.5 standard errors of the sample sd for
    # Gaussian noise and about 6 for Laplace noise (kurtosis 6), so an honest
    # fit fails with probability below 1e-8; a halved scale is 50% off.
    assert abs(sd / expected - 1.0) < 0.15
