"""Exact privacy verification of discrete mechanisms by enumerating neighbours.

For a mechanism whose output distribution can be computed exactly, ε-DP is the
statement ``|log P(o | D) - log P(o | D')| <= ε`` for every output ``o`` and every
pair of neighbours ``D, D'``. On tiny inputs all neighbours can be enumerated and
the largest log-ratio computed, which is what these helpers do: either over score
vectors (every coordinate moved within ``[-Δ, Δ]``, as one changed private row
can move each score of a sensitivity-``Δ`` score function) or over any list of
neighbouring datasets.
"""

# SPDX-License-Identifier: BSD-3-Clause

import itertools
import math
from typing import Any, NamedTuple

import numpy as np
from scipy.special import logsumexp

from ..mechanisms._validation import check_scores, check_sensitivity
from ..utils._validation import check_integer, check_real_array

__all__ = [
    "ExactPrivacyLoss",
    "max_privacy_loss_over_pairs",
    "max_privacy_loss_over_scores",
    "neighbouring_pairs",
]

# Refuse enumerations that would take minutes rather than seconds.
_MAX_NEIGHBOURS = 2_000_000
# How far from 1 a returned distribution's total may be: rounding, float32
# included (a float32 softmax totals 0.99999997; a review). A total off by
# this much moves a log-ratio by about as much, far below what an audit
# resolves; unnormalised weights are off by orders more.
_TOTAL_TOLERANCE = 1e-5


class ExactPrivacyLoss(NamedTuple):
    """The largest privacy loss found, and where.

    Attributes
    ----------
    epsilon : float
        ``max |log P(o | x) - log P(o | x')|`` over the enumerated pairs and all
        outputs ``o``; ``inf`` if one side gives an output probability 0 and the
        other does not (the support changed).
    pair : tuple
        The pair ``(x, x')`` attaining it.
    output : int
        The index of the output attaining it.

    Examples
    --------
    >>> from sklearn_semiprivate.audit import ExactPrivacyLoss
    >>> res = ExactPrivacyLoss(0.5, ((0,), (1,)), 1)
    >>> bool(res.epsilon <= 1.0)
    True
    """

    epsilon: float
    pair: Any
    output: int


