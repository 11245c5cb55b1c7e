"""Mutation round E (the recommended estimator's path and the private tree).

Each test fails on the mutant its comment names, which no earlier test
caught (or caught only through another test's side effect). Every test is
deterministic (fixed seeds, or reproducible_noise with a fixed
random_state); the one statistical test states its false-failure probability.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from sklearn_semiprivate import (
    PrivacyLeakWarning,
    PrivateSGDClassifier,
    PublicData,
    SemiPrivateLogisticRegression,
    SemiPrivateTreeClassifier,
    reproducible_noise,
)
from sklearn_semiprivate.classifiers import _sgd_steps, _tree
from sklearn_semiprivate.classifiers._logistic_mm import PublicFeatureMap
from sklearn_semiprivate.classifiers._sgd_steps import (
    clipped_gradient_sum,
    loss_coefficients,
)
from sklearn_semiprivate.classifiers._tree import descend
from sklearn_semiprivate.query_release import public_quantile_bins

# ==========================================================================
# tests/classifiers/test_sgd.py
# ==========================================================================


class _RecordingRng:
    """Delegates to a Generator; records every normal draw (scale, size, value)."""

    def __init__(self, rng):
        self._rng = rng
        self.normals = []

    def normal(self, loc, scale, size=None):
        value = self._rng.normal(loc, scale, size)
        self.normals.append((scale, size, value))
        return value

    def __getattr__(self, name):
        return getattr(self._rng, name)


# Mutants S13 (the step's sum clipped at 2C while the noise stays z*C: the
# sensitivity doubles, an epsilon about twice the stated one) and S12 (the
# noise drawn at the stated scale, then halved before it is added).
# Existing tests missed S13: the spies check the noise *scale* only, the
# per-example clipping test calls clipped_gradient_sum directly (not the clip
# norm private_sgd passes to it), test_steps_are_divided_by_the_released_count
# uses rows too small to be clipped, and a doubled epsilon is, per the file's
# own comment, out of the audit's reach. S12 was killed only incidentally (the
# missing-clipping audit's event became rare); no test compares the noise
# drawn with the noise added for DP-SGD (test_logistic has one for "mm" only).
# One full-batch step, no randomness but the recorded draw: the update must be
# exactly -(sum of the terms clipped at C + the drawn noise) / n_rows.
def test_step_releases_the_sum_clipped_at_c_plus_the_drawn_noise():
    data = np.random.default_rng(0)
    Xt = 3.0 * data.normal(size=(10, 3))  # every term's norm is well above 2C
    codes = data.integers(2, size=10)
    W0 = np.zeros((3, 1))
    C, z = 0.25, 2.0
    rng = _RecordingRng(np.random.default_rng(1))
    W = _sgd_steps.private_sgd(
        Xt, codes, W0, loss="log_loss", n_classes=2, sampling_rate=1.0,
        n_steps=1, clip_norm=C, noise_multiplier=z, n_rows=1000.0,
        learning_rate=1.0, radius=1e9, rng=rng,
    )  # fmt: skip
    A = loss_coefficients(Xt @ W0, codes, "log_loss", 2)
    terms = np.sqrt(np.einsum("ij,ij->i", Xt, Xt) * np.einsum("ij,ij->i", A, A))
    assert terms.min() > 2 * C  # the clipping is exercised at C and at 2C
    ((scale, _size, noise),) = rng.normals
    assert scale == z * C
    assert np.shape(noise) == W0.shape
    G = clipped_gradient_sum(Xt, A, C)
    np.testing.assert_allclose(W, -(G + noise) / 1000.0, rtol=1e-10, atol=0)


# Mutants S16 (fixed-size batches, round(n q) rows, instead of Poisson
# sampling) and S15b (batch membership drawn from a generator seeded by a
# public value, the step size: the rows of a step are not hidden, so the
# subsampled-Gaussian accounting does not apply). Both keep the utility, so
# the accuracy tests pass (S15, a fixed seed, was killed only because it
# trained on the same rows every step). No test looks at the batches.
# The batch of the first step is read off the scores loss_coefficients gets
# (row i has score i / 1000 at the start). Deterministic seeds; for the
# record, under the correct sampler a failure needs all 60 sizes equal or
# every pair of same-size batches identical, each probability < 1e-12.
def test_batches_are_poisson_and_hidden_in_the_secret_generator(monkeypatch):
    n = 20
    Xt = np.column_stack([np.arange(n) / 1000.0, np.ones(n)])
    W0 = np.array([[1.0], [0.0]])
    batches = []
    real = _sgd_steps.loss_coefficients

    def spy(S, codes, loss, n_classes):
        if len(batches) < spy.fits:  # the first step of each fit
            batches.append(frozenset(np.rint(S[:, 0] * 1000).astype(int).tolist()))
        return real(S, codes, loss, n_classes)

    spy.fits = 0
    monkeypatch.setattr(_sgd_steps, "loss_coefficients", spy)
    for seed in range(60):
        spy.fits += 1
        _sgd_steps.private_sgd(
            Xt, np.zeros(n, dtype=np.intp), W0, loss="log_loss", n_classes=2,
            sampling_rate=0.5, n_steps=2, clip_norm=1.0, noise_multiplier=1.0,
            n_rows=float(n), learning_rate="auto", radius=10.0,
            rng=np.random.default_rng(seed),
        )  # fmt: skip
    assert len(batches) == 60
    sizes = [len(b) for b in batches]
    assert len(set(sizes)) > 2  # Poisson: the batch size is random
    mode = max(set(sizes), key=sizes.count)
    same_size = {b for b in batches if len(b) == mode}
    assert sizes.count(mode) >= 5 and len(same_size) > 1  # and so are its rows


# Mutant G04 (PublicScaling built from the private rows) was killed, but only
# through test_public_labels_give_the_start (the labeled start moved with the
# scaling). A direct check of the released geometry: center_, scale_ and
# row_radius_ are the public rows' and do not move with a private row.
def test_scaling_is_read_off_the_public_rows_only():
    from sklearn_semiprivate.classifiers._sgd_steps import PublicScaling

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    X_pub = rng.normal(size=(40, 3))
    expected = PublicScaling.from_public(X_pub, True)
    X_neighbour, y_neighbour = np.vstack([X, [[40.0, -40.0, 40.0]]]), np.r_[y, 1]
    for X_fit, y_fit in [(X, y), (X_neighbour, y_neighbour)]:
        clf = PrivateSGDClassifier(n_epochs=1.0, classes=[0, 1]).fit(
            X_fit, y_fit, X_public=PublicData(X_pub)
        )
        np.testing.assert_array_equal(clf.center_, expected.center)
        np.testing.assert_array_equal(clf.scale_, expected.scale)
        assert clf.row_radius_ == expected.radius


# ==========================================================================
# tests/classifiers/test_logistic.py
# ==========================================================================


def _logistic_data(n=300, n_pub=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] - X[:, 1] > 0).astype(int)
    return X, y, rng.normal(size=(n_pub, 3))


# Mutant L01: the feature map (centre, scale, clipping radius, bin edges)
# built from the private rows instead of the public ones. The released
# attributes center_, scale_, clip_norm_ and bin_edges_ then publish the
# private means, standard deviations, a norm quantile and quantiles, without
# noise. The sensitivity tests still pass (rows are clipped whatever the
# centre), and the accuracy tests pass (the private geometry is better). No
# test compared the fitted geometry with the public rows' or across a
# neighbour.
@pytest.mark.parametrize("solver", ["mm", "sgd"])
def test_feature_map_is_read_off_the_public_rows_only(solver):
    X, y, X_pub = _logistic_data()
    expected = PublicFeatureMap.from_public(X_pub, 0.5, 8)
    X_neighbour = np.vstack([X, [[40.0, -40.0, 40.0]]])
    y_neighbour = np.r_[y, 1]
    for X_fit, y_fit in [(X, y), (X_neighbour, y_neighbour)]:
        clf = SemiPrivateLogisticRegression(
            solver=solver, n_bins=8, classes=[0, 1]
        ).fit(X_fit, y_fit, X_public=PublicData(X_pub))
        np.testing.assert_array_equal(clf.center_, expected.center)
        np.testing.assert_array_equal(clf.scale_, expected.scale)
        assert clf.clip_norm_ == expected.radius
        assert len(clf.bin_edges_) == len(expected.bin_edges)
        for got, want in zip(clf.bin_edges_, expected.bin_edges):
            np.testing.assert_array_equal(got, want)


# ==========================================================================
# tests/classifiers/test_tree.py
# ==========================================================================


def _tree_data(n=300, n_pub=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    y = ((X[:, 0] > 0.3) & (X[:, 1] > 0.6)).astype(int)
    return X, y, rng.uniform(size=(n_pub, 3))


# Mutant T09: the candidate thresholds (bin edges) are quantiles of the
# private rows. bin_edges_ publishes private quantiles without noise (and the
# split scores' sensitivity argument assumes fixed, public candidates). The
# exact-DP tests build the scores from fixed codes, and the fit tests only
# check accuracy, so nothing noticed.
def test_split_candidates_are_read_off_the_public_rows_only():
    X, y, X_pub = _tree_data()
    expected = public_quantile_bins(X_pub, 16)
    X_neighbour = np.vstack([X, [[0.999, 0.001, 0.5]]])
    for X_fit, y_fit in [(X, y), (X_neighbour, np.r_[y, 1])]:
        clf = SemiPrivateTreeClassifier(classes=[0, 1]).fit(
            X_fit, y_fit, X_public=PublicData(X_pub)
        )
        assert len(clf.bin_edges_) == len(expected)
        for got, want in zip(clf.bin_edges_, expected):
            np.testing.assert_array_equal(got, want)


# Mutant T05: one Laplace draw (the first leaf's) added to every leaf. Each
# leaf's count then carries the same noise, so differences between leaves are
# exact: a row's presence shows in them without noise. The existing leaf test
# checks the mechanism's scale and its input (the exact counts), not that the
# output has independent noise per leaf. With reproducible_noise and a fixed
# random_state the noise is deterministic; the correct fit draws continuous
# i.i.d. Laplace noise, so equal noise vectors in two leaves has probability 0.
# (T13, clipping negative counts to 0, is post-processing and must pass.)
def test_every_leaf_gets_its_own_noise():
    X, y, X_pub = _tree_data()
    clf = SemiPrivateTreeClassifier(
        epsilon=4.0, max_depth=3, classes=[0, 1], random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with reproducible_noise():
            clf.fit(X, y, X_public=PublicData(X_pub))
    codes = np.column_stack(
        [np.searchsorted(e, x, side="right") for x, e in zip(X.T, clf.bin_edges_)]
    )
    leaf = descend(codes, clf.split_features_, clf.split_thresholds_)
    counts = np.bincount(leaf * 2 + y, minlength=16).reshape(8, 2)
    noise = clf.leaf_counts_ - counts
    # Only leaves whose released counts are all positive: there no
    # post-processing (e.g. clipping negative counts to 0, which is allowed)
    # can have changed the noise.
    clean = noise[np.all(clf.leaf_counts_ > 0, axis=1)]
    assert clean.shape[0] >= 4
    assert len({tuple(row) for row in clean.tolist()}) == clean.shape[0]


# Mutant T07: the exponential mechanisms' Gumbel noise drawn from
# np.random.default_rng(random_state), a public seed: the chosen split is then
# a deterministic function of the scores and a known seed (argmax of known
# noise plus scores), not a private selection. test_noise_is_fresh_unless_
# reproducible and test_leaf_noise_is_fresh_when_the_splits_are_fixed compare
# leaf_counts_, which differ through the (still fresh) leaf noise, so both
# passed. Here every candidate has the same score (pure labels: every split
# classifies all rows correctly), so each fit picks uniformly among the
# candidates (45: 3 features, 16 public bins). Statistical: under the correct
# fit all 12 fits pick the same split with probability 45**-11 < 1e-18.
@pytest.mark.statistical
def test_split_noise_is_fresh_whatever_the_random_state():
    X, _, X_pub = _tree_data()
    y = np.zeros(X.shape[0], dtype=int)
    clf = SemiPrivateTreeClassifier(
        epsilon=1.0, max_depth=1, classes=[0, 1], random_state=0
    )
    picks = set()
    for _ in range(12):
        fit = clone(clf).fit(X, y, X_public=PublicData(X_pub))
        picks.add((int(fit.split_features_[0][0]), int(fit.split_thresholds_[0][0])))
    assert len(picks) > 1


# (The Gumbel generator can also be checked without statistics: record the
# generator _gumbel_max receives and require it to be the fit's noise_rng.)
def test_split_noise_comes_from_the_fit_noise_generator(monkeypatch):
    X, y, X_pub = _tree_data()
    made, used = [], []
    real_rng, real_gumbel = _tree.noise_rng, _tree._gumbel_max

    def rng_spy(random_state):
        made.append(real_rng(random_state))
        return made[-1]

    def gumbel_spy(logits, rng):
        used.append(rng)
        return real_gumbel(logits, rng)

    monkeypatch.setattr(_tree, "noise_rng", rng_spy)
    monkeypatch.setattr(_tree, "_gumbel_max", gumbel_spy)
    SemiPrivateTreeClassifier(max_depth=2, classes=[0, 1], random_state=0).fit(
        X, y, X_public=PublicData(X_pub)
    )
    assert len(made) == 1 and len(used) == 2
    assert all(rng is made[0] for rng in used)


# ==========================================================================
# tests/test_validation.py (or each estimator's bad-parameters test)
# ==========================================================================


# Mutant B02: check_bounds accepts lo == hi (``>=`` weakened to ``>``). The
# estimators then divide by a zero half-width; clip_rows silently turns the
# inf/NaN into clipped rows, so every fit still "works" and no test noticed:
# the bad-bounds tests only try lo > hi, e.g. (1, 0). Not a privacy leak (the
# box is public), a validation gap: the documented contract is lo < hi.
@pytest.mark.parametrize(
    "estimator",
    [PrivateSGDClassifier, SemiPrivateLogisticRegression, SemiPrivateTreeClassifier],
)
def test_an_empty_bounds_interval_is_refused(estimator):
    from sklearn_semiprivate.classifiers._bounds import check_bounds

    with pytest.raises(ValueError, match="lo < hi"):
        check_bounds((1.0, 1.0), 2)
    with pytest.raises(ValueError, match="lo < hi"):
        check_bounds([[0.0, 1.0], [2.0, 2.0]], 2)
    X = np.random.default_rng(0).uniform(size=(50, 2))
    y = (X[:, 0] > 0.5).astype(int)
    with pytest.raises(ValueError, match="lo < hi"):
        estimator(classes=[0, 1], bounds=[[0.0, 1.0], [0.5, 0.5]]).fit(X, y)
