"""The privacy cost of SubSampling (Beimel, Nissim & Stemmer, Claim 5.7).

Algorithm 4 labels only a random subset of a large pool; Claim 5.7 turns a
``(eps*, delta)`` learner into an ``(epsilon, ~epsilon delta)`` one when the pool
holds ``t >= n (3 + e^{2 eps*}) / epsilon`` rows.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

from ..accounting import PrivacyCost
from ..utils._numeric import exp_or_inf

__all__ = ["subsampling_privacy_cost"]


def _pool_factor(eps_base):
    """``3 + e^{2 eps*}``: Claim 5.7 needs ``t >= n (3 + e^{2 eps*}) / epsilon``."""
    # inf where e^{2 eps*} overflows (eps* above ~354.9): no pool is enough.
    return 3.0 + exp_or_inf(2.0 * eps_base)


def subsampling_privacy_cost(base_cost, epsilon):
    """Claim 5.7's guarantee of Algorithm 4 around a ``(eps*, delta)`` learner.

    ``(epsilon, (7 + e^{eps*}) / (3 + e^{2 eps*}) * epsilon * delta)`` when the
    pool holds ``t >= n (3 + e^{2 eps*}) / epsilon`` rows. The claim's
    statement prints ``7 + eps*``; its proof ends with ``7 + e^{eps*}``
    (``(n/t)(1 + e^{eps*} + 2 e^{eps}) delta`` with ``e^{eps} <= 3``), the larger
    one, which is what is reported. Replace-one neighbours on the fully labeled
    pool (Definition 5.3); the transcript is not covered (see
    :class:`SubSamplingActiveClassifier`).

    Parameters
    ----------
    base_cost : PrivacyCost or (epsilon, delta)
        The base learner's cost.
    epsilon : float
        Target epsilon in ``(0, 1]``.

    Returns
    -------
    cost : PrivacyCost

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._active_cost import (
    ...     subsampling_privacy_cost)
    >>> subsampling_privacy_cost((1.0, 0.0), 0.1)
    PrivacyCost(epsilon=0.1, delta=0.0)
    >>> round(subsampling_privacy_cost((1.0, 1e-6), 0.5).delta, 9)
    4.68e-07
    """
    eps_base, delta_base = (float(v) for v in base_cost)
    if not 0 < epsilon <= 1:
        raise ValueError(f"epsilon must be in (0, 1], got {epsilon!r}.")
    if _pool_factor(eps_base) < math.inf:
        factor = (7.0 + math.exp(eps_base)) / _pool_factor(eps_base)
    else:
        # The ratio divided through by e^{2 eps*} (which overflows) is
        # e^{-eps*} (1 + 7 e^{-eps*}) / (1 + 3 e^{-2 eps*}); dropping the
        # denominator (>= 1) leaves an upper bound, equal to it in doubles.
        factor = math.exp(-eps_base) * (1.0 + 7.0 * math.exp(-eps_base))
    return PrivacyCost(float(epsilon), min(1.0, factor * epsilon * delta_base))
