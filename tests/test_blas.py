"""single_threaded_blas: overlapping fits give the process its BLAS threads back."""

import threading

import numpy as np  # noqa: F401  (loads its BLAS, which the test limits)
import pytest
from threadpoolctl import threadpool_info

from sklearn_semiprivate.utils._blas import single_threaded_blas


def _threads():
    return [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]


def test_overlapping_blocks_restore_the_original_limits():
    # Review: with threadpool_limits, fit A enters, fit B enters, A leaves
    # (restoring the original), B leaves (restoring what it saw: one thread),
    # and the process stayed at one BLAS thread.
    before = _threads()
    if not before:
        pytest.skip("no BLAS library found by threadpoolctl")
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    inside = {}

    def first():
        with single_threaded_blas():
            a_in.set()
            b_in.wait()
        a_out.set()

    def second():
        a_in.wait()
        with single_threaded_blas():
            b_in.set()
            a_out.wait()
            inside["threads"] = _threads()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(n == 1 for n in inside["threads"])  # still limited after A left
    assert _threads() == before
