"""The search's candidates: their list, the one ledger, silent clones, the dry
run, and one run's work.

What a run may and may not do is decided here: a candidate is a clone whose
ledgers are cleared (the search has reserved for it) and whose progress output
is off (a line per run would count the secret runs); the dry run fits it up to
its reservation, against a ledger that stops it there; the workers report a
failed run without its cause.
"""

# SPDX-License-Identifier: BSD-3-Clause

import copy
import warnings

from sklearn.base import clone
from sklearn.model_selection import ParameterGrid, ParameterSampler

from .._public import open_classes
from ..accounting._reservation import (
    accountant_keys,
    fit_cost,
    fit_neighbours,
    fit_to_reservation,
    name_inner_ledgers,
)
from ..utils._nested_fit import quiet, silenced_in_worker
from ..utils._private_predict import count_correct
from ..utils._rng import check_rng, public_seed

__all__ = [
    "candidate",
    "candidate_list",
    "checked_cost",
    "describe",
    "dry_run",
    "fit_and_count",
    "fit_hidden",
    "fit_only",
    "is_sampled",
    "named_error",
    "open_classes",
    "restore_settings",
    "search_ledger",
]


def candidate(estimator, params, accountant, *, classes=None):
    """A silent clone with ``params`` set and every ledger set to ``accountant``.

    The parameter values are cloned too (as ``GridSearchCV`` does), so that
    runs never share a mutable hypothesis class or final estimator. Progress
    output is switched off: printed by the secret runs, it would count them.
    ``classes`` fills every open ``classes`` parameter (:func:`open_classes`).
    """
    est = clone(estimator).set_params(**clone(params, safe=False))
    quiet(est)
    updates = dict.fromkeys(accountant_keys(est), accountant)
    if classes is not None:
        updates.update(dict.fromkeys(open_classes(est), classes))
    est.set_params(**updates)
    return est


def restore_settings(fitted, estimator, params, ledger):
    """Give the fitted winner back what :func:`candidate` switched off.

    Its ``verbose`` and ``memory`` as the user set them, and the search's
    ledger in every ``accountant`` parameter: the fit is over (the search
    charged it once), and a clone of the winner refitted on private rows
    must charge that ledger, as the estimator the user gave would (a review:
    ``best_estimator_`` came back with no ledger, so its clones charged
    nothing), and so do the fitted estimators inside it, at every depth
    (:func:`~sklearn_semiprivate.accounting._reservation.name_inner_ledgers`).
    The fitted state is not touched otherwise.
    """
    given = clone(estimator).set_params(**clone(params, safe=False))
    settings = {
        key: value
        for key, value in given.get_params(deep=True).items()
        if key.rsplit("__", 1)[-1] in ("verbose", "memory")
    }
    settings.update(dict.fromkeys(accountant_keys(fitted), ledger))
    return name_inner_ledgers(fitted.set_params(**settings))


def named_error(exc, params, what):
    """``exc`` again, its message naming the candidate ``params``."""
    message = f"The candidate {describe(params)} {what}: {exc}"
    try:
        error = type(exc)(message)
    except Exception:  # an exception class with another signature
        error = ValueError(message)
    return error


def checked_cost(probe, params, fit_params):
    """A candidate's parameters checked, then its stated cost and relation.

    Free: parameters only. Its own parameter errors (``epsilon=0``) come
    first, naming it, as its fit would raise them before its reservation;
    otherwise a nonsensical cost would be composed (a review).
    """
    try:
        # BaseEstimator gives _validate_params to another library's learner
        # without _parameter_constraints: an AttributeError (a review).
        validate = getattr(probe, "_validate_params", None)
        if validate is not None and hasattr(probe, "_parameter_constraints"):
            validate()
    except Exception as exc:
        raise named_error(exc, params, "has invalid parameters") from exc
    try:
        return fit_cost(probe, **fit_params), fit_neighbours(probe, **fit_params)
    except Exception as exc:
        raise named_error(exc, params, "does not state its cost") from exc


def describe(params):
    return ", ".join(f"{k}={v!r}" for k, v in sorted(params.items())) or "(defaults)"


