"""The two selections of :class:`PrivateParameterSearch` that read private rows.

* ``random_stopping``: Liu & Talwar's Algorithm 2 on a secret training /
  validation split (``_selection.py``);
* ``exponential``: every candidate fitted once on all the private rows, then
  the exponential mechanism on its count of correctly classified private rows.

Each returns ``(index, score, estimator)``: the winner's index, its released
score (NaN when none is released) and the winner, fitted. ``make(params)``
builds a silent candidate whose ledgers are cleared (the search has paid).
"""

# SPDX-License-Identifier: BSD-3-Clause

import os

import numpy as np
from joblib import Parallel, delayed

from ..accounting import PrivacyCost, compose_basic
from ..accounting._reservation import replace_one_cost
from ..mechanisms import LaplaceMechanism, exponential_mechanism
from ..utils._private_predict import count_correct
from ..utils._rng import noise_rng
from ..utils._sklearn_compat import _safe_indexing
from ._candidates import fit_and_count, fit_hidden, fit_only
from ._selection import random_stopping_cost, random_stopping_number_of_runs

__all__ = [
    "check_split_size",
    "fit_exponential",
    "fit_random_stopping",
    "random_stopping_total",
    "search_cost",
    "validation_size",
]


def validation_size(n_samples, validation_fraction):
    """Rows in random stopping's validation part: public, from ``n`` alone.

    At least 1 and at most ``n - 1``, so both parts hold a row.
    """
    return min(max(1, round(validation_fraction * n_samples)), n_samples - 1)


def check_split_size(n_samples):
    """Random stopping's two parts each need a row."""
    if n_samples < 2:
        raise ValueError(
            "Random stopping splits the private rows into training and "
            "validation parts and needs at least 2 rows."
        )


def random_stopping_total(costs, n_samples, score_epsilon, *, refit):
    """Liu & Talwar's total, plus the refit; all from public quantities.

    ``n_samples`` (None when not known yet) is only checked: both parts need
    a row.

    Returns the total and the score's epsilon (``score_epsilon``, or the
    largest candidate epsilon when None).
    """
    if n_samples is not None:
        check_split_size(n_samples)
    if any(c.delta > 0 for c in costs):
        raise ValueError(
            "Random stopping needs pure-DP candidates (delta=0); some "
            "candidates cost delta > 0. Use selection='exponential', or "
            "selection='public' with public labeled rows."
        )
    fit_epsilon = max(c.epsilon for c in costs)
    score_epsilon = fit_epsilon if score_epsilon is None else float(score_epsilon)
    # Parallel composition over the disjoint split: a run is
    # max(eps_fit, eps_score)-DP; random stopping triples it (Thm 3.4).
    total = random_stopping_cost(PrivacyCost(max(fit_epsilon, score_epsilon)))
    if refit:
        total = compose_basic([total, PrivacyCost(fit_epsilon)])
    return total, score_epsilon


def search_cost(selection, costs, relations, n_samples, score_epsilon, *, refit):
    """The search's whole cost and the neighbour relation it holds for.

    ``costs`` are the candidates' stated costs, ``relations`` the relations
    they hold for (:func:`~sklearn_semiprivate.accounting._reservation.
    fit_neighbours`: ``"both"``, ``"add/remove"``, ``"replace-one"`` or None
    when unknown). A candidate's replace-one cost is its stated cost when that
    holds for replace-one, else its group-privacy conversion
    (:func:`~sklearn_semiprivate.accounting._reservation.replace_one_cost`,
    valid whatever the relation).

    * Public and exponential selection hold for whichever relation every
      candidate holds for: the fits compose (basic composition), the public
      score is post-processing, and given the released fits one row added,
      removed or replaced changes each candidate's count of correct
      predictions by at most 1 (the exponential mechanism's
      ``exp(score_epsilon * count / 2)`` is ``score_epsilon``-DP either way).
      So: ``"both"`` when every candidate holds for both; ``"add/remove"``
      when every one holds for add/remove, the replace-one total returned
      too; else ``"replace-one"`` with every candidate's replace-one cost.
    * Random stopping splits the private rows into parts of sizes fixed by
      ``n``, so it holds for replace-one only (adding a row would move
      another across the split): its runs use the replace-one costs.

    Returns
    -------
    total : PrivacyCost
        What the search reserves (``privacy_spent_``).
    relation : {"both", "add/remove", "replace-one"}
        The neighbours ``total`` holds for.
    replace_one : PrivacyCost or None
        The replace-one cost when ``relation`` is ``"add/remove"``.
    score_epsilon : float or None
        The selection's epsilon (None for public selection).

    Examples
    --------
    >>> from sklearn_semiprivate.accounting import PrivacyCost
    >>> from sklearn_semiprivate.model_selection._private_fits import search_cost
    >>> total, relation, replace_one, _ = search_cost(
    ...     "exponential", [PrivacyCost(1.0)], ["add/remove"], 100, 0.1,
    ...     refit=True)
    >>> total, relation, replace_one
    (PrivacyCost(epsilon=1.1, delta=0.0), 'add/remove', \
PrivacyCost(epsilon=2.1, delta=0.0))
    """
    if "restricted" in relations:
        raise ValueError(
            "A candidate's guarantee covers only a restricted neighbour relation "
            "(LabelBoostClassifier: a labeled row replaced by a labeled one), "
            "from which no guarantee of the search follows: search over its "
            "parameters with GridSearchCV on public labeled rows, or fit it "
            "directly."
        )
    replace_one = [
        c if r in ("both", "replace-one") else replace_one_cost(c)
        for c, r in zip(costs, relations, strict=True)
    ]
    if selection == "random_stopping":
        total, score_epsilon = random_stopping_total(
            replace_one, n_samples, score_epsilon, refit=refit
        )
        return total, "replace-one", None, score_epsilon
    extra = []
    if selection == "exponential":
        if score_epsilon is None:
            score_epsilon = 0.1 * sum(c.epsilon for c in costs)
        extra = [PrivacyCost(float(score_epsilon))]
    else:
        score_epsilon = None
    if all(r == "both" for r in relations):
        return compose_basic([*costs, *extra]), "both", None, score_epsilon
    replace_total = compose_basic([*replace_one, *extra])
    if all(r in ("both", "add/remove") for r in relations):
        total = compose_basic([*costs, *extra])
        return total, "add/remove", replace_total, score_epsilon
    return replace_total, "replace-one", None, score_epsilon


