"""Running a user's nested estimator inside a fit: its seeds and its warnings.

Two things a nested estimator (a PATE teacher or student, the classifier trained
on synthetic rows) does behind the caller's back matter to privacy:

* **Randomness.** A ``random_state`` left at None draws from numpy's global
  generator, shared by every estimator in the process. How many draws a fit
  takes can depend on its training rows, so an estimator fitted on private
  rows would shift the randomness of every later one.
  :func:`seed_unset_random_states` gives every such parameter, nested ones
  too, its own seed, chosen by the caller: from the secret noise generator
  when the estimator trains on private rows, from a public-side stream when it
  trains on released or public rows.
* **Warnings.** A warning raised while fitting on private rows (e.g. a
  ``ConvergenceWarning``) depends on them. :func:`dropped_warnings` drops
  them. Python's warning filters are process-wide (before Python 3.14's
  context-aware warnings) and ``warnings.catch_warnings`` swaps them in and
  out: two threads entering and leaving it in interleaved order restore each
  other's filters while the other is still inside (scikit-learn's own input
  checks do this in every fit), so an ``"ignore"`` filter alone lets one
  thread's private warnings escape. Hence two layers: the ``"ignore"`` filter
  (under a module-level lock, so blocks of this package do not interleave),
  and a guard on ``warnings._showwarnmsg`` (the hook every shown warning goes
  through, which ``catch_warnings`` does not swap) that drops any warning
  raised in a thread while it is inside such a block, whatever the filters
  are by then.
"""

# SPDX-License-Identifier: BSD-3-Clause

import contextlib
import os
import sys
import threading
import warnings

import numpy as np

__all__ = [
    "dropped_in_this_thread",
    "dropped_warnings",
    "forget_secret_seeds",
    "quiet",
    "recorded_in_this_thread",
    "seed_unset_random_states",
    "silenced_in_worker",
]

# Held around every block of this package that swaps the process-wide warning
# filters. Reentrant: a nested estimator of this package (a PATEClassifier as
# a teacher) enters the block again in the same thread.
_WARNINGS_LOCK = threading.RLock()
# Per thread: how many dropped_warnings blocks it is inside (see the guard).
_IN_PRIVATE_BLOCK = threading.local()


def seed_unset_random_states(estimator, seed, *, secret_seed=None):
    """Seed every ``random_state`` parameter of ``estimator`` that is None.

    Nested parameters are included (``clf__random_state`` in a
    :class:`~sklearn.pipeline.Pipeline`, ``estimator__random_state`` in a
    meta-estimator). Each gets its own 32-bit seed, derived from ``seed``
    alone, so the estimator's randomness is fixed by ``seed`` and does not
    depend on numpy's global generator or on anything fitted before it.
    Parameters that are already set (an int, a ``RandomState``) are left as
    they are. Randomness an estimator draws other than through a
    ``random_state`` parameter cannot be reached here.

    Parameters
    ----------
    estimator : estimator instance
        Modified in place (pass a clone).
    seed : int
        Non-negative; secret or public, as the estimator's training rows are.
    secret_seed : int or None, default=None
        With a seed from the public side, for a learner fitted on private
        rows: ``seed`` then seeds only the parameters whose owner, and every
        estimator that holds it, is of this package or of scikit-learn, whose
        ``random_state`` is never privacy noise (this package's learners seed
        their public side with it). A private learner of another library may
        draw its noise from its ``random_state`` (scikit-learn's convention,
        which diffprivlib follows): seeded from a public seed, its noise could
        be recomputed by anyone (a review), and left at None it would draw
        from numpy's global generator, as predictable after a public
        ``np.random.seed`` (a second review). Its parameters get seeds from
        ``secret_seed``, drawn by the caller from the fit's noise generator.

    Returns
    -------
    estimator : estimator instance
        The same object.

    Examples
    --------
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_semiprivate.utils._nested_fit import seed_unset_random_states
    >>> pipe = make_pipeline(StandardScaler(), RandomForestClassifier())
    >>> seed_unset_random_states(pipe, 0).get_params()[
    ...     "randomforestclassifier__random_state"
    ... ] is not None
    True
    """
    params = estimator.get_params(deep=True)
    keys = [
        key
        for key, value in params.items()
        if value is None and key.rsplit("__", 1)[-1] == "random_state"
    ]
    secret = (
        []
        if secret_seed is None
        else [k for k in keys if not _known_owners(estimator, params, k)]
    )
    for keys_, seed_ in (
        (secret, secret_seed),
        ([k for k in keys if k not in secret], seed),
    ):
        if keys_:
            states = np.random.SeedSequence(int(seed_)).generate_state(len(keys_))
            estimator.set_params(**{k: int(s) for k, s in zip(keys_, states)})
    return estimator


