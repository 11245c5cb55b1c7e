"""Adaptive whole-marginal measurements, fitted by a graphical model or a mixture.

``support="graphical"`` and ``support="mixture"`` of
:class:`PublicAssistedQueryRelease`, for :class:`MarginalQueries` workloads.
The rounds are those of AIM (McKenna, Mullins, Sheldon & Miklau 2022, Alg. 2)
for both, with a round budget per estimator (``ROUNDS_PER_COLUMN``); the
estimator differs (post-processing):

* ``"graphical"``: a junction-tree graphical model (:mod:`._graphical`, the
  estimator of Private-PGM and AIM), its base measure a pair model of the
  public rows (:func:`public_base`); candidates that would grow it past
  ``MAX_MODEL_CELLS`` are not selectable (AIM's model-size filter).
* ``"mixture"``: a relaxed synthetic dataset started at the public rows
  (:mod:`._mixture`).

The steps (the round budget, the mixture's start and the model's base are the
only differences):

1. (Public.) Candidates: every column set of at most 3 columns inside a column
   set of the workload, weighted by ``w_c = sum_S |c ∩ S|`` over the
   workload's sets ``S``. The zCDP budget ``ρ`` of ``(epsilon, delta)``; the
   round budget ``T`` (AIM's ``16 d`` at ``epsilon >= 1`` for the mixture,
   ``8 d`` for the graphical model, fewer below). The public marginals of
   every candidate. The mixture starts at the distinct
   public rows, weighted by their counts, each softened by
   :func:`starting_smoothing` of ``epsilon``; the graphical model at its
   public base measure.
2. Every 1-way marginal of counts is measured by the Gaussian mechanism at
   ``σ = sqrt(T / (2 · 0.9 ρ))``.
3. Each round: the exponential mechanism at ``ε_sel = sqrt(8 · 0.1 ρ / T)``
   selects a candidate by AIM's score
   ``w_c (||x_c - N̂ p_c||_1 - sqrt(2/π) σ |cells of c|)`` (``x_c`` the private
   counts, ``p_c`` the mixture's marginal, ``N̂`` the row count estimated from
   the noisy totals), the Gaussian mechanism measures its marginal at ``σ``,
   and the estimate is refitted (a few Adam steps with fresh moments, or
   mirror-descent steps) to every measurement, each combined cell by cell with
   the public marginal (inverse variance, the public one's variance its
   sampling variance plus an empirical-Bayes estimate of its bias, so a shifted
   public marginal counts for little).
   When the measurement lies within ``1.2`` times its expected noise (in L1)
   of the estimate it was selected on, ``σ`` halves and ``ε_sel`` doubles
   (AIM tests how far the refit moved instead; with the public prior the
   refit moves little, and that test halved ``σ`` too early). When less than
   two rounds' budget is left, the last round spends all of it.
4. A final fit (:data:`STEPS_FINAL`: longer for the mixture, shorter for the
   graphical model, whose longer fits follow the noise).

**Privacy** (add/remove neighbours: one private row added or removed; the
number of rows is private). A row lies in one cell of every marginal, so the
counts of one column set move by 1 in one cell: L2 sensitivity 1, and a
Gaussian measurement at ``σ`` is ``1 / (2 σ²)``-zCDP (Bun & Steinke 2016,
Prop. 1.6). AIM's score moves by at most ``w_c`` (the L1 distance of the
counts moves by at most 1): the exponential mechanism at ``ε_sel`` with
sensitivity ``max_c w_c`` is ``ε_sel``-DP and, having bounded range,
``ε_sel² / 8``-zCDP (Cesar & Rogers 2021). Rounds compose adaptively; the
total is at most ``ρ`` by construction and converts to ``(ε, δ)`` through the
Rényi curve ``α ρ`` (:func:`~sklearn_semiprivate.accounting.rdp_to_dp`,
Canonne, Kamath & Steinke 2020). Replacing a row is removing one and adding
another: the counts move by ``sqrt(2)`` in L2 and the score by ``2 w_c``, so
the same run is ``(2 ρ_meas + 4 ρ_sel)``-zCDP for replace-one neighbours.
Everything else (``N̂``, the fits, the annealing test) reads released values
and public data only.

The tuned constants are in ``_adaptive_settings.py`` and the building blocks
of the rounds (candidates, cell counts, the Gaussian measurement and the
zCDP of a run, the fit's targets) in ``_adaptive_steps.py``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np

from ..accounting import rdp_to_dp
from ..accounting._rdp import DEFAULT_RDP_ORDERS
from ..mechanisms import exponential_mechanism
from ..utils._blas import single_threaded_blas
from ..utils._rng import check_rng
from ..utils._validation import check_delta, check_epsilon
from ._adaptive_settings import (
    ANNEAL_FACTOR,
    ANNEAL_ON,
    BASE_MODEL_CELLS,
    BASE_STEPS,
    BASE_TEMPER,
    LEARNING_RATE,
    MAX_MODEL_CELLS,
    MEASUREMENT_SHARE,
    MIN_COMPONENTS,
    MIN_ROUNDS_PER_COLUMN,
    PUBLIC_BASE,
    PUBLIC_PRIOR,
    ROUNDS_PER_COLUMN,
    SMOOTHING_HIGH,
    SMOOTHING_LOW,
    STEPS_FINAL,
    STEPS_ROUND,
    STEPS_START,
)
from ._adaptive_steps import (
    _codes,
    _counts,
    _estimated_total,
    _fit_inputs,
    adaptive_zcdp,
    candidate_cliques,
    gaussian_counts,
)
from ._graphical import GraphicalModel, public_base
from ._mixture import ProductMixture

__all__ = [
    "fit_mixture",
    "mixture_answers",
    "plan_mixture",
    "zcdp_budget",
    "zcdp_privacy",
]


def zcdp_privacy(rho, delta, *, orders=None):
    """``(ε, δ)`` of a ``ρ``-zCDP release: the Rényi curve ``α ρ``, converted.

    Parameters
    ----------
    rho : float
        zCDP parameter, ``>= 0``.
    delta : float
        Target ``δ`` in ``(0, 1)``.
    orders : array-like, default=None
        Rényi orders; None is the package's default grid.

    Returns
    -------
    cost : PrivacyCost

    Examples
    --------
    >>> from sklearn_semiprivate.query_release._adaptive import zcdp_privacy
    >>> round(zcdp_privacy(0.02, 1e-6).epsilon, 4)
    0.8999
    """
    grid = DEFAULT_RDP_ORDERS if orders is None else np.asarray(orders, float)
    return rdp_to_dp(float(rho) * grid, delta, orders=grid)


def zcdp_budget(epsilon, delta):
    """Largest ``ρ`` whose :func:`zcdp_privacy` is at most ``(epsilon, delta)``.

    Bisection on ``log ρ``: ``zcdp_privacy(ρ, δ).epsilon`` is non-decreasing
    in ``ρ`` (every order's conversion is), so the feasible ``ρ`` form an
    interval ``(0, ρ*]``; the search keeps a feasible lower end and stops when
    the bracket is within a relative ``1e-13``. It works at every scale of
    ``ρ`` (an absolute tolerance had stopped above the root for ``ρ`` below
    about ``1e-9``, and stepping back down by one ulp at a time then took
    billions of steps).

    Parameters
    ----------
    epsilon : float
        Target ``ε > 0``.
    delta : float
        Target ``δ`` in ``(0, 1)``.

    Returns
    -------
    rho : float
        ``> 0``; ``zcdp_privacy(rho, delta).epsilon <= epsilon``.

    Raises
    ------
    ValueError
        When no positive ``ρ`` representable in floating point meets the
        target (``epsilon`` far too small for ``delta``).

    Examples
    --------
    >>> from sklearn_semiprivate.query_release._adaptive import (
    ...     zcdp_budget, zcdp_privacy)
    >>> rho = zcdp_budget(1.0, 1e-6)
    >>> bool(0.999 < zcdp_privacy(rho, 1e-6).epsilon <= 1.0)
    True
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    # A rho feasible at a smaller epsilon is feasible at epsilon: beyond 1e6
    # the search targets 1e6 (a review: at epsilon = 1e305 the RDP curve of
    # the first candidate overflowed, "rdp must be finite").
    target = min(epsilon, 1e6)

    def feasible(rho):
        return zcdp_privacy(rho, delta).epsilon <= target

    hi = target
    while feasible(hi):
        hi *= 2.0
    lo = hi
    while not feasible(lo):
        lo *= 0.5
        if lo == 0.0:
            raise ValueError(
                f"epsilon={epsilon!r} is too small for delta={delta!r}: no "
                "positive zCDP budget converts to it. Use a larger epsilon."
            )
    hi = 2.0 * lo  # the last infeasible point: lo was halved from it
    for _ in range(200):
        if hi / lo - 1.0 <= 1e-13:
            break
        mid = math.sqrt(lo) * math.sqrt(hi)  # geometric midpoint, no overflow
        if not lo < mid < hi:
            break
        if feasible(mid):
            lo = mid
        else:
            hi = mid
    return lo


def starting_smoothing(epsilon):
    """Softness of the starting public rows at ``epsilon`` (a parameter: public).

    ``SMOOTHING_LOW`` at ``epsilon <= 0.1``, ``SMOOTHING_HIGH`` at
    ``epsilon >= 1``, linear in ``log10(epsilon)`` between.
    """
    t = min(max(math.log10(float(epsilon)) + 1.0, 0.0), 1.0)
    return SMOOTHING_LOW + t * (SMOOTHING_HIGH - SMOOTHING_LOW)


def plan_mixture(
    query_set,
    rows,
    row_weights,
    *,
    epsilon,
    delta,
    n_rounds,
    random_state,
    estimator="mixture",
):
    """The public part: candidates, budget, round schedule, starting model.

    Reads parameters and public rows only (``rows``: the distinct public
    points, in the workload's domain; ``row_weights``: their multiplicities).
    ``random_state`` seeds the jitter of copied public rows (public).
    ``estimator``: ``"mixture"`` (:class:`ProductMixture` started at the
    public rows) or ``"graphical"`` (:class:`GraphicalModel`, started at its
    base measure, the public pair model of :func:`public_base`; the public
    marginals are also combined with every measurement).
    """
    subsets = query_set.subsets[np.unique(query_set.query_subset)]
    cards = query_set.n_categories
    rows = np.asarray(rows).astype(np.intp)
    rng = check_rng(random_state)
    cliques, weights = candidate_cliques(subsets)
    rho = zcdp_budget(epsilon, delta)
    d = sum(len(c) == 1 for c in cliques)
    if n_rounds is None:
        scaled = ROUNDS_PER_COLUMN[estimator] * math.sqrt(min(float(epsilon), 1.0))
        n_rounds = round(d * max(scaled, MIN_ROUNDS_PER_COLUMN[estimator]))
    # At least d + 1, so that the 1-way measurements leave a round's budget.
    t = max(int(n_rounds), d + 1)
    n_copies = max(1, -(-MIN_COMPONENTS // rows.shape[0]))
    # The public marginals of every candidate, and the public row count: the
    # prior of the fit (public).
    row_weights = np.asarray(row_weights, dtype=np.float64)
    public = {
        c: np.bincount(
            _codes(rows, c, cards),
            weights=row_weights,
            minlength=int(np.prod(np.asarray(cards)[list(c)])),
        )
        / row_weights.sum()
        for c in cliques
    }
    if estimator == "graphical":
        base = None
        if PUBLIC_BASE:
            base = public_base(
                public,
                cards,
                row_weights.sum(),
                cap=min(BASE_MODEL_CELLS, MAX_MODEL_CELLS),  # the rounds' cap holds it
                steps=BASE_STEPS,
                temper=BASE_TEMPER,
            )
        model = GraphicalModel(cards, base=base)
    else:
        model = ProductMixture.from_rows(
            rows,
            row_weights,
            cards,
            smoothing=starting_smoothing(epsilon),
            n_copies=n_copies,
            rng=rng,
        )
    return {
        "estimator": estimator,
        "cliques": cliques,
        "weights": weights,
        "cards": np.asarray(cards, dtype=np.int64),
        "rho": rho,
        "n_rounds": t,
        "mixture": model,
        "public": public,
        "n_public": float(row_weights.sum()),
        "delta": delta,
        # Reserved before the first private read: the whole budget.
        "cost": zcdp_privacy(rho, delta),
    }


def _holds(model, clique):
    """Whether the model can take ``clique`` within :data:`MAX_MODEL_CELLS`.

    A mixture takes every candidate; a graphical model one already inside a
    clique, or one whose junction tree would stay within the cap (AIM's
    model-size filter). Reads the model's structure only: a function of the
    public base and of released selections (post-processing).
    """
    if not isinstance(model, GraphicalModel) or model.contains(clique):
        return True
    return model.model_size([clique]) <= MAX_MODEL_CELLS


def select_candidate(scores, eps_sel, sensitivity, model, cliques, rng):
    """The exponential mechanism over the candidates the model can hold.

    Its output is distributed exactly as the exponential mechanism whose base
    measure is ``-inf`` on every candidate the model cannot hold (``eps_sel``
    -DP at score sensitivity ``sensitivity``, the excluded set a function of
    released structure): a draw of the mechanism restricted to a superset of
    the allowed candidates, conditioned on being allowed, is the mechanism
    restricted to them. So draws are rejected and excluded until one is
    allowed, and only the drawn candidates are checked (a check rebuilds the
    junction tree; checking all of them every round dominated the fit with
    20-30 columns). Rejected draws are not released; their number (and so
    the fit's time) depends on the private scores, a timing side channel
    outside the guarantee (docs/limitations.rst).
    """
    base = np.zeros(len(cliques))
    while True:
        pick = exponential_mechanism(
            scores,
            eps_sel,
            sensitivity=sensitivity,
            log_base_measure=base,
            random_state=rng,
        )
        if _holds(model, cliques[pick]):
            return pick
        base[pick] = -np.inf


def run_adaptive(plan, X, rng):
    """Measure, select and fit on the private rows ``X`` (integer codes).

    ``rng`` is the secret noise generator. Returns the fitted attributes.
    """
    cards, cliques, weights = plan["cards"], plan["cliques"], plan["weights"]
    rho, t = plan["rho"], plan["n_rounds"]
    mixture = plan["mixture"]
    X = X.astype(np.int64)
    # The private counts of every candidate. Read only by the Gaussian
    # measurements (L2 sensitivity 1 each) and by the exponential mechanism's
    # scores (sensitivity max_c w_c), below.
    counts = {c: _counts(X, c, cards) for c in cliques}
    cells = np.array([counts[c].size for c in cliques], dtype=np.float64)
    sensitivity = float(weights.max())
    sigma = math.sqrt(t / (2.0 * MEASUREMENT_SHARE * rho))
    eps_sel = math.sqrt(8.0 * (1.0 - MEASUREMENT_SHARE) * rho / t)
    measurements, sigmas, sel_eps, selected = [], [], [], []
    for c in cliques:
        if len(c) == 1:
            noisy = gaussian_counts(counts[c], sigma, rng)
            measurements.append((c, noisy, sigma))
            sigmas.append(sigma)
    total = _estimated_total(measurements)

    def targets():
        return _fit_inputs(
            measurements, total, plan["public"], plan["n_public"], PUBLIC_PRIOR
        )

    state = mixture.fit(targets(), STEPS_START, LEARNING_RATE)
    used = adaptive_zcdp(sigmas, sel_eps)
    terminate = False
    while not terminate:
        round_cost = 1.0 / (2.0 * sigma**2) + eps_sel**2 / 8.0
        if rho - used < 2.0 * round_cost:
            # A hair under the remainder, so rounding never exceeds rho.
            remaining = max(rho - used, 0.0) * (1.0 - 1e-9)
            sigma = math.sqrt(1.0 / (2.0 * MEASUREMENT_SHARE * remaining))
            eps_sel = math.sqrt(8.0 * (1.0 - MEASUREMENT_SHARE) * remaining)
            terminate = True
        model = mixture.all_marginals(cliques)
        scores = np.array([np.abs(counts[c] - total * model[c]).sum() for c in cliques])
        scores = weights * (scores - math.sqrt(2.0 / math.pi) * sigma * cells)
        # Exponential mechanism, ε_sel-DP with score sensitivity max_c w_c
        # (add/remove): ε_sel²/8-zCDP (bounded range).
        pick = select_candidate(scores, eps_sel, sensitivity, mixture, cliques, rng)
        c = cliques[pick]
        noisy = gaussian_counts(counts[c], sigma, rng)
        measurements.append((c, noisy, sigma))
        sigmas.append(sigma)
        sel_eps.append(eps_sel)
        selected.append(c)
        used = adaptive_zcdp(sigmas, sel_eps)
        total = _estimated_total(measurements)
        before = model[c]
        # Fresh Adam moments every round: warm ones, scaled by the large
        # gradients of the first steps, made the steps toward the new
        # measurement tiny, so the estimate stayed far from it and the same
        # marginal was selected again (GSSvocab, epsilon = 1: (4, 7) 13 times
        # in 45 rounds).
        state = mixture.fit(targets(), STEPS_ROUND, LEARNING_RATE)
        if ANNEAL_ON == "measurement":
            # The measurement is within its expected noise of the estimate
            # it was selected against: it told little, so measure finer.
            moved = np.abs(noisy - total * before).sum()
        else:  # AIM: the refit moved the estimate less than the noise.
            moved = total * np.abs(mixture.marginal(c) - before).sum()
        if moved <= ANNEAL_FACTOR * math.sqrt(2.0 / math.pi) * sigma * before.size:
            sigma /= 2.0
            eps_sel *= 2.0
    mixture.fit(targets(), STEPS_FINAL[plan["estimator"]], LEARNING_RATE, state)
    rho_spent = adaptive_zcdp(sigmas, sel_eps)
    replace_one = adaptive_zcdp(sigmas, sel_eps, neighbours="replace-one")
    return {
        "graphical_model_" if plan["estimator"] == "graphical" else "mixture_": mixture,
        "measurements_": [(c, y, s) for c, y, s in measurements],
        "selected_": selected,
        "noise_scales_": np.array(sigmas),
        "selection_epsilons_": np.array(sel_eps),
        "n_rows_estimate_": total,
        "n_iterations_": len(selected),
        "n_updates_": len(selected),
        "rho_": rho_spent,
        "privacy_spent_": zcdp_privacy(rho_spent, plan["delta"]),
        "replace_one_privacy_": zcdp_privacy(replace_one, plan["delta"]),
    }


def fit_mixture(plan, query_set, X, rng):
    """Run the rounds on the private rows ``X``; the release's fitted attributes.

    BLAS runs single-threaded: the products are small, and threads only
    contend.
    """
    with single_threaded_blas():
        fitted = run_adaptive(plan, X, rng)
    fitted["cover_size_"] = query_set.n_queries
    return fitted


def mixture_answers(mixture, query_set):
    """Exact answers of a bound marginal workload on the mixture (post-processing)."""
    subsets = getattr(query_set, "subsets", None)
    if subsets is None or not hasattr(query_set, "query_value"):
        raise TypeError(
            "A support='mixture' release answers marginal queries only: pass a "
            "MarginalQueries workload."
        )
    if np.any(query_set.n_categories != mixture.n_categories):
        raise ValueError(
            "The workload's categories differ from those of the fitted release: "
            f"{query_set.n_categories.tolist()} != {mixture.n_categories.tolist()}."
        )
    used = np.unique(query_set.query_subset)
    sets = [tuple(int(c) for c in subsets[s]) for s in used]
    marginals = mixture.all_marginals(sets)
    table = np.zeros(int(query_set.offsets[-1] + query_set.cells[-1]))
    for s, cols in zip(used, sets):
        start = query_set.offsets[s]
        table[start : start + query_set.cells[s]] = marginals[cols]
    answers = table[query_set.offsets[query_set.query_subset] + query_set.query_value]
    return np.clip(answers, 0.0, 1.0)
