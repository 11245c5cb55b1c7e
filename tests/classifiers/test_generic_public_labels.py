"""GenericLearnerClassifier's labeled side is epsilon-DP exactly with public labels.

Labeled public rows join the selection's score as a base measure, which must
not change the private rows' sensitivity. A mutation review counted private
rows twice when public labels were given and test_generic did not fail (only
test_semiprivate_privacy, through the shared code). The same construction as
test_generic.py's exact labeled-side audit, with labeled public rows added.
"""

import numpy as np

from sklearn_semiprivate import PublicData, reproducible_noise
from sklearn_semiprivate.audit import max_privacy_loss_over_pairs, neighbouring_pairs
from sklearn_semiprivate.classifiers import GenericLearnerClassifier
from sklearn_semiprivate.classifiers._base import prepare_fit_data

EPSILON = 2.0
DOMAIN = [
    ((x, z), label) for x in (0.0, 2.0, 3.0) for z in (0.0, 2.0) for label in (0, 1)
]
PROBE = np.array([[x, z] for x in (0.25, 0.75, 1.25, 2.25, 3.25) for z in (0.5, 2.5)])
UNLABELED = np.array([[0.2, 0.3], [1.4, 2.6], [2.5, 1.5], [3.6, 0.2], [0.9, 3.1]])
X_PUB = np.array([[1.0, 1.0], [2.5, 3.0], [3.5, 1.0]])
Y_PUB = np.array([0, 1, 1])


def output_log_distribution(clf, dataset):
    X = np.array([row[0] for row in dataset], dtype=float)
    y = np.array([row[1] for row in dataset])
    data = prepare_fit_data(
        clf,
        X,
        y,
        PublicData(X_PUB, Y_PUB),
        None,
        classes=clf.classes,
        n_public=None,
        rng=None,
    )
    bounds = np.array([[0.0, 4.0], [0.0, 4.0]])
    selector = clf._selector(bounds)
    with reproducible_noise():
        points, _ = clf._cover_points(
            data,
            UNLABELED,
            bounds,
            selector,
            np.random.default_rng(0),
            1,
            np.random.default_rng(2),
        )
    cover = selector._build_cover(np.vstack([points, X_PUB]), data.classes)
    log_p = selector._member_log_probabilities(cover, data)
    codes = cover.labelings(PROBE) @ (2 ** np.arange(len(PROBE)))
    out = np.full(2 ** len(PROBE), -np.inf)
    np.logaddexp.at(out, codes, log_p)
    return out


def test_labeled_side_with_public_labels_is_epsilon_dp_exactly():
    clf = GenericLearnerClassifier(
        epsilon=EPSILON, n_bins=4, n_synthetic=30, bounds=(0, 4), classes=[0, 1]
    )
    cache = {}

    def distribution(dataset):
        if dataset not in cache:
            cache[dataset] = output_log_distribution(clf, dataset)
        return cache[dataset]

    pairs = neighbouring_pairs(DOMAIN, n_rows=2, relation="replace_one")
    loss = max_privacy_loss_over_pairs(distribution, pairs, log=True).epsilon
    assert loss <= EPSILON + 1e-9
    assert loss > 0.7 * EPSILON  # not vacuous
