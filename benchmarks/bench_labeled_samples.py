"""Labeled-sample complexity of LabelBoost and the SubSampling active learner.

Run: ``python benchmarks/bench_labeled_samples.py [--quick]``.

Three measurements (issue 12), accuracy on 4000 fresh test points, mean and
standard deviation over seeds (each fit draws fresh noise):

1. thresholds on [0, 1] and axis-aligned rectangles on an 8 x 8 grid of
   [0, 1]^2: the base private learner alone (exponential mechanism over every
   grid hypothesis, epsilon = 1) against LabelBoost around it, by the number
   of labeled private rows m. The paper's constants need astronomically many
   rows (first table); LabelBoost is run with the paper's privacy steps and a
   *scaled* growth constant (``growth_denominator``), labeled as such;
2. the active learner at several epsilon, m labels asked, against the base
   learner run at that epsilon on m labeled rows.

The rectangle class lives here (a benchmark helper, not a package class):
one member per dichotomy of the grid cells occupied by the given points
(tight rectangles, exactly), or every grid rectangle with ``all_cells=True``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import itertools
import time

import numpy as np
from _common import print_environment, print_table

from sklearn_semiprivate import (
    LabelBoostClassifier,
    SemiPrivateClassifier,
    SubSamplingActiveClassifier,
)
from sklearn_semiprivate.classifiers._labelboost_steps import _minimum_labeled
from sklearn_semiprivate.hypotheses import Cover, HypothesisClass

GRID = 8
RECT = (2, 5, 2, 4)  # target cells: x in [2/8, 6/8), y in [2/8, 5/8)


def _cells(X, g):
    return np.clip((np.asarray(X, dtype=float) * g).astype(int), 0, g - 1)


class GridRectangles(HypothesisClass):
    """Label 1 on a rectangle of cells of a ``g x g`` grid of [0, 1]^2, else 0."""

    def __init__(self, g=GRID, all_cells=False):
        self.g = g
        self.all_cells = all_cells

    def cover(self, X_public, classes=(0, 1)):
        g = self.g
        occupied = np.ones((g, g), dtype=bool)
        if not self.all_cells:
            occupied = np.zeros((g, g), dtype=bool)
            c = _cells(X_public, g)
            occupied[c[:, 0], c[:, 1]] = True
        lo, hi = np.triu_indices(g)  # every interval of cells [lo, hi]
        a1, a2 = np.repeat(lo, lo.size), np.tile(lo, lo.size)
        b1, b2 = np.repeat(hi, hi.size), np.tile(hi, hi.size)
        # A rectangle is tight (one per non-empty dichotomy of the occupied
        # cells) iff each of its four sides holds an occupied cell inside it.
        cy = np.concatenate([np.zeros((g, 1), int), occupied.cumsum(1)], axis=1)
        cx = np.concatenate([np.zeros((1, g), int), occupied.cumsum(0)], axis=0)
        tight = (
            (cy[a1, b2 + 1] - cy[a1, a2] > 0)
            & (cy[b1, b2 + 1] - cy[b1, a2] > 0)
            & (cx[b1 + 1, a2] - cx[a1, a2] > 0)
            & (cx[b1 + 1, b2] - cx[a1, b2] > 0)
        )
        boxes = np.column_stack([a1, b1, a2, b2])[tight]
        return RectangleCover(boxes, g, np.asarray(classes))


class RectangleCover(Cover):
    """The empty rectangle (member 0) and ``boxes`` (cell bounds, inclusive)."""

    def __init__(self, boxes, g, classes):
        self.boxes, self.g = boxes, g
        self.classes_, self.n_features_in_ = classes, 2

    @property
    def size(self):
        return 1 + self.boxes.shape[0]

    def scores(self, X, y):
        c = _cells(X, self.g)
        # Correct = (#label 0) + sum over the box of (#1 - #0): 2-D prefix sums.
        diff = np.zeros((self.g + 1, self.g + 1))
        np.add.at(diff, (c[:, 0] + 1, c[:, 1] + 1), np.where(y == 1, 1.0, -1.0))
        P = diff.cumsum(0).cumsum(1)
        a1, b1, a2, b2 = self.boxes.T
        inside = P[b1 + 1, b2 + 1] - P[a1, b2 + 1] - P[b1 + 1, a2] + P[a1, a2]
        n0 = np.count_nonzero(y == 0)
        return np.concatenate([[n0], n0 + inside]).astype(np.int64)

    def predict(self, member, X):
        if member == 0:
            return np.zeros(len(X), dtype=int)
        a1, b1, a2, b2 = self.boxes[member - 1]
        c = _cells(X, self.g)
        inside = (c[:, 0] >= a1) & (c[:, 0] <= b1) & (c[:, 1] >= a2) & (c[:, 1] <= b2)
        return inside.astype(int)

    def describe(self, member, *, feature_names=None):
        return "empty" if member == 0 else f"cells {self.boxes[member - 1].tolist()}"


def check_rectangle_cover():
    """One member per dichotomy of the occupied cells (brute force, tiny)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(12, 2))
    cover = GridRectangles(4).cover(X)
    labelings = {tuple(cover.predict(i, X)) for i in range(cover.size)}
    assert len(labelings) == cover.size
    cells = _cells(X, 4)
    brute = set()
    for a1, b1, a2, b2 in itertools.product(range(4), repeat=4):
        inside = (
            (cells[:, 0] >= a1) & (cells[:, 0] <= b1)
            & (cells[:, 1] >= a2) & (cells[:, 1] <= b2)
        )  # fmt: skip
        brute.add(tuple(inside.astype(int)))
    assert labelings == brute | {tuple(np.zeros(12, int))}


