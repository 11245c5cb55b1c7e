"""The main job: accuracy against epsilon on a dataset shipped with scikit-learn.

``python -m sklearn_semiprivate`` splits the digits data (8x8 images, 10 classes)
into train and test; 10% of the training rows become *unlabeled public* data, the
rest private. It prints the test accuracy, averaged over repetitions, of
SemiPrivateLogisticRegression (features from the public points: scale, clipping
radius, quantile bins) and SemiPrivateClassifier with several hypothesis classes
(cells of partitions fitted on the public points, labeled privately), of
private-only baselines (no public data: the same estimators given only the
pixel range [0, 16], which is public knowledge), and of non-private
scikit-learn LogisticRegression on the private rows (the ceiling). The same
results are drawn to a PNG by
:class:`~sklearn_semiprivate.display.PrivacyUtilityDisplay` (one line per learner
with its spread over the repetitions, the ceiling as a horizontal line) if
matplotlib is installed; without it the table is printed and the figure
skipped.
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
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from . import __version__
from ._public import PublicData
from .classifiers import SemiPrivateClassifier, SemiPrivateLogisticRegression
from .display import PrivacyUtilityDisplay
from .exceptions import PrivacyLeakWarning
from .hypotheses import PartitionLabelings

EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
PIXEL_BOUNDS = (0.0, 16.0)  # digits pixels are integers in [0, 16]: public
CEILING = "non-private LogisticRegression (ceiling)"


def _learners(classes):
    """(name, estimator factory, uses public data) for the table's rows."""

    def semi(hypothesis_class, **kwargs):
        return lambda eps, seed: SemiPrivateClassifier(
            hypothesis_class,
            epsilon=eps,
            classes=classes,
            random_state=seed,
            **kwargs,
        )

    def logistic(**kwargs):
        return lambda eps, seed: SemiPrivateLogisticRegression(
            epsilon=eps, classes=classes, random_state=seed, **kwargs
        )

    return [
        ("semi-private: SemiPrivateLogisticRegression", logistic(), True),
        ("semi-private: k-means cells (k=30)", semi(_kmeans(30)), True),
        ("semi-private: k-means cells (k=10)", semi(_kmeans(10)), True),
        (
            "semi-private: k-means cells (k=30) -> LogisticRegression",
            semi(_kmeans(30), final_estimator=LogisticRegression(max_iter=2000)),
            True,
        ),
        (
            "semi-private: k-d median cells (depth 5)",
            semi(PartitionLabelings("kdtree", depth=5)),
            True,
        ),
        (
            "private-only baseline: k-means cells (k=30) on a grid",
            # No public data: 200 grid points over the public pixel range.
            semi(_kmeans(30), bounds=PIXEL_BOUNDS, n_public=200),
            False,
        ),
        (
            "private-only baseline: SemiPrivateLogisticRegression on the pixel box",
            logistic(bounds=PIXEL_BOUNDS),
            False,
        ),
    ]


def _kmeans(k):
    return PartitionLabelings("kmeans", n_clusters=k, random_state=0)


def run_scores(n_repeats=5, seed=0):
    """Test accuracy of every learner, epsilon and repetition.

    Parameters
    ----------
    n_repeats : int, default=5
        Repetitions (different train/test splits and public-side seeds; the
        privacy noise is fresh on every fit) per cell.
    seed : int, default=0
        Master seed.

    Returns
    -------
    rows : dict of str to ndarray of shape (n_repeats, len(EPSILONS))
        Test accuracy of each learner, in table order.
    ceiling : ndarray of shape (n_repeats,)
        Test accuracy of non-private LogisticRegression.
    """
    X, y = load_digits(return_X_y=True)
    classes = np.arange(10)  # the ten digits: part of the task's public description
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
        for name, make, uses_public in _learners(classes):
            for j, eps in enumerate(EPSILONS):
                clf = make(eps, rs)
                public = PublicData(X_pub) if uses_public else None
                clf.fit(X_priv, y_priv, X_public=public)
                rows.setdefault(name, np.zeros((n_repeats, len(EPSILONS))))
                rows[name][rep, j] = clf.score(X_te, y_te)
        lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
        ceiling.append(lr.fit(X_priv, y_priv).score(X_te, y_te))
    return rows, np.asarray(ceiling)


def _table(rows, ceiling):
    names = [*rows, CEILING]
    table = np.vstack(
        [rows[n].mean(axis=0) for n in rows]
        + [np.full(len(EPSILONS), np.mean(ceiling))]
    )
    return names, table


def run(n_repeats=5, seed=0):
    """Compute the accuracy table.

    Parameters
    ----------
    n_repeats : int, default=5
        Repetitions (different train/test splits and public-side seeds; the
        privacy noise is fresh on every fit) per cell.
    seed : int, default=0
        Master seed.

    Returns
    -------
    names : list of str
        Row names.
    table : ndarray of shape (n_rows, len(EPSILONS))
        Mean test accuracy; the ceiling row repeats its single value.
    """
    return _table(*run_scores(n_repeats=n_repeats, seed=seed))


def make_displays(rows, ceiling):
    """One PrivacyUtilityDisplay per learner; the last holds the ceiling.

    Built from precomputed scores, so no matplotlib is needed until ``plot``.

    Parameters
    ----------
    rows : dict of str to ndarray of shape (n_repeats, len(EPSILONS))
        As returned by :func:`run_scores`.
    ceiling : ndarray of shape (n_repeats,)
        As returned by :func:`run_scores`.

    Returns
    -------
    displays : list of PrivacyUtilityDisplay
    """
    last = len(rows) - 1
    return [
        PrivacyUtilityDisplay(
            param_values=np.asarray(EPSILONS),
            scores=scores.T,  # (n_values, n_repeats)
            estimator_name=name,
            baselines={CEILING: ceiling} if i == last else None,
            score_name="test accuracy",
        )
        for i, (name, scores) in enumerate(rows.items())
    ]


def _format_table(names, table):
    width = max(len(n) for n in names)
    head = f"{'learner':<{width}} | " + " | ".join(f"eps={e:<4g}" for e in EPSILONS)
    lines = [head, "-" * len(head)]
    for name, row in zip(names, table):
        cells = " | ".join(f"{v:8.3f}" for v in row)
        lines.append(f"{name:<{width}} | {cells}")
    return "\n".join(lines)


def _plot(curves, path, n_repeats):
    """Draw the displays on one axes and save them; None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(11, 4.5))
    for curve in curves:
        curve.plot(ax=ax)
    ax.set_title(
        "Digits: 10% of training rows public and unlabeled "
        f"(mean ± std over {n_repeats} splits)"
    )
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv=None):
    """Run the demonstration and print the table; return an exit code."""
    parser = argparse.ArgumentParser(prog="python -m sklearn_semiprivate")
    parser.add_argument("--repeats", type=int, default=5)
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
        "Digits (1797 images, 64 pixels, 10 classes): 30% test; of the training "
        "rows 10% are public and unlabeled, 90% private.\nMean test accuracy over "
        f"{args.repeats} splits; every semi-private fit is (epsilon, delta)-DP "
        "for the private rows (delta = 0 for the cells, 1e-5 for the logistic "
        "regression).\n"
    )
    start = time.perf_counter()
    with warnings.catch_warnings():
        # No privacy-leak fallback may fire in the demonstration.
        warnings.simplefilter("error", PrivacyLeakWarning)
        rows, ceiling = run_scores(n_repeats=args.repeats, seed=args.seed)
    print(_format_table(*_table(rows, ceiling)))
    print(f"\n({time.perf_counter() - start:.1f} s)")
    if args.plot:
        path = _plot(make_displays(rows, ceiling), args.plot, args.repeats)
        if path is None:
            print(
                "matplotlib is not installed: no plot "
                '(pip install "sklearn_semiprivate[examples]").'
            )
        else:
            print(f"Plot written to {os.path.abspath(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
