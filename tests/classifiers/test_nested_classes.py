"""Label sets and free refusals through meta-estimators whose base is nested.

The active classifier and LabelBoost hand their (public) label set to their
base learner. A base whose label set sits deeper (a pipeline's last step)
must get it too: left open, it was read off the queried or relabeled rows
after the charge (a one-class draw then failed, an event of the private
labels, and the fitted model showed which labels occur). And the base's own
refusals of the data format must come before the charge even when no label
set is known yet. Found by an accounting fuzz (``/tmp/s13/fuzz``).
"""

import warnings

import numpy as np
import pytest
from sklearn.preprocessing import MinMaxScaler

from sklearn_semiprivate import (
    LabelBoostClassifier,
    PATEClassifier,
    PrivacyAccountant,
    PrivacyCost,
    PrivacyLeakWarning,
    PublicData,
    PublicFittedPipeline,
    SemiPrivateClassifier,
    SemiPrivateLogisticRegression,
    SubSamplingActiveClassifier,
)
from sklearn_semiprivate._public import declared_classes, open_classes
from sklearn_semiprivate.model_selection import PrivateParameterSearch


def _pipeline(last):
    return PublicFittedPipeline([("tr", "passthrough"), ("m", last)])


# Three classes for the default stumps: they warn (tested in test_semiprivate).
@pytest.mark.filterwarnings(
    "ignore:hypothesis_class='stumps' predicts at most two labels:UserWarning"
)
def test_active_fills_the_label_set_of_a_pipelines_last_step():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    y = (X.sum(axis=1) > 0).astype(int)  # label 2 never occurs
    base = _pipeline(SemiPrivateClassifier(bounds=(-4, 4), epsilon=0.3))
    assert open_classes(base) == ["m__classes"]
    clf = SubSamplingActiveClassifier(
        base,
        epsilon=0.5,
        n_subsample=20,
        classes=[0, 1, 2],
        accountant=PrivacyAccountant(delta=0.5),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        clf.fit(X, y)
    assert clf.estimator_.classes_.tolist() == [0, 1, 2]


def test_active_with_a_one_class_draw_fits_when_the_set_is_declared():
    # Almost every label is 0: the 5 queried labels are one class. The
    # declared set reaches the pipeline's last step, which then fits; before,
    # it read its label set off them and failed after the charge.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    y = np.zeros(3000, int)
    y[:3] = 1
    ledger = PrivacyAccountant(delta=0.5)
    clf = SubSamplingActiveClassifier(
        _pipeline(SemiPrivateClassifier(bounds=(-4, 4), epsilon=0.3)),
        epsilon=0.5,
        n_subsample=10,
        n_labeled=5,
        classes=[0, 1],
        accountant=ledger,
    ).fit(X, y)
    assert clf.estimator_.classes_.tolist() == [0, 1]
    assert len(ledger.history) == 1


def test_active_takes_a_label_set_declared_deep_in_its_base():
    base = _pipeline(SemiPrivateLogisticRegression(classes=[0, 1]))
    assert declared_classes(base) == [0, 1]
    assert SubSamplingActiveClassifier(base)._declared_classes() == [0, 1]
    assert LabelBoostClassifier(base)._declared_classes() == [0, 1]


def test_active_probes_its_base_before_the_charge_without_a_label_set():
    # No label set anywhere, no public data: the pipeline's refusal of a
    # transformer without public rows is free, as when fitted alone (the
    # probe used to be skipped, and the refusal came after a charge). The
    # last step's box is given, so that the refusal of a base that would
    # read it off the pool (also free) does not come first.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 2))
    y = (X.sum(axis=1) > 0).astype(int)
    ledger = PrivacyAccountant(delta=0.5)
    clf = SubSamplingActiveClassifier(
        PublicFittedPipeline(
            [
                ("tr", MinMaxScaler()),
                ("m", SemiPrivateLogisticRegression(epsilon=0.4, bounds=(0, 1))),
            ]
        ),
        epsilon=0.8,
        n_subsample=10,
        accountant=ledger,
    )
    with pytest.raises(ValueError, match="on public rows only"):
        clf.fit(X, y)
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_labelboost_fills_the_label_set_of_a_pipelines_last_step():
    # 3% of ones: the base's sample of LabelBoost's relabeled rows may hold
    # one class; with the declared set handed down it fits every time.
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(320_000, 1))
    y = (X[:, 0] > 0.97).astype(int)
    y[2500:] = -1
    ledger = PrivacyAccountant(delta=0.5)
    clf = LabelBoostClassifier(
        _pipeline(SemiPrivateClassifier("thresholds", epsilon=0.5, bounds=(0, 1))),
        n_base=10,
        growth_denominator=0.1,
        classes=[0, 1],
        accountant=ledger,
    )
    for _ in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("error", PrivacyLeakWarning)
            clf.fit(X, y)
        assert clf.estimator_.classes_.tolist() == [0, 1]
    assert len(ledger.history) == 3


