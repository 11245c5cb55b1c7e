"""Run every ``examples/plot_*.py`` script end to end (matplotlib Agg backend).

Each script runs in a fresh interpreter with warnings turned into errors, as the
test suite does, and must use less than ``TIME_LIMIT`` seconds of CPU. Marked ``slow``:
deselect with ``-m "not slow"``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("plot_*.py"))
TIME_LIMIT = 60.0


def test_examples_are_found():
    assert EXAMPLES, f"no plot_*.py in {EXAMPLES_DIR}"


@pytest.mark.slow
@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    # One BLAS/OpenMP thread: on a loaded machine, idle OpenMP and OpenBLAS
    # threads spin-wait and their CPU seconds swamp the work (a
    # HistGradientBoosting fit on 338 rows measured 1.5-10 s against 0.17 s).
    env = dict(
        os.environ,
        MPLBACKEND="Agg",
        MPLCONFIGDIR=str(tmp_path),
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    # CPU seconds of the child, not wall time: the same work on a loaded
    # machine (two test workers, other jobs) must not fail the limit.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(
        [sys.executable, "-W", "error", str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        # A hang guard only: the limit is on CPU seconds (below), and on a
        # loaded machine wall time runs several times the CPU time.
        timeout=10 * TIME_LIMIT,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    elapsed = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert result.returncode == 0, (
        f"{script.name} failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    )
    assert elapsed < TIME_LIMIT, f"{script.name} took {elapsed:.1f} s of CPU"
