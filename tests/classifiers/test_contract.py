"""One contract for every classifier: fit signature, public data, warnings.

Every classifier takes ``fit(X, y, X_public=None, y_public=None)`` and requests
both through metadata routing; forgetting public data warns (on public inputs
only); ``hypothesis_`` names the features; meta-estimators that encode labels
get an error that says why.
"""

# SPDX-License-Identifier: BSD-3-Clause

import inspect
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.ensemble import BaggingClassifier, VotingClassifier
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.multiclass import (
    OneVsOneClassifier,
    OneVsRestClassifier,
    OutputCodeClassifier,
)

import sklearn_semiprivate
from sklearn_semiprivate import (
    GenericLearnerClassifier,
    PrivacyAccountant,
    PrivacyLeakWarning,
    PublicData,
    PublicDataWarning,
    SemiPrivateClassifier,
    SemiPrivateLogisticRegression,
    reproducible_noise,
)
from sklearn_semiprivate.research import PublicDataReduction


def make_data(n=400, n_pub=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n, 2))
    y = (X[:, 0] > 0.45).astype(int)
    X_pub = rng.uniform(0, 1, size=(n_pub, 2))
    return X, y, X_pub


def _estimators(accountant=None):
    return [
        SemiPrivateClassifier(classes=[0, 1], accountant=accountant, random_state=0),
        GenericLearnerClassifier(
            classes=[0, 1], n_bins=4, accountant=accountant, random_state=0
        ),
        PublicDataReduction(
            SemiPrivateClassifier(classes=[0, 1], accountant=accountant),
            n_public=2,
            classes=[0, 1],
            random_state=0,
        ),
    ]


IDS = ["semiprivate", "generic", "reduction"]


# --- 1. one fit signature -----------------------------------------------------


@pytest.mark.parametrize("estimator", _estimators(), ids=IDS)
def test_fit_signature_and_metadata_request(estimator):
    params = list(inspect.signature(estimator.fit).parameters)
    assert params[:4] == ["X", "y", "X_public", "y_public"]
    request = estimator.get_metadata_routing().fit.requests
    assert request["X_public"] is True and request["y_public"] is True


@pytest.mark.parametrize("estimator", _estimators(), ids=IDS)
def test_public_data_by_keyword_and_position(estimator):
    X, y, X_pub = make_data()
    y_pub = (X_pub[:, 0] > 0.45).astype(int)
    estimator.fit(X, y, X_public=PublicData(X_pub, y_pub))
    estimator.fit(X, y, PublicData(X_pub), y_pub)
    assert estimator.predict(X[:3]).shape == (3,)


def test_unlabeled_rows_are_keyword_only():
    # Positionally, the third argument is X_public: private unlabeled rows can
    # only be passed by name.
    param = inspect.signature(GenericLearnerClassifier.fit).parameters["X_unlabeled"]
    assert param.kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("routing", [False, True], ids=["no-routing", "routing"])
@pytest.mark.parametrize("index", range(3), ids=IDS)
def test_grid_search_passes_the_whole_public_set(index, routing):
    X, y, X_pub = make_data(n=300, n_pub=30)
    acc = PrivacyAccountant(epsilon=100.0)
    estimator = _estimators(acc)[index]
    grid = (
        {"n_public": [2, 3]}
        if isinstance(estimator, PublicDataReduction)
        else {"epsilon": [0.5, 1.0]}
    )
    seen = []
    original = SemiPrivateClassifier._build_cover

    def spy(self, points, classes):
        seen.append(points.shape[0])
        return original(self, points, classes)

    with (
        sklearn.config_context(enable_metadata_routing=routing),
        pytest.MonkeyPatch.context() as mp,
    ):
        mp.setattr(SemiPrivateClassifier, "_build_cover", spy)
        search = GridSearchCV(estimator, grid, cv=KFold(2))
        search.fit(X, y, X_public=PublicData(X_pub))
    # 2 candidates x 2 folds + the refit, every one charged to the ledger.
    assert len(acc.history) == 5
    if isinstance(estimator, GenericLearnerClassifier):
        # The grid's n_bins points plus all 30 public points, in every fit.
        assert seen == [4 + 30] * 5
    elif isinstance(estimator, PublicDataReduction):
        # PubSamp's n_public dummies plus all 30 real public rows; twice per
        # fit: the learner's probe on placeholder rows before the reduction's
        # charge builds its cover too.
        n_dummies = [2, 2, 3, 3, search.best_params_["n_public"]]
        assert sorted(seen) == sorted(2 * [n + 30 for n in n_dummies])
    else:
        assert seen == [30] * 5


