"""SubSamplingActiveClassifier (Beimel-Nissim-Stemmer Alg. 4, Claim 5.7).

* accounting asserted exactly against Claim 5.7 (and Definition 5.4 for the
  transcript);
* the oracle is asked once, for the m smallest indices of J, and no other
  label is read: a fit on labels that are NaN outside the transcript gives the
  same model (a mutant that validates every label is caught);
* a statistical epsilon lower bound of whole fits stays below the claim, and
  exceeds it for the mutant that ignores the pool bound (no sub-sampling).
"""

import math

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from sklearn_semiprivate import (
    GenericLearnerClassifier,
    PrivacyAccountant,
    PrivacyCost,
    SemiPrivateClassifier,
    SubSamplingActiveClassifier,
    reproducible_noise,
)
from sklearn_semiprivate.audit import epsilon_lower_bound
from sklearn_semiprivate.classifiers import _active


def base(**params):
    params = {"bounds": (0, 1), "n_public": 32, "classes": [0, 1], **params}
    return SemiPrivateClassifier("thresholds", **params)


def make_pool(t=20_000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(t, 1))
    return X, (X[:, 0] > 0.3).astype(int)


def test_privacy_cost_is_claim_5_7_exactly():
    eps_star, delta, eps = 1.0, 1e-6, 0.5
    expected = (7 + math.exp(eps_star)) / (3 + math.exp(2 * eps_star)) * eps * delta
    cost = _active.subsampling_privacy_cost((eps_star, delta), eps)
    assert cost == PrivacyCost(eps, expected)
    assert _active.subsampling_privacy_cost((1.0, 0.0), 0.1) == PrivacyCost(0.1, 0.0)


def test_oracle_asked_once_for_the_smallest_indices_of_J():
    X, y = make_pool()
    asked = []

    def oracle(indices):
        asked.append(np.array(indices))
        return y[indices]

    acc = PrivacyAccountant(epsilon=10.0)
    clf = SubSamplingActiveClassifier(
        base(), epsilon=0.2, n_labeled=50, accountant=acc
    ).fit(X, label_oracle=oracle)
    n = math.floor(20_000 * 0.2 / (3 + math.exp(2.0)))
    assert clf.n_subsample_ == n and clf.n_labeled_ == 50
    assert len(asked) == 1
    np.testing.assert_array_equal(asked[0], clf.transcript_)
    assert np.all(np.diff(clf.transcript_) > 0) and clf.transcript_.size == 50
    # Accounting: Claim 5.7 for the model, the base learner's for the transcript.
    assert clf.base_privacy_cost_ == PrivacyCost(1.0, 0.0)
    assert clf.privacy_spent_ == PrivacyCost(0.2, 0.0) == acc.spent()
    assert clf.transcript_privacy_spent_ == clf.base_privacy_cost_
    X_test, y_test = make_pool(2000, seed=1)
    assert clf.score(X_test, y_test) > 0.8


def test_no_label_outside_the_transcript_is_read():
    X, y = make_pool(5000)
    clf = SubSamplingActiveClassifier(base(), epsilon=0.5, random_state=0)
    with reproducible_noise():
        model = clf.fit(X, y)
        K, member = model.transcript_.copy(), model.estimator_.member_
        masked = np.full(y.shape, np.nan)
        masked[K] = y[K]  # every other label unreadable
        again = clf.fit(X, masked)
    np.testing.assert_array_equal(again.transcript_, K)
    assert again.estimator_.member_ == member


def test_label_check_catches_a_mutant_that_validates_every_label(monkeypatch):
    def reads_all(y, n_rows):
        y = np.asarray(y, dtype=float)
        if not np.all(np.isfinite(y)):
            raise ValueError("Input y contains NaN.")
        return y

    monkeypatch.setattr(_active, "_check_label_column", reads_all)
    with pytest.raises(ValueError, match="NaN"):
        test_no_label_outside_the_transcript_is_read()


def _predictions(clf, X, y, n):
    return np.array([clf.fit(X, y).predict([[0.5]])[0] for _ in range(n)])


def _max_lower_bound(a, b):
    return max(
        epsilon_lower_bound(p, q, event, alpha=1e-6).epsilon
        for event in (lambda o: o == 1, lambda o: o == 0)
        for p, q in ((a, b), (b, a))
    )


@pytest.mark.statistical
@pytest.mark.slow
def test_statistical_epsilon_lower_bound(monkeypatch):
    # Balanced labels on one point; a neighbour flips one of them. The base
    # learner picks a constant: eps* = 1 moves its odds by e^1 per flip.
    t, eps = 52, 0.2  # t >= n (3 + e^2) / eps with n = 1
    X = np.full((t, 1), 0.5)
    y = np.arange(t) % 2
    y_neighbour = y.copy()
    y_neighbour[0] = 1
    clf = SubSamplingActiveClassifier(base(n_public=1), epsilon=eps)
    real = _max_lower_bound(*(_predictions(clf, X, v, 1500) for v in (y, y_neighbour)))
    assert real <= eps
    # Mutant: no sub-sampling (the pool bound ignored, J is the whole pool).
    monkeypatch.setattr(_active, "_pool_factor", lambda eps_base: eps)
    mutant = _max_lower_bound(
        *(_predictions(clf, X, v, 1500) for v in (y, y_neighbour))
    )
    assert mutant > eps


