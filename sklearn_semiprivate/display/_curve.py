"""The scores behind a privacy-utility curve, computed without matplotlib.

:func:`privacy_utility_curve` fits an estimator at each value of a privacy
parameter, and the baselines (non-private ceiling, public-only floor), and
scores every fit on test rows; :class:`PrivacyUtilityDisplay` draws them.
"""

# SPDX-License-Identifier: BSD-3-Clause

import difflib
import numbers

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import check_scoring
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_array, check_consistent_length, get_tags

from .._public import PublicData
from ..accounting._composition import compose_basic
from ..accounting._reservation import accountant_keys, fit_cost
from ..utils._private_errors import call_inner_on_private, call_on_private

__all__ = ["privacy_utility_curve"]

_BASELINE_DATA = ("private", "public")
# Shortcut name -> (legend label, data the baseline is fitted on).
_BASELINE_SHORTCUTS = {
    "non_private": ("non-private LogisticRegression (ceiling)", "private"),
    "public_only": ("public-only LogisticRegression (floor)", "public"),
}


def _default_baseline_estimator():
    """The standard baseline: standardized logistic regression."""
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))


def _check_param_values(param_values, param_name):
    """The values as a list, unconverted: ``set_params`` must get an int as an int."""
    if isinstance(param_values, str | bytes) or np.ndim(param_values) != 1:
        raise ValueError(
            f"param_values must be a 1-D sequence of numbers (values of "
            f"{param_name!r}), got {param_values!r}."
        )
    values = list(param_values)
    if not values:
        raise ValueError(f"param_values is empty: give at least one {param_name}.")
    for value in values:
        if (
            not isinstance(value, numbers.Real)
            or isinstance(value, bool)
            or not np.isfinite(value)
        ):
            raise TypeError(
                f"param_values must be finite numbers to plot on the x axis; got "
                f"{value!r} for {param_name!r}."
            )
    return values


def _check_param_name(estimator, param_name):
    if not isinstance(param_name, str):
        raise TypeError(f"param_name must be a str, got {type(param_name).__name__}.")
    params = estimator.get_params(deep=True)
    if param_name in params:
        return
    nested = [p for p in params if p.endswith(f"__{param_name}")]
    hint = nested or difflib.get_close_matches(param_name, params, n=3)
    raise ValueError(
        f"{type(estimator).__name__} has no parameter {param_name!r}"
        + (f"; did you mean {' or '.join(map(repr, hint))}?" if hint else ".")
        + " Give a nested name such as 'semiprivateclassifier__epsilon' for a "
        "step of a pipeline."
    )


def _unwrap_public(X_public, y_public):
    """Public rows and labels out of a ``PublicData`` or raw arrays."""
    if isinstance(X_public, PublicData):
        if y_public is not None and X_public.y is not None:
            raise TypeError(
                "Public labels were given twice: in PublicData(X, y) and as "
                "y_public. Give them once."
            )
        return X_public.X, X_public.y if X_public.y is not None else y_public
    if X_public is None and y_public is not None:
        raise ValueError("y_public was given without X_public.")
    return X_public, y_public


def _check_baseline_estimators(baselines):
    """``baselines`` as a list of ``(label, estimator, data, deterministic)``."""
    if baselines is None:
        return []
    if isinstance(baselines, str):
        baselines = [baselines]
    if not isinstance(baselines, dict):
        if not all(isinstance(b, str) for b in baselines):
            raise TypeError(
                "baselines must be a dict {label: estimator or (estimator, "
                "'private' | 'public') or shortcut} or a list of shortcuts "
                f"{sorted(_BASELINE_SHORTCUTS)}."
            )
        baselines = {_BASELINE_SHORTCUTS.get(b, (b,))[0]: b for b in baselines}
    out = []
    for label, spec in baselines.items():
        if isinstance(spec, str):
            if spec not in _BASELINE_SHORTCUTS:
                raise ValueError(
                    f"Unknown baseline shortcut {spec!r}; the shortcuts are "
                    f"{sorted(_BASELINE_SHORTCUTS)}."
                )
            estimator, data = (
                _default_baseline_estimator(),
                _BASELINE_SHORTCUTS[spec][1],
            )
            # lbfgs on fixed rows: every refit gives the same model.
            deterministic = True
        elif isinstance(spec, tuple):
            if len(spec) != 2 or spec[1] not in _BASELINE_DATA:
                raise ValueError(
                    f"Baseline {label!r}: a tuple must be (estimator, data) with "
                    f"data in {_BASELINE_DATA}, got {spec!r}."
                )
            estimator, data = spec
            deterministic = False
        else:
            estimator, data, deterministic = spec, "private", False
        if not hasattr(estimator, "fit"):
            raise TypeError(
                f"Baseline {label!r} is not an estimator (no fit method): "
                f"{estimator!r}."
            )
        out.append((str(label), estimator, data, deterministic))
    return out