# --- GenericLearner: what public rows mean -----------------------------------------


def test_generic_public_points_join_the_cover():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(50, 1))
    y = (X[:, 0] > 0.5).astype(int)
    X_pub = np.array([[0.2], [0.3]])
    params = {"n_bins": 4, "bounds": (0, 1), "classes": [0, 1], "random_state": 0}
    grid_only = GenericLearnerClassifier("thresholds", **params).fit(X, y)
    both = GenericLearnerClassifier("thresholds", **params).fit(
        X, y, X_public=PublicData(X_pub)
    )
    # Grid points 0.125, 0.375, 0.625, 0.875; public 0.2 and 0.3 add the cuts
    # 0.1625, 0.25 and 0.3375 between them.
    np.testing.assert_allclose(grid_only.cover_.thresholds_, [0.25, 0.5, 0.75])
    np.testing.assert_allclose(
        both.cover_.thresholds_, [0.1625, 0.25, 0.3375, 0.5, 0.75]
    )
    # With unlabeled rows: the sanitized points and the public ones.
    X_unl = rng.uniform(size=(300, 1))
    fitted = GenericLearnerClassifier("thresholds", **params).fit(
        X, y, X_public=PublicData(X_pub), X_unlabeled=X_unl
    )
    assert {0.25} <= set(np.round(fitted.cover_.thresholds_, 6).tolist())
    points = np.unique(np.vstack([fitted.synthetic_, X_pub]))
    np.testing.assert_allclose(
        fitted.cover_.thresholds_, (points[1:] + points[:-1]) / 2
    )


def test_generic_public_labels_enter_the_score():
    # Four labeled private rows say little at epsilon = 1; 200 labeled public
    # rows pin the threshold. Seeded (reproducible_noise) for a fixed verdict.
    rng = np.random.default_rng(2)
    X = np.array([[0.1], [0.3], [0.7], [0.9]])
    y = np.array([0, 0, 1, 1])
    X_pub = rng.uniform(size=(200, 1))
    y_pub = (X_pub[:, 0] > 0.62).astype(int)
    X_test = rng.uniform(size=(2000, 1))
    y_test = (X_test[:, 0] > 0.62).astype(int)
    params = {"n_bins": 8, "bounds": (0, 1), "classes": [0, 1]}
    labeled, unlabeled = [], []
    with reproducible_noise():
        for seed in range(20):
            clf = GenericLearnerClassifier("thresholds", random_state=seed, **params)
            labeled.append(
                clf.fit(X, y, X_public=PublicData(X_pub, y_pub)).score(X_test, y_test)
            )
            unlabeled.append(
                clf.fit(X, y, X_public=PublicData(X_pub)).score(X_test, y_test)
            )
    # Measured: labeled mean 0.99 (min 0.96); unlabeled mean 0.61.
    assert np.mean(labeled) > 0.97 and min(labeled) > 0.9
    assert np.mean(unlabeled) < 0.8  # not vacuous: the private rows alone don't