def test_semi_supervised_base_gets_the_unlabeled_rows_of_J():
    X, y = make_pool(4000)
    gl = GenericLearnerClassifier(
        "thresholds", n_bins=8, bounds=(0, 1), classes=[0, 1], delta=1e-6
    )
    clf = SubSamplingActiveClassifier(gl, epsilon=1.0, n_subsample=300, n_labeled=60)
    clf.fit(X, y)
    # GenericLearner with X_unlabeled costs (1, 1e-6): the delta enters Claim 5.7.
    assert clf.base_privacy_cost_ == PrivacyCost(1.0, 1e-6)
    assert clf.estimator_.sanitizer_ is not None
    expected = (7 + math.exp(1.0)) / (3 + math.exp(2.0)) * 1.0 * 1e-6
    assert clf.privacy_spent_ == PrivacyCost(1.0, expected)


@pytest.mark.parametrize(
    "params, kind, error, match",
    [
        ({}, "nan", ValueError, "NaN"),
        ({}, "inf", ValueError, "infinity"),
        ({"epsilon": 0.0}, None, ValueError, "epsilon"),
        ({"epsilon": -0.5}, None, ValueError, "epsilon"),
        ({}, "small-pool", ValueError, "needs a pool of"),
        ({"n_subsample": 10, "n_labeled": 20}, None, ValueError, "exceeds"),
        ({"estimator": LogisticRegression()}, None, TypeError, "private base"),
        ({}, "both", ValueError, "only one"),
        ({}, "neither", ValueError, "requires y"),
        ({}, "not-callable", TypeError, "callable"),
    ],
)
def test_bad_input_refused_before_any_private_read(params, kind, error, match):
    X, y = make_pool(2000)
    if kind == "nan":
        X[5, 0] = np.nan
    elif kind == "inf":
        X[5, 0] = np.inf
    elif kind == "small-pool":
        X, y = X[:5], y[:5]
    acc = PrivacyAccountant(epsilon=10.0)
    fit_kw = {"y": y}
    if kind == "both":
        fit_kw["label_oracle"] = lambda idx: y[idx]
    elif kind == "neither":
        fit_kw = {}
    elif kind == "not-callable":
        fit_kw = {"label_oracle": y}
    clf = SubSamplingActiveClassifier(**{"estimator": base(), **params}, accountant=acc)
    with pytest.raises(error, match=match):
        clf.fit(X, **fit_kw)
    assert acc.spent() == (0.0, 0.0)


@pytest.mark.parametrize(
    "answer, match",
    [
        (lambda idx: np.full(idx.size, 2), "not among the classes"),
        (lambda idx: np.zeros(idx.size + 1, dtype=int), "must return"),
        (lambda idx: np.full(idx.size, np.nan), "NaN"),
    ],
)
def test_bad_answers_refused_after_the_charge(answer, match):
    X, _ = make_pool(2000)
    acc = PrivacyAccountant(epsilon=10.0)
    clf = SubSamplingActiveClassifier(base(), accountant=acc)
    with pytest.raises(ValueError, match=match):
        clf.fit(X, label_oracle=answer)
    assert acc.spent() == (1.0, 0.0)  # the oracle was asked: charged


def test_pipeline_grid_search_and_cross_validate_with_a_ledger():
    X, y = make_pool(6000)
    acc = PrivacyAccountant(epsilon=100.0)
    clf = SubSamplingActiveClassifier(base(), epsilon=0.5, accountant=acc)
    res = cross_validate(make_pipeline(FunctionTransformer(), clf), X, y, cv=3)
    assert res["test_score"].min() > 0.7
    assert acc.spent().epsilon == pytest.approx(1.5)
    grid = GridSearchCV(clf, {"n_labeled": [20, 40]}, cv=2).fit(X, y)
    assert grid.best_params_["n_labeled"] in (20, 40)
    assert acc.spent().epsilon == pytest.approx(1.5 + 5 * 0.5)


def test_noise_is_fresh_each_fit():
    X, y = make_pool(5000)
    clf = SubSamplingActiveClassifier(base(), epsilon=0.5, random_state=0)
    first = clf.fit(X, y).transcript_.copy()
    assert not np.array_equal(first, clf.fit(X, y).transcript_)


def test_feature_names_kept():
    pd = pytest.importorskip("pandas")
    X, y = make_pool(3000)
    frame = pd.DataFrame({"age": X[:, 0]})
    clf = SubSamplingActiveClassifier(base()).fit(frame, y)
    assert clf.feature_names_in_.tolist() == ["age"]
    assert clf.predict(frame.iloc[:3]).shape == (3,)  # no feature-name warning
