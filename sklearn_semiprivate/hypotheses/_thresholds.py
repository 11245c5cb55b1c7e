"""One-dimensional thresholds ``x <= t -> a else b``: the cover of the 1-D class.

On ``m`` distinct public values (Alon, Bassily & Moran 2019, Alg. 1 step 1) the
realizable labelings are the ``k`` constants and, for each of the ``m - 1`` cuts
between consecutive values, the ``k (k - 1)`` labelings with labels ``a != b`` on
the two sides (steps 2-5): ``k + k (k - 1) (m - 1)`` members, ``2 m`` for binary
labels. Both orientations are included (``a`` below, ``b`` above, either way).
"""

# SPDX-License-Identifier: BSD-3-Clause

from ._base import HypothesisClass, check_points
from ._stumps import _build_stump_cover

__all__ = ["Thresholds"]


def _check_one_feature(X_public, name):
    X_public = check_points(X_public, "X_public")
    if X_public.shape[1] != 1:
        raise ValueError(
            f"{name} is a 1-D class: X_public must have exactly one feature, got "
            f"{X_public.shape[1]}. Select a column, or use DecisionStumps for "
            "several features."
        )
    return X_public


class Thresholds(HypothesisClass):
    """Thresholds on the real line: ``x[0] <= t -> a else b``, any labels ``a, b``.

    The cover holds one member per distinct labeling of the distinct public
    values (Alon, Bassily & Moran 2019, Alg. 1 steps 1-5): the constants first,
    then, cut by cut from the left, every ordered pair of different labels.
    Each threshold is the midpoint between the two consecutive distinct public
    values it separates (a public rule). The cover is a :class:`StumpCover` on one
    feature; scoring locates each private value among the thresholds (mostly by
    a table lookup) and accumulates a per-class histogram: ``O(n + m)`` plus a
    binary search for the few values near a threshold.

    Input points are 2-D arrays of shape ``(n_samples, 1)``.

    Examples
    --------
    >>> from sklearn_semiprivate.hypotheses import Thresholds
    >>> cover = Thresholds().cover([[1.0], [2.0], [2.0], [4.0]])
    >>> len(cover)  # 2 constants + 2 cuts x 2 orientations
    6
    >>> [cover.describe(i) for i in (0, 2, 3)]
    ['always 0', 'x[0] <= 1.5 -> 0 else 1', 'x[0] <= 1.5 -> 1 else 0']
    >>> cover.scores([[0.0], [3.0], [5.0]], [0, 1, 1]).tolist()
    [1, 2, 3, 0, 2, 1]
    """

    def cover(self, X_public, classes=(0, 1)):
        """Build the threshold cover from public points only.

        Parameters
        ----------
        X_public : array-like of shape (n_public, 1)
            Public points.
        classes : array-like of shape (n_classes,), default=(0, 1)
            The label set (public).

        Returns
        -------
        cover : StumpCover
        """
        return _build_stump_cover(_check_one_feature(X_public, "Thresholds"), classes)
