"""Parameter combinations :class:`PublicAssistedQueryRelease` refuses.

Checked at the start of ``fit``, before any data (public or private) is read.
"""

# SPDX-License-Identifier: BSD-3-Clause

from ._marginals import MarginalQueries

__all__ = ["ADAPTIVE_SUPPORTS", "check_release_options", "mixture_refusal"]

# The supports fitted by AIM-style adaptive rounds (:mod:`._adaptive`).
ADAPTIVE_SUPPORTS = ("mixture", "graphical")


def mixture_refusal(release, support="mixture"):
    """Why an adaptive ``support`` cannot run with ``release``'s parameters, or None.

    Read from the parameters and the workload's type alone: ``"auto"``
    resolves to an adaptive support exactly when this is None.
    """
    if not isinstance(release.queries, MarginalQueries):
        return (
            f"support={support!r} answers marginal queries only: pass a "
            "MarginalQueries workload, or use support='public'."
        )
    if release.selection != "exponential" or release.measurement != "gaussian":
        return (
            f"support={support!r} selects with the exponential mechanism and "
            "measures with the Gaussian mechanism: leave selection="
            "'exponential' and measurement='gaussian'."
        )
    if release.delta <= 0:
        return (
            f"support={support!r} needs delta > 0 (Gaussian measurements, "
            "zCDP accounting)."
        )
    return None


def check_release_options(release, labeled):
    """Parameter combinations a fit of ``release`` refuses, before any data is read."""
    if release.support in ADAPTIVE_SUPPORTS:
        refusal = mixture_refusal(release, release.support)
        if refusal is not None:
            raise ValueError(refusal)
        return
    if release.support == "representative":
        if release.selection == "all":
            raise ValueError(
                "selection='all' (measure every query once) is an option of "
                "support='public'; support='representative' runs the sparse "
                "vector PMW of APAP."
            )
        if labeled:
            raise ValueError(
                "support='representative' does not release labeled rows: its "
                "representative domain partitions the feature domain only. "
                "Use support='public' for a labeled fit (fit(X, y, ...))."
            )
    if release.delta > 0:
        return
    if release.support == "representative":
        raise ValueError(
            "support='representative' needs delta > 0: the PMW of Lemma 7 is "
            "(epsilon, delta)-DP by advanced composition. Pass delta > 0, or "
            "support='public' with measurement='laplace' for pure DP."
        )
    if release.measurement == "gaussian":
        raise ValueError(
            "measurement='gaussian' needs delta > 0 (the Gaussian mechanism is "
            "not pure DP). Pass delta > 0, or measurement='laplace'."
        )
