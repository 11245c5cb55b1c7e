"""Query workloads: the protocol, and the generic exact machinery of Alg. 3.

A workload is a finite list of counting queries ``q : X -> {0, 1}``, drawn from
a query class ``H``. Its answer on a weighted dataset is the weighted fraction
of rows that satisfy each query, in ``[0, 1]`` (the paper's ``E[h(x)]`` in
``[-1, 1]`` for ``±1``-valued ``h`` is ``2 * answer - 1``).

Bound to a number of features, a workload becomes a ``_QuerySet``: the concrete
queries plus fast vectorised evaluation. Everything here reads public points
only, except ``_QuerySet.weighted_sums`` when the estimator calls it on private
rows (that call is marked at its call site).

The generic parts of APAP (Bassily et al. 2020, Alg. 3) for a *finite* query
class live here:

* the cover ``H~`` (steps 1-2): one query per distinct labeling of the distinct
  public points, found exactly by packing labelings into bytes;
* the representative domain ``X_H~`` (Definition 2): one point per equivalence
  class of "same answer on every member of ``H~``", found exactly among a
  finite set of atoms that refines those classes.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
from abc import ABC, abstractmethod

import numpy as np
from sklearn.utils import check_array

__all__ = ["QueryWorkload"]

# Largest representative domain (number of points) the estimator will hold.
MAX_REPRESENTATIVES = 1 << 20
# Largest labeling table (queries x points, in bits) computed to find a cover
# or a representative domain exactly.
MAX_LABEL_BITS = 1 << 28
# Block size, in matrix entries, of the blocked computations.
BLOCK_ENTRIES = 1 << 20


class RepresentativeDomainTooLarge(ValueError):
    """The representative domain (Definition 2) of the cover is too large to hold."""


def out_of_domain_error(name, domain):
    """The error for rows of ``name`` outside the declared domain.

    Private rows are checked too, so the message says only that some rows are
    out of the domain and what the domain is: never a count, a value or a row
    index.
    """
    return ValueError(
        f"{name} has a value outside the declared domain in some rows ({domain})."
    )


def too_large_message(what, size, limit):
    return (
        f"The representative domain of this cover would have {what} {size} "
        f"points, more than the {limit} that support='representative' holds "
        "(Definition 2: one point per equivalence class of the cover, which grows "
        "exponentially with the number of features). Use support='public' (PMW "
        "over the public points themselves), which scales to large domains."
    )


class _QuerySet(ABC):
    """A finite, concrete list of counting queries over ``n_features`` features."""

    n_features = None

    @property
    @abstractmethod
    def n_queries(self):
        """Number of queries."""

    @abstractmethod
    def weighted_sums(self, X, weights):
        """``sum_i weights_i * q(X_i)`` for every query ``q``: shape (n_queries,)."""

    @abstractmethod
    def labels(self, X, start, stop):
        """Boolean matrix ``q(X_i)`` of queries ``start:stop``: (stop-start, n)."""

    @abstractmethod
    def take(self, indices):
        """The sub-list of queries at ``indices``, as a ``_QuerySet``."""

    def project_queries(self, queries, X_public):
        """``Project_{H~, w}`` of Alg. 3 with ``self`` as the cover ``H~``.

        Returns the index of the member labeling the distinct public points
        ``X_public`` as each query of ``queries`` does, or -1 where none does.
        Public points only. Subclasses may override with a faster exact method.
        """
        return project_by_public_labels(self, queries, X_public)

    def mask(self, i, X):
        """Boolean vector ``q_i(X_j)`` over the rows of ``X``."""
        return self.labels(X, i, i + 1)[0]

    def replace_one_sensitivity(self):
        """``(L1, L2)`` sensitivity of the vector of counts to one replaced row.

        Replacing one row changes every count ``sum_i q(X_i)`` by at most 1, so
        the vector of ``n_queries`` counts moves by at most ``n_queries`` in L1
        and ``sqrt(n_queries)`` in L2. Subclasses whose queries exclude each
        other (marginals) override with a smaller exact bound. Divide by ``n``
        for the answers (fractions).
        """
        q = self.n_queries
        return float(q), math.sqrt(q)

    def point_sums(self, X, values):
        """``sum_q values_q * q(X_i)`` for every row ``i``: shape (n,).

        The transpose of :meth:`weighted_sums` (public points only: the
        post-processing fit of ``selection="all"`` calls it on the support).
        """
        values = np.asarray(values, dtype=np.float64)
        out = np.zeros(X.shape[0])
        step = max(1, BLOCK_ENTRIES // max(X.shape[0], 1))
        for start in range(0, self.n_queries, step):
            stop = min(self.n_queries, start + step)
            out += values[start:stop] @ self.labels(X, start, stop)
        return out

    def answers(self, X, weights=None):
        """Weighted fraction of the rows satisfying each query, in [0, 1]."""
        # A weight far below the others (after many multiplicative updates) may
        # underflow to 0 here: at float precision it carries no mass.
        with np.errstate(under="ignore"):
            if weights is None:
                weights = np.full(X.shape[0], 1.0 / X.shape[0])
            else:
                weights = weights / weights.sum()
            return np.clip(self.weighted_sums(X, weights), 0.0, 1.0)


def packed_labels(query_set, X):
    """Labelings of every query on the rows of ``X``, packed: (n_queries, bytes).

    Exact: row ``q`` holds the bits ``q(X_0), q(X_1), ...``, so two queries have
    equal rows iff they label ``X`` identically.
    """
    n_q, n = query_set.n_queries, X.shape[0]
    if n_q * max(n, 1) > MAX_LABEL_BITS:
        raise RepresentativeDomainTooLarge(
            f"Comparing {n_q} queries on {n} points ({n_q * n} labels) exceeds the "
            f"limit of {MAX_LABEL_BITS} for support='representative'; use "
            "support='public'."
        )
    out = np.empty((n_q, (n + 7) // 8), dtype=np.uint8)
    step = max(1, BLOCK_ENTRIES // max(n, 1))
    for start in range(0, n_q, step):
        stop = min(n_q, start + step)
        out[start:stop] = np.packbits(query_set.labels(X, start, stop), axis=1)
    return out


def packed_signatures(query_set, atoms):
    """Signatures of points under a query list, packed: (n_points, bytes).

    Row ``a`` holds the bits ``q_0(atoms_a), q_1(atoms_a), ...``: two points are
    equivalent in the sense of Definition 2 iff their rows are equal.
    """
    n_q, n = query_set.n_queries, atoms.shape[0]
    if n_q * n > MAX_LABEL_BITS:
        raise RepresentativeDomainTooLarge(
            too_large_message("to be found among", n, MAX_LABEL_BITS // max(n_q, 1))
        )
    out = np.zeros((n, (n_q + 7) // 8), dtype=np.uint8)
    step = 8 * max(1, BLOCK_ENTRIES // (8 * max(n, 1)))
    for start in range(0, n_q, step):
        stop = min(n_q, start + step)
        bits = query_set.labels(atoms, start, stop)  # (stop - start, n)
        out[:, start // 8 : (stop + 7) // 8] |= np.packbits(bits, axis=0).T
    return out


def first_of_each_distinct_row(packed):
    """Indices of the first row of every distinct row, ascending, and the map.

    Returns ``(first, inverse)``: ``first[c]`` is the earliest row of class
    ``c`` (classes numbered in order of first appearance) and ``inverse[r]`` the
    class of row ``r``.
    """
    _, first, inverse = np.unique(
        packed, axis=0, return_index=True, return_inverse=True
    )
    inverse = inverse.reshape(-1)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return first[order], rank[inverse]


def dedup_queries(query_set, X_public):
    """Alg. 3 steps 1-2 for a finite class: one query per distinct public labeling.

    Keeps the earliest query of every distinct labeling of the distinct public
    points (exact comparison of the packed labelings).
    """
    first, _ = first_of_each_distinct_row(packed_labels(query_set, X_public))
    return query_set.take(first)


def project_by_public_labels(cover, queries, X_public):
    """``Project_{H~, w}`` of Alg. 3: the cover member labeling the public points alike.

    Returns the member index of every query, or -1 where no member of the cover
    labels the distinct public points as the query does (the query is not in the
    class the cover was built for).
    """
    cover_sig = packed_labels(cover, X_public)
    query_sig = packed_labels(queries, X_public)
    both = np.concatenate([cover_sig, query_sig])
    _, inverse = np.unique(both, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    n_c = cover_sig.shape[0]
    member_of_class = np.full(inverse.max() + 1, -1, dtype=np.intp)
    # Later members would overwrite earlier ones; the cover has distinct rows,
    # so each class holds at most one member.
    member_of_class[inverse[:n_c]] = np.arange(n_c)
    return member_of_class[inverse[n_c:]]


def grid_points(cards):
    """Every point of ``{0 .. cards[0] - 1} x ... x {0 .. cards[-1] - 1}``, C order."""
    cards = tuple(int(c) for c in cards)
    return np.indices(cards).reshape(len(cards), -1).T.astype(np.float64)


def grid_representative_domain(cover, cards):
    """Definition 2 over a finite grid of integer codes: every point is an atom.

    The size of the grid is checked before any point of it is built. Returns
    ``(representatives, class_map)`` as ``QueryWorkload._representative_domain``.
    """
    cards = tuple(int(c) for c in cards)
    n_atoms = math.prod(cards)
    if n_atoms > MAX_REPRESENTATIVES:
        raise RepresentativeDomainTooLarge(
            too_large_message("to be found among the", n_atoms, MAX_REPRESENTATIVES)
        )
    atoms = grid_points(cards)
    first, class_of_atom = classes_of_atoms(cover, atoms)

    def class_map(X):
        return class_of_atom[np.ravel_multi_index(tuple(X.astype(np.intp).T), cards)]

    return atoms[first], class_map


def classes_of_atoms(cover, atoms):
    """Definition 2 over a finite refinement: equivalence classes of ``atoms``.

    Returns ``(representatives, class_of_atom)``: the earliest atom of each class
    (indices into ``atoms``) and the class of every atom.
    """
    if atoms.shape[0] > MAX_REPRESENTATIVES:
        raise RepresentativeDomainTooLarge(
            too_large_message("to be found among", atoms.shape[0], MAX_REPRESENTATIVES)
        )
    return first_of_each_distinct_row(packed_signatures(cover, atoms))


class QueryWorkload(ABC):
    """A finite workload of counting queries, from a query class ``H``.

    Subclasses are parameter holders that validate their parameters at
    construction. The answers of a workload on a dataset are the fractions of
    rows satisfying each query, in ``[0, 1]``.

    Subclasses implement ``_bind(n_features)`` (the concrete queries),
    ``_check_points(X, name)`` (the declared domain), ``_cover(X_public)``
    (Alg. 3 steps 1-2: a cover of the class from distinct public points) and
    ``_representative_domain(cover, X_public)`` (Definition 2).

    Examples
    --------
    >>> from sklearn_semiprivate.query_release import QueryWorkload, StumpQueries
    >>> workload = StumpQueries()  # the coordinate queries x_j > 0
    >>> isinstance(workload, QueryWorkload), workload.n_queries(5)
    (True, 5)
    """

    @abstractmethod
    def _bind(self, n_features):
        """Return the concrete ``_QuerySet`` of this workload."""

    def _check_points(self, X, name):
        """Validate that the rows of ``X`` lie in the declared domain."""
        return X

    @abstractmethod
    def _cover(self, X_public):
        """Alg. 3 steps 1-2: a ``_QuerySet`` with one member per public labeling."""

    @abstractmethod
    def _representative_domain(self, cover, X_public):
        """Definition 2: ``(representatives, class_map)`` for the cover.

        ``representatives`` has one row per equivalence class; ``class_map(X)``
        returns the class index of every row of ``X``.
        """

    def n_queries(self, n_features):
        """Number of queries of the workload on data with ``n_features`` features.

        Parameters
        ----------
        n_features : int
            Number of features of the data.

        Returns
        -------
        n_queries : int
        """
        return self._bind(n_features).n_queries

    def evaluate(self, X, sample_weight=None):
        """Exact (non-private) answers of the workload on a weighted dataset.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points, in the workload's declared domain.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; None weighs every row equally.

        Returns
        -------
        answers : ndarray of shape (n_queries,)
            Weighted fraction of the rows satisfying each query, in ``[0, 1]``.
        """
        X = check_array(X, dtype=np.float64, ensure_all_finite=True, input_name="X")
        X = self._check_points(X, "X")
        if sample_weight is None:
            weights = None
        else:
            weights = np.asarray(sample_weight, dtype=np.float64)
            if weights.shape != (X.shape[0],):
                raise ValueError(
                    "sample_weight must hold one weight per row of X (shapes "
                    "not quoted: X may be private)."
                )
            if not np.all(np.isfinite(weights)) or np.any(weights < 0):
                raise ValueError("sample_weight must be finite and non-negative.")
            if weights.sum() <= 0:
                raise ValueError("sample_weight must have a positive sum.")
        return self._bind(X.shape[1]).answers(X, weights)
