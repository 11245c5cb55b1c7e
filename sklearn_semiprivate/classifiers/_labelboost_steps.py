"""LabelBoost's steps: the privacy constants, the schedule, the cost, Alg. 2.

Beimel, Nissim & Stemmer, Section 4. Everything here is either arithmetic on
public counts and parameters (the schedule of Alg. 3, the guarantee of Lemma
4.6 and Theorems 4.13-4.14) or one call of LabelBoostProcedure (Alg. 2).
:class:`~sklearn_semiprivate.LabelBoostClassifier` reads the constants from this
module at call time, so the tests' mutants patch them here.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
from typing import NamedTuple

import numpy as np

from ..accounting import PrivacyCost
from ..hypotheses import Intervals, Thresholds
from ..mechanisms import ExponentialMechanism
from ..utils._nested_fit import dropped_warnings

__all__ = [
    "LabelBoostSchedule",
    "labelboost_privacy_cost",
    "labelboost_schedule",
]

# --- the privacy steps: fixed by the proof, never parameters -----------------
# Alg. 2 step 4: the exponential mechanism's epsilon. Lemma 4.1 (privacy of
# LabelBoostProcedure followed by an (eps, delta)-DP algorithm) is proved for it.
_STEP4_EPSILON = 1.0
# Alg. 3 step 2c keeps 1/100 of T and of S. Lemma 4.6's induction: one round
# followed by the (1, 41 delta)-DP rest is (4, 446 delta)-DP (Lemma 4.1), and
# Claim 4.3 with eps* = 4 turns it back into (1, 41 delta) for a keep rate of at
# most 1 / (3 + e^4) = 1 / 57.6. Keeping floor(|S| / 100) rows keeps the rate
# at most 1/100.
_ROUND_KEEP = 100
# Alg. 3 step 3 keeps 1/300 of S; steps 4-5 are (ln 244, 2467 delta)-DP
# (Claim 4.5), and Claim 4.3 with eps* = ln 244 needs a rate of at most
# 1 / (3 + 244) = 1 / 247. The loop stops at |S| >= 300 n so that A gets n rows.
_FINAL_KEEP = 300
# Lemma 4.6: with a (1, delta)-DP base learner, LabelBoost is (1, 41 delta)-DP.
_LEMMA_46_DELTA_FACTOR = 41
# Theorem 4.14 applies Claim 4.3 to that (1, 41 delta) learner: eps* = 1.
_LABELBOOST_EPSILON = 1.0

_BUILTIN_CLASSES = {"thresholds": Thresholds, "intervals": Intervals}
# VC dimensions of the built-in classes (both orientations, binary labels):
# two-sided thresholds shatter 2 points, intervals and their complements 3.
_BUILTIN_VC = {"thresholds": 2, "intervals": 3}


def _subsample_rate(epsilon):
    """Claim 4.3's rate ``eps / (3 + e^{eps*})`` for the (1, 41 delta) learner.

    1 at the target ``epsilon == 1`` (Theorem 4.13 needs no extra sub-sampling).
    """
    if epsilon >= _LABELBOOST_EPSILON:
        return 1.0
    return epsilon / (3.0 + math.exp(_LABELBOOST_EPSILON))


def labelboost_privacy_cost(base_cost, epsilon=1.0):
    """The guarantee of LabelBoost around a ``(eps*, delta)``-DP base learner.

    Lemma 4.6 / Theorem 4.13: a ``(1, delta)``-DP base learner gives a
    ``(1, 41 delta)``-DP LabelBoost. Theorem 4.14: running it on a uniformly
    random ``epsilon / (3 + e)`` fraction of the rows (Claim 4.3 with
    ``eps* = 1``) gives ``(epsilon, 4 epsilon / (3 + e) * 41 delta)``.
    Replace-one neighbours with public numbers of labeled and unlabeled rows.

    Parameters
    ----------
    base_cost : PrivacyCost or (epsilon, delta)
        The base learner's cost; its epsilon must be at most 1 (a learner that
        is ``(eps*, delta)``-DP with ``eps* <= 1`` is ``(1, delta)``-DP).
    epsilon : float, default=1.0
        Target epsilon in ``(0, 1]``.

    Returns
    -------
    cost : PrivacyCost

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._labelboost_steps import (
    ...     labelboost_privacy_cost)
    >>> labelboost_privacy_cost((1.0, 1e-8))
    PrivacyCost(epsilon=1.0, delta=4.1e-07)
    >>> labelboost_privacy_cost((0.5, 0.0), epsilon=0.1)
    PrivacyCost(epsilon=0.1, delta=0.0)
    """
    eps_base, delta_base = (float(v) for v in base_cost)
    if eps_base > _LABELBOOST_EPSILON:
        raise ValueError(
            "LabelBoost's privacy proof (Lemma 4.6, Claim 4.5) needs a (1, delta)-"
            "DP base learner for replace-one neighbours; the estimator's "
            f"replace-one cost is epsilon={eps_base:g}. Lower its epsilon until "
            "that is at most 1: to 1 for a learner private for replace-one "
            "neighbours, to 0.5 for one private for add/remove neighbours only "
            "(SemiPrivateTreeClassifier, SemiPrivateLogisticRegression, "
            "PrivateSGDClassifier), whose cost group privacy doubles. The target "
            "epsilon is LabelBoost's own."
        )
    if not 0 < epsilon <= _LABELBOOST_EPSILON:
        raise ValueError(f"epsilon must be in (0, 1], got {epsilon!r}.")
    delta = _LEMMA_46_DELTA_FACTOR * delta_base  # Lemma 4.6
    if epsilon < _LABELBOOST_EPSILON:
        # Claim 4.3 with eps* = 1: (eps, 4 eps / (3 + e^{eps*}) * delta).
        delta = 4.0 * epsilon / (3.0 + math.exp(_LABELBOOST_EPSILON)) * delta
        return PrivacyCost(float(epsilon), min(1.0, delta))
    return PrivacyCost(_LABELBOOST_EPSILON, min(1.0, delta))


class LabelBoostSchedule(NamedTuple):
    """Sizes of every step of a LabelBoost fit: a function of public counts only.

    Attributes
    ----------
    n_labeled, n_unlabeled : int
        Labeled and unlabeled rows entering Alg. 3 (after Claim 4.3's
        sub-sampling for a target epsilon below 1).
    labeled_sizes : tuple of int
        ``|S|`` at the start of each round (step 2a).
    batch_sizes : tuple of int
        ``v = |T|`` of each round (step 2b).
    final_size : int
        ``|S|`` when the loop stops (at least ``300 n``).
    base_rows : int
        ``|S|`` after step 3 (``final_size // 300``), and the number of i.i.d.
        draws the base learner gets (step 4).
    """

    n_labeled: int
    n_unlabeled: int
    labeled_sizes: tuple
    batch_sizes: tuple
    final_size: int
    base_rows: int


class _ScheduleError(ValueError):
    """The schedule cannot run: no growth in some round, or not enough rows."""


def labelboost_schedule(
    n_labeled,
    n_unlabeled,
    *,
    n_base,
    vc_dim,
    alpha,
    beta,
    growth_denominator=200.0,
    batch_factor=30000.0,
):
    """Alg. 3's round sizes, from the counts of rows and the parameters alone.

    Round ``i`` (step 2): ``alpha_i = alpha / (10 2^i)``, ``beta_i = beta /
    (4 2^i)``, ``v = min(batch_factor n, beta_i VC e^{alpha_i |S| /
    (growth_denominator VC)} - |S|)``; 99/100 of ``S`` and of ``T`` are deleted
    and the rest is the next ``S``. The loop stops at ``|S| >= 300 n``.

    Raises ``ValueError`` when a round would not grow ``S`` (the paper assumes
    ``|S|`` large enough, Claim 4.9) or would need more unlabeled rows than
    there are (Alg. 3 step 2b fails).

    Parameters
    ----------
    n_labeled, n_unlabeled : int
        Row counts (public).
    n_base : int
        The base learner's sample complexity ``n``.
    vc_dim : int
        VC dimension of the relabeling class.
    alpha, beta : float
        Utility parameters.
    growth_denominator, batch_factor : float
        The paper's 200 and 30000.

    Returns
    -------
    schedule : LabelBoostSchedule

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._labelboost_steps import (
    ...     labelboost_schedule)
    >>> s = labelboost_schedule(3000, 10**7, n_base=100, vc_dim=2, alpha=0.1,
    ...                         beta=0.1, growth_denominator=0.05)
    >>> s.labeled_sizes, s.batch_sizes, s.base_rows
    ((3000,), (3000000,), 100)
    """
    S, D = int(n_labeled), int(n_unlabeled)
    cap = math.floor(batch_factor * n_base)
    sizes, batches = [], []
    i = 1
    while S < _FINAL_KEEP * n_base:
        alpha_i, beta_i = alpha / (10 * 2**i), beta / (4 * 2**i)
        log_total = (
            math.log(beta_i)
            + math.log(vc_dim)
            + alpha_i * S / (growth_denominator * vc_dim)
        )
        if log_total >= math.log(cap + S + 1):
            v = cap
        else:
            v = min(cap, math.floor(math.exp(log_total)) - S)
        grown = S // _ROUND_KEEP + max(v, 0) // _ROUND_KEEP
        if S // _ROUND_KEEP < 1 or grown <= S:
            raise _ScheduleError(
                f"round {i}: |S| = {S} labeled rows, step 2b's v = {v}; step 2c "
                f"keeps {grown} rows, so S does not grow"
            )
        if v > D:
            raise _ScheduleError(
                f"round {i}: step 2b needs v = {v} unlabeled rows, {D} are left"
            )
        sizes.append(S)
        batches.append(v)
        D -= v
        S = grown
        i += 1
    return LabelBoostSchedule(
        int(n_labeled),
        int(n_unlabeled),
        tuple(sizes),
        tuple(batches),
        S,
        S // _FINAL_KEEP,
    )


def _minimum_labeled(n_base, **params):
    """Fewest labeled rows (and the unlabeled rows they then need) that run.

    ``300 n`` labeled rows always run (no round). Below, the smallest count
    whose rounds grow ``S``, with an unlimited pool, by bisection (the result is
    verified, so a non-monotone corner can only make it larger).
    """
    hi = _FINAL_KEEP * n_base
    lo = 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            labelboost_schedule(mid, 10**30, n_base=n_base, **params)
        except _ScheduleError:
            lo = mid
        else:
            hi = mid
    schedule = labelboost_schedule(hi, 10**30, n_base=n_base, **params)
    return hi, sum(schedule.batch_sizes)


def _step4_log_probabilities(cover, X_S, y_S):
    """Exact distribution of Alg. 2 step 4 over the members (for audits).

    The same mechanism :func:`_relabel` samples: ``exp(eps q(S, h) / 2)`` with
    ``eps = _STEP4_EPSILON`` and ``q`` the number of rows of ``S`` that ``h``
    labels correctly (Appendix A.1; sensitivity 1).
    """
    return ExponentialMechanism(_STEP4_EPSILON).log_probabilities(
        cover.scores(X_S, y_S)
    )


def _relabel(hypothesis_class, classes, X_S, y_S, X_T, rng):
    """LabelBoostProcedure (Alg. 2) on the kept rows: the relabeled ``S ∘ T``.

    Steps 1-3: ``H`` holds one hypothesis per dichotomy of the distinct points
    of ``S ∘ T`` (the class's cover of those points; it depends on private
    points, so it never leaves this function). Step 4: the exponential
    mechanism with epsilon 1 (``_STEP4_EPSILON``), scored on ``S`` only. Step 5:
    every row of ``S ∘ T`` relabeled by the winner.

    The class's own code runs on private points here, after the charge, so
    its warnings are dropped and an error it raises is replaced by one that
    shows neither its text nor its type (a review: a private point near the
    float32 range made a tree partition raise "Input X contains infinity",
    and k-means warned with a count of distinct clusters).
    """
    X_ST = np.vstack([X_S, X_T])
    try:
        with dropped_warnings(), np.errstate(all="ignore"):
            cover = hypothesis_class.cover(X_ST, classes=classes)
            member = cover.sample_exponential(
                X_S, y_S, _STEP4_EPSILON, random_state=rng
            )
            return X_ST, cover.predict(member, X_ST)
    except Exception:
        pass
    raise RuntimeError(
        "The relabeling class (hypothesis_class) failed on the private points "
        "after LabelBoost's budget was charged. Its error is not shown: it "
        "depends on the private rows. Check that its cover() takes any finite "
        "point, e.g. by building a cover of your public points."
    )
