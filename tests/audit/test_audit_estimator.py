"""audit_epsilon: ε lower bounds for a whole fit, cross_validate or search.

Most statistical tests run real estimators with fresh privacy noise; each
trial count is chosen so that the failure probability of every such assertion,
computed exactly from the binomial distribution of the counts, is below 1e-8
(figures next to each test). Two mutant tests run under ``reproducible_noise()``
with a distinct seed per trial instead: independent trials, and a deterministic
verdict. The estimators under audit use the cover
{always 0, always 1} (one public point) on private rows whose features are all
zero, so every fit is one exponential-mechanism draw between two members whose
probabilities are known exactly.
"""

# SPDX-License-Identifier: BSD-3-Clause

import itertools

import numpy as np
import pytest
from joblib import parallel_backend
from sklearn.dummy import DummyClassifier
from sklearn.model_selection import GridSearchCV, KFold, cross_validate

from sklearn_semiprivate import (
    PrivacyAccountant,
    PrivacyLeakWarning,
    PublicData,
    SemiPrivateClassifier,
    reproducible_noise,
)
from sklearn_semiprivate.audit import audit_epsilon, epsilon_lower_bound
from sklearn_semiprivate.hypotheses import FiniteClass

# KFold(2) on 40 rows: the first split trains on B = rows 20..39 and tests on
# A = rows 0..19, the second trains on A and tests on B.
N_ROWS = 40
CHANGED_ROW = 21  # in B


def _constant_class():
    """The cover {always 0, always 1}, from one public point."""
    X_pub = np.zeros((1, 1))
    models = [
        DummyClassifier(strategy="constant", constant=c).fit(X_pub, [c]) for c in (0, 1)
    ]
    return FiniteClass(models), PublicData(X_pub)


def _tie_data():
    """D: labels alternate, so both halves A and B are balanced.

    D': row 21 of B relabeled 1 -> 0 (replace-one neighbours). Under D' the
    fold trained on B scores "always 0" two above "always 1"; A is unchanged.
    """
    X = np.zeros((N_ROWS, 1))
    y = np.arange(N_ROWS) % 2
    y_neighbour = y.copy()
    y_neighbour[CHANGED_ROW] = 0
    return (X, y), (X, y_neighbour)


# ---------------------------------------------------------------- the function


def _identity(dataset):
    return dataset


def _is_one(output):
    return output == 1


@pytest.mark.parametrize("n_trials", [30, 200])
def test_bound_is_epsilon_lower_bound_in_the_leaking_direction(n_trials):
    # A deterministic "workflow" that outputs its input: the event has
    # probability 1 on one side and 0 on the other. Each direction is tested at
    # alpha / 2, with the existing Clopper-Pearson bound.
    expected = epsilon_lower_bound(
        np.ones(n_trials, dtype=bool),
        np.zeros(n_trials, dtype=bool),
        _identity,
        alpha=0.05 / 2,
    ).epsilon
    forward = audit_epsilon(_identity, 1, 0, _is_one, n_trials=n_trials)
    backward = audit_epsilon(_identity, 0, 1, _is_one, n_trials=n_trials)
    assert forward.epsilon == backward.epsilon == pytest.approx(expected)
    assert forward.event == "_is_one on D vs D_neighbour"
    assert backward.event == "_is_one on D_neighbour vs D"
    assert forward.n_samples == forward.n_samples_neighbour == n_trials
    assert forward.epsilon > 0 and forward.p_lower > 0 and forward.q_upper < 1


def test_no_evidence_gives_zero_and_delta_is_used():
    assert audit_epsilon(_identity, 1, 1, _is_one, n_trials=20).epsilon == 0.0
    assert audit_epsilon(_identity, 1, 0, _is_one, n_trials=1).epsilon == 0.0
    strict = audit_epsilon(_identity, 1, 0, _is_one, n_trials=50)
    loose = audit_epsilon(_identity, 1, 0, _is_one, n_trials=50, delta=0.5)
    assert 0.0 < loose.epsilon < strict.epsilon


def test_runs_are_interleaved_and_counted():
    calls = []

    def run(dataset):
        calls.append(dataset)
        return dataset

    audit_epsilon(run, "D", "D'", lambda out: out == "D", n_trials=3)
    assert calls == ["D", "D'"] * 3


def test_parallel_trials_give_the_same_counts():
    sequential = audit_epsilon(_identity, 1, 0, _is_one, n_trials=40)
    # Threads keep the test fast; processes (the default) take the same path.
    with parallel_backend("threading"):
        parallel = audit_epsilon(_identity, 1, 0, _is_one, n_trials=40, n_jobs=2)
    assert parallel == sequential


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"run": None}, TypeError, "run must be a callable"),
        ({"event": "x > 0"}, TypeError, "event must be a callable"),
        ({"n_trials": 0}, ValueError, "n_trials must be >= 1"),
        ({"n_trials": 2.5}, TypeError, "n_trials must be an integer"),
        ({"n_trials": True}, TypeError, "n_trials must be an integer"),
        ({"alpha": 0.0}, ValueError, "alpha must be in"),
        ({"alpha": 1.0}, ValueError, "alpha must be in"),
        ({"delta": 1.0}, ValueError, "delta"),
        ({"event": lambda out: 1}, TypeError, "event must return a bool"),
        ({"event": lambda out: np.array([True])}, TypeError, "got ndarray"),
    ],
)
def test_bad_inputs(kwargs, error, match):
    args = {"run": _identity, "event": _is_one, **kwargs}
    run, event = args.pop("run"), args.pop("event")
    with pytest.raises(error, match=match):
        audit_epsilon(run, 1, 0, event, **args)


