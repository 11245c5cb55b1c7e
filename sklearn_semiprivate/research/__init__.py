"""Research-only constructions: the lower-bound reduction and its samplers.

These exist to study the theory, not to be used on data one wants to protect
well: :class:`PublicDataReduction` turns a semi-private learner into a fully
private one (Alon, Bassily & Moran 2019, Alg. 2-4, Lemma 4.4), the construction
behind their lower bound, and :func:`priv_samp` and :func:`pub_samp` are its
sample generators (Alg. 3 and 4). Its accuracy bound, ``100 n_public alpha``,
is far from what :class:`~sklearn_semiprivate.SemiPrivateClassifier` achieves
with real public data.
"""

# SPDX-License-Identifier: BSD-3-Clause

from ._reduction import PublicDataReduction, priv_samp, pub_samp

__all__ = ["PublicDataReduction", "priv_samp", "pub_samp"]
