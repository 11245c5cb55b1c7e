"""Axis-aligned decision stumps: a cover from public points, scored by prefix sums.

A stump on feature ``j`` labels ``x`` with ``a`` when ``x[j] <= t`` and ``b``
otherwise, for any ``a, b`` in ``classes``. On the distinct public points
(Alon, Bassily & Moran 2019, Alg. 1 step 1) the realizable labelings are the
constants and, for every feature and every cut between two consecutive distinct
public values, every ordered pair ``a != b`` (Alg. 1 steps 2-5; Beimel, Nissim &
Stemmer, Alg. 1 step 3). The cover keeps exactly one member per distinct labeling,
also across features.
"""

# SPDX-License-Identifier: BSD-3-Clause

import itertools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._base import (
    Cover,
    HypothesisClass,
    _hash_keys,
    check_classes,
    check_points,
    feature_labels,
)
from ._counting import ClassCounts

__all__ = ["DecisionStumps", "StumpCover"]


def _midpoints(values):
    """Thresholds between consecutive sorted distinct values, each in ``[lo, hi)``.

    The midpoint is the rule placed between two public points. ``lo/2 + hi/2``
    cannot overflow; where rounding puts it outside ``[lo, hi)`` (adjacent
    floats, subnormals) the threshold falls back to ``lo``, which still separates
    ``lo`` (``<= t``) from ``hi`` (``> t``).
    """
    lo, hi = values[:-1], values[1:]
    mid = lo / 2 + hi / 2
    return np.where((mid >= lo) & (mid < hi), mid, lo)


def _format_number(value):
    return repr(float(value))


def _label_pairs(n_classes):
    """Ordered pairs ``(a, b)``, ``a != b``, of class indices in lexicographic order."""
    return np.nonzero(~np.eye(n_classes, dtype=bool))


def _dedup_partitions(ranks, orders, n_values):
    """Keep one (feature, cut) per distinct split of the distinct public rows.

    A cut ``c`` (1-based) of feature ``j`` splits the rows into the prefix
    ``{rank_j < c}`` and its complement. Two cuts give the same labelings (for
    some label pair) iff they split the rows into the same two parts, in either
    orientation. Candidates are grouped by a 64-bit linear hash of the part that
    contains row 0; a candidate whose hash equals an earlier one's is compared
    EXACTLY with it (prefix maxima/minima of the other feature's ranks), and only
    dropped if the split really is the same. Hash collisions between different
    splits are therefore never merged: unverified candidates go round again among
    themselves until every group is settled.

    Returns the sorted indices of the kept candidates and, per candidate, its
    feature and 1-based cut.
    """
    n_rows = ranks.shape[1]
    weights = _hash_keys(n_rows)
    total = weights.sum(dtype=np.uint64)
    feats, cuts, sizes, hashes = [], [], [], []
    for j, m_j in enumerate(n_values):
        if m_j < 2:
            continue
        counts = np.bincount(ranks[j], minlength=m_j)
        size = np.cumsum(counts)[:-1]  # rows with rank < c, c = 1..m_j-1
        prefix_hash = np.cumsum(weights[orders[j]], dtype=np.uint64)[size - 1]
        cut = np.arange(1, m_j)
        row0_in_prefix = ranks[j, 0] < cut
        hashes.append(np.where(row0_in_prefix, prefix_hash, total - prefix_hash))
        feats.append(np.full(m_j - 1, j))
        cuts.append(cut)
        sizes.append(size)
    if not feats:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty, empty
    feats, cuts = np.concatenate(feats), np.concatenate(cuts)
    sizes, hashes = np.concatenate(sizes), np.concatenate(hashes)

    keep = np.zeros(feats.size, dtype=bool)
    pending = np.arange(feats.size)
    while pending.size:
        _, first, inverse = np.unique(
            hashes[pending], return_index=True, return_inverse=True
        )
        rep = pending[first][inverse]  # earliest candidate with the same hash
        is_rep = rep == pending
        keep[pending[is_rep]] = True
        claim, ref = pending[~is_rep], rep[~is_rep]
        same = _same_split(claim, ref, feats, cuts, sizes, ranks, orders, n_rows)
        pending = claim[~same]
    return np.flatnonzero(keep), feats, cuts


def _same_split(claim, ref, feats, cuts, sizes, ranks, orders, n_rows):
    """Exact test that candidate ``claim[i]`` splits the rows as ``ref[i]`` does.

    Prefix ``P`` of feature ``j`` (size ``s``) equals prefix ``{rank_j' < c'}``
    iff the sizes agree and ``max(rank_j' over P) < c'``; it equals the suffix
    ``{rank_j' >= c'}`` iff the sizes add to ``n_rows`` and
    ``min(rank_j' over P) >= c'``. One cumulative max/min per feature pair.
    """
    same = np.zeros(claim.size, dtype=bool)
    if claim.size == 0:
        return same
    n_features = ranks.shape[0]
    key = feats[claim] * n_features + feats[ref]
    order = np.argsort(key, kind="stable")
    bounds = np.flatnonzero(np.diff(key[order])) + 1
    for seg in np.split(order, bounds):
        j, j_ref = feats[claim[seg[0]]], feats[ref[seg[0]]]
        along = ranks[j_ref][orders[j]]  # ranks on j_ref, rows sorted by feature j
        pos = sizes[claim[seg]] - 1
        run_max = np.maximum.accumulate(along)[pos]
        run_min = np.minimum.accumulate(along)[pos]
        s, s_ref, c_ref = sizes[claim[seg]], sizes[ref[seg]], cuts[ref[seg]]
        same[seg] = ((s == s_ref) & (run_max < c_ref)) | (
            (s == n_rows - s_ref) & (run_min >= c_ref)
        )
    return same


