"""Accuracy and speed of public-data-assisted query release (a script, not a test).

Run: ``python benchmarks/bench_query_release.py [--quick]``.

Tables:

1. Thresholds on R: max error of APAP (``support="representative"``) and PMW^Pub
   (``support="public"``) against ``n_private`` and ``n_public``, beside the
   theory: the accuracy Lemma 7 guarantees at that ``n`` (smallest ``alpha``
   with ``pmw_private_sample_size(alpha, ...) <= n``) and the cover term of
   Lemma 11, ``(ln m + ln(1/beta)) / m`` (constant taken as 1).
2. 3-way marginals of ``load_breast_cancer`` (10 columns, 3 quantile bins fitted
   on the public rows; 419 private rows) and of a larger synthetic latent-class
   dataset (10 columns x 3 categories, 20000 private rows), with i.i.d. public
   rows and with a selection shift (public rows mostly of one class): max error
   at eps in {0.1, 0.5, 1} for both supports, public-only answers, and
   full-domain MWEM (3^10 points).
   Goals: under the shift, support="public" at eps = 1 at least 5x below
   public-only; with i.i.d. public data never worse than public-only.
3. Speed of support="public": ms per round at |public| = 4000,
   |queries| ~ 2e5 (3-way marginals of 28 columns x 4 bins); goal <= 20 ms.
   Peak traced memory of the rounds against |public| + |queries|.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import math
import time
import tracemalloc

import numpy as np
from _common import print_environment, print_table
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import KBinsDiscretizer

from sklearn_semiprivate import PublicData
from sklearn_semiprivate.query_release import (
    MarginalQueries,
    PublicAssistedQueryRelease,
    ThresholdQueries,
    mwem_round_parameters,
    pmw_private_sample_size,
)
from sklearn_semiprivate.query_release._pmw import WeightedSupport, mwem_rounds


def lemma7_alpha(n, epsilon, delta, domain_size, n_queries, beta=0.05):
    """Smallest alpha that Lemma 7 guarantees with n private rows (bisection)."""
    if domain_size < 2:
        return 0.0

    def need(a):
        return pmw_private_sample_size(a, beta, epsilon, delta, domain_size, n_queries)

    if need(0.999) > n:
        return math.inf
    lo, hi = 1e-6, 0.999
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if need(mid) > n else (lo, mid)
    return hi


def fmt(x):
    return "inf" if not np.isfinite(x) else f"{x:.4f}"


def bench_thresholds(quick):
    eps, delta, alpha, beta = 0.5, 1e-6, 0.05, 0.05
    queries = ThresholdQueries(np.linspace(-3, 3, 121))
    seeds = range(2 if quick else 3)

    def run(n, m):
        out = {"representative": [], "public": [], "public-only": []}
        for s in seeds:
            rng = np.random.default_rng(s)
            X = rng.normal(size=(n, 1))
            X_pub = rng.normal(size=(m, 1))
            truth = queries.evaluate(X)
            out["public-only"].append(np.abs(queries.evaluate(X_pub) - truth).max())
            for support in ("representative", "public"):
                qr = PublicAssistedQueryRelease(
                    queries,
                    epsilon=eps,
                    delta=delta,
                    alpha=alpha,
                    support=support,
                    random_state=s,
                ).fit(X, X_public=PublicData(X_pub))
                out[support].append(np.abs(qr.answers_ - truth).max())
        return {k: float(np.mean(v)) for k, v in out.items()}

    def theory(n, m):
        # |X~| = m distinct public values, |H~| = m + 1 thresholds.
        return (
            lemma7_alpha(n, eps, delta, m, m + 1, beta),
            f"{pmw_private_sample_size(0.1, beta, eps, delta, m, m + 1):.2e}",
            (math.log(m) + math.log(1 / beta)) / m,
        )

    header = [
        "n_private",
        "n_public",
        "APAP",
        "PMW^Pub",
        "public-only",
        "Lemma 7 alpha(n)",
        "Lemma 7 n at alpha=0.1",
        "cover (ln m+ln 1/b)/m",
    ]
    rows = []
    ns = [1000, 10_000] if quick else [1000, 10_000, 100_000, 1_000_000]
    for n in ns:
        r, (a7, n7, cov) = run(n, 200), theory(n, 200)
        errs = [fmt(r[k]) for k in ("representative", "public", "public-only")]
        rows.append([n, 200, *errs, fmt(a7), n7, fmt(cov)])
    for m in [20, 50, 1000] if not quick else [20, 1000]:
        r, (a7, n7, cov) = run(10_000, m), theory(10_000, m)
        errs = [fmt(r[k]) for k in ("representative", "public", "public-only")]
        rows.append([10_000, m, *errs, fmt(a7), n7, fmt(cov)])
    print_table(
        f"Thresholds on R (N(0,1), 121 queries), eps={eps}, delta={delta}, "
        f"alpha={alpha}; mean max error over {len(seeds)} seeds",
        header,
        rows,
    )


def breast_cancer_split(shift, rng, n_public=150, n_columns=10, n_bins=3):
    data = load_breast_cancer()
    X, y = data.data[:, :n_columns], data.target  # target 1 = benign
    n = X.shape[0]
    if shift:
        # Selection shift: public rows are opt-in, mostly benign cases.
        p = np.where(y == 1, 0.95, 0.05)
    else:
        p = np.ones(n)
    pub = rng.choice(n, size=n_public, replace=False, p=p / p.sum())
    priv = np.setdiff1d(np.arange(n), pub)
    # Bins fitted on public rows only (public information).
    disc = KBinsDiscretizer(
        n_bins=n_bins, encode="ordinal", strategy="quantile", quantile_method="linear"
    )
    disc.fit(X[pub])
    Xd = disc.transform(X).astype(np.float64)
    return Xd[priv], Xd[pub], n_bins


def synthetic_split(shift, rng, n_private=20_000, n_public=1000, n_columns=10):
    """A latent-class tabular dataset: 10 columns x 3 categories.

    A hidden class ``z`` in {0, 1} (P(z=1) = 0.4) sets each column's mode; each
    column copies its mode with probability 0.6, its left neighbour with 0.2, and
    is uniform otherwise. Shifted public rows: 90% have z = 0.
    """
    n = n_private + n_public
    z = (rng.random(n) < 0.4).astype(int)
    modes = np.array([[0, 1, 2, 0, 1, 2, 0, 1, 2, 0], [2, 2, 0, 1, 0, 0, 2, 2, 1, 1]])
    X = np.empty((n, n_columns))
    for j in range(n_columns):
        u = rng.random(n)
        col = rng.integers(0, 3, n)
        col = np.where(u < 0.6, modes[z, j], col)
        if j:
            col = np.where((u >= 0.6) & (u < 0.8), X[:, j - 1], col)
        X[:, j] = col
    if shift:
        p = np.where(z == 0, 0.9, 0.1)
    else:
        p = np.ones(n)
    pub = rng.choice(n, size=n_public, replace=False, p=p / p.sum())
    priv = np.setdiff1d(np.arange(n), pub)[:n_private]
    return X[priv], X[pub], 3


def full_domain_mwem(query_set, X, cards, eps, delta, n_rounds, rng):
    """MWEM over the whole categorical domain (uniform start), same rounds."""
    atoms = np.indices(tuple(cards)).reshape(len(cards), -1).T.astype(np.float64)
    support = WeightedSupport(query_set, atoms)
    params = mwem_round_parameters(
        eps, delta, n_rounds, selection="exponential", measurement="gaussian"
    )
    mwem_rounds(
        support,
        query_set.answers(X),
        X.shape[0],
        n_rounds=n_rounds,
        params=params,
        selection="exponential",
        measurement="gaussian",
        rng=rng,
    )
    support.refresh()
    return np.clip(support.answers, 0, 1)


def support_floor(query_set, X_pub, truth, n_steps=2000):
    """Best max error reachable by reweighting the public support, *without*
    privacy: greedy multiplicative weights on the exact errors. No private
    algorithm restricted to the public support can do better than this."""
    distinct, counts = np.unique(X_pub, axis=0, return_counts=True)
    support = WeightedSupport(query_set, distinct, counts.astype(np.float64))
    for _ in range(n_steps):
        err = truth - support.answers
        i = int(np.argmax(np.abs(err)))
        support.update(i, 0.5 * err[i])
    support.refresh()
    return np.abs(support.answers - truth).max()


def bench_marginals(quick, dataset="breast_cancer"):
    delta = 1e-6
    seeds = range(2 if quick else 3)
    queries = MarginalQueries(k=3, n_categories=3)
    header = [
        "public data",
        "eps",
        "APAP (c=100)",
        "PMW^Pub",
        "T",
        "public-only",
        "MWEM full domain",
        "support floor (non-private)",
        "PMW^Pub / public-only",
    ]
    rows = []
    verdicts = []
    split = breast_cancer_split if dataset != "synthetic" else synthetic_split
    for shift in (False, True):
        for eps in (0.1, 0.5, 1.0):
            res = {"rep": [], "pub": [], "only": [], "mwem": [], "T": [], "floor": []}
            for s in seeds:
                rng = np.random.default_rng(s)
                X, X_pub, bins = split(shift, rng)
                qs = queries._bind(X.shape[1])
                truth = qs.answers(X)
                res["only"].append(np.abs(qs.answers(X_pub) - truth).max())
                res["floor"].append(support_floor(qs, X_pub, truth))
                pub = PublicAssistedQueryRelease(
                    queries, epsilon=eps, delta=delta, support="public", random_state=s
                ).fit(X, X_public=PublicData(X_pub))
                res["pub"].append(np.abs(pub.answers_ - truth).max())
                res["T"].append(pub.n_iterations_)
                rep = PublicAssistedQueryRelease(
                    queries,
                    epsilon=eps,
                    delta=delta,
                    n_iterations=100,
                    random_state=s,
                ).fit(X, X_public=PublicData(X_pub))
                res["rep"].append(np.abs(rep.answers_ - truth).max())
                mw = full_domain_mwem(
                    qs, X, [bins] * X.shape[1], eps, delta, pub.n_iterations_, rng
                )
                res["mwem"].append(np.abs(mw - truth).max())
            m = {k: float(np.mean(v)) for k, v in res.items()}
            ratio = m["pub"] / m["only"]
            rows.append(
                [
                    "shifted" if shift else "i.i.d.",
                    eps,
                    fmt(m["rep"]),
                    fmt(m["pub"]),
                    f"{m['T']:.1f}",
                    fmt(m["only"]),
                    fmt(m["mwem"]),
                    fmt(m["floor"]),
                    f"{ratio:.3f}",
                ]
            )
            if shift and eps == 1.0:
                verdicts.append(
                    f"shift goal (PMW^Pub at eps=1 <= public-only / 5): "
                    f"{'MET' if ratio <= 0.2 else 'NOT MET'} (ratio {ratio:.3f})"
                )
            if not shift:
                verdicts.append(
                    f"i.i.d. goal at eps={eps} (PMW^Pub <= public-only): "
                    f"{'MET' if ratio <= 1.0 else 'NOT MET'} (ratio {ratio:.3f})"
                )
    X, X_pub, _ = split(False, np.random.default_rng(0))
    name = (
        "load_breast_cancer (10 columns x 3 quantile bins"
        if dataset != "synthetic"
        else "synthetic latent-class data (10 columns x 3 categories"
    )
    print_table(
        f"3-way marginals, {name}, "
        f"{queries.n_queries(10)} queries), n_private={X.shape[0]}, "
        f"n_public={X_pub.shape[0]}), delta={delta}; mean max error over "
        f"{len(seeds)} seeds. APAP capped at c=100 PMW updates.",
        header,
        rows,
    )
    for v in verdicts:
        print("  " + v)


def bench_speed(quick):
    p, bins, n_pub, n_priv = 28, 4, 4000, 20_000
    rng = np.random.default_rng(0)
    X = rng.integers(0, bins, size=(n_priv, p)).astype(np.float64)
    X_pub = rng.integers(0, bins, size=(n_pub, p)).astype(np.float64)
    queries = MarginalQueries(k=3, n_categories=bins)
    n_q = queries.n_queries(p)
    rounds = 20 if quick else 100
    qs = queries._bind(p)
    start = time.perf_counter()
    truth = qs.answers(X)
    t_private = time.perf_counter() - start
    start = time.perf_counter()
    support = WeightedSupport(qs, X_pub)
    t_setup = time.perf_counter() - start
    params = mwem_round_parameters(
        1.0, 1e-6, rounds, selection="exponential", measurement="gaussian"
    )
    kwargs = dict(
        n_rounds=rounds,
        params=params,
        selection="exponential",
        measurement="gaussian",
        rng=rng,
    )
    start = time.perf_counter()
    mwem_rounds(support, truth, n_priv, **kwargs)
    per_round = (time.perf_counter() - start) / rounds
    # Memory of the rounds alone (the one-off evaluations excluded).
    tracemalloc.start()
    mwem_rounds(support, truth, n_priv, **kwargs)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(
        f"\nOne-off: private answers of {n_priv} rows {t_private:.2f} s, public "
        f"support set-up {t_setup:.2f} s."
    )
    print_table(
        "Speed of support='public' (3-way marginals, 28 columns x 4 bins)",
        [
            "|public|",
            "|queries|",
            "rounds",
            "ms/round",
            "goal",
            "peak MiB (rounds)",
            "8 bytes x (|pub|+|Q|) MiB",
        ],
        [
            [
                n_pub,
                n_q,
                rounds,
                f"{1000 * per_round:.1f}",
                "MET" if per_round <= 0.020 else "NOT MET",
                f"{peak / 2**20:.1f}",
                f"{8 * (n_pub + n_q) / 2**20:.1f}",
            ]
        ],
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    args = parser.parse_args()
    print_environment()
    start = time.perf_counter()
    bench_thresholds(args.quick)
    bench_marginals(args.quick)
    bench_marginals(args.quick, dataset="synthetic")
    bench_speed(args.quick)
    print(f"\nTotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
