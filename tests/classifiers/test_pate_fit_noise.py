"""The noise PATEClassifier's fit adds, and its secret partition of the rows.

Without public data (local votes), the noise added must be Laplace at the
stated scale b = 2 / epsilon on every count. A mutation review halved it, or
made it Gaussian, and no test failed: test_noise_added_to_the_votes_is_at_
the_stated_scale covers the public-data path only, and test_without_public_
data_warns_and_uses_local_votes reads the attribute noise_scale_. It also
drew the partition from a fixed seed and no test failed (only the teachers'
seeds were checked for freshness).
"""

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone

from sklearn_semiprivate import PATEClassifier, PublicData
from sklearn_semiprivate.classifiers import _pate


@pytest.mark.parametrize("aggregator", ["gnmax", "lnmax"])
def test_local_noise_is_laplace_at_the_stated_scale(monkeypatch, aggregator):
    # The exact votes are read where they are noised, and the table the fit
    # labels its queries with where it takes their argmax: the noise measured
    # is the noise the release carries (a review scaled it after the call).
    exact, used = [], []
    real = _pate.noisy_votes

    def spy(votes, noise, scale, rng):
        exact.append(votes.copy())
        return real(votes, noise, scale, rng)

    class _Numpy:
        def __getattr__(self, name):
            return getattr(np, name)

        def argmax(self, a, *args, **kwargs):
            used.append(np.array(a))
            return np.argmax(a, *args, **kwargs)

    monkeypatch.setattr(_pate, "noisy_votes", spy)
    monkeypatch.setattr(_pate, "np", _Numpy())
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 2))
    y = (X[:, 0] > 0).astype(int)
    clf = PATEClassifier(
        aggregator=aggregator,
        epsilon=1.0,
        classes=[0, 1],
        bounds=(-3, 3),
        n_public=2000,
        random_state=0,
    )
    clf.fit(X, y)
    (votes,) = exact
    noise = (used[0] - votes).ravel()  # 4000 draws
    b = clf.noise_scale_
    assert b == 2.0
    # Laplace(b): mean |x| = b exactly; 4000 draws, se of mean|x| is b/sqrt(4000),
    # a 10% band is 6.3 standard errors (honest failure < 1e-9); a halved
    # scale is 50% off, Gaussian(b) has mean |x| = 0.80 b (20% off).
    assert abs(np.mean(np.abs(noise)) / b - 1.0) < 0.10
    # And the shape: Laplace, not Gaussian (KS test against Lap(0, b)).
    assert stats.kstest(noise, stats.laplace(scale=b).cdf).pvalue > 1e-6


def test_assignment_is_fresh_secret_noise(monkeypatch):
    calls = []
    real = _pate.teacher_votes

    def spy(*args, **kwargs):
        calls.append(args[5].copy())
        return real(*args, **kwargs)

    monkeypatch.setattr(_pate, "teacher_votes", spy)
    rng = np.random.default_rng(0)
    X, X_pub = rng.normal(size=(300, 3)), rng.normal(size=(20, 3))
    y = (X[:, 0] > 0).astype(int)
    clf = PATEClassifier(n_teachers=10, classes=[0, 1], random_state=0)
    for _ in range(2):
        clone(clf).fit(X, y, X_public=PublicData(X_pub))
    a, b = calls
    # 300 rows in 10 teachers: equal by chance with probability 10**-300.
    assert not np.array_equal(a, b)
    # Every teacher gets rows (a teacher holding everything is caught too):
    # P(some teacher empty) <= 10 * 0.9**300 ~ 2e-13.
    assert np.bincount(a, minlength=10).min() > 0
