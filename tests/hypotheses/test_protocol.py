"""The shared cover protocol: parameters, member checks, private input, size guard.

Every hypothesis class is a scikit-learn style parameter holder (get_params,
set_params, clone, nested grid search); every cover checks members and private
rows through the same helpers of ``_base`` and accepts an empty private dataset.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from scipy.stats import chisquare
from sklearn.base import clone
from sklearn.cluster import KMeans
from sklearn.dummy import DummyClassifier
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.tree import DecisionTreeClassifier

from sklearn_semiprivate import PublicData, SemiPrivateClassifier
from sklearn_semiprivate.hypotheses import (
    DecisionStumps,
    FiniteClass,
    Halfplanes,
    HypothesisClass,
    Intervals,
    MemberIndexError,
    PartitionLabelings,
    Thresholds,
    _base,
    check_points,
    encode_labels,
)

RNG = np.random.default_rng(20240611)
X_PUB_2D = RNG.normal(size=(12, 2))
Y_PUB_2D = (X_PUB_2D[:, 0] > 0).astype(int)
X_PUB_1D = RNG.normal(size=(8, 1))


def fitted_models():
    """Three models with three different labelings of the public points."""
    tree = DecisionTreeClassifier(max_depth=1, random_state=0)
    return [tree.fit(X_PUB_2D, Y_PUB_2D)] + [
        DummyClassifier(strategy="constant", constant=c).fit(X_PUB_2D, Y_PUB_2D)
        for c in (0, 1)
    ]


def all_covers():
    """(id, cover) for every cover type, binary labels, on small public sets."""
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X_PUB_2D, Y_PUB_2D)
    return [
        ("thresholds", Thresholds().cover(X_PUB_1D)),
        ("intervals", Intervals().cover(X_PUB_1D)),
        ("stumps", DecisionStumps().cover(X_PUB_2D)),
        ("halfplanes", Halfplanes().cover(X_PUB_2D)),
        ("partition", PartitionLabelings(n_bins=2).cover(X_PUB_2D)),
        ("partition-tree", PartitionLabelings(tree).cover(X_PUB_2D)),
        (
            "partition-kmeans-fixed",
            PartitionLabelings("kmeans", n_clusters=3, unseen=0).cover(X_PUB_2D),
        ),
        ("finite", FiniteClass(fitted_models()).cover(X_PUB_2D)),
    ]


COVERS = all_covers()
COVER_IDS = [name for name, _ in COVERS]


# --- C3: hypothesis classes are scikit-learn parameter holders -----------------


@pytest.mark.parametrize(
    "hypothesis, params",
    [
        (Thresholds(), {}),
        (Intervals(), {}),
        (DecisionStumps(), {}),
        (Halfplanes(), {}),
        (
            PartitionLabelings(),
            {
                "partitioner": "quantile",
                "n_bins": 4,
                "depth": 3,
                "n_clusters": 8,
                "unseen": "nearest",
                "random_state": 0,
            },
        ),
    ],
)
def test_get_params_and_repr(hypothesis, params):
    assert isinstance(hypothesis, HypothesisClass)
    assert hypothesis.get_params() == params
    assert repr(hypothesis) == f"{type(hypothesis).__name__}()"
    twin = clone(hypothesis)
    assert type(twin) is type(hypothesis) and twin is not hypothesis
    assert twin.get_params() == params


def test_set_params_and_repr_show_changed_parameters():
    hypothesis = PartitionLabelings().set_params(n_bins=8, partitioner="kdtree")
    assert hypothesis.n_bins == 8 and hypothesis.partitioner == "kdtree"
    assert repr(hypothesis) == "PartitionLabelings(n_bins=8, partitioner='kdtree')"
    with pytest.raises(ValueError, match="Invalid parameter"):
        hypothesis.set_params(bins=3)


def test_nested_parameter_through_clone_and_fit():
    clf = SemiPrivateClassifier(
        hypothesis_class=PartitionLabelings(n_bins=2), classes=[0, 1], random_state=0
    )
    clf.set_params(hypothesis_class__n_bins=8)
    assert clf.get_params(deep=True)["hypothesis_class__n_bins"] == 8
    twin = clone(clf)
    assert twin.hypothesis_class is not clf.hypothesis_class
    assert twin.get_params(deep=True)["hypothesis_class__n_bins"] == 8
    X = RNG.uniform(-1, 1, size=(60, 1))
    y = (X[:, 0] > 0).astype(int)
    X_pub = RNG.uniform(-1, 1, size=(200, 1))
    twin.fit(X, y, X_public=PublicData(X_pub))
    # 8 quantile bins of 200 distinct public values: 8 occupied cells.
    assert twin.cover_.n_cells_ == 8
    assert twin.cover_size_ == 2**8
    # The original estimator kept its own (also changed) parameter object.
    assert clf.hypothesis_class.n_bins == 8


def test_grid_search_over_a_nested_hypothesis_parameter():
    X = RNG.uniform(-1, 1, size=(300, 1))
    y = (X[:, 0] > 0.1).astype(int)
    X_pub = RNG.uniform(-1, 1, size=(100, 1))
    clf = SemiPrivateClassifier(
        hypothesis_class=PartitionLabelings(),
        epsilon=5.0,
        classes=[0, 1],
        random_state=0,
    )
    search = GridSearchCV(clf, {"hypothesis_class__n_bins": [1, 16]}, cv=2)
    search.fit(X, y, X_public=PublicData(X_pub))
    # One bin is a constant classifier (about 55 % here); 16 bins can follow
    # the threshold at 0.1.
    assert search.best_params_ == {"hypothesis_class__n_bins": 16}
    assert search.best_estimator_.hypothesis_class.n_bins == 16


def test_clone_keeps_the_fitted_models_of_a_finite_class():
    models = fitted_models()
    finite = FiniteClass(models)
    twin = clone(finite)
    assert twin is not finite
    assert all(a is b for a, b in zip(twin.models, models, strict=True))
    assert FiniteClass(tuple(models)).__sklearn_clone__().models == tuple(models)
    clf = clone(SemiPrivateClassifier(hypothesis_class=finite, classes=[0, 1]))
    X = RNG.normal(size=(80, 2))
    y = (X[:, 0] > 0).astype(int)
    clf.set_params(random_state=0).fit(X, y, X_public=PublicData(X_PUB_2D))
    assert clf.cover_size_ == 3
    assert clf.score(X, y) > 0.8


def test_default_clone_would_unfit_the_models(monkeypatch):
    # Mutant: without FiniteClass.__sklearn_clone__, sklearn's clone returns
    # unfitted copies of the models and fitting the classifier fails.
    monkeypatch.delattr(FiniteClass, "__sklearn_clone__")
    clf = clone(SemiPrivateClassifier(FiniteClass(fitted_models()), classes=[0, 1]))
    X = RNG.normal(size=(20, 2))
    with pytest.raises(NotFittedError):
        clf.fit(X, (X[:, 0] > 0).astype(int), X_public=PublicData(X_PUB_2D))


def test_clone_keeps_a_fitted_partitioner():
    km = KMeans(n_clusters=3, n_init=2, random_state=0).fit(X_PUB_2D)
    hypothesis = PartitionLabelings(km, n_bins=3)
    twin = clone(hypothesis)
    assert twin.partitioner is km and twin.n_bins == 3
    assert twin.get_params(deep=True)["partitioner__n_clusters"] == 3
    cover = twin.cover(X_PUB_2D)
    assert cover.n_cells_ == 3


# --- D1: one member check, one error type --------------------------------------


@pytest.mark.parametrize("name, cover", COVERS, ids=COVER_IDS)
def test_member_checks_are_the_same_everywhere(name, cover):
    X = np.zeros((2, cover.n_features_in_))
    calls = [lambda m: cover.predict(m, X), cover.describe]
    if hasattr(cover, "decode"):
        calls.append(cover.decode)
    if hasattr(cover, "halfplane"):
        calls.append(cover.halfplane)
    for call in calls:
        for bad in (-1, cover.size, cover.size + 10**30):
            with pytest.raises(MemberIndexError, match="out of range") as info:
                call(bad)
            # An IndexError, and a ValueError for code written against older covers.
            assert isinstance(info.value, IndexError)
            assert isinstance(info.value, ValueError)
        for bad in (1.0, True, np.bool_(False), "1", None):
            with pytest.raises(TypeError, match="member must be an integer"):
                call(bad)
        call(np.int64(cover.size - 1))
        call(np.uint8(0))


# --- D2: one private check; an empty private dataset scores zero ---------------


@pytest.mark.parametrize("name, cover", COVERS, ids=COVER_IDS)
def test_empty_private_dataset_scores_zero(name, cover):
    X = np.empty((0, cover.n_features_in_))
    for y in ([], np.array([], dtype=int)):
        scores = cover.scores(X, y)
        assert scores.dtype == np.int64
        np.testing.assert_array_equal(scores, np.zeros(cover.size, dtype=np.int64))
    member = cover.sample_exponential(X, [], 1.0, random_state=0)
    assert 0 <= member < cover.size


@pytest.mark.parametrize("name, cover", COVERS, ids=COVER_IDS)
def test_private_input_errors_are_the_same_everywhere(name, cover):
    d = cover.n_features_in_
    with pytest.raises(ValueError, match="X and y have different numbers of rows"):
        cover.scores(np.zeros((2, d)), [0])
    with pytest.raises(ValueError, match="X and y have different numbers of rows"):
        cover.scores(np.zeros((0, d)), [0])
    with pytest.raises(ValueError, match=f"features, but this cover was built on {d}"):
        cover.scores(np.zeros((1, d + 1)), [0])
    with pytest.raises(ValueError, match="not in classes") as info:
        cover.scores(np.zeros((1, d)), [7])
    assert "7" not in str(info.value)  # a private label is never echoed
    with pytest.raises(ValueError, match="NaN"):
        cover.scores(np.full((1, d), np.nan), [0])
    with pytest.raises(ValueError, match="2D array"):
        cover.scores(np.zeros(d), [0])
    with pytest.raises(ValueError, match="1-dimensional"):
        cover.scores(np.zeros((1, d)), [[0]])


def test_private_check_returns_float_points_and_codes():
    cover = Thresholds().cover(X_PUB_1D, classes=["no", "yes"])
    X, codes = cover._check_private([[1], [2]], ["yes", "no"])
    assert X.dtype == np.float64 and X.shape == (2, 1)
    assert codes.tolist() == [1, 0]
    X, codes = cover._check_private(np.empty((0, 1)), [])
    assert X.shape == (0, 1) and codes.shape == (0,) and codes.dtype == np.intp


def test_check_points_allow_empty():
    assert check_points(np.empty((0, 3)), allow_empty=True).shape == (0, 3)
    with pytest.raises(ValueError, match="0 sample"):
        check_points(np.empty((0, 3)))
    # Finite values whose sum overflows are still accepted, without a warning.
    big = check_points([[1.7e308, 0.0], [1.7e308, 0.0]])
    assert big[0, 0] == 1.7e308
    with pytest.raises(ValueError, match="infinity"):
        check_points([[1.7e308, np.inf]])
    assert encode_labels([], np.array(["a", "b"])).shape == (0,)


def test_neighbouring_datasets_one_row_and_none():
    # Removing the only private row: every score moves by at most 1 (sensitivity).
    for _, cover in COVERS:
        x = np.full((1, cover.n_features_in_), 0.3)
        one = cover.scores(x, [1])
        none = cover.scores(x[:0], [])
        assert np.all(np.abs(one - none) <= 1)
        assert one.max() == 1


# --- C5: one enumeration guard for the covers that can be huge ------------------


def test_interval_scores_are_refused_beyond_the_limit():
    cover = Intervals().cover(np.arange(4500.0)[:, None])
    assert cover.size == 2 + 2 * 4500 * 4499 // 2 > _base._MAX_ENUMERATE
    X = np.array([[10.5], [20.5]])
    y = [0, 1]
    with pytest.raises(ValueError, match=r"too many to score.*sample_exponential"):
        cover.scores(X, y)
    with pytest.raises(ValueError, match="sample_exponential"):
        cover.log_probabilities_exponential(X, y, 1.0)
    with pytest.raises(ValueError, match="sample_exponential"):
        cover.sample_exponential(X, y, 1.0, log_base_measure=np.zeros(3))
    member = cover.sample_exponential(X, y, 1.0, random_state=0)
    assert 0 <= member < cover.size


@pytest.mark.parametrize(
    "cover",
    [
        Intervals().cover(X_PUB_1D),
        PartitionLabelings(n_bins=3).cover(X_PUB_2D),
    ],
    ids=["intervals", "partition"],
)
def test_the_guard_is_one_shared_limit(monkeypatch, cover):
    X, y = np.zeros((1, cover.n_features_in_)), [0]
    monkeypatch.setattr(_base, "_MAX_ENUMERATE", cover.size)
    assert cover.scores(X, y).shape == (cover.size,)
    monkeypatch.setattr(_base, "_MAX_ENUMERATE", cover.size - 1)
    with pytest.raises(ValueError, match=f"limit {cover.size - 1}"):
        cover.scores(X, y)
    with pytest.raises(ValueError, match="sample_exponential"):
        cover.sample_exponential(X, y, 1.0, log_base_measure=np.zeros(cover.size))
    # The factorised samplers never enumerate.
    assert 0 <= cover.sample_exponential(X, y, 1.0, random_state=0) < cover.size


# --- D5: shared Gumbel-max, mechanisms' base-measure validation -----------------


def test_partition_cell_base_measure_uses_the_mechanisms_validation():
    cover = PartitionLabelings(n_bins=2).cover(X_PUB_2D)
    X, y = np.zeros((1, 2)), [0]
    base = np.zeros((cover.n_cells_, 2))
    for value, error, message in (
        (np.nan, ValueError, "NaN"),
        (np.inf, ValueError, r"\+inf"),
    ):
        bad = base.copy()
        bad[0, 0] = value
        with pytest.raises(error, match=message):
            cover.sample_exponential(X, y, 1.0, log_base_measure=bad)
    with pytest.raises(TypeError, match="real numbers"):
        cover.sample_exponential(X, y, 1.0, log_base_measure=base.astype(bool))
    with pytest.raises(ValueError, match="must not contain NaN"):
        cover.sample_exponential(
            X, y, 1.0, log_base_measure=np.full(cover.size, np.nan)
        )


def gumbel_max_pvalues(logits, draws, factor=1.0):
    gen = np.random.default_rng(77)
    picks = _base._gumbel_max(
        np.broadcast_to(factor * logits, (draws, *logits.shape)), gen
    )
    expected = np.exp(logits - logits.max(axis=-1, keepdims=True))
    expected /= expected.sum(axis=-1, keepdims=True)
    return [
        chisquare(
            np.bincount(picks[:, r], minlength=logits.shape[1]), expected[r] * draws
        ).pvalue
        for r in range(logits.shape[0])
    ]


@pytest.mark.statistical
def test_gumbel_max_draws_each_row_from_its_softmax():
    # One independent softmax draw per row; alpha = 1e-6 per row, seeded. The
    # mutant (logits x 1.5, i.e. epsilon x 1.5) must be rejected.
    logits = np.array([[0.0, 1.0, 2.0, -1.0], [3.0, 0.0, 0.0, 0.5]])
    assert min(gumbel_max_pvalues(logits, 40_000)) > 1e-6
    assert max(gumbel_max_pvalues(logits, 40_000, factor=1.5)) < 1e-6


@pytest.mark.statistical
def test_gumbel_max_keeps_its_resolution_for_huge_logits():
    # epsilon * score / 2 near 5e15: without the shift by the row maximum the
    # Gumbel noise is lost in rounding and ties are broken towards index 0
    # (62% measured); with it, the two tied members are drawn 50/50.
    logits = np.full((1, 2), 1e13 * 1000 / 2)
    assert min(gumbel_max_pvalues(logits, 40_000)) > 1e-6
    # a row of -inf except one member still picks that member
    gen = np.random.default_rng(0)
    assert _base._gumbel_max(np.array([[-np.inf, 0.0, -np.inf]]), gen).tolist() == [1]
