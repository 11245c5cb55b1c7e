"""Threshold and decision-stump workloads, evaluated by locating rows and prefix sums.

* ``ThresholdQueries``: ``q_t(x) = 1[x <= t]`` on the real line (the empirical
  CDF at ``t``); the class is every threshold.
* ``StumpQueries``: ``q_{j,t}(x) = 1[x[j] > t]``; on ``{±1}^p`` with ``t = 0``
  these are the coordinate queries ``h_j(x) = x_j`` of Bassily et al. (2020),
  Definition 12, as fractions ``(1 + E[x_j]) / 2``. The class is every axis
  stump, in both orientations.

Answers on ``n`` weighted rows for ``m`` queries take ``O(n + m log m)`` per
feature (plus a binary search for values the lookup table cannot place): locate
every row among the thresholds once, prefix-sum a weighted histogram. No
``n x m`` matrix. The projection of queries onto a cover
(Alg. 3, ``Project_{H~, w}``) works the same way (``_project_stumps``).
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from ..hypotheses import DecisionStumps, Thresholds
from ..hypotheses._base import _hash_keys
from ..hypotheses._counting import locate
from ..utils._validation import check_real_array
from ._base import (
    MAX_REPRESENTATIVES,
    QueryWorkload,
    RepresentativeDomainTooLarge,
    _QuerySet,
    too_large_message,
)

__all__ = ["StumpQueries", "ThresholdQueries"]


def _count_at_most(values, weights, thresholds):
    """``sum(weights[values <= t])`` for every ``t`` (any order, ``±inf`` allowed).

    Each value is located once among the distinct finite thresholds
    (:func:`~sklearn_semiprivate.hypotheses._counting.locate`, no sort of the
    values), then a weighted histogram of the locations is prefix-summed:
    ``x <= u_i`` exactly when ``locate(x) <= i``.
    """
    finite = np.isfinite(thresholds)
    cuts = np.unique(thresholds[finite])
    hist = np.bincount(locate(values, cuts), weights=weights, minlength=cuts.size + 1)
    cum = np.cumsum(hist)
    out = np.where(thresholds > 0, cum[-1], 0.0)  # +inf: every row, -inf: none
    out[finite] = cum[np.searchsorted(cuts, thresholds[finite])]
    return out


class _StumpSet(_QuerySet):
    """Queries ``1[x[f] > t]`` (``upper``) or ``1[x[f] <= t]`` (not ``upper``).

    Constants are stumps with an infinite threshold (``x > -inf`` is always true,
    ``x > inf`` never), so they need no special case.
    """

    def __init__(self, n_features, features, thresholds, upper):
        self.n_features = n_features
        self.features = np.asarray(features, dtype=np.intp)
        self.thresholds = np.asarray(thresholds, dtype=np.float64)
        self.upper = np.asarray(upper, dtype=bool)

    @property
    def n_queries(self):
        return int(self.features.size)

    def weighted_sums(self, X, weights):
        out = np.empty(self.n_queries)
        total = weights.sum()
        for f in np.unique(self.features):
            sel = np.flatnonzero(self.features == f)
            at_most = _count_at_most(X[:, f], weights, self.thresholds[sel])
            out[sel] = np.where(self.upper[sel], total - at_most, at_most)
        return out

    def labels(self, X, start, stop):
        f = self.features[start:stop]
        t = self.thresholds[start:stop, None]
        vals = X[:, f].T
        return np.where(self.upper[start:stop, None], vals > t, vals <= t)

    def take(self, indices):
        return _StumpSet(
            self.n_features,
            self.features[indices],
            self.thresholds[indices],
            self.upper[indices],
        )

    def project_queries(self, queries, X_public):
        if isinstance(queries, _StumpSet):
            return _project_stumps(self, queries, X_public)
        return super().project_queries(queries, X_public)


class _AxisSplits:
    """The splits of distinct public points by axis thresholds (public only).

    On feature ``j``, ``x[j] <= t`` selects the rows whose value has dense rank
    below ``c = #{distinct values <= t}``: a prefix of the rows sorted by
    feature ``j``. Per feature: the sorted distinct values, each row's dense
    rank, the row order, the prefix sizes and a 64-bit linear hash of every
    prefix (random public row weights, wrapping sums).
    """

    def __init__(self, X):
        self.X = X
        self.n = X.shape[0]
        self.weights = _hash_keys(self.n)
        self.total = self.weights.sum(dtype=np.uint64)
        self._features = {}

    def feature(self, j):
        if j not in self._features:
            col = self.X[:, j]
            values = np.unique(col)
            rank = np.searchsorted(values, col)
            order = np.argsort(col, kind="stable")
            size = np.concatenate([[0], np.cumsum(np.bincount(rank))])
            prefix_hash = np.zeros(self.n + 1, dtype=np.uint64)
            np.cumsum(self.weights[order], dtype=np.uint64, out=prefix_hash[1:])
            self._features[j] = (values, rank, order, size, prefix_hash)
        return self._features[j]

    def labelings(self, stumps):
        """Per stump: feature, cut ``c``, prefix size, size and hash of its 1-set."""
        cut = np.empty(stumps.n_queries, dtype=np.intp)
        prefix = np.empty(stumps.n_queries, dtype=np.intp)
        prefix_hash = np.empty(stumps.n_queries, dtype=np.uint64)
        for j in np.unique(stumps.features):
            values, _, _, size, hashes = self.feature(int(j))
            sel = np.flatnonzero(stumps.features == j)
            cut[sel] = np.searchsorted(values, stumps.thresholds[sel], side="right")
            prefix[sel] = size[cut[sel]]
            prefix_hash[sel] = hashes[prefix[sel]]
        up = stumps.upper
        ones = np.where(up, self.n - prefix, prefix)
        # Wrapping uint64 arithmetic: the hash of the complement of a prefix.
        ones_hash = np.where(up, self.total - prefix_hash, prefix_hash)
        return cut, prefix, ones, ones_hash

    def same(self, q, p, stumps_q, stumps_p, lab_q, lab_p):
        """Exact test: stump ``q[i]`` labels every row as stump ``p[i]`` does.

        Equal 1-sets have equal sizes; a size of 0 or ``n`` fixes the set. Else
        the prefix ``P`` of feature ``f`` (size ``s``) equals the prefix
        ``{rank_g < c}`` iff the sizes agree and ``max(rank_g over P) < c``, and
        equals the suffix ``{rank_g >= c}`` iff the sizes add to ``n`` and
        ``min(rank_g over P) >= c``: one running max/min per feature pair.
        """
        cut_p, prefix_q, prefix_p = lab_p[0][p], lab_q[1][q], lab_p[1][p]
        ones = lab_q[2][q]
        same = ones == lab_p[2][p]
        trivial = (ones == 0) | (ones == self.n)
        todo = np.flatnonzero(same & ~trivial)
        f, g = stumps_q.features[q[todo]], stumps_p.features[p[todo]]
        flip = stumps_q.upper[q[todo]] != stumps_p.upper[p[todo]]
        pair = f * self.X.shape[1] + g
        for key in np.unique(pair):
            sel = np.flatnonzero(pair == key)
            _, _, order_f, _, _ = self.feature(int(f[sel[0]]))
            _, rank_g, _, _, _ = self.feature(int(g[sel[0]]))
            along = rank_g[order_f]  # ranks on g, rows sorted by f
            pos = prefix_q[todo[sel]] - 1
            c = cut_p[todo[sel]]
            ok = np.where(
                flip[sel],
                (prefix_q[todo[sel]] == self.n - prefix_p[todo[sel]])
                & (np.minimum.accumulate(along)[pos] >= c),
                (prefix_q[todo[sel]] == prefix_p[todo[sel]])
                & (np.maximum.accumulate(along)[pos] < c),
            )
            same[todo[sel]] = ok
        return same


def _project_stumps(cover, queries, X_public):
    """``Project_{H~, w}`` (Alg. 3) for stump queries onto a stump cover, exactly.

    No cover x points table: each labeling of the distinct public points is a
    prefix (or its complement) of the rows sorted on one feature, located by
    ``searchsorted``. Candidates are the members with the same 64-bit hash of
    the labeling (equal labelings have equal hashes); each candidate is then
    compared exactly (:meth:`_AxisSplits.same`), so a hash collision never maps
    a query to a wrong member. ``O((n + |H~| + |Q|) log n)`` per feature.
    """
    splits = _AxisSplits(X_public)
    lab_c, lab_q = splits.labelings(cover), splits.labelings(queries)
    order = np.argsort(lab_c[3], kind="stable")
    sorted_hash = lab_c[3][order]
    lo = np.searchsorted(sorted_hash, lab_q[3], side="left")
    hi = np.searchsorted(sorted_hash, lab_q[3], side="right")
    member = np.full(queries.n_queries, -1, dtype=np.intp)
    pending = np.flatnonzero(hi > lo)
    k = 0
    # The cover's members label the points differently, so at most one
    # candidate matches; a second round happens only after a hash collision.
    while pending.size:
        cand = order[lo[pending] + k]
        ok = splits.same(pending, cand, queries, cover, lab_q, lab_c)
        member[pending[ok]] = cand[ok]
        pending = pending[~ok & (lo[pending] + k + 1 < hi[pending])]
        k += 1
    return member


def _stump_cover_as_queries(cover):
    """The members of a 0/1 ``StumpCover`` as ``_StumpSet`` queries, in order.

    Member 0 is "always 0", member 1 "always 1"; then, per kept split ``p``, the
    label pairs ``(0, 1)`` (``x <= t -> 0 else 1``: ``1[x > t]``) and ``(1, 0)``
    (``1[x <= t]``), in the cover's own member order.
    """
    n_splits = cover.features_.size
    feats = np.concatenate([[0, 0], np.repeat(cover.features_, 2)])
    thr = np.concatenate([[np.inf, -np.inf], np.repeat(cover.thresholds_, 2)])
    upper = np.concatenate([[True, True], np.tile([True, False], n_splits)])
    return _StumpSet(cover.n_features_in_, feats, thr, upper)


def _grid_domain(cover_set, X_public):
    """Definition 2 for axis stumps: the grid of the kept thresholds.

    Two points are equivalent under the cover iff, for every feature, they fall
    in the same interval between consecutive kept thresholds of that feature;
    every cell of that grid is non-empty, so the classes are exactly the cells.
    A cell's representative takes, per feature, the smallest public value in
    its interval (one exists: thresholds are midpoints between public values).
    """
    n_features = X_public.shape[1]
    keep = np.isfinite(cover_set.thresholds)
    per_feature_thr, per_feature_rep = [], []
    for j in range(n_features):
        thr = np.unique(cover_set.thresholds[keep & (cover_set.features == j)])
        values = np.unique(X_public[:, j])
        first_above = np.searchsorted(values, thr, side="right")
        per_feature_thr.append(thr)
        per_feature_rep.append(np.concatenate([values[:1], values[first_above]]))
    sizes = [r.size for r in per_feature_rep]
    n_cells = 1
    for s in sizes:
        n_cells *= s
    if n_cells > MAX_REPRESENTATIVES:
        raise RepresentativeDomainTooLarge(
            too_large_message("", n_cells, MAX_REPRESENTATIVES)
        )
    grids = np.meshgrid(*per_feature_rep, indexing="ij")
    reps = np.column_stack([g.ravel() for g in grids])
    strides = np.ones(n_features, dtype=np.int64)
    for j in range(n_features - 2, -1, -1):
        strides[j] = strides[j + 1] * sizes[j + 1]

    def class_map(X):
        idx = np.zeros(X.shape[0], dtype=np.int64)
        for j in range(n_features):
            # side="left": x <= t falls in the cell below t, as the queries do.
            cell = np.searchsorted(per_feature_thr[j], X[:, j], side="left")
            idx += strides[j] * cell
        return idx

    return reps, class_map


class ThresholdQueries(QueryWorkload):
    """Threshold queries on the real line: ``q_t(x) = 1[x <= t]``.

    The answer to ``q_t`` is the (weighted) empirical CDF at ``t``. The query
    class is every threshold ``t`` in ``R``; the workload is the finite list
    ``thresholds``. Data have exactly one feature.

    Parameters
    ----------
    thresholds : array-like of shape (n_queries,)
        Finite thresholds ``t``.

    Attributes
    ----------
    thresholds : ndarray of shape (n_queries,)
        The validated thresholds.

    See Also
    --------
    StumpQueries : Axis thresholds on several features.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.query_release import ThresholdQueries
    >>> q = ThresholdQueries([0.0, 1.5, 3.0])
    >>> q.evaluate([[1.0], [2.0], [2.0], [4.0]]).tolist()
    [0.0, 0.25, 0.75]
    """

    def __init__(self, thresholds):
        t = np.asarray(thresholds)
        if t.ndim != 1:
            raise ValueError(
                "thresholds must be a 1-D array of thresholds (one query each), got "
                f"shape {t.shape}."
            )
        self.thresholds = check_real_array(t, "thresholds")

    def __repr__(self):
        return f"ThresholdQueries(n_queries={self.thresholds.size})"

    def _check_points(self, X, name):
        if X.shape[1] != 1:
            raise ValueError(
                f"ThresholdQueries are 1-D: {name} must have exactly one feature, "
                f"got {X.shape[1]}. Use StumpQueries for several features."
            )
        return X

    def _bind(self, n_features):
        if n_features != 1:
            raise ValueError(
                "ThresholdQueries are 1-D: the data must have exactly one feature, "
                f"got {n_features}. Use StumpQueries for several features."
            )
        t = self.thresholds
        return _StumpSet(1, np.zeros(t.size), t, np.zeros(t.size, dtype=bool))

    def _cover(self, X_public):
        # Alg. 3 steps 1-2 for thresholds: the Thresholds cover (one member per
        # distinct labeling of the distinct public values), read as queries.
        cover = _stump_cover_as_queries(Thresholds().cover(X_public))
        # The class {x <= t} has one orientation: keep the constants and the
        # members 1[x <= t] (the pairs (1, 0)); sorted by threshold.
        keep = ~cover.upper | np.isinf(cover.thresholds)
        members = cover.take(np.flatnonzero(keep))
        order = np.argsort(
            np.where(members.upper, -members.thresholds, members.thresholds),
            kind="stable",
        )
        members = members.take(order)
        # Constants as thresholds: x <= -inf never, x <= +inf always.
        thr = np.where(members.upper, -members.thresholds, members.thresholds)
        return _StumpSet(1, np.zeros(thr.size), thr, np.zeros(thr.size, dtype=bool))

    def _representative_domain(self, cover, X_public):
        # Definition 2 on the line: the cells (-inf, t_1], (t_1, t_2], ...,
        # (t_M, inf) of the finite cover thresholds, one public value in each.
        return _grid_domain(cover, X_public)


class StumpQueries(QueryWorkload):
    """Decision-stump queries ``q_{j,t}(x) = 1[x[j] > t]`` on every feature.

    On ``{±1}^p`` the default (``thresholds=0``) gives the coordinate queries
    ``h_j(x) = x_j`` of Bassily et al. (2020), Definition 12, answered as the
    fraction of rows with ``x_j = +1``, i.e. ``(1 + E[x_j]) / 2``. On real
    features, a list of thresholds gives axis thresholds. The query class is
    every axis stump in both orientations (``1[x[j] > t]`` and
    ``1[x[j] <= t]``).

    Parameters
    ----------
    thresholds : float or array-like of shape (n_thresholds,), default=0.0
        Thresholds, each applied to every feature in ``features``.
    features : array-like of int, default=None
        Features to query; None is every feature.

    Attributes
    ----------
    thresholds : ndarray of shape (n_thresholds,)
    features : ndarray of int or None

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.query_release import StumpQueries
    >>> X = np.array([[1, -1, 1], [1, 1, -1], [-1, -1, -1], [1, -1, -1]])
    >>> StumpQueries().evaluate(X).tolist()  # fraction of +1 per coordinate
    [0.75, 0.25, 0.25]
    """

    def __init__(self, thresholds=0.0, features=None):
        t = np.asarray(thresholds)
        if t.ndim > 1:
            raise ValueError(
                f"thresholds must be a number or a 1-D array, got shape {t.shape}."
            )
        self.thresholds = check_real_array(np.atleast_1d(t), "thresholds")
        if features is None:
            self.features = None
        else:
            f = np.asarray(features)
            if f.ndim != 1 or f.size == 0 or not np.issubdtype(f.dtype, np.integer):
                raise ValueError(
                    "features must be a non-empty 1-D array of feature indices, got "
                    f"{features!r}."
                )
            if np.any(f < 0):
                raise ValueError("features must be non-negative indices.")
            self.features = f.astype(np.intp)

    def __repr__(self):
        feats = "all" if self.features is None else self.features.tolist()
        return f"StumpQueries(n_thresholds={self.thresholds.size}, features={feats})"

    def _bind(self, n_features):
        feats = np.arange(n_features) if self.features is None else self.features
        if feats.max() >= n_features:
            raise ValueError(
                f"StumpQueries refers to feature {int(feats.max())}, but the data "
                f"have {n_features} features."
            )
        f = np.repeat(feats, self.thresholds.size)
        t = np.tile(self.thresholds, feats.size)
        return _StumpSet(n_features, f, t, np.ones(f.size, dtype=bool))

    def _cover(self, X_public):
        # Alg. 3 steps 1-2: the DecisionStumps cover (one member per distinct
        # labeling of the distinct public points, deduplicated exactly across
        # features and orientations), read as queries.
        return _stump_cover_as_queries(DecisionStumps().cover(X_public))

    def _representative_domain(self, cover, X_public):
        return _grid_domain(cover, X_public)
