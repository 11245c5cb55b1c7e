"""Meta-estimators refuse an inner learner that would read its box off private rows.

A review (November 2026) fitted ``LabelBoostClassifier`` and
``SubSamplingActiveClassifier`` around ``SemiPrivateClassifier("thresholds")``
with no ``bounds`` and no public data: the base learner read its domain box off
the private rows it was given (with a ``PrivacyLeakWarning``), its released grid
was centred on a private x, and ``privacy_spent_`` still stated the full
guarantee. ``SubsampleTestReweighClassifier`` already refused that setup; all
three now refuse it on parameters alone, before any charge.
"""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import numpy as np
import pytest

from sklearn_semiprivate import (
    LabelBoostClassifier,
    PrivacyAccountant,
    PrivacyLeakWarning,
    PublicData,
    SemiPrivateClassifier,
    SubSamplingActiveClassifier,
)


def _base(**params):
    return SemiPrivateClassifier("thresholds", epsilon=1.0, classes=[0, 1], **params)


def _labelboost(base, acc=None):
    return LabelBoostClassifier(base, n_base=1, classes=[0, 1], accountant=acc)


def _active(base, acc=None):
    return SubSamplingActiveClassifier(base, epsilon=0.5, accountant=acc)


def _rows(n, labeled):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(n, 1))
    y = (X[:, 0] > 0.5).astype(int)
    y[labeled:] = -1
    return X, y


CASES = {
    "labelboost": (lambda base, acc: _labelboost(base, acc), (600, 300)),
    "active": (lambda base, acc: _active(base, acc), (5000, 5000)),
    "active over labelboost": (
        lambda base, acc: _active(_labelboost(base), acc),
        (60000, 60000),
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_base_without_bounds_or_public_data_is_refused_before_the_charge(case):
    make, (n, labeled) = CASES[case]
    X, y = _rows(n, labeled)
    acc = PrivacyAccountant(epsilon=100.0)
    clf = make(_base(), acc)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # nothing read
        with pytest.raises(ValueError, match=r"bounds\) and no public data"):
            clf.fit(X, y)
    assert acc.spent() == (0.0, 0.0)
    assert not hasattr(clf, "estimator_")


@pytest.mark.parametrize("case", ["labelboost", "active"])
def test_base_with_bounds_or_public_data_fits_without_a_leak(case):
    make, (n, labeled) = CASES[case]
    X, y = _rows(n, labeled)
    public = PublicData(np.linspace(0.0, 1.0, 20)[:, None])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        make(_base(bounds=(0.0, 1.0)), None).fit(X, y)
        make(_base(), None).fit(X, y, X_public=public)
