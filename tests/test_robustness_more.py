"""Robustness of the estimators ``tests/test_robustness.py`` leaves out.

The same policy as there (read its module docstring): malformed input gets a
``ValueError``/``TypeError`` naming the problem, never an exception from inside
numpy, and before any ledger charge except where a class's docstring says a
check runs after the charge by design (the private-label check of
:func:`~sklearn_semiprivate.classifiers._base.check_private_labels`); extreme
epsilon fits or fails clearly; inputs are not modified; a pickled fitted
estimator gives the same outputs; and whether a fit fails depends on the public
inputs and parameters only.

Covered here, on small data so the file stays fast:

* ``SubsampleTestReweighClassifier`` (needs ``X_target``/``y_target``);
* ``LabelBoostClassifier`` (>= 300 labeled rows, ``y == -1`` unlabeled);
* ``PublicAssistedQueryRelease(support="representative")`` on a tiny domain
  (``ThresholdQueries`` on one feature) and ``support="mixture"``
  (``MarginalQueries`` on a few binary columns);
* the audit functions that take data.
"""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from test_robustness import FAILURE_SETTINGS, NUMPY_INTERNALS, _fit, _outcome, _with

from sklearn_semiprivate import (
    LabelBoostClassifier,
    PrivacyAccountant,
    PrivacyCost,
    PrivateSGDClassifier,
    PublicAssistedQueryRelease,
    PublicData,
    PublicDataWarning,
    SemiPrivateClassifier,
    SubsampleTestReweighClassifier,
)
from sklearn_semiprivate.audit import (
    epsilon_lower_bound,
    epsilon_lower_bound_search,
    membership_rates,
    noisy_public_overlap,
    tracing_attack_scores,
)
from sklearn_semiprivate.query_release import MarginalQueries, ThresholdQueries

FREE = PrivacyCost(0.0, 0.0)
CLASSES = [0, 1]
THRESHOLDS = ThresholdQueries(np.linspace(0.1, 0.9, 5))
MARGINALS = MarginalQueries(k=2, n_categories=2)

# --------------------------------------------------------------------------
# Factories and data: name -> (make(ledger, **params), data(seed), fit kwargs)
# --------------------------------------------------------------------------


def _labelboost(acc, **kw):
    base = SemiPrivateClassifier("thresholds", bounds=(0, 1), n_public=16, epsilon=1.0)
    return LabelBoostClassifier(
        base, n_base=1, classes=CLASSES, accountant=acc, random_state=0, **kw
    )


def _transfer(acc, **kw):
    params = {
        "alpha": 0.1, "epsilon": 2.0, "delta": 1e-5, "kappa": 0.5,
        "local_epsilon": 1.0, "max_iter": 3, "n_subsample": 20, **kw,
    }  # fmt: skip
    sgd = PrivateSGDClassifier(classes=CLASSES, bounds=(-4, 4), random_state=0)
    return SubsampleTestReweighClassifier(sgd, accountant=acc, random_state=0, **params)


def _representative(acc, **kw):
    return PublicAssistedQueryRelease(
        THRESHOLDS, support="representative", accountant=acc, random_state=0, **kw
    )


def _mixture(acc, support="mixture", **kw):
    return PublicAssistedQueryRelease(
        MARGINALS,
        support=support,
        n_iterations=2,
        accountant=acc,
        random_state=0,
        **kw,
    )


def _graphical(acc, **kw):
    return _mixture(acc, support="graphical", **kw)


FACTORIES = {
    "labelboost": _labelboost,
    "transfer": _transfer,
    "representative": _representative,
    "mixture": _mixture,
    "graphical": _graphical,
}
NAMES = sorted(FACTORIES)
RELEASES = {"representative", "mixture", "graphical"}


def _data(name, seed=0, n_pub=30):
    """(X, y, X_public, y_public, extra fit kwargs) in the valid domain."""
    rng = np.random.default_rng(seed)
    if name == "labelboost":
        X = rng.uniform(size=(360, 1))
        y = (X[:, 0] > 0.3).astype(int)
        y[320:] = -1  # which rows are unlabeled is public
        P = rng.uniform(size=(n_pub, 1))
        return X, y, P, (P[:, 0] > 0.3).astype(int), {}
    if name == "transfer":
        X = rng.normal(size=(3000, 2))
        X_t = rng.normal(0.5, 0.5, size=(4000, 2))
        P = rng.normal(size=(n_pub, 2))
        extra = {"X_target": X_t, "y_target": (X_t[:, 0] > 0).astype(int)}
        return X, (X[:, 0] > 0).astype(int), P, (P[:, 0] > 0).astype(int), extra
    if name == "representative":
        return rng.uniform(size=(300, 1)), None, rng.uniform(size=(n_pub, 1)), None, {}
    X = rng.integers(0, 2, size=(300, 3)).astype(float)
    return X, None, rng.integers(0, 2, size=(n_pub, 3)).astype(float), None, {}


