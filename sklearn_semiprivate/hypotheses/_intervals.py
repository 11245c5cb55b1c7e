"""One-dimensional intervals ``a`` inside, ``b`` outside: a chain-factorised cover.

The exponential mechanism over the ``~k^2 m^2 / 2`` members is sampled exactly
without enumerating them: the score of an interval is a sum over the cells
between public points, so ``exp(eps/2 * score)`` factorises as
outside-prefix x inside-segment x outside-suffix, and cumulative log-sum-exps give
the exact marginal of the end point and the conditional of the start point.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from scipy.special import logsumexp

from ..utils import check_epsilon, check_rng
from ._base import (
    COUNT_EPSILON_MAX,
    Cover,
    HypothesisClass,
    _gumbel_max,
    check_classes,
    check_points,
    feature_labels,
)
from ._counting import ClassCounts
from ._stumps import _format_number, _label_pairs, _midpoints
from ._thresholds import _check_one_feature

__all__ = ["IntervalCover", "Intervals"]


def _blocks(n_cuts):
    """Start and end cell of every block ``0 <= i <= j < n_cuts``, ordered by ``j``.

    Block ``j * (j + 1) / 2 + i`` is ``(i, j)``.
    """
    ends = np.repeat(np.arange(n_cuts), np.arange(1, n_cuts + 1))
    starts = np.arange(ends.size) - ends * (ends + 1) // 2
    return starts, ends


class _Chain:
    """Exact factorisation of the exponential mechanism over an interval cover.

    With ``Q`` the prefix sums of ``count(cell, a) - count(cell, b)`` and ``N_b``
    the number of private rows labelled ``b``, member ``(i, j, a, b)`` scores
    ``N_b + Q[j + 1] - Q[i]``. Hence ``exp(eps/2 * score)`` is
    ``exp(eps/2 (N_b + Q[j+1])) * exp(-eps/2 Q[i])`` and

    * ``start[p, i] = -eps/2 Q[i]``: log weight of the start ``i``;
    * ``acc[p, j] = log sum_{i <= j} exp(start[p, i])`` (cumulative logaddexp);
    * ``end[p, j] = eps/2 (N_b + Q[j + 1]) + acc[p, j]``: log of the total weight
      of the intervals ending at ``j``, i.e. the unnormalised marginal of ``j``;
    * ``top``: log total weight of each constant and of each label pair ``p``.

    Sampling ``top``, then ``j | p``, then ``i | j, p`` is the exponential
    mechanism exactly (in exact arithmetic), in ``O(k^2 m)`` after counting.
    """

    def __init__(self, prefix, n_classes, pair_a, pair_b, epsilon):
        half = epsilon / 2.0
        n_cells = prefix.shape[0] - 1
        totals = prefix[-1]
        q = (prefix[:, pair_a] - prefix[:, pair_b]).T  # (n_pairs, n_cells + 1)
        self.start = -half * q[:, : n_cells - 1]
        self.acc = np.logaddexp.accumulate(self.start, axis=1)
        self.end = half * (totals[pair_b][:, None] + q[:, 1:n_cells]) + self.acc
        if n_cells > 1:
            log_z_pairs = logsumexp(self.end, axis=1)
        else:  # a single public value: no cut, constants only
            log_z_pairs = np.full(pair_a.size, -np.inf)
        self.top = np.concatenate([half * totals, log_z_pairs])
        self.n_classes = n_classes
        self.n_blocks = n_cells * (n_cells - 1) // 2

    def log_probabilities(self):
        """Log-probability of every member, built from the three factors."""
        k = self.n_classes
        log_top = self.top - logsumexp(self.top)
        starts, ends = _blocks(self.end.shape[1])
        log_end = self.end - self.top[k:, None]  # log p(j | pair)
        log_start = self.start[:, starts] - self.acc[:, ends]  # log p(i | j, pair)
        blocks = log_top[k:, None] + log_end[:, ends] + log_start
        return np.concatenate([log_top[:k], blocks.ravel()])

    def draw(self, rng, size=None):
        """Members drawn from the factorised mechanism; ``size=None`` gives one."""
        n = 1 if size is None else int(size)
        k = self.n_classes
        # Each _gumbel_max row is an exact softmax draw over that row's log
        # weights; the three successive draws multiply to the exponential
        # mechanism over all members (the factorisation in the class docstring).
        top = _gumbel_max(np.broadcast_to(self.top, (n, self.top.size)), rng)
        members = top.astype(np.int64)
        is_pair = top >= k
        pair = top[is_pair] - k
        if pair.size:
            end = _gumbel_max(self.end[pair], rng)
            n_cut = self.start.shape[1]
            # start | end: only starts i <= j carry weight
            start_lw = np.where(
                np.arange(n_cut) <= end[:, None], self.start[pair], -np.inf
            )
            start = _gumbel_max(start_lw, rng)
            block = end * (end + 1) // 2 + start
            members[is_pair] = k + pair * self.n_blocks + block
        return int(members[0]) if size is None else members


class IntervalCover(Cover):
    """Cover of 1-D intervals, scored and sampled through a chain factorisation.

    Built by :meth:`Intervals.cover` from public points only. With distinct
    public values ``u_0 < ... < u_{m-1}`` and midpoints ``t_c`` between ``u_c``
    and ``u_{c+1}``, the cells ``(t_{c-1}, t_c]`` each hold one public value.

    Members ``0 .. k-1`` are the constants ``classes_[i]``. Then, for every
    ordered label pair ``(a, b)``, ``a != b`` (lexicographic, index ``p``) and
    every block of cells ``0 <= i <= j <= m - 2`` (index ``j (j + 1) / 2 + i``),
    member ``k + p * m (m - 1) / 2 + block`` predicts ``a`` inside
    ``(t_{i-1}, t_j]`` (``(-inf, t_j]`` when ``i = 0``) and ``b`` outside.

    Each distinct labeling appears once: the empty interval and the interval
    covering every public value are constants and are represented only by the
    constant members; a non-constant labeling is represented with ``b`` = the
    label of the largest public value, so the block never contains ``u_{m-1}``
    (``a`` on a prefix and ``b`` on the rest is the block ``[0, j]``, never the
    mirrored suffix block).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Sorted label set.
    n_features_in_ : int
        Always 1.
    thresholds_ : ndarray of shape (m - 1,)
        Midpoints between consecutive distinct public values.

    Examples
    --------
    >>> from sklearn_semiprivate.hypotheses import Intervals
    >>> cover = Intervals().cover([[0.0], [1.0], [2.0]])
    >>> len(cover)  # 2 constants + 2 orientations x 3 blocks
    8
    >>> cover.describe(4)
    '0.5 < x[0] <= 1.5 -> 0 else 1'
    >>> cover.scores([[1.0], [3.0]], [1, 0]).tolist()
    [1, 1, 1, 0, 0, 1, 2, 2]
    """

    def _check_scorable(self):
        self._check_enumerable()

    def __init__(self, classes, thresholds):
        self.classes_ = classes
        self.n_features_in_ = 1
        self.thresholds_ = thresholds
        self._pair_a, self._pair_b = _label_pairs(classes.size)

    @property
    def _n_blocks(self):
        m = self.thresholds_.size + 1
        return m * (m - 1) // 2

    @property
    def size(self):
        """Number of members, as a Python int."""
        k = self.classes_.size
        return k + k * (k - 1) * self._n_blocks

    def _decode(self, member):
        k = self.classes_.size
        member = self._check_member(member)
        if member < k:
            return None, None, member, member
        pair, block = divmod(member - k, self._n_blocks)
        end = (math.isqrt(8 * block + 1) - 1) // 2
        start = block - end * (end + 1) // 2
        return start, end, int(self._pair_a[pair]), int(self._pair_b[pair])

    def _prefix_counts(self, X, y):
        """``prefix[g, l]``: private rows of class ``l`` in the cells before ``g``.

        The cells before ``g`` are ``x <= t_{g-1}``, the comparison
        :meth:`predict` makes. This is the only read of private data: one row
        added, removed or replaced changes every count by at most 1.
        """
        X, codes = self._check_private(X, y)
        by_class = ClassCounts(codes, self.classes_.size)
        n_cells = self.thresholds_.size + 1
        prefix = np.zeros((n_cells + 1, self.classes_.size), dtype=np.int64)
        prefix[1:n_cells] = by_class.count_at_most(X, [self.thresholds_])[0]
        prefix[n_cells] = by_class.totals
        return prefix

    def scores(self, X, y):
        """Number of private rows each member labels correctly (full vector).

        Returns ``len(cover)`` (``~k^2 m^2 / 2``) numbers, so memory is quadratic
        in ``m``: refused for covers of more than ``10**7`` members.
        :meth:`sample_exponential` never builds this vector.

        Parameters
        ----------
        X : array-like of shape (n_samples, 1)
            Private points.
        y : array-like of shape (n_samples,)
            Private labels, elements of ``classes_``.

        Returns
        -------
        scores : ndarray of shape (size,), dtype int64
            Sensitivity 1 under add/remove and replace-one of a private row.

        Raises
        ------
        ValueError
            If the cover has more than ``10**7`` members: use
            :meth:`sample_exponential`.
        """
        self._check_enumerable()
        # The only read of private data (sensitivity 1, add/remove and
        # replace-one): the per-class prefix counts.
        prefix = self._prefix_counts(X, y)
        totals = prefix[-1]
        q = (prefix[:, self._pair_a] - prefix[:, self._pair_b]).T
        starts, ends = _blocks(prefix.shape[0] - 2)
        blocks = totals[self._pair_b][:, None] + q[:, ends + 1] - q[:, starts]
        return np.concatenate([totals, blocks.ravel()])

    def _chain(self, X, y, epsilon):
        epsilon = check_epsilon(epsilon)
        # The private rows enter only through the per-class prefix counts; the
        # resulting distribution is the exponential mechanism with score = number
        # of correct rows, sensitivity 1 under add/remove and replace-one.
        prefix = self._prefix_counts(X, y)
        # Its sums overflowed (inf - inf) from epsilon * n ~ 1e308: capped at
        # COUNT_EPSILON_MAX, where the mechanism is the same in double.
        epsilon = min(epsilon, COUNT_EPSILON_MAX)
        return _Chain(prefix, self.classes_.size, self._pair_a, self._pair_b, epsilon)

    def log_probabilities_exponential(self, X, y, epsilon):
        """Exact log-probabilities of the factorised sampler, for every member.

        The product of the three factors the sampler uses (pair or constant, end
        given pair, start given end). Equal to ``log_softmax(epsilon / 2 *
        scores(X, y))``. Memory ``O(len(cover))``: for tests and small covers
        (at most ``10**7`` members).

        Parameters
        ----------
        X : array-like of shape (n_samples, 1)
            Private points.
        y : array-like of shape (n_samples,)
            Private labels.
        epsilon : float
            Privacy parameter.

        Returns
        -------
        log_proba : ndarray of shape (size,)
        """
        self._check_enumerable()
        return self._chain(X, y, epsilon).log_probabilities()

    def sample_exponential(
        self, X, y, epsilon, *, log_base_measure=None, random_state=None
    ):
        """Draw a member with the exponential mechanism, exactly, without enumerating.

        ``P(member) ∝ exp(epsilon * score / 2)`` with ``score`` the number of
        correct private rows (sensitivity 1, so epsilon-DP; McSherry & Talwar
        2007). Sampled as: constant-or-label-pair from its exact total weight,
        then the end cell from its exact marginal, then the start cell given the
        end, all in log space: ``O((n + m) log n + k^2 m)`` time and ``O(n + k^2 m)``
        memory.

        Parameters
        ----------
        X : array-like of shape (n_samples, 1)
            Private points.
        y : array-like of shape (n_samples,)
            Private labels.
        epsilon : float
            Privacy parameter.
        log_base_measure : array-like of shape (size,), default=None
            Data-independent log prior over members. A general prior does not
            factorise: then every member is scored and the enumerating mechanism
            of :class:`Cover` is used (memory ``O(len(cover))``).
        random_state : None, int or Generator
            Source of randomness.

        Returns
        -------
        member : int
        """
        if log_base_measure is not None:
            return super().sample_exponential(
                X,
                y,
                epsilon,
                log_base_measure=log_base_measure,
                random_state=random_state,
            )
        rng = check_rng(random_state)
        return self._chain(X, y, epsilon).draw(rng)

    def predict(self, member, X):
        """Labels given by member ``member`` to the rows of ``X``.

        Parameters
        ----------
        member : int
            Index of the member.
        X : array-like of shape (n_samples, 1)
            Points to label.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        start, end, a, b = self._decode(member)
        X = check_points(X, "X", n_features=1)
        if start is None:
            return np.full(X.shape[0], self.classes_[a])
        x = X[:, 0]
        inside = x <= self.thresholds_[end]
        if start > 0:
            inside &= x > self.thresholds_[start - 1]
        return np.where(inside, self.classes_[a], self.classes_[b])

    def describe(self, member, *, feature_names=None):
        """Human-readable rule of member ``member``.

        Parameters
        ----------
        member : int
            Index of the member.
        feature_names : array-like of str of shape (1,), default=None
            Name to print for the feature; None prints ``x[0]``.

        Returns
        -------
        text : str
            ``"l < x[0] <= r -> a else b"``, ``"x[0] <= r -> a else b"`` when the
            interval is unbounded on the left, or ``"always a"``.
        """
        start, end, a, b = self._decode(member)
        (name,) = feature_labels(feature_names, 1)
        if start is None:
            return f"always {self.classes_[a]}"
        rule = f"{name} <= {_format_number(self.thresholds_[end])}"
        if start > 0:
            rule = f"{_format_number(self.thresholds_[start - 1])} < {rule}"
        return f"{rule} -> {self.classes_[a]} else {self.classes_[b]}"

    def __repr__(self):
        return (
            f"{type(self).__name__}(size={self.size}, "
            f"n_public_values={self.thresholds_.size + 1}, "
            f"n_classes={self.classes_.size})"
        )


