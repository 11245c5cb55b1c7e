"""A cross-validation splitter whose folds keep the fold models' guarantee.

``cross_validate`` fits ``k`` models, each charged its ``epsilon``: ``k
epsilon`` in all, which covers the fold models only if changing the private
data by one neighbour step changes every fold's training set by one step too.
scikit-learn's splitters do not ensure that:

* ``StratifiedKFold`` deals each class's rows out by the labels, so one changed
  label moves many rows between folds;
* ``KFold``, ``ShuffleSplit`` and ``train_test_split`` are functions of the
  number of rows ``n``, which is private for add/remove neighbours (the
  relation most estimators here are calibrated for). With a public seed, the
  permutation of ``n - 1`` rows is unrelated to that of ``n`` rows: removing
  one row moved 414 of 999 others to another fold in a review (``n = 1000``,
  two folds), and unshuffled folds move up to ``k - 1`` rows at their borders.

:class:`PrivateKFold` deals every row to a fold independently and uniformly,
from fresh OS entropy. Adding or removing a row then leaves the other rows'
folds with the same joint distribution, and replacing a row leaves every
row's fold where it was; so for either relation each fold's training set
differs by at most that one step, and the fold models are within their
charges (the scores on the held-out folds stay releases: see the privacy
page).
"""

# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral

import numpy as np
from sklearn.model_selection import BaseCrossValidator
from sklearn.utils import indexable

from ..utils._rng import noise_rng


class PrivateKFold(BaseCrossValidator):
    """K-fold cross-validation with rows dealt to folds independently.

    Every row goes to one of ``n_splits`` folds uniformly at random,
    independently of the other rows, from fresh OS entropy drawn at every call
    of :meth:`split`; each fold is the test set once. Use it as ``cv=`` of
    ``cross_validate``, ``GridSearchCV`` and the like whenever the rows are
    private: the fold models are then covered by their charges for add/remove
    and for replace-one neighbours, which neither ``StratifiedKFold`` nor a
    seeded ``KFold`` ensures under add/remove (see Notes).

    Parameters
    ----------
    n_splits : int, default=5
        Number of folds, at least 2.
    random_state : int or None, default=None
        Ignored, except inside :func:`~sklearn_semiprivate.reproducible_noise`,
        where the folds are derived from it (for tests and docs; the folds are
        then known to anyone with the seed, like the noise, and the guarantee
        argued in Notes no longer holds).

    See Also
    --------
    sklearn.model_selection.KFold : its folds are a function of the number
        of rows.

    Notes
    -----
    **Why not KFold.** Under add/remove neighbours the number of rows ``n`` is
    private. A seeded ``KFold`` (shuffled or not), ``ShuffleSplit`` or
    ``train_test_split`` computes every row's fold from ``n``, so adding one
    row moves many others (the module docstring quotes a review). An
    :func:`~sklearn_semiprivate.audit.audit_epsilon` run on a two-fold
    ``cross_validate`` of a ``SemiPrivateClassifier`` at ``epsilon=0.5`` per
    fold, seeded ``KFold``, found a lower bound of 3.8 on the fold models,
    against 1.0 charged.

    **Why this one is covered.** Let ``D' = D + x``. The folds of ``D``'s rows
    have the same joint distribution under both (each row's fold is drawn on
    its own), and ``x``'s fold is independent of them. Conditioned on those
    draws, each fold's training set differs between ``D`` and ``D'`` by at
    most ``x``: the fold model is a mechanism applied to neighbouring data,
    and a mixture, over a distribution that does not depend on the data, of
    pairs of outputs within ``(epsilon, delta)`` is within ``(epsilon,
    delta)``. Replace-one: the replaced row keeps its position and so its
    fold. The ``k`` fold models compose to the ``k`` charges.

    Not covered: whether a fold comes out empty depends on ``n`` (then
    :meth:`split` raises a ``ValueError``), an event of probability at most
    ``k (1 - 1/k)^n``, about ``1e-9`` at ``k = 5`` and ``n = 100``: it adds
    that much to the ``delta`` of the whole. The fold indices
    (``cross_validate(return_indices=True)``) and sizes hold ``n`` exactly,
    private under add/remove. The scores on the held-out folds are releases
    whatever the splitter (see the privacy page).

    The fold sizes are random (binomial with mean ``n / k``), and two calls
    of :meth:`split` give different folds: a ``GridSearchCV`` calls it once
    per ``fit``, so its candidates share the folds of that fit;
    ``HalvingGridSearchCV``, which requires the same folds at every call,
    refuses it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.model_selection import PrivateKFold
    >>> cv = PrivateKFold(n_splits=3)
    >>> folds = list(cv.split(np.zeros((300, 2))))
    >>> len(folds)
    3
    >>> sorted(np.concatenate([test for _, test in folds]).tolist()) == list(range(300))
    True
    """

    def __init__(self, n_splits=5, *, random_state=None):
        self.n_splits = n_splits
        self.random_state = random_state

    def get_n_splits(self, X=None, y=None, groups=None):
        """The number of folds, ``n_splits``.

        Parameters
        ----------
        X, y, groups : object
            Ignored; for API compatibility.

        Returns
        -------
        n_splits : int
        """
        return self._checked_n_splits()

    def _checked_n_splits(self):
        k = self.n_splits
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, Integral) or k < 2:
            raise ValueError(f"n_splits must be an int >= 2, got {k!r}.")
        seed = self.random_state
        if seed is not None and (
            isinstance(seed, (bool, np.bool_))
            or not isinstance(seed, Integral)
            or not 0 <= seed < 2**32
        ):
            # Checked always, not only where reproducible_noise reads it.
            raise ValueError(
                f"random_state must be None or an int in [0, 2**32), got {seed!r}."
            )
        return int(k)

    def split(self, X, y=None, groups=None):
        """Deal the rows to the folds (fresh draws), then yield each split.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows; only their number is used.
        y, groups : object
            Ignored; for API compatibility (the folds never depend on them).

        Yields
        ------
        train : ndarray
            The training set indices for that split.
        test : ndarray
            The test set indices for that split.
        """
        k = self._checked_n_splits()
        (X,) = indexable(X)
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        # One independent uniform draw per row: the joint distribution of the
        # other rows' folds does not depend on any one row (Notes).
        fold = noise_rng(self.random_state).integers(k, size=n)
        sizes = np.bincount(fold, minlength=k)
        if (sizes == 0).any():
            raise ValueError(
                f"A fold of PrivateKFold(n_splits={k}) drew no rows, which "
                f"happens only with few rows for {k} folds; use fewer folds."
            )
        indices = np.arange(n)
        for j in range(k):
            yield indices[fold != j], indices[fold == j]
