"""Random number generation: one seeded ``numpy.random.Generator`` per mechanism."""

# SPDX-License-Identifier: BSD-3-Clause

import numbers

import numpy as np

__all__ = ["check_rng", "spawn_rngs"]


def check_rng(random_state):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

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
    """Return ``n`` independent generators derived from ``random_state``.

    Separate mechanisms inside one ``fit`` get independent streams, never a reused
    seed (``SeedSequence.spawn``).

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
