"""One integer check for every count parameter; no boolean privacy parameter."""

import numpy as np
import pytest
from sklearn.base import clone

from sklearn_semiprivate import (
    GenericLearnerClassifier,
    PATEClassifier,
    PrivacyAccountant,
    PrivacyCost,
    PrivateSGDClassifier,
    PublicAssistedQueryRelease,
    PublicData,
    SemiPrivateClassifier,
    SemiPrivateLogisticRegression,
    SemiPrivateTreeClassifier,
    SyntheticDataClassifier,
)
from sklearn_semiprivate.accounting import compose_advanced
from sklearn_semiprivate.audit import clopper_pearson, neighbouring_pairs
from sklearn_semiprivate.query_release import ThresholdQueries
from sklearn_semiprivate.utils import check_integer


def test_check_integer():
    assert check_integer(np.int64(3), "n", 1) == 3
    assert type(check_integer(np.int32(0), "n", 0)) is int
    for bad in (True, np.bool_(True), 2.0, "2", None):
        with pytest.raises(TypeError, match="n must be an integer"):
            check_integer(bad, "n", 0)
    with pytest.raises(ValueError, match="n must be >= 1, got 0"):
        check_integer(0, "n", 1)


def test_count_parameters_agree_across_the_package():
    # numpy integers are accepted everywhere, bools refused everywhere
    assert len(neighbouring_pairs([0, 1], np.int64(1))) > 0
    assert compose_advanced((0.1, 0.0), np.int64(3), 1e-5).epsilon > 0
    with pytest.raises(TypeError):
        neighbouring_pairs([0, 1], True)
    with pytest.raises(TypeError):
        compose_advanced((0.1, 0.0), True, 1e-5)
    with pytest.raises(TypeError):
        clopper_pearson(True, 10)


def _estimators():
    return [
        SemiPrivateClassifier(),
        GenericLearnerClassifier(),
        SemiPrivateTreeClassifier(),
        SemiPrivateLogisticRegression(),
        PrivateSGDClassifier(),
        PATEClassifier(),
        SyntheticDataClassifier(),
        PublicAssistedQueryRelease(ThresholdQueries([0.25, 0.5, 0.75])),
    ]


@pytest.mark.parametrize("param", ["epsilon", "delta"])
@pytest.mark.parametrize("bad", [True, np.bool_(True)], ids=["bool", "np.bool_"])
@pytest.mark.parametrize("est", _estimators(), ids=lambda e: type(e).__name__)
def test_boolean_privacy_parameter_is_refused_before_the_charge(est, param, bad):
    # scikit-learn's Interval(Real) takes True as 1; a review found
    # SemiPrivateClassifier(epsilon=True) charged 1 and then failed in the
    # mechanism's check, and the tree fitted at epsilon = 1.
    est = clone(est)  # the parametrized instance is shared between cases
    if param not in est.get_params():
        pytest.skip(f"{type(est).__name__} has no {param}")
    rng = np.random.default_rng(0)
    X, y = rng.uniform(size=(60, 1)), np.arange(60) % 2
    ledger = PrivacyAccountant(epsilon=100.0, delta=0.5)
    est.set_params(**{param: bad}, accountant=ledger, classes=[0, 1])
    with pytest.raises((TypeError, ValueError), match=param):
        est.fit(X, y, X_public=PublicData(rng.uniform(size=(20, 1))))
    assert ledger.spent() == PrivacyCost(0.0, 0.0)
