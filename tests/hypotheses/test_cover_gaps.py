"""Hypothesis covers: tests for the gaps of a mutation round (November 2026).

See tests/audit/test_audit_gaps.py. Each test names the mutant it kills and
passes on the unmutated code; all are deterministic.
"""

import warnings

import numpy as np
import pytest

from sklearn_semiprivate.hypotheses import FiniteClass, PartitionLabelings
from sklearn_semiprivate.mechanisms import exponential_mechanism

# ================================================ tests/hypotheses/test_partition.py


def test_enumerated_prior_path_is_the_mechanism_at_epsilon():
    # Mutant PT06 (a 1-D log_base_measure sends the draw to the enumerating
    # mechanism at 2 epsilon): with a per-member prior the cover samples
    # exponential_mechanism(scores, epsilon, base) itself. Same seed, same
    # draw, for every seed; at 2 epsilon some draws differ.
    rng = np.random.default_rng(0)
    cover = PartitionLabelings("quantile", n_bins=2).cover(rng.normal(size=(12, 2)))
    X = rng.normal(size=(40, 2))
    y = rng.integers(0, 2, size=40)
    base = np.log(np.arange(1, cover.size + 1) / cover.size)
    scores = cover.scores(X, y)
    for seed in range(40):
        got = cover.sample_exponential(
            X, y, 0.5, log_base_measure=base, random_state=seed
        )
        expected = exponential_mechanism(
            scores, 0.5, sensitivity=1.0, log_base_measure=base, random_state=seed
        )
        assert got == expected


@pytest.mark.parametrize("unseen", ["nearest", 1])
def test_a_row_in_a_bin_holding_no_public_point_follows_the_unseen_rule(unseen):
    # Mutant PN04 (a per-column key value no public point has is looked up as
    # its neighbour): public values 0 and 10 with n_bins=4 leave bins 1 and 2
    # empty; x = 4 lies in bin 1. Nearest centroid is 0 (cell 0); with a fixed
    # unseen label the row is in no cell (-1).
    cover = PartitionLabelings("quantile", n_bins=4, unseen=unseen).cover(
        [[0.0], [10.0]]
    )
    assert cover.n_cells_ == 2
    expected = 0 if unseen == "nearest" else -1
    assert cover.apply([[4.0]]).tolist() == [expected]
    member = cover.encode([0, 1])  # cell of 0 -> 0, cell of 10 -> 1
    assert cover.predict(member, [[4.0]]).tolist() == [0 if unseen == "nearest" else 1]


@pytest.mark.parametrize(
    "X_public", [[[0.0], [0.0], [0.0], [1.0]], [[0.0], [1.0], [1.0], [1.0]]]
)
def test_kdtree_split_at_a_tied_median_keeps_both_children_occupied(X_public):
    # Mutant PN02 (the build sends x == median right, keys() sends it left) and
    # mutant PN03 (a median equal to the largest value is not moved down):
    # with most public values tied at the minimum (PN02) or the maximum (PN03)
    # one child of the first split was empty and the next level failed on it.
    # Both children must hold public points, split by the x <= t of keys().
    cover = PartitionLabelings("kdtree", depth=2).cover(X_public)
    assert cover.n_cells_ == 2
    assert cover.apply([[0.0], [1.0]]).tolist() == [0, 1]
    assert cover.describe(cover.encode([0, 1])).startswith(
        "cell 0 [x[0] <= 0]: 0; cell 1 [x[0] > 0]: 1"
    )


# =================================================== tests/hypotheses/test_finite.py


class _WarnsOnNegativeRows:
    """A fitted public model whose predict warns, quoting the row, on x < 0."""

    def predict(self, X):
        X = np.asarray(X)
        if (X < 0).any():
            warnings.warn(f"odd input {X.min()!r}", UserWarning, stacklevel=2)
        return np.zeros(X.shape[0], dtype=int)


def test_member_warnings_on_private_rows_do_not_escape_the_scores():
    # Mutant FN03 (scores without dropped_warnings): a member's warning on a
    # private row (here quoting its value) would leave the fit. Public points
    # are non-negative, so the cover itself builds without a warning.
    cover = FiniteClass([_WarnsOnNegativeRows()]).cover([[1.0], [2.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = cover.scores([[-123.5], [4.0]], [0, 1])
    assert scores.tolist() == [1]
    assert [str(w.message) for w in caught] == []