def target(task, X):
    if task == "thresholds":
        return (X[:, 0] > 0.3).astype(int)
    c = _cells(X, GRID)
    a1, b1, a2, b2 = RECT
    inside = (c[:, 0] >= a1) & (c[:, 0] <= b1) & (c[:, 1] >= a2) & (c[:, 1] <= b2)
    return inside.astype(int)


def base_learner(task, epsilon=1.0):
    if task == "thresholds":
        return SemiPrivateClassifier(
            "thresholds", epsilon=epsilon, bounds=(0, 1), n_public=64, classes=[0, 1]
        )
    return SemiPrivateClassifier(
        GridRectangles(all_cells=True), epsilon=epsilon, bounds=(0, 1), n_public=4,
        classes=[0, 1],
    )  # fmt: skip


def accuracy(make, task, n_labeled, n_unlabeled, seeds):
    scores = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        dim = 1 if task == "thresholds" else 2
        X = rng.uniform(size=(n_labeled + n_unlabeled, dim))
        y = target(task, X)
        y[n_labeled:] = -1
        X_test = rng.uniform(size=(4000, dim))
        scores.append(make().fit(X, y).score(X_test, target(task, X_test)))
    return f"{100 * np.mean(scores):.1f} ± {100 * np.std(scores):.1f}"


def paper_constants_table():
    rows = []
    for n in (10, 100, 1000, 10**4, 10**5):
        for vc in (2, 4):
            m, u = _minimum_labeled(
                n, vc_dim=vc, alpha=0.1, beta=0.1, growth_denominator=200.0,
                batch_factor=30000.0,
            )  # fmt: skip
            rounds = "none (m = 300 n)" if m == 300 * n else f"{u:,}"
            rows.append([n, vc, f"{m:,}", rounds])
    print_table(
        "Paper's constants (alpha = beta = 0.1): fewest labeled rows m for which "
        "LabelBoost runs, and the unlabeled rows its rounds then need",
        ["base n", "VC", "labeled m", "unlabeled (rounds)"],
        rows,
    )


def labelboost_table(task, seeds, quick):
    n_base, g, vc = 10, 0.1, 2 if task == "thresholds" else 4
    n_unlabeled = 320_000
    sizes = [30, 100, 300, 1000, 3000] if not quick else [100, 1000]
    boost_sizes = [1000, 2000, 2900, 3000] if not quick else [2000]
    rows = []
    for m in sorted(set(sizes) | set(boost_sizes)):
        alone = accuracy(lambda t=task: base_learner(t), task, m, 0, seeds)
        boosted = "-"
        if m in boost_sizes:
            cls = "thresholds" if task == "thresholds" else GridRectangles()

            def make(cls=cls):
                return LabelBoostClassifier(
                    base_learner(task), hypothesis_class=cls, vc_dim=vc,
                    n_base=n_base, growth_denominator=g, classes=[0, 1],
                )  # fmt: skip

            try:
                boosted = accuracy(make, task, m, n_unlabeled, seeds)
            except ValueError as exc:
                boosted = f"refused ({str(exc)[:40]}...)"
        rows.append([m, alone, boosted])
    print_table(
        f"{task}: accuracy % by labeled rows m (base alone on m rows, eps = 1; "
        f"LabelBoost with n = {n_base}, {n_unlabeled:,} unlabeled rows, SCALED "
        f"growth_denominator = {g} instead of 200; (1, 0)-DP either way)",
        ["labeled m", "base alone", "LabelBoost"],
        rows,
    )


def active_table(seeds, quick):
    rows = []
    eps_list = [1.0, 0.5, 0.2, 0.1, 0.05] if not quick else [1.0, 0.1]
    for m in (50, 200):
        for eps in eps_list:
            pool = int(np.ceil(m * (3 + np.e**2) / eps)) + 1
            alone = accuracy(lambda e=eps: base_learner("thresholds", e),
                             "thresholds", m, 0, seeds)  # fmt: skip

            def make(e=eps, m=m):
                return SubSamplingActiveClassifier(
                    base_learner("thresholds"), epsilon=e, n_subsample=m
                )

            active = accuracy(make, "thresholds", pool, 0, seeds)
            rows.append([m, eps, f"{pool:,}", alone, active])
    print_table(
        "Active learner (thresholds): m labels asked from a pool of t = m (3 + "
        "e^2) / eps rows, base eps* = 1, against the base learner run at eps on m "
        "labeled rows; both eps-DP",
        ["labels m", "eps", "pool t", "base at eps", "active"],
        rows,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    seeds = range(3) if args.quick else range(10)
    print_environment()
    check_rectangle_cover()
    started = time.perf_counter()
    paper_constants_table()
    for task in ("thresholds", "rectangles"):
        labelboost_table(task, seeds, args.quick)
    active_table(seeds, args.quick)
    print(f"\n{len(seeds)} seeds; total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