def _check_n_repeats(n_repeats):
    if (
        not isinstance(n_repeats, numbers.Integral)
        or isinstance(n_repeats, bool)
        or n_repeats < 1
    ):
        raise ValueError(f"n_repeats must be an int >= 1, got {n_repeats!r}.")
    return int(n_repeats)


def _fit_and_score(estimator, X, y, fit_params, scorer, X_test, y_test, private):
    if private:
        # A learner of another library (a "private" baseline) may quote the
        # cell it fails on: "could not convert string to float: '<cell>'"
        # (a review). This package's estimators pass their errors unchanged.
        call_inner_on_private(
            estimator, "fit", X, y, **fit_params, what="the fit on the private rows"
        )
    else:
        estimator.fit(X, y, **fit_params)
    # After the charge, on rows that may be held-out private ones: a scorer's
    # error (scikit-learn's quote the cell: "could not convert string to
    # float: '<cell>'", a review) keeps a value-free start, and its warnings
    # are said without their text.
    score = call_inner_on_private(
        scorer, "__call__", estimator, X_test, y_test,
        what="the test rows (X_test, y_test)",
    )  # fmt: skip
    return float(score)


def _check_whole_budget(fits):
    """Refuse, before any fit, a curve that its ledgers cannot hold.

    The curve's cost is known from public parameters (each clone's
    ``_privacy_cost``). A review found a curve on a ledger too small for it
    spending 3.5 of 4.0 on fits whose scores were never returned. Each
    ledger found in a fitted estimator or baseline that states its cost
    (nested ones are charged the outer cost, as the meta-estimators of this
    package charge them) is checked for its whole share, with the ledger's
    own basic composition. It charges nothing: each fit still charges as it
    runs, so a fit refused for free costs nothing (a second review found
    fits charged up front and never run) and a concurrent spend can still
    refuse a later fit. Estimators that do not state their cost are not
    checked.
    """
    totals = {}
    for est, fit_params in fits:
        for ledger, cost in _charges_of_one_fit(est, fit_params):
            totals.setdefault(id(ledger), (ledger, []))[1].append(cost)
    for ledger, charged in totals.values():
        total = compose_basic(charged)
        ledger.check(total.epsilon, total.delta)


def _charges_of_one_fit(est, fit_params):
    """``(ledger, cost)`` for every charge a fit of ``est`` makes, as stated.

    The estimator charges each distinct ledger it holds, nested ones too, its
    own cost once, except those under a parameter it lists in
    ``_params_charged_own_cost`` (``SemiPrivateClassifier``'s
    ``final_estimator``, fitted with its ledgers on public points), which
    that estimator charges its own cost (a third review: the check used the
    outer cost there). Nothing for an estimator that states no cost.
    """
    if not hasattr(est, "_privacy_cost"):
        return []
    params = est.get_params(deep=True)
    own = getattr(est, "_params_charged_own_cost", ())
    groups = {}
    for key in accountant_keys(est):
        ledger = params[key]
        if ledger is None:
            continue
        head = key.split("__")[0]
        group = head if head in own and key != "accountant" else None
        groups.setdefault(group, {})[id(ledger)] = ledger
    charges = []
    for group, ledgers in groups.items():
        if group is None:
            cost = fit_cost(est, **fit_params)
        elif hasattr(params[group], "_privacy_cost"):
            cost = fit_cost(params[group])
        else:
            continue
        charges += [(ledger, cost) for ledger in ledgers.values()]
    return charges


def _check_test_rows(estimator, X, X_test, y_test):
    """The test rows' format, before the first (charged) fit.

    A review found a NaN in ``X_test`` or a short ``y_test`` refused only when
    the first model was scored, after its fit had been charged. Only what
    holds for every estimator is checked for a composite one (a pipeline, a
    search, an estimator holding another): its steps may impute NaN, encode
    strings or select columns by name (a second review found such rows
    refused), and its tags do not say so. The messages quote no value (test
    rows may be held-out private rows).
    """
    check_consistent_length(X_test, y_test)
    if not hasattr(estimator, "_privacy_cost") or any(
        _may_take_any_rows(inner)
        for inner in [estimator, *estimator.get_params(deep=True).values()]
        if hasattr(inner, "fit")
    ):
        return
    # One of this package's estimators with no pipeline, transformer or
    # NaN-taking estimator anywhere inside (a search or an active classifier
    # over a classifier is checked; a third review found them charged):
    # numeric, finite rows of X's width, as its predict requires.
    X_test = call_on_private(
        check_array, X_test, accept_sparse=True, what="the test rows (X_test)"
    )
    n_train = np.shape(X)
    if len(n_train) == 2 and X_test.shape[1] != n_train[1]:
        raise ValueError(
            f"X_test has {X_test.shape[1]} features, but X has {n_train[1]}."
        )


