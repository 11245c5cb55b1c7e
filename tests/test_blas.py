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
    a_in, b_in = threading.Event(), threading.Event()
    inside = {}

    def first():
        with single_threaded_blas():
            a_in.set()
            b_in.wait()

    thread_a = threading.Thread(target=first)

    def second():
        a_in.wait()
        with single_threaded_blas():
            b_in.set()
            # A has left the block and ended: OpenBLAS's thread count set
            # while another thread is being torn down is itself racy (about 1
            # in 100 with threadpoolctl alone), which is not what this tests.
            thread_a.join()
            inside["threads"] = _threads()

    thread_b = threading.Thread(target=second)
    thread_a.start()
    thread_b.start()
    thread_b.join()
    assert all(n == 1 for n in inside["threads"])  # still limited after A left
    assert _threads() == before