# ------------------------------------------------------ a whole cross_validate

CV_EPSILON = 1.0
CV_CHARGED = 2 * CV_EPSILON  # two fits, charged by basic composition
# The mutant's event probability is 0.23 under D' and exactly 0 under D; at 350
# trials its bound exceeds 2.0 except with probability 1e-6 (mean 2.7). The
# fixed code's event has log-ratio 0.38; its bound exceeds 2.0 with
# probability < 1e-30.
CV_TRIALS = 350


def _cross_validate_run(seeds):
    hclass, public = _constant_class()

    def run(dataset):
        X, y = dataset
        # A fresh estimator per trial, with its own int seed, which clone
        # copies into both folds.
        clf = SemiPrivateClassifier(
            hclass, epsilon=CV_EPSILON, classes=[0, 1], random_state=next(seeds)
        )
        res = cross_validate(
            clf,
            X,
            y,
            cv=KFold(2),
            return_estimator=True,
            params={"X_public": public},
        )
        return res

    return run


def _folds_disagree(res):
    # Issue 9's event: the fold trained on B says 0 and the fold trained on A
    # says 1. With shared Gumbel noise G, fold "trained on T" picks 0 iff
    # G1 - G0 < eps * (s0 - s1) / 2 on T: under D both thresholds are 0, so the
    # folds always agree; under D' the event is 0 < G1 - G0 < 1, probability
    # sigmoid(1) - 1/2 = 0.23. With fresh noise: 0.25 under D, 0.37 under D'.
    trained_on_b, trained_on_a = (est.member_ for est in res["estimator"])
    return trained_on_b == 0 and trained_on_a == 1


@pytest.mark.statistical
@pytest.mark.slow
def test_cross_validate_stays_within_its_charge():
    D, D_neighbour = _tie_data()
    run = _cross_validate_run(itertools.count())
    bound = audit_epsilon(run, D, D_neighbour, _folds_disagree, n_trials=CV_TRIALS)
    assert bound.epsilon <= CV_CHARGED


@pytest.mark.statistical
@pytest.mark.slow
def test_cross_validate_with_shared_fold_noise_is_caught():
    # The old behaviour, re-enabled: inside reproducible_noise the noise is a
    # function of random_state, which clone copies into both folds.
    D, D_neighbour = _tie_data()
    run = _cross_validate_run(itertools.count())
    with pytest.warns(PrivacyLeakWarning), reproducible_noise():
        bound = audit_epsilon(run, D, D_neighbour, _folds_disagree, n_trials=CV_TRIALS)
    assert bound.epsilon > CV_CHARGED
    assert bound.event == "_folds_disagree on D_neighbour vs D"


def _second_fold_score_is_not_half(res):
    return res["test_score"][1] != 0.5


def test_cross_validate_test_scores_are_an_exact_release():
    # Known finding (issue 9, section 3), documented rather than hidden: the
    # test scores cross_validate returns are exact accuracies on private rows,
    # outside the 2.0 charged for the fits. The fold tested on B scores 0.5
    # under D and 0.45 or 0.55 under D', whatever the noise: the counts are
    # 0 / 60 and 60 / 60, so the bound (2.58) is deterministic.
    D, D_neighbour = _tie_data()
    run = _cross_validate_run(itertools.count())
    bound = audit_epsilon(
        run, D, D_neighbour, _second_fold_score_is_not_half, n_trials=60
    )
    assert bound.epsilon > CV_CHARGED


# ------------------------------------------------------------ a single fit

FIT_EPSILON = 2.0
# D: 9 zeros, 11 ones; D': one 1 relabeled 0. "Picks always 0" has probability
# sigmoid(-2) = 0.12 under D and 1/2 under D' (log-ratio 1.43 <= 2); with the
# selection at 2 epsilon, sigmoid(-4) = 0.018 and 1/2 (log-ratio 3.3). At 800
# trials, with fresh noise, the fixed bound exceeds 2.0 with probability 1.5e-13
# and is <= 0.5 with probability 3.6e-15 (mean 1.1); the mutant's bound would
# stay <= 2.0 with probability 6.4e-6 (mean 2.7), so the mutant test is seeded
# (exact binomial enumeration of both directions at alpha / 4 per side).
FIT_TRIALS = 800


