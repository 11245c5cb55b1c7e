"""Random number generation: public-side streams, and secret privacy noise.

Two kinds of randomness enter a ``fit``, and they are kept apart:

* **Public-side** randomness (the public subsample, the data-independent grid,
  partitioners, a final estimator's seed) comes from the estimator's
  ``random_state`` through :func:`check_rng` / :func:`spawn_rngs`. It may be
  known to anyone: the guarantee does not rest on it.
* **Privacy noise** (every draw of a mechanism that reads private rows) comes
  from :func:`noise_rng`: fresh operating-system entropy on every call, never
  derived from a parameter, and never stored. A noise generator that could be
  recomputed (from a published seed, a ``RandomState``'s state, a
  ``SeedSequence`` kept in a fitted attribute) would make the output a
  deterministic function of the private data, with no privacy at all.

Tests, doctests and examples that need reproducible output opt in explicitly
with :func:`reproducible_noise`, which warns that the output is then not private.
"""

# SPDX-License-Identifier: BSD-3-Clause

import contextlib
import contextvars
import numbers
import warnings

import numpy as np

from ..exceptions import PrivacyLeakWarning

__all__ = ["check_rng", "noise_rng", "reproducible_noise", "spawn_rngs"]

# Whether the current context opted in to noise derived from random_state.
_REPRODUCIBLE_NOISE = contextvars.ContextVar(
    "sklearn_semiprivate_reproducible_noise", default=False
)

# Spawn key separating the noise stream from the public streams of the same seed
# (only used under reproducible_noise).
_NOISE_SPAWN_KEY = (0x6E6F697365,)  # "noise"


def check_rng(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    For public-side randomness, and for the explicit ``random_state`` argument of
    the framework-free mechanisms. Estimators draw their privacy noise from
    :func:`noise_rng` instead.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator, numpy.random.RandomState or \
            numpy.random.SeedSequence
        ``None`` draws fresh entropy from the operating system (not numpy's global
        state: a privacy mechanism should not be predictable from an earlier
        ``np.random.seed``). An int or a ``SeedSequence`` seeds a new PCG64
        generator. A ``Generator`` is used as is. A legacy ``RandomState`` (what
        scikit-learn passes around) seeds a new generator from one draw of it.

    Returns
    -------
    rng : numpy.random.Generator

    Examples
    --------
    >>> from sklearn_semiprivate.utils import check_rng
    >>> bool(check_rng(0).integers(10) == check_rng(0).integers(10))
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, numbers.Integral) and not isinstance(
        random_state, (bool, np.bool_)
    ):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}.")
        return np.random.default_rng(int(random_state))
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1, size=4))
    raise TypeError(
        "random_state must be None, an int, a numpy Generator, RandomState or "
        f"SeedSequence, got {type(random_state).__name__}."
    )


def spawn_rngs(random_state, n):
    """Return ``n`` independent public-side generators derived from ``random_state``.

    Separate public-side steps inside one ``fit`` get independent streams, never
    a reused seed (``SeedSequence.spawn``).

    Parameters
    ----------
    random_state : None, int, Generator, RandomState or SeedSequence
        See :func:`check_rng`.
    n : int
        Number of generators.

    Returns
    -------
    rngs : list of numpy.random.Generator

    Examples
    --------
    >>> from sklearn_semiprivate.utils import spawn_rngs
    >>> a, b = spawn_rngs(0, 2)
    >>> bool(a.random() != b.random())
    True
    """
    rng = check_rng(random_state)
    return list(rng.spawn(n))


def public_seed(rng):
    """An int seed drawn from a public-side generator, for a nested estimator.

    A nested estimator of this package seeds only its public side with it, so
    storing it (in the nested estimator's ``random_state``) reveals nothing
    about the privacy noise.

    Parameters
    ----------
    rng : numpy.random.Generator
        Public-side stream.

    Returns
    -------
    seed : int
    """
    return int(rng.integers(2**31 - 1))


def noise_rng(random_state=None):
    """A generator for privacy noise: fresh OS entropy on every call.

    Call it once per ``fit`` (spawn children from it for several mechanisms) and
    never store it, nor anything derived from it, in the estimator: its
    ``bit_generator.seed_seq`` would replay every draw.

    Parameters
    ----------
    random_state : None, int or RandomState, default=None
        The estimator's ``random_state``. Ignored, except inside
        :func:`reproducible_noise`, where the noise is derived from it (and the
        output is then not private).

    Returns
    -------
    rng : numpy.random.Generator

    Examples
    --------
    >>> from sklearn_semiprivate.utils import noise_rng
    >>> bool(noise_rng(0).random() != noise_rng(0).random())  # fresh each time
    True
    """
    if _REPRODUCIBLE_NOISE.get() and random_state is not None:
        entropy = check_rng(random_state).integers(2**63, size=2)
        seq = np.random.SeedSequence(
            entropy=[int(e) for e in entropy], spawn_key=_NOISE_SPAWN_KEY
        )
        return np.random.Generator(np.random.PCG64(seq))
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence()))


@contextlib.contextmanager
def reproducible_noise():
    """Derive privacy noise from ``random_state``, for tests and docs: NOT PRIVATE.

    Inside this context, an estimator fitted with an int ``random_state`` draws
    its privacy noise from that seed, so two fits give identical output (what
    doctests, examples and scikit-learn's ``check_estimator`` need). Anyone who
    knows the seed can then recompute the noise, and the fit is **not**
    differentially private; entering the context emits a
    :class:`~sklearn_semiprivate.PrivacyLeakWarning` saying so. Estimators with
    ``random_state=None`` still draw fresh noise.

    The setting holds in the current context (a :mod:`contextvars` variable):
    fits run in other threads or worker processes draw fresh noise, the safe
    side, but an asyncio task created inside the ``with`` block keeps a copy of
    the context, and with it the setting, after the block ends.

    Yields
    ------
    None

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from sklearn_semiprivate import PrivacyLeakWarning, PublicData
    >>> from sklearn_semiprivate import SemiPrivateClassifier, reproducible_noise
    >>> rng = np.random.default_rng(0)
    >>> X, X_pub = rng.uniform(size=(200, 2)), rng.uniform(size=(20, 2))
    >>> y = (X[:, 0] > 0.5).astype(int)
    >>> clf = SemiPrivateClassifier(epsilon=0.1, classes=[0, 1], random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", PrivacyLeakWarning)
    ...     with reproducible_noise():  # warns: not private
    ...         a = clf.fit(X, y, X_public=PublicData(X_pub)).member_
    ...         b = clf.fit(X, y, X_public=PublicData(X_pub)).member_
    >>> a == b
    True
    """
    warnings.warn(
        "reproducible_noise(): privacy noise is derived from each estimator's "
        "random_state, so anyone who knows the seed can recompute it. Output "
        "fitted inside this context is NOT differentially private; use it for "
        "tests and documentation only.",
        PrivacyLeakWarning,
        stacklevel=3,
    )
    token = _REPRODUCIBLE_NOISE.set(True)
    try:
        yield
    finally:
        _REPRODUCIBLE_NOISE.reset(token)
