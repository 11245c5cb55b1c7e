"""Tracing (membership) attack on released answers to coordinate decision stumps.

The lower bound for releasing decision stumps of Bassily et al. (2020), Thm 13,
rests on a tracing attack (Thm 14, a special case of Dwork, Smith, Steinke,
Ullman & Vadhan 2015, Thm 17): rows are drawn from a product distribution on
``{±1}^p``, a query-release algorithm answers the ``p`` coordinate stumps
``h_j(x) = x_j`` (Definition 12) on ``s`` rows, and an attacker holding the
answers ``q ∈ [-1, 1]^p``, a candidate row ``y`` and some fresh rows of the same
distribution decides whether ``y`` was one of the ``s`` rows (IN) or not (OUT).

The test statistic is an inner product, centred at a reference estimate ``μ̂``
of the coordinate means (computed from the fresh rows)::

    T(q, y) = <y - μ̂, q - μ̂>.

If ``q`` is the exact average of ``s`` rows and ``y`` is one of them, ``q``
contains ``y / s`` and the statistic gains ``sum_j Var(x_j) / s`` in
expectation; a fresh ``y`` is independent of ``q`` and gains nothing. Its
spread is about ``sqrt(sum_j Var(x_j)^2 / s)``, so the members stand out once
``p`` is large compared with ``s``: this is why accurate answers to all ``p``
stumps need ``Ω(sqrt(p) / α)`` private rows (Thm 13). Against an (ε, δ)-DP
release every test satisfies ``TPR <= e^ε FPR + δ``, so the attack is near
chance.

The threshold is calibrated on reference rows that the release never saw:
conditional on the answers and on the rows that estimate ``μ̂``, the scores of
the calibration rows and of a fresh non-member are exchangeable, so taking an
order statistic of the calibration scores (split conformal) bounds the false
positive rate exactly, for every sample size.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from ..utils._validation import check_integer, check_probability, check_real_array

__all__ = [
    "MembershipRates",
    "TracingAttack",
    "membership_rates",
    "tracing_attack_scores",
]

_ANSWER_SCALES = ("signed", "fraction")


def _signed_answers(answers, answer_scale):
    """Answers of the coordinate stumps as averages of ``x_j`` in ``[-1, 1]``."""
    if answer_scale not in _ANSWER_SCALES:
        raise ValueError(
            f"answer_scale must be one of {_ANSWER_SCALES}, got {answer_scale!r}."
        )
    a = check_real_array(answers, "answers")
    # A fraction f of rows with x_j = +1 has average x_j equal to 2 f - 1. Values
    # outside the range (an unclipped noisy release) are kept as they are.
    return 2.0 * a - 1.0 if answer_scale == "fraction" else a


def _check_sign_rows(rows, name, n_features):
    arr = np.asarray(rows)
    if np.issubdtype(arr.dtype, np.integer):
        # Integer rows (e.g. int8) stay as they are: checking them needs no
        # float copy, and the scores are one matrix-vector product away.
        if arr.ndim != 2:
            raise ValueError(f"{name} must be 2-dimensional, got shape {arr.shape}.")
        if arr.size == 0:
            raise ValueError(f"{name} must not be empty.")
        is_sign = (arr == 1) | (arr == -1)
    else:
        arr = check_real_array(arr, name, ndim=2)
        is_sign = np.abs(arr) == 1.0
    if arr.shape[1] != n_features:
        raise ValueError(
            f"{name} has {arr.shape[1]} features but the answers cover "
            f"{n_features} coordinate stumps."
        )
    if not np.all(is_sign):
        raise ValueError(f"{name} must hold rows of {{-1, +1}}^p (entries -1 or +1).")
    return arr


def _scores(signed_answers, rows, reference_mean):
    # <y - μ̂, q - μ̂> = <y, v> - <μ̂, v> with v = q - μ̂: one matrix-vector
    # product, no (n_rows, p) temporary beyond the rows themselves.
    v = signed_answers - reference_mean
    return rows @ v - reference_mean @ v


def tracing_attack_scores(answers, candidates, reference, *, answer_scale="signed"):
    """Tracing statistic ``<y - μ̂, q - μ̂>`` of every candidate row.

    The test of Bassily et al. (2020), Thm 14 (Dwork et al. 2015): large
    values are evidence that the candidate was one of the rows the answers
    were computed on.

    Parameters
    ----------
    answers : array-like of shape (p,)
        Released answers ``q`` to the coordinate stumps ``h_j(x) = x_j``, as
        averages in ``[-1, 1]`` (``answer_scale="signed"``) or as fractions of
        rows with ``x_j = +1`` in ``[0, 1]`` (``answer_scale="fraction"``, what
        :class:`~sklearn_semiprivate.query_release.StumpQueries` at threshold 0
        returns); converted by ``q = 2 f - 1``.
    candidates : array-like of shape (n_candidates, p)
        Rows of ``{-1, +1}^p`` to score.
    reference : array-like of shape (n_reference, p)
        Rows of ``{-1, +1}^p`` from the same distribution that the release did
        not use; their mean is the centre ``μ̂``.
    answer_scale : {"signed", "fraction"}, default="signed"
        How ``answers`` are expressed.

    Returns
    -------
    scores : ndarray of shape (n_candidates,)

    See Also
    --------
    TracingAttack : the statistic with a threshold calibrated to a target
        false positive rate.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.audit import tracing_attack_scores
    >>> rng = np.random.default_rng(0)
    >>> p = 2000
    >>> bias = rng.uniform(-1, 1, size=p)
    >>> def rows(n):
    ...     return np.where(rng.random((n, p)) < (1 + bias) / 2, 1, -1)
    >>> members, outsiders, reference = rows(20), rows(20), rows(200)
    >>> answers = members.mean(axis=0)  # exact, non-private release
    >>> s_in = tracing_attack_scores(answers, members, reference)
    >>> s_out = tracing_attack_scores(answers, outsiders, reference)
    >>> bool(s_in.min() > s_out.max())
    True
    """
    q = _signed_answers(answers, answer_scale)
    p = q.shape[0]
    rows = _check_sign_rows(candidates, "candidates", p)
    ref = _check_sign_rows(reference, "reference", p)
    return _scores(q, rows, ref.mean(axis=0))


def _exact_rate(false_positive_rate):
    # The rate as the decimal the user typed (the shortest repr of the float):
    # 0.3 means 3/10, not the binary float just below it, so floor(α (k + 1))
    # is computed exactly and r / (k + 1) never exceeds α.
    return Fraction(repr(float(false_positive_rate)))


class TracingAttack:
    """Membership attack on coordinate-stump answers, calibrated to a target FPR.

    Decides IN when the tracing statistic ``<y - μ̂, q - μ̂>`` of
    :func:`tracing_attack_scores` exceeds a threshold; the attacker of
    Bassily et al. (2020), Thm 14 (Dwork et al. 2015, Thm 17).

    Parameters
    ----------
    false_positive_rate : float, default=0.05
        Target false positive rate ``α`` in ``(0, 1)``, used when ``threshold``
        is None.
    threshold : float or None, default=None
        Fixed decision threshold. If None, it is calibrated on held-out
        reference rows (split conformal): with ``k`` calibration rows the
        threshold is the ``(k + 1 - r)``-th smallest calibration score, where
        ``r = floor(α (k + 1))``.
    n_calibration : int or None, default=None
        Number of reference rows (the last ones) held out for calibration; the
        others estimate the centre ``μ̂``. None means half of them. Ignored
        when ``threshold`` is given (all rows then estimate ``μ̂``).
    answer_scale : {"signed", "fraction"}, default="signed"
        How the answers are expressed, see :func:`tracing_attack_scores`.

    Attributes
    ----------
    n_features_in_ : int
        Number of coordinate stumps ``p``.
    answers_ : ndarray of shape (p,)
        The answers as averages in ``[-1, 1]``.
    reference_mean_ : ndarray of shape (p,)
        The centre ``μ̂``.
    threshold_ : float
        Decision threshold: IN when the score is ``> threshold_``.
    calibration_scores_ : ndarray of shape (n_calibration,) or None
        Scores of the calibration rows (None with a fixed ``threshold``).
    false_positive_rate_bound_ : float or None
        ``r / (k + 1) <= false_positive_rate``: the exact bound on the false
        positive rate (None with a fixed ``threshold``).

    See Also
    --------
    tracing_attack_scores : the test statistic alone.
    membership_rates : true and false positive rates of the decisions.

    Notes
    -----
    **Guarantee on false positives.** Given the answers and the rows that
    estimate ``μ̂``, the scores of the ``k`` calibration rows and of a
    non-member candidate are exchangeable when all are independent draws from
    the same distribution and independent of the answers. The candidate then
    exceeds the ``(k + 1 - r)``-th smallest calibration score with probability
    at most ``r / (k + 1)`` (exactly, if scores have no ties), over the
    candidate and the calibration rows. So the reference rows must be fresh:
    not the private rows, and not public rows the release itself used.

    **Power.** Against the exact average of ``s`` rows, a member's score
    exceeds a non-member's by ``sum_j Var(x_j) / s`` in expectation, with
    spread about ``sqrt(sum_j Var(x_j)^2 (1/s + 1/m))`` for ``m`` mean rows, so
    members are found when ``p`` is large compared with ``s``. Against an
    (ε, δ)-DP release, ``TPR <= e^ε FPR + δ`` for this and every other test.

    References
    ----------
    .. [1] R. Bassily, A. Cheu, S. Moran, A. Nikolov, J. Ullman and Z. S. Wu,
       "Private query release assisted by public data", ICML 2020, Thm 13-14.
    .. [2] C. Dwork, A. Smith, T. Steinke, J. Ullman and S. Vadhan, "Robust
       traceability from trace amounts", FOCS 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.audit import TracingAttack, membership_rates
    >>> rng = np.random.default_rng(0)
    >>> p = 2000
    >>> bias = rng.uniform(-1, 1, size=p)
    >>> def rows(n):
    ...     return np.where(rng.random((n, p)) < (1 + bias) / 2, 1, -1)
    >>> members, outsiders, reference = rows(50), rows(50), rows(400)
    >>> attack = TracingAttack(false_positive_rate=0.05)
    >>> attack = attack.fit(members.mean(axis=0), reference)
    >>> attack.false_positive_rate_bound_
    0.04975124378109453
    >>> rates = membership_rates(attack.predict(members), attack.predict(outsiders))
    >>> bool(rates.true_positive_rate > 0.9), bool(rates.false_positive_rate < 0.2)
    (True, True)
    """

    def __init__(
        self,
        *,
        false_positive_rate=0.05,
        threshold=None,
        n_calibration=None,
        answer_scale="signed",
    ):
        self.false_positive_rate = false_positive_rate
        self.threshold = threshold
        self.n_calibration = n_calibration
        self.answer_scale = answer_scale

    def __repr__(self):
        return (
            f"TracingAttack(false_positive_rate={self.false_positive_rate!r}, "
            f"threshold={self.threshold!r}, n_calibration={self.n_calibration!r}, "
            f"answer_scale={self.answer_scale!r})"
        )

    def fit(self, answers, reference):
        """Centre the statistic and calibrate the threshold.

        Parameters
        ----------
        answers : array-like of shape (p,)
            Released answers to the ``p`` coordinate stumps.
        reference : array-like of shape (n_reference, p)
            Fresh rows of ``{-1, +1}^p`` from the data distribution, used by
            neither the release nor as candidates; assumed i.i.d. (shuffle them
            if their order carries information).

        Returns
        -------
        self : TracingAttack

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_semiprivate.audit import TracingAttack
        >>> reference = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]])
        >>> attack = TracingAttack(threshold=0.0).fit([0.5, 0.5], reference)
        >>> attack.reference_mean_.tolist(), attack.threshold_
        ([0.0, 0.0], 0.0)
        """
        q = _signed_answers(answers, self.answer_scale)
        p = q.shape[0]
        ref = _check_sign_rows(reference, "reference", p)
        m = ref.shape[0]
        self.answers_ = q
        self.n_features_in_ = p
        if self.threshold is not None:
            threshold = float(check_real_array([self.threshold], "threshold")[0])
            self.reference_mean_ = ref.mean(axis=0)
            self.threshold_ = threshold
            self.calibration_scores_ = None
            self.false_positive_rate_bound_ = None
            return self

        alpha = check_probability(
            self.false_positive_rate, "false_positive_rate", allow_zero=False
        )
        if self.n_calibration is None:
            k = m // 2
        else:
            k = check_integer(self.n_calibration, "n_calibration", 1)
        if not 1 <= k <= m - 1:
            raise ValueError(
                f"Need at least one reference row for the mean and one for "
                f"calibration: n_calibration={k} with {m} reference rows."
            )
        rate = _exact_rate(alpha)
        r = math.floor(rate * (k + 1))
        if r == 0:
            need = math.ceil(1 / rate) - 1
            raise ValueError(
                f"{k} calibration rows cannot certify a false positive rate of "
                f"{alpha!r}: at least {need} are needed, since the rate is "
                "bounded by floor(alpha (k + 1)) / (k + 1)."
            )
        mean = ref[: m - k].mean(axis=0)
        calibration = _scores(q, ref[m - k :], mean)
        self.reference_mean_ = mean
        # The (k + 1 - r)-th smallest score (1-based): a fresh non-member lands
        # strictly above it with probability <= r / (k + 1).
        self.threshold_ = float(np.partition(calibration, k - r)[k - r])
        self.calibration_scores_ = calibration
        self.false_positive_rate_bound_ = r / (k + 1)
        return self

    def _check_fitted(self):
        if not hasattr(self, "threshold_"):
            raise AttributeError(
                "This TracingAttack is not fitted yet; call fit(answers, reference)."
            )

    def decision_function(self, candidates):
        """Tracing statistic of every candidate row.

        Parameters
        ----------
        candidates : array-like of shape (n_candidates, p)
            Rows of ``{-1, +1}^p``.

        Returns
        -------
        scores : ndarray of shape (n_candidates,)

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_semiprivate.audit import TracingAttack
        >>> reference = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]])
        >>> attack = TracingAttack(threshold=0.0).fit([0.5, 0.5], reference)
        >>> attack.decision_function([[1, 1], [-1, 1]]).tolist()
        [1.0, 0.0]
        """
        self._check_fitted()
        rows = _check_sign_rows(candidates, "candidates", self.n_features_in_)
        return _scores(self.answers_, rows, self.reference_mean_)

    def predict(self, candidates):
        """IN (True) or OUT (False) for every candidate row.

        Parameters
        ----------
        candidates : array-like of shape (n_candidates, p)
            Rows of ``{-1, +1}^p``.

        Returns
        -------
        is_member : ndarray of bool of shape (n_candidates,)
            True where the score is ``> threshold_``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_semiprivate.audit import TracingAttack
        >>> reference = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]])
        >>> attack = TracingAttack(threshold=0.0).fit([0.5, 0.5], reference)
        >>> attack.predict([[1, 1], [-1, 1], [-1, -1]]).tolist()
        [True, False, False]
        """
        return self.decision_function(candidates) > self.threshold_


class MembershipRates(NamedTuple):
    """True and false positive rates of a membership attack.

    Attributes
    ----------
    true_positive_rate : float
        Fraction of members declared IN.
    false_positive_rate : float
        Fraction of non-members declared IN.

    Examples
    --------
    >>> from sklearn_semiprivate.audit import MembershipRates
    >>> tpr, fpr = MembershipRates(0.9, 0.05)
    >>> tpr - fpr
    0.85
    """

    true_positive_rate: float
    false_positive_rate: float


def _check_decisions(decisions, name):
    arr = np.asarray(decisions)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got {arr.shape}.")
    if arr.dtype != bool:
        if not np.issubdtype(arr.dtype, np.integer) or not np.all(
            (arr == 0) | (arr == 1)
        ):
            raise ValueError(f"{name} must hold booleans (or 0/1), got {arr.dtype}.")
        arr = arr.astype(bool)
    return arr


def membership_rates(decisions_members, decisions_non_members):
    """True and false positive rates of IN/OUT decisions.

    Parameters
    ----------
    decisions_members : array-like of bool of shape (n_members,)
        Decisions (True = IN) on rows that were in the released dataset.
    decisions_non_members : array-like of bool of shape (n_non_members,)
        Decisions on rows that were not.

    Returns
    -------
    rates : MembershipRates
        ``(true_positive_rate, false_positive_rate)``.

    Examples
    --------
    >>> from sklearn_semiprivate.audit import membership_rates
    >>> membership_rates([True, True, False, True], [False, True, False, False])
    MembershipRates(true_positive_rate=0.75, false_positive_rate=0.25)
    """
    members = _check_decisions(decisions_members, "decisions_members")
    others = _check_decisions(decisions_non_members, "decisions_non_members")
    return MembershipRates(float(members.mean()), float(others.mean()))