class Intervals(HypothesisClass):
    """Intervals on the real line: label ``a`` inside, ``b`` outside, any ``a != b``.

    The cover holds one member per distinct labeling of the distinct public
    values (Alon, Bassily & Moran 2019, Alg. 1 steps 1-5): ``k`` constants and
    ``k (k - 1) m (m - 1) / 2`` non-constant labelings for ``m`` distinct
    values and ``k`` classes (``m^2 - m + 2`` for binary labels: intervals and
    their complements). Interval ends are midpoints between consecutive distinct
    public values (public rules), left-open and right-closed: ``l < x <= r``.

    :meth:`IntervalCover.sample_exponential` samples the exponential mechanism
    exactly through the chain factorisation of the score, in
    ``O((n + m) log n + k^2 m)``, without enumerating the members.

    Input points are 2-D arrays of shape ``(n_samples, 1)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.hypotheses import Intervals
    >>> rng = np.random.default_rng(0)
    >>> cover = Intervals().cover(rng.uniform(size=(100, 1)))
    >>> len(cover)
    9902
    >>> X = rng.uniform(size=(500, 1))
    >>> y = ((X[:, 0] > 0.3) & (X[:, 0] <= 0.6)).astype(int)
    >>> member = cover.sample_exponential(X, y, epsilon=1.0, random_state=0)
    >>> float((cover.predict(member, X) == y).mean()) > 0.9
    True
    """

    def cover(self, X_public, classes=(0, 1)):
        """Build the interval cover from public points only.

        Parameters
        ----------
        X_public : array-like of shape (n_public, 1)
            Public points.
        classes : array-like of shape (n_classes,), default=(0, 1)
            The label set (public).

        Returns
        -------
        cover : IntervalCover
        """
        X_public = _check_one_feature(X_public, "Intervals")
        classes = check_classes(classes)
        values = np.unique(X_public[:, 0])  # Alg. 1 step 1: distinct public points
        return IntervalCover(classes, _midpoints(values))
