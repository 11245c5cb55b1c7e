"""Private model selection: hyper-parameter search with a guarantee.

:class:`PrivateParameterSearch` selects on public labeled rows (free), by
random stopping on a private validation split (Liu & Talwar 2019), or by the
exponential mechanism on the candidates' counts of correct private
predictions, charging its whole cost before any fit. The selection primitives
are pure functions. :class:`PrivateKFold` is the cross-validation splitter whose
fold models stay within their charges.
"""

# SPDX-License-Identifier: BSD-3-Clause

from ._search import PrivateParameterSearch
from ._selection import (
    random_stopping_cost,
    random_stopping_number_of_runs,
    random_stopping_output_distribution,
)
from ._split import PrivateKFold

__all__ = [
    "PrivateKFold",
    "PrivateParameterSearch",
    "random_stopping_cost",
    "random_stopping_number_of_runs",
    "random_stopping_output_distribution",
]
