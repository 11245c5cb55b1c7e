"""Prediction through a released scikit-learn model: the shared post-processing.

Estimators that end their fit by training an ordinary scikit-learn classifier
on released (DP) data, such as PATE's student or a model trained on synthetic
rows, predict through it. Nothing here reads private data or adds noise.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..utils._sklearn_compat import validate_data

__all__ = ["ReleasedModelMixin"]


def _model_has(method):
    """``available_if`` check: the (unfitted) released model offers ``method``."""

    def check(self):
        return hasattr(self._unfitted_model(), method)

    return check


class ReleasedModelMixin:
    """``predict``, ``predict_proba`` and ``decision_function`` via a fitted model.

    A class using it defines ``_unfitted_model()`` (the estimator it will
    train, from its parameters) and sets in ``fit``: ``classes_``,
    ``constant_label_`` and the attribute named by ``_model_attr`` (the fitted
    model, or None when its training labels held a single class, in which case
    ``constant_label_`` is predicted everywhere).
    """

    _model_attr = "estimator_"

    def _unfitted_model(self):
        raise NotImplementedError

    def _fitted_model(self):
        return getattr(self, self._model_attr)

    def _proba(self, X):
        proba = np.zeros((X.shape[0], self.classes_.size))
        model = self._fitted_model()
        if model is None:
            proba[:, np.searchsorted(self.classes_, self.constant_label_)] = 1.0
            return proba
        if hasattr(model, "predict_proba"):
            cols = np.searchsorted(self.classes_, model.classes_)
            proba[:, cols] = model.predict_proba(X)
            return proba
        labels = model.predict(X)
        proba[np.arange(X.shape[0]), np.searchsorted(self.classes_, labels)] = 1.0
        return proba

    def predict(self, X):
        """Predict labels with the fitted model (post-processing, no noise).

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
        model = self._fitted_model()
        if model is None:
            return np.full(X.shape[0], self.constant_label_)
        # errstate: scikit-learn models' input checks sum the rows, which
        # overflows on finite rows near the largest float (a spurious warning).
        with np.errstate(over="ignore", invalid="ignore"):
            return model.predict(X)

    def predict_proba(self, X):
        """Class probabilities of the fitted model, in the layout of ``classes_``.

        One-hot when the model has no ``predict_proba`` or was not fitted.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):  # as in predict
            return self._proba(X)

    @available_if(_model_has("decision_function"))
    def decision_function(self, X):
        """Confidence scores of the fitted model, in the layout of ``classes_``.

        The model's own scores when it saw every class; otherwise derived from
        :meth:`predict_proba` (``p1 - p0`` for two classes, the probabilities
        for more), so the sign or arg max agrees with :meth:`predict`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        model = self._fitted_model()
        if model is not None and np.array_equal(model.classes_, self.classes_):
            return model.decision_function(X)
        proba = self._proba(X)
        return proba[:, 1] - proba[:, 0] if self.classes_.size == 2 else proba

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
