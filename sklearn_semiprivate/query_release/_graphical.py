"""A graphical model over categorical columns, fitted to noisy marginals.

The estimator of ``support="graphical"`` (:mod:`._adaptive`): the
distribution of largest entropy relative to a base measure that matches a set
of (noisy) marginals in weighted least squares. It is the estimator of
Private-PGM (McKenna, Sheldon & Miklau 2019, "Graphical-model based
estimation and inference for differential privacy", Alg. 1, and AIM, McKenna
et al. 2022, §4), written here with numpy:

* **Parameters.** One log-potential ``θ_c`` per measured column set ``c``
  (a dense array over its cells); ``log p(x) = Σ_c θ_c(x_c) - log Z``.
* **Junction tree.** The column sets' interaction graph is triangulated by
  greedy elimination (fewest fill-in edges, then the smallest clique); its
  maximal cliques, joined by a maximum spanning tree on separator sizes, form
  the junction tree. Sum-product message passing (in probability space,
  messages rescaled to sum to one; in log space when the potentials span
  more than exp's range) gives every maximal clique's marginal; a measured
  set's marginal is a sum of one of them (many sets of one large clique share
  its partial sums). A set in no clique is answered by contracting the
  beliefs of the subtree that covers it, divided by its separators (the
  junction-tree factorisation ``p = Π β_k / Π μ_s``).
* **Fit.** Mirror descent on ``θ`` (entropic mirror map over the marginal
  polytope, Private-PGM's Alg. 1): ``θ_c ← θ_c - η w_c (μ_c - y_c)``, with an
  Armijo line search on ``η``.

Everything here is post-processing: it reads released measurements only.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

__all__ = ["GraphicalModel", "junction_tree", "public_base"]

# Range of the mirror-descent step (the Armijo search halves and doubles it).
_MIN_STEP, _MAX_STEP = 1e-8, 1e8
# Largest total span of the log-potentials run in probability space (see
# GraphicalModel._beliefs): exp(-700) is above the smallest normal double.
_EXP_SPAN = 700.0
# Cliques up to this many cells are summed directly for every marginal; larger
# ones share their partial sums (GraphicalModel._clique_marginal).
_DIRECT_CELLS = 2**12
# The smallest normal double: separator masses below it are treated as 0.
_TINY = float(np.finfo(np.float64).tiny)


def _log_sum(a, axes):
    """``log Σ exp(a)`` over ``axes`` (kept stable by the maximum)."""
    if not axes:
        return a
    m = np.max(a, axis=axes, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    out = np.log(np.sum(np.exp(a - m), axis=axes, keepdims=True)) + m
    return np.squeeze(out, axis=axes)


def _expand(values, cols, within, cards):
    """``values`` over sorted ``cols``, broadcast to the axes of sorted ``within``."""
    shape = [int(cards[c]) if c in cols else 1 for c in within]
    return np.reshape(values, shape)


def _product(a, a_cols, b, b_cols):
    """Product of two tables over named columns: ``(table, columns)``."""
    names = list(a_cols) + [c for c in b_cols if c not in a_cols]
    index = {c: i for i, c in enumerate(names)}
    out = np.einsum(
        a,
        [index[c] for c in a_cols],
        b,
        [index[c] for c in b_cols],
        list(range(len(names))),
    )
    return out, names


def junction_tree(cliques, n_categories):
    """Maximal cliques and tree edges of a triangulation of ``cliques``' graph.

    Parameters
    ----------
    cliques : list of tuple of int
        Column sets; every column appears in at least one (1-way sets count).
    n_categories : array-like of int

    Returns
    -------
    maximal : list of tuple
        Sorted column tuples, the junction tree's nodes.
    edges : list of (int, int)
        Tree edges (indices into ``maximal``), connecting every node (an empty
        separator joins components of the graph).
    """
    cards = np.asarray(n_categories, dtype=np.float64)
    columns = sorted({c for cl in cliques for c in cl})
    nbrs = {c: set() for c in columns}
    for cl in cliques:
        for a in cl:
            nbrs[a].update(b for b in cl if b != a)
    found = []
    alive = set(columns)
    while alive:
        # Eliminate the column adding fewest fill edges, then the smallest
        # clique (deterministic: ties by column index).
        def cost(v):
            n = nbrs[v] & alive
            fill = sum(1 for a in n for b in n if a < b and b not in nbrs[a])
            return fill, float(np.prod(cards[list(n | {v})])), v

        v = min(alive, key=cost)
        n = nbrs[v] & alive
        for a in n:
            nbrs[a].update(n - {a})
        found.append(tuple(sorted(n | {v})))
        alive.remove(v)
    maximal = []
    for cl in sorted(set(found), key=lambda c: (-len(c), c)):
        if not any(set(cl) <= set(m) for m in maximal):
            maximal.append(cl)
    maximal.sort()
    # Maximum spanning tree on separator sizes (Kruskal); weight-0 pairs join
    # the components.
    pairs = sorted(
        (-len(set(maximal[i]) & set(maximal[j])), i, j)
        for i in range(len(maximal))
        for j in range(i + 1, len(maximal))
    )
    root = list(range(len(maximal)))

    def find(i):
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    edges = []
    for _, i, j in pairs:
        ri, rj = find(i), find(j)
        if ri != rj:
            root[ri] = rj
            edges.append((i, j))
    return maximal, edges


class GraphicalModel:
    """Exponential family on a junction tree, one potential per measured set.

    Parameters
    ----------
    n_categories : array-like of shape (n_columns,)
        Categories of every column.
    cliques : list of tuple of int, default=None
        Column sets with a potential (sorted tuples); None is every 1-way
        set. Every potential starts at 0: the model starts at its base.
    base : dict, default=None
        Fixed log-potentials ``cols -> array`` (sorted column tuples): the
        log base measure the fit tilts (e.g. a tree fitted to public rows).
        None is uniform.
    """

    def __init__(self, n_categories, cliques=None, base=None):
        self.n_categories = np.asarray(n_categories, dtype=np.intp)
        d = self.n_categories.size
        self.theta = {}
        self.base = {tuple(c): np.asarray(v, float) for c, v in (base or {}).items()}
        self.eta = 1.0
        self.add_cliques([(j,) for j in range(d)] if cliques is None else cliques)

    def add_cliques(self, cliques):
        """Give every new column set a zero potential; rebuild the tree."""
        new = [tuple(sorted(int(c) for c in cl)) for cl in cliques]
        new = [cl for cl in new if cl not in self.theta]
        for cl in new:
            self.theta[cl] = np.zeros(self.n_categories[list(cl)])
        if new or not hasattr(self, "maximal"):
            self.maximal, self.edges = junction_tree(self._sets(), self.n_categories)
            # The smallest maximal clique containing every potential's set.
            self.home = {
                cl: min(
                    (k for k, m in enumerate(self.maximal) if set(cl) <= set(m)),
                    key=lambda k: self.size(self.maximal[k]),
                )
                for cl in {**self.theta, **self.base}
            }
            self._order()
            self._base_pots = None
        self.calibrate()

    def _sets(self, extra=()):
        """Every column set of the model: potentials, base, 1-way, ``extra``."""
        d = self.n_categories.size
        return [*self.theta, *self.base, *((j,) for j in range(d)), *extra]

    def contains(self, cols):
        """Whether the column set ``cols`` lies inside one maximal clique."""
        return self._container(tuple(cols)) is not None

    def size(self, cols):
        return int(np.prod(self.n_categories[list(cols)]))

    def model_size(self, extra=()):
        """Cells of all maximal cliques, with the column sets ``extra`` added."""
        if not extra:
            return sum(self.size(m) for m in self.maximal)
        maximal, _ = junction_tree(
            self._sets([tuple(e) for e in extra]), self.n_categories
        )
        return sum(self.size(m) for m in maximal)

    def _order(self):
        """Breadth-first order from node 0, and every node's parent."""
        k = len(self.maximal)
        adj = [[] for _ in range(k)]
        for i, j in self.edges:
            adj[i].append(j)
            adj[j].append(i)
        self.parent = [-1] * k
        order, seen = [0], {0}
        for i in order:
            for j in adj[i]:
                if j not in seen:
                    seen.add(j)
                    self.parent[j] = i
                    order.append(j)
        self.bfs = order
        self.adj = adj

    def _separator(self, i, j):
        return tuple(sorted(set(self.maximal[i]) & set(self.maximal[j])))

    def _log_potentials(self, theta):
        cards = self.n_categories
        if getattr(self, "_base_pots", None) is None:
            # The base's share is fixed between tree rebuilds: summed once.
            self._base_pots = [np.zeros(cards[list(m)]) for m in self.maximal]
            for cl, t in self.base.items():
                k = self.home[cl]
                self._base_pots[k] += _expand(t, cl, self.maximal[k], cards)
        pots = list(self._base_pots)
        for cl, t in theta.items():
            k = self.home[cl]
            pots[k] = pots[k] + _expand(t, cl, self.maximal[k], cards)
        return pots

    def _beliefs(self, theta):
        """Normalised beliefs of every maximal clique (two passes).

        Sum-product in probability space: each clique's potential is
        exponentiated once, shifted by its maximum, and every message is
        rescaled to sum to one (the shifts and scales cancel in the
        normalised beliefs). A message is the clique's table times its other
        incoming messages, summed onto the separator.

        Every table entry is at least ``exp(-span)`` (its potential's max -
        min) and every rescaled message entry at least the product of those
        bounds over its subtree divided by the cells summed, so nothing
        underflows to 0 while ``Σ (span + log cells)`` over the cliques stays
        within ``_EXP_SPAN`` nats. Beyond it the passes run in log space.
        """
        pots = self._log_potentials(theta)
        if sum(float(np.ptp(p)) + np.log(p.size) for p in pots) > _EXP_SPAN:
            return self._log_space_beliefs(pots)
        tables = [np.exp(p - p.max()) for p in pots]
        cards = self.n_categories
        msg = {}

        def incoming(i, skip):
            # The table times its other messages (one over an empty
            # separator is a constant, which the normalisation removes).
            m = self.maximal[i]
            acc = tables[i]
            for k in self.adj[i]:
                sep = self._separator(k, i)
                if k != skip and sep:
                    acc = acc * _expand(msg[k, i], sep, m, cards)
            return acc

        def send(i, j):
            sep = self._separator(i, j)
            axes = tuple(a for a, c in enumerate(self.maximal[i]) if c not in sep)
            out = incoming(i, j).sum(axis=axes)
            msg[i, j] = out / out.sum()

        self._passes(send)
        beliefs = []
        for i in range(len(self.maximal)):
            b = incoming(i, None)
            beliefs.append(b / b.sum())
        return beliefs

    def _log_space_beliefs(self, pots):
        """:meth:`_beliefs` with log messages (any span of the potentials)."""
        cards = self.n_categories
        msg = {}

        def incoming(i, skip):
            m = self.maximal[i]
            acc = pots[i]
            for k in self.adj[i]:
                if k != skip:
                    acc = acc + _expand(msg[k, i], self._separator(k, i), m, cards)
            return acc

        def send(i, j):
            sep = self._separator(i, j)
            axes = tuple(a for a, c in enumerate(self.maximal[i]) if c not in sep)
            msg[i, j] = _log_sum(incoming(i, j), axes)

        self._passes(send)
        beliefs = []
        for i, m in enumerate(self.maximal):
            acc = incoming(i, None)
            beliefs.append(np.exp(acc - _log_sum(acc, tuple(range(len(m))))))
        return beliefs

    def _passes(self, send):
        """Leaves to root, then root to leaves."""
        for i in reversed(self.bfs[1:]):
            send(i, self.parent[i])
        for i in self.bfs[1:]:
            send(self.parent[i], i)

    def calibrate(self):
        self.beliefs = self._beliefs(self.theta)

    def _clique_marginal(self, cols, beliefs, cache=None):
        """Marginal of sorted ``cols`` (inside a clique), flat.

        With a ``cache`` dict (valid for these ``beliefs`` only) and a clique
        of more than ``_DIRECT_CELLS`` cells, the clique's table is reduced
        one column at a time, the smallest column not in ``cols`` first, and
        every intermediate table is kept: the marginals of many small sets of
        one large clique then share the sums over its large tables instead of
        each summing the whole clique. For sets of at most ``k`` columns the
        kept tables hold fewer than ``2**(k + 1)`` times the clique's cells
        (binary columns; fewer with more categories, and 1-category columns
        are never summed along the chain): 15 times for every 1-3-way set of
        a 16-column binary clique.
        """
        k = self.home.get(cols)
        if k is None:
            k = self._container(cols)
        return self._sum_to(k, cols, beliefs, cache).ravel()

    def _sum_to(self, k, cols, beliefs, cache=None):
        """Clique ``k``'s table summed onto its sorted columns ``cols``."""
        m = self.maximal[k]
        if len(cols) == len(m):
            return beliefs[k]
        if cache is None or beliefs[k].size <= _DIRECT_CELLS:
            axes = tuple(a for a, c in enumerate(m) if c not in cols)
            return beliefs[k].sum(axis=axes)
        return self._reduced(k, cols, beliefs, cache)

    def _reduced(self, k, cols, beliefs, cache):
        # The chain runs over the columns of more than one category (summing
        # out a 1-category column does not shrink a table): the clique's
        # table without them is a view, and ``cols``' table a reshape.
        cards = self.n_categories
        table = self._chain(k, tuple(c for c in cols if cards[c] > 1), beliefs, cache)
        return table.reshape(cards[list(cols)])

    def _chain(self, k, cols, beliefs, cache):
        cards = self.n_categories
        full = [c for c in self.maximal[k] if cards[c] > 1]
        if len(cols) == len(full):
            return beliefs[k].reshape(cards[full])
        key = (k, cols)
        if key not in cache:
            # The parent keeps one more column: the largest one dropped.
            extra = max(c for c in full if c not in cols)
            parent = tuple(sorted((*cols, extra)))
            table = self._chain(k, parent, beliefs, cache)
            cache[key] = table.sum(axis=parent.index(extra))
        return cache[key]

    def _container(self, cols):
        inside = [k for k, m in enumerate(self.maximal) if set(cols) <= set(m)]
        if not inside:
            return None
        return min(inside, key=lambda k: self.size(self.maximal[k]))

    def marginal(self, cols, cache=None):
        """Marginal of the column set ``cols``, flat in C order of ``cols``.

        The columns may come in any order (the cells follow it); a repeated
        column is refused. ``cache``: a dict shared by calls between two
        calibrations (see :meth:`_clique_marginal`).
        """
        cols = tuple(int(c) for c in cols)
        key = tuple(sorted(cols))
        if len(set(cols)) != len(cols):
            raise ValueError(f"A column set holds distinct columns, got {cols}.")
        k = self._container(key)
        if k is not None:
            # (A copy: the sum may be a view of the beliefs or the cache.)
            out = np.array(self._sum_to(k, key, self.beliefs, cache)).ravel()
        else:
            out = self._contract(key, cache)
        if cols == key:
            return out
        table = out.reshape(self.n_categories[list(key)])
        return np.transpose(table, [key.index(c) for c in cols]).ravel()

    def _contract(self, cols, cache=None):
        """A set in no clique: ``Σ Π β_k / Π μ_s`` over the covering subtree.

        The subtree joins a clique holding each column (the calibrated
        branches outside it sum to one); it is contracted from its leaves up,
        each node keeping only the query's columns and its separator with its
        parent, so no table holds more than one clique's columns plus the
        query's. Each clique is first summed onto the columns the contraction
        needs of it (the query's, and its separators in the subtree).
        """
        targets = {min((k for k, m in enumerate(self.maximal) if c in m)) for c in cols}
        keep = set()
        anchor = next(iter(targets))
        for t in targets:
            path_t, path_a = self._path_to_root(t), self._path_to_root(anchor)
            common = set(path_t) & set(path_a)
            for path in (path_t, path_a):
                for node in path:
                    keep.add(node)
                    if node in common:
                        break
        wanted = set(cols)
        done = {}
        root = None
        for k in reversed(self.bfs):  # children before parents
            if k not in keep:
                continue
            p = self.parent[k]
            sep = self._separator(k, p) if p in keep else ()
            children = [c for c in self.adj[k] if c in done and self.parent[c] == k]
            needed = wanted.union(sep, *(self._separator(c, k) for c in children))
            names = [c for c in self.maximal[k] if c in needed]
            table = self._sum_to(k, tuple(names), self.beliefs, cache)
            for child in children:
                table, names = _product(table, names, *done.pop(child))
            kept = [c for c in names if c in wanted or c in sep]
            axes = tuple(a for a, c in enumerate(names) if c not in kept)
            table = table.sum(axis=axes) if axes else table
            if p in keep:
                mu = (
                    self._clique_marginal(sep, self.beliefs, cache).reshape(
                        self.n_categories[list(sep)]
                    )
                    if sep
                    else np.array(1.0)
                )
                # A subnormal separator mass counts as 0: its inverse
                # overflowed (a RuntimeWarning that depended on the noise,
                # 1 fit in 80 on all-zero rows; a review), for a mass that
                # contributes nothing.
                positive = mu >= _TINY
                inv = np.where(positive, 1.0 / np.where(positive, mu, 1.0), 0.0)
                table, kept = _product(table, kept, inv, list(sep))
                done[k] = (table, kept)
            else:
                root = (table, kept)
        table, names = root
        out = np.transpose(table, [names.index(c) for c in cols])
        return (out / out.sum()).ravel()

    def _path_to_root(self, k):
        path = [k]
        while self.parent[path[-1]] != -1:
            path.append(self.parent[path[-1]])
        return path

    def all_marginals(self, cliques):
        """Marginals of many sorted column tuples: a dict ``cols -> flat``."""
        cache = {}
        return {tuple(c): self.marginal(c, cache) for c in cliques}

    def _loss(self, beliefs, measurements):
        loss = 0.0
        resid = {}
        cache = {}
        for cols, y, w in measurements:
            r = self._clique_marginal(cols, beliefs, cache) - y
            loss += 0.5 * float((w * r) @ r)
            resid[cols] = (w * r, r)
        return loss, resid

    def fit(self, measurements, n_iter, learning_rate=None, state=None):
        """Mirror descent on the potentials, ``n_iter`` steps with Armijo search.

        ``measurements``: a list of ``(cols, y, w)``, sorted column tuple,
        target marginal (fractions, flat) and weight (one or per cell). Sets
        without a potential get one. ``learning_rate`` and ``state`` are
        unused (the signature of :meth:`ProductMixture.fit`).
        """
        self.add_cliques([cols for cols, _, _ in measurements])
        loss, resid = self._loss(self.beliefs, measurements)
        # Every fit starts its search at a step of at least 1: a step shrunk
        # to nothing at the end of the last fit (converged there) would
        # leave the new measurements unfitted.
        self.eta = max(self.eta, 1.0)
        for _ in range(int(n_iter)):
            eta = self.eta
            converged = False
            while True:
                theta = dict(self.theta)
                for cols, (g, _) in resid.items():
                    # Less its mean: a constant added to a potential changes
                    # nothing (p is normalised), and targets that do not sum
                    # to 1 would otherwise drift it without bound.
                    step = eta * (g - g.mean())
                    theta[cols] = theta[cols] - step.reshape(theta[cols].shape)
                b = self._beliefs(theta)
                new_loss, new_resid = self._loss(b, measurements)
                # Armijo: the loss falls by half the linear prediction
                # <g, μ - μ_new> (Private-PGM's line search).
                drop = sum(
                    float(g @ (r - new_resid[c][1])) for c, (g, r) in resid.items()
                )
                if new_loss <= loss - 0.5 * drop:
                    break
                eta *= 0.5
                if eta < _MIN_STEP:
                    # No step decreases the loss beyond rounding: converged.
                    converged = True
                    break
            if converged:
                break
            self.theta, self.beliefs = theta, b
            loss, resid = new_loss, new_resid
            # (Capped: with a flat loss every step is accepted.)
            self.eta = min(2.0 * eta, _MAX_STEP)
        return state

    def sample(self, n_samples, rng):
        """Integer-coded rows drawn from the model, clique after clique."""
        cards = self.n_categories
        out = np.zeros((n_samples, cards.size), dtype=np.intp)
        for k in self.bfs:
            m = self.maximal[k]
            p = self.parent[k]
            sep = self._separator(k, p) if p >= 0 else ()
            rest = [c for c in m if c not in sep]
            if not rest:
                continue
            # Conditional of the rest given the separator: axes (sep, rest).
            b = np.transpose(
                self.beliefs[k], [m.index(c) for c in sep] + [m.index(c) for c in rest]
            ).reshape(self.size(sep) if sep else 1, -1)
            cdf = np.cumsum(b, axis=1)
            cdf /= np.where(cdf[:, -1:] > 0, cdf[:, -1:], 1.0)
            code = np.zeros(n_samples, dtype=np.int64)
            for c in sep:
                code = code * int(cards[c]) + out[:, c]
            # One sorted array: row s's cdf shifted by s, searched at code + u.
            flat = (cdf + np.arange(cdf.shape[0])[:, None]).ravel()
            u = rng.random(n_samples)
            pos = np.searchsorted(flat, code + u, side="right") - code * cdf.shape[1]
            pos = np.minimum(pos, cdf.shape[1] - 1)
            out[:, rest] = np.stack(np.unravel_index(pos, cards[rest]), axis=1)
        return out


