"""Meta-estimators refuse, before their charge, what their base would refuse.

A base learner fitted alone raises its refusals of data of this format (a 1-D
class on 2 features) before its reservation, for free. Inside the active
classifier and LabelBoost it is fitted after their charge, on rows they build:
a review found those refusals charged. Both now run the base's own fit on
placeholder rows, up to its reservation, first.
"""

import numpy as np
import pytest

from sklearn_semiprivate import (
    LabelBoostClassifier,
    PrivacyAccountant,
    PublicData,
    SemiPrivateClassifier,
    SubSamplingActiveClassifier,
)
from sklearn_semiprivate.hypotheses import Halfplanes


def test_active_classifier_refuses_a_base_that_cannot_take_the_data():
    rng = np.random.default_rng(0)
    X, X_pub = rng.uniform(size=(4000, 2)), rng.uniform(size=(50, 2))
    y = (X[:, 0] > 0.5).astype(int)
    base = SemiPrivateClassifier("thresholds", classes=[0, 1])  # 1-D class
    ledger = PrivacyAccountant(10.0)
    active = SubSamplingActiveClassifier(
        base, epsilon=0.5, classes=[0, 1], accountant=ledger
    )
    with pytest.raises(ValueError, match="1-D class"):
        active.fit(X, y, X_public=PublicData(X_pub))
    assert ledger.history == []
    # The same base on one feature fits, and is charged once.
    active.fit(X[:, :1], y, X_public=PublicData(X_pub[:, :1]))
    assert len(ledger.history) == 1


def _labelboost_data(n_features):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(621 + 440_000, n_features))
    y = np.full(X.shape[0], -1)
    y[:621] = (X[:621, 0] > 0.3).astype(int)
    return X, y


def test_labelboost_refuses_a_base_that_cannot_take_the_data():
    X, y = _labelboost_data(1)
    ledger = PrivacyAccountant(10.0, 0.5)
    base = SemiPrivateClassifier("halfplanes", bounds=(0, 1), classes=[0, 1])
    clf = LabelBoostClassifier(
        base, n_base=10, growth_denominator=0.1, classes=[0, 1], accountant=ledger
    )
    with pytest.raises(ValueError, match="Halfplanes needs 2 features"):
        clf.fit(X, y)
    assert ledger.history == []


def test_labelboost_refuses_a_relabeling_class_that_cannot_take_the_data():
    X, y = _labelboost_data(1)
    ledger = PrivacyAccountant(10.0, 0.5)
    base = SemiPrivateClassifier("thresholds", bounds=(0, 1), classes=[0, 1])
    clf = LabelBoostClassifier(
        # vc_dim=2 keeps the schedule of these row counts (thresholds')
        base, hypothesis_class=Halfplanes(), vc_dim=2, n_base=10,
        growth_denominator=0.1, classes=[0, 1], accountant=ledger,
    )  # fmt: skip
    with pytest.raises(ValueError, match="placeholder point"):
        clf.fit(X, y)
    assert ledger.history == []
