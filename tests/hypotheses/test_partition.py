"""Tests of the partition cover: exact structure, scores, factorized sampling."""

# SPDX-License-Identifier: BSD-3-Clause

import sys

import numpy as np
import pytest
from scipy.special import log_softmax
from scipy.stats import chisquare
from sklearn.cluster import KMeans
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from sklearn_semiprivate.hypotheses import PartitionCover, PartitionLabelings


def quantile_cells(X_public, X, n_bins):
    """Cell key of every row of X for the public quantile grid, computed apart."""
    levels = np.arange(1, n_bins) / n_bins
    keys = []
    for j in range(X.shape[1]):
        edges = np.unique(np.quantile(X_public[:, j], levels))
        keys.append(np.searchsorted(edges, X[:, j], side="left"))
    return [tuple(k) for k in np.column_stack(keys)]


def brute_force_scores(cover, X, y):
    return np.array(
        [np.sum(cover.predict(i, X) == y) for i in range(cover.size)], dtype=np.int64
    )


def brute_force_log_proba(cover, X, y, epsilon, log_base=None):
    logits = epsilon * brute_force_scores(cover, X, y) / 2.0
    if log_base is not None:
        logits = logits + log_base
    return log_softmax(logits)


def joint_log_proba(cover, cell_log_proba):
    """log P(member) of the factorized sampler, by decoding every member."""
    cells = np.arange(cover.n_cells_)
    return np.array(
        [cell_log_proba[cells, cover.decode(i)].sum() for i in range(cover.size)]
    )


def tiny_problem(seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    X_public = rng.normal(size=(12, 2))
    cover = PartitionLabelings("quantile", n_bins=2).cover(
        X_public, classes=np.arange(n_classes)
    )
    X = rng.normal(size=(40, 2))
    y = rng.integers(0, n_classes, size=40)
    return cover, X, y


def test_quantile_cover_is_one_member_per_labeling_of_occupied_cells():
    rng = np.random.default_rng(1)
    X_public = np.round(rng.normal(size=(15, 2)), 1)
    X_public = np.concatenate((X_public, X_public[:4]))  # duplicate points
    for n_classes in (2, 3):
        cover = PartitionLabelings("quantile", n_bins=3).cover(
            X_public, classes=np.arange(n_classes)
        )
        distinct = np.unique(X_public, axis=0)
        keys = quantile_cells(X_public, distinct, 3)
        n_occupied = len(set(keys))
        assert cover.n_cells_ == n_occupied
        assert cover.size == n_classes**n_occupied
        if cover.size > 3**6:
            continue
        labels = cover.labelings(distinct)
        # One member per labeling: all rows distinct, as many as cell labelings.
        assert len({tuple(r) for r in labels.tolist()}) == cover.size
        # Two public points always share labels iff they share a cell.
        same_cell = np.array([[a == b for b in keys] for a in keys])
        same_labels = np.all(labels[:, :, None] == labels[:, None, :], axis=0)
        np.testing.assert_array_equal(same_cell, same_labels)


def partitioners():
    rng = np.random.default_rng(2)
    X_fit = rng.normal(size=(30, 2))
    y_fit = (X_fit[:, 0] + 0.3 * rng.normal(size=30) > 0).astype(int)
    return [
        ("quantile", dict(n_bins=3)),
        ("kdtree", dict(depth=2)),
        ("kmeans", dict(n_clusters=4)),
        (
            DecisionTreeClassifier(max_leaf_nodes=4, random_state=0).fit(X_fit, y_fit),
            {},
        ),
        (KMeans(n_clusters=3, n_init=2, random_state=0).fit(X_fit), {}),
        (
            RandomForestClassifier(
                n_estimators=2, max_leaf_nodes=3, random_state=0
            ).fit(X_fit, y_fit),
            {},
        ),
    ]


@pytest.mark.parametrize("partitioner, params", partitioners())
def test_every_cell_is_occupied_and_labelings_are_distinct(partitioner, params):
    rng = np.random.default_rng(4)
    X_public = np.round(rng.normal(size=(9, 2)), 1)
    X_public = np.concatenate((X_public, X_public[:3]))
    cover = PartitionLabelings(partitioner, **params).cover(X_public)
    distinct = np.unique(X_public, axis=0)
    cells = cover.apply(distinct)
    np.testing.assert_array_equal(np.unique(cells), np.arange(cover.n_cells_))
    labels = cover.labelings(distinct)
    assert len({tuple(r) for r in labels.tolist()}) == cover.size == 2**cover.n_cells_
    same_cell = cells[:, None] == cells[None, :]
    same_labels = np.all(labels[:, :, None] == labels[:, None, :], axis=0)
    np.testing.assert_array_equal(same_cell, same_labels)


@pytest.mark.parametrize("unseen", ["nearest", 1])
@pytest.mark.parametrize("partitioner, params", partitioners())
def test_scores_match_brute_force(partitioner, params, unseen):
    rng = np.random.default_rng(3)
    X_public = rng.normal(size=(10, 2))
    cover = PartitionLabelings(partitioner, unseen=unseen, **params).cover(X_public)
    assert cover.size <= 2**12
    # Private rows far outside the public range land in unoccupied cells.
    X = np.concatenate((rng.normal(0, 3, size=(80, 2)), X_public[:3]))
    y = rng.integers(0, 2, size=X.shape[0])
    scores = cover.scores(X, y)
    assert scores.dtype == np.int64
    np.testing.assert_array_equal(scores, brute_force_scores(cover, X, y))


def test_unseen_cells_rules():
    X_public = np.array([[0.0, 0.0], [1.0, 1.0]])
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.1, 0.9]])
    # n_bins=2: cells (0, 0) and (1, 1) occupied, (0, 1) and (1, 0) not.
    fixed = PartitionLabelings(n_bins=2, unseen=1).cover(X_public)
    assert fixed.n_cells_ == 2
    np.testing.assert_array_equal(fixed.apply(X), [-1, -1, -1])
    for member in range(fixed.size):
        assert fixed.predict(member, X).tolist() == [1, 1, 1]
    # Rows the fixed rule labels add the same amount to every member's score.
    scores = fixed.scores(X, [1, 0, 1])
    np.testing.assert_array_equal(scores, [2, 2, 2, 2])
    nearest = PartitionLabelings(n_bins=2).cover(X_public)
    member = nearest.encode([0, 1])  # cell of (0, 0) -> 0, cell of (1, 1) -> 1
    np.testing.assert_array_equal(nearest.apply(X[2:]), [0])
    assert nearest.predict(member, [[0.1, 0.2], [0.9, 0.8]]).tolist() == [0, 1]
    assert "elsewhere: 1" in fixed.describe(0)


