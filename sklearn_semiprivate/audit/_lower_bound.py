"""Statistical lower bounds on ε from samples of a mechanism (Clopper–Pearson).

If ``M`` is (ε, δ)-DP then for every event ``E`` and neighbours ``D, D'``,
``P[M(D) ∈ E] <= e^ε P[M(D') ∈ E] + δ``, so

    ε >= log((P[M(D) ∈ E] - δ) / P[M(D') ∈ E]).

Replacing the first probability by a Clopper–Pearson lower confidence bound and
the second by an upper one (each at level ``α/2``, a union bound) gives a lower
bound on ε that holds with probability at least ``1 - α`` over the samples. A
bound above the claimed ε is statistical evidence that the claim is false; that
is how these helpers catch broken mechanisms. The event must be fixed before
looking at the samples it is evaluated on: :func:`epsilon_lower_bound_search`
picks it on one half of the samples and evaluates it on the other.
"""

# SPDX-License-Identifier: BSD-3-Clause

from typing import NamedTuple

import numpy as np
from scipy.stats import beta

from ..utils._rng import check_rng
from ..utils._validation import (
    check_delta,
    check_integer,
    check_probability,
    check_real_array,
)

__all__ = [
    "EpsilonLowerBound",
    "clopper_pearson",
    "epsilon_lower_bound",
    "epsilon_lower_bound_search",
]


class EpsilonLowerBound(NamedTuple):
    """A lower confidence bound on ε and the evidence behind it.

    Attributes
    ----------
    epsilon : float
        Lower confidence bound on ε (``>= 0``).
    event : str
        Description of the event ``E`` used.
    p_lower : float
        Lower confidence bound on ``P[M(D) ∈ E]``.
    q_upper : float
        Upper confidence bound on ``P[M(D') ∈ E]``.
    n_samples : int
        Number of samples of ``M(D)`` the bound was computed on.
    n_samples_neighbour : int
        Number of samples of ``M(D')`` the bound was computed on.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.audit import epsilon_lower_bound
    >>> a = np.array([1] * 90 + [0] * 10)
    >>> b = np.array([1] * 10 + [0] * 90)
    >>> res = epsilon_lower_bound(a, b, lambda x: x == 1)
    >>> res.n_samples, bool(res.epsilon > 1.0)
    (100, True)
    """

    epsilon: float
    event: str
    p_lower: float
    q_upper: float
    n_samples: int
    n_samples_neighbour: int


