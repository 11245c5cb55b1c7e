"""Tests of the finite class: merging by public labelings, scores, bad input."""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

from sklearn_semiprivate.hypotheses import FiniteClass, FiniteCover


def make_models(X, y):
    models = [
        DecisionTreeClassifier(max_depth=d, random_state=0).fit(X, y) for d in (1, 2)
    ]
    models += [
        DummyClassifier(strategy="constant", constant=c).fit(X, y) for c in (0, 1)
    ]
    models += [LogisticRegression().fit(X, y)]
    models += [DummyClassifier(strategy="constant", constant=0).fit(X, y)]
    return models


def test_merge_keeps_first_of_each_public_labeling():
    rng = np.random.default_rng(0)
    X_public = rng.normal(size=(20, 2))
    y_public = (X_public[:, 0] > 0).astype(int)
    X_public = np.concatenate((X_public, X_public[:5]))  # duplicates change nothing
    models = make_models(X_public[:20], y_public)
    cover = FiniteClass(models).cover(X_public)
    # Brute force: labelings of every model on the distinct public points.
    distinct = np.unique(X_public, axis=0)
    labelings = [tuple(m.predict(distinct).tolist()) for m in models]
    expected, seen = [], set()
    for j, lab in enumerate(labelings):
        if lab not in seen:
            seen.add(lab)
            expected.append(j)
    assert cover.model_indices_.tolist() == expected
    assert cover.size == len(set(labelings))
    assert 5 not in cover.model_indices_  # duplicate of the constant-0 model
    got = {tuple(r) for r in cover.labelings(distinct).tolist()}
    assert got == set(labelings)
    assert isinstance(cover, FiniteCover)


def test_scores_match_brute_force():
    rng = np.random.default_rng(1)
    X_public = rng.normal(size=(30, 3))
    y_public = (X_public.sum(axis=1) > 0).astype(int)
    cover = FiniteClass(make_models(X_public, y_public)).cover(X_public)
    X = rng.normal(size=(200, 3))
    y = rng.integers(0, 2, size=200)
    scores = cover.scores(X, y)
    brute = [np.sum(cover.predict(i, X) == y) for i in range(cover.size)]
    assert scores.dtype == np.int64
    np.testing.assert_array_equal(scores, brute)
    assert cover.describe(0).startswith("models[0]: DecisionTreeClassifier")


def test_string_labels_and_out_of_class_private_predictions():
    X = np.array([[0.0], [1.0], [2.0]])
    y = np.array(["a", "b", "c"])
    models = [DummyClassifier(strategy="constant", constant=c).fit(X, y) for c in y]
    cover = FiniteClass(models).cover(X, classes=["a", "b", "c"])
    assert cover.size == 3
    np.testing.assert_array_equal(cover.scores(X, ["a", "a", "c"]), [2, 0, 1])
    # A public prediction outside classes is refused before any private read.
    with pytest.raises(ValueError, match="not in classes"):
        FiniteClass(models).cover(X, classes=["a", "b"])


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
    X, y = np.zeros((2, 2)), [0, 1]
    models = [DummyClassifier().fit(X, y)]
    with pytest.raises(ValueError, match=message):
        FiniteClass(models).cover(X_public)


def test_bad_models_and_private_input():
    X, y = np.array([[0.0, 1.0], [1.0, 0.0]]), [0, 1]
    with pytest.raises(ValueError, match="at least one"):
        FiniteClass([]).cover(X)
    with pytest.raises(TypeError, match="predict"):
        FiniteClass([object()]).cover(X)
    cover = FiniteClass([DummyClassifier().fit(X, y)]).cover(X)
    with pytest.raises(ValueError, match="features"):
        cover.scores(np.zeros((2, 3)), y)
    with pytest.raises(ValueError, match="rows"):
        cover.scores(X, [0, 1, 0])
    with pytest.raises(ValueError, match="not in classes"):
        cover.scores(X, [0, 5])
    with pytest.raises(ValueError, match="member"):
        cover.predict(1, X)
    with pytest.raises(ValueError, match="2D array"):
        cover.predict(0, [0.0, 1.0])


def test_sample_exponential_prefers_the_best_member():
    # The default sampler of Cover lives in sklearn_semiprivate.mechanisms.
    pytest.importorskip("sklearn_semiprivate.mechanisms")
    rng = np.random.default_rng(2)
    X_public = rng.normal(size=(30, 2))
    y_public = (X_public[:, 0] > 0).astype(int)
    cover = FiniteClass(make_models(X_public, y_public)).cover(X_public)
    X = rng.normal(size=(100, 2))
    y = (X[:, 0] > 0).astype(int)
    scores = cover.scores(X, y)
    member = cover.sample_exponential(X, y, 400.0, random_state=0)
    assert scores[member] == scores.max()


def test_a_private_row_a_member_cannot_predict_counts_as_a_mistake():
    # Review: scores called each member's predict on all private rows at
    # once, so a row with a category unseen by a public encoder made the fit
    # raise after the charge, with the value in the message.
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(0)
    X_pub = rng.integers(0, 5, size=(60, 1)).astype(float)
    y_pub = (X_pub[:, 0] > 2).astype(int)
    model = make_pipeline(OneHotEncoder(), LogisticRegression()).fit(X_pub, y_pub)
    cover = FiniteClass([model]).cover(X_pub)
    X = rng.integers(0, 5, size=(2000, 1)).astype(float)
    y = (X[:, 0] > 2).astype(int)
    full = cover.scores(X, y)
    was_correct = int(model.predict(X[17:18])[0] == y[17])
    X[17, 0] = 31337.0  # unseen by the public encoder: predict raises on it
    assert cover.scores(X, y)[0] == full[0] - was_correct
