"""One BLAS thread while fits of this package run, restored when the last ends.

``threadpoolctl.threadpool_limits`` sets a process-wide limit and, on exit,
restores what it saw on entry. Two fits that overlap in threads (a threading
backend, a web server) then leave the process at one thread for good: the
first to leave restores the limit, the second restores the one it saw, which
is the first's. A counter shared by all fits sets the limit when the first
enters and restores the original when the last leaves.
"""

# SPDX-License-Identifier: BSD-3-Clause

import threading
from contextlib import contextmanager

from threadpoolctl import threadpool_limits

__all__ = ["single_threaded_blas"]

_LOCK = threading.Lock()
_STATE = {"depth": 0, "limiter": None}


@contextmanager
def single_threaded_blas():
    """Limit BLAS to one thread inside the block, process-wide and reentrant.

    Examples
    --------
    >>> from threadpoolctl import threadpool_info
    >>> from sklearn_semiprivate.utils._blas import single_threaded_blas
    >>> before = [p["num_threads"] for p in threadpool_info()]
    >>> with single_threaded_blas():
    ...     pass
    >>> [p["num_threads"] for p in threadpool_info()] == before
    True
    """
    with _LOCK:
        if _STATE["depth"] == 0:
            _STATE["limiter"] = threadpool_limits(limits=1, user_api="blas")
        _STATE["depth"] += 1
    try:
        yield
    finally:
        with _LOCK:
            _STATE["depth"] -= 1
            if _STATE["depth"] == 0:
                _STATE["limiter"].restore_original_limits()
                _STATE["limiter"] = None
