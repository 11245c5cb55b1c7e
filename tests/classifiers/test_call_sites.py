"""What the fits really draw and read, observed at the call sites.

A review (2026-11-27) planted mutants in a copy of the classifiers that every
other test let through, each a break of the stated guarantee: the SGD batches
at twice the accounted rate or drawn from a public generator, twice the
accounted steps, the exact private row count in place of the released one,
the MM gradient noise halved or one gradient release too many, the feature
geometry read off the private rows, the tree's split noise and PATE's teacher
partition drawn without the secret generator. The accounting tests check the
stated parameters; these tests watch the secret generator each fit draws
from, what the steps are passed, and what the public geometry depends on.
"""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from sklearn_semiprivate import (
    GenericLearnerClassifier,
    LabelBoostClassifier,
    PATEClassifier,
    PrivateSGDClassifier,
    PublicData,
    SemiPrivateClassifier,
    SemiPrivateLogisticRegression,
    SemiPrivateTreeClassifier,
    reproducible_noise,
)
from sklearn_semiprivate.classifiers import (
    _generic,
    _labelboost,
    _labelboost_steps,
    _logistic_sgd,
    _semiprivate,
    _sgd,
    _tree,
)
from sklearn_semiprivate.classifiers import _logistic as _logistic_est
from sklearn_semiprivate.classifiers._logistic_mm import release_scales


