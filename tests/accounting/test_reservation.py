"""Several ledgers are charged as one reservation: all have room, or none is.

A mutation review removed the loop that checks every ledger before charging
any: a refusal by a later ledger then came after the earlier ones were
charged, for a fit that never ran (an over-charge, no privacy lost, but the
lifetime ledgers were wrong), and no test failed.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest

from sklearn_semiprivate import (
    PATEClassifier,
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyCost,
    PublicData,
    SemiPrivateClassifier,
)
from sklearn_semiprivate.accounting._reservation import reserve_on_ledgers


def test_a_ledger_without_room_refuses_before_any_is_charged():
    roomy = [PrivacyAccountant(epsilon=10.0, delta=1e-3) for _ in range(2)]
    tight = PrivacyAccountant(epsilon=0.5, delta=1e-3)
    for order in ([*roomy, tight], [tight, *roomy], [roomy[0], tight, roomy[1]]):
        with pytest.raises(PrivacyBudgetError):
            reserve_on_ledgers(order, PrivacyCost(1.0, 0.0), "test")
        assert all(led.history == [] for led in order)
    # With room everywhere, each distinct ledger once (a repeat is skipped).
    reserve_on_ledgers([*roomy, roomy[0], None], PrivacyCost(1.0, 0.0), "test")
    assert [len(led.history) for led in roomy] == [1, 1]


def test_a_fit_refused_by_a_nested_ledger_charges_no_other():
    rng = np.random.default_rng(0)
    X, X_pub = rng.uniform(size=(40, 2)), rng.uniform(size=(30, 2))
    y = (X[:, 0] > 0.5).astype(int)
    shared = PrivacyAccountant(epsilon=100.0, delta=1e-3)
    student = PrivacyAccountant(epsilon=100.0, delta=1e-3)
    teacher = PrivacyAccountant(epsilon=0.5, delta=1e-3)
    spc = {"bounds": (0, 1), "classes": [0, 1]}
    pate = PATEClassifier(
        teacher=SemiPrivateClassifier(accountant=teacher, **spc),
        student=SemiPrivateClassifier(accountant=student, **spc),
        n_teachers=1,
        epsilon=1.0,
        classes=[0, 1],
        accountant=shared,
    )
    with pytest.raises(PrivacyBudgetError):
        pate.fit(X, y, X_public=PublicData(X_pub))
    assert shared.history == student.history == teacher.history == []
