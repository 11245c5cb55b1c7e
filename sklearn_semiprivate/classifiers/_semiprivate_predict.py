"""Post-processing of the member a SemiPrivateClassifier has chosen.

:class:`ChosenMemberMixin` holds what :class:`SemiPrivateClassifier` does
with the member its selection released (``cover_``, ``member_``): the optional
final estimator, fitted on the public points (or the grid) relabeled by the
member, and ``predict``, ``predict_proba`` and ``decision_function`` through
that estimator or the member itself; ``decision_function`` is offered only
when the ``final_estimator`` parameter has it (``_final_estimator_has``). The
member is the output of the exponential mechanism (or permute-and-flip), so
all of this is post-processing: nothing here reads private rows or draws
privacy noise.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from sklearn.base import clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ..utils._nested_fit import seed_unset_random_states
from ..utils._private_reads import reads_not_leaks
from ..utils._rng import public_seed
from ..utils._sklearn_compat import validate_data

__all__ = ["ChosenMemberMixin"]


def _final_estimator_has(method):
    """``available_if`` check: the (unfitted) final estimator offers ``method``."""

    def check(self):
        return self.final_estimator is not None and hasattr(
            self.final_estimator, method
        )

    return check


class ChosenMemberMixin:
    """The final estimator and the predictions of the chosen member (no noise).

    Mixed into :class:`SemiPrivateClassifier`, whose ``fit`` sets ``cover_``,
    ``member_`` and ``classes_`` and then calls ``_fit_final_estimator``.
    """

    def _fit_final_estimator(self, points, rng, progress):
        """Relabel public points with the chosen hypothesis: post-processing.

        An unseeded final estimator is seeded from the public-side
        ``random_state``, so that this step is reproducible.
        """
        if self.final_estimator is None:
            return None
        labels = self.cover_.predict(self.member_, points)
        if np.unique(labels).size < 2:
            progress.say("final estimator: skipped (the rule gives one label)")
            return None
        # Every random_state left at None, nested ones too (a Pipeline).
        estimator = seed_unset_random_states(
            clone(self.final_estimator), public_seed(rng)
        )
        # Public points relabeled by the released rule: timing it is public.
        started = progress.start(
            f"fitting the final estimator {type(estimator).__name__} on "
            f"{points.shape[0]:,} relabeled points..."
        )
        with reads_not_leaks():  # public (or grid) points, released labels
            estimator = estimator.fit(points, labels)
        progress.done(started, "final estimator: done")
        return estimator

    def _labels(self, X):
        """Labels of validated ``X``: the final estimator's, or the hypothesis'."""
        if self.final_estimator_ is not None:
            return self.final_estimator_.predict(X)
        return self.cover_.predict(self.member_, X)

    def _proba(self, X):
        """Class probabilities of validated ``X`` (see :meth:`predict_proba`)."""
        proba = np.zeros((X.shape[0], self.classes_.size))
        fe = self.final_estimator_
        if fe is not None and hasattr(fe, "predict_proba"):
            cols = np.searchsorted(self.classes_, fe.classes_)
            proba[:, cols] = fe.predict_proba(X)
            return proba
        labels = self._labels(X)
        proba[np.arange(X.shape[0]), np.searchsorted(self.classes_, labels)] = 1.0
        return proba

    def predict(self, X):
        """Predict labels: the chosen hypothesis (or the final estimator).

        Deterministic post-processing of the fitted state; no noise.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to label.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return self._labels(validate_data(self, X, reset=False, dtype=np.float64))

    def predict_proba(self, X):
        """Class probabilities: one-hot of the hypothesis, or the final estimator's.

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
        return self._proba(validate_data(self, X, reset=False, dtype=np.float64))

    @available_if(_final_estimator_has("decision_function"))
    def decision_function(self, X):
        """Confidence scores of the final estimator, in the layout of ``classes_``.

        Only offered with a ``final_estimator`` that has ``decision_function``:
        the hypotheses themselves give hard labels, for which
        :meth:`predict_proba` (one-hot) already serves. Deterministic
        post-processing of the fitted state; no noise.

        When the fitted final estimator saw every class (the usual case), its
        scores are returned as they are. Otherwise (the relabeled public points
        miss some classes, or hold one class and no final estimator was
        fitted) the scores are derived from :meth:`predict_proba`: ``p1 - p0``
        for two classes, the probabilities for more. The sign, or the arg max,
        always agrees with :meth:`predict`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, positive favours ``classes_[1]``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn_semiprivate import PublicData, SemiPrivateClassifier
        >>> rng = np.random.default_rng(0)
        >>> X, X_pub = rng.normal(size=(500, 2)), rng.normal(size=(60, 2))
        >>> y = (X[:, 0] > 0).astype(int)
        >>> clf = SemiPrivateClassifier(
        ...     final_estimator=LogisticRegression(), classes=[0, 1], random_state=0
        ... ).fit(X, y, X_public=PublicData(X_pub))
        >>> scores = clf.decision_function(X[:5])
        >>> bool(np.all((scores > 0) == (clf.predict(X[:5]) == 1)))
        True
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        fe = self.final_estimator_
        if fe is not None and np.array_equal(fe.classes_, self.classes_):
            return fe.decision_function(X)
        proba = self._proba(X)
        return proba[:, 1] - proba[:, 0] if self.classes_.size == 2 else proba
