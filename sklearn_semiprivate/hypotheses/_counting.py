"""Count private values at or below public thresholds, per class, without sorting.

Stump, threshold and interval covers score every member from one table per
feature: ``count[i, l]``, the number of private rows of class ``l`` with
``x <= t_i`` for the sorted public thresholds ``t``. It is a histogram of the
private values over the ``m + 1`` cells the thresholds cut the line into,
accumulated: every private value is *located* among the thresholds once.

:func:`locate` equals ``np.searchsorted(thresholds, values, side="left")``
exactly. It starts each value from a lower bound read in a table of cells,
steps forward past the thresholds below it, and binary-searches only the few
values still behind. The lower bound holds by monotonicity alone (see
:func:`locate`), so rounding cannot make the result differ from
``searchsorted``. The cells are equal in width (:class:`_UniformGrid`) or, for
positive log-spread values, equal in relative width (:class:`_BinadeGrid`, on
the bits of the floats); the kind and range are chosen, and the table built,
from the public thresholds only.

Why: sorting every private column, the previous method, is ``O(n log n)`` and
was most of ``fit`` in ``benchmarks/bench_semiprivate.py``; this is a few passes
over the column. Rows are taken in chunks of reused buffers that stay in cache,
and a chunk's columns are copied out together, because reading one column of a
C-ordered matrix streams the whole matrix through memory.
"""

import numpy as np

# Cells per threshold of the uniform grid. With one forward step, only values in
# cells holding 2 or more thresholds can be binary-searched: about 1% of a
# Gaussian sample at 16, half of which is searched (measured; 8 cells search
# more, 32 make the table outgrow the cache and slow every lookup). The table
# costs 4 bytes per cell: 64 per threshold, at most 16 MiB per column.
_CELLS_PER_THRESHOLD = 16
_STEPS = 1
_MAX_CELLS = 2**22
# Above this estimated share of values in crowded cells, plain binary search.
_MAX_SEARCHED = 0.5
# Below this many thresholds a binary search is already a few comparisons.
_MIN_THRESHOLDS = 64
# Candidate trims of the grid's range, as fractions of the thresholds dropped at
# each end (they fall in the two end cells): robust to heavy public tails.
_TRIMS = (0.0, 0.001, 0.01, 0.05)
# Gaps on each side of a crowded cell over which the public density is averaged.
_DENSITY_GAPS = 8
# Rows per chunk.
_CHUNK = 2**16


class _Grid:
    """Cells over a range of sorted thresholds, from the thresholds alone.

    A subclass defines the cell map ``cells``, which must be non-decreasing in
    ``x`` for every finite float64 ``x``: then ``c(t) < c(x)`` implies
    ``t < x``, which is all :func:`locate` relies on. Thresholds and values go
    through the same float64 map.
    """

    def __init__(self, thresholds, n_cells):
        self.n_cells = n_cells
        self.thresholds = np.asarray(thresholds, dtype=np.float64)
        # Non-decreasing, as the map is: the thresholds in cells before c are the
        # first below[c] of them, and cell c holds held[c] more.
        self._held = np.bincount(self.cells(self.thresholds), minlength=n_cells + 1)
        self.table = None

    def build(self):
        """Tabulate ``below`` per cell; only the chosen candidate is built."""
        below = np.cumsum(self._held)
        below -= self._held
        self.table = below.astype(np.int32)
        del self._held  # 8 bytes per cell, no longer needed
        # +inf past the last threshold: stepping stops there
        self.padded = np.append(self.thresholds, np.inf)
        return self

    def searched_mass(self):
        """Estimated share of values in crowded cells, which may be binary-searched.

        A cell is crowded when it holds more than ``_STEPS`` thresholds; about
        half of a smooth distribution's values in such cells get searched, so
        this is an upper estimate of the searched share.

        Public-only. An inner cell's mass is its width times the density of
        thresholds around its middle one (``1 / (m + 1)`` per gap, over
        ``_DENSITY_GAPS`` gaps on each side), capped by the gaps it spans,
        ``(h + 1) / (m + 1)`` for ``h`` thresholds held; an end cell, unbounded,
        gets that cap.
        """
        t, held = self.thresholds, self._held
        m = t.size
        crowded = np.flatnonzero(held > _STEPS)
        h = held[crowded]
        cap = (h + 1) / (m + 1)
        middle = np.cumsum(held)[crowded] - h + h // 2
        lo = np.maximum(middle - _DENSITY_GAPS, 0)
        hi = np.minimum(middle + _DENSITY_GAPS, m - 1)
        inner = (crowded > 0) & (crowded < self.n_cells)
        mass = cap.copy()
        # An estimate: an overflow is capped below, an underflow is a share of 0.
        with np.errstate(over="ignore", divide="ignore", under="ignore"):
            # width over span first: both may be subnormal, their ratio rarely is
            share = self.widths(crowded[inner]) / (t[hi] - t[lo])[inner]
            density_mass = share * ((hi - lo)[inner] / (m + 1))
            mass[inner] = np.minimum(density_mass, cap[inner])
        return float(mass.sum())

    def locate(self, values, out, work):
        """``searchsorted(thresholds, values, "left")`` into ``out`` (int32).

        ``values``: contiguous float64. ``work``: buffers as long as ``values``
        (float, int32, float, bool).
        """
        scratch, cells, compared, behind = work
        self.cells(values, scratch, cells)
        np.take(self.table, cells, out=out)  # a lower bound (see `locate`)
        for step in range(_STEPS + 1):
            np.take(self.padded, out, out=compared)
            np.less(compared, values, out=behind)  # next threshold still below?
            if step < _STEPS:
                out += behind
        late = np.flatnonzero(behind)
        if late.size:
            out[late] = np.searchsorted(self.thresholds, values[late], side="left")
        return out


