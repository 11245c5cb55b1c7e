"""The one way an estimator charges its ledger: before its first private read."""

# SPDX-License-Identifier: BSD-3-Clause

import contextlib

import numpy as np
from sklearn.base import clone

from ..utils._nested_fit import dropped_warnings
from ..utils._numeric import exp_or_inf
from ..utils._private_reads import private_reads_refused
from ._accountant import PrivacyAccountant
from ._composition import PrivacyCost

__all__ = [
    "InnerLedgersMixin",
    "accountant_keys",
    "call_to_reservation",
    "every_ledger",
    "fit_cost",
    "fit_neighbours",
    "fit_to_reservation",
    "name_inner_ledgers",
    "name_ledgers_again",
    "probe_on_placeholders",
    "replace_one_base_cost",
    "replace_one_cost",
    "reserve_budget",
    "reserve_on_every_ledger",
    "reserve_on_ledgers",
    "without_ledgers",
]


def reserve_budget(accountant, cost, estimator):
    """Charge ``cost`` to ``accountant`` (if any) before any private read.

    Every estimator's cost is a function of its public parameters, so it is known
    before the mechanisms run. Charging it then, atomically (check and record in
    one step, across threads and, with a file-backed ledger, processes), means
    two concurrent fits cannot both run before one is refused, and a fit that
    fails after reading private rows stays charged: it cannot be retried for
    free. On refusal (:class:`~sklearn_semiprivate.PrivacyBudgetError`) nothing
    private has been read.

    Parameters
    ----------
    accountant : PrivacyAccountant or None
        The ledger; None charges nothing.
    cost : PrivacyCost
        What the fit may spend at most.
    estimator : object
        Recorded in the ledger's history as what spent it.
    """
    if accountant is not None:
        accountant.spend(cost.epsilon, cost.delta, source=estimator)


def accountant_keys(estimator):
    """Names of every ``accountant`` parameter of ``estimator``, nested ones too.

    Parameters
    ----------
    estimator : BaseEstimator
        An estimator, a pipeline or a meta-estimator.

    Returns
    -------
    keys : list of str
        ``"accountant"`` and every ``"<path>__accountant"``, sorted.
    """
    return sorted(
        key
        for key in estimator.get_params(deep=True)
        if key == "accountant" or key.endswith("__accountant")
    )


def every_ledger(estimator):
    """The values of every ``accountant`` parameter, nested ones too (or None).

    Examples
    --------
    >>> from sklearn_semiprivate import PrivacyAccountant, SemiPrivateClassifier
    >>> from sklearn_semiprivate.accounting._reservation import every_ledger
    >>> every_ledger(SemiPrivateClassifier())
    [None]
    """
    params = estimator.get_params(deep=True)
    return [params[k] for k in accountant_keys(estimator)]


def fit_cost(estimator, **fit_params):
    """The cost ``estimator.fit(X, y, **fit_params)`` reserves, before any fit.

    Every estimator of this package computes its cost from its public
    parameters (and which optional inputs a fit gets, e.g. private unlabeled
    rows) in one method, ``_privacy_cost(**fit_params)``, which its ``fit``
    reserves. A search or a pipeline can therefore reserve on behalf of an
    estimator before any of its private rows is read or transformed.

    Parameters
    ----------
    estimator : estimator
        An estimator of this package.
    **fit_params : dict
        The keyword arguments its ``fit`` will get (values are not read, only
        which are present).

    Returns
    -------
    cost : PrivacyCost

    Raises
    ------
    TypeError
        When ``estimator`` does not state its cost.
    """
    method = getattr(estimator, "_privacy_cost", None)
    if method is None:
        raise TypeError(
            f"{type(estimator).__name__} does not state its privacy cost before "
            "a fit (no _privacy_cost method): only the estimators of "
            "sklearn_semiprivate, which reserve their cost before their first "
            "private read, can be used here. A scikit-learn wrapper "
            "(BaggingClassifier, OneVsRestClassifier, CalibratedClassifierCV) "
            "goes around them instead: around the whole PublicFittedPipeline, "
            "say, not as its last step."
        )
    return PrivacyCost(*method(**fit_params))