def _outputs(est, X):
    if isinstance(est, PublicAssistedQueryRelease):
        queries = THRESHOLDS if est.support == "representative" else MARGINALS
        return [est.transform(queries), np.asarray(est.sample(5, random_state=0))]
    return [est.predict(X)]


# --------------------------------------------------------------------------
# Malformed input
# --------------------------------------------------------------------------


def _pub(P, q):
    return PublicData(P, q)


# case -> (make(X, y, P, q, extra) -> (X, y, X_public, extra), pattern)
MALFORMED = {
    "nan_X": (lambda X, y, P, q, e: (_with(X, 4, np.nan), y, _pub(P, q), e), "NaN"),
    "inf_X": (
        lambda X, y, P, q, e: (_with(X, 4, np.inf), y, _pub(P, q), e),
        "infinity",
    ),
    "nan_public": (
        lambda X, y, P, q, e: (X, y, _pub(_with(P, 0, np.nan), q), e),
        "NaN",
    ),
    "inf_public": (
        lambda X, y, P, q, e: (X, y, _pub(_with(P, 0, -np.inf), q), e),
        "infinity",
    ),
    "string_X": (
        lambda X, y, P, q, e: (np.full(X.shape, "abc"), y, _pub(P, q), e),
        "string",
    ),
    "object_X": (
        lambda X, y, P, q, e: (
            np.array([[None] * X.shape[1]] * len(X), dtype=object),
            y,
            _pub(P, q),
            e,
        ),
        "NaN|float|None|object|string",  # None reads as NaN
    ),
    "string_public": (
        lambda X, y, P, q, e: (X, y, _pub(np.full(P.shape, "abc"), q), e),
        "could not convert|string",
    ),
    "sparse_X": (
        lambda X, y, P, q, e: (sp.csr_matrix(X), y, _pub(P, q), e),
        "[Ss]parse",
    ),
    "sparse_public": (
        lambda X, y, P, q, e: (X, y, _pub(sp.csr_matrix(P), q), e),
        "[Ss]parse",
    ),
    "empty_public": (
        lambda X, y, P, q, e: (
            X,
            y,
            PublicData(P[:0], None if q is None else q[:0]),
            e,
        ),
        "empty",
    ),
    "X_1d": (lambda X, y, P, q, e: (X[:, 0], y, _pub(P, q), e), "2D|2-dim"),
    "feature_mismatch": (
        lambda X, y, P, q, e: (X, y, _pub(np.hstack([P, P]), q), e),
        "features",
    ),
    "public_label_outside_classes": (
        lambda X, y, P, q, e: (X, y, _pub(P, np.where(q == 1, 7, 0)), e),
        "not in classes|classes",
    ),
    # the agents' rows (SubsampleTestReweigh): format checks before the charge
    "nan_target": (
        lambda X, y, P, q, e: (
            X,
            y,
            _pub(P, q),
            {**e, "X_target": _with(e["X_target"], 3, np.nan)},
        ),
        "NaN",
    ),
    "target_feature_mismatch": (
        lambda X, y, P, q, e: (
            X,
            y,
            _pub(P, q),
            {**e, "X_target": e["X_target"][:, :1]},
        ),
        "X_target has 1 features",
    ),
    # (a label outside the classes is a loss, not an error: test_transfer)
    "target_labels_of_another_kind": (
        lambda X, y, P, q, e: (
            X,
            y,
            _pub(P, q),
            {**e, "y_target": np.where(e["y_target"] == 1, "a", "b")},
        ),
        "y_target holds strings",
    ),
    "target_missing": (
        lambda X, y, P, q, e: (X, y, _pub(P, q), {}),
        "needs the target",
    ),
}

LABEL_CASES = {"public_label_outside_classes"}
TARGET_CASES = {c for c in MALFORMED if "target" in c}
# The releases are unlabeled here; the target belongs to SubsampleTestReweigh.
NOT_APPLICABLE = {(n, c) for n in RELEASES for c in LABEL_CASES} | {
    (n, c) for n in NAMES if n != "transfer" for c in TARGET_CASES
}
# Declared public-only-by-design exceptions: none.
CHARGED = set()


