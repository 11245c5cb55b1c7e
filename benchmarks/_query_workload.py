"""Table 4 of ``bench_query_release.py``: all 3-way marginals of real categorical
data, against AIM and MST (described in that script's docstring).

``bench_workload`` runs it: our rows (``our_rows``: the class default and every
value of ``support=`` / ``method=``, with ``OPTION_KWARGS``, ``EXTRA_ROWS`` and
``SKIP``), public-only, the non-private ``support_ceiling`` and the peers
(through ``_query_store``); ``report_workload`` prints the tables and the
goals (``_verdict``).
"""

# SPDX-License-Identifier: BSD-3-Clause

import inspect
import itertools
import json
import math
import time
import warnings
from pathlib import Path

import _query_datasets
import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse
from _common import print_table
from _query_store import (
    Peers,
    ResultCache,
    _code_version,
    _git_state,
    _stored_peer,
    _when,
    matched_peer_rho,
)

import sklearn_semiprivate
from sklearn_semiprivate import PublicData
from sklearn_semiprivate.query_release import (
    MarginalQueries,
    PublicAssistedQueryRelease,
)

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
    # (dataset, shift, eps, row) -> one record per seed: (mean, max, seconds,
    # neighbour relation) for our rows, (mean, max, seconds) for the others, or
    # {"error": message}.
    results = {}
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
    if len(ours[4]) > 1:
        return f"{label} NOT MET (the row mixes neighbour relations {sorted(ours[4])})"
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
            ratio = aim[0] / ours[0] if ours[0] > 0 else math.inf
            text += f"; AIM/ours mean {ratio:.2f}x (aim >= 1.5x)"
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
