"""The noise SyntheticDataClassifier's fit adds to its marginals, measured.

At the scale the replace-one sensitivity asks, computed here independently
of the package's workload code: S = 3 marginals, one replaced row moves two
cells of each by 1/n, L2 sqrt(2 S) / n, L1 2 S / n. A mutation review halved
it and test_synthetic did not fail (the query-release tests did).
"""

import math

import numpy as np
import pytest

from sklearn_semiprivate import PublicData, SyntheticDataClassifier
from sklearn_semiprivate.mechanisms import analytic_gaussian_sigma
from sklearn_semiprivate.query_release import _measure


@pytest.mark.parametrize("delta", [1e-6, 0.0])
def test_marginal_noise_is_at_the_replace_one_scale(monkeypatch, delta):
    # The exact answers are read where they are noised; the noise measured is
    # the released measurements_ minus them (a review scaled the noise after
    # that call, and only the query-release tests failed).
    exact = []
    real = _measure.MeasureAll.sample

    def spy(self, true_answers, rng):
        exact.append(np.array(true_answers, dtype=float))
        return real(self, true_answers, rng)

    monkeypatch.setattr(_measure.MeasureAll, "sample", spy)
    rng = np.random.default_rng(0)
    n = 3000
    y = rng.integers(2, size=n)
    X = 2.0 * np.eye(3)[y] + rng.normal(size=(n, 3))
    X_pub = rng.normal(size=(150, 3))
    clf = SyntheticDataClassifier(
        epsilon=1.0, delta=delta, classes=[0, 1], n_bins=8, random_state=0
    )
    added = []
    for _ in range(20):  # fresh noise on every fit
        clf.fit(X, y, X_public=PublicData(X_pub))
        released = np.asarray(clf.release_.measurements_, dtype=float)
        added.append(released - exact[-1])
    noise = np.concatenate(added).ravel()  # 20 fits x 48 answers = 960 draws
    S = 3
    if delta > 0:
        sd = analytic_gaussian_sigma(1.0, delta, math.sqrt(2 * S) / n)
        z2 = np.mean((noise / sd) ** 2)  # chi2(960)/960: mean 1, sd 0.046
        # honest: 0.75-1.25 is about 5.4 sd (p < 1e-7); a halved sd gives 0.25
        assert 0.75 < z2 < 1.25
    else:
        b = 2 * S / n / 1.0
        m = np.mean(np.abs(noise)) / b  # Laplace: mean |x| = b; se 1/sqrt(960) = 0.032
        assert 0.8 < m < 1.2  # 6 se (p < 1e-8); a halved scale gives 0.5