# What ``_privacy_neighbours`` may return: the neighbour relations under which
# the stated cost (``_privacy_cost``) holds. "restricted": a narrower relation
# than replace-one (LabelBoostClassifier: a labeled row replaced by a labeled
# one only), for which no cost under the general relations follows.
NEIGHBOUR_RELATIONS = ("both", "add/remove", "replace-one", "restricted")


def fit_neighbours(estimator, **fit_params):
    """The neighbour relation under which :func:`fit_cost` holds, or None.

    An estimator of this package states it, from its public parameters and
    which optional inputs its fit gets, in ``_privacy_neighbours(**fit_params)``
    (the table in ``docs/privacy.rst``): ``"both"``, ``"add/remove"``,
    ``"replace-one"``, or ``"restricted"`` for a narrower relation (no
    general guarantee follows from the cost). None when the estimator does
    not say; a caller must then assume the cost holds under one relation
    only, not knowing which (e.g. convert it with :func:`replace_one_cost`,
    valid either way).

    Examples
    --------
    >>> from sklearn_semiprivate import SemiPrivateTreeClassifier
    >>> from sklearn_semiprivate.accounting._reservation import fit_neighbours
    >>> fit_neighbours(SemiPrivateTreeClassifier())
    'add/remove'
    """
    method = getattr(estimator, "_privacy_neighbours", None)
    if method is None:
        return None
    relation = method(**fit_params)
    if relation not in NEIGHBOUR_RELATIONS:
        raise ValueError(
            f"{type(estimator).__name__}._privacy_neighbours returned "
            f"{relation!r}, not one of {NEIGHBOUR_RELATIONS}."
        )
    return relation


def replace_one_cost(cost):
    """A stated cost made replace-one: group privacy of size 2.

    Replace-one is two add/remove steps, so an add/remove ``(ε, δ)`` gives
    replace-one ``(2ε, (1 + e^ε) δ)`` (Dwork & Roth 2014, group privacy).
    This bound is at least the stated cost, so it is also valid for a cost
    that already holds for replace-one: valid whatever the relation.

    Examples
    --------
    >>> from sklearn_semiprivate.accounting._reservation import replace_one_cost
    >>> replace_one_cost((0.5, 0.0))
    PrivacyCost(epsilon=1.0, delta=0.0)
    """
    eps, delta = (float(v) for v in cost)
    # exp_or_inf: e^eps overflowed from eps ~ 709.8 (a review); the bound is
    # then capped at 1.
    group_delta = 0.0 if delta == 0.0 else (1.0 + exp_or_inf(eps)) * delta
    return PrivacyCost(2.0 * eps, min(1.0, group_delta))


def replace_one_base_cost(owner, estimator, also=(), **fit_params):
    """A base learner's cost for one entry of its sample replaced.

    Its stated cost when that holds for replace-one (or both, or a relation
    in ``also`` that the owner's proof covers), else its group-privacy
    doubling (:func:`replace_one_cost`). A learner that states no cost is a
    TypeError naming ``owner``; an error of its own (a parameter refused) is
    raised as it is.
    """
    try:
        cost = fit_cost(estimator, **fit_params)
    except TypeError as exc:
        if hasattr(estimator, "_privacy_cost"):
            raise  # its own error (a parameter refused), not a missing cost
        raise TypeError(
            f"{owner} needs a private base learner (one that states its "
            f"(epsilon, delta)): {exc}"
        ) from None
    if fit_neighbours(estimator, **fit_params) in ("both", "replace-one", *also):
        return cost
    return replace_one_cost(cost)


def reserve_on_ledgers(ledgers, cost, source):
    """Charge ``cost`` once to each distinct ledger, after checking them all.

    ``None`` entries are skipped. The usual refusal (one ledger without room)
    charges none; two ledgers are not one transaction (see
    :func:`reserve_on_every_ledger`).
    """
    distinct = {id(led): led for led in ledgers if led is not None}.values()
    for ledger in distinct:
        ledger.check(cost.epsilon, cost.delta)
    for ledger in distinct:
        reserve_budget(ledger, cost, source)