@pytest.mark.parametrize("case", sorted(MALFORMED))
@pytest.mark.parametrize("name", NAMES)
def test_malformed_input_is_refused_clearly_before_any_charge(name, case):
    if (name, case) in NOT_APPLICABLE:
        pytest.skip("not an input of this estimator")
    make, pattern = MALFORMED[case]
    X, y, P, q, extra = _data(name)
    if name in RELEASES:
        q = None
    ledger = PrivacyAccountant(epsilon=1e3, delta=0.5)
    est = FACTORIES[name](ledger)
    X_fit, y_fit, pub, extra = make(X, y, P, q, extra)
    with pytest.raises((ValueError, TypeError), match=pattern) as info:
        _fit(est, X_fit, y_fit, pub, **extra)
    assert not isinstance(info.value, NUMPY_INTERNALS)
    if (name, case) not in CHARGED:
        assert ledger.spent() == FREE


# Private labels outside ``classes``: both docstrings (and
# check_private_labels) put this check after the reservation, so that it is
# not a free exact oracle; the fit stays charged and quotes no label.
@pytest.mark.parametrize("name", ["labelboost", "transfer"])
def test_private_label_outside_classes_is_refused_after_the_charge(name):
    X, y, P, q, extra = _data(name)
    y = np.where(y == 1, 7, y)
    ledger = PrivacyAccountant(epsilon=1e3, delta=0.5)
    with pytest.raises(ValueError, match=r"some labels|not in classes") as info:
        _fit(FACTORIES[name](ledger), X, y, PublicData(P, q), **extra)
    assert "7" not in str(info.value)
    assert ledger.spent() != FREE


# Mixture release: "every private value is a code of the workload's domain" is
# a question the public workload asks, so _release.py asks it after the
# reservation (no free oracle); the message quotes no row and no value.
@pytest.mark.parametrize("value", [5.0, 0.5, -1.0])
def test_mixture_private_value_outside_the_domain_is_refused_after_the_charge(value):
    X, _, P, _, _ = _data("mixture")
    X = X.copy()
    X[3, 1] = value
    ledger = PrivacyAccountant(epsilon=1e3, delta=0.5)
    with pytest.raises(ValueError, match="outside the declared domain") as info:
        _mixture(ledger).fit(X, X_public=PublicData(P))
    assert str(value) not in str(info.value)
    assert ledger.spent() != FREE


def test_labelboost_label_set_checks_come_before_the_charge():
    X, y, _, _, _ = _data("labelboost")
    for params, pattern in [
        ({"classes": [0, 1, 2]}, "binary"),
        ({"classes": [-1, 1]}, "-1"),
    ]:
        ledger = PrivacyAccountant(epsilon=1e3, delta=0.5)
        est = _labelboost(ledger).set_params(**params)
        with pytest.raises(ValueError, match=pattern):
            est.fit(X, y)
        assert ledger.spent() == FREE
    # every row unlabeled; string labels in a numpy string array
    ledger = PrivacyAccountant(epsilon=1e3, delta=0.5)
    with pytest.raises(ValueError, match="needs labeled rows"):
        _labelboost(ledger).fit(X, np.full_like(y, -1))
    with pytest.raises((ValueError, TypeError)):
        _labelboost(ledger).fit(X, np.where(y == 1, "a", "b"))
    # fewer than 300 labeled rows: a clear error naming the rows needed
    with pytest.raises(ValueError, match="labeled"):
        _labelboost(ledger).fit(X[:200], y[:200])
    assert ledger.spent() == FREE


# --------------------------------------------------------------------------
# Extreme epsilon
# --------------------------------------------------------------------------


# LabelBoost's epsilon is a target in (0, 1]: 1e6 is refused by validation.
@pytest.mark.parametrize("epsilon", [1e-6, 1e6])
@pytest.mark.parametrize("name", NAMES)
def test_extreme_epsilon_fits_or_fails_clearly(name, epsilon):
    X, y, P, _, extra = _data(name)
    ledger = PrivacyAccountant(epsilon=1e7, delta=0.5)
    est = FACTORIES[name](ledger, epsilon=epsilon)
    outcome = _outcome(est, X, y, PublicData(P), **extra)
    if outcome == "ok":
        for out in _outputs(est, X[:7]):
            if out.dtype.kind == "f":
                assert np.all(np.isfinite(out))
        return
    assert "epsilon" in outcome or "rows" in outcome, outcome
    assert ledger.spent() == FREE