def _may_take_any_rows(estimator):
    """Whether ``estimator`` may take non-numeric, NaN or other-width rows."""
    if any(hasattr(estimator, a) for a in ("steps", "transformers", "transform")):
        return True
    try:
        return bool(get_tags(estimator).input_tags.allow_nan)
    except Exception:  # not a scikit-learn estimator: assume it may
        return True


def privacy_utility_curve(
    estimator,
    X,
    y,
    *,
    X_public=None,
    y_public=None,
    X_test,
    y_test,
    param_name="epsilon",
    param_values=(0.1, 0.3, 1.0, 3.0, 10.0),
    baselines=None,
    n_repeats=5,
    scoring=None,
    n_jobs=None,
):
    """Test scores of an estimator fitted at each value of a privacy parameter.

    For each value and each repeat, a clone of ``estimator`` with
    ``param_name`` set to the value is fitted on the private ``(X, y)`` with the
    public data, and scored on ``(X_test, y_test)``. Repeats differ by their
    privacy noise, which is fresh on every fit; no seed is changed or added.
    This is the computation behind
    :meth:`PrivacyUtilityDisplay.from_estimator`, without matplotlib.

    Parameters
    ----------
    estimator : estimator
        The (semi-)private estimator, e.g.
        :class:`~sklearn_semiprivate.SemiPrivateClassifier` or a
        :class:`~sklearn_semiprivate.PublicFittedPipeline` ending in one. It is
        cloned, never fitted itself.
    X : array-like of shape (n_samples, n_features)
        Private rows (protected).
    y : array-like of shape (n_samples,)
        Private labels (protected).
    X_public : PublicData or array-like of shape (n_public, n_features), \
            default=None
        Public rows, passed to every fit of ``estimator`` as
        ``X_public=PublicData(...)`` (a raw array is wrapped), so its ``fit``
        must accept ``X_public``, as this package's estimators and
        :class:`~sklearn_semiprivate.PublicFittedPipeline` do. None passes no
        public data.
    y_public : array-like of shape (n_public,), default=None
        Public labels when ``X_public`` is a raw array. Needed by ``"public"``
        baselines.
    X_test : array-like of shape (n_test, n_features)
        Rows every fitted model is scored on. Required: see Notes.
    y_test : array-like of shape (n_test,)
        Their labels.
    param_name : str, default="epsilon"
        The parameter that varies along the x axis: ``"epsilon"``, or
        ``"n_public"`` for the public-size curve; a nested name such as
        ``"semiprivateclassifier__epsilon"`` for a step of a pipeline. (A
        pipeline's transformers are fitted on every public row given, whatever
        its last step's ``n_public``.)
    param_values : array-like of shape (n_values,), \
            default=(0.1, 0.3, 1.0, 3.0, 10.0)
        Its values: finite numbers (an int ``n_public`` is a row count, a
        float one a fraction).
    baselines : dict, list of str or None, default=None
        Horizontal reference lines, each fitted ``n_repeats`` times (the
        deterministic shortcuts once) and scored on the test rows. A dict maps
        a legend label to

        * an estimator: fitted on the **private** rows ``(X, y)`` only;
        * ``(estimator, "private")``: the same, said explicitly;
        * ``(estimator, "public")``: fitted on the **labeled public** rows
          ``(X_public, y_public)`` only, never on a private row;
        * ``"non_private"`` or ``"public_only"``: the standard ceiling and
          floor, ``make_pipeline(StandardScaler(), LogisticRegression())`` on
          the private or on the labeled public rows; deterministic, so fitted
          once.

        A list of the shortcut names uses their default labels.
    n_repeats : int, default=5
        Fits per value, and per baseline given as an estimator.
    scoring : str, callable or None, default=None
        As in :func:`sklearn.metrics.check_scoring`; None uses each estimator's
        ``score`` (accuracy for classifiers).
    n_jobs : int, default=None
        Fits run in parallel with joblib; each charges its ledger as it runs.
        With a ``PrivacyAccountant`` in the estimator, use threads
        (``joblib.parallel_config(backend="threading")``) or a ledger with
        ``path=``: an in-memory ledger copied into a worker process refuses
        to charge.

    Returns
    -------
    scores : ndarray of shape (n_values, n_repeats)
        Test score of every fit.
    baseline_scores : dict of str to ndarray of shape (n_fits,)
        Test scores of every baseline, in the order given: ``n_repeats`` of
        them, one for a shortcut.

    Notes
    -----
    **What is private.** Each fit of ``estimator`` is as private as the
    estimator, and with a ``PrivacyAccountant`` every one is charged as it
    runs (a ledger without room for the whole curve, as far as the estimator
    and the baselines state their cost, refuses it before the first fit):
    an epsilon curve costs
    ``n_repeats * sum(param_values)`` under basic composition.
    The baselines are **not** private: a ``"private"`` baseline reads the
    private rows without noise. A test score is an exact statistic of the test
    rows: when they are private rows (a held-out part of the private data),
    every point of the curve is a release outside any guarantee. The curve is
    an evaluation tool for the analyst who may see the private data; publish
    it only when it was computed without private rows (public test rows, no
    ``"private"`` baseline) and within the budget.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PublicData, SemiPrivateClassifier
    >>> from sklearn_semiprivate.display import privacy_utility_curve
    >>> rng = np.random.default_rng(0)
    >>> X, X_pub, X_test = (rng.uniform(size=(n, 3)) for n in (500, 40, 200))
    >>> y, y_test = (X[:, 0] > 0.5).astype(int), (X_test[:, 0] > 0.5).astype(int)
    >>> scores, baseline_scores = privacy_utility_curve(
    ...     SemiPrivateClassifier("stumps", classes=[0, 1]), X, y,
    ...     X_public=PublicData(X_pub), X_test=X_test, y_test=y_test,
    ...     param_values=[0.1, 1.0, 10.0], n_repeats=3, baselines=["non_private"])
    >>> scores.shape, list(baseline_scores)
    ((3, 3), ['non-private LogisticRegression (ceiling)'])
    """
    param_values = _check_param_values(param_values, param_name)
    _check_param_name(estimator, param_name)
    n_repeats = _check_n_repeats(n_repeats)
    if X_test is None or y_test is None:
        raise ValueError(
            "X_test and y_test are required: every fitted model is scored on "
            "them. Prefer public labeled rows (a score on private rows is a "
            "release)."
        )
    _check_test_rows(estimator, X, X_test, y_test)
    baseline_specs = _check_baseline_estimators(baselines)
    Xp, yp = _unwrap_public(X_public, y_public)
    public_only = [spec[0] for spec in baseline_specs if spec[2] == "public"]
    if public_only and (Xp is None or yp is None):
        raise ValueError(
            f"The public-only baselines {public_only} are fitted on labeled public "
            "rows: pass X_public with public labels (PublicData(X_pub, y_pub) or "
            "y_public=...)."
        )
    fit_params = {} if Xp is None else {"X_public": PublicData(Xp, yp)}
    # Checked before the first fit, so a bad scoring spends no budget.
    scorer = check_scoring(estimator, scoring=scoring)
    baseline_scorers = [check_scoring(b[1], scoring=scoring) for b in baseline_specs]

    # The baselines first: they are free (unless one holds a ledger), so one
    # that fails on these rows (a string column, a NaN) fails before the
    # curve is charged (a review: after all of it).
    baseline_tasks, n_fits = [], []
    for spec, baseline_scorer in zip(baseline_specs, baseline_scorers):
        _, baseline, data, deterministic = spec
        rows = (X, y, True) if data == "private" else (Xp, yp, False)
        n_fits.append(1 if deterministic else n_repeats)
        baseline_tasks += [
            (clone(baseline), rows[0], rows[1], {}, baseline_scorer, rows[2])
            for _ in range(n_fits[-1])
        ]
    tasks = [
        (clone(estimator).set_params(**{param_name: v}), X, y, fit_params, scorer, True)
        for v in param_values
        for _ in range(n_repeats)
    ]
    # Refuses a curve its ledgers cannot hold, before any fit; charges nothing.
    _check_whole_budget([(task[0], task[3]) for task in baseline_tasks + tasks])
    parallel = Parallel(n_jobs=n_jobs)
    results = [
        parallel(
            delayed(_fit_and_score)(est, X_fit, y_fit, params, sc, X_test, y_test, p)
            for est, X_fit, y_fit, params, sc, p in batch
        )
        for batch in (baseline_tasks, tasks)
    ]
    scores = np.asarray(results[1], dtype=float).reshape(-1, n_repeats)
    baseline_scores, start = {}, 0
    for spec, count in zip(baseline_specs, n_fits):
        baseline_scores[spec[0]] = np.asarray(results[0][start : start + count])
        start += count
    return scores, baseline_scores