def test_generic_classes_and_bounds_come_from_public_data():
    rng = np.random.default_rng(3)
    X, X_unl = rng.uniform(1, 3, size=(100, 2)), rng.uniform(1, 3, size=(300, 2))
    y = (X[:, 0] > 2).astype(int)
    X_pub = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    y_pub = np.array([0, 1, 1])
    # No PrivacyLeakWarning (filterwarnings=error): nothing read off private rows.
    clf = GenericLearnerClassifier(random_state=0).fit(
        X, y, X_public=PublicData(X_pub, y_pub), X_unlabeled=X_unl
    )
    assert clf.classes_.tolist() == [0, 1]
    # The public box; the constant second feature gets unit width.
    np.testing.assert_allclose(clf.bounds_, [[1.0, 3.0], [4.5, 5.5]])


# --- 5. forgotten public data ------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: SemiPrivateClassifier(classes=[0, 1], random_state=0),
        lambda: GenericLearnerClassifier(classes=[0, 1], random_state=0),
    ],
    ids=["semiprivate", "generic"],
)
def test_no_public_data_warns_on_public_inputs_only(make):
    messages = []
    for seed, n in ((0, 300), (1, 50)):
        X, y, _ = make_data(n=n, seed=seed)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            make().fit(X, y)
        public = [w for w in caught if w.category is PublicDataWarning]
        assert len(public) == 1
        messages.append(str(public[0].message))
    # The same text for different private data: it reads none of it.
    assert messages[0] == messages[1]
    assert "No public data" in messages[0] and "bounds=" in messages[0]


def test_private_only_on_request_or_with_public_data_does_not_warn():
    X, y, X_pub = make_data()
    # filterwarnings=error: any warning fails these fits.
    SemiPrivateClassifier(classes=[0, 1], bounds=(0, 1)).fit(X, y)
    SemiPrivateClassifier(classes=[0, 1]).fit(X, y, X_public=PublicData(X_pub))
    GenericLearnerClassifier(classes=[0, 1], bounds=(0, 1)).fit(X, y)
    GenericLearnerClassifier(classes=[0, 1]).fit(X, y, X_public=PublicData(X_pub))
    GenericLearnerClassifier(classes=[0, 1], bounds=(0, 1)).fit(X, y, X_unlabeled=X_pub)


def test_generic_with_private_unlabeled_rows_does_not_ask_for_public_data():
    # Private unlabeled rows are the algorithm's own alternative to public
    # points: only the bounds read off private rows are warned about.
    X, y, X_unl = make_data()
    with pytest.warns(PrivacyLeakWarning, match="bounds"):
        GenericLearnerClassifier(classes=[0, 1]).fit(X, y, X_unlabeled=X_unl)


# --- 2. namespaces ---------------------------------------------------------------


def test_reduction_lives_in_the_research_namespace():
    assert not hasattr(sklearn_semiprivate, "PublicDataReduction")
    assert "PublicDataReduction" not in sklearn_semiprivate.__all__
    from sklearn_semiprivate import classifiers, research

    assert not hasattr(classifiers, "PublicDataReduction")
    assert set(research.__all__) == {"PublicDataReduction", "priv_samp", "pub_samp"}


# --- 3. readable output -----------------------------------------------------------


def test_hypothesis_uses_feature_names_of_a_dataframe():
    pd = pytest.importorskip("pandas")
    X, y, X_pub = make_data()
    names = ["mean concave points", "mean radius"]
    Xdf, Xpub_df = pd.DataFrame(X, columns=names), pd.DataFrame(X_pub, columns=names)
    with reproducible_noise():
        clf = SemiPrivateClassifier(classes=[0, 1], random_state=0)
        by_name = clf.fit(Xdf, y, X_public=PublicData(Xpub_df)).hypothesis_
        by_index = clf.fit(X, y, X_public=PublicData(X_pub)).hypothesis_
    assert by_name.startswith("mean concave points <= ")
    assert by_name == by_index.replace("x[0]", names[0]).replace("x[1]", names[1])
    assert "x[" not in by_name

    generic = GenericLearnerClassifier(classes=[0, 1], random_state=0).fit(
        Xdf, y, X_public=PublicData(Xpub_df)
    )
    assert "x[" not in generic.hypothesis_
    assert generic.selector_.hypothesis_ == generic.hypothesis_
    partition = SemiPrivateClassifier("partition", classes=[0, 1], random_state=0)
    text = partition.fit(Xdf, y, X_public=PublicData(Xpub_df)).hypothesis_
    assert "mean concave points" in text and "x[" not in text


