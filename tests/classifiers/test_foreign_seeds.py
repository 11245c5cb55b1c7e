"""A learner of another library, fitted on private rows, is never seeded publicly.

DESIGN §2: privacy noise is fresh on every fit, and no parameter determines
it. This package's learners draw their noise from OS entropy and seed only
their public side with ``random_state``, so the wrappers seed an unset
``random_state`` of theirs from their own (public) one, for reproducible
public steps. A private learner of another library may follow scikit-learn's
convention instead (diffprivlib does): all its randomness, noise included,
from ``random_state``. A review found LabelBoost, the active learner, the
transfer learner and PublicDataReduction giving such a learner a seed derived
from their public ``random_state`` alone: its noise was the same on every fit,
anyone could recompute it, and the released counts gave the exact ones back.
Left at None (the first fix), it drew from numpy's global generator, as
predictable after a public ``np.random.seed`` (a second review). It now gets a
seed drawn from the fit's fresh noise.
"""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.preprocessing import StandardScaler

from sklearn_semiprivate import (
    LabelBoostClassifier,
    PrivacyCost,
    PublicData,
    PublicFittedPipeline,
    SemiPrivateTreeClassifier,
    SubsampleTestReweighClassifier,
    SubSamplingActiveClassifier,
    reproducible_noise,
)
from sklearn_semiprivate.hypotheses import DecisionStumps
from sklearn_semiprivate.research import PublicDataReduction
from sklearn_semiprivate.utils._nested_fit import seed_unset_random_states

# Every random_state a foreign learner's fit saw, in order.
SEEN = []


class _ForeignDPLearner(ClassifierMixin, BaseEstimator):
    """A user's DP learner: states its cost like this package's learners, and
    takes all its randomness from random_state (scikit-learn's convention)."""

    _parameter_constraints: dict = {}

    def __init__(self, epsilon=0.5, classes=None, bounds=None, random_state=None):
        self.epsilon = epsilon
        self.classes = classes
        self.bounds = bounds
        self.random_state = random_state

    def _privacy_cost(self, **fit_params):
        return PrivacyCost(float(self.epsilon), 0.0)

    def _privacy_neighbours(self, **fit_params):
        return "both"

    def fit(self, X, y, X_public=None, y_public=None):
        SEEN.append(self.random_state)
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        return np.zeros(np.asarray(X).shape[0], dtype=int)


def _wrappers(learner):
    box = (-2, 2)
    return {
        "LabelBoost": LabelBoostClassifier(
            learner(bounds=box), hypothesis_class=DecisionStumps(),
            vc_dim=2, n_base=1, classes=[0, 1], random_state=0,
        ),
        "active": SubSamplingActiveClassifier(
            learner(epsilon=0.01, bounds=box), classes=[0, 1], random_state=0,
        ),
        "reduction": PublicDataReduction(
            learner(), n_public=2, classes=[0, 1], random_state=0,
        ),
        "transfer": SubsampleTestReweighClassifier(
            learner(bounds=box, classes=[0, 1]), alpha=0.1, epsilon=2.0, delta=1e-5,
            kappa=0.5, local_epsilon=1.0, max_iter=3, n_subsample=20,
            random_state=0,
        ),
    }  # fmt: skip


def _data(name):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(400, 3))
    y = (X[:, 0] > 0).astype(int)
    kw = {"X_public": PublicData(rng.uniform(-1, 1, size=(60, 3)))}
    if name == "transfer":
        X_t = rng.uniform(-1, 1, size=(4000, 3))
        kw.update(X_target=X_t, y_target=(X_t[:, 0] > 0).astype(int))
    return X, y, kw


def _seeds_of_two_fits(name, learner=None):
    X, y, kw = _data(name)
    runs = []
    for _ in range(2):
        np.random.seed(0)  # noqa: NPY002 (a public global seed: must not matter)
        SEEN.clear()
        _wrappers(learner or _ForeignDPLearner)[name].fit(X, y, **kw)
        runs.append(list(SEEN))
    return runs


@pytest.mark.parametrize("name", ["LabelBoost", "active", "reduction", "transfer"])
def test_a_foreign_private_learner_gets_a_fresh_secret_seed(name):
    # Under the public seed both fits saw the same int derived from
    # random_state=0; left at None, numpy's global generator.
    first, second = _seeds_of_two_fits(name)
    assert first and all(isinstance(seed, int) for seed in first + second)
    assert set(first).isdisjoint(second), (first, second)


@pytest.mark.parametrize("name", ["LabelBoost", "active", "reduction", "transfer"])
def test_inside_reproducible_noise_a_foreign_learner_s_seed_repeats(name):
    # Its output is declared not private there: identical refits need it.
    with reproducible_noise():
        first, second = _seeds_of_two_fits(name)
    assert first and first == second


# The transfer learner takes only a learner with an ``epsilon`` parameter.
@pytest.mark.parametrize("name", ["LabelBoost", "active", "reduction"])
def test_a_foreign_learner_inside_this_package_s_pipeline_gets_a_secret_seed(name):
    # The owner of the parameter is foreign; its holder (the pipeline) is ours.
    def learner(**kw):
        return PublicFittedPipeline(
            [("s", StandardScaler()), ("clf", _ForeignDPLearner(**kw))]
        )

    first, second = _seeds_of_two_fits(name, learner)
    assert first and all(isinstance(seed, int) for seed in first + second)
    assert set(first).isdisjoint(second), (first, second)


