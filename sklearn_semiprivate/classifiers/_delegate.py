"""Predictions of a meta-estimator from its fitted base learner ``estimator_``.

Shared by the meta-estimators around a private learner of this package
(LabelBoost, the SubSampling active learner, Subsample-Test-Reweigh): once the
fit has released ``estimator_``, predicting is post-processing of it.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..utils._sklearn_compat import validate_data

__all__ = ["FittedBaseMixin", "base_has"]


def base_has(method):
    """``available_if`` check: the (unfitted) ``estimator`` parameter has it."""

    def check(self):
        return hasattr(self.estimator, method)

    return check


class FittedBaseMixin:
    """``predict`` and ``predict_proba`` through ``estimator_`` (no noise).

    The mixin reads ``classes_`` (the meta-estimator's label set) and
    ``estimator_``, whose ``classes_`` may be a subset of it: its
    probability columns are placed at their labels, the others are zero.
    """

    def predict(self, X):
        """Labels from the fitted base learner (post-processing, no noise).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to label.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self.estimator_.predict(X)

    @available_if(base_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities from the fitted base learner.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        proba = np.zeros((X.shape[0], self.classes_.size))
        cols = np.searchsorted(self.classes_, self.estimator_.classes_)
        proba[:, cols] = self.estimator_.predict_proba(X)
        return proba
