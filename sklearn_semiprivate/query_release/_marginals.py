"""k-way marginal queries of categorical columns, and custom predicate queries.

A k-way marginal query ``q_{S,v}(x) = 1[x_S = v]`` asks for the fraction of rows
whose columns ``S`` (``|S| = k``) take the values ``v``. All queries of one
column set ``S`` are answered by one ``bincount`` of the rows' mixed-radix codes
on ``S``; column sets are processed in blocks so that memory stays
``O(n * block + n_queries)``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import itertools
import math
import numbers

import numpy as np

from ._base import (
    BLOCK_ENTRIES,
    QueryWorkload,
    _QuerySet,
    classes_of_atoms,
    dedup_queries,
    grid_representative_domain,
    out_of_domain_error,
)

__all__ = ["MarginalQueries", "PredicateQueries"]


class _MarginalSet(_QuerySet):
    """Queries ``1[x_S = v]``: column set ``subsets[s]`` and value code ``value``.

    ``value`` is the C-order mixed-radix code of ``v`` over the categories of the
    columns of ``S`` (last column fastest).
    """

    def __init__(self, n_categories, subsets, query_subset, query_value):
        self.n_categories = n_categories
        self.n_features = n_categories.size
        self.subsets = subsets  # (n_subsets, k) int
        self.query_subset = np.asarray(query_subset, dtype=np.intp)
        self.query_value = np.asarray(query_value, dtype=np.int64)
        cards = n_categories[subsets]  # (n_subsets, k)
        self.cells = np.prod(cards, axis=1)
        strides = np.ones_like(cards)
        for c in range(subsets.shape[1] - 2, -1, -1):
            strides[:, c] = strides[:, c + 1] * cards[:, c + 1]
        self.strides = strides
        self.offsets = np.concatenate([[0], np.cumsum(self.cells)[:-1]])
        self._used = np.unique(self.query_subset)

    @property
    def n_queries(self):
        return int(self.query_subset.size)

    def _codes(self, X, subset_ids):
        """Mixed-radix codes of the rows on each column set: (n, len(subset_ids))."""
        Xi = X.astype(np.int64, copy=False)
        cols = self.subsets[subset_ids]  # (s, k)
        strides = self.strides[subset_ids]
        codes = np.zeros((X.shape[0], subset_ids.size), dtype=np.int64)
        for c in range(cols.shape[1]):
            codes += Xi[:, cols[:, c]] * strides[:, c]
        return codes

    def weighted_sums(self, X, weights):
        used = self._used
        table = np.zeros(int(self.offsets[-1] + self.cells[-1]))
        step = max(1, BLOCK_ENTRIES // max(X.shape[0], 1))
        for start in range(0, used.size, step):
            ids = used[start : start + step]
            idx = self._codes(X, ids) + self.offsets[ids]
            table += np.bincount(
                idx.ravel(),
                weights=np.repeat(weights, ids.size),
                minlength=table.size,
            )
        return table[self.offsets[self.query_subset] + self.query_value]

    def replace_one_sensitivity(self):
        # A row lies in exactly one cell of each column set's marginal:
        # replacing it moves at most two cells of each column set, by 1 each.
        # A query listed m times moves m entries of the vector, so the change
        # of a column set is at most the two largest multiplicities of its
        # cells (2 without repeats, 1 for a set with a single query here);
        # every entry moves by at most 1, so L1 = L2 squared.
        keys = self.offsets[self.query_subset] + self.query_value
        _, first, mult = np.unique(keys, return_index=True, return_counts=True)
        subset = self.query_subset[first]
        order = np.lexsort((-mult, subset))
        subset, mult = subset[order], mult[order]
        starts = np.flatnonzero(np.r_[True, subset[1:] != subset[:-1]])
        rank = np.arange(subset.size) - np.repeat(
            starts, np.diff(np.r_[starts, subset.size])
        )
        total = float(mult[rank < 2].sum())
        return total, math.sqrt(total)

    def point_sums(self, X, values):
        table = np.zeros(int(self.offsets[-1] + self.cells[-1]))
        # Several queries on one cell (a repeated column set has its own
        # offsets, so only a repeated take) add up.
        np.add.at(
            table,
            self.offsets[self.query_subset] + self.query_value,
            np.asarray(values, dtype=np.float64),
        )
        used = self._used
        out = np.zeros(X.shape[0])
        step = max(1, BLOCK_ENTRIES // max(X.shape[0], 1))
        for start in range(0, used.size, step):
            ids = used[start : start + step]
            out += table[self._codes(X, ids) + self.offsets[ids]].sum(axis=1)
        return out

    def labels(self, X, start, stop):
        sub = self.query_subset[start:stop]
        used, inv = np.unique(sub, return_inverse=True)
        codes = self._codes(X, used)  # (n, n_used)
        return codes[:, inv].T == self.query_value[start:stop, None]

    def take(self, indices):
        return _MarginalSet(
            self.n_categories,
            self.subsets,
            self.query_subset[indices],
            self.query_value[indices],
        )


def _check_n_categories(n_categories, n_features):
    if isinstance(n_categories, numbers.Integral) and not isinstance(
        n_categories, bool
    ):
        cards = np.full(n_features, int(n_categories), dtype=np.int64)
    else:
        cards = np.asarray(n_categories)
        if cards.ndim != 1 or not np.issubdtype(cards.dtype, np.integer):
            raise ValueError(
                "n_categories must be an int or a 1-D array of ints, one per column, "
                f"got {n_categories!r}."
            )
        if cards.size != n_features:
            raise ValueError(
                f"n_categories has {cards.size} entries but the data have "
                f"{n_features} columns."
            )
        cards = cards.astype(np.int64)
    if np.any(cards < 1):
        raise ValueError("n_categories must be >= 1 for every column.")
    return cards


class MarginalQueries(QueryWorkload):
    """All k-way marginal queries of categorical (or binary) columns.

    For every set ``S`` of ``k`` columns and every combination ``v`` of their
    categories, the query ``1[x_S = v]``: the fraction of rows taking the
    values ``v`` on ``S``. Columns hold integer category codes ``0 .. c - 1``
    (discretise real columns first, e.g. with
    :class:`~sklearn.preprocessing.KBinsDiscretizer` and ``encode="ordinal"``).

    Queries are ordered by column set (``itertools.combinations`` order), then
    by value code (C order: the last column of ``S`` varies fastest).

    Parameters
    ----------
    k : int, default=3
        Order of the marginals, ``>= 1``.
    n_categories : int or array-like of int
        The declared domain: column ``j`` takes values in
        ``{0, ..., n_categories[j] - 1}`` (one int for every column). Points
        outside it are refused.
    subsets : array-like of shape (n_subsets, k), default=None
        Restrict the workload to these column sets; None is every set of ``k``
        columns.

    Attributes
    ----------
    k : int
    n_categories : int or ndarray
    subsets : ndarray or None

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.query_release import MarginalQueries
    >>> X = np.array([[0, 1], [1, 1], [1, 0], [1, 1]])
    >>> q = MarginalQueries(k=2, n_categories=2)
    >>> q.n_queries(n_features=2)
    4
    >>> q.evaluate(X).tolist()  # x = (0,0), (0,1), (1,0), (1,1)
    [0.0, 0.25, 0.25, 0.5]
    """

    def __init__(self, k=3, n_categories=2, subsets=None):
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"k must be an integer >= 1, got {k!r}.")
        self.k = int(k)
        if isinstance(n_categories, numbers.Integral) and not isinstance(
            n_categories, bool
        ):
            if n_categories < 1:
                raise ValueError(f"n_categories must be >= 1, got {n_categories}.")
            self.n_categories = int(n_categories)
        else:
            self.n_categories = _check_n_categories(
                n_categories, np.asarray(n_categories).size
            )
        if subsets is None:
            self.subsets = None
        else:
            s = np.asarray(subsets)
            if s.ndim != 2 or s.shape[1] != self.k or s.shape[0] == 0:
                raise ValueError(
                    f"subsets must have shape (n_subsets, k={self.k}), got {s.shape}."
                )
            if not np.issubdtype(s.dtype, np.integer) or np.any(s < 0):
                raise ValueError("subsets must hold non-negative column indices.")
            if np.any(np.diff(np.sort(s, axis=1), axis=1) == 0):
                raise ValueError(
                    "each column set in subsets must have distinct columns."
                )
            self.subsets = s.astype(np.intp)

    def __repr__(self):
        return f"MarginalQueries(k={self.k}, n_categories={self.n_categories!r})"

    def _cards(self, n_features):
        return _check_n_categories(self.n_categories, n_features)

    def _check_points(self, X, name):
        cards = self._cards(X.shape[1])
        bad = ((X < 0) | (X != np.floor(X)) | (X >= cards)).any(axis=1)
        if bad.any():
            # No value or row index in the message: X may be private.
            raise out_of_domain_error(
                name,
                f"column j holds integer codes 0 .. n_categories[j] - 1, with "
                f"n_categories = {cards.tolist()}",
            )
        return X

    def _all_subsets(self, n_features):
        if self.subsets is not None:
            if self.subsets.max() >= n_features:
                raise ValueError(
                    f"subsets refers to column {int(self.subsets.max())}, but the data "
                    f"have {n_features} columns."
                )
            return self.subsets
        if self.k > n_features:
            raise ValueError(
                f"k={self.k}-way marginals need at least {self.k} columns, the data "
                f"have {n_features}."
            )
        subs = np.array(list(itertools.combinations(range(n_features), self.k)))
        return subs.reshape(-1, self.k).astype(np.intp)

    def _bind(self, n_features):
        cards = self._cards(n_features)
        subsets = self._all_subsets(n_features)
        cells = np.prod(cards[subsets], axis=1)
        query_subset = np.repeat(np.arange(subsets.shape[0]), cells)
        starts = np.concatenate([[0], np.cumsum(cells)[:-1]])
        query_value = np.arange(int(cells.sum())) - np.repeat(starts, cells)
        return _MarginalSet(cards, subsets, query_subset, query_value)

    def _cover(self, X_public):
        # Alg. 3 steps 1-2 for the finite class: one marginal query per distinct
        # labeling of the distinct public points (the earliest one).
        return dedup_queries(self._bind(X_public.shape[1]), X_public)

    def _representative_domain(self, cover, X_public):
        # Definition 2 over the finite domain: every point is its own atom.
        return grid_representative_domain(cover, self._cards(X_public.shape[1]))


class _PredicateSet(_QuerySet):
    def __init__(self, n_features, predicates):
        self.n_features = n_features
        self.predicates = list(predicates)

    @property
    def n_queries(self):
        return len(self.predicates)

    def _mask(self, i, X):
        out = np.asarray(self.predicates[i](X))
        if out.shape != (X.shape[0],):
            # No shapes in the message: X may be private, and a predicate may
            # return anything computed from it (e.g. a count).
            raise ValueError(
                f"predicate {i} must return one value per row (a 1-D array as long "
                "as its input)."
            )
        if out.dtype != bool:
            if not np.all(np.isin(out, (0, 1))):
                raise ValueError(f"predicate {i} must return booleans (or 0/1).")
            out = out.astype(bool)
        return out

    def weighted_sums(self, X, weights):
        return np.array(
            [weights[self._mask(i, X)].sum() for i in range(self.n_queries)]
        )

    def labels(self, X, start, stop):
        rows = [self._mask(i, X) for i in range(start, stop)]
        return np.stack(rows) if rows else np.zeros((0, X.shape[0]), dtype=bool)

    def take(self, indices):
        return _PredicateSet(self.n_features, [self.predicates[i] for i in indices])


def _row_lookup(domain, X, name):
    """Index of every row of ``X`` in ``domain`` (exact match), or raise."""
    both = np.concatenate([domain, X]) + 0.0  # + 0.0 maps -0.0 to 0.0
    _, inverse = np.unique(both, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    n_d = domain.shape[0]
    index_of = np.full(inverse.max() + 1, -1, dtype=np.intp)
    index_of[inverse[:n_d][::-1]] = np.arange(n_d)[::-1]  # earliest duplicate wins
    out = index_of[inverse[n_d:]]
    if np.any(out < 0):
        # No value or row index in the message: X may be private.
        raise out_of_domain_error(
            name,
            f"every row must be one of the {n_d} rows of `domain`",
        )
    return out


class PredicateQueries(QueryWorkload):
    """A custom finite workload: a list of predicates ``q(x) -> bool``.

    Each predicate is a callable taking an array ``X`` of shape
    ``(n_samples, n_features)`` and returning a boolean array of shape
    ``(n_samples,)`` (vectorised over rows). The class is the list itself.

    The predicates run on the private rows, so they must be trusted code: only
    their boolean answers enter the mechanisms, but an exception a predicate
    raises, a side effect or its running time escapes every guarantee.

    Parameters
    ----------
    predicates : list of callable
        The queries; at least one.
    domain : array-like of shape (n_points, n_features), default=None
        The declared finite domain: every possible row. Needed by
        ``support="representative"`` (Definition 2 partitions the domain);
        when given, public and private rows outside it are refused.

    Attributes
    ----------
    predicates : list of callable
    domain : ndarray or None

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.query_release import PredicateQueries
    >>> q = PredicateQueries([lambda X: X[:, 0] > X[:, 1], lambda X: X.sum(1) == 2])
    >>> q.evaluate([[2, 0], [1, 1], [0, 3], [5, 1]]).tolist()
    [0.5, 0.5]
    """

    def __init__(self, predicates, domain=None):
        if callable(predicates) or not hasattr(predicates, "__iter__"):
            raise TypeError("predicates must be a list of callables.")
        predicates = list(predicates)
        if not predicates:
            raise ValueError("predicates must not be empty: give at least one query.")
        for i, p in enumerate(predicates):
            if not callable(p):
                raise TypeError(f"predicates[{i}] is not callable: {p!r}.")
        self.predicates = predicates
        if domain is None:
            self.domain = None
        else:
            d = np.asarray(domain, dtype=np.float64)
            if d.ndim != 2 or d.shape[0] == 0:
                raise ValueError(
                    f"domain must be a non-empty 2-D array of points, got {d.shape}."
                )
            if not np.all(np.isfinite(d)):
                raise ValueError("domain must hold finite points.")
            self.domain = d

    def __repr__(self):
        return f"PredicateQueries(n_queries={len(self.predicates)})"

    def _check_points(self, X, name):
        if self.domain is not None:
            if X.shape[1] != self.domain.shape[1]:
                raise ValueError(
                    f"{name} has {X.shape[1]} features but the declared domain has "
                    f"{self.domain.shape[1]}."
                )
            _row_lookup(self.domain, X, name)
        return X

    def _bind(self, n_features):
        return _PredicateSet(n_features, self.predicates)

    def _cover(self, X_public):
        return dedup_queries(self._bind(X_public.shape[1]), X_public)

    def _representative_domain(self, cover, X_public):
        if self.domain is None:
            raise ValueError(
                "support='representative' needs the finite domain of the predicates "
                "(Definition 2 partitions it): pass PredicateQueries(..., "
                "domain=all_points), or use support='public'."
            )
        domain = np.unique(self.domain + 0.0, axis=0)
        first, class_of_atom = classes_of_atoms(cover, domain)

        def class_map(X):
            return class_of_atom[_row_lookup(domain, X, "X")]

        return domain[first], class_map
