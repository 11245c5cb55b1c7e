"""The building blocks of the adaptive rounds of ``_adaptive.py``.

AIM's candidates (:func:`candidate_cliques`: every column set of at most
``MAX_CLIQUE`` columns inside a workload set, with its weight), the cells and
counts of one column set over integer-coded rows (``_codes``, ``_counts``),
the Gaussian mechanism on one marginal of counts (:func:`gaussian_counts`) and
the zCDP of a run's measurements and selections (:func:`adaptive_zcdp`), and
the fit's targets built from the released measurements and the public
marginals (``_estimated_total``, ``_fit_inputs``: post-processing).
``_adaptive.py`` imports them and its plan and rounds look them up in its
namespace, so a test that patches one (``gaussian_counts``) patches it there.
"""

# SPDX-License-Identifier: BSD-3-Clause

import itertools

import numpy as np

from ._adaptive_settings import MAX_CLIQUE

__all__ = ["adaptive_zcdp", "candidate_cliques", "gaussian_counts"]


def adaptive_zcdp(sigmas, selection_epsilons, *, neighbours="add/remove"):
    """zCDP of Gaussian measurements of counts and exponential-mechanism selections.

    Parameters
    ----------
    sigmas : array-like of float
        Noise standard deviation (in counts) of every measured marginal.
    selection_epsilons : array-like of float
        ``ε_sel`` of every selection (sensitivity ``max_c w_c`` under
        add/remove).
    neighbours : {"add/remove", "replace-one"}, default="add/remove"
        Add/remove: L2 sensitivity 1 per marginal, ``Σ 1/(2σ²) + Σ ε²/8``.
        Replace-one: sensitivity ``sqrt(2)`` and a score sensitivity doubled,
        ``Σ 1/σ² + Σ (2ε)²/8``.

    Returns
    -------
    rho : float

    Examples
    --------
    >>> from sklearn_semiprivate.query_release._adaptive_steps import adaptive_zcdp
    >>> adaptive_zcdp([1.0, 2.0], [0.4])
    0.645
    >>> adaptive_zcdp([1.0, 2.0], [0.4], neighbours="replace-one")
    1.33
    """
    sq_sens, sel_factor = {"add/remove": (1.0, 1.0), "replace-one": (2.0, 2.0)}[
        neighbours
    ]
    sigmas = np.asarray(sigmas, dtype=np.float64)
    eps = np.asarray(selection_epsilons, dtype=np.float64)
    measure = float(np.sum(sq_sens / (2.0 * sigmas**2)))
    select = float(np.sum((sel_factor * eps) ** 2 / 8.0))
    return measure + select


def candidate_cliques(subsets, max_size=MAX_CLIQUE):
    """Column sets of at most ``max_size`` columns inside a workload set, weighted.

    AIM's candidates (its ``compile_workload``): the downward closure of the
    workload's column sets, each candidate ``c`` weighted by
    ``sum_S |c ∩ S|``.

    Parameters
    ----------
    subsets : array-like of shape (n_subsets, k)
        The workload's column sets.
    max_size : int, default=3

    Returns
    -------
    cliques : list of tuple
        Sorted column tuples, by size then lexicographically.
    weights : ndarray of shape (len(cliques),)
    """
    sets = [tuple(sorted(int(c) for c in s)) for s in np.asarray(subsets)]
    found = set()
    for s in sets:
        for r in range(1, min(len(s), max_size) + 1):
            found.update(itertools.combinations(s, r))
    cliques = sorted(found, key=lambda c: (len(c), c))
    members = [set(s) for s in sets]
    weights = np.array(
        [sum(len(set(c) & m) for m in members) for c in cliques], dtype=np.float64
    )
    return cliques, weights


def _codes(X, cols, cards):
    """Cell (C order) of every row of ``X`` in the marginal of ``cols``."""
    code = np.zeros(X.shape[0], dtype=np.int64)
    for c in cols:
        code = code * int(cards[c]) + X[:, c].astype(np.int64)
    return code


def _counts(X, cols, cards):
    """Counts of the cells of column set ``cols`` (C order) over rows ``X``."""
    size = int(np.prod(np.asarray(cards)[list(cols)]))
    return np.bincount(_codes(X, cols, cards), minlength=size).astype(np.float64)


def gaussian_counts(counts, sigma, rng):
    """The Gaussian mechanism on one marginal of counts: ``1 / (2 sigma²)``-zCDP.

    L2 sensitivity 1 under add/remove (one row is in one cell), ``sqrt(2)``
    under replace-one. ``rng`` is the secret noise generator.
    """
    return counts + rng.normal(0.0, sigma, size=counts.size)


def _estimated_total(measurements):
    """Inverse-variance mean of the totals of every noisy marginal (>= 1)."""
    totals = np.array([y.sum() for _, y, _ in measurements])
    variances = np.array([s**2 * y.size for _, y, s in measurements])
    return max(float(np.sum(totals / variances) / np.sum(1.0 / variances)), 1.0)


def _fit_inputs(measurements, total, public, n_public, prior):
    """The fit's targets: measurements of one column set merged, as fractions.

    The noisy counts of one column set are merged by inverse variance, then
    (``prior``) combined cell by cell with the public marginal, whose variance
    is its sampling variance ``(p + 1/m) / m`` (``m`` public rows) plus an
    empirical-Bayes estimate ``tau²`` of its bias: the mean squared gap
    between it and the private measurement beyond what both variances explain
    (0 when the public rows look like the private ones; large under a shift).
    Post-processing: reads released measurements and public data only.
    """
    merged = {}
    for cols, y, sigma in measurements:
        w = (total / sigma) ** 2  # precision of the fractions y / total
        acc = merged.setdefault(cols, [0.0, 0.0])
        acc[0] += w
        acc[1] = acc[1] + w * (y / total)
    out = []
    for cols, (w, wy) in merged.items():
        y = wy / w
        if prior:
            p = public[cols]
            var_pub = (p + 1.0 / n_public) / n_public
            gap = np.mean((y - p) ** 2) - np.mean(var_pub + 1.0 / w)
            w_pub = 1.0 / (var_pub + max(gap, 0.0))
            y = (w * y + w_pub * p) / (w + w_pub)
            w = w + w_pub
        out.append((cols, y, w))
    # The loss is scaled by the largest precision: Adam does not mind, and
    # the numbers stay of order 1.
    top = max(float(np.max(w)) for _, _, w in out)
    return [(cols, y, w / top) for cols, y, w in out]