def dry_run(candidate, params, cost, X, y, fit_params):
    """Fit ``candidate`` up to its reservation, against a ledger that stops it.

    Every estimator of this package validates its input format and builds its
    public side, then reserves its cost before its first private read (a
    :class:`~sklearn_semiprivate.PublicFittedPipeline` before it transforms
    the private rows). Up to there a fit reads the format of ``X`` and ``y``
    only, questions no parameter chooses, as any fit does before its charge.
    So an error the candidate's parameters meet on data of this format is
    raised here, once, naming the candidate, before the search charges
    anything; and the reservation must be the stated ``cost``. Warnings are
    returned, to be shown once.
    """
    keys = accountant_keys(candidate)
    if not keys:
        # Without a ledger to stop at, the dry run would be a whole fit on
        # the private rows, uncharged: refused before it starts.
        raise TypeError(
            f"The candidate {describe(params)} has no accountant parameter, so "
            "its fit cannot be stopped at its reservation; the search needs "
            "estimators of this package."
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            reserved = fit_to_reservation(candidate, X, y, **fit_params)
        except Exception as exc:
            what = "cannot be fitted on this data (checked before any budget was spent)"
            raise named_error(exc, params, what) from exc
    if reserved is None:
        raise RuntimeError(
            f"The candidate {describe(params)} completed a fit without "
            "reserving its cost on its accountant first."
        )
    if reserved != cost:
        raise RuntimeError(
            f"The candidate {describe(params)} reserved {reserved}, not the "
            f"cost it states ({cost})."
        )
    return caught


def fit_hidden(estimator, X, y, fit_params, pid):
    """Fit; return None instead of raising.

    Which fit of a random stopping search fails, and why, depends on the
    secret runs and the private rows (see ``fit_random_stopping``).
    """
    with silenced_in_worker(pid):
        try:
            return estimator.fit(X, y, **fit_params)
        except Exception:
            return None


def fit_and_count(estimator, X_train, y_train, X_val, y_val, fit_params, pid):
    """One run: fit on the training split, count correct validation predictions.

    Returns None instead of raising (see :func:`fit_hidden`).
    """
    if fit_hidden(estimator, X_train, y_train, fit_params, pid) is None:
        return None
    with silenced_in_worker(pid):
        correct = count_correct(estimator, X_val, y_val)
    return estimator, correct


def fit_only(estimator, X, y, fit_params, pid):
    with silenced_in_worker(pid):
        return estimator.fit(X, y, **fit_params)


def is_sampled(param_distributions, n_candidates):
    """Whether the candidates are drawn (distributions, or ``n_candidates``)
    rather than the whole grid."""
    grids = (
        param_distributions
        if isinstance(param_distributions, list)
        else [param_distributions]
    )
    if not all(isinstance(g, dict) for g in grids):
        raise TypeError("param_distributions must be a dict or a list of dicts.")
    if not grids:
        raise ValueError("param_distributions gives no candidate.")
    all_lists = all(not hasattr(v, "rvs") for g in grids for v in g.values())
    return not (all_lists and n_candidates is None)


def candidate_list(param_distributions, n_candidates, random_state):
    """The candidate list: public, from the parameters and ``random_state``.

    A grid of lists gives every combination (unless ``n_candidates`` asks for
    a sample); distributions give ``n_candidates`` draws (10 by default).
    Drawn from a copy of a generator given as ``random_state``, so that the
    list is a function of the parameters: the cost an estimator nesting the
    search reserves (``_privacy_cost``) is that of the candidates its fit
    then runs (a review found a second draw fitted, uncharged).
    """
    if is_sampled(param_distributions, n_candidates):
        n = 10 if n_candidates is None else n_candidates
        seed = public_seed(check_rng(copy.deepcopy(random_state)))
        candidates = list(ParameterSampler(param_distributions, n, random_state=seed))
    else:
        candidates = list(ParameterGrid(param_distributions))
    if not candidates:
        raise ValueError("param_distributions gives no candidate.")
    return candidates


def search_ledger(estimator, accountant, candidates):
    """The one ledger a search charges: its own, or the one its estimators hold.

    Ledgers held by the estimator, or by estimators given as grid values, are
    collected (the candidates' own ledgers are cleared, so each must be this
    one); a grid that sets an accountant directly is refused.
    """
    for params in candidates:
        if any(k == "accountant" or k.endswith("__accountant") for k in params):
            raise ValueError(
                "param_distributions may not set an accountant: the search "
                "charges one ledger for all candidates; pass it as "
                "PrivateParameterSearch(accountant=...)."
            )
    found, where = {}, {}
    holders = [("its estimator", estimator)] + [
        (f"candidate {i}", clone(estimator).set_params(**params))
        for i, params in enumerate(candidates)
    ]
    for holder, est in holders:
        inner = est.get_params(deep=True)
        for key in accountant_keys(est):
            if inner[key] is not None:
                found[id(inner[key])] = inner[key]
                where.setdefault(id(inner[key]), f"{holder} ({key})")
    if accountant is not None:
        found[id(accountant)] = accountant
        where[id(accountant)] = "the search (accountant)"
    if len(found) > 1:
        raise ValueError(
            f"The search and its estimator hold {len(found)} different "
            f"accountants, one each first found in: {'; '.join(where.values())} "
            "(candidates numbered from 0, in ParameterGrid order or in the order "
            "drawn). Give one ledger, as PrivateParameterSearch(accountant=...). "
            "A ledger held by a grid "
            "value is seen by this search only: when the search is inside "
            "another estimator (a pipeline, an active classifier, another "
            "search), which stands in for the search's ledgers before it "
            "charges, give the ledger as PrivateParameterSearch(accountant=...) "
            "and none in the grid values."
        )
    return next(iter(found.values()), None)