def test_factorized_probabilities_match_brute_force():
    for seed, n_classes in ((0, 2), (1, 3), (2, 2)):
        cover, X, y = tiny_problem(seed, n_classes)
        assert cover.size <= 100
        for epsilon in (0.1, 1.0, 3.0):
            cell = cover.cell_log_probabilities(X, y, epsilon)
            np.testing.assert_allclose(
                joint_log_proba(cover, cell),
                brute_force_log_proba(cover, X, y, epsilon),
                rtol=0,
                atol=1e-10,
            )


def test_factorized_probabilities_with_product_prior():
    cover, X, y = tiny_problem(4, 3)
    rng = np.random.default_rng(0)
    base = np.log(rng.dirichlet(np.ones(3), size=cover.n_cells_))
    base[0, 1] = -np.inf
    cell = cover.cell_log_probabilities(X, y, 0.7, log_base_measure=base)
    cells = np.arange(cover.n_cells_)
    joint_base = np.array(
        [base[cells, cover.decode(i)].sum() for i in range(cover.size)]
    )
    expected = brute_force_log_proba(cover, X, y, 0.7, joint_base)
    np.testing.assert_allclose(joint_log_proba(cover, cell), expected, atol=1e-10)


def mutant_cell_log_proba(cover, X, y, epsilon, kind):
    """Per-cell log-probabilities of broken factorizations."""
    n_cells = cover.n_cells_
    if kind == "doubled":  # each cell at 2 epsilon
        return cover.cell_log_probabilities(X, y, 2 * epsilon)
    if kind == "split":  # budget divided among the cells
        return cover.cell_log_probabilities(X, y, epsilon / n_cells)
    if kind == "halved":  # sensitivity 2 assumed: needlessly noisy, still wrong
        return cover.cell_log_probabilities(X, y, epsilon / 2)
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["doubled", "split", "halved"])
def test_exact_comparison_catches_mutants(kind):
    cover, X, y = tiny_problem(0, 2)
    assert cover.n_cells_ > 1
    expected = brute_force_log_proba(cover, X, y, 1.0)
    mutant = joint_log_proba(cover, mutant_cell_log_proba(cover, X, y, 1.0, kind))
    assert np.max(np.abs(mutant - expected)) > 1e-3