class StumpCover(Cover):
    """Cover of axis-aligned stumps: one member per distinct public labeling.

    Built by :meth:`DecisionStumps.cover` or :meth:`Thresholds.cover`; depends on
    public points only.

    Members ``0 .. n_classes-1`` are the constants ``classes_[i]``. Then, for
    every kept split ``p`` (feature ``features_[p]``, threshold
    ``thresholds_[p]``) and every ordered pair ``(a, b)``, ``a != b`` in
    lexicographic order, member ``n_classes + p * n_classes * (n_classes - 1) +
    pair`` predicts ``a`` when ``x[feature] <= threshold`` and ``b`` otherwise.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted label set.
    n_features_in_ : int
        Number of features.
    features_ : ndarray of shape (n_splits,)
        Feature of every kept split.
    thresholds_ : ndarray of shape (n_splits,)
        Threshold of every kept split: the midpoint between two consecutive
        distinct public values of that feature.

    Examples
    --------
    >>> from sklearn_semiprivate.hypotheses import DecisionStumps
    >>> cover = DecisionStumps().cover([[0.0, 5.0], [1.0, 4.0], [2.0, 3.0]])
    >>> len(cover)  # feature 1 repeats feature 0's splits, mirrored
    6
    >>> cover.describe(2)
    'x[0] <= 0.5 -> 0 else 1'
    >>> cover.scores([[0.0, 9.0], [3.0, 9.0]], [0, 1]).tolist()
    [1, 1, 2, 0, 2, 0]
    """

    def __init__(self, classes, n_features, kept_thresholds):
        # kept_thresholds[j]: thresholds of feature j's kept splits, ascending.
        self.classes_ = classes
        self.n_features_in_ = n_features
        self._kept_thresholds = kept_thresholds
        self.features_ = np.concatenate(
            [np.full(t.size, j, dtype=np.intp) for j, t in enumerate(kept_thresholds)]
        )
        self.thresholds_ = np.concatenate(kept_thresholds).astype(np.float64)
        self._pair_a, self._pair_b = _label_pairs(classes.size)

    @property
    def size(self):
        """Number of members, as a Python int."""
        k = self.classes_.size
        return k + int(self.features_.size) * k * (k - 1)

    def _decode(self, member):
        k = self.classes_.size
        member = self._check_member(member)
        if member < k:
            return None, None, member, member
        split, pair = divmod(member - k, k * (k - 1))
        return (
            int(self.features_[split]),
            float(self.thresholds_[split]),
            int(self._pair_a[pair]),
            int(self._pair_b[pair]),
        )

    def scores(self, X, y):
        """Number of private rows each member labels correctly.

        Per feature, every private value is located among the public
        thresholds (one table lookup for most values, see
        :class:`~sklearn_semiprivate.hypotheses._counting.ClassCounts`) and the
        ``(location, class)`` histogram accumulated: the left count of every
        split at once, ``x <= t`` exactly as :meth:`predict` compares. Time
        ``O(n_features * (n + m) + len(cover))`` plus a binary search for the
        few values near a threshold; memory ``O(n + m + len(cover))``, no
        ``n x len(cover)`` matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private points.
        y : array-like of shape (n_samples,)
            Private labels, elements of ``classes_``.

        Returns
        -------
        scores : ndarray of shape (size,), dtype int64
            Sensitivity 1 under add/remove and replace-one of a private row.
        """
        X, codes = self._check_private(X, y)
        k = self.classes_.size
        # The only read of private data: every count below changes by at most 1
        # when one private row is added, removed or replaced (sensitivity 1).
        by_class = ClassCounts(codes, k)
        thresholds = self._kept_thresholds
        # Features are independent and numpy releases the GIL in these array
        # operations: count groups of adjacent features in threads (a group's
        # columns are read from memory together). The counts do not depend on
        # the grouping or the order.
        n_features = len(thresholds)
        n_threads = max(min(n_features, os.cpu_count() or 1), 1)
        n_groups = min(n_threads * -(-n_features // (8 * n_threads)), n_features)
        edges = np.linspace(0, n_features, n_groups + 1).round().astype(int)
        groups = list(itertools.pairwise(edges))
        with ThreadPoolExecutor(max_workers=n_threads) as pool:
            counted = pool.map(
                lambda g: by_class.count_at_most(
                    X[:, g[0] : g[1]], thresholds[g[0] : g[1]]
                ),
                groups,
            )
            counted = [c for group in counted for c in group]
        left = np.concatenate([np.zeros((0, k), dtype=np.int64), *counted])
        right = by_class.totals - left
        pairs = left[:, self._pair_a] + right[:, self._pair_b]
        return np.concatenate([by_class.totals, pairs.ravel()])

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
        feature, threshold, a, b = self._decode(member)
        X = check_points(X, "X", n_features=self.n_features_in_)
        if feature is None:
            return np.full(X.shape[0], self.classes_[a])
        return np.where(X[:, feature] <= threshold, self.classes_[a], self.classes_[b])

    def describe(self, member, *, feature_names=None):
        """Human-readable rule of member ``member``.

        Parameters
        ----------
        member : int
            Index of the member.
        feature_names : array-like of str of shape (``n_features_in_``,), default=None
            Names to print for the features; None prints ``x[j]``.

        Returns
        -------
        text : str
            ``"x[j] <= t -> a else b"`` (with the feature's name in place of
            ``x[j]`` when ``feature_names`` is given), or ``"always a"`` for a
            constant.

        Examples
        --------
        >>> from sklearn_semiprivate.hypotheses import DecisionStumps
        >>> cover = DecisionStumps().cover([[0.0, 5.0], [1.0, 4.0]])
        >>> cover.describe(2, feature_names=["age", "income"])
        'age <= 0.5 -> 0 else 1'
        """
        feature, threshold, a, b = self._decode(member)
        names = feature_labels(feature_names, self.n_features_in_)
        if feature is None:
            return f"always {self.classes_[a]}"
        return (
            f"{names[feature]} <= {_format_number(threshold)} -> "
            f"{self.classes_[a]} else {self.classes_[b]}"
        )

    def __repr__(self):
        return (
            f"{type(self).__name__}(size={self.size}, "
            f"n_features={self.n_features_in_}, n_classes={self.classes_.size})"
        )


def _build_stump_cover(X_public, classes):
    """Alg. 1 steps 1-5 for stumps on every feature of the (checked) public points."""
    classes = check_classes(classes)
    rows = np.unique(X_public, axis=0)  # Alg. 1 step 1: distinct public points
    n_features = rows.shape[1]
    ranks, orders, thresholds, n_values = [], [], [], []
    for j in range(n_features):
        order = np.argsort(rows[:, j], kind="stable")
        ordered = rows[order, j]
        is_new = np.empty(ordered.size, dtype=bool)
        is_new[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=is_new[1:])
        rank = np.empty(ordered.size, dtype=np.intp)
        rank[order] = np.cumsum(is_new) - 1  # dense rank of each row's value
        values = ordered[is_new]
        ranks.append(rank)
        orders.append(order)
        thresholds.append(_midpoints(values))
        n_values.append(values.size)
    kept, feats, cuts = _dedup_partitions(np.stack(ranks), np.stack(orders), n_values)
    # kept is in candidate order (feature-major): split it per feature
    bounds = np.searchsorted(feats[kept], np.arange(1, n_features))
    feature_cuts = np.split(cuts[kept] - 1, bounds)
    kept_thresholds = [t[c] for t, c in zip(thresholds, feature_cuts, strict=True)]
    return StumpCover(classes, n_features, kept_thresholds)


class DecisionStumps(HypothesisClass):
    """Axis-aligned decision stumps ``x[j] <= t -> a else b`` over every feature.

    Both orientations and, with ``k`` classes, any label on each side. The cover
    (Alon, Bassily & Moran 2019, Alg. 1 steps 1-5) holds one member per distinct
    labeling of the distinct public points: the ``k`` constants, and for every
    distinct split of those points by a threshold on some feature, the
    ``k (k - 1)`` labelings with different labels on the two sides.

    Notes
    -----
    Deduplication is exact, across features too: two stumps on different
    features (or different orientations) that split the distinct public points
    into the same two parts are one member, kept at the earliest feature. A
    64-bit hash of the split only selects which candidates to compare; equality
    is then checked exactly, so a hash collision never merges different splits.

    A member's threshold is the midpoint between the two consecutive distinct
    public values it separates, so every member is a public rule; private points
    never move it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses import DecisionStumps
    >>> rng = np.random.default_rng(0)
    >>> X_public = rng.normal(size=(20, 3))
    >>> cover = DecisionStumps().cover(X_public)
    >>> len(cover)
    112
    >>> X, y = rng.normal(size=(50, 3)), rng.integers(0, 2, 50)
    >>> cover.scores(X, y).shape
    (112,)
    """

    def cover(self, X_public, classes=(0, 1)):
        """Build the stump cover from public points only.

        Parameters
        ----------
        X_public : array-like of shape (n_public, n_features)
            Public points.
        classes : array-like of shape (n_classes,), default=(0, 1)
            The label set (public).

        Returns
        -------
        cover : StumpCover
        """
        X_public = check_points(X_public, "X_public")
        return _build_stump_cover(X_public, classes)
