"""The common shape of a mechanism object: validated parameters and a privacy cost."""

# SPDX-License-Identifier: BSD-3-Clause

from ..accounting import PrivacyCost

__all__ = ["Mechanism"]


class Mechanism:
    """Base class of the mechanism objects: parameters plus a stated privacy cost.

    Mechanisms are small value objects, not estimators: their parameters are
    validated once, at construction, and the privacy cost they guarantee is a
    property you can assert on. Sampling methods take an explicit
    ``random_state``.

    Subclasses set ``epsilon`` and ``delta`` (floats) and list their parameters in
    ``_param_names`` (used by ``repr`` and equality).

    Attributes
    ----------
    epsilon : float
        Privacy-loss bound of one release, with respect to the neighbour relation
        stated by the subclass.
    delta : float
        Failure probability of the bound; ``0.0`` for pure DP.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.mechanisms import RandomizedResponse
    >>> from sklearn_semiprivate.accounting import PrivacyCost
    >>> RandomizedResponse(epsilon=np.log(3)).privacy_cost == PrivacyCost(np.log(3), 0)
    True
    """

    _param_names = ("epsilon",)
    delta = 0.0

    @property
    def privacy_cost(self):
        """:class:`~sklearn_semiprivate.accounting.PrivacyCost` of one release."""
        return PrivacyCost(float(self.epsilon), float(self.delta))

    def _params(self):
        return tuple(getattr(self, name) for name in self._param_names)

    def __repr__(self):
        args = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in self._param_names
        )
        return f"{type(self).__name__}({args})"

    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return self._params() == other._params()

    def __hash__(self):
        return hash((type(self).__name__, self._params()))
