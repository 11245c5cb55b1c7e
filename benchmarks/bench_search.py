"""What a hyper-parameter search costs: PrivateParameterSearch against GridSearchCV.

Run: ``python benchmarks/bench_search.py [--quick]``.

On the breast-cancer data shipped with scikit-learn (30% test; of the training
rows 15% public, their labels used only by public selection), grids of 4 to 100
candidates of ``SemiPrivateClassifier`` (hypothesis class x public-set size x
final estimator), each candidate at epsilon = 1, preprocessing in a
``PublicFittedPipeline``. For each grid, every number of the privacy columns is
**measured**: the ledger's ``spent()`` after the search ran.

* ``GridSearchCV(cv=5)``: every candidate fitted on 5 folds, plus the refit,
  each charged; its validation scores and ``best_params_`` are exact statistics
  of private rows, outside the ledger altogether.
* ``PrivateParameterSearch`` with random stopping (no public labels): 3 x one
  run + the refit, whatever the grid.
* ``PrivateParameterSearch`` with public selection: one fit per candidate.

Test accuracy (mean over repeats; the searches' noise is fresh) and wall time
are printed beside the costs.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import itertools
import time
import warnings

import numpy as np
from _common import print_environment, print_table
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.preprocessing import StandardScaler

from sklearn_semiprivate import (
    PrivacyAccountant,
    PublicData,
    SemiPrivateClassifier,
    make_public_fitted_pipeline,
)
from sklearn_semiprivate.hypotheses import PartitionLabelings
from sklearn_semiprivate.model_selection import PrivateParameterSearch

STEP = "semiprivateclassifier__"


def _grid(n_candidates):
    """A grid of exactly ``n_candidates``: classes x public sizes x final step."""
    classes = [
        "stumps",
        PartitionLabelings("kdtree", depth=3),
        PartitionLabelings("kmeans", n_clusters=8, random_state=0),
        PartitionLabelings("kmeans", n_clusters=16, random_state=0),
    ]
    finals = [None, LogisticRegression(max_iter=1000)]
    sizes = [1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.15, 0.12, 0.1, 0.08, 0.06]
    combos = list(itertools.product(classes, finals, sizes))[:n_candidates]
    return [
        {
            f"{STEP}hypothesis_class": [c],
            f"{STEP}final_estimator": [f],
            f"{STEP}n_public": [s],
        }
        for c, f, s in combos
    ]


def _data(seed):
    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    X_priv, X_pub, y_priv, y_pub = train_test_split(
        X_tr, y_tr, test_size=0.15, random_state=seed, stratify=y_tr
    )
    return X_priv, y_priv, X_pub, y_pub, X_te, y_te


def _pipeline(ledger):
    return make_public_fitted_pipeline(
        StandardScaler(),
        SemiPrivateClassifier(classes=[0, 1], epsilon=1.0, accountant=ledger),
    )


def _measure(make_search, X_pub, y_pub, data):
    X_priv, y_priv, _, _, X_te, y_te = data
    ledger = PrivacyAccountant()
    search = make_search(ledger)
    start = time.perf_counter()
    search.fit(X_priv, y_priv, X_public=PublicData(X_pub, y_pub))
    seconds = time.perf_counter() - start
    return ledger.spent().epsilon, search.score(X_te, y_te), seconds


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    sizes = (4, 12) if args.quick else (4, 12, 36, 100)
    repeats = 1 if args.quick else 3
    print_environment()
    rows = []
    for n in sizes:
        grid = _grid(n)
        cells = {"grid": [], "stop": [], "public": []}
        for rep in range(repeats):
            data = _data(rep)
            X_pub, y_pub = data[2], data[3]
            # GridSearchCV: the estimator's own ledger sees every fit.
            cells["grid"].append(
                _measure(
                    lambda led, grid=grid: GridSearchCV(_pipeline(led), grid, cv=5),
                    X_pub,
                    None,
                    data,
                )
            )
            cells["stop"].append(
                _measure(
                    lambda led, grid=grid: PrivateParameterSearch(
                        _pipeline(None), grid, accountant=led
                    ),
                    X_pub,
                    None,
                    data,
                )
            )
            cells["public"].append(
                _measure(
                    lambda led, grid=grid: PrivateParameterSearch(
                        _pipeline(None), grid, accountant=led
                    ),
                    X_pub,
                    y_pub,
                    data,
                )
            )
        row = [n]
        for key in ("grid", "stop", "public"):
            eps, acc, sec = np.array(cells[key]).T
            row += [f"{eps.mean():g}", f"{acc.mean():.3f}", f"{sec.mean():.1f}"]
        rows.append(row)
    print_table(
        "Total epsilon charged (measured on the ledger), test accuracy and seconds; "
        f"mean of {repeats} split(s); each candidate epsilon = 1",
        [
            "candidates",
            "GridSearchCV eps",
            "acc",
            "s",
            "random stopping eps",
            "acc",
            "s",
            "public selection eps",
            "acc",
            "s",
        ],
        rows,
    )
    print(
        "\nGridSearchCV's figure counts its fits only: its validation scores and "
        "best_params_ are exact statistics of private rows, released outside the "
        "ledger. Random stopping's 3 x 1 + refit 1 = 4 holds for every grid size."
    )


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        main()
