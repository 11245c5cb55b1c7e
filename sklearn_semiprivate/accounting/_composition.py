"""Privacy costs and how they compose: pure functions of (epsilon, delta).

Every function here is deterministic arithmetic, asserted exactly in the tests.
Neighbouring datasets are stated per function, because amplification by
sub-sampling depends on it.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
from typing import NamedTuple

import numpy as np

from ..utils._validation import check_delta, check_integer, check_probability

__all__ = [
    "PrivacyCost",
    "amplify_by_subsampling",
    "compose_advanced",
    "compose_basic",
    "compose_parallel",
]


class PrivacyCost(NamedTuple):
    """The ``(epsilon, delta)`` cost of a release.

    A named tuple, so ``eps, delta = cost`` works and two costs compare exactly.
    Its ``repr`` rounds each value to 12 significant digits, so float rounding of
    sums does not show; the values themselves are not rounded.

    Parameters
    ----------
    epsilon : float
        Privacy loss bound, ``>= 0``.
    delta : float, default=0.0
        Probability of failure of the bound, in ``[0, 1]``. ``0`` means pure DP.

    Examples
    --------
    >>> from sklearn_semiprivate.accounting import PrivacyCost
    >>> PrivacyCost(1.0)
    PrivacyCost(epsilon=1.0, delta=0.0)

    The display rounds to 12 significant digits; the values are exact:

    >>> cost = PrivacyCost(0.9999999999999492)
    >>> cost
    PrivacyCost(epsilon=1.0, delta=0.0)
    >>> cost.epsilon == 1.0
    False
    """

    epsilon: float
    delta: float = 0.0

    def __repr__(self):
        return (
            f"PrivacyCost(epsilon={_format_float(self.epsilon)}, "
            f"delta={_format_float(self.delta)})"
        )


def _format_float(value):
    """``value`` rounded to 12 significant digits, as valid Python source."""
    try:
        rounded = float(f"{value:.12g}")
    except (TypeError, ValueError):
        return repr(value)
    if math.isinf(rounded) or math.isnan(rounded):
        return f"float('{rounded}')"
    return repr(rounded)


def _as_cost(cost):
    eps, delta = (cost, 0.0) if np.isscalar(cost) else tuple(cost)
    eps = float(eps)
    if not eps >= 0 or math.isnan(eps):
        raise ValueError(f"epsilon of a privacy cost must be >= 0, got {eps!r}.")
    delta = check_probability(delta, "delta", allow_one=True)
    return PrivacyCost(eps, delta)


def compose_basic(costs):
    """Basic (sequential) composition: epsilons and deltas add up.

    Holds for any neighbour relation and adaptively chosen mechanisms
    (Dwork & Roth 2014, Thm 3.16).

    Parameters
    ----------
    costs : iterable of PrivacyCost or (epsilon, delta) or float
        The costs of the composed mechanisms; a bare float is ``(epsilon, 0)``.

    Returns
    -------
    cost : PrivacyCost

    Examples
    --------
    >>> from sklearn_semiprivate.accounting import compose_basic
    >>> compose_basic([(0.5, 1e-6), (0.25, 0.0), 1.0])
    PrivacyCost(epsilon=1.75, delta=1e-06)
    """
    costs = [_as_cost(c) for c in costs]
    eps = math.fsum(c.epsilon for c in costs)
    delta = min(1.0, math.fsum(c.delta for c in costs))
    return PrivacyCost(eps, delta)


def compose_parallel(costs):
    """Parallel composition over *disjoint* parts of the data: the maximum.

    Each mechanism reads only its own part of a partition of the rows, the
    partition being fixed independently of the private data (e.g. by public
    cells). A neighbouring dataset changes one row, hence one part
    (McSherry 2009, Thm 4). Under replace-one the changed row may move from one
    part to another, touching two parts; then the cost is the sum of the two
    largest, which this function does not cover: use ``compose_basic``.

    Parameters
    ----------
    costs : iterable of PrivacyCost or (epsilon, delta) or float
        Costs of the mechanisms run on disjoint parts.

    Returns
    -------
    cost : PrivacyCost

    Examples
    --------
    >>> from sklearn_semiprivate.accounting import compose_parallel
    >>> compose_parallel([(0.5, 0.0), (1.0, 1e-9)])
    PrivacyCost(epsilon=1.0, delta=1e-09)
    """
    costs = [_as_cost(c) for c in costs]
    if not costs:
        return PrivacyCost(0.0, 0.0)
    return PrivacyCost(max(c.epsilon for c in costs), max(c.delta for c in costs))


def compose_advanced(cost, k, delta_slack):
    """Advanced composition of ``k`` adaptive runs of an ``(eps, delta)`` mechanism.

    Dwork, Rothblum & Vadhan (2010), as stated in Dwork & Roth (2014, Thm 3.20)
    and used by Kohen & Sheffet (2022, proof of Thm 4.2): for every
    ``delta_slack > 0`` the composition is ``(eps', k * delta + delta_slack)``-DP
    with::

        eps' = sqrt(2 k ln(1 / delta_slack)) * eps + k * eps * (exp(eps) - 1)

    The function returns the smaller of this and basic composition ``k * eps``
    (both are valid bounds; for large ``eps`` the basic one is tighter).

    Parameters
    ----------
    cost : PrivacyCost or (epsilon, delta) or float
        Cost of one run.
    k : int
        Number of runs, ``>= 1``.
    delta_slack : float
        The extra ``delta'`` in ``(0, 1)``.

    Returns
    -------
    cost : PrivacyCost

    Examples
    --------
    >>> from sklearn_semiprivate.accounting import compose_advanced
    >>> c = compose_advanced(0.01, k=1000, delta_slack=1e-5)
    >>> round(c.epsilon, 4), c.delta
    (1.6179, 1e-05)
    """
    cost = _as_cost(cost)
    k = check_integer(k, "k", 1)
    delta_slack = check_delta(delta_slack, "delta_slack", allow_zero=False)
    eps = cost.epsilon
    if eps > 700.0:
        # exp(eps) overflows a float; the advanced bound exceeds k * eps.
        return PrivacyCost(k * eps, min(1.0, k * cost.delta))
    # -log(delta_slack), not log(1 / delta_slack), which overflows at a
    # subnormal slack.
    advanced = math.sqrt(2 * k * -math.log(delta_slack)) * eps + k * eps * math.expm1(
        eps
    )
    if advanced < k * eps:
        return PrivacyCost(advanced, min(1.0, k * cost.delta + delta_slack))
    return PrivacyCost(k * eps, min(1.0, k * cost.delta))


def amplify_by_subsampling(cost, rate, *, method="poisson"):
    """Privacy amplification by sub-sampling.

    A mechanism that is ``(eps, delta)``-DP, run on a random subsample, is
    ``(log(1 + q (exp(eps) - 1)), q delta)``-DP with respect to the full data
    (Balle, Barthe & Gaboardi 2018, Thm 8 and Thm 9), where ``q`` is ``rate``:

    * ``method="poisson"``: every row is kept independently with probability
      ``q``; the guarantee is for **add/remove** neighbours, and needs the inner
      mechanism to be DP under add/remove.
    * ``method="without_replacement"``: a uniformly random subset of fixed size
      ``m`` out of ``n`` rows, ``q = m / n``; the guarantee is for
      **replace-one** neighbours, and needs the inner mechanism to be DP under
      replace-one.

    Parameters
    ----------
    cost : PrivacyCost or (epsilon, delta) or float
        Cost of the mechanism on the subsample.
    rate : float
        Sampling rate ``q`` in ``(0, 1]``.
    method : {"poisson", "without_replacement"}, default="poisson"
        The sampling scheme, see above.

    Returns
    -------
    cost : PrivacyCost
        Never larger than ``cost``; increasing in ``rate``; equal to ``cost``
        at ``rate = 1``.

    Examples
    --------
    >>> import math
    >>> from sklearn_semiprivate.accounting import amplify_by_subsampling
    >>> c = amplify_by_subsampling(1.0, 0.1)
    >>> math.isclose(c.epsilon, math.log(1 + 0.1 * (math.e - 1)))
    True
    """
    cost = _as_cost(cost)
    rate = check_probability(rate, "rate", allow_zero=False, allow_one=True)
    if method not in ("poisson", "without_replacement"):
        raise ValueError(
            f"method must be 'poisson' or 'without_replacement', got {method!r}."
        )
    eps = math.log1p(rate * math.expm1(cost.epsilon))
    return PrivacyCost(min(eps, cost.epsilon), rate * cost.delta)
