"""Floating-point helpers shared by the privacy costs."""

# SPDX-License-Identifier: BSD-3-Clause

import math

__all__ = ["exp_or_inf"]


def exp_or_inf(x):
    """``e^x``, or ``inf`` where it overflows (``math.exp`` raises instead).

    Privacy costs such as ``(1 + e^eps) delta`` are bounds: an overflowing
    term makes them vacuous (capped at 1 by the caller), not an error.

    Examples
    --------
    >>> from sklearn_semiprivate.utils._numeric import exp_or_inf
    >>> exp_or_inf(0.0), exp_or_inf(800.0)
    (1.0, inf)
    """
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf
