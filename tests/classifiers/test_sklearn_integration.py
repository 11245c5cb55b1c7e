"""SemiPrivateClassifier inside the scikit-learn ecosystem."""

import pickle

import numpy as np
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from sklearn_semiprivate import (
    PrivacyAccountant,
    PublicData,
    PublicDataWarning,
    SemiPrivateClassifier,
    reproducible_noise,
)


def make_data(n=600, n_pub=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3))
    y = (X[:, 1] > 0.2).astype(int)
    X_pub = rng.uniform(-1, 1, size=(n_pub, 3))
    return X, y, X_pub


@pytest.fixture(params=[False, True], ids=["no-routing", "routing"])
def routing(request):
    with sklearn.config_context(enable_metadata_routing=request.param):
        yield request.param


def test_grid_search_over_epsilon_and_n_public_charges_every_fit(routing):
    X, y, X_pub = make_data()
    acc = PrivacyAccountant(epsilon=100.0)
    pipe = Pipeline(
        [
            ("identity", FunctionTransformer()),
            (
                "clf",
                SemiPrivateClassifier(classes=[0, 1], accountant=acc, random_state=0),
            ),
        ]
    )
    grid = {"clf__epsilon": [0.5, 2.0], "clf__n_public": [10, 40, 1.0]}
    search = GridSearchCV(pipe, grid, cv=3)
    # Routing delivers X_public to the step that requests it; without routing,
    # Pipeline takes step-prefixed fit parameters.
    key = "X_public" if routing else "clf__X_public"
    search.fit(X, y, **{key: PublicData(X_pub)})
    # 2 x 3 candidates x 3 folds, then one refit with the best epsilon.
    n_fits = 2 * 3 * 3 + 1
    assert len(acc.history) == n_fits
    expected = 9 * (0.5 + 2.0) + search.best_params_["clf__epsilon"]
    assert acc.spent().epsilon == pytest.approx(expected)
    assert search.best_score_ > 0.9


class _RowCounter(ClassifierMixin, BaseEstimator):
    """Records how many public rows reach fit."""

    __metadata_request__fit = {"X_public": True}

    def fit(self, X, y, X_public=None):
        self.seen_public_rows_ = X_public.X.shape[0]
        type(self).seen.append(self.seen_public_rows_)
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def test_public_data_is_never_sliced(routing):
    X, y, X_pub = make_data(n=90, n_pub=90)
    _RowCounter.seen = []
    cross_validate(_RowCounter(), X, y, cv=3, params={"X_public": PublicData(X_pub)})
    assert _RowCounter.seen == [90, 90, 90]
    _RowCounter.seen = []
    X_s, y_s, Xp_s = make_data(n=90, n_pub=90)
    cross_validate(
        SemiPrivateClassifier(classes=[0, 1], random_state=0),
        X_s,
        y_s,
        cv=3,
        params={"X_public": PublicData(Xp_s)},
    )


@pytest.mark.parametrize("n_pub", [20, 50])
def test_raw_public_array_warns(n_pub):
    X, y, X_pub = make_data(n=50, n_pub=n_pub)
    with pytest.warns(PublicDataWarning):
        SemiPrivateClassifier(classes=[0, 1], random_state=0).fit(X, y, X_public=X_pub)


def test_cross_validate_clone_pickle():
    X, y, X_pub = make_data()
    clf = SemiPrivateClassifier(
        epsilon=2.0,
        classes=[0, 1],
        final_estimator=LogisticRegression(),
        random_state=1,
    )
    res = cross_validate(clf, X, y, cv=3, params={"X_public": PublicData(X_pub)})
    assert np.all(res["test_score"] > 0.85)
    twin = clone(clf)
    assert twin.get_params()["epsilon"] == 2.0
    clf.fit(X, y, X_public=PublicData(X_pub))
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))


def test_fit_is_reproducible_and_predict_deterministic():
    X, y, X_pub = make_data()
    # Same seed, same fit only with the noise derived from random_state: with
    # fresh noise the two members differed in 3 of 100 pairs.
    with reproducible_noise():
        a = SemiPrivateClassifier(classes=[0, 1], random_state=3).fit(
            X, y, X_public=PublicData(X_pub)
        )
        b = SemiPrivateClassifier(classes=[0, 1], random_state=3).fit(
            X, y, X_public=PublicData(X_pub)
        )
    assert a.member_ == b.member_
    np.testing.assert_array_equal(a.predict(X), a.predict(X))