def forget_secret_seeds(fitted, given):
    """After a fit: the seeds ``secret_seed`` gave set back to None.

    The fitted clone would otherwise hold, in its parameters, the seed of
    another library's learner's noise (DESIGN §2; a review found the fitted
    inner learner's ``random_state`` exposed). The keys are those
    :func:`seed_unset_random_states` gave a secret seed: unset in ``given``
    (the estimator as the user passed it) and not of a known owner. Every
    estimator reachable from ``fitted`` (fitted attributes too) holding one
    of those seeds as its ``random_state`` gets None. What the learner
    derives from its seed and stores itself (an ensemble's members' seeds)
    is its own, as when it is fitted alone.

    Returns
    -------
    fitted : estimator instance
        The same object (None passes through).
    """
    if fitted is None or not hasattr(fitted, "set_params"):
        return fitted
    params = given.get_params(deep=True)
    fitted_params = fitted.get_params(deep=True)
    secret = {
        fitted_params[key]
        for key, value in params.items()
        if value is None
        and key.rsplit("__", 1)[-1] == "random_state"
        and key in fitted_params
        and not _known_owners(given, params, key)
    }
    secret.discard(None)
    if secret:
        # Fitted copies too: a pipeline's fitted steps (steps_) are clones
        # of its parameters' steps, holding the same seed (a third review).
        _unset_seeds(fitted, secret, set())
    return fitted


def _unset_seeds(obj, secret, seen):
    """Unset every reachable estimator's ``random_state`` that is in ``secret``."""
    if id(obj) in seen or isinstance(obj, (str, bytes, np.ndarray, int, float)):
        return
    seen.add(id(obj))
    if isinstance(obj, dict):
        children = list(obj.values())
    elif isinstance(obj, (list, tuple)):
        children = list(obj)
    elif hasattr(obj, "get_params") and not isinstance(obj, type):
        state = getattr(obj, "random_state", None)
        if (
            isinstance(state, int)
            and state in secret
            and "random_state" in obj.get_params(deep=False)
        ):
            obj.set_params(random_state=None)
        children = list(vars(obj).values()) if hasattr(obj, "__dict__") else []
    else:
        return
    for child in children:
        _unset_seeds(child, secret, seen)


def _known_owners(estimator, params, key):
    """Whether the owner of ``key`` and every estimator holding it are known.

    Known: of this package or of scikit-learn (``type(obj).__module__``).
    """
    path = key.split("__")[:-1]
    owners = [estimator] + [
        params.get("__".join(path[: i + 1])) for i in range(len(path))
    ]
    return all(
        type(owner).__module__.split(".")[0] in _KNOWN_PACKAGES for owner in owners
    )


_KNOWN_PACKAGES = ("sklearn", __name__.split(".")[0])


def quiet(estimator):
    """Switch off every ``verbose`` and ``memory`` parameter, nested ones too.

    For estimators fitted on private rows inside a fit of this package: their
    progress output (a partition's size, a training loss) would be a release
    without noise, and a :class:`~sklearn.pipeline.Pipeline`'s ``memory``
    cache writes its fitted steps and transformed (private) rows to disk.
    Output printed, or files written, other than under these parameters
    cannot be reached here.

    Parameters
    ----------
    estimator : estimator instance
        Modified in place (pass a clone).

    Returns
    -------
    estimator : estimator instance
        The same object.

    Examples
    --------
    >>> from sklearn.linear_model import SGDClassifier
    >>> from sklearn_semiprivate.utils._nested_fit import quiet
    >>> quiet(SGDClassifier(verbose=1)).verbose
    False
    >>> from sklearn.pipeline import make_pipeline
    >>> quiet(make_pipeline(SGDClassifier(), memory="/tmp/cache")).memory is None
    True
    """
    params = estimator.get_params(deep=True)
    updates = {}
    for key in params:
        name = key.rsplit("__", 1)[-1]
        if name == "verbose":
            updates[key] = False
        elif name == "memory" and params[key] is not None:
            updates[key] = None
    if updates:
        estimator.set_params(**updates)
    return estimator


