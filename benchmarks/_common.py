"""Helpers shared by the benchmark scripts: timing, tables, the environment."""

# SPDX-License-Identifier: BSD-3-Clause

import os
import platform
import time

import numpy as np
import scipy
import sklearn

from sklearn_semiprivate import __version__ as sp_version


def best_time(fn, repeat):
    """Best wall time of ``repeat`` calls of ``fn()``, in seconds."""
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def print_table(title, header, rows):
    """Print ``rows`` under ``header`` as right-aligned columns."""
    print(f"\n{title}")
    widths = [
        max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(header)
    ]
    print("  ".join(str(h).rjust(w) for h, w in zip(header, widths, strict=True)))
    for row in rows:
        print("  ".join(str(c).rjust(w) for c, w in zip(row, widths, strict=True)))


def print_environment():
    """Versions, platform and usable CPUs: the context of every table."""
    print("Environment")
    print(
        f"  python {platform.python_version()}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, scikit-learn {sklearn.__version__}, "
        f"sklearn_semiprivate {sp_version}"
    )
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    threads = os.environ.get("OMP_NUM_THREADS", "unset")
    print(
        f"  {platform.machine()}, {platform.platform()}, {os.cpu_count()} CPUs "
        f"({affinity} usable), OMP_NUM_THREADS={threads}"
    )
