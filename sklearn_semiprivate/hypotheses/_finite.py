"""A finite hypothesis class given as a list of fitted predictors.

For a finite class ``H`` (e.g. models trained on labeled public data), Alon,
Bassily & Moran (2019), Alg. 1 steps 1-5, keep one member per distinct labeling of
the distinct public points: models that agree on every public point are merged,
keeping the first.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from ..utils._nested_fit import dropped_warnings
from ..utils._private_predict import count_correct, float32_safe
from ._base import (
    Cover,
    HypothesisClass,
    _clone_sharing,
    check_classes,
    check_points,
    encode_labels,
    feature_labels,
)

__all__ = ["FiniteClass", "FiniteCover"]


class FiniteClass(HypothesisClass):
    """A finite class of fitted predictors, merged by their public labelings.

    Parameters
    ----------
    models : sequence of fitted estimators
        Predictors with a ``predict`` method returning labels in ``classes``; they
        must have been fitted on public data only.

    See Also
    --------
    FiniteCover : The cover, with its private scoring.

    Notes
    -----
    :func:`sklearn.base.clone` keeps the fitted models (the same objects) rather
    than returning unfitted copies, so the class can sit inside a cloned or
    cross-validated estimator.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from sklearn_semiprivate.hypotheses import FiniteClass
    >>> rng = np.random.default_rng(0)
    >>> X_pub = rng.normal(size=(30, 2))
    >>> y_pub = (X_pub[:, 0] > 0).astype(int)
    >>> models = [
    ...     DecisionTreeClassifier(max_depth=d, random_state=0).fit(X_pub, y_pub)
    ...     for d in (1, 2, 3)
    ... ]
    >>> cover = FiniteClass(models).cover(X_pub)
    >>> cover.size, cover.model_indices_.tolist()
    (1, [0])
    """

    def __init__(self, models):
        self.models = models

    def __sklearn_clone__(self):
        # The models are fitted (on public data) and ARE the class: clone keeps
        # the same model objects; sklearn.base.clone would return unfitted copies.
        return _clone_sharing(self, ("models",))

    def cover(self, X_public, classes=(0, 1)):
        """Merge the models that label the distinct public points identically.

        Parameters
        ----------
        X_public : array-like of shape (n_public, n_features)
            Public points; never private ones.
        classes : array-like of shape (n_classes,), default=(0, 1)
            The label set; every public prediction must be in it.

        Returns
        -------
        cover : FiniteCover
        """
        X_public = check_points(X_public, "X_public")
        classes = check_classes(classes)
        models = list(self.models)
        if not models:
            raise ValueError("models must hold at least one fitted predictor.")
        for j, model in enumerate(models):
            if not hasattr(model, "predict"):
                raise TypeError(
                    f"models[{j}] has no predict method: {type(model).__name__}."
                )
        # Alg. 1 step 1: the distinct public points.
        distinct = np.unique(X_public + 0.0, axis=0)
        labelings = np.stack(
            [
                encode_labels(
                    np.asarray(model.predict(float32_safe(model, distinct))),
                    classes,
                    f"predictions of models[{j}] on X_public",
                )
                for j, model in enumerate(models)
            ]
        )
        # Steps 2-5: one member per distinct labeling, the first model having it.
        first = np.unique(labelings, axis=0, return_index=True)[1]
        return FiniteCover(models, np.sort(first), classes, X_public.shape[1])


class FiniteCover(Cover):
    """The merged finite class: one fitted predictor per public labeling.

    Built by :meth:`FiniteClass.cover`; member ``i`` is
    ``models[model_indices_[i]]``.

    Parameters
    ----------
    models : list of fitted estimators
        All models of the class.
    model_indices : ndarray of shape (n_members,)
        Increasing indices of the kept models.
    classes : ndarray of shape (n_classes,)
        Sorted label set.
    n_features : int
        Number of features.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted label set.
    n_features_in_ : int
        Number of features.
    model_indices_ : ndarray of shape (size,)
        Index in ``models`` of each member (the first of its labeling).

    Notes
    -----
    **Privacy.** The merge uses public points only. :meth:`scores` is the one
    private read (sensitivity 1, add/remove and replace-one). A prediction outside
    ``classes_`` on a private row simply counts as wrong: raising there would
    reveal something about the private data.

    Examples
    --------
    >>> from sklearn.dummy import DummyClassifier
    >>> from sklearn_semiprivate.hypotheses import FiniteClass
    >>> X, y = [[0.0], [1.0]], [0, 1]
    >>> models = [DummyClassifier(strategy="constant", constant=c).fit(X, y)
    ...           for c in (0, 1, 0)]
    >>> cover = FiniteClass(models).cover(X)
    >>> cover.size, cover.scores([[0.5], [2.0]], [1, 1]).tolist()
    (2, [0, 2])
    """

    def __init__(self, models, model_indices, classes, n_features):
        self._models = models
        self.model_indices_ = np.asarray(model_indices, dtype=np.intp)
        self.classes_ = classes
        self.n_features_in_ = n_features

    @property
    def size(self):
        """Number of members (Python int)."""
        return int(self.model_indices_.size)

    def _model(self, member):
        return self._models[self.model_indices_[self._check_member(member)]]

    def scores(self, X, y):
        """Number of private rows each member labels correctly.

        One ``predict`` call per member: the loop runs over the (few) models,
        never over private rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private points.
        y : array-like of shape (n_samples,)
            Private labels, elements of ``classes_``.

        Returns
        -------
        scores : ndarray of shape (size,), dtype int64
        """
        # The only private read of this cover. Sensitivity 1 under add/remove and
        # replace-one: each row adds 0 or 1 to each member's count.
        X, codes = self._check_private(X, y)
        out = np.zeros(self.size, dtype=np.int64)
        if X.shape[0] == 0:  # estimators refuse 0 rows; every count is 0
            return out
        y = self.classes_[codes]
        # Row by row where a member's predict fails on some private row (or
        # returns the wrong shape): that row counts as a mistake, and no error
        # (nor its message, which may quote the value) leaves the fit.
        with dropped_warnings():
            for i in range(self.size):
                out[i] = count_correct(self._model(i), X, y)
        return out

    def predict(self, member, X):
        """Labels given by member ``member`` to the rows of ``X``.

        Parameters
        ----------
        member : int
            Index of the member.
        X : array-like of shape (n_samples, n_features)
            Points to label.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        model = self._model(member)
        X = check_points(X, "X", n_features=self.n_features_in_)
        return np.asarray(model.predict(float32_safe(model, X)))

    def describe(self, member, *, feature_names=None):
        """Human-readable rule of member ``member``: the model it stands for.

        Parameters
        ----------
        member : int
            Index of the member.
        feature_names : array-like of str of shape (``n_features_in_``,), default=None
            Accepted for the :class:`Cover` protocol; checked, but not printed:
            a member is shown as its model's ``repr``.

        Returns
        -------
        text : str
        """
        model = self._model(member)
        feature_labels(feature_names, self.n_features_in_)
        return f"models[{self.model_indices_[member]}]: {model!r}"