def _install_guard():
    """Wrap ``warnings._showwarnmsg`` so it drops warnings of private blocks.

    ``catch_warnings`` swaps ``filters``, ``showwarning`` and
    ``_showwarnmsg_impl``, never ``_showwarnmsg`` (its docstring: "replace if
    you like"), so the guard stays in place whatever other threads do. It is
    installed once, on the first block, and passes every other warning on
    unchanged; called with the lock held.
    """
    current = warnings._showwarnmsg
    if getattr(current, "_drops_private_warnings", False):
        return

    def guard(msg):
        recorder = getattr(_IN_PRIVATE_BLOCK, "recorder", None)
        if recorder is not None:
            recorder.append(msg)  # recorded_in_this_thread
            return
        if getattr(_IN_PRIVATE_BLOCK, "depth", 0):
            return
        current(msg)

    guard._drops_private_warnings = True
    warnings._showwarnmsg = guard


@contextlib.contextmanager
def dropped_warnings():
    """Drop every warning raised inside the block, safely across threads.

    The block holds a module-level lock for its whole duration, so blocks of
    this package in different threads never interleave their swaps of the
    process-wide filters. Inside, an ``"ignore"`` filter drops warnings
    (without marking the warnings registry); those that still pass a filter
    (another thread replaced the filters meanwhile, e.g. by leaving its own
    ``catch_warnings``) are dropped when shown: raised in this thread, by the
    guard on ``warnings._showwarnmsg``; in another thread, into a recorded
    list dropped on exit, as long as this block's ``showwarning`` is in place.

    Limitations (Python's warnings state is process-wide before 3.14): while
    the block runs, another thread's swap can still let a warning raised
    here meet another filter, which may mark the warnings registry (so an
    identical later warning from the same line is not shown) or, with an
    ``"error"`` filter, raise it (a PATE teacher then abstains); warnings
    raised in threads that the nested estimator starts itself (``n_jobs``)
    are dropped by the filters only; code that replaces
    ``warnings._showwarnmsg`` while a block runs defeats the guard until the
    next block wraps the new hook. Warnings raised by other threads while the
    block runs are dropped too.

    Yields
    ------
    None

    Examples
    --------
    >>> import warnings
    >>> from sklearn_semiprivate.utils._nested_fit import dropped_warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error")
    ...     with dropped_warnings():
    ...         warnings.warn("not shown, not raised")
    """
    with _WARNINGS_LOCK, warnings.catch_warnings(record=True):
        _install_guard()
        warnings.simplefilter("ignore")
        _IN_PRIVATE_BLOCK.depth = getattr(_IN_PRIVATE_BLOCK, "depth", 0) + 1
        try:
            yield
        finally:
            _IN_PRIVATE_BLOCK.depth -= 1


@contextlib.contextmanager
def dropped_in_this_thread():
    """Drop the warnings this thread shows inside the block; no lock, no swap.

    The guard of :func:`dropped_warnings` alone: whatever the filters are,
    a warning raised in this thread while it is inside the block is not
    shown. The block takes no lock for its duration, so it fits where
    :func:`dropped_warnings` would deadlock: in worker threads of a
    parent that waits for them while inside its own block (a private
    search's runs under joblib's threading backend, where a run may be a
    PATE fit entering :func:`dropped_warnings` itself). It does not touch
    the filters, so a warning that meets a ``"default"`` or ``"once"``
    filter still marks the warnings registry; callers that can, combine it
    with an ``"ignore"`` filter (which does not).

    Yields
    ------
    None

    Examples
    --------
    >>> import warnings
    >>> from sklearn_semiprivate.utils._nested_fit import dropped_in_this_thread
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with dropped_in_this_thread():
    ...         warnings.warn("not shown")
    >>> caught
    []
    """
    _ensure_guard()
    _IN_PRIVATE_BLOCK.depth = getattr(_IN_PRIVATE_BLOCK, "depth", 0) + 1
    try:
        yield
    finally:
        _IN_PRIVATE_BLOCK.depth -= 1