# --------------------------------------------------------------------------
# Privacy: failure depends on public inputs only
# --------------------------------------------------------------------------


@st.composite
def _two_private_sets(draw, name):
    """Two private data sets of ``_data(name)``'s shape in the valid domain."""
    X0, y0, _, _, _ = _data(name)
    sets = []
    for _ in range(2):
        if name in ("mixture", "graphical"):
            X = draw(arrays(np.float64, X0.shape, elements=st.sampled_from([0.0, 1.0])))
        else:
            # only the first rows are drawn (keeps the draw small); the rest
            # are constant, so the two sets still share the shape
            head = draw(
                arrays(
                    np.float64,
                    (8, X0.shape[1]),
                    elements=st.one_of(
                        st.floats(-1.0, 2.0),
                        st.sampled_from([0.0, 1e-300, 1e300, -1e300]),
                    ),
                )
            )
            fill = draw(st.sampled_from([0.0, 0.5, 1.0, 1e300]))
            X = np.vstack([head, np.full((X0.shape[0] - 8, X0.shape[1]), fill)])
        y = None
        if y0 is not None:
            y = np.full(y0.shape, draw(st.sampled_from(CLASSES)))
            y[:8] = draw(arrays(np.int64, 8, elements=st.sampled_from(CLASSES)))
            y[y0 == -1] = -1  # the same (public) unlabeled positions
        sets.append((X, y))
    return sets


@pytest.mark.filterwarnings("ignore:No feature has two distinct public bins")
@pytest.mark.parametrize(
    "name", ["labelboost", "mixture", "graphical", "representative"]
)
def test_failure_depends_on_public_inputs_only(name):
    @FAILURE_SETTINGS
    @given(
        private=_two_private_sets(name),
        n_pub=st.sampled_from([30, 1, 2]),  # 30 first: see epsilon
        # 1.0 first: the example hypothesis shrinks to (LabelBoost fits only
        # at its full epsilon on this small data)
        epsilon=st.sampled_from([1.0, 1e-6, 0.5, 1e6]),
    )
    def check(private, n_pub, epsilon):
        _, _, P, _, extra = _data(name, n_pub=n_pub)
        pub = PublicData(P)
        outcomes = [
            _outcome(FACTORIES[name](None, epsilon=epsilon), X, y, pub, **extra)
            for X, y in private
        ]
        assert outcomes[0] == outcomes[1], outcomes
        seen.add(outcomes[0] == "ok")

    seen = set()
    check()
    assert True in seen, "no example fitted: the property was not exercised"


def test_transfer_failure_depends_on_public_inputs_only():
    # Two curator data sets of one shape (finite, labels in classes), and the
    # same target: the same outcome at each epsilon.
    _, _, P, _, extra = _data("transfer")
    rng = np.random.default_rng(5)
    private = [
        (rng.normal(size=(3000, 2)) * 1e300, np.zeros(3000, dtype=int)),
        (rng.uniform(size=(3000, 2)), rng.integers(0, 2, size=3000)),
    ]
    for epsilon in (1e-6, 2.0):
        outcomes = [
            _outcome(_transfer(None, epsilon=epsilon), X, y, PublicData(P), **extra)
            for X, y in private
        ]
        assert outcomes[0] == outcomes[1], outcomes


# --------------------------------------------------------------------------
# Inputs not modified; pickling keeps the outputs
# --------------------------------------------------------------------------


@pytest.mark.parametrize("frame", [False, True], ids=["array", "pandas"])
@pytest.mark.parametrize("name", NAMES)
def test_inputs_are_not_modified(name, frame):
    X, y, P, q, extra = _data(name)
    if frame:
        cols = [f"c{j}" for j in range(X.shape[1])]
        X, P = pd.DataFrame(X, columns=cols), pd.DataFrame(P, columns=cols)
        if y is not None:
            y = pd.Series(y)
    inputs = [a for a in (X, y, P, q, *extra.values()) if a is not None]
    copies = [a.copy() for a in inputs]
    est = _fit(FACTORIES[name](None), X, y, PublicData(P, q), **extra)
    _outputs(est, X)
    for before, now in zip(copies, inputs):
        if hasattr(now, "equals"):
            assert now.equals(before)
        else:
            np.testing.assert_array_equal(now, before)