def _cp_lower(k, n, level):
    # One-sided Clopper–Pearson lower bound at confidence 1 - level.
    k = np.asarray(k, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out = beta.ppf(level, k, n - k + 1)
    return np.where(k == 0, 0.0, out)


def _cp_upper(k, n, level):
    k = np.asarray(k, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        out = beta.ppf(1.0 - level, k + 1, n - k)
    return np.where(k == n, 1.0, out)


def clopper_pearson(k, n, alpha=0.05):
    """Two-sided Clopper–Pearson confidence interval for a binomial proportion.

    Parameters
    ----------
    k : int
        Number of successes, ``0 <= k <= n``.
    n : int
        Number of trials, ``>= 1``.
    alpha : float, default=0.05
        One minus the confidence level; each side gets ``alpha / 2``.

    Returns
    -------
    low, high : float
        Exact (conservative) bounds: the interval covers the true proportion
        with probability at least ``1 - alpha``.

    Examples
    --------
    >>> from sklearn_semiprivate.audit import clopper_pearson
    >>> low, high = clopper_pearson(5, 10)
    >>> round(low, 4), round(high, 4)
    (0.1871, 0.8129)
    """
    k, n = _check_counts(k, n)
    alpha = check_probability(alpha, "alpha", allow_zero=False)
    return float(_cp_lower(k, n, alpha / 2)), float(_cp_upper(k, n, alpha / 2))


def _check_counts(k, n):
    k, n = check_integer(k, "k", 0), check_integer(n, "n", 1)
    if not k <= n:
        raise ValueError(f"Need 0 <= k <= n and n >= 1, got k={k}, n={n}.")
    return int(k), int(n)


def _epsilon_from_bounds(p_lower, q_upper, delta):
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log((p_lower - delta) / q_upper)
    return np.where((p_lower > delta) & (q_upper > 0), np.maximum(eps, 0.0), 0.0)


def _check_samples(samples, name):
    arr = np.asarray(samples)
    if arr.ndim == 0 or arr.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one sample (along axis 0).")
    return arr


def epsilon_lower_bound(samples, samples_neighbour, event, *, alpha=0.05, delta=0.0):
    """Lower confidence bound on ε from samples and a fixed event.

    Parameters
    ----------
    samples : array-like of shape (n, ...)
        Independent outputs of ``M(D)``.
    samples_neighbour : array-like of shape (m, ...)
        Independent outputs of ``M(D')`` for a neighbour ``D'``.
    event : callable
        ``outputs -> boolean mask of shape (len(outputs),)``, chosen without
        looking at these samples.
    alpha : float, default=0.05
        The bound holds with probability ``>= 1 - alpha``.
    delta : float, default=0.0
        The δ of the claim being tested.

    Returns
    -------
    bound : EpsilonLowerBound

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.audit import epsilon_lower_bound
    >>> rng = np.random.default_rng(0)
    >>> a = 1.0 + rng.laplace(size=20_000)  # Laplace mechanism, ε = 1, f(D) = 1
    >>> b = 0.0 + rng.laplace(size=20_000)  # f(D') = 0
    >>> res = epsilon_lower_bound(a, b, lambda x: x > 1.0, alpha=1e-3)
    >>> bool(0.8 < res.epsilon <= 1.0)
    True
    """
    samples = _check_samples(samples, "samples")
    samples_neighbour = _check_samples(samples_neighbour, "samples_neighbour")
    if not callable(event):
        raise TypeError("event must be a callable returning a boolean mask.")
    alpha = check_probability(alpha, "alpha", allow_zero=False)
    delta = check_delta(delta)
    hits = _event_count(event, samples, "samples")
    hits_neighbour = _event_count(event, samples_neighbour, "samples_neighbour")
    n, m = samples.shape[0], samples_neighbour.shape[0]
    p_lower = float(_cp_lower(hits, n, alpha / 2))
    q_upper = float(_cp_upper(hits_neighbour, m, alpha / 2))
    eps = float(_epsilon_from_bounds(p_lower, q_upper, delta))
    name = getattr(event, "__name__", "event")
    return EpsilonLowerBound(eps, name, p_lower, q_upper, n, m)


def _event_count(event, samples, name):
    mask = np.asarray(event(samples))
    if mask.shape != (samples.shape[0],) or mask.dtype != bool:
        raise ValueError(
            f"event must return a boolean mask of shape ({samples.shape[0]},) on "
            f"{name}, got dtype {mask.dtype} and shape {mask.shape}."
        )
    return int(mask.sum())


def epsilon_lower_bound_search(
    samples,
    samples_neighbour,
    *,
    alpha=0.05,
    delta=0.0,
    n_thresholds=100,
    random_state=None,
):
    """Lower confidence bound on ε with the event chosen honestly on held-out data.

    The samples of each side are shuffled and split in halves. On the first
    halves, every event ``{x > t}`` and ``{x <= t}`` (``t`` ranging over
    ``n_thresholds`` quantiles of the pooled first halves), in both directions
    (``D`` against ``D'`` and ``D'`` against ``D``), is scored by the bound it
    would give; the best one is then evaluated on the second halves only, so the
    returned bound holds with probability ``>= 1 - alpha``.

    Parameters
    ----------
    samples : array-like of shape (n,)
        Independent real outputs of ``M(D)``.
    samples_neighbour : array-like of shape (m,)
        Independent real outputs of ``M(D')``.
    alpha : float, default=0.05
        The bound holds with probability ``>= 1 - alpha``.
    delta : float, default=0.0
        The δ of the claim being tested.
    n_thresholds : int, default=100
        Number of candidate thresholds.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Randomness of the split.

    Returns
    -------
    bound : EpsilonLowerBound
        ``event`` describes the chosen event and direction.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.audit import epsilon_lower_bound_search
    >>> rng = np.random.default_rng(0)
    >>> a = rng.laplace(size=40_000)        # ε = 1 Laplace mechanism on f(D) = 0
    >>> b = 1.0 + rng.laplace(size=40_000)  # and on f(D') = 1
    >>> res = epsilon_lower_bound_search(a, b, alpha=1e-3, random_state=0)
    >>> bool(0.8 < res.epsilon <= 1.0)
    True
    """
    a = check_real_array(samples, "samples")
    b = check_real_array(samples_neighbour, "samples_neighbour")
    if a.shape[0] < 2 or b.shape[0] < 2:
        raise ValueError("samples and samples_neighbour need at least 2 samples each.")
    alpha = check_probability(alpha, "alpha", allow_zero=False)
    delta = check_delta(delta)
    if isinstance(n_thresholds, bool) or not isinstance(n_thresholds, int):
        raise TypeError("n_thresholds must be an integer.")
    if n_thresholds < 1:
        raise ValueError(f"n_thresholds must be >= 1, got {n_thresholds}.")
    rng = check_rng(random_state)
    a = rng.permutation(a)
    b = rng.permutation(b)
    a_sel, a_test = a[: a.shape[0] // 2], a[a.shape[0] // 2 :]
    b_sel, b_test = b[: b.shape[0] // 2], b[b.shape[0] // 2 :]

    pooled = np.concatenate([a_sel, b_sel])
    thresholds = np.unique(np.quantile(pooled, np.linspace(0, 1, n_thresholds + 2)))

    def counts_above(x, t):
        return x.shape[0] - np.searchsorted(np.sort(x), t, side="right")

    ka, kb = counts_above(a_sel, thresholds), counts_above(b_sel, thresholds)
    na, nb = a_sel.shape[0], b_sel.shape[0]
    # Candidates: (event above?, D first?) for every threshold.
    candidates = []
    for above in (True, False):
        ca, cb = (ka, kb) if above else (na - ka, nb - kb)
        for a_first in (True, False):
            k1, n1, k2, n2 = (ca, na, cb, nb) if a_first else (cb, nb, ca, na)
            score = _epsilon_from_bounds(
                _cp_lower(k1, n1, alpha / 2), _cp_upper(k2, n2, alpha / 2), delta
            )
            best = int(np.argmax(score))
            candidates.append((float(score[best]), above, a_first, thresholds[best]))
    _, above, a_first, t = max(candidates, key=lambda c: c[0])

    def chosen(x):
        return x > t if above else x <= t

    first, second = (a_test, b_test) if a_first else (b_test, a_test)
    res = epsilon_lower_bound(first, second, chosen, alpha=alpha, delta=delta)
    description = (
        f"x {'>' if above else '<='} {float(t)!r} on "
        f"{'M(D) vs M(D_neighbour)' if a_first else 'M(D_neighbour) vs M(D)'}"
    )
    return res._replace(event=description)