def _ensure_guard():
    if not getattr(warnings._showwarnmsg, "_drops_private_warnings", False):
        # Not blocking: a parent waiting for this thread may hold the lock
        # (PATE's teachers under joblib's threading backend, inside the
        # parent's dropped_warnings, which installed the guard already).
        if _WARNINGS_LOCK.acquire(blocking=False):
            try:
                _install_guard()
            finally:
                _WARNINGS_LOCK.release()


@contextlib.contextmanager
def recorded_in_this_thread():
    """Record, and do not show, the warnings this thread shows in the block.

    The guard of :func:`dropped_in_this_thread`, which keeps the warnings
    instead of dropping them, so that the caller can say that there were
    some without repeating them (a learner of another library may quote the
    private rows it warns about). The filters are the user's, untouched: an
    ignored warning is not recorded, and an ``"error"`` filter raises it.
    No lock is held and nothing process-wide is swapped.

    Yields
    ------
    recorded : list of warnings.WarningMessage

    Examples
    --------
    >>> import warnings
    >>> from sklearn_semiprivate.utils._nested_fit import recorded_in_this_thread
    >>> with warnings.catch_warnings(record=True) as shown:
    ...     warnings.simplefilter("always")
    ...     with recorded_in_this_thread() as recorded:
    ...         warnings.warn("value 31415.9")
    >>> shown, [str(w.message) for w in recorded]
    ([], ['value 31415.9'])
    """
    _ensure_guard()
    outer = getattr(_IN_PRIVATE_BLOCK, "recorder", None)
    _IN_PRIVATE_BLOCK.recorder = recorded = []
    try:
        yield recorded
    finally:
        _IN_PRIVATE_BLOCK.recorder = outer
        if recorded:
            _forget_in_registries(recorded)


def _forget_in_registries(recorded):
    """Remove the recorded warnings' keys from the warnings registries.

    Under a ``"default"``, ``"module"`` or ``"once"`` filter (Python's default
    for a ``UserWarning`` is ``"default"``), a warning that reached the guard
    marked a registry with its text, which stayed readable there, and an
    identical warning raised later on public rows was then not shown: a test
    of a guessed private value (a review). The keys are Python's
    (``warnings.warn_explicit``): ``(text, category, lineno)`` in the
    module's ``__warningregistry__``, ``(text, category, 0)`` for
    ``"module"``, ``(text, category)`` in ``warnings.onceregistry``.
    """
    keys = set()
    for w in recorded:
        text, category = str(w.message), w.category
        keys.update({(text, category, w.lineno), (text, category, 0)})
        keys.add((text, category))
    registries = [warnings.onceregistry]
    # Each module's own namespace, never getattr: a module-level __getattr__
    # may warn or import on an unknown name (mpmath.rational warns that it is
    # deprecated, an error under "error" filters; found by CI).
    namespaces = [getattr(m, "__dict__", None) for m in list(sys.modules.values())]
    registries += [
        ns.get("__warningregistry__") for ns in namespaces if isinstance(ns, dict)
    ]
    for registry in registries:
        if isinstance(registry, dict):
            for key in keys:
                registry.pop(key, None)


@contextlib.contextmanager
def silenced_in_worker(parent_pid):
    """Drop the warnings of work on private rows dispatched through joblib.

    A context, so a reused worker gets its filters back. In a worker
    process: an ``"ignore"`` filter. In the parent process (the work runs in
    the caller's thread or in a thread of joblib's threading backend), the
    caller already holds an ``"ignore"`` filter around every dispatch, but
    another thread may swap the process-wide filters meanwhile, and
    entering ``catch_warnings`` here would race on them too: the thread is
    marked instead, and the guard drops what it shows
    (:func:`dropped_in_this_thread`).

    Parameters
    ----------
    parent_pid : int
        ``os.getpid()`` of the dispatching process.

    Yields
    ------
    None
    """
    if os.getpid() == parent_pid:
        with dropped_in_this_thread():
            yield
        return
    with warnings.catch_warnings(), dropped_in_this_thread():
        warnings.simplefilter("ignore")
        yield
