"""Private multiplicative weights: the engine (its accounting: ``_pmw_budget``).

Two variants over a finite, public support of points (the synthetic distribution
is a weight vector over it):

* ``sparse_vector_pmw`` — the offline Private Multiplicative Weights of Hardt &
  Rothblum (2010) as used by APAP (Bassily et al. 2020, Alg. 3 step 4 and
  Lemma 7; Dwork & Roth 2014, Alg. 5 / Thm 4.15): the queries are visited in
  turn, the sparse vector technique (``above_threshold``) finds one whose error
  on the current distribution is above ``3 alpha / 4``, the Laplace mechanism
  measures it, and the multiplicative-weights step ``x <- x exp(±alpha/2 q)``
  moves the distribution towards it. At most ``c = ceil(4 ln|X~| / alpha^2)``
  updates (Dwork & Roth's bound); calibrated to (ε, δ) by advanced composition
  over the ``c`` sparse-vector instances. Here ``alpha`` is PMW's own accuracy
  parameter; APAP runs it at half its target (Alg. 3 step 4).
* ``mwem_rounds`` — MWEM-style rounds (Hardt, Ligett & McSherry 2012) over the
  public points (PMW^Pub, Liu et al. 2021): each round selects a badly answered
  query with the exponential mechanism or permute-and-flip, measures it with
  the Gaussian or Laplace mechanism and applies the MWEM update
  ``x <- x exp(q (m - q(x)) / 2)``. Accounted in zero-concentrated DP (zCDP),
  converted to (ε, δ) at the end.

Neighbouring private datasets differ by replacing one row (``n`` is public), so
every answer (a fraction of the ``n`` rows) has sensitivity ``1 / n``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
import sys

import numpy as np
from scipy.special import logsumexp

from ..mechanisms import (
    LaplaceMechanism,
    exponential_mechanism,
    multiplicative_weights_update,
    permute_and_flip,
)
from ..mechanisms._additive import laplace_scale

__all__ = [
    "WeightedSupport",
    "above_threshold",
    "mwem_rounds",
    "sparse_vector_pmw",
]

# Share of each sparse-vector instance's budget spent on AboveThreshold; the
# rest pays the Laplace measurement of the query found.
SVT_SHARE = 0.75
# AboveThreshold noise scales, in units of sensitivity / epsilon (Dwork & Roth
# 2014, Alg. 1 and Thm 3.23): threshold Lap(2Δ/ε), every query Lap(4Δ/ε).
SVT_THRESHOLD_NOISE = 2.0
SVT_QUERY_NOISE = 4.0
# Every this many updates the synthetic answers are recomputed from the weights,
# so incremental updates do not accumulate rounding.
_REFRESH_EVERY = 64
# The incremental answer update (see WeightedSupport) divides by
# D = 1 + (e^f - 1) a_i, which multiplies the rounding error of the cached
# answers by up to 1/D (D < 1 when f < 0; at a_i near 1 the numerator cancels
# too). It is used only while the product of these factors since the answers
# were last recomputed stays at most _MAX_ERROR_AMPLIFICATION (each of at most
# _REFRESH_EVERY = 2^6 updates adds a few ulps, grown by at most 2^10: an error
# of order 2^-34 at worst, 4.6e-11 in the tests' worst case), and
# while f is at most _MAX_INCREMENTAL_EXPONENT (so e^f is finite and the mass of
# points whose weights underflowed to 0, below 2^-1074 each, stays below
# 2^-335 after the update); otherwise the answers are recomputed from the
# log-weights.
_MAX_ERROR_AMPLIFICATION = 2.0**10
_MAX_INCREMENTAL_EXPONENT = 512.0
# MWEM's learning rate on fractions: x <- x exp(q (m - q(x)) / 2) (Hardt,
# Ligett & McSherry 2012).
MWEM_LEARNING_RATE = 0.5


class WeightedSupport:
    """A distribution over a finite public support, with the answers it gives.

    Keeps normalised log-weights (so long runs of updates never underflow, and a
    single update, however large, never overflows: see
    :func:`~sklearn_semiprivate.mechanisms.multiplicative_weights_update`) and
    the answers of every query of ``query_set`` on the current distribution,
    updated incrementally: multiplying the weights of the points satisfying
    query ``i`` by ``exp(f)`` changes answer ``a_q`` to
    ``(a_q + (e^f - 1) b_q) / (1 + (e^f - 1) a_i)``, where ``b_q`` is the mass of
    the points satisfying both ``q`` and ``i``: an evaluation on those points
    only. For ``f < 0`` the division by ``1 + (e^f - 1) a_i < 1`` multiplies the
    rounding error of the cached answers, and for ``a_i`` near 1 the formula
    cancels (at ``f`` below about -37 and ``a_i = 1`` it divides 0 by 0); above
    ``f ≈ 709.8``, ``e^f`` overflows. So the answers are recomputed from the
    log-weights instead when the error growth since they were last recomputed
    would pass ``_MAX_ERROR_AMPLIFICATION``, when ``f`` is above
    ``_MAX_INCREMENTAL_EXPONENT``, and every ``_REFRESH_EVERY`` updates.
    Everything here is public (post-processing of released values).
    """

    def __init__(self, query_set, points, init_weights=None):
        self.query_set = query_set
        self.points = points
        if init_weights is None:
            self.log_weights = np.zeros(points.shape[0])
        else:
            # A zero initial weight (log -inf) is a point the distribution never
            # puts mass on.
            with np.errstate(divide="ignore"):
                self.log_weights = np.log(init_weights)
        with np.errstate(under="ignore"):
            self.log_weights -= logsumexp(self.log_weights)
        self._n_updates = 0
        self.refresh()

    @property
    def weights(self):
        """Normalised weights, shape (n_points,)."""
        # Weights below the float range are 0; the largest is >= 1/n_points.
        with np.errstate(under="ignore"):
            return np.exp(self.log_weights)

    def refresh(self):
        """Recompute every answer from the weights."""
        with np.errstate(under="ignore"):
            self.answers = self.query_set.weighted_sums(self.points, self.weights)
        # Bound on the growth of the rounding error of the cached answers.
        self._amplification = 1.0

    def update(self, i, factor):
        """Multiply the weights of the points of query ``i`` by ``exp(factor)``.

        Then renormalise. ``factor`` is any number but NaN (``eta`` times a
        noisy measurement minus the current answer can be far outside
        ``[-1, 1]``); at ``±inf`` (a product beyond the float range) its limit is
        taken: all the mass moves on or off the points of query ``i``.
        """
        factor = float(factor)
        if math.isnan(factor):
            raise ValueError("factor must not be NaN.")
        mask = self.query_set.mask(i, self.points)
        if not mask.any() or factor == 0.0:
            return
        incremental = factor <= _MAX_INCREMENTAL_EXPONENT
        if incremental:
            w = self.weights
            g = math.expm1(factor)
            a_i = float(w[mask].sum())
            denominator = 1.0 + g * a_i
            # amplification / min(D, 1) <= the largest, without dividing by D.
            shrink = min(denominator, 1.0)
            incremental = self._amplification <= _MAX_ERROR_AMPLIFICATION * shrink
        if incremental:
            self._amplification /= shrink
            with np.errstate(under="ignore"):
                b = self.query_set.weighted_sums(self.points[mask], w[mask])
        # Log-weights: + factor on the mask (exactly: lw - |f| (-sign f)), then
        # normalised; an infinite factor is the largest float (the same limit).
        step = min(abs(factor), sys.float_info.max)
        losses = np.where(mask, -1.0 if factor > 0 else 1.0, 0.0)
        self.log_weights = multiplicative_weights_update(
            self.log_weights, losses, step, log_weights=True, normalize=True
        )
        self._n_updates += 1
        if incremental and self._n_updates % _REFRESH_EVERY != 0:
            with np.errstate(under="ignore"):
                self.answers = (self.answers + g * b) / denominator
        else:
            self.refresh()


def above_threshold(values, threshold, epsilon, sensitivity, rng):
    """One AboveThreshold instance over ``values`` (Dwork & Roth 2014, Alg. 1).

    Draws the noisy threshold ``threshold + Lap(2Δ/ε)``, then adds
    ``Lap(4Δ/ε)`` to every value in turn and stops at the first that reaches
    the noisy threshold. ε-DP (Thm 3.23) when every value has sensitivity
    ``Δ``, whatever the length of ``values``.

    Parameters
    ----------
    values : ndarray of shape (m,)
        The (private) values, in the order they are visited.
    threshold : float
        The (public) threshold.
    epsilon : float
        Budget of the instance.
    sensitivity : float
        Sensitivity ``Δ`` of each value.
    rng : numpy.random.Generator

    Returns
    -------
    index : int
        Position of the first value reaching the noisy threshold, -1 if none.
    """
    noisy_threshold = threshold + rng.laplace(
        scale=laplace_scale(SVT_THRESHOLD_NOISE * sensitivity, epsilon)
    )
    noisy = values + rng.laplace(
        scale=laplace_scale(SVT_QUERY_NOISE * sensitivity, epsilon), size=values.shape
    )
    hits = np.flatnonzero(noisy >= noisy_threshold)
    return int(hits[0]) if hits.size else -1


def sparse_vector_pmw(support, true_answers, n, *, epsilon0, alpha, n_updates, rng):
    """Offline PMW with the sparse vector technique (Dwork & Roth 2014, Alg. 5).

    Parameters
    ----------
    support : WeightedSupport
        Uniform distribution over the representative domain, with the cover's
        queries.
    true_answers : ndarray of shape (n_queries,)
        Private answers of the cover on the private representatives (fractions).
    n : int
        Number of private rows (public): the sensitivity of an answer is 1/n.
    epsilon0 : float
        Budget of one AboveThreshold instance plus its measurement.
    alpha : float
        PMW's accuracy parameter: threshold ``3 alpha / 4``, learning rate
        ``alpha / 2``.
    n_updates : int
        Largest number of updates ``c``.
    rng : numpy.random.Generator

    Returns
    -------
    n_done : int
        Number of updates made (at most ``n_updates``).
    """
    sens = 1.0 / n
    eps_svt = SVT_SHARE * epsilon0
    # Laplace measurement of the query found: sensitivity 1/n, (ε0 - ε_svt)-DP.
    measure = LaplaceMechanism(epsilon0 - eps_svt, sensitivity=sens)
    threshold = 0.75 * alpha
    eta = 0.5 * alpha
    m = true_answers.size
    start = 0
    done = 0
    while done < n_updates:
        # One AboveThreshold instance, with a fresh noisy threshold, over one
        # pass of the queries from `start`. The value |a_q(D) - a_q(x_t)| has
        # sensitivity Δ = 1/n: x_t depends only on released values.
        order = (np.arange(m) + start) % m
        err = np.abs(true_answers[order] - support.answers[order])
        hit = above_threshold(err, threshold, eps_svt, sens, rng)
        if hit < 0:
            # A full pass over the queries found nothing: the run ends with
            # every answer below the threshold.
            break
        i = int(order[hit])
        measured = measure.sample(true_answers[i], random_state=rng)
        direction = 1.0 if measured > support.answers[i] else -1.0
        support.update(i, direction * eta)
        done += 1
        start = (i + 1) % m
    return done


def mwem_rounds(
    support,
    true_answers,
    n,
    *,
    n_rounds,
    params,
    selection,
    measurement,
    rng,
):
    """MWEM rounds over a public support (PMW^Pub, Liu et al. 2021).

    Parameters
    ----------
    support : WeightedSupport
        Initial distribution (the public empirical distribution) and queries.
    true_answers : ndarray of shape (n_queries,)
        Private answers (fractions).
    n : int
        Number of private rows (public).
    n_rounds : int
        Number of rounds.
    params : dict
        From :func:`~sklearn_semiprivate.query_release.mwem_round_parameters`.
    selection : {"exponential", "permute_and_flip"}
    measurement : {"gaussian", "laplace"}
    rng : numpy.random.Generator

    Returns
    -------
    selected : ndarray of shape (n_rounds,)
        Index of the query measured in each round.
    """
    selected = np.empty(n_rounds, dtype=np.intp)
    eps_sel = params["epsilon_selection"]
    laplace = (
        None
        if measurement == "gaussian"
        else LaplaceMechanism(params["epsilon_measurement"], sensitivity=1.0 / n)
    )
    for r in range(n_rounds):
        # Score n |a_q(D) - a_q(x_t)|: a count, sensitivity 1 (x_t is public
        # given the released history).
        scores = n * np.abs(true_answers - support.answers)
        if selection == "exponential":
            i = exponential_mechanism(
                scores, eps_sel, sensitivity=1.0, random_state=rng
            )
        else:
            i = permute_and_flip(scores, eps_sel, sensitivity=1.0, random_state=rng)
        if laplace is None:
            # Gaussian noise of standard deviation σΔ, Δ = 1/n: ρ = 1/(2σ²)-zCDP
            # (Bun & Steinke 2016, Prop. 1.6); σ from mwem_round_parameters.
            measured = true_answers[i] + rng.normal(scale=params["sigma"] / n)
        else:
            # Laplace mechanism, sensitivity 1/n.
            measured = laplace.sample(true_answers[i], random_state=rng)
        # MWEM update (Hardt, Ligett & McSherry 2012): x <- x exp(q (m - q(x)) / 2).
        # The measurement is used as drawn, as in MWEM. Clipping it to [0, 1]
        # (post-processing: no privacy cost) would change the release of every
        # run with a measurement outside [0, 1]. With noise large against 1/n
        # the exponent can be large: WeightedSupport.update works in log space.
        support.update(i, MWEM_LEARNING_RATE * (measured - support.answers[i]))
        selected[r] = i
    return selected
