"""Overflow to +-inf is clipped in every container a transformer returns.

A finite private row that a transformer maps to +-inf is kept at the largest
float, so whether the fit fails after the charge does not depend on how far
out one private row lies. The clipping used to handle NumPy arrays only: with
``set_output(transform="pandas")`` one private row at 1e306 made the fit raise
after the charge, where its neighbour fitted (a review's reproducer,
``/tmp/s14/adv/repro_pandas_overflow.py``).
"""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.preprocessing import StandardScaler

from sklearn_semiprivate import (
    PrivacyAccountant,
    PublicData,
    SemiPrivateClassifier,
    SemiPrivateLogisticRegression,
    make_public_fitted_pipeline,
)
from sklearn_semiprivate.pipeline._final_step import _clip_overflow

BIG = np.finfo(np.float64).max


def _output(name):
    if name == "polars":
        pytest.importorskip("polars")
    return name


@pytest.mark.parametrize("output", ["default", "pandas", "polars"])
@pytest.mark.parametrize("last", [SemiPrivateClassifier, SemiPrivateLogisticRegression])
def test_one_far_private_row_does_not_fail_the_fit(output, last):
    rng = np.random.default_rng(0)
    X_pub = rng.uniform(size=(40, 2)) * 1e-3  # a tiny public scale
    X = rng.uniform(size=(300, 2))
    y = (X[:, 0] > 0.5).astype(int)
    neighbour = X.copy()
    neighbour[0, 0] = 1e306  # finite, valid, scaled to inf
    for rows in (X, neighbour):
        ledger = PrivacyAccountant(epsilon=10.0)
        pipe = make_public_fitted_pipeline(
            StandardScaler(), last(classes=[0, 1], accountant=ledger)
        ).set_output(transform=_output(output))
        pipe.fit(rows, y, X_public=PublicData(X_pub))
        assert len(ledger.history) == 1
        assert np.isin(pipe.predict(neighbour[:5]), [0, 1]).all()


def test_pandas_float_columns_are_clipped_and_the_frame_kept():
    frame = pd.DataFrame(
        {
            "a": [np.inf, -np.inf, np.nan, 1.0],
            "b": [1, 2, 3, 4],
            "c": pd.array([np.inf, None, 2.0, 3.0], dtype="Float32"),
        }
    )
    frame.columns = ["a", "b", "a"]  # duplicate names: by position
    out = _clip_overflow(frame)
    assert isinstance(out, pd.DataFrame)
    assert out.columns.tolist() == ["a", "b", "a"]
    assert out.iloc[:, 0].tolist()[:2] == [BIG, -BIG]
    assert np.isnan(out.iloc[2, 0])  # NaN is left for an imputer
    assert out.iloc[:, 1].tolist() == [1, 2, 3, 4]
    assert out.iloc[0, 2] == np.finfo(np.float32).max
    assert pd.isna(out.iloc[1, 2])
    assert np.isinf(frame.iloc[0, 0])  # the input is not changed


def test_polars_float_columns_are_clipped():
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame(
        {
            "a": [np.inf, -np.inf, np.nan],
            "b": [1, 2, 3],
            "c": pl.Series([np.inf, 1.0, 2.0], dtype=pl.Float32),
        }
    )
    out = _clip_overflow(frame)
    assert isinstance(out, pl.DataFrame)
    assert out["a"].to_list()[:2] == [BIG, -BIG]
    assert np.isnan(out["a"][2])
    assert out["b"].to_list() == [1, 2, 3]
    assert out["c"][0] == np.finfo(np.float32).max


def test_sparse_stored_values_are_clipped():
    X = sp.csr_matrix(np.array([[np.inf, 0.0], [0.0, -np.inf]]))
    out = _clip_overflow(X)
    assert sp.issparse(out)
    assert out.toarray().tolist() == [[BIG, 0.0], [0.0, -BIG]]
    assert np.isinf(X.data).all()  # the input is not changed


@pytest.mark.parametrize("output", ["default", "pandas"])
def test_predict_clips_after_every_transformer_as_fit_does(output):
    # A review: predict clipped after the last transformer only, so a row the
    # first one overflowed made the second refuse it (fit clipped each step).
    from sklearn.decomposition import PCA
    from sklearn.preprocessing import PolynomialFeatures

    rng = np.random.default_rng(0)
    X_pub = rng.normal(size=(60, 3))
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    pipe = make_public_fitted_pipeline(
        PolynomialFeatures(2), PCA(2), SemiPrivateLogisticRegression(classes=[0, 1])
    ).set_output(transform=output)
    pipe.fit(X, y, X_public=PublicData(X_pub))
    far = np.array([[1e200, 0.0, 0.0], [-1e308, 1e308, 1e308]])
    assert np.isin(pipe.predict(far), [0, 1]).all()
