"""Selections at a huge epsilon / sensitivity: ties are still drawn at random.

``epsilon / (2 sensitivity)`` overflowed to inf at ``(1e300, 1e-300)``, and
``epsilon * count`` at ``epsilon ~ 1e305``: ``inf * 0`` or ``inf - inf`` made
the best candidates' logits NaN, and ``argmax`` took the first of them every
time, where the mechanism draws uniformly among the tied best. A
deterministic tie-break is not epsilon-DP for any epsilon (one changed row
moves the output from probability 0 to 1). Each case here failed before its
fix.
"""

import numpy as np
import pytest

from sklearn_semiprivate.classifiers._tree import split_logits
from sklearn_semiprivate.hypotheses import Intervals, PartitionLabelings
from sklearn_semiprivate.hypotheses._base import _gumbel_max
from sklearn_semiprivate.mechanisms import (
    ExponentialMechanism,
    PermuteAndFlip,
    ReportNoisyMax,
)

HUGE = [(1e300, 1e-300), (1e308, 1.0)]
MECHANISMS = [ExponentialMechanism, PermuteAndFlip, ReportNoisyMax]


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("epsilon, sensitivity", HUGE)
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_tied_best_candidates_are_drawn_uniformly(mechanism, epsilon, sensitivity):
    mech = mechanism(epsilon, sensitivity)
    scores = np.array([0.0, 1.0, 2.0, 2.0])
    np.testing.assert_allclose(
        np.exp(mech.log_probabilities(scores)), [0.0, 0.0, 0.5, 0.5], atol=0
    )
    draws = [mech.sample(scores, random_state=seed) for seed in range(400)]
    counts = np.bincount(draws, minlength=4)
    assert counts[:2].sum() == 0
    assert min(counts[2:]) > 150  # binomial(400, 1/2): about 200 each


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_excluded_candidate_stays_excluded_when_its_score_overflows():
    # Its scaled score, far above the best allowed one, overflowed to +inf;
    # with the base measure's -inf that made NaN.
    mech = ExponentialMechanism(1e300, 1e-300)
    scores = np.array([0.0, 1.0, 5.0, 1.0])
    base = np.array([0.0, 0.0, -np.inf, 0.0])
    np.testing.assert_allclose(
        np.exp(mech.log_probabilities(scores, base)), [0.0, 0.5, 0.0, 0.5], atol=0
    )
    draws = [
        mech.sample(scores, log_base_measure=base, random_state=s) for s in range(400)
    ]
    counts = np.bincount(draws, minlength=4)
    assert counts[0] == counts[2] == 0 and min(counts[1], counts[3]) > 150


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("criterion", ["misclassification", "gini"])
def test_tree_split_ties_are_drawn_uniformly(criterion):
    scores = np.array([[900.0, 900.0, 899.0], [5.0, 7.0, 7.0]])
    logits = split_logits(scores, 1e308, criterion)
    assert not np.isnan(logits).any()
    rng = np.random.default_rng(0)
    draws = _gumbel_max(np.repeat(logits[None], 400, axis=0), rng)
    assert set(draws[:, 0]) == {0, 1} and set(draws[:, 1]) == {1, 2}


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("epsilon", [1e300, 1e308])
def test_cover_ties_are_drawn_uniformly(epsilon):
    X_public = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    # Partition: two cells, the private rows tie labels 0 and 1 in each.
    cover = PartitionLabelings("quantile", n_bins=2).cover(X_public)
    # Three rows per label: epsilon * 3 overflows at 1e308.
    X = np.repeat([[-1.5], [-1.5], [1.5], [1.5]], 3, axis=0)
    y = np.repeat([0, 1, 0, 1], 3)
    draws = {cover.sample_exponential(X, y, epsilon, random_state=s) for s in range(60)}
    assert len(draws) == 4  # every labeling of the two cells
    # Intervals: the exact chain. Four members tie at six correct rows.
    cover = Intervals().cover(X_public)
    X, y = np.repeat([[-1.5], [1.5]], 3, axis=0), np.repeat([0, 1], 3)
    best = np.flatnonzero(cover.scores(X, y) == cover.scores(X, y).max())
    draws = [
        cover.sample_exponential(X, y, epsilon, random_state=s) for s in range(400)
    ]
    assert set(draws) == set(best.tolist())
    assert min(np.bincount(draws)[best]) > 60


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_scores_further_apart_than_the_largest_double(mechanism):
    # scores - max overflowed to -inf (probability 0 where it is 0.27), and
    # 2 * sensitivity to inf (a coefficient 0, then 0 * -inf = NaN).
    scores = np.array([1e308, -1e308])
    mech = mechanism(1.0, 1e308)  # exponent: 1 * 2e308 / (2 * 1e308) = 1
    logp = mech.log_probabilities(scores)
    assert np.isfinite(logp).all()
    if mechanism is ExponentialMechanism:  # the others have their own
        expected = np.array([1.0, np.exp(-1.0)]) / (1 + np.exp(-1.0))
        np.testing.assert_allclose(np.exp(logp), expected, rtol=1e-12)
    draws = [mech.sample(scores, random_state=s) for s in range(400)]
    assert 0 < sum(draws) < 400


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_blocks_with_different_maxima_warn_nothing():
    # The comparison across blocks overflowed (a warning whose presence
    # depended on the private scores).
    mech = ExponentialMechanism(1e300, 1e-300)
    blocks = [np.array([0.0, 1.0]), np.array([3.0, 0.0])]
    assert mech.sample(iter(blocks), random_state=0) == 2


def test_report_noisy_max_laplace_log_probabilities_with_vanishing_candidates():
    # Candidates scaled to -inf made NaN in the others' integrals.
    mech = ReportNoisyMax(1e308, 1e-300, noise="laplace")
    assert np.isneginf(mech._scaled(np.array([0.0, 1.0, 10.0, 10.0]))[:2]).all()
    logp = mech.log_probabilities([0.0, 1.0, 10.0, 10.0])
    np.testing.assert_allclose(np.exp(logp), [0.0, 0.0, 0.5, 0.5], atol=1e-12)


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_partition_base_measure_excluding_the_best_label():
    # Every cell was shifted by its best count over all labels, including a
    # label the base excludes: the allowed logits all went to -inf, and label
    # 0 (excluded, probability 0) was drawn every time.
    cover = PartitionLabelings("quantile", n_bins=2).cover(
        np.array([[-2.0], [-1.0], [1.0], [2.0]]), classes=(0, 1, 2)
    )
    X = np.repeat([[-1.5], [-1.5], [-1.5], [1.5]], [5, 3, 3, 1], axis=0)
    y = np.repeat([0, 1, 2, 1], [5, 3, 3, 1])
    base = np.zeros((cover.n_cells_, 3))
    base[:, 0] = -np.inf  # label 0 excluded everywhere
    logp = cover.cell_log_probabilities(X, y, 1e308, log_base_measure=base)
    np.testing.assert_allclose(np.exp(logp).sum(axis=1), 1.0)
    cell = cover.apply(np.array([[-1.5]]))[0]
    np.testing.assert_allclose(np.exp(logp[cell]), [0.0, 0.5, 0.5], atol=0)
    draws = {
        tuple(cover.decode(cover.sample_exponential(X, y, 1e308,
                                                    log_base_measure=base,
                                                    random_state=s)))
        for s in range(60)
    }  # fmt: skip
    assert all(labels[cell] in (1, 2) for labels in draws)
    assert {labels[cell] for labels in draws} == {1, 2}