def _as_log(dist, log, name):
    arr = np.asarray(dist, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must return a non-empty 1-D vector, got {arr.shape}.")
    if np.isnan(arr).any():
        raise ValueError(f"{name} returned NaN.")
    if log:
        if np.isposinf(arr).any():
            raise ValueError(f"{name} returned a log-probability of +inf.")
        total = float(np.exp(logsumexp(arr)))
    else:
        if np.any(arr < 0):
            raise ValueError(f"{name} returned a negative probability.")
        total = float(arr.sum())
    # A distribution, not weights: log-ratios of unnormalised weights are off
    # by the ratio of the totals (a review: exponential-mechanism log-weights
    # gave 0.50 where the mechanism's loss is 0.994).
    if not abs(total - 1.0) <= _TOTAL_TOLERANCE:
        raise ValueError(
            f"{name} must return an output distribution (total probability 1); "
            f"its total is {total!r}. Normalise it (log-probabilities: subtract "
            "their logsumexp)."
        )
    if log:
        return arr
    with np.errstate(divide="ignore"):
        return np.log(arr)


def _max_abs_log_ratio(lp, lq):
    if lp.shape != lq.shape:
        raise ValueError(
            f"The two distributions have different shapes {lp.shape} and {lq.shape}."
        )
    both_zero = np.isneginf(lp) & np.isneginf(lq)
    with np.errstate(invalid="ignore"):
        diff = np.abs(lp - lq)
    # -inf against a finite value is an infinite loss (diff is already inf);
    # 0 against 0 is no loss.
    diff[both_zero] = 0.0
    idx = int(np.argmax(diff))
    return float(diff[idx]), idx


def max_privacy_loss_over_scores(
    log_probabilities, scores, *, sensitivity=1.0, n_moves=5, moves=None, log=True
):
    """Largest log-ratio between a score vector and all of its neighbours.

    Neighbouring score vectors are ``scores + m`` for every ``m`` in
    ``moves ** K`` (each of the ``K`` coordinates moved independently by a value
    from the grid ``moves`` within ``[-sensitivity, sensitivity]``): what one
    changed private row can do to a score function of that sensitivity. The
    mechanism is ε-DP on this input only if the result is ``<= ε``.

    Parameters
    ----------
    log_probabilities : callable
        ``scores -> exact output distribution`` of the mechanism (log-probabilities
        if ``log=True``, probabilities otherwise), one entry per output; its
        total must be 1 (unnormalised weights are a ValueError).
    scores : array-like of shape (n_candidates,)
        The base score vector.
    sensitivity : float, default=1.0
        Largest move of one score, ``Δ``.
    n_moves : int, default=5
        Grid size when ``moves`` is None: ``linspace(-Δ, Δ, n_moves)`` (it holds
        ``±Δ``, where the loss of the usual mechanisms peaks).
    moves : array-like of float, default=None
        Explicit grid of moves, each in ``[-Δ, Δ]``.
    log : bool, default=True
        Whether ``log_probabilities`` returns log-probabilities.

    Returns
    -------
    result : ExactPrivacyLoss
        ``epsilon`` is the largest ``|log p - log q|``; ``pair`` the base and the
        neighbouring score vectors; ``output`` the output index.

    Examples
    --------
    >>> from sklearn_semiprivate.audit import max_privacy_loss_over_scores
    >>> from sklearn_semiprivate.mechanisms import ExponentialMechanism
    >>> mech = ExponentialMechanism(epsilon=1.0)
    >>> res = max_privacy_loss_over_scores(mech.log_probabilities, [0.0, 0.0, 5.0])
    >>> bool(res.epsilon <= 1.0 + 1e-9), round(res.epsilon, 3)
    (True, 0.954)
    """
    scores = check_scores(scores)
    sensitivity = check_sensitivity(sensitivity)
    if moves is None:
        moves = np.linspace(
            -sensitivity, sensitivity, check_integer(n_moves, "n_moves", 2)
        )
    else:
        moves = check_real_array(moves, "moves")
        if np.any(np.abs(moves) > sensitivity):
            raise ValueError("moves must lie within [-sensitivity, sensitivity].")
    k = scores.shape[0]
    if moves.shape[0] ** k > _MAX_NEIGHBOURS:
        raise ValueError(
            f"{moves.shape[0]}**{k} neighbouring score vectors are too many to "
            "enumerate; use fewer candidates or moves."
        )
    base = _as_log(log_probabilities(scores.copy()), log, "log_probabilities")
    worst = ExactPrivacyLoss(0.0, (scores, scores), 0)
    for move in itertools.product(moves, repeat=k):
        neighbour = scores + np.asarray(move)
        lq = _as_log(log_probabilities(neighbour.copy()), log, "log_probabilities")
        loss, idx = _max_abs_log_ratio(base, lq)
        if loss > worst.epsilon:
            worst = ExactPrivacyLoss(loss, (scores, neighbour), idx)
    return worst


def max_privacy_loss_over_pairs(distribution, pairs, *, log=False):
    """Largest log-ratio of a mechanism's exact output distributions over pairs.

    Parameters
    ----------
    distribution : callable
        ``dataset -> exact output distribution`` (probabilities, or
        log-probabilities if ``log=True``) as a 1-D vector indexed by output,
        of total 1 (unnormalised weights are a ValueError).
    pairs : iterable of (dataset, dataset)
        Neighbouring datasets, e.g. from :func:`neighbouring_pairs`.
    log : bool, default=False
        Whether ``distribution`` returns log-probabilities.

    Returns
    -------
    result : ExactPrivacyLoss
        ``epsilon`` is the largest ``|log P(o | D) - log P(o | D')|``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.audit import (
    ...     max_privacy_loss_over_pairs, neighbouring_pairs)
    >>> from sklearn_semiprivate.mechanisms import RandomizedResponse
    >>> rr = RandomizedResponse(epsilon=np.log(3))
    >>> pairs = neighbouring_pairs([0, 1], n_rows=1)
    >>> res = max_privacy_loss_over_pairs(lambda d: rr.transition_matrix[d[0]], pairs)
    >>> bool(abs(res.epsilon - np.log(3)) < 1e-12)
    True
    """
    worst = None
    for pair in pairs:
        d, d_prime = pair
        lp = _as_log(distribution(d), log, "distribution")
        lq = _as_log(distribution(d_prime), log, "distribution")
        loss, idx = _max_abs_log_ratio(lp, lq)
        if worst is None or loss > worst.epsilon:
            worst = ExactPrivacyLoss(loss, (d, d_prime), idx)
    if worst is None:
        raise ValueError("pairs must not be empty.")
    return worst


def neighbouring_pairs(domain, n_rows, *, relation="replace_one"):
    """All pairs of neighbouring datasets of ``n_rows`` rows over a finite domain.

    Parameters
    ----------
    domain : sequence
        The possible rows (any objects, e.g. ``(x, y)`` tuples).
    n_rows : int
        Number of rows of the first dataset of each pair, ``>= 1``.
    relation : {"replace_one", "add_remove"}, default="replace_one"
        ``"replace_one"``: the second dataset has one row replaced by another
        domain element. ``"add_remove"``: the second dataset has one row removed
        (the pair covers adding it back, since losses are symmetric).

    Returns
    -------
    pairs : list of (tuple, tuple)
        Datasets as tuples of rows.

    Examples
    --------
    >>> from sklearn_semiprivate.audit import neighbouring_pairs
    >>> neighbouring_pairs([0, 1], n_rows=1)
    [((0,), (1,)), ((1,), (0,))]
    >>> neighbouring_pairs(["a", "b"], n_rows=2, relation="add_remove")[:2]
    [(('a', 'a'), ('a',)), (('a', 'a'), ('a',))]
    """
    domain = list(domain)
    if not domain:
        raise ValueError("domain must not be empty.")
    n_rows = check_integer(n_rows, "n_rows", 1)
    if relation not in ("replace_one", "add_remove"):
        raise ValueError(
            f"relation must be 'replace_one' or 'add_remove', got {relation!r}."
        )
    count = len(domain) ** n_rows * n_rows * max(1, len(domain) - 1)
    if count > _MAX_NEIGHBOURS or math.isinf(count):
        raise ValueError(f"{count} pairs are too many to enumerate.")
    pairs = []
    # Enumerate indices into the domain, so rows may be arrays (no == needed).
    for codes in itertools.product(range(len(domain)), repeat=n_rows):
        dataset = tuple(domain[c] for c in codes)
        for i in range(n_rows):
            if relation == "add_remove":
                pairs.append((dataset, dataset[:i] + dataset[i + 1 :]))
                continue
            for j in range(len(domain)):
                if j != codes[i]:
                    neighbour = (*dataset[:i], domain[j], *dataset[i + 1 :])
                    pairs.append((dataset, neighbour))
    return pairs