@pytest.mark.statistical
def test_sampler_chi_square():
    # 3 classes, 4 occupied cells: 81 members; alpha = 1e-6, seeded.
    rng = np.random.default_rng(5)
    X_public = rng.normal(size=(40, 1))
    cover = PartitionLabelings("kdtree", depth=2).cover(X_public, classes=[0, 1, 2])
    assert cover.size == 81
    X = rng.normal(size=(30, 1))
    y = rng.integers(0, 3, size=30)
    epsilon = 0.3
    probs = np.exp(brute_force_log_proba(cover, X, y, epsilon))
    draws = 8000
    gen = np.random.default_rng(20240601)
    samples = [
        cover.sample_exponential(X, y, epsilon, random_state=gen) for _ in range(draws)
    ]
    observed = np.bincount(samples, minlength=cover.size)
    expected = probs * draws
    assert expected.min() >= 5  # chi-square approximation holds
    assert chisquare(observed, expected).pvalue > 1e-6


def test_enumerated_prior_path():
    cover, X, y = tiny_problem(0, 2)
    base = np.full(cover.size, -np.inf)
    base[3] = 0.0
    for seed in range(5):
        assert (
            cover.sample_exponential(
                X, y, 1.0, log_base_measure=base, random_state=seed
            )
            == 3
        )
    cell_base = np.zeros((cover.n_cells_, 2))
    cell_base[:, 0] = -np.inf
    member = cover.sample_exponential(X, y, 1.0, log_base_measure=cell_base)
    np.testing.assert_array_equal(cover.decode(member), np.ones(cover.n_cells_))
    with pytest.raises(ValueError, match="shape"):
        cover.sample_exponential(X, y, 1.0, log_base_measure=np.zeros(3))
    with pytest.raises(ValueError, match="no allowed label"):
        cover.sample_exponential(X, y, 1.0, log_base_measure=cell_base - np.inf)


def test_huge_cover_samples_without_enumeration():
    rng = np.random.default_rng(6)
    X_public = rng.normal(size=(200, 1))
    cover = PartitionLabelings("quantile", n_bins=100).cover(X_public)
    assert cover.n_cells_ == 100
    assert cover.size == 2**100 > sys.maxsize
    assert isinstance(cover.size, int)
    X = rng.normal(size=(500, 1))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="sample_exponential"):
        cover.scores(X, y)
    member = cover.sample_exponential(X, y, 50.0, random_state=0)
    assert isinstance(member, int) and 0 <= member < cover.size
    assert cover.encode(cover.decode(member)) == member
    # At a large epsilon the draw labels nearly every cell by its majority.
    accuracy = np.mean(cover.predict(member, X) == y)
    assert accuracy > 0.9
    assert cover.describe(member).count("]: ") == 100


def test_encode_decode_mixed_radix():
    cover, _, _ = tiny_problem(1, 3)
    codes = np.arange(cover.n_cells_) % 3
    member = cover.encode(codes)
    assert member == sum(int(c) * 3**i for i, c in enumerate(codes))
    np.testing.assert_array_equal(cover.decode(member), codes)
    with pytest.raises(ValueError, match="codes"):
        cover.encode(np.full(cover.n_cells_, 3))
    with pytest.raises(ValueError, match="member"):
        cover.decode(cover.size)


def test_cover_uses_public_data_only_and_is_deterministic():
    rng = np.random.default_rng(8)
    X_public = rng.normal(size=(25, 3))
    a = PartitionLabelings("kmeans", n_clusters=5, random_state=3).cover(X_public)
    b = PartitionLabelings("kmeans", n_clusters=5, random_state=3).cover(X_public)
    np.testing.assert_array_equal(a.centroids_, b.centroids_)
    assert isinstance(a, PartitionCover)
    # More clusters than distinct points: capped, no warning.
    c = PartitionLabelings("kmeans", n_clusters=50).cover(X_public[:3])
    assert c.n_cells_ == 3