def reserve_on_every_ledger(estimator, cost):
    """Charge ``cost`` once to every distinct ledger of a meta-estimator.

    ``estimator``'s own ``accountant`` and every nested one (its base
    learner's, and theirs: :func:`accountant_keys`) are charged the
    meta-estimator's whole cost, each ledger once, before the first private
    read, as :class:`~sklearn_semiprivate.PublicFittedPipeline` does for its
    last step. The base learner only ever sees rows derived from the
    meta-estimator's private input, so the meta-estimator's guarantee bounds
    what a fit costs the people in any of those ledgers; the base learner is
    then fitted as a clone whose ledgers are cleared (the returned
    parameters), so nothing is charged twice, nor after a private read.

    Every ledger is checked before any is charged, so the usual refusal (one
    ledger without room) charges none. Two ledgers are not one transaction:
    if another fit fills one between the check and the charge, the ledgers
    charged before it stay charged (an overcount, never an undercount).

    Parameters
    ----------
    estimator : BaseEstimator
        The meta-estimator; its base learner is its ``estimator`` parameter.
    cost : PrivacyCost
        The meta-estimator's cost.

    Returns
    -------
    cleared : dict
        ``set_params`` arguments setting every ledger of the base learner to
        None.
    """
    keys = accountant_keys(estimator)
    reserve_on_ledgers(every_ledger(estimator), cost, estimator)
    prefix = "estimator__"
    return {k[len(prefix) :]: None for k in keys if k.startswith(prefix)}


def without_ledgers(model):
    """A clone of ``model`` with every ledger, nested ones too, set to None.

    For a meta-estimator that charges its nested ledgers its own cost
    (:func:`reserve_on_ledgers` on :func:`accountant_keys`) and then fits,
    or dry-runs, models inside it: they charge nothing again.

    Examples
    --------
    >>> from sklearn_semiprivate import PrivacyAccountant, SemiPrivateClassifier
    >>> from sklearn_semiprivate.accounting._reservation import without_ledgers
    >>> model = SemiPrivateClassifier(accountant=PrivacyAccountant(1.0))
    >>> without_ledgers(model).accountant is None, model.accountant is None
    (True, False)
    """
    model = clone(model)
    return model.set_params(**dict.fromkeys(accountant_keys(model), None))


def name_ledgers_again(fitted, given):
    """After a fit: ``fitted``'s ledgers set back to those ``given`` names.

    A meta-estimator charges its base learner's ledgers its own cost, then
    fits a clone whose ledgers are cleared (it must not charge again). Once
    that fit is over, the fitted clone names the ledgers again, so that a
    refit of it, or of a clone of it, on private rows charges them as the
    given estimator would (a review: a fitted clone left without its ledger
    refitted for free). None passes through.

    Examples
    --------
    >>> from sklearn_semiprivate import PrivacyAccountant, SemiPrivateClassifier
    >>> from sklearn_semiprivate.accounting._reservation import (
    ...     name_ledgers_again, without_ledgers)
    >>> given = SemiPrivateClassifier(accountant=PrivacyAccountant(1.0))
    >>> fitted = without_ledgers(given)  # as fitted inside a meta-estimator
    >>> name_ledgers_again(fitted, given).accountant is given.accountant
    True
    """
    if fitted is None or given is None:
        return fitted
    params = given.get_params(deep=True)
    keys = [k for k in accountant_keys(fitted) if k in params]
    fitted.set_params(**{k: params[k] for k in keys})
    return name_inner_ledgers(fitted)


def name_inner_ledgers(fitted):
    """``fitted``'s own fitted inner estimators name their ledgers again.

    At every depth: a fitted meta-estimator's fitted inner estimators were
    fitted under its cleared ledgers too (a review: two levels down,
    ``active.estimator_.best_estimator_`` kept None and refitted for free).
    Calls ``fitted._name_inner_ledgers()`` where it exists
    (:class:`InnerLedgersMixin`, the search, the pipeline); returns ``fitted``.
    """
    rename_inner = getattr(fitted, "_name_inner_ledgers", None)
    if rename_inner is not None:
        rename_inner()
        return fitted
    get_params = getattr(fitted, "get_params", None)
    if get_params is None:
        return fitted
    # Not of this package (a scikit-learn Pipeline): its parameters hold the
    # estimators it fitted in place, whose own fitted estimators are renamed
    # (a review: a Pipeline between two meta-estimators of this package
    # stopped the renaming).
    for value in get_params(deep=False).values():
        items = value if isinstance(value, (list, tuple)) else [value]
        for item in items:
            if isinstance(item, tuple) and len(item) >= 2:  # (name, step, ...)
                item = item[1]
            if hasattr(item, "get_params") and not isinstance(item, type):
                name_inner_ledgers(item)
    return fitted


