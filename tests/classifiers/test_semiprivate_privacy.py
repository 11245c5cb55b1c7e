"""End-to-end privacy of SemiPrivateClassifier.fit, verified exactly.

The released object is the chosen hypothesis; it is identified by its labeling of
a fixed set of probe points, so the output space is the same for every dataset
(even for the mutant whose cover depends on private data). The exact output
distribution is computed through the estimator's own steps (cover points, cover,
mechanism), and a sampler test checks that ``fit`` really draws from it.
"""

import numpy as np
import pytest
from scipy import stats

from sklearn_semiprivate import PublicData, SemiPrivateClassifier, reproducible_noise
from sklearn_semiprivate.audit import max_privacy_loss_over_pairs, neighbouring_pairs
from sklearn_semiprivate.classifiers._base import prepare_fit_data
from sklearn_semiprivate.mechanisms import ExponentialMechanism

X_PUBLIC = np.array([[0.5, 2.5], [1.5, 0.5], [2.5, 1.5]])
Y_PUBLIC = np.array([0, 1, 1])
PROBE = np.array([[x, z] for x in (0.0, 1.0, 2.0, 3.0) for z in (0.0, 2.0)])
DOMAIN = [
    ((x, z), label) for x in (0.0, 2.0, 3.0) for z in (0.0, 2.0) for label in (0, 1)
]
EPSILON = 2.0


def as_arrays(dataset):
    X = np.array([row[0] for row in dataset], dtype=float)
    y = np.array([row[1] for row in dataset])
    return X, y


def output_log_distribution(clf, dataset, y_public=None):
    """Exact log P(released labeling of PROBE) of ``clf.fit`` on ``dataset``."""
    X, y = as_arrays(dataset)
    data = prepare_fit_data(
        clf,
        X,
        y,
        PublicData(X_PUBLIC, y_public),
        None,
        classes=clf.classes,
        n_public=None,
        rng=np.random.default_rng(0),
    )
    cover = clf._build_cover(clf._cover_points(data, None), data.classes)
    log_p = clf._member_log_probabilities(cover, data)
    codes = cover.labelings(PROBE) @ (2 ** np.arange(len(PROBE)))
    out = np.full(2 ** len(PROBE), -np.inf)
    np.logaddexp.at(out, codes, log_p)
    return out


class EpsilonTooBig(SemiPrivateClassifier):
    def _mechanism(self):
        return ExponentialMechanism(1.5 * self.epsilon)


class MissingFactorTwo(SemiPrivateClassifier):
    def _mechanism(self):
        # exp(eps * score) instead of exp(eps * score / 2).
        return ExponentialMechanism(self.epsilon, sensitivity=0.5)


class CoverFromPrivatePoints(SemiPrivateClassifier):
    def _cover_points(self, data, rng):
        return data.X


def worst_loss(clf, relation, y_public=None):
    cache = {}

    def distribution(dataset):
        if dataset not in cache:
            cache[dataset] = output_log_distribution(clf, dataset, y_public)
        return cache[dataset]

    pairs = neighbouring_pairs(DOMAIN, n_rows=2, relation=relation)
    return max_privacy_loss_over_pairs(distribution, pairs, log=True).epsilon


@pytest.mark.parametrize("relation", ["replace_one", "add_remove"])
@pytest.mark.parametrize("hypothesis_class", ["stumps", "halfplanes"])
@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip"])
def test_fit_is_epsilon_dp_exactly(relation, hypothesis_class, mechanism):
    clf = SemiPrivateClassifier(
        hypothesis_class, epsilon=EPSILON, mechanism=mechanism, classes=[0, 1]
    )
    loss = worst_loss(clf, relation)
    assert loss <= EPSILON + 1e-9
    # Not vacuous: some neighbour comes close to the bound. Under add/remove every
    # score moves the same way, so the loss is at most epsilon / 2 (the factor 2
    # is only needed for replace-one).
    tight = 0.7 if relation == "replace_one" else 0.35
    assert loss > tight * EPSILON


def test_public_labels_prior_keeps_epsilon():
    clf = SemiPrivateClassifier("stumps", epsilon=EPSILON, classes=[0, 1])
    assert worst_loss(clf, "replace_one", y_public=Y_PUBLIC) <= EPSILON + 1e-9


@pytest.mark.parametrize(
    "mutant", [EpsilonTooBig, MissingFactorTwo, CoverFromPrivatePoints]
)
def test_mutants_are_caught(mutant):
    # Measured: the correct fit reaches 0.72-0.80 epsilon here; the mutants
    # reach 1.18 (epsilon x 1.5), 1.66 (factor 2 missing) and infinity.
    clf = mutant("stumps", epsilon=EPSILON, classes=[0, 1])
    assert worst_loss(clf, "replace_one") > EPSILON + 1e-3


@pytest.mark.statistical
@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip"])
def test_fit_samples_the_audited_distribution(mechanism):
    # Both mechanisms: the exact audit above reads _member_log_probabilities,
    # not the fit's draw, and a mutation review replaced permute-and-flip's
    # draw by the argmax of the exact scores, or drew it at 2 epsilon, with
    # no test noticing.
    dataset = (((0.0, 0.0), 0), ((2.0, 2.0), 1), ((3.0, 0.0), 1), ((2.0, 0.0), 1))
    X, y = as_arrays(dataset)
    clf = SemiPrivateClassifier(
        "stumps", epsilon=EPSILON, mechanism=mechanism, classes=[0, 1]
    )
    p = np.exp(output_log_distribution(clf, dataset))
    n_fits = 3000
    weights = 2 ** np.arange(len(PROBE))
    # The seed fixes the noise only under reproducible_noise (elsewhere the
    # noise is fresh, and this test at alpha = 1e-6 failed at up to its nominal
    # rate): a distinct seed per fit gives independent draws and a fixed verdict.
    with reproducible_noise():
        codes = [
            int(
                clf.set_params(random_state=seed)
                .fit(X, y, X_public=PublicData(X_PUBLIC))
                .predict(PROBE)
                @ weights
            )
            for seed in range(n_fits)
        ]
    observed = np.bincount(codes, minlength=p.size)
    support = p > 0
    assert observed[~support].sum() == 0
    expected = p[support] * n_fits
    assert expected.min() > 5  # the chi-square approximation holds
    _, p_value = stats.chisquare(observed[support], expected)
    assert p_value > 1e-6  # p = 0.69 with these seeds
