"""The main job: accuracy against epsilon on a dataset shipped with scikit-learn.

``python -m sklearn_semiprivate`` splits the breast-cancer data into train and
test; 10% of the training rows become *unlabeled public* data, the rest private.
It prints the test accuracy, averaged over repetitions, of SemiPrivateClassifier
with several hypothesis classes, of the private-only baseline (no public data,
a data-independent grid over declared bounds), and of non-private scikit-learn
LogisticRegression on the private rows (the ceiling). The same table is drawn to
a PNG if matplotlib is installed.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import os
import platform
import sys
import time
import warnings

import numpy as np
import sklearn
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from . import __version__
from ._public import PublicData
from .classifiers import SemiPrivateClassifier
from .hypotheses import PartitionLabelings

EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)


def _learners(classes, bounds):
    """(name, estimator factory, uses public data) for the table's rows."""
    return [
        (
            "semi-private: stumps",
            lambda eps, seed: SemiPrivateClassifier(
                "stumps", epsilon=eps, classes=classes, random_state=seed
            ),
            True,
        ),
        (
            "semi-private: stumps -> LogisticRegression",
            lambda eps, seed: SemiPrivateClassifier(
                "stumps",
                epsilon=eps,
                classes=classes,
                final_estimator=make_pipeline(StandardScaler(), LogisticRegression()),
                random_state=seed,
            ),
            True,
        ),
        (
            "semi-private: k-means cells (k=8)",
            lambda eps, seed: SemiPrivateClassifier(
                PartitionLabelings("kmeans", n_clusters=8, random_state=0),
                epsilon=eps,
                classes=classes,
                random_state=seed,
            ),
            True,
        ),
        (
            "private-only baseline: stumps on a grid (bounds from public rows)",
            lambda eps, seed: SemiPrivateClassifier(
                "stumps",
                epsilon=eps,
                classes=classes,
                bounds=bounds,
                random_state=seed,
            ),
            False,
        ),
    ]


def run(n_repeats=10, seed=0):
    """Compute the accuracy table.

    Parameters
    ----------
    n_repeats : int, default=10
        Repetitions (different train/test splits and mechanism seeds) per cell.
    seed : int, default=0
        Master seed.

    Returns
    -------
    names : list of str
        Row names.
    table : ndarray of shape (n_rows, len(EPSILONS))
        Mean test accuracy; the ceiling row repeats its single value.
    """
    data = load_breast_cancer()
    X, y = data.data, data.target
    classes = np.unique(y)  # {0, 1}: part of the task's public description
    rows = {}
    ceiling = []
    for rep in range(n_repeats):
        rs = seed + rep
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.3, random_state=rs, stratify=y
        )
        X_priv, X_pub, y_priv, _ = train_test_split(
            X_tr, y_tr, test_size=0.1, random_state=rs
        )  # the public labels are discarded: public data is unlabeled
        # Declared bounds for the private-only baseline come from public
        # knowledge (here the public rows), never from the private ones.
        bounds = np.column_stack([X_pub.min(axis=0), X_pub.max(axis=0) + 1e-9])
        for name, make, uses_public in _learners(classes, bounds):
            for j, eps in enumerate(EPSILONS):
                clf = make(eps, rs)
                public = PublicData(X_pub) if uses_public else None
                clf.fit(X_priv, y_priv, X_public=public)
                rows.setdefault(name, np.zeros((n_repeats, len(EPSILONS))))
                rows[name][rep, j] = clf.score(X_te, y_te)
        lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
        ceiling.append(lr.fit(X_priv, y_priv).score(X_te, y_te))
    names = [*rows, "non-private LogisticRegression (ceiling)"]
    table = np.vstack(
        [rows[n].mean(axis=0) for n in rows]
        + [np.full(len(EPSILONS), np.mean(ceiling))]
    )
    return names, table


def _format_table(names, table):
    width = max(len(n) for n in names)
    head = f"{'learner':<{width}} | " + " | ".join(f"eps={e:<4g}" for e in EPSILONS)
    lines = [head, "-" * len(head)]
    for name, row in zip(names, table):
        cells = " | ".join(f"{v:8.3f}" for v in row)
        lines.append(f"{name:<{width}} | {cells}")
    return "\n".join(lines)


def _plot(names, table, path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, row in zip(names, table):
        style = "--" if "ceiling" in name else "-o"
        ax.plot(EPSILONS, row, style, label=name)
    ax.set_xscale("log")
    ax.set_xlabel("epsilon (private data)")
    ax.set_ylabel("test accuracy")
    ax.set_title("Breast cancer: 10% of training rows public, unlabeled")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv=None):
    """Run the demonstration and print the table; return an exit code."""
    parser = argparse.ArgumentParser(prog="python -m sklearn_semiprivate")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--plot", default="semiprivate_accuracy.png", help="PNG path ('' to skip)"
    )
    args = parser.parse_args(argv)
    print(
        f"sklearn_semiprivate {__version__} | scikit-learn {sklearn.__version__} | "
        f"numpy {np.__version__} | Python {platform.python_version()} | "
        f"{os.cpu_count()} CPUs"
    )
    print(
        "Breast cancer (569 rows, 30 features): 30% test; of the training rows 10% "
        "are public and unlabeled, 90% private.\nMean test accuracy over "
        f"{args.repeats} splits; every semi-private fit is epsilon-DP for the "
        "private rows.\n"
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no privacy-leak fallback may fire here
        names, table = run(n_repeats=args.repeats, seed=args.seed)
    print(_format_table(names, table))
    print(f"\n({time.perf_counter() - start:.1f} s)")
    if args.plot:
        path = _plot(names, table, args.plot)
        if path is None:
            print("matplotlib is not installed: no plot (pip install matplotlib).")
        else:
            print(f"Plot written to {os.path.abspath(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