class _UniformGrid(_Grid):
    """Cells of equal width over ``[origin, origin + n_cells / scale]``.

    The map ``x -> trunc(clip((x - origin) * scale, 0, n_cells))`` is
    non-decreasing whatever the rounding: subtraction and product rounded to
    nearest, clip and truncation are each non-decreasing. ``scale`` is positive
    and finite, so no NaN appears.
    """

    def __init__(self, thresholds, origin, scale, n_cells):
        self.origin, self.scale = origin, scale
        super().__init__(thresholds, n_cells)

    def cells(self, values, scratch=None, out=None):
        """Cell of every value (into ``out``, int32, when given)."""
        # +-inf is clipped like any far value; an underflow rounds monotonically
        with np.errstate(over="ignore", under="ignore"):
            scratch = np.subtract(values, self.origin, out=scratch)
            scratch *= self.scale
        np.clip(scratch, 0.0, float(self.n_cells), out=scratch)
        if out is None:
            return scratch.astype(np.intp)
        out[...] = scratch  # truncation toward zero
        return out

    def widths(self, cells):
        """Width of each (inner) cell, for the searched-share estimate."""
        return np.full(cells.size, 1.0 / self.scale)


class _BinadeGrid(_Grid):
    """Cells of equal relative width over positive ``[lo, hi]``: for log-spread data.

    The map reads a float64's bits as an int64 ``k``, clips it to
    ``[k(lo), k(hi)]`` and keeps ``(k - k(lo)) >> shift``: every power of two
    gets the same number of cells (while ``shift`` is under the 52 bits of the
    fraction). Exact integer steps, non-decreasing: the
    bits of positive floats are ordered as the floats; zero, negative values
    (bits of either sign's zero or below) and everything under ``lo`` clip to
    cell 0, since ``lo > 0``.
    """

    def __init__(self, thresholds, lo, hi, target_cells):
        self.key_lo = int(np.float64(lo).view(np.int64))
        self.key_hi = int(np.float64(hi).view(np.int64))
        span = self.key_hi - self.key_lo
        shift = max(span.bit_length() - target_cells.bit_length(), 0)
        self.shift = shift + ((span >> shift) > target_cells)  # at most target
        super().__init__(thresholds, span >> self.shift)

    def cells(self, values, scratch=None, out=None):
        """Cell of every value (into ``out``, int32, when given)."""
        keys = np.ascontiguousarray(values, dtype=np.float64).view(np.int64)
        work = None if scratch is None else scratch.view(np.int64)
        work = np.clip(keys, self.key_lo, self.key_hi, out=work)
        work -= self.key_lo
        work >>= self.shift
        if out is None:
            return work.astype(np.intp)
        out[...] = work
        return out

    def widths(self, cells):
        """Width of each (inner) cell, for the searched-share estimate."""
        left = (self.key_lo + (cells.astype(np.int64) << self.shift)).view(np.float64)
        right = (self.key_lo + ((cells + 1).astype(np.int64) << self.shift)).view(
            np.float64
        )
        return right - left