def test_a_cover_of_the_older_protocol_still_works_on_arrays():
    from sklearn_semiprivate.hypotheses import DecisionStumps

    class OldCover:
        def __init__(self, cover):
            self._cover = cover

        def __getattr__(self, name):
            return getattr(self._cover, name)

        def describe(self, member):  # no feature_names keyword
            return "old: " + self._cover.describe(member)

    class OldClass(DecisionStumps):
        def cover(self, X_public, classes=(0, 1)):
            return OldCover(super().cover(X_public, classes))

    X, y, X_pub = make_data()
    clf = SemiPrivateClassifier(OldClass(), classes=[0, 1]).fit(
        X, y, X_public=PublicData(X_pub)
    )
    assert clf.hypothesis_.startswith("old: x[")


# --- 4. meta-estimators that encode labels ----------------------------------------


def _string_labels(y):
    return np.where(y == 1, "malignant", "benign")


@pytest.mark.parametrize(
    "meta",
    [
        lambda est: VotingClassifier([("a", est)]),
        lambda est: BaggingClassifier(est, n_estimators=2, random_state=0),
    ],
    ids=["voting", "bagging"],
)
def test_meta_estimators_encoding_labels(meta):
    X, y, _ = make_data()
    y_str = _string_labels(y)
    acc = PrivacyAccountant(epsilon=100.0)
    base = SemiPrivateClassifier(
        classes=["benign", "malignant"], bounds=(0, 1), accountant=acc
    )
    with pytest.raises(ValueError, match="no label can match") as err:
        meta(base).fit(X, y_str)
    message = str(err.value)
    assert "VotingClassifier, BaggingClassifier" in message
    assert "classes=[0, 1]" in message
    # Codes against string labels: the dtypes alone decide, before the charge.
    assert len(acc.history) == 0
    # What the message says to do works, and predictions come back as strings.
    fixed = meta(base.set_params(classes=[0, 1])).fit(X, y_str)
    assert set(fixed.predict(X).tolist()) <= {"benign", "malignant"}
    assert fixed.score(X, y_str) > 0.9


@pytest.mark.parametrize("meta", [OneVsRestClassifier, OneVsOneClassifier])
def test_one_vs_rest_and_one_vs_one_hint_says_binary_codes(meta):
    # A review: the hint said classes=[0, 1, 2] for three labels, which inside
    # a one-vs-rest wrapper made 3-class binary sub-models (and OvR's
    # predict crashed); each sub-problem is binary: classes=[0, 1].
    X, y, _ = make_data()
    y3 = y + (X[:, 0] > 0.5)  # labels 0, 1, 2
    base = SemiPrivateClassifier(classes=[1, 2, 3], bounds=(0, 1))
    # Three classes for a stump: the two-label warning comes first, then the
    # label check's error.
    with (
        pytest.warns(UserWarning, match="predicts at most two labels"),
        pytest.raises(ValueError, match="some labels") as err,
    ):
        meta(base).fit(X, y3)
    assert "classes=[0, 1] inside them" in str(err.value)
    fixed = meta(base.set_params(classes=[0, 1])).fit(X, y3)
    assert set(fixed.predict(X).tolist()) <= {0, 1, 2}


