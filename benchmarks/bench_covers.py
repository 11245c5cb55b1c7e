"""Speed and memory of the public-point covers (a script, not a timed test).

Run: ``python benchmarks/bench_covers.py [--quick]``.

Goals (issue 3):

* ``DecisionStumps``: cover + scores for n private rows x 20 features with
  m = 1e4 public rows within 2x of ``np.argsort(X_priv, axis=0)`` in the same run.
* ``Intervals``: exact exponential-mechanism sampling at m = 3000 at least 10x
  faster than enumerating every member (all scores + Gumbel-max).
* Peak memory of stump scoring linear in n + m + len(cover) (tracemalloc).
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import tracemalloc

import numpy as np
from _common import best_time, print_environment, print_table

from sklearn_semiprivate.hypotheses import DecisionStumps, Intervals


def bench_stumps(sizes, n_features, n_public, repeat):
    rows = []
    for n in sizes:
        rng = np.random.default_rng(0)
        X_pub = rng.normal(size=(n_public, n_features))
        X = rng.normal(size=(n, n_features))
        y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
        t_sort = best_time(lambda X=X: np.argsort(X, axis=0), repeat)
        t_cover = best_time(lambda X_pub=X_pub: DecisionStumps().cover(X_pub), repeat)
        cover = DecisionStumps().cover(X_pub)
        t_scores = best_time(lambda X=X, y=y, c=cover: c.scores(X, y), repeat)
        total = t_cover + t_scores
        rows.append(
            [
                f"{n:.0e}",
                n_features,
                f"{n_public:.0e}",
                len(cover),
                f"{t_sort * 1e3:.1f}",
                f"{t_cover * 1e3:.1f}",
                f"{t_scores * 1e3:.1f}",
                f"{total / t_sort:.2f}",
                "yes" if total <= 2 * t_sort else "NO",
            ]
        )
    print_table(
        "DecisionStumps: cover + scores vs np.argsort(X_priv, axis=0) "
        f"(best of {repeat})",
        [
            "n",
            "d",
            "m",
            "len(cover)",
            "argsort ms",
            "cover ms",
            "scores ms",
            "ratio",
            "<= 2x",
        ],
        rows,
    )


def enumerate_and_sample(cover, X, y, epsilon, rng):
    # The reference: every member scored, then Gumbel-max over all of them.
    log_w = epsilon / 2.0 * cover.scores(X, y)
    return int(np.argmax(log_w + rng.gumbel(size=log_w.size)))


def bench_intervals(n_public, n, repeat):
    rng = np.random.default_rng(1)
    cover = Intervals().cover(rng.uniform(size=(n_public, 1)))
    X = rng.uniform(size=(n, 1))
    y = ((X[:, 0] > 0.2) & (X[:, 0] <= 0.6)).astype(int)
    eps = 1.0
    t_chain = best_time(
        lambda: cover.sample_exponential(X, y, eps, random_state=rng), repeat
    )
    t_enum = best_time(lambda: enumerate_and_sample(cover, X, y, eps, rng), repeat)
    print_table(
        f"Intervals: exact exponential-mechanism draw (best of {repeat})",
        [
            "m",
            "n",
            "len(cover)",
            "factorised ms",
            "enumerated ms",
            "speed-up",
            ">= 10x",
        ],
        [
            [
                n_public,
                f"{n:.0e}",
                len(cover),
                f"{t_chain * 1e3:.2f}",
                f"{t_enum * 1e3:.1f}",
                f"{t_enum / t_chain:.0f}x",
                "yes" if t_enum >= 10 * t_chain else "NO",
            ]
        ],
    )


def peak_scoring_memory(n, n_public, n_features):
    rng = np.random.default_rng(2)
    cover = DecisionStumps().cover(rng.normal(size=(n_public, n_features)))
    X = rng.normal(size=(n, n_features))
    y = rng.integers(0, 2, size=n)
    tracemalloc.start()
    tracemalloc.reset_peak()
    cover.scores(X, y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return len(cover), peak


def bench_memory(configs, n_features):
    rows = []
    for n, n_public in configs:
        size, peak = peak_scoring_memory(n, n_public, n_features)
        units = n + n_public + size
        rows.append(
            [
                f"{n:.0e}",
                f"{n_public:.0e}",
                size,
                f"{peak / 2**20:.2f}",
                f"{peak / units:.1f}",
                f"{n * n_features * 8 / 2**20:.2f}",
            ]
        )
    print_table(
        "Peak memory of DecisionStumps scoring (tracemalloc; X_priv itself "
        f"not counted, d={n_features})",
        ["n", "m", "len(cover)", "peak MiB", "bytes/(n+m+len)", "X_priv MiB"],
        rows,
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    args = parser.parse_args()
    print_environment()
    if args.quick:
        bench_stumps([10**4], 20, 10**3, repeat=2)
        bench_intervals(500, 10**4, repeat=2)
        bench_memory([(10**4, 10**3), (4 * 10**4, 10**3)], 5)
        return
    bench_stumps([10**5, 10**6], 20, 10**4, repeat=3)
    bench_intervals(3000, 10**5, repeat=3)
    bench_memory(
        [
            (10**4, 10**4),
            (10**5, 10**4),
            (10**6, 10**4),
            (10**5, 10**3),
            (10**5, 10**5),
        ],
        20,
    )


if __name__ == "__main__":
    main()
