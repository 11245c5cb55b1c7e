"""Halfplanes in the plane: one member per labeling of the distinct public points.

Alon, Bassily & Moran (2019), Alg. 1 steps 1-5 for ``H`` = halfplanes in R²: the
cover holds one concrete halfplane for every labeling of the distinct public points
that some halfplane realizes, and nothing else. For ``m`` distinct points in general
position that is ``m² - m + 2`` labelings (Cover's function count: both constant
labelings plus ``m (m - 1)`` proper ones).

Enumeration without duplicates. A proper separable labeling ``(A, B)`` (``A`` the
points labeled ``classes[1]``) is realized by exactly one triple ``(L, d, j)``: a
line ``L`` through at least two distinct public points, a direction ``d`` along it,
and a cut ``1 <= j < k_L`` of the ``k_L`` public points on ``L``, with ``A`` = the
points strictly left of ``(L, d)`` plus the first ``j`` points on ``L`` along
``d``. (``L`` is the critical support line of ``conv(A)`` and ``conv(B)`` along
which ``A`` comes first; the other critical support line has ``B`` first.) Here the
triple is indexed by its *pivot* ``p``, the ``j``-th point on ``L``: for each pivot
and each ray from it holding other public points, one member. Its concrete line
passes through ``p`` and is the line ``L`` rotated counter-clockwise about ``p`` by
half the angular gap to the next public direction, so public points before ``p``
fall strictly left, those after ``p`` strictly right, and no other public point
changes side. In exact arithmetic the enumeration has no duplicates at all.

Floating point. Around each pivot, public directions closer than ``1e-13`` rad are
treated as one line (exactly collinear points always are); every other direction
is at least ``5e-14`` rad from each member's line, far above the ~``1e-15`` rad
error of the float predicate, so each member labels the public points exactly as
claimed (and this is checked for points near a boundary). For inputs where
distinct directions are that close (e.g. points meant to be collinear but computed
in floating point), a labeling realized only by lines within ``1e-13`` rad of such
a direction may be missing. Members are deduplicated exactly in every case: a
64-bit hash of each member's public labeling (prefix sums over the angular order)
finds candidate duplicates, whose labelings are then compared in full.

Tiny and huge offsets. A point whose offset from a pivot is below ``2**-1000`` in
every coordinate (but not zero), or overflows float64 (coordinates near
``±1e308``), may be labelled by the float predicate against its angle: a product
rounds to zero, or ``inf - inf`` is NaN. Such points, public or private, are
labelled by evaluating the predicate itself, so :meth:`HalfplaneCover.scores`,
:meth:`HalfplaneCover.predict` and the deduplication always agree exactly. On
such inputs a labeling that some exact halfplane realizes may be missing.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from ._base import (
    Cover,
    HypothesisClass,
    _hash_keys,
    check_classes,
    check_points,
    feature_labels,
)

__all__ = ["HalfplaneCover", "Halfplanes"]

_TWO_PI = 2.0 * np.pi
# Public directions around a pivot closer than this (radians) count as one line, so
# a mid-gap line is at least 5e-14 rad from every public direction, far above the
# ~1e-15 rad error of the float predicate w.(x - p).
_DIRECTION_TOL = 1e-13
# Points whose float angle is within this of a member's boundary are labelled with
# the exact floating-point predicate of ``predict`` rather than by angular order.
_WINDOW = 1e-9
# Offsets ``d = x - p`` from a pivot whose largest component is below this, or
# that overflowed to infinity, are labelled with the predicate of ``predict``
# itself, never by angular order. Above it, outside the window, the angular side
# provably equals the float sign of ``w . d``: the exact ``|w . d|`` is at least
# ``|d| sin(1e-9 - 1e-15) > 9.9e-10 * 2**-1000 ~ 9e-311``, while rounding errs by
# at most ``2**-52 |d|`` relative plus ``2**-1073`` absolute (products that
# underflow to subnormals or to zero), a margin above 1e12. Below it (e.g. a private
# point at the pivot plus 5e-324) a product can round to zero and flip the side.
_TINY = 2.0**-1000
# Largest boolean (member x row) block the direct predicate evaluates at once.
_DIRECT_BLOCK = 2**20


def _concat_ranges(starts, stops):
    """Owners and positions of the concatenated ranges ``starts[k]:stops[k]``."""
    lengths = stops - starts
    owner = np.repeat(np.arange(starts.size), lengths)
    first = np.cumsum(lengths) - lengths
    positions = starts[owner] + np.arange(owner.size) - first[owner]
    return owner, positions


def _boundary_windows(ext, lo, hi):
    """(member, position) pairs whose extended angle is near ``lo`` or ``hi``.

    ``ext`` is the sorted angles in ``(-pi, pi]`` followed by the same plus
    ``2 pi``; ``lo`` in ``[0, 2 pi)`` and ``hi = lo + pi``. Every point whose angle
    is within ``_WINDOW`` of a boundary (mod ``2 pi``) has a copy in these windows,
    and no (member, point) pair appears twice (the boundaries are ``pi`` apart).
    """
    owners, positions = [], []
    for bound in (lo, hi):
        starts = np.searchsorted(ext, bound - _WINDOW, side="left")
        stops = np.searchsorted(ext, bound + _WINDOW, side="right")
        owner, position = _concat_ranges(starts, stops)
        owners.append(owner)
        positions.append(position)
    return np.concatenate(owners), np.concatenate(positions)


def _offsets(X, p):
    """``X - p`` in float64; an overflow gives ``inf`` (then labelled directly)."""
    with np.errstate(over="ignore"):
        return X - p


def _side(normal, d):
    # The one predicate of a proper member, shared by predict and scores so both
    # label every point identically: closed halfplane w.(x - p) >= 0 -> classes[1].
    # Infinite offsets may give inf - inf = NaN, which is labelled classes[0].
    with np.errstate(over="ignore", invalid="ignore"):
        return normal[..., 0] * d[..., 0] + normal[..., 1] * d[..., 1] >= 0


def _needs_direct(d):
    """Offsets (not at the pivot) whose angular side may differ from ``_side``."""
    size = np.maximum(np.abs(d[..., 0]), np.abs(d[..., 1]))
    return (size != 0) & ~((size >= _TINY) & (size < np.inf))


def _direct_sums(normal, d, weights):
    """Per member, the sum of ``weights[r]`` over the rows ``r`` of ``d`` that
    ``_side`` labels ``classes_[1]``, shape ``(n_members, weights.shape[1])``.

    The predicate evaluated as is, one block of at most ``_DIRECT_BLOCK``
    (member, row) pairs at a time, so memory stays bounded. Only for the rare
    offsets of :func:`_needs_direct`. Integer sums wrap modulo ``2**64`` like the
    labeling hashes.
    """
    k = normal.shape[0]
    out = np.zeros((k, weights.shape[1]), dtype=weights.dtype)
    step = max(1, _DIRECT_BLOCK // max(k, 1))
    for start in range(0, d.shape[0], step):
        side = _side(normal[:, None, :], d[None, start : start + step])
        out += side.astype(weights.dtype) @ weights[start : start + step]
    return out


def _pivot_members(P, i):
    """Line angles of the members pivoted at public point ``P[i]``.

    Returns the sorted angles ``lo`` in ``[0, 2 pi)`` of the member lines (one per
    ray from the pivot holding other public points; a member labels ``classes[1]``
    the open arc ``(lo, lo + pi)`` of directions and its line), then the angles
    and offsets ``D = P[j] - P[i]`` of the other public points.
    """
    p = P[i]
    others = np.delete(P, i, axis=0)
    D = _offsets(others, p)
    ang = np.arctan2(D[:, 1], D[:, 0])
    lin = np.mod(ang, np.pi)
    order = np.argsort(lin, kind="stable")
    s = lin[order]
    gaps = np.empty_like(s)
    gaps[:-1] = np.diff(s)
    gaps[-1] = s[0] + np.pi - s[-1]
    breaks = gaps > _DIRECTION_TOL
    # Start at a break so that no line's points wrap around the sequence end.
    first = (int(np.argmax(breaks)) + 1) % s.size
    roll = np.roll(np.arange(s.size), -first)
    order, s, gaps, breaks = order[roll], s[roll], gaps[roll], breaks[roll]
    line_id = np.concatenate(([0], np.cumsum(breaks[:-1])))
    n_lines = int(line_id[-1]) + 1
    line_start = np.searchsorted(line_id, np.arange(n_lines), side="left")
    line_last = np.append(line_start[1:], s.size) - 1

    # Direction of each line (its last element) and half the gap to the next one.
    direction = s[line_last]
    delta = gaps[line_last] / 2.0
    # Rays: a point is on the forward ray (angle ~ direction) or the backward one.
    forward = np.cos(ang[order] - direction[line_id]) > 0
    has_forward = np.bincount(line_id[forward], minlength=n_lines) > 0
    has_backward = np.bincount(line_id[~forward], minlength=n_lines) > 0
    # Member for ray angle rho: line through p at angle rho + delta; the ray's
    # points fall right of it, the opposite ray's points left, p on it.
    phi = np.concatenate(
        (
            direction[has_forward] + delta[has_forward],
            direction[has_backward] + np.pi + delta[has_backward],
        )
    )
    return np.sort(np.mod(phi, _TWO_PI)), ang, D


def _arc_hashes(lo, normal, ang, D, keys):
    """Sum (mod 2**64) of the keys of the public points each member labels
    ``classes_[1]``, the pivot excluded, by prefix sums over the angular order.

    Also checks the float predicate of ``predict`` on every public point near a
    member's boundary: it must agree with the point's angular side, which is
    decided with a margin of at least half a direction gap (>= 5e-14 rad).
    Points of :func:`_needs_direct` (tiny or overflowing offsets) are left out of
    the angular sums and hashed by the predicate itself, so the hash is always
    that of the labeling ``predict`` gives.
    """
    direct = _needs_direct(D)
    order = np.argsort(ang, kind="stable")
    ext = np.concatenate((ang[order], ang[order] + _TWO_PI))
    arc_keys = np.where(direct, np.uint64(0), keys)[order]
    cum = np.zeros(2 * ang.size + 1, dtype=np.uint64)
    np.cumsum(np.concatenate((arc_keys, arc_keys)), out=cum[1:])
    hi = lo + np.pi
    first = np.searchsorted(ext, lo, side="right")
    stop = np.searchsorted(ext, hi, side="left")
    owner, position = _boundary_windows(ext, lo, hi)
    point = order[position % ang.size]
    checked = ~direct[point]
    owner, position, point = owner[checked], position[checked], point[checked]
    arc = (lo[owner] < ext[position]) & (ext[position] < hi[owner])
    claimed = np.mod(ang[point] - lo[owner], _TWO_PI) < np.pi
    actual = _side(normal[owner], D[point])
    if np.any(arc != claimed) or np.any(actual != claimed):
        raise RuntimeError(
            "A halfplane member could not be placed strictly between public points "
            "in float64; please report this with the public points."
        )
    hashes = cum[stop] - cum[first]
    if direct.any():
        hashes += _direct_sums(normal, D[direct], keys[direct][:, None])[:, 0]
    return hashes


class Halfplanes(HypothesisClass):
    """Halfplanes in R², covered by one halfplane per public labeling.

    A member labels ``x`` with ``classes[1]`` when ``w · x >= b`` (a closed
    halfplane) and ``classes[0]`` otherwise; the two constant labelings are members
    too. :meth:`cover` keeps exactly one member for each labeling of the distinct
    public points realized by some halfplane (Alon, Bassily & Moran 2019, Alg. 1
    steps 1-5): ``m² - m + 2`` members for ``m`` points in general position, fewer
    with collinear points.

    See Also
    --------
    HalfplaneCover : The cover, with its private scoring.

    Notes
    -----
    Construction costs ``O(m² log m)`` time on public points only.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses import Halfplanes
    >>> rng = np.random.default_rng(0)
    >>> cover = Halfplanes().cover(rng.normal(size=(5, 2)))
    >>> cover.size
    22
    >>> X = rng.normal(size=(50, 2))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> scores = cover.scores(X, y)
    >>> int(scores.max()) <= 50
    True
    """

    def cover(self, X_public, classes=(0, 1)):
        """Build the cover from public points only.

        Parameters
        ----------
        X_public : array-like of shape (n_public, 2)
            Public points; duplicates are merged (Alg. 1 step 1).
        classes : array-like of shape (2,), default=(0, 1)
            The two labels; members label ``w · x >= b`` with ``classes[1]``.

        Returns
        -------
        cover : HalfplaneCover
        """
        X_public = check_points(X_public, "X_public")
        if X_public.shape[1] != 2:
            raise ValueError(
                f"Halfplanes needs 2 features, X_public has {X_public.shape[1]}."
            )
        classes = check_classes(classes)
        if classes.size != 2:
            raise ValueError(
                f"Halfplanes is a binary class, got classes={classes.tolist()}."
            )
        return HalfplaneCover(X_public, classes)


class HalfplaneCover(Cover):
    """The halfplane cover of a public point set.

    Built by :meth:`Halfplanes.cover`. Member ``0`` is the constant ``classes_[0]``,
    member ``1`` the constant ``classes_[1]``; member ``2 + t`` is the ``t``-th
    proper halfplane, ordered by pivot (a distinct public point on its line) and
    then by line angle.

    Parameters
    ----------
    X_public : ndarray of shape (n_public, 2)
        Validated public points.
    classes : ndarray of shape (2,)
        Sorted label set.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        Labels; proper members give ``classes_[1]`` on their closed halfplane.
    n_features_in_ : int
        Always 2.
    points_ : ndarray of shape (m, 2)
        The distinct public points, sorted.
    pivot_ : ndarray of shape (size - 2,)
        Index into ``points_`` of the point each proper member's line goes through.
    normal_ : ndarray of shape (size - 2, 2)
        Unit normal ``w`` of each proper member.

    Notes
    -----
    **Tie convention.** A proper member with normal ``w`` through pivot ``p``
    labels ``x`` with ``classes_[1]`` exactly when the floating-point value
    ``w[0] * (x[0] - p[0]) + w[1] * (x[1] - p[1])`` is ``>= 0``: the closed
    halfplane ``w · x >= b`` with ``b = w · p``, evaluated in this form. Points on
    the line, the pivot and its duplicates included, get ``classes_[1]``.
    :meth:`scores` counts with the very same predicate: points whose angle around
    the pivot is within ``1e-9`` rad of a member's line, or whose offset from the
    pivot is tiny (below ``2**-1000``) or overflows, are labelled by evaluating it
    directly, all others by their angular position, where the two provably
    agree. No public point other than the pivot lies on a member's line.

    **Privacy.** The cover depends on public points only; :meth:`scores` is the one
    private read (sensitivity 1, add/remove and replace-one).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses import Halfplanes
    >>> cover = Halfplanes().cover([[0, 0], [1, 0], [0, 1]])
    >>> cover.size
    8
    >>> cover.predict(1, [[5.0, 5.0]]).tolist()
    [1]
    """

    def __init__(self, X_public, classes):
        self.classes_ = classes
        self.n_features_in_ = 2
        # Alg. 1 step 1: distinct public points (+0.0 merges -0.0 with 0.0).
        points = np.unique(X_public + 0.0, axis=0)
        self.points_ = points
        m = points.shape[0]
        keys = _hash_keys(m)
        los, hashes = [np.empty(0)], [np.array([0, keys.sum()], dtype=np.uint64)]
        counts = np.zeros(m, dtype=np.intp)
        for i in range(m if m > 1 else 0):
            lo, ang, D = _pivot_members(points, i)
            normal = np.column_stack((-np.sin(lo), np.cos(lo)))
            # The pivot is on the line, hence labelled classes_[1].
            hashes.append(_arc_hashes(lo, normal, ang, D, np.delete(keys, i)) + keys[i])
            los.append(lo)
            counts[i] = lo.size
        self._lo = np.concatenate(los)
        self.normal_ = np.column_stack((-np.sin(self._lo), np.cos(self._lo)))
        self.pivot_ = np.repeat(np.arange(m), counts)
        # Alg. 1 steps 2-5: one member per labeling. Distinct hashes are distinct
        # labelings; equal hashes are compared in full, keeping the first member.
        keep = self._first_of_each_labeling(np.concatenate(hashes))
        self._lo = self._lo[keep[2:]]
        self.normal_ = self.normal_[keep[2:]]
        self.pivot_ = self.pivot_[keep[2:]]
        counts = np.bincount(self.pivot_, minlength=m)
        self._bounds = np.concatenate(([0], np.cumsum(counts)))

    def _first_of_each_labeling(self, hashes):
        order = np.argsort(hashes, kind="stable")
        same = hashes[order[1:]] == hashes[order[:-1]]
        in_group = np.zeros(hashes.size, dtype=bool)
        in_group[order[1:]] |= same
        in_group[order[:-1]] |= same
        candidates = np.flatnonzero(in_group)
        keep = np.ones(hashes.size, dtype=bool)
        if candidates.size:
            labels = self._public_labels(candidates)
            first = np.unique(labels, axis=0, return_index=True)[1]
            keep[candidates] = False
            keep[candidates[first]] = True
        return keep

    def _public_labels(self, members):
        """Boolean labels (True = classes_[1]) of members on ``points_``."""
        labels = np.empty((members.size, self.points_.shape[0]), dtype=bool)
        constant = members < 2
        labels[constant] = (members[constant] == 1)[:, None]
        proper = members[~constant] - 2
        d = _offsets(
            self.points_[None, :, :], self.points_[self.pivot_[proper]][:, None, :]
        )
        labels[~constant] = _side(self.normal_[proper][:, None, :], d)
        return labels

    @property
    def size(self):
        """Number of members (Python int)."""
        return 2 + int(self._lo.size)

    def halfplane(self, member):
        """The halfplane ``(w, b)`` of a member: ``classes_[1]`` where ``w·x >= b``.

        Parameters
        ----------
        member : int
            Index of the member.

        Returns
        -------
        w : ndarray of shape (2,)
            Normal (zero for the two constant members).
        b : float
            Offset: ``w · p`` for the pivot ``p``; ``1`` for the constant
            ``classes_[0]`` and ``-1`` for the constant ``classes_[1]``.

        Examples
        --------
        >>> from sklearn_semiprivate.hypotheses import Halfplanes
        >>> w, b = Halfplanes().cover([[0, 0], [1, 0]]).halfplane(0)
        >>> w.tolist(), b
        ([0.0, 0.0], 1.0)
        """
        member = self._check_member(member)
        if member < 2:
            return np.zeros(2), 1.0 - 2.0 * member
        w = self.normal_[member - 2]
        p = self.points_[self.pivot_[member - 2]]
        return w.copy(), float(w[0] * p[0] + w[1] * p[1])

    def scores(self, X, y):
        """Number of private rows each member labels correctly.

        Angular sweep around each public pivot: the private points are sorted by
        angle once per pivot and every member through that pivot is counted by two
        binary searches into label prefix sums. Time ``O(m (n + m) log(n + m))``,
        memory ``O(n + m)`` beyond the output; no ``n x size`` matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, 2)
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
        is_one = codes == 1
        n_one = int(is_one.sum())
        n_zero = codes.size - n_one
        out = np.empty(self.size, dtype=np.int64)
        out[0], out[1] = n_zero, n_one
        for i in np.flatnonzero(np.diff(self._bounds)):
            start, stop = self._bounds[i], self._bounds[i + 1]
            pos_one, pos_all = self._positives(
                X,
                is_one,
                self.points_[i],
                self._lo[start:stop],
                self.normal_[start:stop],
            )
            pos_zero = pos_all - pos_one
            out[2 + start : 2 + stop] = pos_one + (n_zero - pos_zero)
        return out

    @staticmethod
    def _positives(X, is_one, p, lo, normal):
        """Per member through ``p``: rows labelled ``classes_[1]`` by it (of label
        1, and in all), counted by angular order and window corrections."""
        d = _offsets(X, p)
        at_pivot = (d[:, 0] == 0) & (d[:, 1] == 0)
        direct = _needs_direct(d)
        rest = np.flatnonzero(~at_pivot & ~direct)
        ang = np.arctan2(d[rest, 1], d[rest, 0])
        order = np.argsort(ang, kind="stable")
        rest = rest[order]
        ext = np.concatenate((ang[order], ang[order] + _TWO_PI))
        ones = np.concatenate((is_one[rest], is_one[rest]))
        cum_one = np.concatenate(([0], np.cumsum(ones, dtype=np.int64)))
        hi = lo + np.pi
        first = np.searchsorted(ext, lo, side="right")
        stop = np.searchsorted(ext, hi, side="left")
        # Rows strictly inside the float arc (lo, hi), before correction.
        pos_one = cum_one[stop] - cum_one[first]
        pos_all = (stop - first).astype(np.int64)
        # Near a boundary, replace the arc test by the predicate predict uses.
        owner, position = _boundary_windows(ext, lo, hi)
        if owner.size:
            row = rest[position % rest.size]
            arc = (lo[owner] < ext[position]) & (ext[position] < hi[owner])
            change = _side(normal[owner], d[row]).astype(np.int64) - arc
            k = lo.size
            pos_all += np.bincount(owner, weights=change, minlength=k).astype(np.int64)
            pos_one += np.bincount(
                owner, weights=change * is_one[row], minlength=k
            ).astype(np.int64)
        # Tiny or overflowing offsets: the predicate of predict, evaluated as is.
        if direct.any():
            weights = np.column_stack((is_one[direct], np.ones(int(direct.sum()))))
            sums = _direct_sums(normal, d[direct], weights.astype(np.int64))
            pos_one += sums[:, 0]
            pos_all += sums[:, 1]
        # Rows equal to the pivot sit on every member's line: classes_[1].
        pos_one += int(is_one[at_pivot].sum())
        pos_all += int(at_pivot.sum())
        return pos_one, pos_all

    def predict(self, member, X):
        """Labels given by member ``member`` to the rows of ``X``.

        Parameters
        ----------
        member : int
            Index of the member.
        X : array-like of shape (n_samples, 2)
            Points to label.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        member = self._check_member(member)
        X = check_points(X, "X", n_features=2)
        if member < 2:
            return np.full(X.shape[0], self.classes_[member])
        d = _offsets(X, self.points_[self.pivot_[member - 2]])
        side = _side(self.normal_[member - 2], d)
        return self.classes_[side.astype(np.intp)]

    def describe(self, member, *, feature_names=None):
        """Human-readable rule of member ``member``.

        Parameters
        ----------
        member : int
            Index of the member.
        feature_names : array-like of str of shape (2,), default=None
            Names to print for the two features; None prints ``x[0]``, ``x[1]``.

        Returns
        -------
        text : str

        Examples
        --------
        >>> from sklearn_semiprivate.hypotheses import Halfplanes
        >>> cover = Halfplanes().cover([[0, 0], [1, 0]])
        >>> cover.describe(1)
        'always 1'
        >>> cover.describe(2)
        '-1*x[0] + 0*x[1] >= 0 -> 1 else 0'
        >>> cover.describe(2, feature_names=["height", "weight"])
        '-1*height + 0*weight >= 0 -> 1 else 0'
        """
        member = self._check_member(member)
        x0, x1 = feature_labels(feature_names, 2)
        if member < 2:
            return f"always {self.classes_[member]}"
        w, b = self.halfplane(member)
        # Display only: components below 1e-12 (e.g. cos(pi/2)) are shown as 0.
        w = np.where(np.abs(w) < 1e-12, 0.0, w) + 0.0
        c0, c1 = self.classes_
        return f"{w[0]:.6g}*{x0} + {w[1]:.6g}*{x1} >= {b:.6g} -> {c1} else {c0}"