# --- a review of the label sets filled from below (A1, A2) --------------------


def _pate_declaring(classes):
    model = SemiPrivateLogisticRegression(classes=classes, bounds=(-4, 4))
    return PATEClassifier(
        teacher=model, student=model, n_teachers=5, bounds=(-4, 4), random_state=0
    )


def test_pate_takes_the_label_set_its_models_declare():
    # PATE without classes= of its own, inside an active classifier that
    # declares [0, 1, 2] as its models do: open_classes counts PATE's slot as
    # filled from below, so PATE must take that set, not read [0, 1] off the
    # queried rows (with a leak warning, and a one-class draw failing after
    # the charge).
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6000, 2))
    X_pub = rng.normal(size=(200, 2))
    pate = _pate_declaring([0, 1, 2])
    assert open_classes(pate) == [] and declared_classes(pate) == [0, 1, 2]
    for y in [(X.sum(axis=1) > 0).astype(int), np.zeros(6000, int)]:
        ledger = PrivacyAccountant(epsilon=100, delta=1e-3)
        clf = SubSamplingActiveClassifier(
            pate, epsilon=1.0, n_subsample=30, classes=[0, 1, 2], accountant=ledger
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error", PrivacyLeakWarning)
            clf.fit(X, y, X_public=PublicData(X_pub))
        assert clf.estimator_.classes_.tolist() == [0, 1, 2]
        assert clf.predict_proba(X[:3]).shape == (3, 3)
        assert len(ledger.history) == 1


@pytest.mark.parametrize(
    "make",
    [
        lambda: SubSamplingActiveClassifier(
            SemiPrivateClassifier(classes=[0, 1, 2]), classes=[0, 1], epsilon=1.0
        ),
        lambda: SubSamplingActiveClassifier(
            PrivateParameterSearch(
                SemiPrivateClassifier(classes=[0, 1, 2]),
                {"epsilon": [0.1]},
                classes=[0, 1],
            ),
            epsilon=1.0,
        ),
        lambda: PrivateParameterSearch(
            SubSamplingActiveClassifier(
                SemiPrivateClassifier(classes=[0, 1, 2]), epsilon=1.0
            ),
            {"epsilon": [1.0]},
            classes=[0, 1],
        ),
        lambda: _pate_declaring([0, 1, 2]).set_params(classes=[0, 1]),
    ],
)
def test_two_different_declared_label_sets_are_refused_before_the_charge(make):
    # The outer set became classes_, the inner one was fitted, and
    # predict_proba indexed past the end (a review).
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(3000, 2))
    y = (X[:, 0] > 0.5).astype(int)
    ledger = PrivacyAccountant(epsilon=100, delta=1e-3)
    est = make().set_params(accountant=ledger)
    with pytest.raises(ValueError, match="Two different label sets"):
        est.fit(X, y, X_public=PublicData(rng.uniform(size=(50, 2))))
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_one_queried_label_and_no_label_set_is_refused_before_the_charge():
    # m = 1 queried label can never hold two classes: refused for free (it
    # was charged, then refused, whatever the data; a review).
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(3000, 2))
    y = (X[:, 0] > 0.5).astype(int)
    ledger = PrivacyAccountant(epsilon=100)
    clf = SubSamplingActiveClassifier(
        SemiPrivateClassifier(bounds=(0, 1)),
        n_subsample=40,
        n_labeled=1,
        accountant=ledger,
    )
    with pytest.raises(ValueError, match="n_labeled=1 with no classes="):
        clf.fit(X, y)
    assert ledger.spent() == PrivacyCost(0.0, 0.0)