def public_base(public, cards, n_public, *, cap, steps, temper):
    """Log base measure of the graphical model: a pair model of the public rows.

    Public pairs are taken by decreasing mutual information, bias-corrected
    (Miller-Madow: minus ``(r - 1)(c - 1) / (2 m)`` for ``m`` public rows), as
    long as it is positive and the junction tree stays within ``cap`` cells.
    A :class:`GraphicalModel` is fitted to the public 1-way and chosen pair
    marginals (each smoothed by half a count per cell) in ``steps``
    mirror-descent steps, and its pair potentials, times ``temper``, are the
    base: the public dependence, tempered, fills in what no round
    measures. Reads public marginals only. Empty when the candidates hold no pair.
    """
    cards = np.asarray(cards)
    smoothed, scored = {}, []
    for c, p in public.items():
        if len(c) > 2:
            continue
        smoothed[c] = (p * n_public + 0.5) / (n_public + 0.5 * p.size)
        if len(c) == 2:
            i, j = c
            q = smoothed[c].reshape(int(cards[i]), int(cards[j]))
            indep = np.outer(q.sum(1), q.sum(0))
            mi = float(np.sum(q * np.log(q / indep)))
            mi -= (cards[i] - 1) * (cards[j] - 1) / (2.0 * n_public)
            if mi > 0:
                scored.append((-mi, c))
    if not scored:
        return {}
    model = GraphicalModel(cards)
    chosen = []
    for _, c in sorted(scored):
        if model.contains(c) or model.model_size([c]) <= cap:
            chosen.append(c)
            model.add_cliques([c])
    # (A column in no candidate keeps a uniform potential.)
    targets = [(c, smoothed[c], 1.0) for c in smoothed if len(c) == 1]
    model.fit(targets + [(c, smoothed[c], 1.0) for c in chosen], steps)
    return {c: temper * t for c, t in model.theta.items() if len(c) == 2}
