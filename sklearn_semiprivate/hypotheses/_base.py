"""The hypothesis-class protocol: covers built from public points, scored privately.

Data flow (Alon, Bassily & Moran 2019, Alg. 1; Beimel, Nissim & Stemmer, Alg. 1
step 3)::

    X_public --HypothesisClass.cover--> Cover (finite, public)
                                          | scores(X_priv, y_priv): the private read
                                          v
                                exponential mechanism --> chosen member --> predict

A cover holds one member per distinct labeling of the distinct public points that
the class realizes (Alg. 1 steps 1-5). It depends on public data and parameters
only; ``Cover.scores`` is the one method that reads private rows.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numbers
import operator
from abc import ABC, abstractmethod

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_array

from .._public import declared_label_set
from ..mechanisms import exponential_mechanism

__all__ = [
    "Cover",
    "HypothesisClass",
    "check_classes",
    "check_points",
    "encode_labels",
    "feature_labels",
]

# Largest cover whose scores may be materialized member by member (one int64 per
# member, 80 MB). Covers that can be larger sample the exponential mechanism
# without enumerating members (IntervalCover, PartitionCover).
_MAX_ENUMERATE = 10**7
# Largest epsilon put in the exponent of a count score (sensitivity 1, integer
# differences). A member one count below the best has relative weight
# exp(-epsilon / 2), 0.0 in double from epsilon ~ 1500, so the drawn
# distribution is the same at any larger epsilon; a smaller epsilon is a
# valid (epsilon-DP) mechanism too. Larger exponents overflowed the interval
# chain's sums (inf - inf, NaN).
COUNT_EPSILON_MAX = 1e6


class MemberIndexError(IndexError, ValueError):
    """A member index outside ``[0, cover.size)``.

    An :class:`IndexError`, and also a :class:`ValueError` so that code written
    against earlier covers, which raised ``ValueError``, keeps working (as
    :class:`numpy.exceptions.AxisError` does).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses import Thresholds
    >>> cover = Thresholds().cover(np.array([[0.0], [1.0]]))
    >>> try:
    ...     cover.predict(cover.size, [[0.5]])
    ... except IndexError as exc:
    ...     print(exc)
    member 4 is out of range for a cover of size 4.
    """


def check_points(X, name="X", *, n_features=None, allow_empty=False):
    """Return ``X`` as a finite 2-D float64 array, optionally of ``n_features`` columns.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Points.
    name : str, default="X"
        Name used in error messages.
    n_features : int, default=None
        Required number of columns.
    allow_empty : bool, default=False
        Whether an array with no rows (shape ``(0, n_features)``) is accepted.
        Private datasets may be empty (a neighbour of a one-row dataset); public
        points may not.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64

    Raises
    ------
    ValueError
        On 1-D input, NaN/inf, no rows (unless ``allow_empty``), or a wrong number
        of features.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses import check_points
    >>> check_points([[1, 2]]).dtype
    dtype('float64')
    >>> check_points(np.empty((0, 2)), allow_empty=True).shape
    (0, 2)
    """
    # check_array sums X as a fast finiteness test; finite values near 1e308 may
    # overflow that sum (numpy warns), after which it checks element by element.
    with np.errstate(over="ignore", invalid="ignore"):
        X = check_array(
            X,
            dtype=np.float64,
            ensure_all_finite=True,
            ensure_min_samples=0 if allow_empty else 1,
            input_name=name,
        )
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(
            f"{name} has {X.shape[1]} features, but this cover was built on "
            f"{n_features}."
        )
    return X


def check_classes(classes):
    """Return the label set as a sorted array of at least two unique labels.

    Parameters
    ----------
    classes : array-like of shape (n_classes,)
        Labels.

    Returns
    -------
    classes : ndarray of shape (n_classes,)

    Examples
    --------
    >>> from sklearn_semiprivate.hypotheses import check_classes
    >>> check_classes(["b", "a"]).tolist()
    ['a', 'b']
    """
    classes = declared_label_set(classes)
    if classes.size < 2:
        raise ValueError(
            f"classes must hold at least two distinct labels, got {classes.tolist()}."
        )
    return classes


def encode_labels(y, classes, name="y", *, private=False):
    """Map labels to their indices in the sorted ``classes``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels, each an element of ``classes``.
    classes : ndarray of shape (n_classes,)
        Sorted label set.
    name : str, default="y"
        Name used in error messages.
    private : bool, default=False
        If True, the error names no label of ``y``: they are private values.

    Returns
    -------
    codes : ndarray of shape (n_samples,), dtype intp

    Raises
    ------
    ValueError
        If a label is not in ``classes``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses import encode_labels
    >>> encode_labels(["b", "a", "b"], np.array(["a", "b"])).tolist()
    [1, 0, 1]
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {y.shape}.")
    if y.size == 0:  # an empty float array would not compare with string classes
        return np.zeros(0, dtype=np.intp)
    codes = np.searchsorted(classes, y)
    codes = np.clip(codes, 0, classes.size - 1)
    bad = classes[codes] != y
    if np.any(bad):
        which = "" if private else f" {np.unique(y[bad]).tolist()}"
        raise ValueError(
            f"{name} contains labels{which} not in classes={classes.tolist()}."
        )
    return codes.astype(np.intp, copy=False)


