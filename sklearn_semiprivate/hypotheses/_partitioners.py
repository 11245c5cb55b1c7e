"""Partitions of the feature space fitted on public points, and cell lookup.

Helpers of :mod:`._partition`: each partition maps rows to cell keys (one row of
integers, or of any sortable ids, per point) and describes a key in words,
``describe(key, names)``, with ``names[j]`` the text printed for feature ``j``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from ..utils._private_predict import float32_safe, rowwise

__all__ = ["CellIndex", "EstimatorCells", "MedianSplits", "QuantileGrid"]


class QuantileGrid:
    """Axis-aligned grid with per-feature public quantiles as edges."""

    def __init__(self, X, n_bins):
        levels = np.arange(1, n_bins) / n_bins
        self.edges = [np.unique(np.quantile(col, levels)) for col in X.T]

    def keys(self, X):
        # Bin b of feature j: edges[b - 1] < x[j] <= edges[b].
        return np.column_stack(
            [np.searchsorted(e, X[:, j], side="left") for j, e in enumerate(self.edges)]
        )

    def describe(self, key, names):
        parts = []
        for j, (e, b) in enumerate(zip(self.edges, key, strict=True)):
            if e.size == 0:
                continue
            if b == 0:
                parts.append(f"{names[j]} <= {e[0]:.6g}")
            elif b == e.size:
                parts.append(f"{names[j]} > {e[-1]:.6g}")
            else:
                parts.append(f"{e[b - 1]:.6g} < {names[j]} <= {e[b]:.6g}")
        return " and ".join(parts) if parts else "everywhere"


class MedianSplits:
    """k-d tree of public median splits (widest public feature first)."""

    def __init__(self, X, depth):
        self.feature, self.threshold = [-1], [0.0]
        self.left, self.right = [-1], [-1]
        self.path = [[]]
        frontier = [(0, np.arange(X.shape[0]))]
        for _ in range(depth):
            next_frontier = []
            for node, rows in frontier:
                sub = X[rows]
                spread = sub.max(axis=0) - sub.min(axis=0)
                j = int(np.argmax(spread))
                if rows.size < 2 or spread[j] == 0:
                    continue
                values = np.unique(sub[:, j])
                thr = float(np.median(sub[:, j]))
                if thr >= values[-1]:
                    # Both children must hold public points.
                    thr = float(values[-2])
                go_left = sub[:, j] <= thr
                self.feature[node], self.threshold[node] = j, thr
                children = []
                # A path step is (feature, "<=" or ">", threshold), printed
                # by describe with the feature's name.
                for child_rows, step in (
                    (rows[go_left], (j, "<=", thr)),
                    (rows[~go_left], (j, ">", thr)),
                ):
                    children.append(len(self.feature))
                    self.feature.append(-1)
                    self.threshold.append(0.0)
                    self.left.append(-1)
                    self.right.append(-1)
                    self.path.append([*self.path[node], step])
                    next_frontier.append((children[-1], child_rows))
                self.left[node], self.right[node] = children
            frontier = next_frontier
        self.feature = np.asarray(self.feature)
        self.threshold = np.asarray(self.threshold)
        self.left, self.right = np.asarray(self.left), np.asarray(self.right)
        self.depth = depth

    def keys(self, X):
        node = np.zeros(X.shape[0], dtype=np.intp)
        rows = np.arange(X.shape[0])
        for _ in range(self.depth):
            feature = self.feature[node]
            inner = feature >= 0
            if not inner.any():
                break
            r, f = rows[inner], feature[inner]
            go_left = X[r, f] <= self.threshold[node[inner]]
            node[inner] = np.where(
                go_left, self.left[node[inner]], self.right[node[inner]]
            )
        return node[:, None]

    def describe(self, key, names):
        steps = self.path[int(key[0])]
        texts = [f"{names[j]} {op} {thr:.6g}" for j, op, thr in steps]
        return " and ".join(texts) or "everywhere"


class EstimatorCells:
    """Cells given by a fitted estimator: leaf ids (``apply``) or ``predict``."""

    def __init__(self, estimator, name):
        self.estimator = estimator
        self.method = "apply" if hasattr(estimator, "apply") else "predict"
        self.name = name

    def keys(self, X):
        # A tree fails on a finite float64 beyond float32, which could fail a
        # cover built on private points (LabelBoost's S o T; a review).
        X = float32_safe(self.estimator, X)
        keys = np.asarray(getattr(self.estimator, self.method)(X))
        if keys.ndim == 1:
            keys = keys[:, None]
        if keys.ndim != 2 or keys.shape[0] != X.shape[0]:
            raise ValueError(
                f"{self.method} of the partitioner must return one cell id per row, "
                f"got shape {keys.shape}."
            )
        if not hasattr(self, "_fill"):  # the first call: the public rows
            self._fill = keys[0].copy()
        return keys

    def private_keys(self, X):
        """:meth:`keys` of private (or new) rows, row by row where it fails.

        Returns the keys and a mask, False for a row the estimator cannot map
        (an encoder's unseen category; a tree takes every finite row, see
        :meth:`keys`): its key is a placeholder, and the cover treats it as in
        no public cell (its ``unseen`` rule), instead of the fit raising after
        its charge on that dataset and not on its neighbour (a review).
        """
        return rowwise(self.keys, X, fill=self._fill)

    def describe(self, key, names):
        # Cells of a fitted estimator are named by their id; no feature to name.
        key = key.tolist()
        return f"{self.name} {key[0] if len(key) == 1 else tuple(key)}"


class CellIndex:
    """Map cell keys (rows) to the index of an occupied cell, or -1.

    Keys are compressed column by column into ranks among the public keys, so the
    lookup costs ``O(n log m)`` per column and never multiplies large ids.
    """

    def __init__(self, keys):
        self.steps = []
        code = None
        for col in keys.T:
            values = np.unique(col)
            rank = np.searchsorted(values, col)
            combined = rank if code is None else code * values.size + rank
            uniq = np.unique(combined)
            code = np.searchsorted(uniq, combined)
            self.steps.append((values, uniq))
        self.public_code = code
        self.n_cells = int(self.steps[-1][1].size)

    def lookup(self, keys):
        valid = np.ones(keys.shape[0], dtype=bool)
        code = None
        for col, (values, uniq) in zip(keys.T, self.steps, strict=True):
            rank = np.clip(np.searchsorted(values, col), 0, values.size - 1)
            valid &= values[rank] == col
            combined = rank if code is None else code * values.size + rank
            pos = np.clip(np.searchsorted(uniq, combined), 0, uniq.size - 1)
            valid &= uniq[pos] == combined
            code = pos
        return np.where(valid, code, -1)
