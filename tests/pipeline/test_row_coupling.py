"""Transformers that map a batch jointly (NMF) transform the private rows one at a time.

A review found that ``NMF.transform`` stops its coordinate descent on a
violation summed over the batch: one replaced private row changed the
transformed values of 486 of the 499 others, and moved a cover member's score
by 199 (sensitivity 1 claimed). The pipeline now probes every step on the
public rows, and a step that couples rows transforms the private rows one at
a time.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import NMF, PCA
from sklearn.preprocessing import StandardScaler

from sklearn_semiprivate import (
    PublicData,
    SemiPrivateClassifier,
    make_public_fitted_pipeline,
)
from sklearn_semiprivate.pipeline import _pipeline
from sklearn_semiprivate.pipeline._row_coupling import (
    one_row_at_a_time,
    row_coupling_gap,
)


def _nmf():
    return NMF(n_components=2, random_state=0, max_iter=500)


def _data():
    rng = np.random.default_rng(1)
    X_pub = rng.exponential(size=(30, 4))
    X = rng.exponential(size=(400, 4))
    X_neighbour = X.copy()
    X_neighbour[-1] = 1000.0 * rng.exponential(size=4)
    y = (rng.random(400) < 0.5).astype(int)
    return X_pub, X, X_neighbour, y


class _Centred(TransformerMixin, BaseEstimator):
    """Subtracts the mean of the batch it transforms: couples every row."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        X = np.asarray(X, dtype=float)
        return X - X.mean(axis=0)


def test_the_probe_finds_batch_transformers_and_passes_row_wise_ones():
    X_pub = _data()[0]
    for step, coupled in [
        (_nmf(), True),
        (_Centred(), True),
        (StandardScaler(), False),
        (PCA(n_components=3), False),
    ]:
        out = step.fit(X_pub).transform(X_pub)
        gap = row_coupling_gap(step, X_pub, out)
        assert (gap > 0) == coupled, (step, gap)
    # One public row: nothing to compare with.
    step = _Centred().fit(X_pub[:1])
    assert row_coupling_gap(step, X_pub[:1], step.transform(X_pub[:1])) == 0.0


def test_nmf_private_rows_are_mapped_each_on_its_own(monkeypatch):
    # What the last step is fitted on, for a dataset and its neighbour that
    # replaces the last row: every other transformed row must be identical.
    seen = []
    call = _pipeline.call_inner_on_private

    def spy(final, method, Xt, *args, **kwargs):
        seen.append(np.array(Xt, copy=True))
        return call(final, method, Xt, *args, **kwargs)

    monkeypatch.setattr(_pipeline, "call_inner_on_private", spy)
    X_pub, X, X_neighbour, y = _data()
    for Xd in (X, X_neighbour):
        pipe = make_public_fitted_pipeline(
            _nmf(), SemiPrivateClassifier("stumps", epsilon=1.0, classes=[0, 1])
        )
        with pytest.warns(UserWarning, match="'nmf' .NMF. transforms rows jointly"):
            pipe.fit(Xd, y, X_public=PublicData(X_pub))
    np.testing.assert_array_equal(seen[0][:-1], seen[1][:-1])
    # And each is the step's own transform of that row alone.
    nmf = pipe.steps_[0][1]
    np.testing.assert_array_equal(seen[1][5], nmf.transform(X_neighbour[5:6])[0])


def test_row_wise_steps_transform_the_batch_without_a_warning(monkeypatch):
    calls = []
    X_pub, X, _, y = _data()
    scaler = StandardScaler()
    transform = StandardScaler.transform

    def counting(self, Z, *args, **kwargs):
        calls.append(np.shape(Z)[0])
        return transform(self, Z, *args, **kwargs)

    monkeypatch.setattr(StandardScaler, "transform", counting)
    make_public_fitted_pipeline(
        scaler, SemiPrivateClassifier("stumps", epsilon=1.0, classes=[0, 1])
    ).fit(X, y, X_public=PublicData(X_pub))
    # The public batch, the probe's 30 single rows, then the private batch.
    assert calls.count(400) == 1
    assert calls.count(1) == 30


def test_one_row_at_a_time_keeps_the_output_format():
    frame = pd.DataFrame(
        np.arange(12.0).reshape(4, 3), columns=["a", "b", "c"], index=[7, 3, 9, 1]
    )
    scaler = StandardScaler().set_output(transform="pandas").fit(frame)
    out = one_row_at_a_time(scaler.transform)(frame)
    pd.testing.assert_frame_equal(out, scaler.transform(frame))
    arr = frame.to_numpy()
    scaler = StandardScaler().fit(arr)
    rows = one_row_at_a_time(scaler.transform)(arr)
    np.testing.assert_allclose(rows, scaler.transform(arr))
