"""What a fitted release answers: post-processing of the released distribution.

The methods :class:`PublicAssistedQueryRelease` inherits for its fitted state
(which :meth:`_clear_fitted` drops before and after a failed fit):
:meth:`transform` answers any batch of queries and :meth:`sample` draws
synthetic rows, both from the released distribution (or, for APAP, the cover's
released answers) only. Nothing here reads private data.
"""

# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..utils._rng import check_rng
from ._adaptive import mixture_answers
from ._base import QueryWorkload
from ._labeled import as_frame, joint_points
from ._marginals import PredicateQueries
from ._options import ADAPTIVE_SUPPORTS
from ._workloads import StumpQueries, ThresholdQueries

__all__ = []

# Fitted state that does not end with "_" (cleared with the fitted attributes).
_PRIVATE_FITTED = ("_public_points", "_cover_answers")


class _ReleasedDistribution:
    """The fitted state of a query release and its post-processing (a mixin)."""

    def _clear_fitted(self):
        """Drop every fitted attribute (of an earlier fit, or of a failed one)."""
        for name in list(vars(self)):
            fitted = name.endswith("_") and not name.startswith("__")
            if fitted or name in _PRIVATE_FITTED:
                delattr(self, name)

    @staticmethod
    def _project(cover, query_set, public_points):
        """Alg. 3, ``Project_{H~, w}``: the cover member of every query (public)."""
        member = cover.project_queries(query_set, public_points)
        if np.any(member < 0):
            raise ValueError(
                f"{int(np.count_nonzero(member < 0))} of the {member.size} queries "
                "label the public points in a way no member of the cover does: "
                "they are not in the query class the release was fitted for. Use "
                "the same kind of workload, or support='public'."
            )
        return member

    def _answer(self, query_set, member=None):
        """Answers of a bound query list: post-processing of the fitted state."""
        if self.support_type_ == "representative":
            if member is None:
                member = self._project(self.cover_, query_set, self._public_points)
            # Alg. 3, function G: answer h by its projection onto the cover.
            return self._cover_answers[member]
        if self.support_type_ in ADAPTIVE_SUPPORTS:
            return mixture_answers(self._adaptive_model(), query_set)
        return query_set.answers(self._joint_support(), self.weights_)

    def _adaptive_model(self):
        """The released distribution of an adaptive support."""
        if self.support_type_ == "graphical":
            return self.graphical_model_
        return self.mixture_

    def _labeled(self):
        return hasattr(self, "classes_")

    def _joint_support(self):
        """The support's rows, with the label code last in a labeled fit."""
        if not self._labeled():
            return self.support_
        codes = np.searchsorted(self.classes_, self.support_labels_)
        return joint_points(self.support_, codes)

    def transform(self, queries):
        """DP answers to a batch of queries (post-processing, deterministic).

        Parameters
        ----------
        queries : QueryWorkload or array-like
            A workload; or query parameters for a workload of the fitted kind:
            thresholds for :class:`ThresholdQueries` and :class:`StumpQueries`,
            a list of callables for :class:`PredicateQueries`. After a labeled
            fit, queries are over ``n_features_in_ + 1`` columns, the label
            code last.

        Returns
        -------
        answers : ndarray of shape (n_queries,)
            Fractions in ``[0, 1]``.
        """
        check_is_fitted(self)
        if not isinstance(queries, QueryWorkload):
            queries = self._workload_like(queries)
        if self.support_type_ not in ADAPTIVE_SUPPORTS:
            # The released points must lie in this workload's domain (the
            # adaptive supports compare categories themselves): a review found
            # a narrower domain answered silently wrong, or a broadcast error.
            if self.support_type_ == "representative":
                points = self._public_points
            else:
                points = self._joint_support()
            queries._check_points(points, "the released support (public points)")
        return self._answer(queries._bind(self.n_features_in_ + self._labeled()))

    def _workload_like(self, spec):
        fitted = self.queries
        if isinstance(fitted, ThresholdQueries):
            return ThresholdQueries(spec)
        if isinstance(fitted, StumpQueries):
            return StumpQueries(spec, features=fitted.features)
        if isinstance(fitted, PredicateQueries):
            return PredicateQueries(spec, domain=fitted.domain)
        raise TypeError(
            f"Pass a QueryWorkload to transform for a {type(fitted).__name__} release."
        )

    def get_feature_names_out(self, input_features=None):
        """Names of the features of the released rows (post-processing).

        The columns of :meth:`sample`'s rows: ``feature_names_in_`` after a fit
        on a DataFrame with string column names, else ``x0, x1, ...``. (After
        a labeled fit, :meth:`sample` returns the labels apart, as ``y``.)

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input feature names; if given, they must be ``feature_names_in_``
            (when defined) and ``n_features_in_`` long.

        Returns
        -------
        feature_names_out : ndarray of str objects
        """
        check_is_fitted(self)
        fitted = getattr(self, "feature_names_in_", None)
        if input_features is not None:
            input_features = np.asarray(input_features, dtype=object)
            if input_features.ndim != 1 or len(input_features) != self.n_features_in_:
                raise ValueError(
                    f"input_features should have length equal to the number of "
                    f"features ({self.n_features_in_}), got {len(input_features)}."
                )
            if fitted is not None and not np.array_equal(input_features, fitted):
                raise ValueError("input_features is not equal to feature_names_in_.")
            return input_features
        if fitted is not None:
            return np.asarray(fitted, dtype=object)
        return np.asarray([f"x{i}" for i in range(self.n_features_in_)], dtype=object)

    def sample(self, n_samples, random_state=None):
        """Synthetic rows drawn from the released distribution (post-processing).

        Parameters
        ----------
        n_samples : int
            Number of rows, ``>= 0``.
        random_state : int, RandomState instance or None, default=None
            Source of randomness of the draw.

        Returns
        -------
        X_synthetic : ndarray or DataFrame of shape (n_samples, n_features)
            A DataFrame with the columns ``feature_names_in_`` when the fit's
            ``X`` had string column names.
        y_synthetic : ndarray of shape (n_samples,)
            The rows' labels; returned (as ``(X_synthetic, y_synthetic)``)
            after a labeled fit only.
        """
        check_is_fitted(self)
        if (
            isinstance(n_samples, bool)
            or not isinstance(n_samples, Integral)
            or n_samples < 0
        ):
            raise ValueError(f"n_samples must be an integer >= 0, got {n_samples!r}.")
        rng = check_rng(random_state)
        if self.support_type_ in ADAPTIVE_SUPPORTS:
            rows = self._adaptive_model().sample(int(n_samples), rng).astype(np.float64)
            if not self._labeled():
                return as_frame(rows, getattr(self, "feature_names_in_", None))
            X = as_frame(rows[:, :-1], getattr(self, "feature_names_in_", None))
            return X, self.classes_[rows[:, -1].astype(np.intp)]
        idx = rng.choice(self.support_.shape[0], size=int(n_samples), p=self.weights_)
        X = as_frame(self.support_[idx], getattr(self, "feature_names_in_", None))
        if self._labeled():
            return X, self.support_labels_[idx]
        return X
