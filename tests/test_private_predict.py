"""Row-safe predictions: one row's label or failure changes that row's entry only.

A review: ``count_correct`` and the transfer learner's ``zero_one_losses``
gave a row ``predict`` fails on the first row's label as its prediction;
NumPy then cast every prediction to that label's type, so a string label in
the first row made every other row's comparison false (in the transfer
learner, every agent's loss 1, driven by one agent). A second review found
the same with an object None as the fill: Python's comparison of int64
predictions above 2**53 with float labels differs from NumPy's. Each chunk
is now compared in its own dtype.
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


def test_one_failing_row_does_not_change_how_the_others_compare():
    big = 2**53 + 1  # as a float label: 2**53; NumPy compares them equal

    class _Big(_RefusesHugeRows):
        def predict(self, X):
            return super().predict(X) * 0 + big

    h = _Big().fit(None, None)
    X = np.array([[1.0], [1.0], [1.0]])
    y = np.full(3, float(big))
    clean = count_correct(h, X, y)
    X_bad = np.vstack([X, [[1e12]]])
    assert count_correct(h, X_bad, np.append(y, float(big))) == clean
    assert zero_one_losses(h, X_bad, np.append(y, float(big))).tolist() == [
        *zero_one_losses(h, X, y).tolist(),
        1.0,
    ]