def test_output_code_hint_names_its_minus_one_coding():
    # A review: OutputCodeClassifier codes its binary problems as {-1, 1}
    # for an estimator with decision_function; classes=[0, 1] was charged,
    # then refused with no hint (the codes 0..n-1 gave none).
    X, y, _ = make_data()
    y3 = y + (X[:, 0] > 0.5)
    base = SemiPrivateLogisticRegression(classes=[0, 1], bounds=(0, 1))
    with pytest.raises(ValueError, match="some labels") as err:
        OutputCodeClassifier(base, random_state=0).fit(X, y3)
    assert "declare classes=[-1, 1]" in str(err.value)
    fixed = OutputCodeClassifier(base.set_params(classes=[-1, 1]), random_state=0).fit(
        X, y3
    )
    assert set(fixed.predict(X).tolist()) <= {0, 1, 2}


def test_label_check_message_does_not_depend_on_private_labels():
    X, y, _ = make_data()
    clf = SemiPrivateClassifier(classes=["benign", "malignant"], bounds=(0, 1))
    messages = []
    for labels in (np.where(y == 1, "x", "benign"), np.where(y == 1, "malignant", "o")):
        with pytest.raises(ValueError, match="some labels") as err:
            clf.fit(X, labels)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    # Already the codes 0..n-1: no meta-estimator hint.
    with pytest.raises(ValueError, match="some labels") as err:
        SemiPrivateClassifier(classes=[0, 1], bounds=(0, 1)).fit(X, y * 2)
    assert "VotingClassifier" not in str(err.value)


@pytest.mark.parametrize(
    ("labels", "classes"),
    [(["benign", "malignant"], [0, 1]), ([0, 1], ["benign", "malignant"])],
    ids=["strings-vs-numbers", "numbers-vs-strings"],
)
def test_label_kinds_that_cannot_match_are_refused_before_the_charge(labels, classes):
    # A format fact (the dtypes), like a string in X: no charge (a review
    # found every classifier charged first).
    X, y, _ = make_data()
    acc = PrivacyAccountant(epsilon=100.0)
    y_given = np.asarray(labels)[y]
    clf = SemiPrivateClassifier(classes=classes, bounds=(0, 1), accountant=acc)
    with pytest.raises(ValueError, match="no label can match"):
        clf.fit(X, y_given)
    assert len(acc.history) == 0
    if y_given.dtype.kind == "U":
        # Object labels can hold either: left to the membership check, charged.
        with pytest.raises(ValueError, match="some labels"):
            clf.fit(X, y_given.astype(object))
        assert len(acc.history) == 1


def test_mixed_type_label_set_is_refused():
    # NumPy would turn [0, "a"] into ["0", "a"] without a word.
    X, y, _ = make_data()
    acc = PrivacyAccountant(epsilon=100.0)
    clf = SemiPrivateClassifier(classes=[0, "a"], bounds=(0, 1), accountant=acc)
    with pytest.raises(ValueError, match="labels of one type"):
        clf.fit(X, y)
    assert len(acc.history) == 0


def test_label_kinds_read_off_pandas_dtypes_and_string_dtype_sets():
    # pandas string and categorical columns reach NumPy as objects; their
    # dtypes still say "strings" (a review found them charged first).
    pd = pytest.importorskip("pandas")
    X, y, _ = make_data()
    acc = PrivacyAccountant(epsilon=100.0)
    clf = SemiPrivateClassifier(classes=[0, 1], bounds=(0, 1), accountant=acc)
    names = np.array(["benign", "malignant"])[y]
    for labels in (pd.Series(names, dtype="string"), pd.Categorical(names)):
        with pytest.raises(ValueError, match="no label can match"):
            clf.fit(X, labels)
    assert len(acc.history) == 0
    # A label set of NumPy's StringDType fits string labels.
    string_dtype = pytest.importorskip("numpy.dtypes").StringDType
    clf.set_params(classes=np.array(["benign", "malignant"], dtype=string_dtype()))
    assert clf.fit(X, names).classes_.tolist() == ["benign", "malignant"]