# Found by this file: with a DataFrame X and a DataFrame X_public of the same
# columns, LabelBoost handed its inner prepare_fit_data the labeled rows as an
# array (and SubsampleTestReweigh handed its learner the curator's draws as an
# array) next to the public frame, which warned that "the private X reaching
# this estimator has none" (column names): a false alarm. Both now check the
# public names against X's and pass the public rows on without them.
@pytest.mark.parametrize("name", NAMES)
def test_data_frames_raise_no_spurious_public_data_warning(name):
    X, y, P, q, extra = _data(name)
    cols = [f"c{j}" for j in range(X.shape[1])]
    X, P = pd.DataFrame(X, columns=cols), pd.DataFrame(P, columns=cols)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PublicDataWarning)
        est = _fit(FACTORIES[name](None), X, y, PublicData(P, q), **extra)
    np.testing.assert_array_equal(est.feature_names_in_, cols)


@pytest.mark.parametrize("name", NAMES)
def test_pickled_estimator_gives_the_same_outputs(name):
    X, y, P, q, extra = _data(name)
    est = _fit(FACTORIES[name](None), X, y, PublicData(P, q), **extra)
    clone_ = pickle.loads(pickle.dumps(est))
    for a, b in zip(_outputs(est, X[:50]), _outputs(clone_, X[:50])):
        np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------
# Audit functions that take data
# --------------------------------------------------------------------------


def _overlap_data():
    rng = np.random.default_rng(0)
    return rng.uniform(size=(40, 3)), rng.uniform(size=(10, 3))


OVERLAP_MALFORMED = {
    "nan_X": (lambda X, P: (_with(X, 2, np.nan), P), "NaN"),
    "inf_X": (lambda X, P: (_with(X, 2, np.inf), P), "infinity"),
    "string_X": (lambda X, P: (np.full(X.shape, "abc"), P), "real numbers"),
    "sparse_X": (lambda X, P: (sp.csr_matrix(X), P), "[Ss]parse"),
    "nan_public": (lambda X, P: (X, _with(P, 1, np.nan)), "NaN"),
    "string_public": (lambda X, P: (X, np.full(P.shape, "abc")), "real numbers"),
    "sparse_public": (lambda X, P: (X, sp.csr_matrix(P)), "[Ss]parse"),
    "empty_public": (lambda X, P: (X, P[:0]), "at least one row"),
    "feature_mismatch": (lambda X, P: (X, P[:, :2]), "features"),
    "X_1d": (lambda X, P: (X[:, 0], P), "2D|2-dim"),
}


@pytest.mark.parametrize("case", sorted(OVERLAP_MALFORMED))
def test_noisy_public_overlap_refuses_malformed_input_before_the_charge(case):
    make, pattern = OVERLAP_MALFORMED[case]
    X, P = make(*_overlap_data())
    ledger = PrivacyAccountant(epsilon=10.0)
    with pytest.raises((ValueError, TypeError), match=pattern) as info:
        noisy_public_overlap(X, P, epsilon=1.0, accountant=ledger)
    assert not isinstance(info.value, NUMPY_INTERNALS)
    assert ledger.spent() == FREE


@pytest.mark.parametrize("epsilon", [1e-6, 1e6])
def test_noisy_public_overlap_extreme_epsilon_and_inputs_kept(epsilon):
    X, P = _overlap_data()
    P[:3] = X[:3]
    copies = X.copy(), P.copy()
    ledger = PrivacyAccountant(epsilon=1e7)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        res = noisy_public_overlap(X, PublicData(P), epsilon=epsilon, accountant=ledger)
    assert ledger.spent() == PrivacyCost(epsilon, 0.0)
    assert all(np.isfinite(v) for v in np.ravel(res[:1]).tolist())
    np.testing.assert_array_equal(X, copies[0])
    np.testing.assert_array_equal(P, copies[1])


def _audit_outcome(f, *args, **kw):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            f(*args, **kw)
    except NUMPY_INTERNALS as exc:
        raise AssertionError(f"numpy-internal failure {exc!r}") from exc
    except (ValueError, TypeError) as exc:
        assert str(exc)
        return "error"
    return "ok"


def _signed(rng, n, p):
    return np.where(rng.random((n, p)) < 0.5, 1, -1)


_rng = np.random.default_rng(0)
_ANS, _CAND, _REF = (
    _signed(_rng, 1, 20)[0] * 0.5,
    _signed(_rng, 5, 20),
    _signed(_rng, 9, 20),
)
_A, _B = _rng.laplace(size=200), 1 + _rng.laplace(size=200)