def feature_labels(feature_names, n_features):
    """How each feature is printed in a rule: its name, or ``x[j]``.

    Parameters
    ----------
    feature_names : array-like of str of shape (n_features,) or None
        Feature names (public: part of the input format), or None.
    n_features : int
        Number of features the cover reads.

    Returns
    -------
    labels : list of str
        ``feature_names`` as strings, or ``["x[0]", "x[1]", ...]``.

    Raises
    ------
    ValueError
        If ``feature_names`` is not one name per feature.

    Examples
    --------
    >>> from sklearn_semiprivate.hypotheses import feature_labels
    >>> feature_labels(None, 2)
    ['x[0]', 'x[1]']
    >>> feature_labels(["age", "income"], 2)
    ['age', 'income']
    """
    if feature_names is None:
        return [f"x[{j}]" for j in range(n_features)]
    names = [str(name) for name in np.asarray(feature_names, dtype=object).ravel()]
    if np.ndim(feature_names) != 1 or len(names) != n_features:
        raise ValueError(
            f"feature_names must hold one name per feature ({n_features}), got "
            f"shape {np.shape(feature_names)}."
        )
    return names


# Fixed public seed of the random 64-bit keys that hash public labelings. Public
# and data-independent: the hashes only select which candidates are compared
# exactly, so a collision never merges different labelings.
_HASH_SEED = 0x5EED5


def _hash_keys(n):
    """``n`` random 64-bit keys from the fixed public seed (one per public point)."""
    return np.random.default_rng(_HASH_SEED).integers(
        np.iinfo(np.uint64).max, size=n, dtype=np.uint64, endpoint=True
    )


def _gumbel_max(log_weights, rng):
    """One exponential-mechanism draw per row: index along the last axis.

    Returns ``argmax(log_weights + G)`` along the last axis, with ``G`` i.i.d.
    standard Gumbel noise; each row's index ``i`` then has probability exactly
    ``softmax(row)[i]`` (the Gumbel-max trick). When a row holds the logits
    ``log base(i) + epsilon * score_i / 2`` of a sensitivity-1 score, the row's
    draw IS the exponential mechanism over it (McSherry & Talwar 2007), as in
    :class:`~sklearn_semiprivate.mechanisms.ExponentialMechanism`.

    That class draws from one logit vector; the factorised covers need one
    independent draw per row of a matrix, all rows at once (every cell of a
    partition, every label pair of an interval chain), hence this helper. It
    only turns given logits into indices: the privacy argument (which logits,
    at which epsilon) lives with each caller.

    Each row is shifted by its maximum first (the distribution is unchanged), so
    huge logits keep the resolution of the Gumbel noise, as in
    :class:`~sklearn_semiprivate.mechanisms.ExponentialMechanism`.
    """
    log_weights = np.asarray(log_weights, dtype=np.float64)
    top = np.max(log_weights, axis=-1, keepdims=True)
    top[~np.isfinite(top)] = 0.0  # a row of -inf: nothing to shift
    shifted = log_weights - top
    return np.argmax(shifted + rng.gumbel(size=shifted.shape), axis=-1)