@pytest.mark.parametrize(
    "X_public, message",
    [
        ([[0.0, np.nan]], "NaN"),
        ([[np.inf, 0.0]], "infinity"),
        (np.empty((0, 2)), "0 sample"),
        ([0.0, 1.0], "2D array"),
    ],
)
def test_bad_public_input(X_public, message):
    with pytest.raises(ValueError, match=message):
        PartitionLabelings().cover(X_public)


def test_bad_parameters_and_private_input():
    X_public = np.random.default_rng(0).normal(size=(10, 2))
    with pytest.raises(ValueError, match="partitioner"):
        PartitionLabelings("grid").cover(X_public)
    with pytest.raises(TypeError, match="apply or a predict"):
        PartitionLabelings(object()).cover(X_public)
    with pytest.raises(ValueError, match="not fitted"):
        PartitionLabelings(KMeans(n_clusters=2)).cover(X_public)
    with pytest.raises(ValueError, match="n_bins"):
        PartitionLabelings(n_bins=0).cover(X_public)
    with pytest.raises(TypeError, match="depth"):
        PartitionLabelings("kdtree", depth=1.5).cover(X_public)
    with pytest.raises(ValueError, match="unseen"):
        PartitionLabelings(unseen=7).cover(X_public)
    cover = PartitionLabelings(n_bins=2).cover(X_public)
    with pytest.raises(ValueError, match="features"):
        cover.scores(np.zeros((3, 3)), [0, 1, 0])
    with pytest.raises(ValueError, match="features"):
        cover.predict(0, np.zeros((3, 1)))
    with pytest.raises(ValueError, match="2D array"):
        cover.predict(0, [0.0, 1.0])
    with pytest.raises(ValueError, match="rows"):
        cover.scores(np.zeros((3, 2)), [0, 1])
    with pytest.raises(ValueError, match="epsilon"):
        cover.sample_exponential(np.zeros((3, 2)), [0, 1, 0], 0.0)


def test_a_private_row_the_partitioner_cannot_map_takes_the_unseen_rule():
    # Review: a fitted tree's apply (float32) raised on one private value above
    # 3.4e38, after the charge, on that dataset and not on its neighbour.
    import warnings

    from sklearn.tree import DecisionTreeClassifier

    from sklearn_semiprivate import PrivacyAccountant, PublicData, SemiPrivateClassifier
    from sklearn_semiprivate.hypotheses import PartitionLabelings

    rng = np.random.default_rng(0)
    X_pub = rng.normal(size=(50, 2))
    tree = DecisionTreeClassifier(max_depth=2, random_state=0)
    tree.fit(X_pub, (X_pub[:, 0] > 0).astype(int))
    X = rng.normal(size=(100, 2))
    y = (X[:, 0] > 0).astype(int)
    X[0, 0] = 1e39
    ledger = PrivacyAccountant(epsilon=10.0)
    clf = SemiPrivateClassifier(
        PartitionLabelings(tree), epsilon=1.0, classes=[0, 1], accountant=ledger
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent().epsilon == 1.0


def test_cover_too_large_to_enumerate_is_refused_before_the_charge():
    # Review: permute-and-flip on a partition cover of 2^64 members was
    # refused only after the charge, though its size is public.
    from sklearn_semiprivate import PrivacyAccountant, PublicData, SemiPrivateClassifier
    from sklearn_semiprivate.hypotheses import PartitionLabelings

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    ledger = PrivacyAccountant(epsilon=3.0)
    clf = SemiPrivateClassifier(
        PartitionLabelings(n_bins=4),
        mechanism="permute_and_flip",
        classes=[0, 1],
        accountant=ledger,
    )
    with pytest.raises(ValueError, match="too many to score"):
        clf.fit(
            X, (X[:, 0] > 0).astype(int), X_public=PublicData(rng.normal(size=(400, 3)))
        )
    assert ledger.spent().epsilon == 0.0
