"""Multiplicative weights and the κ-dense projection.

Both are post-processing steps (they read no private data themselves): the
multiplicative-weights update is driven by losses that the caller has already
privatized or that are public, as in Private Multiplicative Weights (Hardt &
Rothblum 2010; Bassily et al. 2020, Lemma 7) and Subsample-Test-Reweigh
(Kohen & Sheffet 2022, Alg. 2, ``w_i ← w_i · exp(-α/8 · [1 - L(h_t(x_i), ℓ(x_i))])``).

The κ-dense projection (Bun, Kamath, Steinke & Wu 2020; Kohen & Sheffet 2022,
Def. 4.1 and eq. (2)) caps the weights so that no point carries more than
``1/(κn)`` of the mass, which is what makes sampling from the weights private
(Kohen & Sheffet 2022, Claim 4.1).
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from scipy.special import logsumexp

from ..utils._validation import check_positive_real, check_probability, check_real_array

__all__ = ["multiplicative_weights_update", "project_kappa_dense"]

# With normalize=True, steps eta * losses up to this size are applied as they
# are (rounding the log weights by at most 2^20 2^-53 = 2^-33); larger ones are
# first shifted by the smallest loss, which the normalisation cancels. Likewise,
# log weights up to this size are normalised by logsumexp directly; larger ones
# are first shifted by their maximum.
_LARGEST_UNSHIFTED_STEP = 2.0**20


def _check_weights(weights, log_weights, name, *, allow_zero=False):
    arr = np.asarray(weights)
    if log_weights:
        is_float = np.issubdtype(arr.dtype, np.floating)
        zero = np.isneginf(arr) if is_float else np.zeros(arr.shape, dtype=bool)
        if not zero.any():
            return check_real_array(arr, name)
        if not allow_zero:
            raise ValueError(f"{name} must be finite log weights (no -inf).")
        if zero.all():
            raise ValueError(f"{name} must have a finite entry (a positive weight).")
        # A log weight of -inf is a weight of 0: check the others.
        arr = check_real_array(np.where(zero, 0.0, arr), name)
        arr[zero] = -np.inf
        return arr
    arr = check_real_array(arr, name)
    if allow_zero:
        if np.any(arr < 0) or not np.any(arr > 0):
            raise ValueError(f"{name} must be >= 0, with a positive entry.")
    elif np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0.")
    return arr


def multiplicative_weights_update(
    weights_or_log_weights, losses, eta, *, log_weights=False, normalize=False
):
    """One multiplicative-weights step: ``w_i ← w_i · exp(-eta · losses_i)``.

    Computed in log space (``log w_i - eta · losses_i``), so long runs of updates
    never underflow when ``log_weights=True``. A weight of 0 (log weight
    ``-inf``) stays 0.

    With ``normalize=True`` the step never overflows and never produces NaN,
    whatever ``eta`` and the losses. The normalised result does not change when
    the same constant is subtracted from every loss: when some step
    ``eta · losses_i`` is above ``2**20`` in absolute value, the smallest loss
    (over the points of positive weight) is subtracted first, so that every
    step is ``>= 0``, the points of smallest loss keep their log weights
    exactly, and a step beyond the float range gives a weight of exactly 0 (its
    limit). The result always has a positive weight.

    Parameters
    ----------
    weights_or_log_weights : array-like of shape (n,)
        Non-negative weights, at least one positive, or their logarithms
        (``-inf`` for a zero weight) if ``log_weights=True``.
    losses : array-like of shape (n,)
        Finite losses; negative losses (gains) increase a weight.
    eta : float
        Learning rate, ``> 0``.
    log_weights : bool, default=False
        Whether the input and the output are log weights.
    normalize : bool, default=False
        Whether to rescale the output to a probability vector (log-probabilities
        if ``log_weights=True``).

    Returns
    -------
    updated : ndarray of shape (n,)
        Weights (or log weights) after the update.

    Raises
    ------
    ValueError
        With ``normalize=False``, if an updated weight (or log weight) would be
        above the float range; ``normalize=True`` never raises it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.mechanisms import multiplicative_weights_update
    >>> multiplicative_weights_update([1.0, 1.0], [0.0, 1.0], eta=np.log(2)).tolist()
    [1.0, 0.5]
    >>> lw = multiplicative_weights_update(
    ...     [0.0, 0.0], [0.0, 1.0], eta=np.log(3), log_weights=True, normalize=True)
    >>> lw.round(4).tolist()
    [-0.2877, -1.3863]
    >>> multiplicative_weights_update(
    ...     [0.5, 0.5, 0.0], [1e300, 0.0, 0.0], eta=1e300, normalize=True).tolist()
    [0.0, 1.0, 0.0]
    """
    lw = _check_weights(
        weights_or_log_weights, log_weights, "weights_or_log_weights", allow_zero=True
    )
    if not log_weights:
        with np.errstate(divide="ignore"):
            lw = np.log(lw)
    losses = check_real_array(losses, "losses")
    if losses.shape != lw.shape:
        raise ValueError(
            f"losses has shape {losses.shape} but the weights have shape {lw.shape}."
        )
    eta = check_positive_real(eta, "eta")
    positive = ~np.isneginf(lw)
    # Overflow is detected below, and underflow (a weight below the float range,
    # hence 0) is the correct result: neither may warn or raise.
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if normalize:
            lo = float(losses[positive].min())
            hi = float(losses[positive].max())
            # Python floats: eta * ... is inf on overflow, never an error.
            if eta * max(-lo, hi) <= _LARGEST_UNSHIFTED_STEP:
                out = lw - eta * losses
                kept = out[positive]
                unshifted = not (
                    np.isnan(kept).any()
                    or np.isposinf(kept).any()
                    or np.isneginf(kept).all()
                )
            else:
                unshifted = False
            if not unshifted:
                # Steps >= 0 (+inf on overflow: a weight of 0), and 0 for the
                # points of loss lo, which keep their log weights.
                out = lw - eta * (losses - lo)
        else:
            out = lw - eta * losses
        out[~positive] = -np.inf
        if normalize:
            # A point of positive weight has a finite log weight (of loss lo
            # if shifted), so the largest is finite. Far from 0, the normaliser
            # would round away log(n): the largest is subtracted first (exact
            # for it), then the normaliser of what is left, in [0, log n].
            top = out.max()
            if abs(top) > _LARGEST_UNSHIFTED_STEP:
                out = out - top
            out = out - logsumexp(out)
        elif np.isposinf(out).any():
            raise ValueError(
                "The updated log weights are above the float range; pass "
                "normalize=True."
            )
        if log_weights:
            return out
        weights = np.exp(out)
    if np.isposinf(weights).any():
        raise ValueError(
            "The updated weights are above the float range; pass log_weights=True "
            "or normalize=True."
        )
    return weights


def project_kappa_dense(weights, kappa, *, log_weights=False):
    """κ-dense projection ``Π_κ(w) = min(c · w, 1)`` with ``||Π_κ(w)||_1 = κ n``.

    ``c`` is the smallest constant reaching total mass ``κ n`` (Kohen & Sheffet
    2022, eq. (2); Bun et al. 2020). The result ``p`` has ``max p <= 1`` and mean
    ``κ``, so its induced distribution is κ-dense (Def. 4.1:
    ``κ · max p <= mean p``): no point has probability above ``1/(κ n)``.

    Computed exactly by sorting, in O(n log n): with the weights sorted
    decreasingly and the top ``m`` of them capped at 1, the constant is
    ``c_m = (κ n - m) / S_m`` (``S_m`` the sum of the others); the answer is the
    smallest ``m`` with ``c_m · w_(m+1) <= 1``, which then also caps the top ``m``
    (``c_{m-1} w_(m) > 1`` implies ``c_m w_(m) > 1``).

    Parameters
    ----------
    weights : array-like of shape (n,)
        Positive weights (or their logs if ``log_weights=True``). The projection
        is invariant to rescaling, so any positive weights are accepted, not only
        weights in ``(0, 1]``.
    kappa : float
        Density in ``(0, 1]``.
    log_weights : bool, default=False
        Whether ``weights`` are log weights (useful after many multiplicative
        updates, when the weights themselves would underflow).

    Returns
    -------
    projected : ndarray of shape (n,)
        Values in ``(0, 1]`` summing to ``κ n`` (up to rounding).

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import project_kappa_dense
    >>> project_kappa_dense([1.0, 0.1, 0.1, 0.1], kappa=0.5).round(6).tolist()
    [1.0, 0.333333, 0.333333, 0.333333]
    """
    kappa = check_probability(kappa, "kappa", allow_zero=False, allow_one=True)
    w = _check_weights(weights, log_weights, "weights")
    # Work with log weights throughout, so that weights far below the largest
    # (after many multiplicative updates) keep their exact relative sizes.
    lw = w if log_weights else np.log(w)
    n = lw.shape[0]
    target = kappa * n
    order = np.argsort(-lw, kind="stable")
    lws = lw[order]
    # log_suffix[m] = log of the sum of the weights left uncapped when the top m
    # are capped.
    log_suffix = np.logaddexp.accumulate(lws[::-1])[::-1]
    m = np.arange(n)
    # For m >= κn the constant would be <= 0 (NaN/-inf here); such m are never
    # the answer, since the smallest valid m has c_m > 0.
    with np.errstate(divide="ignore", invalid="ignore"):
        log_c = np.log(target - m) - log_suffix
    valid = log_c + lws <= 0.0
    # At m = n - 1, c * w_(n) = κn - n + 1 <= 1 exactly, so a valid m always
    # exists; state it rather than trust the rounding of the product.
    valid[-1] = True
    first = int(np.argmax(valid))
    return np.exp(np.minimum(log_c[first] + lw, 0.0))
