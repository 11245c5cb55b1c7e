"""An opt-in, noisy check for private rows passed as public data.

Passing the private rows themselves (or some of them) as ``X_public`` goes
unnoticed: public data is not protected, so an estimator may use and reveal those
rows freely. A check that compares the public rows with the private ones reads
private rows, so it is itself a release: an exact answer (an error, a warning, a
count) would tell whoever sees it whether, and with repeated public sets which,
public rows are private rows. This module offers the check only as an explicit,
charged, differentially private release: a Laplace-noised count of the private
rows whose exact feature vector occurs among the public rows.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
import numbers
from typing import NamedTuple

import numpy as np
from scipy import sparse

from .._public import PublicData
from ..accounting import PrivacyCost
from ..accounting._reservation import reserve_budget
from ..mechanisms import LaplaceMechanism
from ..utils._rng import noise_rng
from ..utils._validation import check_epsilon, check_probability

__all__ = ["NoisyOverlap", "noisy_public_overlap", "overlap_privacy_cost"]

# What the ledger's history records as the spender.
_SOURCE = "noisy_public_overlap"


class NoisyOverlap(NamedTuple):
    """The released result of :func:`noisy_public_overlap`.

    Attributes
    ----------
    noisy_count : float
        Number of private rows whose exact feature vector occurs among the
        public rows, plus Laplace noise of scale ``1 / epsilon``. Unbiased, not
        clipped: it may be negative or exceed ``n_private``.
    noisy_fraction : float
        ``noisy_count / n_private``. Uses the exact number of private rows,
        which is treated as public (see Notes of :func:`noisy_public_overlap`).
    n_private : int
        Number of private rows (exact; public under replace-one neighbours).
    threshold : float
        ``log(1 / (2 * alpha)) / epsilon``: a function of public parameters only.
    likely_overlap : bool
        ``noisy_count > threshold``.
    false_alarm_probability : float
        ``alpha``: the probability that ``likely_overlap`` is True when no
        private row occurs among the public rows.
    privacy_spent : PrivacyCost
        ``(epsilon, 0)``, charged to the accountant, if one was given.

    Examples
    --------
    >>> from sklearn_semiprivate.audit import NoisyOverlap
    >>> from sklearn_semiprivate.accounting import PrivacyCost
    >>> res = NoisyOverlap(7.2, 0.072, 100, 2.3, True, 0.05, PrivacyCost(1.0, 0.0))
    >>> res.likely_overlap, res.privacy_spent.epsilon
    (True, 1.0)
    """

    noisy_count: float
    noisy_fraction: float
    n_private: int
    threshold: float
    likely_overlap: bool
    false_alarm_probability: float
    privacy_spent: PrivacyCost


def overlap_privacy_cost(epsilon):
    """Privacy cost of one :func:`noisy_public_overlap` call: ``(epsilon, 0)``.

    A function of the public parameter ``epsilon`` only, so the cost is known
    (and reserved) before any private row is read.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of the check, ``> 0``.

    Returns
    -------
    cost : PrivacyCost

    Examples
    --------
    >>> from sklearn_semiprivate.audit import overlap_privacy_cost
    >>> overlap_privacy_cost(0.5)
    PrivacyCost(epsilon=0.5, delta=0.0)
    """
    return PrivacyCost(check_epsilon(epsilon), 0.0)


def _overlap_threshold(epsilon, alpha):
    # P[Lap(b) > t] = exp(-t / b) / 2 for t >= 0, with b = 1 / epsilon: the
    # threshold whose false-alarm probability at a true count of 0 is alpha.
    return math.log(1.0 / (2.0 * alpha)) / epsilon


def _check_rows(X, name):
    """Finite, C-contiguous float64 rows; no message quotes a value or a count.

    ``-0.0`` is turned into ``0.0`` (``-0.0 + 0.0 == +0.0``), so that equal
    feature vectors have equal bytes; NaN is refused, so the converse holds too.
    """
    if isinstance(X, PublicData):
        raise TypeError(
            f"{name} must be an array-like of rows; PublicData is accepted only "
            "as X_public."
        )
    if sparse.issparse(X):
        raise TypeError(f"{name} must be dense; sparse input is not supported.")
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError):
        # The original message may quote an element: it is not chained.
        raise ValueError(
            f"{name} could not be read as a 2-D array of numbers (rows of "
            "different lengths?)."
        ) from None
    if arr.dtype != bool and not (
        np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)
    ):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}.")
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-dimensional (n_samples, n_features), got "
            f"{arr.ndim} dimension(s)."
        )
    if arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one feature.")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must have at least one row.")
    arr = np.array(arr, dtype=np.float64, order="C", copy=True)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite: it contains NaN or infinity.")
    arr += 0.0
    return arr


def _check_feature_names(X, X_public):
    names = getattr(X, "columns", None)
    public_names = getattr(X_public, "columns", None)
    if names is None or public_names is None:
        return
    names = [str(c) for c in names]
    public_names = [str(c) for c in public_names]
    if names != public_names:
        # Column names and order are part of the (public) input format.
        raise ValueError(
            "X_public's feature names differ from X's (rows are compared column "
            f"by column): {public_names} vs {names}."
        )


def _check_noise_seed(random_state):
    if random_state is None or isinstance(
        random_state, (np.random.RandomState, np.random.Generator)
    ):
        return
    if isinstance(random_state, numbers.Integral) and not isinstance(
        random_state, (bool, np.bool_)
    ):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}.")
        return
    raise TypeError(
        "random_state must be None, an int, a numpy Generator or RandomState, got "
        f"{type(random_state).__name__}."
    )


def _row_view(X):
    # One opaque item per row: equal items <=> equal rows (bytes of C-contiguous,
    # finite, -0.0-normalised float64 rows).
    return X.view(np.dtype((np.void, X.dtype.itemsize * X.shape[1]))).ravel()


def _count_public_overlap(X, X_public):
    """Exact number of rows of ``X`` that occur among the rows of ``X_public``.

    Noise-free: the private statistic that :func:`noisy_public_overlap`
    releases with Laplace noise. Each row of ``X`` adds 0 or 1 (whether its
    feature vector is in the *set* of public rows), so duplicated public rows
    do not change it, and duplicated private rows count once each. Sorting the
    distinct public rows and a binary search for each private row: time
    ``O((n + m) log m)``, memory linear in the inputs.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Private rows, as returned by ``_check_rows`` (C-contiguous float64, finite,
        no ``-0.0``). May have zero rows.
    X_public : ndarray of shape (n_public, n_features)
        Public rows, in the same form, with at least one row.

    Returns
    -------
    count : int
    """
    if X.shape[0] == 0:
        return 0
    private = _row_view(X)
    public = np.unique(_row_view(X_public))
    pos = np.minimum(np.searchsorted(public, private), public.shape[0] - 1)
    return int(np.count_nonzero(public[pos] == private))


def noisy_public_overlap(
    X, X_public, *, epsilon, alpha=0.05, accountant=None, random_state=None
):
    """Noisy count of private rows passed as public: an opt-in, charged release.

    Counts the private rows of ``X`` whose exact feature vector occurs among the
    public rows, and releases the count with Laplace noise of scale
    ``1 / epsilon``. There is no free version of this check: it reads the
    private rows, so even a plain error ("some public rows are private") would
    be an exact release about them. Its cost ``(epsilon, 0)`` is charged to
    ``accountant`` (the same budget as the fits) before any private row is read.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The private rows (protected). Compared as float64, as the estimators
        see them.
    X_public : PublicData or array-like of shape (n_public, n_features)
        The public rows (unprotected); duplicates are allowed. Public labels in a
        :class:`~sklearn_semiprivate.PublicData` are ignored.
    epsilon : float
        Privacy parameter of this release, ``> 0``.
    alpha : float, default=0.05
        False-alarm probability of ``likely_overlap``, in ``(0, 0.5]``: the
        probability that it is True when no private row is public.
    accountant : PrivacyAccountant, default=None
        Ledger charged ``(epsilon, 0)`` before the first private read (recorded
        with source ``"noisy_public_overlap"``). A refused charge raises
        :class:`~sklearn_semiprivate.PrivacyBudgetError` and reads nothing.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Ignored: the noise is fresh operating-system entropy on every call,
        except inside :func:`~sklearn_semiprivate.reproducible_noise`, where it
        is derived from an int ``random_state`` (and the output is not private).

    Returns
    -------
    result : NoisyOverlap
        ``noisy_count``, ``noisy_fraction``, ``n_private``, ``threshold``,
        ``likely_overlap``, ``false_alarm_probability`` and ``privacy_spent``.

    Raises
    ------
    TypeError
        On non-numeric or sparse input, ``PublicData`` as ``X``, or a bad
        ``epsilon``, ``alpha`` or ``random_state`` type.
    ValueError
        On ``epsilon <= 0``, ``alpha`` outside ``(0, 0.5]``, arrays that are
        not 2-D, empty or with NaN or infinity, or a feature-count or
        feature-name mismatch; all before the ledger is charged. Messages name
        the argument, never a value, a row or a count of rows.
    PrivacyBudgetError
        When ``accountant`` refuses the charge; nothing private was read.

    See Also
    --------
    overlap_privacy_cost : the cost of one call.
    sklearn_semiprivate.mechanisms.LaplaceMechanism : the mechanism used.

    Warnings
    --------
    The check is itself a release about the private rows and spends ``epsilon``
    from the same budget as the fits. A positive answer tells whoever sees it
    that some public rows are private rows, never which ones; ``X_public`` is
    a parameter of the query, so a public set made of one chosen record asks
    (with ε-DP noise, which is what the charge pays for) whether that record
    is private. Only **exact** duplicates are detected: not near-duplicates,
    rounded, scaled or transformed copies, nor rows that agree on a subset of
    the columns.

    Notes
    -----
    **Privacy.** The statistic is ``sum_i [x_i in set(X_public)]`` over the
    private rows ``x_i``: each row adds 0 or 1 and only its own term depends on
    it, so its sensitivity is 1 for add/remove and for replace-one neighbours,
    whatever duplicates ``X_public`` holds. ``noisy_count`` and
    ``likely_overlap`` are ε-DP for both relations (between datasets of at
    least one row: ``X`` with no rows is refused, see the limitations page).
    ``noisy_fraction`` divides by ``n_private``, the exact number of private
    rows, which this function treats as public, as the package's replace-one
    guarantees do: the whole result is ε-DP for replace-one neighbours. Under
    add/remove, publish ``noisy_count`` and ``likely_overlap`` only. Public:
    ``X_public``, ``epsilon``, ``alpha`` and the input format (number of
    features, feature names). Format errors (NaN, wrong shape) are raised
    before the charge and are exact, like the estimators' (see the limitations
    page). The noisy value is released in floating point (see "Floating-point
    attack on released noisy values" in the limitations page).

    **Detection.** With ``b = 1 / epsilon`` and ``t = b log(1 / (2 alpha))``,
    ``likely_overlap`` is True with probability exactly ``alpha`` when the true
    count is 0, and at least ``1 - alpha`` when the true count is ``>= 2 t``
    (e.g. ``epsilon = 1``, ``alpha = 0.05``: ``t = 2.30``, detection of 5 or
    more rows with probability ``>= 0.95``). A single leaked row is not
    reliably detected at small ``epsilon``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PrivacyAccountant, PublicData
    >>> from sklearn_semiprivate import reproducible_noise
    >>> from sklearn_semiprivate.audit import noisy_public_overlap
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(1000, size=(500, 3)).astype(float)  # private rows
    >>> X_pub = np.vstack([rng.integers(1000, size=(90, 3)), X[:10]])  # 10 leaked
    >>> ledger = PrivacyAccountant(epsilon=1.0)
    >>> with reproducible_noise():  # reproducible doctest only: NOT private
    ...     res = noisy_public_overlap(X, PublicData(X_pub), epsilon=0.5,
    ...                                accountant=ledger, random_state=0)
    >>> round(res.noisy_count, 2), round(res.threshold, 2), res.likely_overlap
    (8.26, 4.61, True)
    >>> res.privacy_spent, ledger.remaining()
    (PrivacyCost(epsilon=0.5, delta=0.0), PrivacyCost(epsilon=0.5, delta=1e-05))
    """
    cost = overlap_privacy_cost(epsilon)
    epsilon = cost.epsilon
    alpha = check_probability(alpha, "alpha", allow_zero=False)
    if alpha > 0.5:
        raise ValueError(f"alpha must be in (0, 0.5], got {alpha!r}.")
    _check_noise_seed(random_state)
    raw_public = X_public.X if isinstance(X_public, PublicData) else X_public
    if raw_public is None:
        raise ValueError("X_public is None: there are no public rows to check.")
    Xp = _check_rows(raw_public, "X_public")
    # Format checks of the private rows (shape, dtype, finite values) come
    # before the charge, as in the estimators' fit: a malformed input costs
    # nothing. The overlap itself is read only after it.
    X_checked = _check_rows(X, "X")
    if X_checked.shape[1] != Xp.shape[1]:
        raise ValueError(
            f"X_public has {Xp.shape[1]} features, but X has {X_checked.shape[1]}; "
            "rows can only be compared in the same feature space."
        )
    _check_feature_names(X, raw_public)
    threshold = _overlap_threshold(epsilon, alpha)

    # Reserved atomically before the first private read; a refusal reads
    # nothing, a failure after this point stays charged.
    reserve_budget(accountant, cost, _SOURCE)
    count = _count_public_overlap(X_checked, Xp)
    n_private = X_checked.shape[0]
    # Sensitivity 1 under add/remove and replace-one: each private row adds
    # [row in set(public rows)] in {0, 1}, a term no other row affects;
    # duplicated public rows are counted once (a set), so they cannot raise it.
    mechanism = LaplaceMechanism(epsilon, sensitivity=1.0)
    noisy = float(mechanism.sample(float(count), random_state=noise_rng(random_state)))
    return NoisyOverlap(
        noisy_count=noisy,
        noisy_fraction=noisy / n_private,
        n_private=int(n_private),
        threshold=threshold,
        likely_overlap=bool(noisy > threshold),
        false_alarm_probability=alpha,
        privacy_spent=cost,
    )
