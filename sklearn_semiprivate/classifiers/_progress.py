"""Progress lines of a fit (``verbose``): public information only.

A progress line is a release like any other output of ``fit``: printed to a
terminal or a log, it leaves the fit. So every message is built from public
information only: parameters, public sizes, cover sizes, the released
hypothesis, and the durations of steps that read no private row. A step that
reads private rows (a selection, a sanitizer) is announced when it starts and
when it ends, without its duration: its running time depends on the private
data, at least on the number of rows, which add/remove neighbours change.
"""

# SPDX-License-Identifier: BSD-3-Clause

import time

__all__ = ["FitProgress", "describe_class"]


def describe_class(hypothesis_class):
    """Short name of a hypothesis class parameter: the string, or the type name."""
    if isinstance(hypothesis_class, str):
        return hypothesis_class
    return type(hypothesis_class).__name__


class FitProgress:
    """Prints ``[EstimatorName] message`` lines when ``verbose >= 1``.

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator being fitted (for its class name).
    verbose : int or bool
        Verbosity; nothing is printed at 0 or False.

    Examples
    --------
    >>> from sklearn_semiprivate import SemiPrivateClassifier
    >>> from sklearn_semiprivate.classifiers._progress import FitProgress
    >>> progress = FitProgress(SemiPrivateClassifier(), verbose=1)
    >>> progress.say("building the cover from 3 public points (stumps)...")
    [SemiPrivateClassifier] building the cover from 3 public points (stumps)...
    >>> FitProgress(SemiPrivateClassifier(), verbose=0).say("not printed")
    """

    def __init__(self, estimator, verbose):
        self.name = type(estimator).__name__
        self.enabled = bool(verbose)

    def say(self, message):
        """Print one line (public information only)."""
        if self.enabled:
            print(f"[{self.name}] {message}", flush=True)

    def start(self, message):
        """Announce a public step; return its start time for :meth:`done`."""
        self.say(message)
        return time.perf_counter()

    def done(self, started, message):
        """Close a public step started with :meth:`start`: ``message in T s``.

        Only for steps that read no private row (see the module docstring).
        """
        if self.enabled:
            self.say(f"{message} in {time.perf_counter() - started:.1f} s")