def _candidate_grids(thresholds):
    """Unbuilt candidate grids, one or two per trim (none if few thresholds).

    Per trim: a uniform grid when its scale is positive and finite, and, when
    the trimmed range is positive, a binade grid.
    """
    m = thresholds.size
    if m < _MIN_THRESHOLDS:
        return []
    n_cells = min(_CELLS_PER_THRESHOLD * m, _MAX_CELLS)
    grids = []
    for trim in _TRIMS:
        k = int(trim * m)
        lo, hi = thresholds[k], thresholds[m - 1 - k]
        with np.errstate(divide="ignore", over="ignore"):
            scale = n_cells / (hi - lo) if hi > lo else np.inf
        if np.isfinite(scale) and scale > 0:
            grids.append(_UniformGrid(thresholds, float(lo), float(scale), n_cells))
        if 0 < lo < hi:
            grids.append(_BinadeGrid(thresholds, lo, hi, n_cells))
    return grids


def _choose_grid(thresholds):
    """The candidate grid with the least searched mass, built; or None.

    None when a binary search is as good: few thresholds, no candidate range
    with a positive finite scale, or most values in crowded cells (clustered or
    log-spread public values, for which uniform cells do not fit).
    """
    grids = _candidate_grids(thresholds)
    masses = [grid.searched_mass() for grid in grids]
    if not grids or min(masses) > _MAX_SEARCHED:
        return None
    return grids[int(np.argmin(masses))].build()


def _use_grid(n_values, thresholds):
    """A table of ``n_cells`` pays off once there are at least as many values."""
    return n_values > 0 and n_values >= min(
        _CELLS_PER_THRESHOLD * thresholds.size, _MAX_CELLS
    )


def _work_buffers(size):
    return (
        np.empty(size),
        np.empty(size, dtype=np.int32),
        np.empty(size),
        np.empty(size, dtype=bool),
    )


def locate(values, thresholds):
    """Number of thresholds strictly below each value: exact ``searchsorted``.

    Equal to ``np.searchsorted(thresholds, values, side="left")`` for finite
    1-D float64 values. With many values, a uniform grid of cells chosen from
    the thresholds alone gives each value ``x`` a lower bound ``below[c(x)]``,
    the number of thresholds in earlier cells. It is one, because the cell map ``c`` is
    non-decreasing: ``c(t) < c(x)`` implies ``t < x``. From there the location
    steps forward while the next threshold is below ``x`` (thresholds are
    sorted, so the count stays exact), and values still behind after
    ``_STEPS`` steps are binary-searched.

    Parameters
    ----------
    values : ndarray of shape (n,)
        Finite floats.
    thresholds : ndarray of shape (m,)
        Finite floats, sorted ascending.

    Returns
    -------
    location : ndarray of shape (n,), dtype intp

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses._counting import locate
    >>> locate(np.array([0.5, 1.0, 3.0]), np.array([1.0, 2.0])).tolist()
    [0, 0, 2]
    """
    values = np.asarray(values, dtype=np.float64)
    thresholds = np.asarray(thresholds, dtype=np.float64)
    grid = _choose_grid(thresholds) if _use_grid(values.size, thresholds) else None
    if grid is None:
        return np.searchsorted(thresholds, values, side="left")
    out = np.empty(values.size, dtype=np.int32)
    grid.locate(values, out, _work_buffers(values.size))
    return out.astype(np.intp)


