"""All labelings of the cells of a partition fitted on public points.

The class ``H`` of functions that are constant on every cell of a partition of the
feature space. The partition is fitted on public points only (per-feature public
quantiles, public k-d median splits, k-means on public points, or any fitted
estimator with ``apply``/``predict``). Its realizable labelings of the distinct
public points are exactly the labelings of the *occupied* cells (cells holding at
least one public point), so the cover of Alon, Bassily & Moran (2019), Alg. 1
steps 1-5, has ``K ** n_cells`` members: far too many to enumerate, but the score
of a member is a sum over cells, so the exponential mechanism factorizes into one
independent draw per cell.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from scipy.special import logsumexp
from sklearn.cluster import KMeans
from sklearn.neighbors import KDTree
from sklearn.utils.validation import check_is_fitted

from ..mechanisms._exponential import scaled_gaps
from ..mechanisms._validation import check_log_base_measure
from ..utils import check_epsilon, check_integer, check_rng
from ._base import (
    Cover,
    HypothesisClass,
    _clone_sharing,
    _gumbel_max,
    check_classes,
    check_points,
    encode_labels,
    feature_labels,
)
from ._partitioners import CellIndex, EstimatorCells, MedianSplits, QuantileGrid

__all__ = ["PartitionCover", "PartitionLabelings"]


class PartitionLabelings(HypothesisClass):
    """Every labeling of the occupied cells of a public partition.

    Parameters
    ----------
    partitioner : {"quantile", "kdtree", "kmeans"} or fitted estimator, \
            default="quantile"
        How the feature space is cut into cells, using public points only:

        - ``"quantile"``: a grid whose edges along feature ``j`` are the public
          quantiles at levels ``1/n_bins, ..., (n_bins-1)/n_bins``; a point is in
          bin ``b`` when ``edge[b-1] < x[j] <= edge[b]``.
        - ``"kdtree"``: ``depth`` levels of median splits, each on the feature of
          widest public spread in the node (``x[j] <= median`` goes left).
        - ``"kmeans"``: :class:`~sklearn.cluster.KMeans` with ``n_clusters``
          clusters (at most the number of distinct public points), fitted on the
          public points with ``random_state``.
        - a fitted estimator: its ``apply`` output (e.g. a tree's leaf id; a row
          of leaf ids for a forest) or else its ``predict`` output (a cluster id)
          is the cell. It must have been fitted on public data only.
    n_bins : int, default=4
        Quantile bins per feature for ``"quantile"``.
    depth : int, default=3
        Split levels for ``"kdtree"`` (at most ``2 ** depth`` cells).
    n_clusters : int, default=8
        Clusters for ``"kmeans"``.
    unseen : "nearest" or label, default="nearest"
        Label rule for a point in a cell holding no public point. ``"nearest"``:
        the point belongs to the occupied cell whose public centroid is nearest
        (Euclidean; ties broken by a fixed k-d tree over the centroids), so it
        takes that cell's label. A label of ``classes``: every such point gets that
        fixed label, under every member. Either rule depends on public data only.
    random_state : int, Generator or None, default=0
        Seed for ``"kmeans"``.

    See Also
    --------
    PartitionCover : The cover, with its factorized exponential mechanism.

    Notes
    -----
    With ``K`` classes and ``C`` occupied cells the cover has ``K ** C`` members,
    one per labeling of the occupied cells; these are exactly the labelings of the
    distinct public points that cell-constant functions realize (Alon, Bassily &
    Moran 2019, Alg. 1 steps 1-5), since each occupied cell holds a public point.

    :func:`sklearn.base.clone` keeps a fitted ``partitioner`` estimator as the
    same object rather than an unfitted copy, so the class can be cloned and
    grid-searched (e.g. ``hypothesis_class__n_bins``) inside an estimator.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses import PartitionLabelings
    >>> rng = np.random.default_rng(0)
    >>> cover = PartitionLabelings("quantile", n_bins=2).cover(rng.normal(size=(40, 2)))
    >>> cover.n_cells_, cover.size
    (4, 16)
    >>> X = rng.normal(size=(200, 2))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> member = cover.sample_exponential(X, y, epsilon=1.0, random_state=0)
    >>> cover.predict(member, [[2.0, 0.0], [-2.0, 0.0]]).tolist()
    [1, 0]
    """

    def __init__(
        self,
        partitioner="quantile",
        *,
        n_bins=4,
        depth=3,
        n_clusters=8,
        unseen="nearest",
        random_state=0,
    ):
        self.partitioner = partitioner
        self.n_bins = n_bins
        self.depth = depth
        self.n_clusters = n_clusters
        self.unseen = unseen
        self.random_state = random_state

    def __sklearn_clone__(self):
        # A fitted partitioner (public model) is kept as is: sklearn.base.clone
        # would replace it by an unfitted copy, which cannot cut the space.
        return _clone_sharing(self, ("partitioner",))

    def _fit_partition(self, X):
        partitioner = self.partitioner
        if isinstance(partitioner, str):
            if partitioner == "quantile":
                return QuantileGrid(X, check_integer(self.n_bins, "n_bins", 1))
            if partitioner == "kdtree":
                return MedianSplits(X, check_integer(self.depth, "depth", 0))
            if partitioner == "kmeans":
                n_clusters = check_integer(self.n_clusters, "n_clusters", 1)
                n_distinct = np.unique(X, axis=0).shape[0]
                seed = check_rng(self.random_state).integers(2**31 - 1)
                km = KMeans(
                    n_clusters=min(n_clusters, n_distinct), n_init=10, random_state=seed
                ).fit(X)
                return EstimatorCells(km, "cluster")
            raise ValueError(
                "partitioner must be 'quantile', 'kdtree', 'kmeans' or a fitted "
                f"estimator with apply or predict, got {partitioner!r}."
            )
        if not (hasattr(partitioner, "apply") or hasattr(partitioner, "predict")):
            raise TypeError(
                "partitioner estimator must have an apply or a predict method, got "
                f"{type(partitioner).__name__}."
            )
        check_is_fitted(partitioner)
        name = "leaf" if hasattr(partitioner, "apply") else "cell"
        return EstimatorCells(partitioner, name)

    def cover(self, X_public, classes=(0, 1)):
        """Fit the partition on public points and build the cover.

        Parameters
        ----------
        X_public : array-like of shape (n_public, n_features)
            Public points; never private ones.
        classes : array-like of shape (n_classes,), default=(0, 1)
            The label set.

        Returns
        -------
        cover : PartitionCover
        """
        X_public = check_points(X_public, "X_public")
        classes = check_classes(classes)
        if isinstance(self.unseen, str) and self.unseen == "nearest":
            unseen = None
        else:
            unseen = int(encode_labels(np.asarray([self.unseen]), classes, "unseen")[0])
        partition = self._fit_partition(X_public)
        return PartitionCover(partition, X_public, classes, unseen)


def _cell_means(X, cell, counts):
    """Mean of each cell's rows, finite for any finite rows.

    Plain sums overflow when a cell holds several rows near the largest
    float (1e308 + 1e308), and the k-d tree of the centroids then refused
    them: in LabelBoost, whose cover holds private points, one such row
    failed the fit after its charge (a review). Such a cell's mean is taken
    again from the rows divided by its count first, and kept finite.
    """
    sums = np.zeros((counts.size, X.shape[1]))
    with np.errstate(over="ignore", invalid="ignore"):
        np.add.at(sums, cell, X)
        means = sums / counts[:, None]
    bad = ~np.isfinite(means).all(axis=1)
    if bad.any():
        rows = bad[cell]
        scaled = np.zeros((counts.size, X.shape[1]))
        np.add.at(scaled, cell[rows], X[rows] / counts[cell[rows]][:, None])
        limit = np.finfo(np.float64).max
        means[bad] = np.clip(scaled[bad], -limit, limit)
    return means


class PartitionCover(Cover):
    """The cover of all labelings of the occupied cells of a public partition.

    Built by :meth:`PartitionLabelings.cover`.

    **Member encoding.** With ``K = len(classes_)`` and ``C = n_cells_``, member
    ``i`` gives occupied cell ``c`` the label ``classes_[codes[c]]`` where
    ``i = sum(codes[c] * K ** c for c in range(C))``: mixed radix, cell ``0`` the
    least significant digit. :meth:`decode` and :meth:`encode` convert.

    Parameters
    ----------
    partition : object
        Fitted partition (public).
    X_public : ndarray of shape (n_public, n_features)
        Validated public points.
    classes : ndarray of shape (n_classes,)
        Sorted label set.
    unseen : int or None
        Class index for points in unoccupied cells, or None for the nearest
        occupied cell by public centroid.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted label set.
    n_features_in_ : int
        Number of features.
    n_cells_ : int
        Number of occupied cells ``C``.
    centroids_ : ndarray of shape (``n_cells_``, n_features)
        Mean of the public points of each occupied cell.

    Notes
    -----
    **Privacy.** Cells, centroids and the unseen-cell rule come from public data.
    The private rows enter only through per-cell label counts: a row falls in one
    cell (or, with a fixed ``unseen`` label, in none), so adding, removing or
    replacing one row changes every member's score by at most 1 (sensitivity 1).
    With a fixed ``unseen`` label, rows outside the occupied cells add the same
    amount to every member's score: :meth:`scores` includes it, the sampler can
    ignore it because a constant shift leaves the exponential mechanism unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses import PartitionLabelings
    >>> cover = PartitionLabelings("kdtree", depth=1).cover([[0.0], [1.0], [2.0]])
    >>> cover.size
    4
    >>> for rule in cover.describe(cover.encode([1, 0])).split("; "):
    ...     print(rule)
    cell 0 [x[0] <= 1]: 1
    cell 1 [x[0] > 1]: 0
    elsewhere: the cell of the nearest public centroid
    """

    def _check_scorable(self):
        self._check_enumerable()

    def __init__(self, partition, X_public, classes, unseen):
        self.classes_ = classes
        self.n_features_in_ = X_public.shape[1]
        self._partition = partition
        public_keys = partition.keys(X_public)
        self._index = CellIndex(public_keys)
        cell = self._index.public_code
        self.n_cells_ = self._index.n_cells
        first = np.unique(cell, return_index=True)[1]
        self._keys = public_keys[first]
        counts = np.bincount(cell, minlength=self.n_cells_)
        self.centroids_ = _cell_means(X_public, cell, counts)
        self._unseen = unseen
        self._tree = KDTree(self.centroids_) if unseen is None else None

    @property
    def size(self):
        """Number of members ``K ** n_cells_`` (Python int)."""
        return self.classes_.size**self.n_cells_

    def apply(self, X):
        """Occupied cell of each row: index in ``[0, n_cells_)``, or -1.

        ``-1`` marks a row outside every occupied cell when ``unseen`` is a fixed
        label; with ``unseen="nearest"`` such a row gets the cell of the nearest
        public centroid instead.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        cells : ndarray of shape (n_samples,), dtype intp
        """
        X = check_points(X, "X", n_features=self.n_features_in_)
        return self._apply(X)

    def _apply(self, X):
        if X.shape[0] == 0:  # estimators refuse 0 rows; nothing to look up
            return np.zeros(0, dtype=np.intp)
        private_keys = getattr(self._partition, "private_keys", None)
        if private_keys is None:  # bins and k-d cells: comparisons, never fail
            cells = self._index.lookup(self._partition.keys(X)).astype(np.intp)
        else:
            keys, ok = private_keys(X)
            cells = np.where(ok, self._index.lookup(keys), -1).astype(np.intp)
        if self._tree is not None:
            outside = np.flatnonzero(cells < 0)
            if outside.size:
                # Per-point exact k-d tree query: the same row always maps to the
                # same cell, whatever else is in the batch.
                # errstate: the tree's input check sums the rows, which
                # overflows (a spurious RuntimeWarning) on finite rows near
                # the largest float; their nearest centroid is still exact.
                with np.errstate(over="ignore", invalid="ignore"):
                    nearest = self._tree.query(X[outside], k=1, return_distance=False)
                cells[outside] = nearest[:, 0]
        return cells

    def _cell_counts(self, X, y):
        """Private label counts per occupied cell, and the rows labelled by the
        fixed unseen rule that it gets right (the same for every member)."""
        # The only private read of this cover. Each row adds 1 to one entry of
        # counts (or to fixed_correct), so every member's score -- a sum of one
        # entry per cell plus fixed_correct -- has sensitivity 1 under add/remove
        # and replace-one.
        X, codes = self._check_private(X, y)
        cells = self._apply(X)
        inside = cells >= 0
        k = self.classes_.size
        counts = np.bincount(
            cells[inside] * k + codes[inside], minlength=self.n_cells_ * k
        ).reshape(self.n_cells_, k)
        fixed_correct = int(np.sum(codes[~inside] == self._unseen))
        return counts.astype(np.int64), fixed_correct

    def scores(self, X, y):
        """Number of private rows each member labels correctly.

        Only for covers of at most ``10**7`` members; larger ones must be sampled
        with :meth:`sample_exponential`, which never enumerates members.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private points.
        y : array-like of shape (n_samples,)
            Private labels, elements of ``classes_``.

        Returns
        -------
        scores : ndarray of shape (size,), dtype int64

        Raises
        ------
        ValueError
            If the cover has more than ``10**7`` members: use
            :meth:`sample_exponential`.
        """
        self._check_enumerable()
        counts, fixed_correct = self._cell_counts(X, y)
        # Mixed radix, cell 0 least significant: prepend cells from the last.
        total = counts[-1]
        for c in range(self.n_cells_ - 2, -1, -1):
            total = (total[:, None] + counts[c][None, :]).ravel()
        return total + fixed_correct

    def _check_cell_base(self, log_base_measure):
        base = np.asarray(log_base_measure)
        shape = (self.n_cells_, self.classes_.size)
        if base.shape != shape:
            raise ValueError(
                "log_base_measure must have shape (n_cells_, n_classes) = "
                f"{shape} or (size,), got {base.shape}."
            )
        # The mechanisms' own check (real dtype, no NaN, no +inf; -inf excludes),
        # applied to the per-cell table entry by entry.
        base = check_log_base_measure(base.reshape(-1), None).reshape(shape)
        if not np.isfinite(base).any(axis=1).all():
            raise ValueError("log_base_measure gives some cell no allowed label.")
        return base

    def cell_log_probabilities(self, X, y, epsilon, *, log_base_measure=None):
        """Exact log-probabilities of each cell's label under the mechanism.

        ``P(member) = prod_c P_c(codes[c])`` with ``P_c(k) ∝ base[c, k]
        exp(epsilon * counts[c, k] / 2)``, which is the exponential mechanism over
        all members (see :meth:`sample_exponential`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private points.
        y : array-like of shape (n_samples,)
            Private labels.
        epsilon : float
            Privacy parameter.
        log_base_measure : array-like of shape (``n_cells_``, n_classes), default=None
            Data-independent per-cell log prior (a product base measure).

        Returns
        -------
        log_proba : ndarray of shape (``n_cells_``, n_classes)
        """
        epsilon = check_epsilon(epsilon)
        logits = self._cell_logits(X, y, epsilon, log_base_measure)
        return logits - logsumexp(logits, axis=1, keepdims=True)

    def _cell_logits(self, X, y, epsilon, log_base_measure):
        counts, _ = self._cell_counts(X, y)
        # Score sensitivity 1 -> exponent epsilon * score / 2 (McSherry & Talwar),
        # every cell shifted by its best count first (the same distribution):
        # at a huge epsilon the unshifted exponent overflowed to inf, and
        # inf - inf broke the ties deterministically.
        if log_base_measure is None:
            best = counts.max(axis=1, keepdims=True)
        else:
            base = self._check_cell_base(log_base_measure)
            allowed = np.isfinite(base)
            # The best count among the labels the base allows (a review: an
            # excluded label's count made every allowed logit -inf).
            best = np.where(allowed, counts, -np.inf).max(axis=1, keepdims=True)
        # The mechanisms' overflow-safe exponent epsilon (counts - best) / 2.
        logits = scaled_gaps(epsilon / 2.0, counts, best)
        if log_base_measure is not None:
            with np.errstate(invalid="ignore"):
                logits = logits + base
            logits[~allowed] = -np.inf
        return logits

    def sample_exponential(
        self, X, y, epsilon, *, log_base_measure=None, random_state=None
    ):
        """Draw a member with the exponential mechanism, one cell at a time.

        The score of a member is a sum over cells, ``score(i) = sum_c
        counts[c, codes_i[c]]`` (plus a constant), so ``P(i) ∝ exp(epsilon *
        score(i) / 2) = prod_c exp(epsilon * counts[c, codes_i[c]] / 2)``: a product
        distribution. Drawing every cell's label independently from its own factor,
        each at the full ``epsilon``, therefore samples *exactly* the exponential
        mechanism over all ``K ** C`` members, which is epsilon-DP because the total
        score has sensitivity 1. This is one mechanism, not a composition of
        per-cell mechanisms, so no budget is split. Cost ``O(n + C K)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private points.
        y : array-like of shape (n_samples,)
            Private labels.
        epsilon : float
            Privacy parameter.
        log_base_measure : array-like of shape (``n_cells_``, n_classes) or (size,), \
                default=None
            Data-independent log prior. Shape ``(n_cells_, n_classes)`` is a
            product measure and keeps the factorization; shape ``(size,)`` (covers
            of at most ``10**7`` members) samples over all members at once.
        random_state : None, int or Generator
            Source of randomness.

        Returns
        -------
        member : int
        """
        epsilon = check_epsilon(epsilon)
        rng = check_rng(random_state)
        if log_base_measure is not None and np.ndim(log_base_measure) == 1:
            return self._sample_enumerated(X, y, epsilon, log_base_measure, rng)
        logits = self._cell_logits(X, y, epsilon, log_base_measure)
        # One exponential-mechanism draw per cell (row of logits), all cells at
        # once; their product is the mechanism over all K ** C members.
        codes = _gumbel_max(logits, rng)
        return self.encode(codes)

    def _sample_enumerated(self, X, y, epsilon, log_base_measure, rng):
        self._check_enumerable()
        shape = np.shape(log_base_measure)
        if shape != (self.size,):
            raise ValueError(
                f"A 1-D log_base_measure must have shape (size,) = ({self.size},), "
                f"got {shape}. Use shape (n_cells_, n_classes) for a per-cell prior."
            )
        # Every member scored, then the enumerating exponential mechanism of
        # Cover (sensitivity 1), which validates the base measure.
        return super().sample_exponential(
            X, y, epsilon, log_base_measure=log_base_measure, random_state=rng
        )

    def decode(self, member):
        """Class index of every occupied cell under member ``member``.

        Parameters
        ----------
        member : int
            Index of the member, ``sum(codes[c] * K ** c)``.

        Returns
        -------
        codes : ndarray of shape (``n_cells_``,), dtype intp
        """
        member = self._check_member(member)
        k = self.classes_.size
        codes = np.empty(self.n_cells_, dtype=np.intp)
        for c in range(self.n_cells_):
            member, codes[c] = divmod(member, k)
        return codes

    def encode(self, codes):
        """Member index of a labeling of the occupied cells.

        Parameters
        ----------
        codes : array-like of shape (``n_cells_``,)
            Class index (into ``classes_``) of every occupied cell.

        Returns
        -------
        member : int
        """
        codes = np.asarray(codes)
        k = self.classes_.size
        if (
            codes.shape != (self.n_cells_,)
            or not np.issubdtype(codes.dtype, np.integer)
            or np.any((codes < 0) | (codes >= k))
        ):
            raise ValueError(
                f"codes must be {self.n_cells_} integers in [0, {k}), got {codes!r}."
            )
        member = 0
        for code in codes[::-1].tolist():
            member = member * k + code
        return member

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
        codes = self.decode(member)
        cells = self.apply(X)
        inside = cells >= 0
        labels = np.full(cells.size, -1 if self._unseen is None else self._unseen)
        labels[inside] = codes[cells[inside]]
        return self.classes_[labels]

    def describe(self, member, *, feature_names=None):
        """Human-readable rule of member ``member``: the label of every cell.

        Parameters
        ----------
        member : int
            Index of the member.
        feature_names : array-like of str of shape (``n_features_in_``,), default=None
            Names to print for the features in the cells' rules; None prints
            ``x[j]``. Cells of a fitted estimator (clusters, leaves) are named
            by their id and print no feature.

        Returns
        -------
        text : str
        """
        codes = self.decode(member)
        names = feature_labels(feature_names, self.n_features_in_)
        rules = [
            f"cell {c} [{self._partition.describe(self._keys[c], names)}]: "
            f"{self.classes_[codes[c]]}"
            for c in range(self.n_cells_)
        ]
        if self._unseen is None:
            rules.append("elsewhere: the cell of the nearest public centroid")
        else:
            rules.append(f"elsewhere: {self.classes_[self._unseen]}")
        return "; ".join(rules)
