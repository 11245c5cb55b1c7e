"""The stump-XOR workload: queries whose answers determine those of ``C⊕``.

Used by :class:`~sklearn_semiprivate.classifiers.GenericLearnerClassifier` to
sanitize private unlabeled rows with respect to ``C⊕ = {h ⊕ f : h, f in C}``
(Beimel, Nissim & Stemmer, Definition 3.1) for axis-aligned stumps on a grid.
"""

# SPDX-License-Identifier: BSD-3-Clause

from itertools import combinations

import numpy as np

from ._base import (
    BLOCK_ENTRIES,
    QueryWorkload,
    _QuerySet,
    dedup_queries,
    grid_points,
    grid_representative_domain,
    out_of_domain_error,
)

__all__ = ["_StumpXorQueries", "_grid_codes"]


class _StumpXorSet(_QuerySet):
    """Queries ``1[b[f1] <= s1] XOR 1[b[f2] <= s2]`` on integer grid codes ``b``.

    ``s2 = -1`` makes the second term 0 (``b >= 0``), so the query is the single
    grid stump ``1[b[f1] <= s1]``. ``pair`` indexes the feature pair
    ``(f1, f2)`` in ``pairs`` for cross-feature queries, ``-1`` otherwise.
    Answers use one-way prefix sums and, per feature pair, a 2-D cumulative
    histogram: ``w(A XOR B) = w(A) + w(B) - 2 w(A and B)``.
    """

    def __init__(self, n_features, n_bins, pairs, f1, s1, f2, s2, pair):
        self.n_features = n_features
        self.n_bins = n_bins
        self.pairs = pairs
        self.f1, self.s1, self.f2, self.s2, self.pair = f1, s1, f2, s2, pair

    @property
    def n_queries(self):
        return int(self.f1.size)

    def weighted_sums(self, X, weights):
        codes = X.astype(np.intp)
        n, d, nb = codes.shape[0], self.n_features, self.n_bins
        one_way = np.bincount(
            (codes + np.arange(d) * nb).ravel(),
            weights=np.repeat(weights, d),
            minlength=d * nb,
        ).reshape(d, nb)
        cdf = np.cumsum(one_way, axis=1)  # cdf[j, s] = w(b[j] <= s)
        padded = np.column_stack([np.zeros(d), cdf])  # padded[j, s + 1]
        out = cdf[self.f1, self.s1] + padded[self.f2, self.s2 + 1]
        cross = self.pair >= 0
        if not cross.any():
            return out
        used, slot = np.unique(self.pair[cross], return_inverse=True)
        joint = np.empty((used.size, nb * nb))
        step = max(1, BLOCK_ENTRIES // max(n, 1))
        for start in range(0, used.size, step):
            pj = self.pairs[used[start : start + step]]
            k = pj.shape[0]
            idx = codes[:, pj[:, 0]] * nb + codes[:, pj[:, 1]] + np.arange(k) * nb**2
            joint[start : start + k] = np.bincount(
                idx.ravel(), weights=np.repeat(weights, k), minlength=k * nb**2
            ).reshape(k, nb**2)
        both = joint.reshape(-1, nb, nb).cumsum(axis=1).cumsum(axis=2)
        out[cross] -= 2.0 * both[slot.reshape(-1), self.s1[cross], self.s2[cross]]
        return out

    def labels(self, X, start, stop):
        codes = X.astype(np.intp)
        first = codes[:, self.f1[start:stop]].T <= self.s1[start:stop, None]
        second = codes[:, self.f2[start:stop]].T <= self.s2[start:stop, None]
        return first ^ second

    def take(self, indices):
        return _StumpXorSet(
            self.n_features,
            self.n_bins,
            self.pairs,
            self.f1[indices],
            self.s1[indices],
            self.f2[indices],
            self.s2[indices],
            self.pair[indices],
        )


def _grid_codes(n_bins, n_features):
    """Every point of the discretised domain ``{0 .. n_bins - 1}^n_features``."""
    return grid_points((n_bins,) * n_features)


class _StumpXorQueries(QueryWorkload):
    """The ``C⊕`` workload of grid stumps, on integer codes ``0 .. n_bins - 1``.

    Grid stumps ``1[b[j] <= s]``, ``s = 0 .. n_bins - 2``, on every feature, and
    the XOR of every two grid stumps on *different* features. With binary labels
    ``C⊕`` (Definition 3.1) for stumps is exactly: the constants, the grid
    stumps (a stump XOR a constant), the intervals ``1[s < b[j] <= t]`` (two
    stumps on one feature) and the cross-feature XORs, up to complements (whose
    answers are one minus the answer, with the same error). An interval is the
    difference of two grid stumps, so answers within ``alpha`` on this workload
    give every ``C⊕`` answer within ``2 alpha``. With more labels, ``h ⊕ f`` is a
    union of the cells cut by the two stumps; every such union is again within
    ``2 alpha`` (a quadrant is ``(F_j ± F_k ± XOR) / 2``, within ``1.5 alpha``).
    For the 1-D classes: thresholds are stumps on one feature (``2 alpha``);
    ``h ⊕ f`` of two intervals changes value at most four times along the line,
    a signed sum of at most four grid stumps (``4 alpha``).

    ``n_features (n_bins - 1) + C(n_features, 2) (n_bins - 1)^2`` queries.
    """

    def __init__(self, n_bins):
        self.n_bins = int(n_bins)

    def __repr__(self):
        return f"_StumpXorQueries(n_bins={self.n_bins})"

    def _check_points(self, X, name):
        bad = ((X < 0) | (X >= self.n_bins) | (X != np.floor(X))).any(axis=1)
        if bad.any():
            raise out_of_domain_error(
                name,
                f"values must be integer grid codes in [0, {self.n_bins - 1}]",
            )
        return X

    def _bind(self, n_features):
        nb, d = self.n_bins, int(n_features)
        cuts = np.arange(nb - 1, dtype=np.intp)
        pairs = np.array(list(combinations(range(d), 2)), dtype=np.intp).reshape(-1, 2)
        n_pairs, per_pair = pairs.shape[0], (nb - 1) ** 2
        pair = np.repeat(np.arange(n_pairs, dtype=np.intp), per_pair)
        single_f = np.repeat(np.arange(d, dtype=np.intp), nb - 1)
        n_single = single_f.size
        return _StumpXorSet(
            d,
            nb,
            pairs,
            f1=np.concatenate([single_f, pairs[pair, 0]]),
            s1=np.concatenate(
                [np.tile(cuts, d), np.tile(np.repeat(cuts, nb - 1), n_pairs)]
            ),
            f2=np.concatenate([single_f, pairs[pair, 1]]),
            s2=np.concatenate(
                [
                    np.full(n_single, -1, dtype=np.intp),
                    np.tile(cuts, (nb - 1) * n_pairs),
                ]
            ),
            pair=np.concatenate([np.full(n_single, -1, dtype=np.intp), pair]),
        )

    def _cover(self, X_public):
        # Alg. 3 steps 1-2 (support="representative" only): one query per distinct
        # labeling of the distinct public points.
        return dedup_queries(self._bind(X_public.shape[1]), X_public)

    def _representative_domain(self, cover, X_public):
        # Definition 2 over the finite grid: every grid point is an atom (the
        # grid's size is checked before it is built).
        return grid_representative_domain(cover, (self.n_bins,) * X_public.shape[1])
