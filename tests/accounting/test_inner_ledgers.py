"""Fitted estimators inside fitted estimators name their ledgers, at any depth.

A meta-estimator charges its base learner's ledgers its own cost, then fits a
clone whose ledgers are cleared. After the fit the fitted clone names the
ledgers again, so a refit of it (or of a clone of it) on private rows charges
them, as the given estimator would. That renaming used to stop one level
down: ``active.estimator_.best_estimator_`` and the fitted last step of a
pipeline used as a base learner kept ``accountant=None``, and a refit of one
of them on private rows charged nothing (``docs/limitations.rst``, A3 of the
2026-11-27 notes).
"""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_semiprivate import (
    PATEClassifier,
    PrivacyAccountant,
    PublicData,
    PublicFittedPipeline,
    SemiPrivateClassifier,
    SemiPrivateTreeClassifier,
    SubSamplingActiveClassifier,
)
from sklearn_semiprivate.accounting._reservation import accountant_keys, every_ledger
from sklearn_semiprivate.model_selection import PrivateParameterSearch
from sklearn_semiprivate.research import PublicDataReduction


def _data(n=3000, n_pub=60):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(n, 3))
    X_pub = rng.uniform(size=(n_pub, 3))
    return X, (X[:, 1] > 0.6).astype(int), X_pub


def _fitted_inside(obj, path="model"):
    """Every fitted estimator stored in a fitted attribute, at every depth.

    And the steps of a scikit-learn Pipeline, which it fits in place.
    """
    for name, value in vars(obj).items():
        in_place = isinstance(obj, Pipeline) and name == "steps"
        if not in_place and (not name.endswith("_") or name.startswith("_")):
            continue
        items = value if isinstance(value, (list, tuple)) else [value]
        for i, item in enumerate(items):
            if isinstance(item, tuple) and len(item) == 2:  # (name, step)
                item = item[1]
            if isinstance(item, BaseEstimator):
                where = f"{path}.{name}" + (f"[{i}]" if item is not value else "")
                yield where, item
                yield from _fitted_inside(item, where)


def _tree(ledger):
    return SemiPrivateTreeClassifier(classes=[0, 1], accountant=ledger)


def _stumps(ledger):
    return SemiPrivateClassifier(classes=[0, 1], epsilon=0.5, accountant=ledger)


def _pipe(last):
    return PublicFittedPipeline([("scale", StandardScaler()), ("m", last)])


COMPOSITIONS = {
    "active(search(tree))": lambda led: SubSamplingActiveClassifier(
        PrivateParameterSearch(
            _tree(led), {"epsilon": [0.05, 0.1]}, selection="exponential"
        ),
        n_subsample=300,
        epsilon=1.0,
    ),
    "active(pipeline(stumps))": lambda led: SubSamplingActiveClassifier(
        _pipe(_stumps(led)), n_subsample=300, epsilon=1.0
    ),
    "search(pipeline(tree))": lambda led: PrivateParameterSearch(
        _pipe(_tree(led)), {"m__epsilon": [0.5, 1.0]}, selection="exponential"
    ),
    "pipeline(search(tree))": lambda led: _pipe(
        PrivateParameterSearch(
            _tree(led), {"epsilon": [0.5, 1.0]}, selection="exponential"
        )
    ),
    "reduction(pipeline(tree))": lambda led: PublicDataReduction(
        _pipe(_tree(led)), n_public=20, classes=[0, 1], random_state=0
    ),
    # A review: SemiPrivateClassifier's fitted final estimator, and a
    # scikit-learn Pipeline between two meta-estimators, stopped the renaming.
    "active(stumps(final=stumps))": lambda led: SubSamplingActiveClassifier(
        SemiPrivateClassifier(classes=[0, 1], final_estimator=_stumps(led)),
        classes=[0, 1],
    ),
    # The base's box is a parameter: the active learner refuses one that
    # would read it off its pool (here PATE's public rows), having no public
    # data of its own to tell them apart.
    "pate(sklearn pipeline(active(stumps)))": lambda led: PATEClassifier(
        student=make_pipeline(
            StandardScaler(),
            SubSamplingActiveClassifier(
                _stumps(led).set_params(bounds=(-5, 5)), classes=[0, 1]
            ),
        ),
        n_teachers=10,
        epsilon=50.0,  # votes near exact: both labels reach the student
        classes=[0, 1],
    ),
    "pipeline(active(search(stumps)))": lambda led: _pipe(
        SubSamplingActiveClassifier(
            PrivateParameterSearch(
                _stumps(led), {"epsilon": [0.2, 0.4]}, selection="exponential"
            ),
            n_subsample=300,
            epsilon=1.0,
        )
    ),
}


@pytest.mark.parametrize("make", COMPOSITIONS.values(), ids=COMPOSITIONS.keys())
def test_every_fitted_estimator_inside_names_the_ledger(make):
    X, y, X_pub = _data()
    ledger = PrivacyAccountant(epsilon=1000, delta=0.5)
    model = make(ledger)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the private label-set fallbacks
        model.fit(X, y, X_public=PublicData(X_pub))
    assert len(ledger.history) == 1
    inside = [(w, est) for w, est in _fitted_inside(model) if accountant_keys(est)]
    assert inside, "nothing fitted inside"
    unnamed = [w for w, e in inside if not any(x is ledger for x in every_ledger(e))]
    assert not unnamed, f"fitted without the ledger: {unnamed}"
    # The deepest one, refitted as a clone on private rows, charges it.
    where, deepest = max(inside, key=lambda item: item[0].count("."))
    Xt = X
    if where.endswith("steps_[1]"):  # a pipeline's last step: scaled rows
        Xt = StandardScaler().fit(X_pub).transform(X)
    refit = clone(deepest)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        refit.fit(Xt, y, X_public=PublicData(X_pub))
    assert len(ledger.history) == 2, where
