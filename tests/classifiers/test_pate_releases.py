"""What PATE releases about the queries, and its teachers' failures and votes.

Tests for the gaps of a mutation review (round s18): the margin filter, the
no-signal check and the constant fallback label read the noisy votes only; a
teacher that fails in any way abstains; a teacher casts one vote per query.
Each fails on its mutant.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from sklearn_semiprivate import (
    PATEClassifier,
    PrivacyAccountant,
    PrivacyCost,
    PublicData,
)
from sklearn_semiprivate.classifiers import _pate
from sklearn_semiprivate.classifiers._pate_votes import teacher_votes

# --------------------------------------------------------------------------
# Everything PATE releases about the queries is a function of the noisy votes
# --------------------------------------------------------------------------


def _fixed_release(monkeypatch, table):
    """Make the fit release ``table`` whatever the exact votes: the noise is
    replaced by ``table - votes``, so that two private datasets meet the same
    released vote table."""
    seen = []

    def release(votes, noise, scale, rng):
        assert votes.shape == table.shape
        seen.append(votes.copy())
        return table.copy()

    monkeypatch.setattr(_pate, "noisy_votes", release)
    return seen


def _scenario(name):
    """(params, D1, D2, threshold): two private datasets whose exact vote
    tables differ in what each mutant reads (margins, variation over the
    queries, majority), and the margin threshold in votes."""
    rng = np.random.default_rng(0)
    if name == "margin":
        # 10 rows, 10_000 teachers: every row is its own one-row teacher, up
        # to collisions (at most a few; P(5 or more) < 1e-15). All labels 0:
        # exact margin 10 on every query; 5 and 5: exact margin 0 (at most
        # the number of collisions). The threshold, 5 votes, lies between.
        X = rng.normal(size=(10, 2))
        params = {"n_teachers": 10_000, "epsilon": 1.0}
        y1, y2 = np.zeros(10, dtype=int), np.repeat([0, 1], 5)
        return params, (X, y1), (X, y2), 5.0
    if name == "no_signal":
        # 50 teachers at epsilon 5 (sigma 7.98 on 40 queries). Labels all 0:
        # every teacher votes 0 on every query, the exact votes do not vary;
        # labels sign(x0): teachers vote by the query's side, and the exact
        # table varies by far more than the noise explains.
        X = rng.normal(size=(2000, 2))
        params = {"n_teachers": 50, "epsilon": 5.0}
        y1, y2 = np.zeros(2000, dtype=int), (X[:, 0] > 0).astype(int)
        return params, (X, y1), (X, y2), 0.0
    # "fallback": no query kept, the constant label is the arg max of the
    # summed released votes. All labels 0 vs all labels 1.
    X = rng.normal(size=(100, 2))
    params = {"n_teachers": 10, "epsilon": 1.0}
    y1, y2 = np.zeros(100, dtype=int), np.ones(100, dtype=int)
    return params, (X, y1), (X, y2), 1e9


@pytest.mark.parametrize("name", ["margin", "no_signal", "fallback"])
def test_released_query_labels_depend_on_the_noisy_votes_only(monkeypatch, name):
    # A mutation review computed the margin filter (query_kept_), the
    # no-signal test and the constant fallback label from the exact vote
    # table instead of the noisy one, and no test failed: the noise tests
    # check what noisy_votes adds, not what the fit reads afterwards. Here the
    # released table is fixed, so two private datasets with different exact
    # votes must give the same released attributes and the same model.
    params, (X1, y1), (X2, y2), threshold = _scenario(name)
    rng = np.random.default_rng(1)
    X_pub, X_test = rng.normal(size=(40, 2)), rng.normal(size=(200, 2))
    sigma = _pate.gnmax_sigma(params["epsilon"], 1e-5, 40)
    margin_sd = threshold / sigma  # min_margin is in noise sd
    # A released table that varies far more than the noise explains (the
    # no-signal test rejects), with margins on both sides of the threshold.
    table = rng.normal(scale=10 * sigma, size=(40, 2))
    clf = PATEClassifier(classes=[0, 1], min_margin=margin_sd, random_state=0, **params)
    seen = _fixed_release(monkeypatch, table)
    fits = [
        clone(clf).fit(X, y, X_public=PublicData(X_pub))
        for X, y in ((X1, y1), (X2, y2))
    ]
    a, b = fits
    assert not np.array_equal(seen[0], seen[1])  # the exact votes differ
    assert np.array_equal(a.query_labels_, table.argmax(axis=1))  # classes [0, 1]
    assert np.array_equal(a.query_labels_, b.query_labels_)
    assert np.array_equal(a.query_kept_, b.query_kept_)
    assert a.constant_label_ == b.constant_label_
    assert np.array_equal(a.predict(X_test), b.predict(X_test))
    if name == "fallback":
        assert not a.query_kept_.any()
        assert a.constant_label_ == table.sum(axis=0).argmax()


# --------------------------------------------------------------------------
# A teacher that fails on its rows abstains, whatever its exception
# --------------------------------------------------------------------------


class _FailsOnSmallParts(LogisticRegression):
    """Raises a non-ValueError on a partition of fewer than 15 rows (the dry
    run's 20 placeholder rows pass): whether it fails depends on its rows."""

    def fit(self, X, y, sample_weight=None):
        if len(X) < 15:
            raise RuntimeError(f"only {len(X)} rows")  # quotes a partition size
        return super().fit(X, y, sample_weight)


class _ZeroDivisionOnSmallParts(LogisticRegression):
    def fit(self, X, y, sample_weight=None):
        1.0 / (len(X) // 15)  # ZeroDivisionError below 15 rows
        return super().fit(X, y, sample_weight)


@pytest.mark.parametrize("teacher", [_FailsOnSmallParts(), _ZeroDivisionOnSmallParts()])
def test_teacher_raising_any_exception_abstains(teacher):
    # A mutation review narrowed the teachers' `except Exception` to
    # `except ValueError` and no test failed: the failing teachers of
    # test_teacher_failing_on_its_partition_abstains raise ValueErrors only.
    # Any other exception then escaped the fit after its charge, quoting a
    # partition's size.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.tile([0, 1], 30)
    assignment = np.repeat([0, 1, 2], [10, 30, 20])  # teacher 0 fails
    votes = teacher_votes(
        teacher, X, y, rng.normal(size=(7, 2)), np.array([0, 1]), assignment, 3,
        seeds=[0, 1, 2],
    )  # fmt: skip
    assert votes.sum(axis=1).tolist() == [2] * 7
    acc = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    X = rng.normal(size=(300, 2))
    clf = PATEClassifier(
        teacher=teacher, n_teachers=100, classes=[0, 1], accountant=acc
    )
    clf.fit(X, (X[:, 0] > 0).astype(int), X_public=PublicData(rng.normal(size=(40, 2))))
    assert len(acc.history) == 1 and acc.spent() == PrivacyCost(1.0, 1e-5)


# --------------------------------------------------------------------------
# One vote per teacher per query, whatever the teacher's predict returns
# --------------------------------------------------------------------------


class _ColumnPredictions(LogisticRegression):
    """Predicts a column (n, 1) instead of a vector: the sign of feature 0."""

    def predict(self, X):
        return (np.asarray(X)[:, :1] > 0).astype(int)


def test_teacher_with_a_column_of_predictions_casts_at_most_one_vote():
    # A mutation review removed the check of the shape of a teacher's
    # predictions and no test failed; a (Q, 1) prediction then broadcast in
    # the vote update to every class the teacher predicted on any query: one
    # teacher cast up to n_classes votes per query, beyond the sensitivity
    # gnmax_sigma and lnmax_scale are calibrated to (one vote moves).
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.tile([0, 1, 2], 20)
    X_query = np.array([[-1.0, 0.0], [1.0, 0.0], [-2.0, 1.0], [2.0, -1.0]])
    n_teachers = 6
    votes = teacher_votes(
        _ColumnPredictions(), X, y, X_query, np.array([0, 1, 2]),
        np.repeat(np.arange(n_teachers), 10), n_teachers, seeds=np.arange(6),
    )  # fmt: skip
    assert votes.sum(axis=1).max() <= n_teachers


def test_an_extreme_epsilon_fits_without_overflow():
    # A mutation review: at epsilon=1e-300 (sigma ~ 8e301) the no-signal
    # test squared sigma to inf and raised OverflowError after the charge.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    acc = PrivacyAccountant(epsilon=1.0, delta=1e-3)
    clf = PATEClassifier(epsilon=1e-300, delta=1e-320, classes=[0, 1], accountant=acc)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.fit(X, (X[:, 0] > 0).astype(int), X_public=PublicData(X[:40]))
    assert len(acc.history) == 1


@pytest.mark.parametrize("noise", ["gaussian", "laplace"])
def test_the_noise_on_the_counts_of_a_query_is_independent(noise):
    # A mutation review: one draw per query, shared by its counts, leaves the
    # arg max exact (no privacy); only the audits' power tests caught it, by
    # side effect. Independent draws: the correlation of two columns over
    # 4000 queries has sd 1/sqrt(4000) = 0.016; 0.15 is 9.5 sd (a false
    # failure far below 1e-6; shared noise gives exactly 1).
    from sklearn_semiprivate.classifiers._pate_votes import noisy_votes

    drawn = noisy_votes(np.zeros((4000, 3)), noise, 2.0, np.random.default_rng(0))
    corr = np.corrcoef(drawn, rowvar=False)
    assert np.all(np.abs(corr[np.triu_indices(3, 1)]) < 0.15)
    assert np.std(drawn[:, 0]) > 1.0  # the scale is used (sd 2 or 2 sqrt 2)


def test_lnmax_at_an_extreme_epsilon_fits_or_is_refused_before_the_charge():
    # A review: LNMax overflowed from epsilon ~ 1e-305 (RuntimeWarnings after
    # the charge) and raised a bare OverflowError from ~ 1e-306.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] > 0).astype(int)
    for epsilon in (1e-304, 1e-306, 1e-308):
        acc = PrivacyAccountant(epsilon=1.0, delta=1e-3)
        clf = PATEClassifier(
            epsilon=epsilon, delta=0.0, aggregator="lnmax", classes=[0, 1],
            accountant=acc,
        )  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            if epsilon > 1e-305:
                clf.fit(X, y, X_public=PublicData(X[:40]))
                assert acc.spent().epsilon == epsilon
            else:
                with pytest.raises(ValueError, match="is too small for LNMax"):
                    clf.fit(X, y, X_public=PublicData(X[:40]))
                assert acc.spent().epsilon == 0.0