def make_data(n=400, n_pub=40, n_features=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    X_pub = rng.normal(size=(n_pub, n_features))
    return X, y, X_pub


class RecordingGenerator:
    """A secret generator that records what is drawn from it."""

    def __init__(self, rng, calls):
        self._rng = rng
        self.calls = calls

    def __getattr__(self, name):
        attr = getattr(self._rng, name)
        if not callable(attr):
            return attr

        def record(*args, **kwargs):
            out = attr(*args, **kwargs)
            self.calls.append((name, args, kwargs, out))
            return out

        return record


def spy_secret_generator(monkeypatch, module):
    """Wrap the module's ``noise_rng``: every fit's draws are recorded."""
    calls = []
    real = module.noise_rng
    monkeypatch.setattr(
        module, "noise_rng", lambda rs: RecordingGenerator(real(rs), calls)
    )
    return calls


def spy_sgd_steps(monkeypatch, module):
    """Record the keyword arguments the module passes to ``private_sgd``."""
    seen = {}
    real = module.private_sgd

    def steps(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "private_sgd", steps)
    return seen


# --------------------------------------------------------------------------
# DP-SGD: the batches, the steps, the released count


def test_sgd_batches_come_from_the_secret_generator_at_the_accounted_rate(
    monkeypatch,
):
    calls = spy_secret_generator(monkeypatch, _sgd)
    seen = spy_sgd_steps(monkeypatch, _sgd)
    X, y, X_pub = make_data(n=300)
    clf = PrivateSGDClassifier(sampling_rate=0.1, n_epochs=2.0, classes=[0, 1])
    clf.fit(X, y, X_public=PublicData(X_pub))
    sizes = [args for name, args, _, _ in calls if name == "binomial"]
    # One Poisson batch per accounted step, each row kept with probability q.
    assert len(sizes) == clf.n_steps_
    assert all(args == (300, clf.sampling_rate_) for args in sizes)
    subsets = [kw for name, _, kw, _ in calls if name == "choice"]
    assert len(subsets) == clf.n_steps_
    # The count the steps divide by is the released one: the true count plus
    # the first draw of the secret generator (the count's noise).
    name, _, _, draw = calls[0]
    assert name == "normal"
    assert seen["n_rows"] == 300 + draw
    assert seen["n_steps"] == clf.n_steps_


def test_semiprivate_logistic_runs_the_accounted_steps(monkeypatch):
    calls = spy_secret_generator(monkeypatch, _logistic_est)
    seen = spy_sgd_steps(monkeypatch, _logistic_sgd)
    X, y, X_pub = make_data(n=300)
    SemiPrivateLogisticRegression(classes=[0, 1]).fit(X, y, X_public=PublicData(X_pub))
    # The accounting (sgd_scales) composes _n_steps() steps at the rate of
    # SGD_SETTINGS: the fit runs exactly those, on the secret generator.
    n_steps = _logistic_sgd._n_steps()
    assert seen["n_steps"] == n_steps
    rate = _logistic_sgd.SGD_SETTINGS["sampling_rate"]
    sizes = [args for name, args, _, _ in calls if name == "binomial"]
    assert sizes == [(300, rate)] * n_steps


# --------------------------------------------------------------------------
# The MM solver: every noisy release at its stated scale, and no other


def test_mm_solver_draws_exactly_the_stated_releases(monkeypatch):
    calls = spy_secret_generator(monkeypatch, _logistic_est)
    X, y, X_pub = make_data(n=300)
    clf = SemiPrivateLogisticRegression(solver="mm", epsilon=0.8, classes=[0, 1])
    clf.fit(X, y, X_public=PublicData(X_pub))
    scales = clf.noise_scales_
    drawn = [
        kw.get("scale", args[1] if len(args) > 1 else None) for _, args, kw, _ in calls
    ]
    names = [name for name, _, _, _ in calls]
    assert set(names) == {"normal"}
    # Release 1: the counts; release 2: the Gram matrix; then one gradient
    # release per stated scale, in order.
    assert drawn == [scales["counts"], scales["gram"], *scales["gradient"]]
    assert scales == release_scales(0.8, clf.delta, len(scales["gradient"]))


# --------------------------------------------------------------------------
# The public geometry depends on public rows only


@pytest.mark.parametrize(
    "make",
    [
        lambda: SemiPrivateLogisticRegression(classes=[0, 1], n_bins=4),
        lambda: SemiPrivateLogisticRegression(solver="mm", classes=[0, 1], n_bins=4),
        lambda: PrivateSGDClassifier(classes=[0, 1]),
        lambda: SemiPrivateTreeClassifier(classes=[0, 1]),
    ],
)
def test_geometry_is_a_function_of_the_public_rows_only(make):
    X, y, X_pub = make_data(n=300)
    names = ["center_", "scale_", "clip_norm_", "bin_edges_", "row_radius_"]

    def geometry(X_private):
        clf = make().fit(X_private, y, X_public=PublicData(X_pub))
        return {a: getattr(clf, a) for a in names if hasattr(clf, a)}

    a, b = geometry(X), geometry(50.0 * X + 7.0)
    assert a
    for name in a:
        if name == "bin_edges_":
            assert all(np.array_equal(u, v) for u, v in zip(a[name], b[name]))
        else:
            assert np.array_equal(a[name], b[name]), name


# --------------------------------------------------------------------------
# The tree's split noise and PATE's partition: secret and fresh


def test_tree_split_noise_comes_from_the_secret_generator(monkeypatch):
    secret, draws = [], []
    real_rng, real_max = _tree.noise_rng, _tree._gumbel_max

    def noise_rng(random_state):
        secret.append(real_rng(random_state))
        return secret[-1]

    def gumbel_max(logits, rng):
        draws.append(rng)
        return real_max(logits, rng)

    monkeypatch.setattr(_tree, "noise_rng", noise_rng)
    monkeypatch.setattr(_tree, "_gumbel_max", gumbel_max)
    X, y, X_pub = make_data(n=300)
    SemiPrivateTreeClassifier(max_depth=2, classes=[0, 1]).fit(
        X, y, X_public=PublicData(X_pub)
    )
    assert len(secret) == 1
    assert len(draws) == 2  # one draw per level
    assert all(rng is secret[0] for rng in draws)


def test_tree_splits_are_fresh_on_a_tie():
    # Labels independent of X: the candidates' scores are near ties, so the
    # root split must vary from fit to fit with one random_state.
    rng = np.random.default_rng(3)
    X, X_pub = rng.normal(size=(200, 4)), rng.normal(size=(40, 4))
    y = rng.integers(0, 2, size=200)

    def root():
        clf = SemiPrivateTreeClassifier(
            epsilon=0.1, max_depth=1, classes=[0, 1], random_state=0
        )
        clf.fit(X, y, X_public=PublicData(X_pub))
        return (int(clf.split_features_[0][0]), int(clf.split_thresholds_[0][0]))

    assert len({root() for _ in range(12)}) > 1
    with reproducible_noise():
        assert len({root() for _ in range(3)}) == 1


class RecordingTeacher(ClassifierMixin, BaseEstimator):
    """A teacher that records the rows it is trained on (their first column)."""

    seen = []

    def fit(self, X, y):
        RecordingTeacher.seen.append(frozenset(np.asarray(X)[:, 0].tolist()))
        self.classes_ = np.unique(y)
        self.majority_ = self.classes_[0]
        return self

    def predict(self, X):
        return np.full(len(X), self.majority_)


def test_pate_partition_is_secret_and_fresh():
    rng = np.random.default_rng(4)
    n = 120
    X = np.column_stack([np.arange(n, dtype=float), rng.normal(size=n)])
    y = rng.integers(0, 2, size=n)
    X_pub = np.column_stack([np.full(10, -1.0), rng.normal(size=10)])

    def partition():
        RecordingTeacher.seen = []
        PATEClassifier(
            RecordingTeacher(), n_teachers=6, classes=[0, 1], random_state=0
        ).fit(X, y, X_public=PublicData(X_pub))
        # Leave out the dry run on two placeholder rows before the charge.
        return frozenset(p for p in RecordingTeacher.seen if len(p) > 2)

    first = partition()
    # Disjoint parts of the private rows, one per teacher.
    assert sum(len(p) for p in first) <= n
    assert len(frozenset().union(*first)) == sum(len(p) for p in first)
    # One random_state, two fits: another partition (fresh secret draws).
    assert partition() != first


def test_generic_learner_selects_with_the_secret_generator(monkeypatch):
    # Alg. 1 step 5's exponential mechanism draws from the fit's secret
    # generator. A review passed np.random.default_rng(random_state) instead
    # (the output a function of the private rows and a known seed) and no
    # test failed.
    secret, used = [], []
    real_rng = _generic.noise_rng
    real_select = _semiprivate.SemiPrivateClassifier._select_member

    def fresh(random_state):
        secret.append(real_rng(random_state))
        return secret[-1]

    def select(self, cover, data, rng):
        used.append(rng)
        return real_select(self, cover, data, rng)

    monkeypatch.setattr(_generic, "noise_rng", fresh)
    monkeypatch.setattr(_semiprivate.SemiPrivateClassifier, "_select_member", select)
    rng = np.random.default_rng(2)
    X = rng.uniform(size=(100, 1))
    y = (X[:, 0] > 0.5).astype(int)
    GenericLearnerClassifier(
        "thresholds", n_bins=8, bounds=(0, 1), classes=[0, 1], random_state=0
    ).fit(X, y, X_unlabeled=rng.uniform(size=(300, 1)))
    assert len(used) == 1
    assert any(used[0] is g for g in secret)


class RecordingChoices(np.random.Generator):
    """The secret generator itself (same stream), recording ``choice`` calls."""

    def __init__(self, generator, calls):
        super().__init__(generator.bit_generator)
        self.calls = calls

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        self.calls.append((a, size, replace))
        return super().choice(a, size, replace, p, axis, shuffle)


def test_labelboost_subsamples_are_secret_and_uniform(monkeypatch):
    # Theorem 4.14 (Claim 4.3) needs secret uniform subsamples of the
    # labeled and unlabeled rows. A review took the first n_labeled rows
    # instead (no amplification for them) and no test failed.
    calls = []
    real = _labelboost.noise_rng
    monkeypatch.setattr(
        _labelboost, "noise_rng", lambda rs: RecordingChoices(real(rs), calls)
    )
    rng = np.random.default_rng(0)
    X_lab = rng.uniform(0, 0.5, size=(2500, 1))
    y_lab = (X_lab[:, 0] > 0.3).astype(int)
    X_unl = rng.uniform(0.5, 1, size=(320_000, 1))
    X = np.vstack([X_lab, X_unl])
    y = np.concatenate([y_lab, np.full(X_unl.shape[0], -1)])
    base = SemiPrivateClassifier("thresholds", bounds=(0, 1), n_public=32)
    clf = LabelBoostClassifier(
        base, n_base=10, growth_denominator=0.1, classes=[0, 1], random_state=0
    ).fit(X, y)
    sched = clf.schedule_
    assert calls[0] == (2500, sched.n_labeled, False)
    assert calls[1] == (320_000, sched.n_unlabeled, False)
    # Each round's deletion (step 2c, Claim 4.3 in Lemma 4.6) keeps a secret
    # uniform 1/_ROUND_KEEP of S and of T; a review kept a prefix of S.
    keep = _labelboost_steps._ROUND_KEEP
    size, v = sched.labeled_sizes[0], sched.batch_sizes[0]
    assert calls[2] == (size, size // keep, False)
    assert calls[3] == (v, v // keep, False)