def _clone_sharing(estimator, shared):
    """Clone ``estimator`` like :func:`sklearn.base.clone`, except ``shared`` params.

    The parameters named in ``shared`` are passed on as the very same objects (a
    fitted model, or a list of them, is not copied); every other parameter is
    cloned as scikit-learn would. For hypothesis classes built from fitted public
    models, which ``clone`` would otherwise replace by unfitted copies. Nothing
    mutates these objects: covers only call their ``predict``/``apply``.
    """
    params = estimator.get_params(deep=False)
    for name, value in params.items():
        if name not in shared:
            params[name] = clone(value, safe=False)
    return type(estimator)(**params)


class HypothesisClass(BaseEstimator, ABC):
    """A hypothesis class that can build a finite cover from public points.

    Subclasses are small parameter holders, like scikit-learn estimators:
    ``__init__`` only assigns its arguments to attributes of the same names, so
    :meth:`get_params`, :meth:`set_params`, ``repr`` and
    :func:`sklearn.base.clone` work, and nested parameters such as
    ``hypothesis_class__n_bins`` can be searched over. They implement
    :meth:`cover`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses import HypothesisClass, Thresholds
    >>> isinstance(Thresholds(), HypothesisClass)
    True
    >>> len(Thresholds().cover(np.array([[0.0], [1.0], [2.0]])))
    6
    >>> from sklearn_semiprivate.hypotheses import PartitionLabelings
    >>> PartitionLabelings().set_params(n_bins=8)
    PartitionLabelings(n_bins=8)
    """

    @abstractmethod
    def cover(self, X_public, classes=(0, 1)):
        """Build the cover from public points only.

        Parameters
        ----------
        X_public : array-like of shape (n_public, n_features)
            Public points; never private ones.
        classes : array-like of shape (n_classes,), default=(0, 1)
            The label set (public).

        Returns
        -------
        cover : Cover
        """