# name -> (function, args, kwargs); every one must be refused clearly
AUDIT_MALFORMED = {
    "tracing_nan_answers": (
        tracing_attack_scores,
        (_with(_ANS, 0, np.nan), _CAND, _REF),
        {},
    ),
    "tracing_length_mismatch": (tracing_attack_scores, (_ANS[:5], _CAND, _REF), {}),
    "tracing_not_signed": (tracing_attack_scores, (_ANS, _CAND * 3, _REF), {}),
    "tracing_empty_reference": (tracing_attack_scores, (_ANS, _CAND, _REF[:0]), {}),
    "tracing_strings": (
        tracing_attack_scores,
        (_ANS, np.full(_CAND.shape, "a"), _REF),
        {},
    ),
    "tracing_sparse": (tracing_attack_scores, (_ANS, sp.csr_matrix(_CAND), _REF), {}),
    "tracing_bad_scale": (
        tracing_attack_scores,
        (_ANS, _CAND, _REF),
        {"answer_scale": "x"},
    ),
    "membership_empty": (membership_rates, ([], [True]), {}),
    "membership_nan": (membership_rates, ([np.nan, 1.0], [True]), {}),
    "membership_strings": (membership_rates, (["yes", "no"], [True]), {}),
    "lower_bound_empty": (epsilon_lower_bound, (_A[:0], _B, lambda x: x > 1), {}),
    "lower_bound_bad_event": (epsilon_lower_bound, (_A, _B, lambda x: x[:3] > 1), {}),
    "lower_bound_alpha": (
        epsilon_lower_bound,
        (_A, _B, lambda x: x > 1),
        {"alpha": 0.0},
    ),
    "lower_bound_delta": (
        epsilon_lower_bound,
        (_A, _B, lambda x: x > 1),
        {"delta": 1.5},
    ),
    "search_nan": (epsilon_lower_bound_search, (_with(_A, 0, np.nan), _B), {}),
    "search_inf": (epsilon_lower_bound_search, (_with(_A, 0, np.inf), _B), {}),
    "search_empty": (epsilon_lower_bound_search, (_A[:0], _B), {}),
    "search_one_sample": (epsilon_lower_bound_search, (_A[:1], _B[:1]), {}),
    "search_2d": (
        epsilon_lower_bound_search,
        (_A.reshape(-1, 2), _B.reshape(-1, 2)),
        {},
    ),
    "search_strings": (epsilon_lower_bound_search, (np.full(4, "a"), _B), {}),
    "search_no_thresholds": (epsilon_lower_bound_search, (_A, _B), {"n_thresholds": 0}),
}


@pytest.mark.parametrize("case", sorted(AUDIT_MALFORMED))
def test_audit_functions_refuse_malformed_input_clearly(case):
    f, args, kw = AUDIT_MALFORMED[case]
    assert _audit_outcome(f, *args, **kw) == "error"


@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    a=arrays(np.float64, st.integers(2, 30), elements=st.floats(-1e300, 1e300)),
    b=arrays(np.float64, st.integers(2, 30), elements=st.floats(-1e300, 1e300)),
)
def test_epsilon_lower_bound_search_on_any_finite_samples(a, b):
    copies = a.copy(), b.copy()
    outcome = _audit_outcome(epsilon_lower_bound_search, a, b, random_state=0)
    assert outcome in ("ok", "error")
    np.testing.assert_array_equal(a, copies[0])
    np.testing.assert_array_equal(b, copies[1])


@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    cand=arrays(np.int64, (4, 6), elements=st.sampled_from([-1, 1])),
    ref=arrays(
        np.int64,
        st.tuples(st.integers(1, 5), st.just(6)),
        elements=st.sampled_from([-1, 1]),
    ),
    ans=arrays(np.float64, 6, elements=st.floats(-1, 1)),
)
def test_tracing_scores_on_any_valid_rows(cand, ref, ans):
    copies = cand.copy(), ref.copy(), ans.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        scores = tracing_attack_scores(ans, cand, ref)
    assert scores.shape == (4,) and np.all(np.isfinite(scores))
    for before, now in zip(copies, (cand, ref, ans)):
        np.testing.assert_array_equal(now, before)


def test_advanced_composition_of_a_huge_epsilon_does_not_overflow():
    # Found by this file: support="representative" at epsilon=1e6 raised
    # OverflowError from math.expm1 in compose_advanced (its public plan).
    from sklearn_semiprivate.accounting import compose_advanced

    assert compose_advanced(1e6, k=3, delta_slack=1e-6) == PrivacyCost(3e6, 0.0)
    assert compose_advanced(709.0, k=3, delta_slack=1e-6).epsilon == 3 * 709.0
