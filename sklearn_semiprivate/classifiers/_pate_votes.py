"""PATE's vote tables and their noise: where private rows become a release.

:func:`teacher_votes` (teachers on disjoint parts of the private rows) and
:func:`local_votes` (one-row teachers voting for their nearest query, used
without public data) build the ``(n_queries, n_classes)`` vote table;
:func:`noisy_votes` releases it with noise calibrated by :func:`gnmax_sigma`
or :func:`lnmax_scale` to the table's sensitivity, stated next to each.
:func:`dry_run` checks a teacher or student on placeholder public rows first.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
import os

import numpy as np
from joblib import Parallel, delayed
from scipy.stats import chi2, norm
from sklearn.base import clone
from sklearn.neighbors import NearestNeighbors

from ..accounting import rdp_gaussian_sigma
from ..mechanisms import analytic_gaussian_sigma
from ..mechanisms._additive import laplace_scale
from ..utils._blas import single_threaded_blas
from ..utils._nested_fit import (
    dropped_warnings,
    quiet,
    seed_unset_random_states,
    silenced_in_worker,
)
from ..utils._private_reads import reads_not_leaks

__all__ = [
    "dry_run",
    "gnmax_sigma",
    "lnmax_scale",
    "local_votes",
    "noisy_votes",
    "teacher_votes",
    "votes_vary",
]


def gnmax_sigma(epsilon, delta, n_queries):
    """Gaussian noise of GNMax answering ``n_queries`` queries at ``(ε, δ)``.

    One private row lives in one teacher's partition, so it changes that
    teacher's vote on every query: per query at most one vote moves (or
    appears, or disappears, for a teacher that abstains: without rows, or
    failing on its rows; see :func:`teacher_votes`), i.e. at most two counts
    change by 1, L2 sensitivity ``sqrt(2)`` per query and
    ``sqrt(2 Q)`` for the ``Q`` vote histograms together. Two valid
    calibrations; the smaller ``σ`` is returned:

    * the exact privacy profile of the Gaussian mechanism on the concatenated
      histograms (Balle & Wang 2018), whose ``Q`` parts compose exactly;
    * the paper's RDP bound ``α / σ²`` per query (Papernot et al. 2018,
      Prop. 8) composed over ``Q`` queries and converted with Canonne, Kamath &
      Steinke (2020, Prop. 12).

    The first is never larger (it is exact for the histograms, of which the
    released arg max is post-processing); the second is the paper's.
    """
    sensitivity = math.sqrt(2.0)
    sigmas, error = [], None
    for calibrate in (
        lambda: analytic_gaussian_sigma(
            epsilon, delta, sensitivity * math.sqrt(n_queries)
        ),
        lambda: rdp_gaussian_sigma(
            epsilon, delta, n_compositions=n_queries, sensitivity=sensitivity
        ),
    ):
        # Either may refuse (e.g. the RDP orders cannot certify a delta of
        # 1e-170 at epsilon = 1e-3); the other is valid on its own.
        try:
            sigmas.append(calibrate())
        except ValueError as refusal:
            error = refusal
    if not sigmas:
        raise error
    return min(sigmas)


def lnmax_scale(epsilon, n_queries):
    """Laplace scale of LNMax answering ``n_queries`` queries at pure ``ε``.

    One private row moves one vote per query: L1 sensitivity 2 per histogram
    and ``2 Q`` for the ``Q`` histograms together, so ``Lap(2 Q / ε)`` on every
    count is ``ε``-DP (each query is ``2 / b``-DP: ``2 γ`` with ``γ = 1 / b`` in
    Papernot et al. 2017; ``Q`` of them compose to ``ε``).
    """
    return laplace_scale(2.0 * n_queries, epsilon)


def teacher_votes(
    teacher, X, y, X_query, classes, assignment, n_teachers, *, seeds, n_jobs=None
):
    """Vote histogram of the teachers on the query rows, shape ``(Q, n_classes)``.

    Teacher ``t`` is a clone of ``teacher`` fitted on the rows with
    ``assignment == t``, its ``random_state`` parameters that are None (nested
    ones too) seeded from ``seeds[t]`` alone. A teacher without rows abstains;
    one whose rows hold a single class votes that class on every query
    (without fitting); the others vote their prediction, and one whose fit or
    predict raises, or whose prediction is not one label of ``classes`` per
    query, abstains on every query, silently: whether it fails depends on its
    own rows, and its error message could quote them (a partition's size).
    Whatever a teacher does depends on its own rows and its own seed only, so
    one private row changes at most one teacher's votes. Warnings raised while
    teachers fit (e.g. a ``ConvergenceWarning``) depend on private rows and
    are dropped (:func:`~sklearn_semiprivate.utils._nested_fit.dropped_warnings`).

    ``seeds`` (shape ``(n_teachers,)``) must be drawn independently of the
    private rows (secret noise: they fix the randomness of fits on private
    rows). Without them a teacher left at ``random_state=None`` would draw
    from numpy's global generator, and how many draws it takes depends on its
    rows: one row would shift the randomness of every later teacher.

    ``n_jobs`` fits the teachers in parallel through joblib (any backend,
    e.g. Dask's): each teacher's votes depend on its rows and seed alone, so
    the table is the same for every ``n_jobs`` and backend. Workers drop
    their warnings
    (:func:`~sklearn_semiprivate.utils._nested_fit.silenced_in_worker`).
    """
    n_classes = classes.size
    n_queries = X_query.shape[0]
    codes = np.searchsorted(classes, y)
    # counts[t, c]: rows of class c in teacher t's partition, in one bincount.
    counts = np.bincount(
        assignment * n_classes + codes, minlength=n_teachers * n_classes
    ).reshape(n_teachers, n_classes)
    n_present = np.count_nonzero(counts, axis=1)
    constant = counts[n_present == 1].argmax(axis=1)
    votes = np.zeros((n_queries, n_classes), dtype=np.int64)
    votes += np.bincount(constant, minlength=n_classes)
    order = np.argsort(assignment, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts.sum(axis=1))])
    queries = np.arange(n_queries)
    # Many small fits: BLAS threads cost more CPU than they save (4x in the
    # gallery example), so they are limited to one here (inside the lock of
    # dropped_warnings, so concurrent fits do not race on that global either).
    parts = [order[starts[t] : starts[t + 1]] for t in range(n_teachers)]
    trained = np.flatnonzero(n_present >= 2)
    with dropped_warnings(), single_threaded_blas():
        if n_jobs in (None, 1):
            predictions = (
                _teacher_prediction(
                    teacher, X[parts[t]], y[parts[t]], X_query, classes, seeds[t]
                )
                for t in trained
            )
        else:
            pid = os.getpid()
            predictions = Parallel(n_jobs=n_jobs)(
                delayed(_worker_prediction)(
                    teacher, X[parts[t]], y[parts[t]], X_query, classes, seeds[t], pid
                )
                for t in trained
            )
        for predicted in predictions:
            if predicted is not None:
                votes[queries, predicted] += 1
    return votes


def _worker_prediction(teacher, X, y, X_query, classes, seed, parent_pid):
    """:func:`_teacher_prediction` in a joblib worker, warnings dropped."""
    with (
        silenced_in_worker(parent_pid),
        single_threaded_blas(),
    ):
        return _teacher_prediction(teacher, X, y, X_query, classes, seed)


def _teacher_prediction(teacher, X, y, X_query, classes, seed):
    """Class codes one teacher votes on the queries, or None: it abstains.

    Any failure abstains, without a message: it is a function of this
    teacher's rows (and seed) only, so it changes this teacher's votes only,
    which the sensitivity already allows (a vote disappears).
    """
    try:
        # Quiet: a teacher's progress output (its partition's size, its
        # loss) would be a release without noise.
        model = quiet(seed_unset_random_states(clone(teacher), seed))
        # Not a leak if it reads a value off its part (its box, its label
        # set): the part reaches the output only through the noisy votes.
        with reads_not_leaks():
            predicted = np.asarray(model.fit(X, y).predict(X_query))
        if predicted.shape != (X_query.shape[0],):
            return None
        codes = np.searchsorted(classes, predicted)
        if (codes >= classes.size).any() or (classes[codes] != predicted).any():
            return None
    except Exception:
        return None
    return codes


def local_votes(X, y, X_query, classes, bounds):
    """Vote table of one-row teachers voting only for their nearest query point.

    Used without public data. Distances are measured after scaling every
    feature by the width of ``bounds``. Each private row adds one vote, for
    its label, to its nearest query: adding or removing a row changes one
    count by 1, replacing one changes at most two counts by 1 (L1 sensitivity
    2, L2 ``sqrt(2)``), whatever the number of queries.
    """
    width = bounds[:, 1] - bounds[:, 0]
    nearest = NearestNeighbors(n_neighbors=1).fit(X_query / width)
    # Rows are clipped into the box first, each on its own: a huge (finite)
    # private value would overflow the scaling and make the fit raise on this
    # dataset and not on its neighbour.
    inside = np.clip(X, bounds[:, 0], bounds[:, 1])
    cell = nearest.kneighbors(inside / width, return_distance=False)[:, 0]
    n_classes = classes.size
    flat = cell * n_classes + np.searchsorted(classes, y)
    return np.bincount(flat, minlength=X_query.shape[0] * n_classes).reshape(
        X_query.shape[0], n_classes
    )


def noisy_votes(votes, noise, scale, rng):
    """The release: ``votes`` plus iid Gaussian or Laplace noise on every count.

    ``scale`` (``σ``, or ``b`` of the Laplace) must be calibrated to the vote
    table's sensitivity: :func:`gnmax_sigma` and :func:`lnmax_scale` for
    teachers' votes; ``2 / epsilon`` for local votes.
    """
    if noise == "gaussian":
        return votes + rng.normal(scale=scale, size=votes.shape)
    return votes + rng.laplace(scale=scale, size=votes.shape)


def votes_vary(noisy, noise, noise_sd, level):
    """Whether the noisy votes vary over the queries more than noise explains.

    Post-processing of the release. Under the hypothesis that the teachers
    vote the same on every query (e.g. more teachers than private rows, each
    voting its one label), ``T = Σ_qc (h_qc - mean_q h_qc)² / s²`` is
    ``χ²`` with ``n_classes (Q - 1)`` degrees of freedom for Gaussian noise of
    standard deviation ``s``; for Laplace noise its mean is the same and its
    variance 5/2 times larger (fourth moment ``6 s⁴``), and a normal
    approximation is used. Returns True when that hypothesis is rejected at
    ``level`` (or cannot be tested: one query).
    """
    n_queries, n_classes = noisy.shape
    df = n_classes * (n_queries - 1)
    if df == 0:
        return True
    # Scaled first: noise_sd**2 overflowed from noise_sd ~ 1e154 (epsilon near
    # 1e-300, a mutation review), and the mean of the Laplace votes from
    # epsilon ~ 1e-305 (a review); both after the charge.
    z = noisy / noise_sd
    stat = float(((z - z.mean(axis=0)) ** 2).sum())
    if noise == "gaussian":
        return stat > chi2.ppf(1.0 - level, df)
    return stat > df + norm.ppf(1.0 - level) * math.sqrt(5.0 * df)


def dry_run(estimator, name, n_features, classes, rows_per_class=10):
    """Fit and predict ``estimator`` on placeholder rows, before the charge.

    Catches a misconfigured teacher or student (bad parameters, no ``predict``)
    while nothing private has been read and nothing is spent. The rows are
    public constants: row ``i`` has every feature equal to its class code.
    """
    codes = np.arange(rows_per_class * classes.size) % classes.size
    X_dry = np.repeat(codes[:, None].astype(np.float64), n_features, axis=1)
    try:
        # Public rows; dropped_warnings only so as not to race on the global
        # filters with a concurrent teacher_votes.
        with dropped_warnings(), reads_not_leaks():
            clone(estimator).fit(X_dry, classes[codes]).predict(X_dry)
    except Exception as exc:
        raise ValueError(
            f"The {name} {type(estimator).__name__} failed a dry run on "
            f"placeholder public data (before any private read): {exc}"
        ) from exc
