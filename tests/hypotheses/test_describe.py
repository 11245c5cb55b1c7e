"""``Cover.describe(member, feature_names=...)``: rules printed with feature names.

Every cover prints ``x[j]`` without names, and the given name in its place with
them; covers whose members name no feature (cells of a fitted estimator, the
models of a finite class) print the same text either way.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.tree import DecisionTreeClassifier

from sklearn_semiprivate.hypotheses import (
    DecisionStumps,
    FiniteClass,
    Halfplanes,
    Intervals,
    PartitionLabelings,
    Thresholds,
    feature_labels,
)

RNG = np.random.default_rng(7)
X_2D = RNG.normal(size=(10, 2))
Y_2D = (X_2D[:, 0] > 0).astype(int)
X_1D = RNG.normal(size=(6, 1))
NAMES_2D = ["mean radius", "worst texture"]
NAMES_1D = ["age"]


def covers():
    """(id, cover, names, prints_features) for every cover type."""
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X_2D, Y_2D)
    models = [
        DummyClassifier(strategy="constant", constant=c).fit(X_2D, Y_2D) for c in (0, 1)
    ]
    return [
        ("thresholds", Thresholds().cover(X_1D), NAMES_1D, True),
        ("intervals", Intervals().cover(X_1D), NAMES_1D, True),
        ("stumps", DecisionStumps().cover(X_2D), NAMES_2D, True),
        ("halfplanes", Halfplanes().cover(X_2D), NAMES_2D, True),
        ("partition-grid", PartitionLabelings(n_bins=2).cover(X_2D), NAMES_2D, True),
        (
            "partition-kdtree",
            PartitionLabelings("kdtree", depth=2).cover(X_2D),
            NAMES_2D,
            True,
        ),
        ("partition-tree", PartitionLabelings(tree).cover(X_2D), NAMES_2D, False),
        ("finite", FiniteClass(models).cover(X_2D), NAMES_2D, False),
    ]


COVERS = covers()
IDS = [c[0] for c in COVERS]


def _members(cover):
    # Every member of the small covers, and a spread of the larger ones.
    size = cover.size
    return range(size) if size <= 200 else np.linspace(0, size - 1, 50, dtype=int)


@pytest.mark.parametrize("name, cover, names, prints_features", COVERS, ids=IDS)
def test_describe_uses_the_feature_names(name, cover, names, prints_features):
    printed_some = False
    for member in _members(cover):
        member = int(member)
        plain = cover.describe(member)
        assert cover.describe(member, feature_names=None) == plain
        named = cover.describe(member, feature_names=names)
        expected = plain
        for j, feature in enumerate(names):
            expected = expected.replace(f"x[{j}]", feature)
        assert named == expected
        printed_some |= any(feature in named for feature in names)
    # Not vacuous: the covers that print features printed a name somewhere.
    assert printed_some == prints_features


@pytest.mark.parametrize("name, cover, names, prints_features", COVERS, ids=IDS)
def test_describe_refuses_names_of_the_wrong_length(
    name, cover, names, prints_features
):
    with pytest.raises(ValueError, match="one name per feature"):
        cover.describe(0, feature_names=[*names, "extra"])


def test_feature_labels_accepts_arrays_and_index():
    pd = pytest.importorskip("pandas")
    assert feature_labels(pd.Index(["a", "b"]), 2) == ["a", "b"]
    assert feature_labels(np.array(["a", "b"], dtype=object), 2) == ["a", "b"]
    assert feature_labels(None, 3) == ["x[0]", "x[1]", "x[2]"]
    with pytest.raises(ValueError, match="one name per feature"):
        feature_labels([["a", "b"]], 2)
