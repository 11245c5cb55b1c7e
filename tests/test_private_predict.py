"""Row-safe predictions: one row's label or failure changes that row's entry only.

A review: ``count_correct`` and the transfer learner's ``zero_one_losses``
gave a row ``predict`` fails on the first row's label as its prediction;
NumPy then cast every prediction to that label's type, so a string label in
the first row made every other row's comparison false (in the transfer
learner, every agent's loss 1, driven by one agent).
"""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from sklearn_semiprivate.classifiers._transfer_steps import zero_one_losses
from sklearn_semiprivate.utils._private_predict import count_correct


class _RefusesHugeRows(ClassifierMixin, BaseEstimator):
    """Predicts 1 for x > 0, and raises on a row with |x| > 1e10."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        X = np.asarray(X)
        if np.any(np.abs(X) > 1e10):
            raise ValueError("too big")
        return (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("first", [1, "zzz", None, 2.5])
def test_a_row_s_label_decides_that_row_only(first):
    h = _RefusesHugeRows().fit(None, None)
    X = np.array([[1.0], [1e12], [1.0], [-1.0]])
    y = np.array([first, 1, 1, 0], dtype=object)
    first_ok = first == 1
    assert zero_one_losses(h, X, y).tolist() == [float(not first_ok), 1.0, 0.0, 0.0]
    assert count_correct(h, X, y) == 2 + first_ok
