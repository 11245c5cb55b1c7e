"""Run every ``examples/plot_*.py`` script end to end (matplotlib Agg backend).

Each script runs in a fresh interpreter with warnings turned into errors, as the
test suite does, and must finish within ``TIME_LIMIT`` seconds. Marked ``slow``:
deselect with ``-m "not slow"``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import os
import subprocess
import sys
import time
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
    env = dict(os.environ, MPLBACKEND="Agg", MPLCONFIGDIR=str(tmp_path))
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-W", "error", str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=2 * TIME_LIMIT,
    )
    elapsed = time.perf_counter() - start
    assert result.returncode == 0, (
        f"{script.name} failed:\n{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
    )
    assert elapsed < TIME_LIMIT, f"{script.name} took {elapsed:.1f} s"
