"""Randomized response for bits and k-ary values, with de-biasing.

These are local mechanisms: each respondent randomizes their own value once, so
the guarantee is ε-DP (local DP) for each respondent's value, whatever the
others do. The variants for losses in [0, 1] (Kohen & Sheffet 2022) are in
``_loss_randomized_response.py``.

Every object exposes its exact transition matrix (rows: true value, columns:
output), and the aggregate estimators are unbiased: they invert the expected
response frequencies, an affine map.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from scipy.special import expit, log_expit

from ..utils._rng import check_rng
from ..utils._validation import check_epsilon
from ._base import Mechanism
from ._validation import check_n_categories

# The smallest positive double (subnormal): a flip probability never below it.
_SMALLEST = math.ulp(0.0)

__all__ = [
    "KaryRandomizedResponse",
    "RandomizedResponse",
    "debias_bit_mean",
    "debias_kary_histogram",
    "randomized_response_bits",
    "randomized_response_kary",
]


def _check_codes(values, n_categories, name):
    arr = np.asarray(values)
    if arr.dtype == bool:
        arr = arr.astype(np.int64)
    if not np.issubdtype(arr.dtype, np.integer):
        if np.issubdtype(arr.dtype, np.floating):
            if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
                raise ValueError(f"{name} must hold integers in [0, {n_categories}).")
        else:
            raise TypeError(
                f"{name} must be an array of integers, got dtype {arr.dtype}."
            )
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= n_categories):
        raise ValueError(f"{name} must hold integers in [0, {n_categories}).")
    return arr


def _check_nonempty(arr, name):
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty.")
    return arr


class RandomizedResponse(Mechanism):
    """Binary randomized response (Warner 1965).

    Each bit is reported truthfully with probability ``e^ε / (1 + e^ε)`` and
    flipped otherwise.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0``.

    Attributes
    ----------
    epsilon : float
    privacy_cost : PrivacyCost
        ``(epsilon, 0)``, per respondent (local DP).
    transition_matrix : ndarray of shape (2, 2)
        ``P[output = j | input = i]``.
    log_transition_matrix : ndarray of shape (2, 2)
        Its logarithm, computed directly (the ratio of the two entries of a
        column is exactly ``e^ε`` up to one rounding).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.mechanisms import RandomizedResponse
    >>> from sklearn_semiprivate.accounting import PrivacyCost
    >>> rr = RandomizedResponse(epsilon=np.log(3))
    >>> rr.privacy_cost == PrivacyCost(np.log(3), 0)
    True
    >>> rr.transition_matrix.round(6).tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    >>> rr.sample([1, 1, 0, 0], random_state=0).tolist()
    [1, 1, 1, 1]
    """

    def __init__(self, epsilon):
        self.epsilon = check_epsilon(epsilon)

    @property
    def log_transition_matrix(self):
        """Log of :attr:`transition_matrix`, computed directly (no ``log(exp)``)."""
        keep, flip = log_expit(self.epsilon), log_expit(-self.epsilon)
        return np.array([[keep, flip], [flip, keep]])

    @property
    def transition_matrix(self):
        """``P[output = j | input = i]``, shape (2, 2)."""
        keep, flip = expit(self.epsilon), expit(-self.epsilon)
        return np.array([[keep, flip], [flip, keep]])

    def sample(self, bits, *, random_state=None):
        """Randomize each bit independently.

        Parameters
        ----------
        bits : array-like of {0, 1} or bool
            True bits, one per respondent.
        random_state : None, int, numpy.random.Generator or RandomState, \
                default=None
            Source of randomness.

        Returns
        -------
        responses : ndarray of int64, same shape as ``bits``

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import RandomizedResponse
        >>> RandomizedResponse(4.0).sample([0, 1, 1], random_state=1).tolist()
        [0, 1, 1]
        """
        bits = _check_codes(bits, 2, "bits")
        rng = check_rng(random_state)
        flip = rng.random(bits.shape) < self._flip_probability()
        return bits ^ flip

    def _flip_probability(self):
        """``expit(-epsilon)``, at least the smallest positive double.

        As :meth:`KaryRandomizedResponse._flip_probability`: from ``epsilon``
        near 709.8 ``expit(-epsilon)`` is 0.0 and ``U < 0.0`` never holds, so
        no bit would ever flip, an unbounded loss (a review). With the floor
        a bit flips when ``U == 0``, probability ``2^-53``: a loss of about 37.
        """
        return max(float(expit(-self.epsilon)), _SMALLEST)

    def estimate_mean(self, responses):
        """Unbiased estimate of the mean of the true bits.

        ``E[response] = (1 - p) + (2p - 1) b`` with ``p = e^ε/(1 + e^ε)``, so
        ``(mean(responses) - (1 - p)) / (2p - 1)`` is unbiased.

        Parameters
        ----------
        responses : array-like of {0, 1}
            Outputs of :meth:`sample`.

        Returns
        -------
        mean : float

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_semiprivate.mechanisms import RandomizedResponse
        >>> rr = RandomizedResponse(1.0)
        >>> bits = np.random.default_rng(1).random(100_000) < 0.3
        >>> round(rr.estimate_mean(rr.sample(bits, random_state=2)), 2)
        0.3
        """
        responses = _check_nonempty(
            _check_codes(responses, 2, "responses"), "responses"
        )
        return _debias_binary(responses.mean(), self.epsilon)


def _debias_binary(mean, epsilon):
    # 2p - 1 = tanh(ε/2) and 1 - p = expit(-ε), both without cancellation.
    return float((mean - expit(-epsilon)) / math.tanh(epsilon / 2.0))


class KaryRandomizedResponse(Mechanism):
    """k-ary randomized response.

    A value ``v`` in ``{0, ..., k-1}`` is kept with probability
    ``e^ε / (e^ε + k - 1)``, and otherwise replaced by one of the ``k - 1`` other
    values uniformly at random.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, ``> 0``.
    n_categories : int
        Number of values ``k >= 2`` (public).

    Attributes
    ----------
    epsilon : float
    n_categories : int
    privacy_cost : PrivacyCost
        ``(epsilon, 0)``, per respondent (local DP).
    transition_matrix : ndarray of shape (k, k)
        ``P[output = j | input = i]``.
    log_transition_matrix : ndarray of shape (k, k)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.mechanisms import KaryRandomizedResponse
    >>> rr = KaryRandomizedResponse(epsilon=np.log(3), n_categories=3)
    >>> rr.transition_matrix.round(6).tolist()
    [[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]]
    >>> rr.estimate_histogram([0, 0, 0, 1, 2]).round(6).tolist()
    [1.0, 0.0, 0.0]
    """

    _param_names = ("epsilon", "n_categories")

    def __init__(self, epsilon, n_categories):
        self.epsilon = check_epsilon(epsilon)
        self.n_categories = check_n_categories(n_categories)

    def _log_keep_other(self):
        # log p_keep = -log1p((k - 1) e^-eps), log p_other = -eps + log p_keep:
        # exact for large epsilon, where eps - logaddexp(eps, log(k - 1))
        # cancelled to 0.0 (keep always) from about eps = 34 (a review).
        log_keep = -math.log1p((self.n_categories - 1) * math.exp(-self.epsilon))
        return log_keep, log_keep - self.epsilon

    def _flip_probability(self):
        """``P[output != input] = (k - 1) p_other``, computed directly.

        At least the smallest positive double: from ``epsilon`` near 745 the
        exact value underflows to 0.0, and ``U < 0.0`` never holds, so a
        report would never flip (an unbounded loss). With the floor the
        sampler flips when ``U == 0``, probability ``2^-53``: a loss of about
        ``37 + log(k - 1)``, within any ``epsilon`` that large.
        """
        _, other = self._log_keep_other()
        return max(math.exp(math.log(self.n_categories - 1) + other), _SMALLEST)

    @property
    def log_transition_matrix(self):
        """Log of :attr:`transition_matrix`, computed directly."""
        keep, other = self._log_keep_other()
        out = np.full((self.n_categories, self.n_categories), other)
        np.fill_diagonal(out, keep)
        return out

    @property
    def transition_matrix(self):
        """``P[output = j | input = i]``, shape (k, k)."""
        return np.exp(self.log_transition_matrix)

    def sample(self, values, *, random_state=None):
        """Randomize each value independently.

        Parameters
        ----------
        values : array-like of int in ``[0, n_categories)``
            True values, one per respondent.
        random_state : None, int, numpy.random.Generator or RandomState, \
                default=None
            Source of randomness.

        Returns
        -------
        responses : ndarray of int64, same shape as ``values``

        Examples
        --------
        >>> from sklearn_semiprivate.mechanisms import KaryRandomizedResponse
        >>> rr = KaryRandomizedResponse(6.0, n_categories=4)
        >>> rr.sample([0, 1, 2, 3], random_state=0).tolist()
        [0, 1, 2, 3]
        """
        values = _check_codes(values, self.n_categories, "values")
        rng = check_rng(random_state)
        # Flip when U < P[flip]: a double U of step 2^-53 makes that at least
        # P[flip] (the safe side); U < p_keep made keeping at least p_keep,
        # so a report could never flip at large epsilon.
        keep = ~(rng.random(values.shape) < self._flip_probability())
        other = rng.integers(0, self.n_categories - 1, size=values.shape)
        other = other + (other >= values)  # uniform over the k - 1 other values
        return np.where(keep, values, other)

    def estimate_histogram(self, responses):
        """Unbiased estimate of the frequencies of the true values.

        With ``p`` the keep probability and ``q = (1 - p)/(k - 1)``, the expected
        frequency of ``v`` among the responses is ``q + (p - q) π_v``, so
        ``(freq_v - q) / (p - q)`` is unbiased (it may be negative).

        Parameters
        ----------
        responses : array-like of int in ``[0, n_categories)``
            Outputs of :meth:`sample`.

        Returns
        -------
        frequencies : ndarray of shape (n_categories,)
            Sums to 1.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_semiprivate.mechanisms import KaryRandomizedResponse
        >>> rr = KaryRandomizedResponse(1.0, n_categories=3)
        >>> values = np.repeat([0, 1, 2], [50_000, 30_000, 20_000])
        >>> rr.estimate_histogram(rr.sample(values, random_state=0)).round(1).tolist()
        [0.5, 0.3, 0.2]
        """
        responses = _check_nonempty(
            _check_codes(responses, self.n_categories, "responses"), "responses"
        ).ravel()
        freq = np.bincount(responses, minlength=self.n_categories) / responses.size
        log_keep, log_other = self._log_keep_other()
        p, q = math.exp(log_keep), math.exp(log_other)
        return (freq - q) / (p * -math.expm1(-self.epsilon))  # p - q = p (1 - e^-ε)


def randomized_response_bits(bits, epsilon, *, random_state=None):
    """Binary randomized response on each bit; ε-DP per respondent.

    See :class:`RandomizedResponse`.

    Parameters
    ----------
    bits : array-like of {0, 1} or bool
        One true bit per respondent.
    epsilon : float
        Privacy parameter, ``> 0``.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Source of randomness.

    Returns
    -------
    responses : ndarray of int64

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import randomized_response_bits
    >>> randomized_response_bits([0, 1, 1], epsilon=5.0, random_state=0).tolist()
    [0, 1, 1]
    """
    return RandomizedResponse(epsilon).sample(bits, random_state=random_state)


def randomized_response_kary(values, epsilon, *, n_categories, random_state=None):
    """k-ary randomized response on each value; ε-DP per respondent.

    See :class:`KaryRandomizedResponse`.

    Parameters
    ----------
    values : array-like of int in ``[0, n_categories)``
        One true value per respondent.
    epsilon : float
        Privacy parameter, ``> 0``.
    n_categories : int
        Number of possible values ``k >= 2``.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Source of randomness.

    Returns
    -------
    responses : ndarray of int64

    Examples
    --------
    >>> from sklearn_semiprivate.mechanisms import randomized_response_kary
    >>> randomized_response_kary([0, 3, 2], epsilon=5.0, n_categories=4,
    ...                          random_state=0).tolist()
    [0, 3, 2]
    """
    return KaryRandomizedResponse(epsilon, n_categories).sample(
        values, random_state=random_state
    )


def debias_bit_mean(responses, epsilon):
    """Unbiased estimate of the mean true bit from binary randomized responses.

    Parameters
    ----------
    responses : array-like of {0, 1}
        Outputs of :func:`randomized_response_bits` at this ``epsilon``.
    epsilon : float
        The ε they were randomized with.

    Returns
    -------
    mean : float

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.mechanisms import debias_bit_mean
    >>> round(debias_bit_mean([1, 1, 1, 0], epsilon=np.log(3)), 6)  # E = 1/4 + b/2
    1.0
    """
    return RandomizedResponse(epsilon).estimate_mean(responses)


def debias_kary_histogram(responses, epsilon, *, n_categories):
    """Unbiased estimate of the true value frequencies from k-ary responses.

    Parameters
    ----------
    responses : array-like of int in ``[0, n_categories)``
        Outputs of :func:`randomized_response_kary`.
    epsilon : float
        The ε they were randomized with.
    n_categories : int
        Number of possible values.

    Returns
    -------
    frequencies : ndarray of shape (n_categories,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.mechanisms import debias_kary_histogram
    >>> debias_kary_histogram([0, 0, 0, 1, 2], np.log(3),
    ...                       n_categories=3).round(6).tolist()
    [1.0, 0.0, 0.0]
    """
    return KaryRandomizedResponse(epsilon, n_categories).estimate_histogram(responses)