class _SelectionAtDoubleEpsilon(SemiPrivateClassifier):
    """Mutant: selects with 2 epsilon, charges and reports epsilon."""

    def _select_member(self, cover, data, rng):
        X, y = self._score_rows(data)
        return cover.sample_exponential(X, y, 2 * self.epsilon, random_state=rng)


def _single_fit_data():
    X = np.zeros((20, 1))
    y = np.array([0] * 9 + [1] * 11)
    y_neighbour = y.copy()
    y_neighbour[9] = 0
    return (X, y), (X, y_neighbour)


def _picks_always_zero(member):
    return member == 0


def _single_fit_bound(estimator_class, seeds=None):
    # seeds: an iterator of per-trial ints, for runs inside reproducible_noise;
    # None keeps random_state=None, so the noise is fresh everywhere.
    hclass, public = _constant_class()

    def run(dataset):
        X, y = dataset
        clf = estimator_class(
            hclass,
            epsilon=FIT_EPSILON,
            classes=[0, 1],
            random_state=None if seeds is None else next(seeds),
        )
        clf.fit(X, y, X_public=public)
        assert clf.privacy_spent_.epsilon == FIT_EPSILON
        return clf.member_

    D, D_neighbour = _single_fit_data()
    return audit_epsilon(run, D, D_neighbour, _picks_always_zero, n_trials=FIT_TRIALS)


@pytest.mark.statistical
@pytest.mark.slow
def test_single_fit_stays_within_epsilon():
    bound = _single_fit_bound(SemiPrivateClassifier)
    assert bound.epsilon <= FIT_EPSILON
    assert bound.epsilon > 0.5  # not vacuous: P(bound <= 0.5) = 3.6e-15


@pytest.mark.statistical
@pytest.mark.slow
def test_single_fit_selecting_at_double_epsilon_is_caught():
    # Seeded for a deterministic verdict: with fresh noise the mutant would
    # escape with probability 6.4e-6 per run. Distinct seeds (D gets the even
    # ones, D' the odd ones) keep the trials independent.
    with reproducible_noise():
        bound = _single_fit_bound(_SelectionAtDoubleEpsilon, itertools.count())
    assert bound.epsilon > FIT_EPSILON
    assert bound.event == "_picks_always_zero on D_neighbour vs D"


# ------------------------------------------------------------------ a search

GRID = {"epsilon": [0.1, 0.2]}
# 2 folds x (0.1 + 0.2), then the refit at the best epsilon (at most 0.2).
SEARCH_CHARGED = 2 * sum(GRID["epsilon"]) + max(GRID["epsilon"])
# The event has probability 1/4 under D' and exactly 0 under D. Exact binomial
# enumeration of audit_epsilon (both directions, alpha / 4 per side): the bound
# is <= 0.8 with probability 3.3e-11 at 220 trials (mean 2.24); 160 trials gave
# 4.1e-6, 200 give 2.0e-9. Fresh noise: reproducible_noise cannot seed it, as
# GridSearchCV clones one random_state into every candidate, and candidates
# sharing their noise pick alike and tie, which removes the event.
SEARCH_TRIALS = 220


def _search(dataset, accountant=None):
    hclass, public = _constant_class()
    X, y = dataset
    clf = SemiPrivateClassifier(hclass, classes=[0, 1], accountant=accountant)
    return GridSearchCV(clf, GRID, cv=KFold(2)).fit(X, y, X_public=public)


def _search_release(dataset):
    search = _search(dataset)
    return search.best_params_["epsilon"], search.best_estimator_.member_


def _prefers_larger_epsilon(release):
    best_epsilon, _ = release
    return best_epsilon == max(GRID["epsilon"])


def test_search_charge():
    ledger = PrivacyAccountant(epsilon=10.0)
    search = _search(_tie_data()[0], accountant=ledger)
    charged = 2 * sum(GRID["epsilon"]) + search.best_params_["epsilon"]
    assert ledger.spent().epsilon == pytest.approx(charged)
    assert charged <= SEARCH_CHARGED


@pytest.mark.statistical
@pytest.mark.slow
def test_search_choice_leaks_the_exact_validation_scores():
    # Known finding (issue 9, section 3), documented rather than hidden: the
    # whole GridSearchCV is NOT within its charge. Under D every member scores
    # exactly 0.5 on either balanced test half, the candidates tie and the first
    # (0.1) wins, always. Under D' the fold tested on B scores 0.55 or 0.45
    # (its model, trained on A, picks either member with probability 1/2 under
    # both D and D'), so 0.2 wins with probability 1/4. Only best_params_ is
    # looked at, and the loss is infinite whatever the epsilons: the exact
    # validation scores choose. To be fixed by private model selection.
    D, D_neighbour = _tie_data()
    bound = audit_epsilon(
        _search_release,
        D,
        D_neighbour,
        _prefers_larger_epsilon,
        n_trials=SEARCH_TRIALS,
    )
    assert bound.epsilon > SEARCH_CHARGED
    assert bound.event == "_prefers_larger_epsilon on D_neighbour vs D"