class InnerLedgersMixin:
    """A meta-estimator whose fitted inner estimators name their ledgers again.

    ``_inner_estimators`` lists its ``(fitted attribute, parameter)`` pairs.
    Its ``fit`` ends with ``self._name_inner_ledgers()``, and
    :func:`name_ledgers_again` calls it again whenever an outer
    meta-estimator names this one's ledgers again after fitting it as a
    cleared clone: the renaming reaches every depth, so a refit of any fitted
    object inside, or of a clone of it, charges the ledgers its parameters
    name.
    """

    _inner_estimators = (("estimator_", "estimator"),)

    def _name_inner_ledgers(self):
        for fitted, given in self._inner_estimators:
            name_ledgers_again(getattr(self, fitted, None), getattr(self, given))


def probe_on_placeholders(
    estimator, n_rows, n_features, classes, fit=None, refused=None, **kw
):
    """Fit ``estimator`` on placeholder rows up to its reservation (free).

    What a meta-estimator runs before its charge so that its base learner's
    refusals of data of this format (a 1-D class on 2 features) cost nothing,
    as they do when the base is fitted alone. The rows are public constants:
    ``n_rows`` rows of zeros, labelled ``classes`` in turn. ``fit(estimator,
    X, y)`` replaces ``estimator.fit(X, y, **kw)`` where the meta-estimator
    fits its base its own way. Warnings are dropped; an estimator with no
    ledger parameter (not of this package) has nothing to stop it at and is
    not run. Pass a clone.

    ``refused``, a message, runs the probe inside
    :func:`~sklearn_semiprivate.utils.private_reads_refused`: a value the
    estimator reads off its rows up to its reservation (a search's
    candidates without bounds, a pipeline fitting its transformers on its
    rows) is then an error here, for free, rather than in the real fit after
    the meta-estimator's charge (a review).
    """
    if not accountant_keys(estimator):
        return None
    X = np.zeros((n_rows, n_features))
    y = np.resize(np.asarray(classes), n_rows)
    if fit is None:

        def fit(est, X, y):
            return est.fit(X, y, **kw)

    reads = contextlib.nullcontext()
    if refused is not None:
        reads = private_reads_refused(refused)
    with dropped_warnings(), reads:
        return call_to_reservation(estimator, lambda est: fit(est, X, y))


class _CostProbeStop(BaseException):
    """Raised by the probe ledger at the reservation.

    A ``BaseException``, so that an estimator catching ``Exception`` around its
    reservation cannot swallow it and go on to read rows uncharged.
    """


class _CostProbe(PrivacyAccountant):
    """A ledger that records the first reservation and stops the fit there."""

    def __init__(self):
        super().__init__()
        self.cost = None

    def check(self, epsilon, delta=0.0):
        return None

    def spend(self, epsilon, delta=0.0, *, source=None):
        self.cost = PrivacyCost(float(epsilon), float(delta))
        raise _CostProbeStop


def fit_to_reservation(estimator, X, y, **fit_params):
    """Fit ``estimator`` up to its reservation, where a probe ledger stops it.

    Every estimator of this package checks its input format and builds its
    public side, then reserves its cost before its first private read; up to
    there a fit reads the format of ``X`` and ``y`` only. So an error this
    raises is one the estimator would raise before charging anything. Its
    ledgers are replaced by the probe (pass a clone). Returns the cost it
    reserved, or None if the fit completed without reserving.
    """
    return call_to_reservation(estimator, lambda est: est.fit(X, y, **fit_params))


def call_to_reservation(estimator, fit):
    """:func:`fit_to_reservation` for any call ``fit(estimator)`` that fits it.

    For a meta-estimator that fits its base learner in its own way (on rows
    it builds, with extra arguments): run that same code on placeholder rows.
    """
    probe = _CostProbe()
    estimator.set_params(**dict.fromkeys(accountant_keys(estimator), probe))
    try:
        fit(estimator)
    except _CostProbeStop:
        return probe.cost
    return None
