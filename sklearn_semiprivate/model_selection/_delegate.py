"""Predictions of the fitted search through its winner, ``best_estimator_``.

:class:`BestEstimatorMixin` gives :class:`PrivateParameterSearch` the winner's
``classes_``, ``n_features_in_`` and ``feature_names_in_``, and its
``predict``, ``predict_proba`` and ``decision_function``; the last two are
offered when the winner (before the fit, the ``estimator`` parameter) has
them. The winner is released by the selection, so all of this is
post-processing: nothing here reads private rows or adds noise.
"""

# SPDX-License-Identifier: BSD-3-Clause

from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

__all__ = ["BestEstimatorMixin"]


def _best_has(method):
    def check(self):
        if hasattr(self, "best_estimator_"):
            return hasattr(self.best_estimator_, method)
        return hasattr(self.estimator, method)

    return check


class BestEstimatorMixin:
    """The winner's attributes and predictions (post-processing)."""

    # --- delegation ------------------------------------------------------------

    @property
    def classes_(self):
        """The winner's classes."""
        check_is_fitted(self)
        return self.best_estimator_.classes_

    @property
    def n_features_in_(self):
        """Number of features seen by the winner."""
        check_is_fitted(self)
        return self.best_estimator_.n_features_in_

    @property
    def feature_names_in_(self):
        """Feature names seen by the winner (when X had string column names)."""
        check_is_fitted(self)
        return self.best_estimator_.feature_names_in_

    def predict(self, X):
        """Predict with the selected, fitted candidate (post-processing).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    @available_if(_best_has("predict_proba"))
    def predict_proba(self, X):
        """Class probabilities of the selected candidate (post-processing).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X)

    @available_if(_best_has("decision_function"))
    def decision_function(self, X):
        """Decision function of the selected candidate (post-processing).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        scores : ndarray
        """
        check_is_fitted(self)
        return self.best_estimator_.decision_function(X)