class Cover(ABC):
    """A finite set of hypotheses, built from public data, scored on private data.

    Members are identified by an integer index ``0 <= i < cover.size``; every
    method taking a member raises :class:`TypeError` for a non-integer and
    :class:`MemberIndexError` (an :class:`IndexError`) for an index out of range.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted label set; predictions are elements of it.
    n_features_in_ : int
        Number of features the members read.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses import DecisionStumps
    >>> cover = DecisionStumps().cover(np.array([[0.0, 5.0], [1.0, 3.0]]))
    >>> X, y = np.array([[0.2, 4.0], [0.9, 3.5]]), np.array([0, 1])
    >>> scores = cover.scores(X, y)  # correct private predictions per member
    >>> best = int(np.argmax(scores))
    >>> cover.predict(best, X).tolist()
    [0, 1]
    """

    @property
    @abstractmethod
    def size(self):
        """Number of members, as a Python int (may exceed ``sys.maxsize``)."""

    def __len__(self):
        return self.size

    def _check_member(self, member):
        """Return ``member`` as a Python int in ``[0, size)``.

        Raises :class:`TypeError` for a non-integer (``bool`` included) and
        :class:`MemberIndexError` (an :class:`IndexError`) when out of range.
        """
        if isinstance(member, (bool, np.bool_)) or not isinstance(
            member, numbers.Integral
        ):
            raise TypeError(f"member must be an integer, got {type(member).__name__}.")
        member = operator.index(member)
        size = self.size
        if not 0 <= member < size:
            raise MemberIndexError(
                f"member {member} is out of range for a cover of size {size}."
            )
        return member

    def _check_private(self, X, y):
        """Validate private rows against the cover: ``(X float64, label codes)``.

        ``X`` must have ``n_features_in_`` finite columns and may have no rows (an
        empty private dataset scores 0 for every member); ``y`` holds elements of
        ``classes_``, one per row, returned as indices into ``classes_``.
        """
        X = check_points(X, "X", n_features=self.n_features_in_, allow_empty=True)
        codes = encode_labels(y, self.classes_, "y", private=True)
        if codes.shape[0] != X.shape[0]:
            raise ValueError("X and y have different numbers of rows.")
        return X, codes

    def _check_scorable(self):
        """Raise now, on public grounds, if :meth:`scores` would refuse this
        cover (before any private read, so before a fit's charge). Covers
        whose :meth:`scores` calls :meth:`_check_enumerable` override it."""
        return None

    def _check_enumerable(self):
        """Refuse to materialize one value per member beyond ``_MAX_ENUMERATE``."""
        if self.size > _MAX_ENUMERATE:
            raise ValueError(
                f"This {type(self).__name__} has {self.size} members, too many to "
                f"score one by one (limit {_MAX_ENUMERATE}). Use "
                "sample_exponential without a per-member log_base_measure: it draws "
                "the exponential mechanism exactly without enumerating the members."
            )

    @abstractmethod
    def scores(self, X, y):
        """Number of private rows each member labels correctly.

        This is the only method that reads private data. Sensitivity 1 under
        add/remove and under replace-one of a row: one row changes each count by
        at most 1.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private points.
        y : array-like of shape (n_samples,)
            Private labels, elements of ``classes_``.

        Returns
        -------
        scores : ndarray of shape (size,), dtype int64
            All zero when there are no private rows.
        """

    @abstractmethod
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

    @abstractmethod
    def describe(self, member, *, feature_names=None):
        """Human-readable rule of member ``member``, e.g. ``x[3] <= 2.5 -> 1 else 0``.

        Parameters
        ----------
        member : int
            Index of the member.
        feature_names : array-like of str of shape (``n_features_in_``,), default=None
            Names to print for the features (an estimator passes its
            ``feature_names_in_``). None prints ``x[j]``. Implementations
            resolve them with :func:`feature_labels`.

        Returns
        -------
        text : str
        """

    def sample_exponential(
        self, X, y, epsilon, *, log_base_measure=None, random_state=None
    ):
        """Draw a member with the exponential mechanism, score = ``scores(X, y)``.

        ``P(i) ∝ base(i) exp(epsilon * score_i / 2)``: epsilon-DP for the private
        rows because the score has sensitivity 1 (McSherry & Talwar 2007).
        Covers whose score is a sum over independent parts override this to sample
        exactly, part by part, without enumerating members.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private points.
        y : array-like of shape (n_samples,)
            Private labels.
        epsilon : float
            Privacy parameter.
        log_base_measure : array-like of shape (size,), default=None
            Data-independent log prior over members (e.g. from public labels).
        random_state : None, int or Generator
            Source of randomness.

        Returns
        -------
        member : int
        """
        # Sensitivity 1: one private row changes every count by at most 1.
        return int(
            exponential_mechanism(
                self.scores(X, y),
                epsilon,
                sensitivity=1.0,
                log_base_measure=log_base_measure,
                random_state=random_state,
            )
        )

    def labelings(self, X):
        """Labels of every member on ``X``, shape ``(size, n_samples)``.

        For tests and small covers only: memory ``size * n_samples``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to label.

        Returns
        -------
        labels : ndarray of shape (size, n_samples)
        """
        return np.stack([self.predict(i, X) for i in range(self.size)])
