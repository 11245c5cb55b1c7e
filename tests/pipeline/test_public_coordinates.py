"""The last step gets the public rows through the map the private rows take.

A review: the pipeline encoded the public rows with each transformer's
``fit_transform`` and the private and test rows with ``transform``. For
``TargetEncoder``, whose ``fit_transform`` cross-fits, one public category
reached the last step as five values while private rows of it got one.
"""

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler, TargetEncoder

from sklearn_semiprivate import (
    PublicData,
    SemiPrivateClassifier,
    make_public_fitted_pipeline,
)


class _Spy(SemiPrivateClassifier):
    """Records the public rows it is fitted with."""

    def fit(self, X, y, X_public=None, y_public=None):
        type(self).seen = np.asarray(X_public.X).copy()
        return super().fit(X, y, X_public=X_public, y_public=y_public)


def test_public_rows_take_the_transform_of_every_other_row():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, size=(400, 1))
    y = (X[:, 0] >= 2).astype(int) ^ (rng.random(400) < 0.2)
    X_pub = rng.integers(0, 5, size=(60, 1))
    y_pub = (X_pub[:, 0] >= 2).astype(int) ^ (rng.random(60) < 0.2)
    pipe = make_public_fitted_pipeline(
        TargetEncoder(random_state=0),
        StandardScaler(),
        _Spy(classes=[0, 1], random_state=0),
    )
    pipe.fit(X, y, X_public=PublicData(X_pub, y_pub))
    encoder, scaler = pipe.steps_[0][1], pipe.steps_[1][1]
    expected = scaler.transform(encoder.transform(X_pub))
    np.testing.assert_allclose(_Spy.seen, expected)
    # One value per category, as for the private and test rows.
    assert np.unique(_Spy.seen[X_pub[:, 0] == 0]).size == 1


class _FitTakesXOnly(StandardScaler):
    def fit(self, X):  # no y, as some third-party transformers
        return super().fit(X)


def test_a_transformer_whose_fit_takes_no_y_is_fitted_without_labels():
    rng = np.random.default_rng(0)
    X, X_pub = rng.uniform(size=(200, 2)), rng.uniform(size=(30, 2))
    y = (X[:, 0] > 0.5).astype(int)
    pipe = make_public_fitted_pipeline(
        _FitTakesXOnly(),
        SemiPrivateClassifier(classes=[0, 1], random_state=0),
        row_wise="all",
    )
    pipe.fit(X, y, X_public=PublicData(X_pub))
    assert pipe.score(X, y) > 0.5


class _FitReturnsNone(StandardScaler):
    def fit(self, X, y=None):
        super().fit(X, y)  # forgets to return self


class _NoFit:
    """A duck-typed transformer with fit_transform and transform, no fit."""

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self

    def fit_transform(self, X, y=None):
        self.mean_ = np.mean(X, axis=0)
        return self.transform(X)

    def transform(self, X):
        return np.asarray(X) - self.mean_


@pytest.mark.parametrize("step", [_FitReturnsNone(), _NoFit()], ids=["none", "nofit"])
def test_transformers_scikit_learn_s_pipeline_takes_are_taken(step):
    # A review: the first fit-then-transform version refused both (before
    # any charge), which the pipeline took before.
    rng = np.random.default_rng(0)
    X, X_pub = rng.uniform(size=(200, 2)), rng.uniform(size=(30, 2))
    y = (X[:, 0] > 0.5).astype(int)
    pipe = make_public_fitted_pipeline(
        step, SemiPrivateClassifier(classes=[0, 1], random_state=0), row_wise="all"
    )
    pipe.fit(X, y, X_public=PublicData(X_pub))
    assert pipe.predict(X).shape == (200,)
