"""Private selection from private candidates: random stopping (Liu & Talwar 2019).

A hyper-parameter search on private data runs many private fits and keeps the
best. Summing their costs (basic composition) makes a grid of 100 candidates
cost 100 fits. Liu & Talwar (*Private Selection from Private Candidates*, STOC
2019, Algorithm 2 and Theorem 3.4) show that if one *run* ``Q`` (draw a
candidate, fit it, score it, all ``epsilon``-DP) is repeated a **geometric**
number of times ``K`` (stop after each run with probability ``gamma``), and
only the best run is released, the whole selection is ``3 epsilon``-DP,
whatever ``gamma``. Papernot & Steinke (*Hyperparameter Tuning with Renyi
Differential Privacy*, ICLR 2022) restate it as the ``eta = 1`` member of their
truncated-negative-binomial family, whose pure-DP bound is ``(2 + eta)
epsilon``.

Two conditions the proof needs, and the code keeps:

* ``K`` is secret. Conditioned on ``K = k`` the output is the best of ``k``
  runs, which can cost up to ``k epsilon``: neither ``K`` nor the list of runs
  nor their scores may be released, only the winner.
* ``K`` is not truncated. Capping it at ``T`` changes the distribution of ``K``
  and the ``3 epsilon`` proof no longer applies (the exact check in the tests
  finds cases above ``3 epsilon``). ``K`` is drawn before any run, from fresh
  noise; its tail ``P(K > k) = (1 - gamma) ** k`` is what bounds the work.

Everything here is a pure function of its arguments, so the tests verify the
distribution of the output exactly on small discrete cases.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from ..accounting import PrivacyCost
from ..utils._validation import check_positive_real, check_probability

__all__ = [
    "random_stopping_cost",
    "random_stopping_number_of_runs",
    "random_stopping_output_distribution",
]


def random_stopping_cost(run_cost):
    """Privacy cost of random stopping around runs of cost ``run_cost``.

    Liu & Talwar (2019), Theorem 3.4: if each run is ``epsilon``-DP, releasing
    the best of a secret geometric number of runs is ``3 epsilon``-DP, for every
    stopping probability. Only pure DP runs are covered: the approximate-DP
    version of the theorem needs a truncated number of runs and pays a ``delta``
    that grows with the truncation, which this package does not implement.

    Parameters
    ----------
    run_cost : PrivacyCost or tuple of (epsilon, delta)
        Cost of one run; ``delta`` must be 0.

    Returns
    -------
    cost : PrivacyCost
        ``(3 epsilon, 0)``.

    Examples
    --------
    >>> from sklearn_semiprivate.model_selection import random_stopping_cost
    >>> random_stopping_cost((0.5, 0.0))
    PrivacyCost(epsilon=1.5, delta=0.0)
    """
    epsilon, delta = PrivacyCost(*run_cost)
    epsilon = check_positive_real(epsilon, "epsilon")
    if delta != 0:
        raise ValueError(
            "Random stopping is implemented for pure-DP runs (delta=0) only; a run "
            f"costs delta={delta}. Select on public labeled rows instead "
            "(selection='public')."
        )
    # Liu & Talwar (2019), Theorem 3.4: 3 epsilon, independent of gamma.
    return PrivacyCost(3.0 * epsilon, 0.0)


def random_stopping_number_of_runs(stop_probability, rng):
    """Draw the secret number of runs ``K ~ Geometric(stop_probability)``.

    Equivalent to Algorithm 2's coin flipped after each run (stop with
    probability ``gamma``), because the coins do not depend on the runs:
    ``P(K = k) = gamma (1 - gamma) ** (k - 1)`` for ``k >= 1``. Drawing it first
    lets the runs be dispatched in parallel. Never release it.

    Parameters
    ----------
    stop_probability : float
        ``gamma`` in ``(0, 1]``; the expected number of runs is ``1 / gamma``.
    rng : numpy.random.Generator
        Privacy noise (fresh; see ``noise_rng``).

    Returns
    -------
    n_runs : int
        At least 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.model_selection import (
    ...     random_stopping_number_of_runs)
    >>> random_stopping_number_of_runs(1.0, np.random.default_rng(0))
    1
    """
    gamma = check_probability(
        stop_probability, "stop_probability", allow_zero=False, allow_one=True
    )
    return int(rng.geometric(gamma))


def random_stopping_output_distribution(run_pmf, stop_probability):
    """Exact distribution of the released winner, for a discrete run.

    The run's outcomes are indexed in increasing order of preference (score,
    ties broken by index), so "best of ``k`` runs" is the maximum index. With
    ``F`` the run's CDF over that order, the best of ``k`` i.i.d. runs has CDF
    ``F ** k``, and mixing over ``K ~ Geometric(gamma)`` gives the CDF
    ``G = gamma F / (1 - (1 - gamma) F)``. Used by the tests to verify the
    ``3 epsilon`` bound and its mutants exactly.

    Parameters
    ----------
    run_pmf : array-like of shape (n_outcomes,)
        Probabilities of the run's outcomes, worst first; they sum to 1.
    stop_probability : float
        ``gamma`` in ``(0, 1]``.

    Returns
    -------
    pmf : ndarray of shape (n_outcomes,)
        Probability that each outcome is the one released.

    Examples
    --------
    >>> from sklearn_semiprivate.model_selection import (
    ...     random_stopping_output_distribution)
    >>> random_stopping_output_distribution([0.5, 0.5], 1.0).tolist()
    [0.5, 0.5]
    """
    gamma = check_probability(
        stop_probability, "stop_probability", allow_zero=False, allow_one=True
    )
    pmf = np.asarray(run_pmf, dtype=np.float64)
    if (
        pmf.ndim != 1
        or pmf.size == 0
        or np.any(pmf < 0)
        or not np.isclose(pmf.sum(), 1.0)
    ):
        raise ValueError("run_pmf must be a non-empty 1-D probability vector.")
    cdf = np.minimum(np.cumsum(pmf), 1.0)
    out_cdf = gamma * cdf / (1.0 - (1.0 - gamma) * cdf)
    return np.diff(out_cdf, prepend=0.0)
