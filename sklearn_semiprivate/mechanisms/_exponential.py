"""The exponential mechanism, sampled by the Gumbel-max trick in log space.

Over candidates ``i`` with scores ``s_i`` (sensitivity ``Δ``: one changed private
row moves every score by at most ``Δ``) and an optional data-independent base
measure ``μ``, the mechanism outputs ``i`` with probability::

    P(i) ∝ μ(i) · exp(ε s_i / (2Δ))

and is ε-DP (McSherry & Talwar 2007; Dwork & Roth 2014, Thm 3.10; Beimel, Nissim
& Stemmer, App. A). It is the selection step of ASSPP (Alon, Bassily & Moran
2019, Alg. 1 step 6), GenericLearner and LabelBoost.

Sampling adds independent standard Gumbel noise to the logits
``log μ(i) + ε s_i / (2Δ)`` and takes the argmax, which is distributed exactly as
the softmax of the logits. Working with logits relative to a reference score, the
sampler never forms ``exp`` of a large number, so scores of ``±1e12`` neither
overflow nor produce NaN; and the argmax can be kept as a running maximum over
blocks of candidates, so a candidate set too large to hold is processed in
O(block) memory.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from scipy.special import logsumexp

from ..utils._rng import check_rng
from ..utils._validation import check_epsilon
from ._base import Mechanism
from ._validation import (
    check_log_base_measure,
    check_scores,
    check_sensitivity,
    check_size,
    iter_score_blocks,
)

__all__ = ["ExponentialMechanism", "exponential_mechanism"]

_LARGEST = float(np.finfo(np.float64).max)


def selection_coefficient(epsilon, sensitivity):
    """``epsilon / (2 sensitivity)``, finite (capped; see :func:`scaled_gaps`)."""
    return min(epsilon / sensitivity, _LARGEST) / 2.0


def scaled_gaps(coef, scores, ref):
    """``coef * (scores - ref)``: finite or -inf, never NaN.

    The exponent of every selection mechanism, relative to a reference score,
    with ``coef`` from :func:`selection_coefficient` (or ``1 / scale``). Two
    overflows broke the plain product (reviews, November 2026): ``epsilon /
    (2 sensitivity)`` is inf at ``(1e300, 1e-300)``, and ``scores - ref`` at
    finite scores 2e308 apart; ``inf * 0`` or ``0 * inf`` then made NaN, and
    argmax took the first NaN, a deterministic draw. Here the halves are
    subtracted (no overflow: both below the largest double) and ``2 coef`` is
    capped at the largest double: a smaller coefficient is the same mechanism
    at a smaller epsilon, so the guarantee holds. In the normal range it
    equals the plain product up to rounding.
    """
    with np.errstate(over="ignore"):  # -inf: a probability below any double
        return min(2.0 * coef, _LARGEST) * (
            np.divide(scores, 2.0) - np.divide(ref, 2.0)
        )


class ExponentialMechanism(Mechanism):
    """The exponential mechanism over a finite set of scored candidates.

    Outputs candidate ``i`` with probability proportional to
    ``base(i) · exp(epsilon · score_i / (2 · sensitivity))``.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0``.
    sensitivity : float, default=1.0
        Bound ``Δ`` on how much any single score can change between neighbouring
        datasets (in either direction, independently per candidate).

    Attributes
    ----------
    epsilon : float
        Validated ``epsilon``.
    sensitivity : float
        Validated ``sensitivity``.
    privacy_cost : PrivacyCost
        ``(epsilon, 0)``: pure ε-DP for whatever neighbour relation the scores
        have sensitivity ``Δ`` under.

    See Also
    --------
    exponential_mechanism : Functional form, one draw.
    PermuteAndFlip : Never worse in expected score, same privacy.

    Notes
    -----
    **Privacy.** If ``|s_i(D) - s_i(D')| <= Δ`` for every candidate ``i`` and all
    neighbours ``D, D'``, then ``P(i | D) <= exp(ε) P(i | D')`` (Dwork & Roth 2014,
    Thm 3.10). The base measure must not depend on the private data (e.g. a prior
    from public data); ``-inf`` log weights exclude candidates, so the support of
    the output is fixed by public information only. Scores themselves must be
    finite.

    **Numerics.** Sampling is exact up to floating point: the Gumbel-max trick on
    logits shifted by a reference score, so no ``exp`` overflows. Log-probabilities
    are computed with ``logsumexp``.

    References
    ----------
    .. [1] F. McSherry and K. Talwar, "Mechanism design via differential privacy",
       FOCS 2007.
    .. [2] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential
       Privacy", 2014, Section 3.4.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.mechanisms import ExponentialMechanism
    >>> mech = ExponentialMechanism(epsilon=2.0)
    >>> mech.privacy_cost
    PrivacyCost(epsilon=2.0, delta=0.0)
    >>> np.exp(mech.log_probabilities([0.0, 1.0, 2.0])).round(3).tolist()
    [0.09, 0.245, 0.665]
    >>> mech.sample([0.0, 1.0, 2.0], random_state=0)
    2
    """

    _param_names = ("epsilon", "sensitivity")

    def __init__(self, epsilon, sensitivity=1.0):
        self.epsilon = check_epsilon(epsilon)
        self.sensitivity = check_sensitivity(sensitivity)

    @property
    def _coef(self):
        # The factor 2 in the denominator pays for scores moving in opposite
        # directions (Dwork & Roth 2014, Thm 3.10).
        return selection_coefficient(self.epsilon, self.sensitivity)

    def _gaps(self, scores, ref):
        """``epsilon (scores - ref) / (2 sensitivity)`` (:func:`scaled_gaps`)."""
        return scaled_gaps(self._coef, scores, ref)

    def log_probabilities(self, scores, log_base_measure=None):
        """Exact log-probability of every candidate.

        Parameters
        ----------
        scores : array-like of shape (n_candidates,)
            Finite scores.
        log_base_measure : array-like of shape (n_candidates,), default=None
            Log weights of a data-independent base measure; ``-inf`` excludes a
            candidate. None is the uniform measure.

        Returns
        -------
        log_proba : ndarray of shape (n_candidates,)
            ``-inf`` exactly for the excluded candidates.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_semiprivate.mechanisms import ExponentialMechanism
        >>> mech = ExponentialMechanism(epsilon=2.0)
        >>> lp = mech.log_probabilities([1e12, 1e12, -1e12], [0.0, -np.inf, 0.0])
        >>> lp.tolist()
        [0.0, -inf, -2000000000000.0]
        """
        scores = check_scores(scores)
        if log_base_measure is None:
            logits = self._gaps(scores, scores.max())
        else:
            base = check_log_base_measure(log_base_measure, scores.shape[0])
            eligible = ~np.isneginf(base)
            if not eligible.any():
                raise ValueError(
                    "log_base_measure excludes every candidate (all -inf)."
                )
            # Reference among the candidates that can be output, so excluded
            # (possibly huge) scores cost no precision.
            with np.errstate(invalid="ignore"):  # excluded: set to -inf below
                logits = self._gaps(scores, scores[eligible].max()) + base
            # An excluded candidate stays excluded even where its scaled score
            # overflowed to +inf (inf - inf is NaN).
            logits[~eligible] = -np.inf
            logits = logits - logits[eligible].max()
        return logits - logsumexp(logits)

    def sample(self, scores, log_base_measure=None, *, size=None, random_state=None):
        """Draw candidate indices.

        Parameters
        ----------
        scores : array-like of shape (n_candidates,) or iterable of 1-D blocks
            Finite scores. An iterable (e.g. a generator) of 1-D blocks is read
            once, block by block, in O(block size) memory; the returned index is
            then the position in the concatenation of the blocks.
        log_base_measure : array-like or iterable of 1-D blocks, default=None
            Log weights of a data-independent base measure, matching ``scores``
            (block by block when ``scores`` is given in blocks); ``-inf``
            excludes a candidate.
        size : int or tuple of int, default=None
            Number of independent draws. Each draw is a separate release costing
            :attr:`privacy_cost` (they compose). None returns one int.
        random_state : None, int, numpy.random.Generator or RandomState, \
                default=None
            Source of randomness.

        Returns
        -------
        index : int or ndarray of int64 of shape ``size``

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import ExponentialMechanism
        >>> mech = ExponentialMechanism(epsilon=1.0)
        >>> blocks = (np.arange(k, k + 1000.0) for k in range(0, 10_000, 1000))
        >>> mech.sample(blocks, random_state=0)
        9999
        """
        rng = check_rng(random_state)
        size = check_size(size)
        n_draws = 1 if size is None else math.prod(size)
        # Running Gumbel-max: each draw keeps the winner found so far as
        # (reference score of its block, key relative to it, global index), so
        # keys are compared as gap(ref_a, ref_b) + (key_a - key_b) and never
        # as absolute logits, whose rounding would grow with |scores|.
        best_ref = np.zeros(n_draws)
        best_key = np.zeros(n_draws)
        best_idx = np.zeros(n_draws, dtype=np.int64)
        found = False
        offset = 0
        rows = np.arange(n_draws)
        for block, base in iter_score_blocks(scores, log_base_measure):
            n = block.shape[0]
            if n == 0:
                continue
            eligible = None if base is None else ~np.isneginf(base)
            if eligible is not None and not eligible.any():
                offset += n
                continue
            ref = block.max() if eligible is None else block[eligible].max()
            logits = self._gaps(block, ref)
            if base is not None:
                with np.errstate(invalid="ignore"):  # excluded: set to -inf below
                    logits = logits + base
            if eligible is not None:
                # Excluded even where the scaled score overflowed to +inf.
                logits[~eligible] = -np.inf
            keys = logits + rng.gumbel(size=(n_draws, n))
            winner = np.argmax(keys, axis=1)
            key = keys[rows, winner]
            if not found:
                best_ref[:] = ref
                best_key[:] = key
                best_idx[:] = offset + winner
                found = True
            else:
                replace = self._gaps(ref, best_ref) + (key - best_key) > 0
                best_ref[replace] = ref
                best_key[replace] = key[replace]
                best_idx[replace] = offset + winner[replace]
            offset += n
        if offset == 0:
            raise ValueError("scores must not be empty.")
        if not found:
            raise ValueError("log_base_measure excludes every candidate (all -inf).")
        if size is None:
            return int(best_idx[0])
        return best_idx.reshape(size)


def exponential_mechanism(
    scores, epsilon, *, sensitivity=1.0, log_base_measure=None, random_state=None
):
    """Select one candidate with the exponential mechanism.

    Returns ``i`` with probability proportional to
    ``base(i) · exp(epsilon · scores[i] / (2 · sensitivity))``; ε-DP when every
    score has sensitivity ``sensitivity``. See :class:`ExponentialMechanism`.

    Parameters
    ----------
    scores : array-like of shape (n_candidates,) or iterable of 1-D blocks
        Finite scores; an iterable (e.g. a generator) of blocks is processed in
        O(block) memory and the returned index is global.
    epsilon : float
        Privacy parameter, ``> 0``.
    sensitivity : float, default=1.0
        Per-score sensitivity ``Δ``.
    log_base_measure : array-like or iterable of 1-D blocks, default=None
        Data-independent log weights matching ``scores``; ``-inf`` excludes a
        candidate.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Source of randomness.

    Returns
    -------
    index : int
        Index of the selected candidate.

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import exponential_mechanism
    >>> exponential_mechanism([3.0, 40.0, 5.0], epsilon=1.0, random_state=0)
    1
    >>> exponential_mechanism(
    ...     [3.0, 40.0, 5.0], epsilon=1.0, log_base_measure=[0.0, -np.inf, 0.0],
    ...     random_state=0)
    2
    """
    return ExponentialMechanism(epsilon, sensitivity).sample(
        scores, log_base_measure, random_state=random_state
    )