def test_a_secret_seed_serves_every_owner_but_this_package_and_scikit_learn():
    from sklearn.cluster import KMeans
    from sklearn.pipeline import Pipeline

    class _Holder(BaseEstimator):
        def __init__(self, inner=None, random_state=None):
            self.inner = inner
            self.random_state = random_state

    est = Pipeline(
        [
            ("km", KMeans(n_clusters=2)),  # scikit-learn: seeded
            ("tree", SemiPrivateTreeClassifier()),  # this package: seeded
            ("foreign", _ForeignDPLearner()),  # another library: not
            ("holder", _Holder(inner=KMeans())),  # held by a foreign one: not
        ]
    )
    public = clone(est)
    seed_unset_random_states(public, 0)  # every unset one from the seed
    seed_unset_random_states(est, 0, secret_seed=1)
    params, from_seed = est.get_params(), public.get_params()
    for key in ("km__random_state", "tree__random_state"):
        assert params[key] == from_seed[key]
    for key in (
        "foreign__random_state",
        "holder__random_state",
        "holder__inner__random_state",
    ):
        assert isinstance(params[key], int) and params[key] != from_seed[key]


def test_this_package_s_learner_is_still_seeded_on_its_public_side():
    # The reduction's inner tree gets a seed from random_state (its public
    # side), so that two fits with the same random_state share its public steps.
    X, y, kw = _data("reduction")
    seeds = []
    for _ in range(2):
        red = PublicDataReduction(
            SemiPrivateTreeClassifier(max_depth=1, classes=[0, 1]),
            n_public=2,
            classes=[0, 1],
            random_state=0,
        ).fit(X, y, **kw)
        seeds.append(red.estimator_.random_state)
    assert isinstance(seeds[0], int) and seeds[0] == seeds[1]


@pytest.mark.parametrize("name", ["LabelBoost", "active", "reduction", "transfer"])
def test_the_secret_seed_is_not_kept_in_the_fitted_learner(name):
    # The fitted inner learner is released (estimator_): its random_state
    # would determine its noise (a review saw the secret seed there).
    X, y, kw = _data(name)
    SEEN.clear()
    fitted = _wrappers(_ForeignDPLearner)[name].fit(X, y, **kw)
    assert SEEN and isinstance(SEEN[-1], int)
    random_states = {
        key: value
        for key, value in fitted.estimator_.get_params(deep=True).items()
        if key.endswith("random_state")
    }
    assert random_states == {"random_state": None}


# The same learner without _parameter_constraints (BaseEstimator still gives
# it _validate_params): LabelBoost and the active learner raised a bare
# AttributeError on it (a review), where the reduction fitted it.
_Bare = type(
    "_Bare",
    (ClassifierMixin, BaseEstimator),
    {
        k: v
        for k, v in vars(_ForeignDPLearner).items()
        if k not in ("_parameter_constraints", "__dict__", "__weakref__")
    },
)


@pytest.mark.parametrize("name", ["LabelBoost", "active", "reduction"])
def test_a_foreign_learner_without_parameter_constraints_is_fitted(name):
    X, y, kw = _data(name)
    fitted = _wrappers(_Bare)[name].fit(X, y, **kw)
    assert fitted.predict(X[:3]).shape == (3,)


@pytest.mark.parametrize("name", ["LabelBoost", "active", "reduction"])
def test_the_secret_seed_is_not_kept_in_a_pipeline_s_fitted_steps(name):
    # A third review: forget_secret_seeds reset the pipeline's parameter
    # steps, but its fitted steps_ (clones) kept the seed, and a pickled model
    # gave the exact counts back.
    def learner(**kw):
        return PublicFittedPipeline(
            [("s", StandardScaler()), ("clf", _ForeignDPLearner(**kw))]
        )

    X, y, kw = _data(name)
    SEEN.clear()
    fitted = _wrappers(learner)[name].fit(X, y, **kw)
    seed = SEEN[-1]
    assert isinstance(seed, int)
    found = []

    def walk(obj, seen):
        if id(obj) in seen or isinstance(obj, (str, bytes, int, float, np.ndarray)):
            return
        seen.add(id(obj))
        if isinstance(obj, dict):
            items = obj.values()
        elif isinstance(obj, (list, tuple)):
            items = obj
        elif hasattr(obj, "__dict__"):
            items = vars(obj).values()
        else:
            return
        for item in items:
            if isinstance(item, int) and item == seed:
                found.append(type(obj).__name__)
            walk(item, seen)

    walk(fitted, set())
    assert found == []


def test_the_search_names_what_a_foreign_learner_lacks():
    # A third review: a bare AttributeError (_parameter_constraints) before
    # the search's own clear refusal.
    from sklearn_semiprivate.model_selection import PrivateParameterSearch

    X, y, kw = _data("reduction")
    search = PrivateParameterSearch(_Bare(classes=[0, 1]), {"epsilon": [0.5]})
    with pytest.raises(TypeError, match="no accountant parameter"):
        search.fit(X, y, **kw)
