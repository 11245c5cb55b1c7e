"""The ``solver="sgd"`` of SemiPrivateLogisticRegression: DP-SGD on public features.

The same public feature map ``φ`` as the MM solver (``_logistic_mm.py``:
public standardization, the unit ball, public-quantile bins, a constant), the
same first release (the class counts, L2 sensitivity 1), then projected DP-SGD
on Poisson-subsampled batches (``_sgd_steps.private_sgd``, Kohen & Sheffet's
Algorithm 3 with clipped per-example gradients, as in
:class:`~sklearn_semiprivate.PrivateSGDClassifier`) in place of the Gram matrix
and the MM steps. Only the gradients are noisy: no ``q × q`` Gram release,
whose noise grows with the number of features.

Accounting: the class counts have the L2 sensitivity of the row count that
``_sgd_steps.sgd_noise`` composes with the steps (one count changes by one
under add/remove), so its calibration applies unchanged.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np

from ..accounting import PrivacyCost
from ._sgd_steps import private_sgd, public_sgd, sgd_noise, sgd_privacy

__all__ = ["SGD_SETTINGS", "auto_n_bins_sgd", "sgd_scales", "sgd_weights"]

# Tuned on the seven held-out tables of benchmarks/tune_logistic.py
# (results/sgd_tuning.md): PrivateSGDClassifier's sampling rate, with twice
# its radius and epochs. The bins' one-hot columns are scaled down to keep
# ||phi||^2 <= 2, so their weights need room: radius 40 and 20 epochs had the
# smaller mean and worst gap to non-private LR at epsilon >= 0.5 than 20 and
# 10 (fourth run), and the smaller worst gap at every epsilon.
SGD_SETTINGS = {"sampling_rate": 0.01, "n_epochs": 20.0, "radius": 40.0}
_CLIP_NORM = 1.0
# n_bins="auto" for this solver: bins when the expected batch over the noise
# multiplier, q n / z, reaches this (see auto_n_bins_sgd).
_AUTO_BINS = 8
_AUTO_BINS_MIN_SNR = 25.0


def _n_steps():
    return math.ceil(SGD_SETTINGS["n_epochs"] / SGD_SETTINGS["sampling_rate"] - 1e-9)


def sgd_scales(epsilon, delta):
    """Noise of the releases, from public parameters only.

    Returns
    -------
    scales : dict
        ``"counts"``: the class counts' noise standard deviation;
        ``"gradient"``: the noise standard deviation ``z C`` of every step's
        clipped gradient sum; ``"noise_multiplier"``: ``z``.

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._logistic_sgd import sgd_scales
    >>> s = sgd_scales(1.0, 1e-5)
    >>> s["gradient"] == s["noise_multiplier"]  # the clip norm is 1
    True
    """
    z, count_sigma = sgd_noise(
        float(epsilon), float(delta), SGD_SETTINGS["sampling_rate"], _n_steps()
    )
    return {"counts": count_sigma, "gradient": z * _CLIP_NORM, "noise_multiplier": z}


def sgd_release_privacy(scales, delta, *, neighbours="add/remove"):
    """``(ε, δ)`` of the releases with these scales (the calibration's check).

    For replace-one neighbours: group privacy of two add/remove steps,
    ``(2ε, (1 + e^ε) δ)`` (Dwork & Roth 2014, Thm 2.2 with δ), a valid but
    loose bound (the Poisson-subsampled steps have no simple replace-one
    curve).
    """
    cost = sgd_privacy(
        scales["noise_multiplier"],
        scales["counts"],
        SGD_SETTINGS["sampling_rate"],
        _n_steps(),
        float(delta),
    )
    if neighbours == "add/remove":
        return cost
    eps = cost.epsilon
    # (1 + e^ε) δ, capped at 1 (vacuous) before e^ε overflows.
    delta_two = 1.0 if eps > 700.0 else min(1.0, (1.0 + math.exp(eps)) * cost.delta)
    return PrivacyCost(2.0 * eps, delta_two)


def auto_n_bins_sgd(n_rows, noise_multiplier):
    """``n_bins="auto"`` for the SGD solver: bins at high signal-to-noise.

    The signal of a step is its expected batch, ``q n``; its noise the
    multiplier ``z``. With the released (noisy) count for ``n``, this is
    post-processing. The threshold 25 comes from the seven held-out tables
    of ``benchmarks/tune_logistic.py``: bins lost accuracy at small
    ``q n / z`` and mostly gained above about 25 (one table lost even at
    30-42); with it, ``"auto"`` had the best mean of ``{"auto", 0, 8}``
    (``results/logistic_tuning.md``).

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._logistic_sgd import auto_n_bins_sgd
    >>> auto_n_bins_sgd(15000.0, 1.55), auto_n_bins_sgd(1400.0, 1.55)
    (8, 0)
    """
    snr = SGD_SETTINGS["sampling_rate"] * n_rows / noise_multiplier
    return _AUTO_BINS if snr >= _AUTO_BINS_MIN_SNR else 0


def sgd_weights(P, codes, counts, n_rows, scales, rng, *, exact=None):
    """Release 2: the DP-SGD steps; returns ``W`` of shape ``(q, K)``.

    Parameters
    ----------
    P : ndarray of shape (n, q)
        Private rows' features ``φ(x)`` (``||φ||² <= 2``, last column 1).
    codes : ndarray of shape (n,)
        Private class indices.
    counts : ndarray of shape (K,)
        Released class counts (release 1), plus exact public ones if any.
    n_rows : float
        Released count of the private rows (the sum of release 1).
    scales : dict
        :func:`sgd_scales`.
    rng : numpy.random.Generator
        Privacy randomness (fresh entropy): the batches and the noise.
    exact : tuple (P_pub, codes_pub) or None
        Labeled public rows: a non-private start, and their exact gradients
        in every step (``private_sgd(public=...)``); free.

    Returns
    -------
    W : ndarray of shape (q, K)
        Column ``k`` the weights of class ``k`` (for two classes, column 0
        is zero and column 1 the logit of the second class).
    """
    K = counts.size
    n_out = 1 if K == 2 else K
    # The start: the intercept of the released class frequencies
    # (post-processing), the other weights 0.
    prior = np.log(np.maximum(counts, 1.0) / np.maximum(counts, 1.0).sum())
    W0 = np.zeros((P.shape[1], n_out))
    W0[-1] = prior[1] - prior[0] if K == 2 else prior - prior.mean()
    radius = SGD_SETTINGS["radius"]
    if exact is not None:
        P_pub, codes_pub = exact
        W0 = public_sgd(
            P_pub, codes_pub, W0, loss="log_loss", n_classes=K, radius=radius
        )
    W = private_sgd(
        P,
        codes,
        W0,
        loss="log_loss",
        n_classes=K,
        sampling_rate=SGD_SETTINGS["sampling_rate"],
        n_steps=_n_steps(),
        clip_norm=_CLIP_NORM,
        noise_multiplier=scales["noise_multiplier"],
        n_rows=float(n_rows),
        learning_rate="auto",
        radius=radius,
        rng=rng,
        public=exact,
    )
    if K == 2:
        return np.column_stack([np.zeros(W.shape[0]), W[:, 0]])
    return W
