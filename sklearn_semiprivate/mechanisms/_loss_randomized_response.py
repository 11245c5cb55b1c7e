"""Randomized response for losses in [0, 1], as used by hybrid-model local agents.

Kohen & Sheffet (2022) let each local agent of the hybrid model report its loss
``L(h_t(x), ℓ(x)) ∈ [0, 1]`` once through randomized response (Preliminaries,
``RR_{ε,δ}(b) ~ N(b, 2 ln(2/δ)/ε²)``; Alg. 2, the test step
``a_t = (1/N0) Σ RR_{ε,δ}(L(h_t(x), ℓ(x)))``). Two variants:

* pure ε: draw a bit ``~ Bernoulli(loss)``, then binary randomized response;
* (ε, δ): ``N(loss, σ²)`` with the analytic Gaussian calibration of ``σ``.

Both come with unbiased estimators of the mean loss.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from scipy.special import expit

from ..utils._rng import check_rng
from ..utils._validation import check_delta, check_epsilon
from ._additive import GaussianMechanism
from ._base import Mechanism
from ._randomized_response import RandomizedResponse, _check_nonempty
from ._validation import check_values

__all__ = [
    "GaussianLossRandomizedResponse",
    "LossRandomizedResponse",
    "debias_loss_mean",
    "randomized_response_losses",
]


def _check_losses(losses, name="losses"):
    arr, _ = check_values(losses, name)
    if arr.size and (arr.min() < 0 or arr.max() > 1):
        raise ValueError(f"{name} must lie in [0, 1].")
    return arr


class LossRandomizedResponse(Mechanism):
    """Pure ε-DP randomized response for a loss in ``[0, 1]``.

    Draw a bit ``b ~ Bernoulli(loss)``, then report it through binary randomized
    response: ``P[1 | loss] = (1 - p) + (2p - 1) loss`` with ``p = e^ε/(1+e^ε)``.
    This is the pure variant of the local agents' ``RR_ε`` of Kohen & Sheffet
    (2022, Alg. 2); the responses' mean de-biases to an unbiased estimate of the
    mean loss.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0``.

    Attributes
    ----------
    epsilon : float
    privacy_cost : PrivacyCost
        ``(epsilon, 0)`` per respondent: ``P[1 | loss]`` lies between ``1 - p``
        and ``p`` for every loss, whose ratio is ``e^ε``.
    transition_matrix : ndarray of shape (2, 2)
        Output distribution for the extreme losses 0 and 1 (the worst pair).

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import LossRandomizedResponse
    >>> rr = LossRandomizedResponse(epsilon=1.0)
    >>> rr.output_probabilities([0.0, 0.5]).round(4).tolist()
    [[0.7311, 0.2689], [0.5, 0.5]]
    >>> rr.sample([0.2, 0.9], random_state=0).tolist()
    [1, 0]
    """

    def __init__(self, epsilon):
        self.epsilon = check_epsilon(epsilon)

    @property
    def transition_matrix(self):
        """Output distribution for losses 0 (row 0) and 1 (row 1), shape (2, 2)."""
        return RandomizedResponse(self.epsilon).transition_matrix

    def output_probabilities(self, losses):
        """Exact output distribution ``[P(0 | loss), P(1 | loss)]`` per loss.

        Parameters
        ----------
        losses : array-like of float in ``[0, 1]``

        Returns
        -------
        proba : ndarray of shape (``*losses.shape``, 2)

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_semiprivate.mechanisms import LossRandomizedResponse
        >>> LossRandomizedResponse(np.log(3)).output_probabilities(0.5).tolist()
        [0.5, 0.5]
        """
        losses = _check_losses(losses)
        p1 = expit(-self.epsilon) + math.tanh(self.epsilon / 2.0) * losses
        return np.stack([1.0 - p1, p1], axis=-1)

    def sample(self, losses, *, random_state=None):
        """Randomize each loss independently into a bit.

        Parameters
        ----------
        losses : array-like of float in ``[0, 1]``
            True losses, one per respondent.
        random_state : None, int, numpy.random.Generator or RandomState, \
                default=None
            Source of randomness.

        Returns
        -------
        responses : ndarray of int64, same shape as ``losses``

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import LossRandomizedResponse
        >>> LossRandomizedResponse(8.0).sample([0.0, 1.0], random_state=0).tolist()
        [0, 1]
        """
        losses = _check_losses(losses)
        rng = check_rng(random_state)
        bits = (rng.random(losses.shape) < losses).astype(np.int64)
        # then plain randomized response of the bit, at the same epsilon
        return RandomizedResponse(self.epsilon).sample(bits, random_state=rng)

    def estimate_mean(self, responses):
        """Unbiased estimate of the mean loss (binary de-biasing of the responses).

        Parameters
        ----------
        responses : array-like of {0, 1}

        Returns
        -------
        mean : float

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_semiprivate.mechanisms import LossRandomizedResponse
        >>> rr = LossRandomizedResponse(np.log(3))
        >>> round(rr.estimate_mean([1, 0]), 6)  # E[response] = 1/4 + loss / 2
        0.5
        """
        return RandomizedResponse(self.epsilon).estimate_mean(responses)


class GaussianLossRandomizedResponse(Mechanism):
    """(ε, δ)-DP randomized response for a loss in ``[0, 1]``: ``N(loss, σ²)``.

    The local agents' ``RR_{ε,δ}(b) ~ N(b, σ²)`` of Kohen & Sheffet (2022,
    Preliminaries; Alg. 2). The paper uses ``σ² = 2 ln(2/δ) / ε²``, a classical
    calibration that needs ``ε < 1``; here ``σ`` is the analytic Gaussian
    calibration for sensitivity 1 (a loss moves by at most 1), valid for every ε
    and never larger.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0``.
    delta : float
        Privacy parameter in ``(0, 1)``.

    Attributes
    ----------
    epsilon : float
    delta : float
    sigma : float
        ``analytic_gaussian_sigma(epsilon, delta, sensitivity=1.0)``.
    privacy_cost : PrivacyCost
        ``(epsilon, delta)`` per respondent.

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import GaussianLossRandomizedResponse
    >>> rr = GaussianLossRandomizedResponse(epsilon=1.0, delta=1e-5)
    >>> round(rr.sigma, 4)
    3.7306
    >>> rr.sample([0.0, 1.0], random_state=0).round(3).tolist()
    [0.469, 0.507]
    """

    _param_names = ("epsilon", "delta")

    def __init__(self, epsilon, delta):
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=False)
        # a loss in [0, 1]: the Gaussian mechanism of sensitivity 1
        self._gaussian = GaussianMechanism(self.epsilon, self.delta, sensitivity=1.0)
        self.sigma = self._gaussian.sigma

    def sample(self, losses, *, random_state=None):
        """Add ``N(0, sigma²)`` to each loss.

        Parameters
        ----------
        losses : array-like of float in ``[0, 1]``
            True losses, one per respondent.
        random_state : None, int, numpy.random.Generator or RandomState, \
                default=None
            Source of randomness.

        Returns
        -------
        responses : ndarray of float, same shape as ``losses``

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import GaussianLossRandomizedResponse
        >>> rr = GaussianLossRandomizedResponse(epsilon=2.0, delta=1e-3)
        >>> rr.sample([0.5], random_state=0).round(3).tolist()
        [0.682]
        """
        losses = _check_losses(losses)
        return np.asarray(self._gaussian.sample(losses, random_state=random_state))

    def estimate_mean(self, responses):
        """Unbiased estimate of the mean loss: the mean of the responses.

        Parameters
        ----------
        responses : array-like of float

        Returns
        -------
        mean : float

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import GaussianLossRandomizedResponse
        >>> rr = GaussianLossRandomizedResponse(epsilon=1.0, delta=1e-6)
        >>> round(rr.estimate_mean([0.2, 0.6]), 12)
        0.4
        """
        arr, _ = check_values(responses, "responses")
        return float(_check_nonempty(arr, "responses").mean())


def randomized_response_losses(losses, epsilon, *, delta=0.0, random_state=None):
    """Randomized response on losses in ``[0, 1]``, as for hybrid-model local agents.

    ``delta=0`` uses :class:`LossRandomizedResponse` (bits, ε-DP); ``delta > 0``
    uses :class:`GaussianLossRandomizedResponse` (``N(loss, σ²)``, (ε, δ)-DP).

    Parameters
    ----------
    losses : array-like of float in ``[0, 1]``
        One true loss per respondent.
    epsilon : float
        Privacy parameter, ``> 0``.
    delta : float, default=0.0
        Privacy parameter in ``[0, 1)``.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Source of randomness.

    Returns
    -------
    responses : ndarray
        Bits (int64) if ``delta == 0``, else floats.

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import randomized_response_losses
    >>> randomized_response_losses([0.0, 1.0], epsilon=8.0, random_state=0).tolist()
    [0, 1]
    """
    delta = check_delta(delta)
    mech = (
        LossRandomizedResponse(epsilon)
        if delta == 0
        else GaussianLossRandomizedResponse(epsilon, delta)
    )
    return mech.sample(losses, random_state=random_state)


def debias_loss_mean(responses, epsilon, *, delta=0.0):
    """Unbiased estimate of the mean loss from :func:`randomized_response_losses`.

    Parameters
    ----------
    responses : array-like
        Bits (``delta == 0``) or Gaussian responses (``delta > 0``).
    epsilon : float
        The ε they were randomized with.
    delta : float, default=0.0
        The δ they were randomized with.

    Returns
    -------
    mean : float

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import debias_loss_mean
    >>> round(debias_loss_mean([0.25, 0.75], epsilon=1.0, delta=1e-5), 6)
    0.5
    """
    delta = check_delta(delta)
    if delta == 0:
        return LossRandomizedResponse(epsilon).estimate_mean(responses)
    return GaussianLossRandomizedResponse(epsilon, delta).estimate_mean(responses)