def fit_random_stopping(
    make,
    candidates,
    X,
    y,
    fit_params,
    *,
    score_epsilon,
    validation_fraction,
    n_runs,
    refit,
    n_jobs,
    random_state,
    log,
):
    """Liu & Talwar's Algorithm 2 on a secret training/validation split."""
    rng = noise_rng(random_state)
    n = len(y)
    n_val = validation_size(n, validation_fraction)
    # Secret, data-independent split: a changed row is in exactly one part.
    perm = rng.permutation(n)
    val, train = perm[:n_val], perm[n_val:]
    X_tr, y_tr = _safe_indexing(X, train), y[train]
    X_val, y_val = _safe_indexing(X, val), y[val]
    expected = len(candidates) if n_runs is None else n_runs
    # Secret number of runs and secret candidates: neither is released.
    n_runs = random_stopping_number_of_runs(1.0 / expected, rng)
    picks = rng.integers(len(candidates), size=n_runs)
    log(
        f"random stopping: {expected:g} runs expected (the number is secret), "
        f"{n - n_val} training and {n_val} validation rows"
    )
    # Sensitivity 1 (replace-one): the model is fixed by the training part,
    # and one validation row changes the count of correct predictions by at
    # most 1.
    laplace = LaplaceMechanism(score_epsilon, sensitivity=1.0)
    best = (-np.inf, None, None)
    batch = max(2 * abs(n_jobs or 1), 8)
    pid = os.getpid()
    for start in range(0, n_runs, batch):
        chunk = picks[start : start + batch]
        results = Parallel(n_jobs=n_jobs)(
            delayed(fit_and_count)(
                make(candidates[c]), X_tr, y_tr, X_val, y_val, fit_params, pid
            )
            for c in chunk
        )
        if any(r is None for r in results):
            _raise_hidden_failure()
        for c, (est, correct) in zip(chunk, results):
            noisy = laplace.sample(float(correct), random_state=rng)
            if noisy > best[0]:
                best = (noisy, int(c), est)
    noisy_count, index, winner = best
    score = float(np.clip(noisy_count / n_val, 0.0, 1.0))
    if refit:
        log("refitting the winner on all private rows")
        # The winner is secret, and whether its refit fails depends on the
        # rows its runs did not see (e.g. the validation part): hidden too.
        winner = fit_hidden(make(candidates[index]), X, y, fit_params, pid)
        if winner is None:
            _raise_hidden_failure()
    return index, score, winner


def _raise_hidden_failure():
    # Which run failed, and why, depends on the secret runs, the secret split
    # and the private rows: neither the candidate nor the error is shown (the
    # charge stays, as for any fit failing after its reservation).
    raise RuntimeError(
        "A run of the private selection failed after the search's "
        "budget was charged. Its candidate and error are not shown: "
        "they depend on the secret runs and the private rows. Fit "
        "the candidates one by one on data you may inspect to find "
        "which cannot take it."
    ) from None


def correct_counts(estimators, X, y):
    """Each fitted estimator's number of correctly classified rows of ``(X, y)``.

    The score of the exponential selection: for fixed (released) models, one
    replaced row changes every count by at most 1 (sensitivity 1).
    """
    return np.array([count_correct(est, X, y) for est in estimators], float)


def fit_exponential(
    make, candidates, X, y, fit_params, *, score_epsilon, n_jobs, random_state, log
):
    """Fit every candidate on all the private rows; select by the exponential mechanism.

    The fits are released (each charged; basic composition). Given them, the
    score of candidate ``i`` is its count of correctly classified private rows,
    of sensitivity 1 under replace-one neighbours, and the exponential
    mechanism at ``score_epsilon`` (McSherry & Talwar 2007, Thm 6: ``P(i) ∝
    exp(score_epsilon · count_i / 2)``) is ``score_epsilon``-DP; adaptive
    composition adds it to the fits' costs. The counts are not released.
    """
    log(f"fitting {len(candidates)} candidates on the private rows")
    pid = os.getpid()
    fitted = Parallel(n_jobs=n_jobs)(
        delayed(fit_only)(make(params), X, y, fit_params, pid) for params in candidates
    )
    counts = correct_counts(fitted, X, y)
    # Exponential mechanism, sensitivity 1 (replace-one): score_epsilon-DP.
    index = exponential_mechanism(
        counts, score_epsilon, sensitivity=1.0, random_state=noise_rng(random_state)
    )
    return int(index), float("nan"), fitted[index]