def _histograms(X, thresholds, codes, n_classes):
    """Per column ``j``: ``hist[g, l]``, rows of class ``l`` located at ``g``.

    The location of ``x`` is ``searchsorted(thresholds[j], x, "left")``. Rows
    are taken in chunks (``_CHUNK`` rows) into reused buffers: a chunk's columns
    are copied out together (one pass over the chunk's memory), located from
    cache and histogrammed. No temporary grows with ``n``: fresh large arrays
    cost a page fault per page. A chunk is at least as long as the largest
    histogram, so adding a chunk's histogram costs no more than the chunk.
    """
    n = X.shape[0]
    n_bins = max(((t.size + 1) * n_classes for t in thresholds), default=0)
    if n_bins >= 2**31:
        raise ValueError(
            f"{n_bins} (location, class) cells do not fit 32-bit keys; use fewer "
            "public thresholds or classes."
        )
    grids = [_choose_grid(t) if _use_grid(n, t) else None for t in thresholds]
    hists = [np.zeros((t.size + 1) * n_classes, dtype=np.int64) for t in thresholds]
    size = max(min(n, max(_CHUNK, n_bins)), 1)
    columns = np.empty((len(thresholds), size))
    work = _work_buffers(size)
    key = np.empty(size, dtype=np.int32)  # < (m + 1) * n_classes
    for start in range(0, n, size):
        stop = min(start + size, n)
        b = stop - start
        columns[:, :b] = X[start:stop].T
        chunk_work = tuple(w[:b] for w in work)
        for j, grid in enumerate(grids):
            if not thresholds[j].size:
                continue  # no split on this column: nothing to count
            if grid is None:
                key[:b] = np.searchsorted(thresholds[j], columns[j, :b], side="left")
            else:
                grid.locate(columns[j, :b], key[:b], chunk_work)
            key[:b] *= n_classes
            key[:b] += codes[start:stop]
            hists[j] += np.bincount(key[:b], minlength=hists[j].size)
    return [h.reshape(-1, n_classes) for h in hists]


class ClassCounts:
    """Private rows' class codes, to count ``x <= t`` per class and threshold.

    ``count_at_most(X, thresholds)[j][i, l]`` is the number of rows of class
    ``l`` with ``X[:, j] <= thresholds[j][i]``: locate each value among the
    column's thresholds (:func:`locate`), histogram ``(location, class)``,
    accumulate. Time ``O(n + m * n_classes)`` per column plus a binary search
    for the values in crowded cells: few for smooth public data; for clustered
    or log-spread public values the grid is dropped and every value searched
    (``O(n log m)``). Memory per column: the histogram, ``O(m * n_classes)``,
    and the grid's table, 64 bytes per threshold; plus one chunk.

    Parameters
    ----------
    codes : ndarray of shape (n,)
        Class index of every private row, in ``0 .. n_classes - 1``.
    n_classes : int
        Number of classes.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses._counting import ClassCounts
    >>> counts = ClassCounts(np.array([0, 1, 1]), 2)
    >>> counts.totals.tolist()
    [1, 2]
    >>> X = np.array([[0.0], [1.0], [2.0]])
    >>> counts.count_at_most(X, [np.array([0.5, 1.0])])[0].tolist()
    [[1, 0], [1, 1]]
    """

    def __init__(self, codes, n_classes):
        self.n_classes = int(n_classes)
        self.totals = np.bincount(codes, minlength=self.n_classes).astype(np.int64)
        self._codes = np.asarray(codes, dtype=np.int32)

    def count_at_most(self, X, thresholds):
        """``out[j][i, l]``: rows of class ``l`` with ``X[:, j] <= thresholds[j][i]``.

        ``x <= t_i`` exactly when fewer than ``i + 1`` thresholds are below
        ``x``, i.e. ``locate(x) <= i``: a prefix sum over locations.

        Parameters
        ----------
        X : ndarray of shape (n, n_columns)
            Private values, row-aligned with ``codes``; any strides.
        thresholds : list of n_columns ndarrays
            Each sorted ascending, finite.

        Returns
        -------
        counts : list of ndarrays of shape (len(thresholds[j]), n_classes), int64
        """
        thresholds = [np.asarray(t, dtype=np.float64) for t in thresholds]
        hists = _histograms(X, thresholds, self._codes, self.n_classes)
        return [np.cumsum(h[:-1], axis=0) for h in hists]
