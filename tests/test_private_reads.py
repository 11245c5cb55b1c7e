"""How a fit reports a value it reads off its rows outside any mechanism.

``utils.warn_private_read`` warns by default, raises inside
``private_reads_refused`` and is silent inside ``reads_not_leaks``; the mode is
a context variable, so it is seen by the thread that sets it and no other. A
review found the earlier signal, a process-wide ``"error"`` warnings filter,
failing an unrelated fit in another thread after its charge.
"""

# SPDX-License-Identifier: BSD-3-Clause

import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.base import clone

from sklearn_semiprivate import (
    GenericLearnerClassifier,
    PATEClassifier,
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyLeakWarning,
    PrivateSGDClassifier,
    PublicData,
    PublicDataWarning,
    SemiPrivateClassifier,
    SemiPrivateLogisticRegression,
    SemiPrivateTreeClassifier,
    SyntheticDataClassifier,
)
from sklearn_semiprivate.utils import (
    private_reads_refused,
    reads_not_leaks,
    warn_private_read,
)


def _outcome(call):
    """'warned', 'raised' or 'silent', with every warning recorded."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
        except ValueError:
            return "raised"
    leaks = [w for w in caught if w.category is PrivacyLeakWarning]
    return "warned" if leaks else "silent"


def _read():
    warn_private_read("the box is read off the rows")


def test_modes_and_nesting():
    assert _outcome(_read) == "warned"
    with private_reads_refused("Stopped."):
        assert _outcome(_read) == "raised"
        with reads_not_leaks():
            assert _outcome(_read) == "silent"
            with private_reads_refused("Stopped again."):
                assert _outcome(_read) == "raised"
            assert _outcome(_read) == "silent"
        assert _outcome(_read) == "raised"
    assert _outcome(_read) == "warned"


def test_refused_whatever_the_warning_filters():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with private_reads_refused("Stopped."):
            with pytest.raises(ValueError, match=r"^Stopped\. \(The read: the box"):
                _read()


def test_a_users_error_filter_still_refuses_by_default():
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        with pytest.raises(PrivacyLeakWarning):
            _read()


def test_the_warning_points_at_the_caller():
    with pytest.warns(PrivacyLeakWarning) as caught:
        _read()
    assert caught[0].filename == __file__


def test_the_mode_is_left_on_an_exception():
    with pytest.raises(RuntimeError):
        with private_reads_refused("Stopped."):
            raise RuntimeError
    assert _outcome(_read) == "warned"


def test_other_threads_keep_the_default_mode():
    # Deterministic: a new thread starts in the default context, so a block
    # entered here is not seen there, wherever either thread is.
    with private_reads_refused("Stopped."), ThreadPoolExecutor(1) as pool:
        assert pool.submit(_outcome, _read).result() == "warned"
    with reads_not_leaks(), ThreadPoolExecutor(1) as pool:
        assert pool.submit(_outcome, _read).result() == "warned"


def test_a_concurrent_fit_in_another_thread_is_not_stopped():
    # The review's reproducer, made deterministic: one thread holds the
    # refused mode open while another fits a learner that reads its box off
    # its rows (no bounds, no public data). That fit warns and completes.
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 1))
    y = (X[:, 0] > 0.5).astype(int)
    inside, done = threading.Event(), threading.Event()

    def hold():
        with private_reads_refused("Stopped."):
            inside.set()
            done.wait(60)

    def fit():
        SemiPrivateClassifier("thresholds", epsilon=1.0, classes=[0, 1]).fit(X, y)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert inside.wait(60)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PublicDataWarning)
            assert _outcome(fit) == "warned"
    finally:
        done.set()
        holder.join()


def test_inner_fits_on_public_rows_do_not_warn():
    # PATE's student is fitted on its grid points with released labels (no
    # public data), the synthetic classifier's learner on released rows:
    # reading a box off them is no leak (a review found the false warnings),
    # and their callers could not give them public data.
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(600, 1))
    y = (X[:, 0] > 0.5).astype(int)
    student = SemiPrivateClassifier("thresholds", epsilon=1.0, classes=[0, 1])
    clf = PATEClassifier(
        student=student, aggregator="lnmax", epsilon=0.5, bounds=(0.0, 1.0),
        classes=[0, 1],
    )  # fmt: skip
    synthetic = SyntheticDataClassifier(estimator=student, epsilon=1.0, classes=[0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", PublicDataWarning)
        warnings.simplefilter("error", PrivacyLeakWarning)
        clf.fit(X, y)
        # The synthetic classifier's learner, on the released rows.
        synthetic.fit(X, y, X_public=PublicData(X[:40]))
    # The student alone, on rows given to it as private, still warns of both.
    with (
        pytest.warns(PublicDataWarning, match="No public data"),
        pytest.warns(PrivacyLeakWarning, match="bounds are read"),
    ):
        student.fit(X, y)


@pytest.mark.parametrize(
    "estimator",
    [
        SemiPrivateClassifier(classes=[0, 1]),
        SemiPrivateLogisticRegression(classes=[0, 1]),
        SemiPrivateTreeClassifier(classes=[0, 1]),
        PrivateSGDClassifier(classes=[0, 1]),
        PATEClassifier(classes=[0, 1]),
        SyntheticDataClassifier(classes=[0, 1]),
        GenericLearnerClassifier(classes=[0, 1]),
    ],
    ids=lambda est: type(est).__name__,
)
def test_a_refused_budget_is_refused_before_the_box_is_read(estimator):
    # Without public data and bounds= each reads its box off the private rows
    # (a warned read), but only after its reservation: a ledger that refuses
    # the fit must see it before that read (a mutation review moved the
    # tree's read before its reservation and no test noticed).
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(200, 2))
    y = (X[:, 0] > 0.5).astype(int)
    clf = clone(estimator).set_params(accountant=PrivacyAccountant(epsilon=1e-6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PublicDataWarning)
        warnings.simplefilter("error", PrivacyLeakWarning)
        with pytest.raises(PrivacyBudgetError):
            clf.fit(X, y)
