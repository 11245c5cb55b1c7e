"""PrivacyUtilityDisplay and privacy_utility_curve: computation, data flow, artists."""

# SPDX-License-Identifier: BSD-3-Clause

import sys

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import StandardScaler

from sklearn_semiprivate import (
    PrivacyAccountant,
    PublicData,
    SemiPrivateClassifier,
    make_public_fitted_pipeline,
)
from sklearn_semiprivate.display import PrivacyUtilityDisplay, privacy_utility_curve
from sklearn_semiprivate.model_selection import PrivateParameterSearch

N_PRIV, N_PUB, N_TEST = 300, 30, 200


class _Log(list):
    """A list that ``clone`` shares instead of copying, to record every fit."""

    def __deepcopy__(self, memo):
        return self


class RecordingClassifier(ClassifierMixin, BaseEstimator):
    """Records what each fit got; its score grows with epsilon, plus fresh noise."""

    def __init__(self, epsilon=1.0, n_public=None, log=None):
        self.epsilon = epsilon
        self.n_public = n_public
        self.log = log

    def fit(self, X, y, X_public=None, y_public=None):
        self.log.append(
            {
                "epsilon": self.epsilon,
                "n_public": self.n_public,
                "X": np.asarray(X),
                "X_public": X_public,
                "y_public": y_public,
            }
        )
        self.classes_ = np.unique(y)
        self.noise_ = np.random.default_rng().normal(scale=0.01)  # fresh per fit
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)

    def score(self, X, y, sample_weight=None):
        return float(0.5 + 0.1 * np.log10(self.epsilon) + self.noise_)


class RecordingBaseline(ClassifierMixin, BaseEstimator):
    """A baseline whose fit takes no public data: records the rows it saw."""

    def __init__(self, log=None):
        self.log = log

    def fit(self, X, y):
        self.log.append(np.asarray(X))
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


@pytest.fixture
def data():
    """Private rows in [0, 1], public rows in [10, 11]: their origin is visible."""
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(N_PRIV, 3))
    X_pub = 10 + rng.uniform(size=(N_PUB, 3))
    X_test = rng.uniform(size=(N_TEST, 3))
    label = lambda Z: (Z[:, 0] % 1 > 0.5).astype(int)  # noqa: E731
    return X, label(X), X_pub, label(X_pub), X_test, label(X_test)


@pytest.fixture
def plt():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


# --- the computation ----------------------------------------------------------


def test_constructor_stores_arrays():
    scores = np.array([[0.5, 0.6], [0.7, 0.8]])
    baselines = {"ceiling": np.array([0.9, 0.9])}
    display = PrivacyUtilityDisplay(
        param_values=[1.0, 2.0],
        scores=scores,
        param_name="n_public",
        estimator_name="clf",
        baselines=baselines,
        score_name="balanced accuracy",
    )
    assert display.param_values == [1.0, 2.0]
    assert display.scores is scores and display.baselines is baselines
    assert display.param_name == "n_public" and display.estimator_name == "clf"
    assert display.score_name == "balanced accuracy"
    assert not hasattr(display, "ax_")


def test_curve_sets_each_value_and_repeats_with_fresh_noise(data):
    X, y, X_pub, _, X_test, y_test = data
    log = _Log()
    scores, baseline_scores = privacy_utility_curve(
        RecordingClassifier(log=log),
        X,
        y,
        X_public=PublicData(X_pub),
        X_test=X_test,
        y_test=y_test,
        param_values=[0.1, 1.0, 10.0],
        n_repeats=4,
    )
    assert scores.shape == (3, 4) and baseline_scores == {}
    assert [r["epsilon"] for r in log] == [0.1] * 4 + [1.0] * 4 + [10.0] * 4
    for record in log:  # private rows as X, the public rows as PublicData
        assert record["X"] is X or np.array_equal(record["X"], X)
        assert isinstance(record["X_public"], PublicData)
        assert np.array_equal(record["X_public"].X, X_pub)
        assert record["X_public"].y is None
    assert np.all(scores.std(axis=1) > 0)  # repeats differ by their noise
    np.testing.assert_allclose(scores.mean(axis=1), [0.4, 0.5, 0.6], atol=0.03)


def test_curve_on_real_classifier_repeats_differ_and_mean_rises(data):
    X, y, X_pub, _, X_test, y_test = data
    scores, _ = privacy_utility_curve(
        SemiPrivateClassifier("stumps", classes=[0, 1], random_state=0),
        X,
        y,
        X_public=PublicData(X_pub - 10),
        X_test=X_test,
        y_test=y_test,
        param_values=[0.01, 30.0],
        n_repeats=20,
    )
    # Fresh noise on every fit, so the outcome is random; exact false-failure
    # rates from the exponential mechanism's own distribution over the 176
    # stumps (_member_log_probabilities; 200,000 draws of the sampler match it,
    # chi-square p = 0.49), convolved over the repeats:
    # * eps=0.01 is near-uniform over the stumps and about 10% of the mass has
    #   test accuracy >= 0.915, so a mean of 5 repeats missed the +0.15 gap with
    #   probability 6.0e-4. With 20 repeats: 2.4e-11 (15: 6.4e-9, 10: 1.8e-6).
    # * all 20 draws at eps=0.01 equal: sum_v p_v**20 = 9.0e-24.
    # * mean at eps=30 <= 0.9: 0 in double precision (the 0.99 stump wins).
    # A fixed random_state seeds the public side only: the noise stays fresh.
    # (Not std() > 0: the std of 20 equal floats can be 1e-16 by rounding.)
    assert np.unique(scores[0]).size > 1
    # Expected accuracy: 0.547 at eps=0.01, 0.99 at eps=30.
    assert scores[1].mean() > 0.9
    assert scores[1].mean() > scores[0].mean() + 0.15


def test_public_size_variant_keeps_ints(data, plt):
    X, y, X_pub, _, X_test, y_test = data
    log = _Log()
    display = PrivacyUtilityDisplay.from_estimator(
        RecordingClassifier(log=log),
        X,
        y,
        X_public=X_pub,  # a raw array is wrapped
        X_test=X_test,
        y_test=y_test,
        param_name="n_public",
        param_values=[5, 10, 30],
        n_repeats=2,
    )
    assert display.scores.shape == (3, 2)
    assert [r["n_public"] for r in log] == [5, 5, 10, 10, 30, 30]
    assert all(type(r["n_public"]) is int for r in log)  # an int is a row count
    assert all(r["epsilon"] == 1.0 for r in log)
    assert isinstance(log[0]["X_public"], PublicData)
    assert display.ax_.get_xlabel() == "public rows (n_public)"
    assert display.ax_.get_xscale() == "log"  # 30 / 5 >= 5
    narrow = PrivacyUtilityDisplay(
        param_values=[10, 20, 30], scores=np.ones((3, 1)), param_name="n_public"
    ).plot()
    assert narrow.ax_.get_xscale() == "linear"


def test_nested_name_in_public_fitted_pipeline(data, plt):
    X, y, X_pub, y_pub, X_test, y_test = data
    pipe = make_public_fitted_pipeline(
        StandardScaler(), SemiPrivateClassifier("stumps", classes=[0, 1])
    )
    display = PrivacyUtilityDisplay.from_estimator(
        pipe,
        X,
        y,
        X_public=PublicData(X_pub - 10, y_pub),
        X_test=X_test,
        y_test=y_test,
        param_name="semiprivateclassifier__epsilon",
        param_values=[0.5, 5.0],
        n_repeats=2,
    )
    assert display.scores.shape == (2, 2)
    assert np.all((display.scores >= 0) & (display.scores <= 1))
    assert display.lines_[0].get_label() == "SemiPrivateClassifier"
    assert display.ax_.get_xlabel() == "epsilon (private data)"
    assert pipe.get_params()["semiprivateclassifier__epsilon"] == 1.0  # not fitted
    assert not hasattr(pipe, "steps_")


def test_baselines_are_fitted_on_the_right_rows(data):
    X, y, X_pub, y_pub, X_test, y_test = data
    private_log, public_log = _Log(), _Log()
    _, baseline_scores = privacy_utility_curve(
        RecordingClassifier(log=_Log()),
        X,
        y,
        X_public=PublicData(X_pub, y_pub),
        X_test=X_test,
        y_test=y_test,
        param_values=[1.0],
        n_repeats=3,
        baselines={
            "non-private": RecordingBaseline(log=private_log),
            "public only": (RecordingBaseline(log=public_log), "public"),
        },
    )
    assert list(baseline_scores) == ["non-private", "public only"]
    assert all(s.shape == (3,) for s in baseline_scores.values())
    assert len(private_log) == 3 and len(public_log) == 3
    assert all(np.array_equal(seen, X) for seen in private_log)
    # The public-only floor never sees a private row (private rows are < 1).
    assert all(np.array_equal(seen, X_pub) for seen in public_log)
    assert all(np.all(seen >= 10) for seen in public_log)


def test_baseline_shortcuts_and_public_labels(data):
    X, y, X_pub, y_pub, X_test, y_test = data
    _, baseline_scores = privacy_utility_curve(
        RecordingClassifier(log=_Log()),
        X,
        y,
        X_public=X_pub - 10,
        y_public=y_pub,
        X_test=X_test,
        y_test=y_test,
        param_values=[1.0],
        n_repeats=2,
        baselines=["non_private", "public_only"],
    )
    ceiling = baseline_scores["non-private LogisticRegression (ceiling)"]
    floor = baseline_scores["public-only LogisticRegression (floor)"]
    assert ceiling.shape == floor.shape == (1,)  # deterministic: fitted once
    assert ceiling.mean() > 0.9  # a linear rule fits this task
    assert 0 <= floor.mean() <= 1


def test_public_only_baseline_needs_public_labels(data):
    X, y, X_pub, _, X_test, y_test = data
    log = _Log()
    with pytest.raises(ValueError, match="labeled public rows"):
        privacy_utility_curve(
            RecordingClassifier(log=log),
            X,
            y,
            X_public=PublicData(X_pub),
            X_test=X_test,
            y_test=y_test,
            baselines={"floor": (LogisticRegression(), "public")},
        )
    assert log == []


def test_parallel_fits_give_the_same_records(data):
    X, y, X_pub, _, X_test, y_test = data
    log = _Log()
    with parallel_config(backend="threading"):
        scores, _ = privacy_utility_curve(
            RecordingClassifier(log=log),
            X,
            y,
            X_public=PublicData(X_pub),
            X_test=X_test,
            y_test=y_test,
            param_values=[0.1, 10.0],
            n_repeats=3,
            n_jobs=2,
        )
    assert sorted(r["epsilon"] for r in log) == [0.1] * 3 + [10.0] * 3
    np.testing.assert_allclose(scores.mean(axis=1), [0.4, 0.6], atol=0.03)


# --- bad input, before any fit ------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"param_values": []}, ValueError, "param_values is empty"),
        ({"param_values": 1.0}, ValueError, "1-D sequence"),
        ({"param_values": [1.0, None]}, TypeError, "finite numbers"),
        ({"param_values": [1.0, np.inf]}, TypeError, "finite numbers"),
        ({"param_name": "epsilo"}, ValueError, "did you mean 'epsilon'"),
        ({"param_name": "n_private"}, ValueError, "no parameter 'n_private'"),
        ({"X_test": None}, ValueError, "X_test and y_test are required"),
        ({"n_repeats": 0}, ValueError, "n_repeats"),
        ({"baselines": ["ceiling"]}, ValueError, "Unknown baseline shortcut"),
        ({"baselines": {"b": (LogisticRegression(), "test")}}, ValueError, "data"),
        ({"baselines": {"b": "not an estimator"}}, ValueError, "shortcut"),
        ({"baselines": {"b": 3}}, TypeError, "not an estimator"),
        ({"baselines": [LogisticRegression()]}, TypeError, "baselines must be"),
        ({"y_public": np.zeros(N_PUB)}, TypeError, "given twice"),
        ({"scoring": "no_such_metric"}, ValueError, "no_such_metric"),
        # The test rows' format (a review found these after the first fit).
        ({"y_test": np.zeros(N_TEST - 1)}, ValueError, "inconsistent numbers"),
    ],
)
def test_bad_input_raises_before_any_fit(data, kwargs, error, match):
    X, y, X_pub, y_pub, X_test, y_test = data
    log = _Log()
    params = {
        "X_public": PublicData(X_pub, y_pub),
        "X_test": X_test,
        "y_test": y_test,
        **kwargs,
    }
    with pytest.raises(error, match=match):
        privacy_utility_curve(RecordingClassifier(log=log), X, y, **params)
    assert log == []


@pytest.mark.parametrize(
    "X_test, match",
    [
        (np.full((N_TEST, 3), np.nan), "contains NaN"),
        (np.zeros((N_TEST, 2)), "X_test has 2 features"),
    ],
    ids=["nan", "width"],
)
@pytest.mark.parametrize("searched", [False, True], ids=["alone", "in-a-search"])
def test_test_rows_one_of_our_estimators_cannot_score_are_refused_free(
    data, X_test, match, searched
):
    X, y, X_pub, _, _, y_test = data
    ledger = PrivacyAccountant(epsilon=100.0)
    estimator = SemiPrivateClassifier(classes=[0, 1], accountant=ledger)
    if searched:  # a third review found a search over it charged first
        grid = {"hypothesis_class": ["stumps", "partition"]}
        estimator = PrivateParameterSearch(estimator, grid)
    name = "estimator__epsilon" if searched else "epsilon"
    with pytest.raises(ValueError, match=match) as info:
        privacy_utility_curve(
            estimator,
            X,
            y,
            X_public=PublicData(X_pub),
            X_test=X_test,
            y_test=y_test,
            param_name=name,
        )
    assert ledger.history == []
    assert "array=" not in str(info.value)  # the rows are not quoted


def test_test_rows_a_pipeline_may_take_are_not_refused(data):
    # A second review: NaN a pipeline imputes, and a column it does not
    # select, were refused by the first version of the check.
    pd = pytest.importorskip("pandas")
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer

    X, y, X_pub, _, X_test, y_test = data
    cols = ["a", "b", "c"]
    X_test = X_test.copy()
    X_test[0, 1] = np.nan
    frame = pd.DataFrame(X_test, columns=cols).assign(row_id=np.arange(N_TEST))
    pipe = make_public_fitted_pipeline(
        ColumnTransformer([("num", SimpleImputer(), cols)]),
        SemiPrivateClassifier(classes=[0, 1]),
    )
    scores, _ = privacy_utility_curve(
        pipe,
        pd.DataFrame(X, columns=cols),
        y,
        X_public=PublicData(pd.DataFrame(X_pub, columns=cols)),
        X_test=frame,
        y_test=y_test,
        param_name="semiprivateclassifier__epsilon",
        param_values=[1.0],
        n_repeats=1,
    )
    assert scores.shape == (1, 1)


def test_nested_name_hint_for_pipelines():
    pipe = make_public_fitted_pipeline(StandardScaler(), SemiPrivateClassifier())
    with pytest.raises(ValueError, match="'semiprivateclassifier__epsilon'"):
        privacy_utility_curve(
            pipe, np.zeros((4, 2)), np.zeros(4), X_test=np.zeros((2, 2)), y_test=[0, 0]
        )


def test_missing_test_set_is_a_type_error(data):
    X, y, *_ = data
    with pytest.raises(TypeError, match="X_test"):
        PrivacyUtilityDisplay.from_estimator(RecordingClassifier(log=_Log()), X, y)


# --- from_cv_results ------------------------------------------------------------


def test_from_cv_results_of_a_grid_search(data, plt):
    X, y, X_pub, _, _, _ = data
    search = GridSearchCV(
        SemiPrivateClassifier("stumps", classes=[0, 1]),
        {"epsilon": [0.1, 1.0, 10.0], "mechanism": ["exponential", "permute_and_flip"]},
        cv=3,
    ).fit(X, y, X_public=PublicData(X_pub - 10))
    results = search.cv_results_
    display = PrivacyUtilityDisplay.from_cv_results(results)
    assert display.scores.shape == (3, 3)  # 3 values x 3 splits
    np.testing.assert_array_equal(display.param_values, [0.1, 1.0, 10.0])
    mean = np.asarray(results["mean_test_score"])
    eps = np.asarray(results["param_epsilon"], dtype=float)
    for i, value in enumerate([0.1, 1.0, 10.0]):  # the best mean per value
        best = np.flatnonzero(eps == value)[np.argmax(mean[eps == value])]
        np.testing.assert_allclose(display.scores[i].mean(), mean[best])
        np.testing.assert_allclose(
            display.scores[i].std(), results["std_test_score"][best]
        )
    assert display.estimator_name == "validation score (best per value)"
    assert display.ax_.get_ylabel() == "validation score"

    fixed = PrivacyUtilityDisplay.from_cv_results(
        results, fixed_params={"mechanism": "permute_and_flip"}, ax=display.ax_
    )
    rows = np.asarray(results["param_mechanism"]) == "permute_and_flip"
    np.testing.assert_allclose(fixed.scores.mean(axis=1), mean[rows])
    assert fixed.estimator_name == "validation score"
    assert len(display.ax_.get_lines()) == 2  # two displays, one axes


def test_from_cv_results_without_splits_skips_unscored(plt):
    # As PrivateParameterSearch with random stopping: no splits, NaN unscored.
    results = {
        "params": [{"epsilon": e} for e in (0.5, 1.0, 2.0)],
        "param_epsilon": np.ma.MaskedArray([0.5, 1.0, 2.0], dtype=object),
        "mean_test_score": np.array([np.nan, 0.8, 0.9]),
    }
    display = PrivacyUtilityDisplay.from_cv_results(results, baselines={"c": 0.95})
    np.testing.assert_array_equal(display.param_values, [1.0, 2.0])
    np.testing.assert_array_equal(display.scores, [[0.8], [0.9]])
    assert display.baseline_fill_between_["c"] is None  # one repeat: no band
    results["mean_test_score"][:] = np.nan
    with pytest.raises(ValueError, match="No candidate"):
        PrivacyUtilityDisplay.from_cv_results(results)


def test_from_cv_results_bad_input(plt):
    results = {
        "params": [{"epsilon": 1.0}],
        "param_epsilon": np.ma.MaskedArray([1.0], dtype=object),
        "mean_test_score": np.array([0.8]),
    }
    with pytest.raises(ValueError, match=r"searched parameters are \['epsilon'\]"):
        PrivacyUtilityDisplay.from_cv_results(results, param_name="n_public")
    with pytest.raises(ValueError, match="unknown parameters"):
        PrivacyUtilityDisplay.from_cv_results(results, fixed_params={"delta": 0})
    with pytest.raises(ValueError, match="'mean_test_score'"):
        PrivacyUtilityDisplay.from_cv_results(
            {k: v for k, v in results.items() if k != "mean_test_score"}
        )


# --- plot -------------------------------------------------------------------------


def _display():
    return PrivacyUtilityDisplay(
        param_values=[1.0, 0.1, 10.0],  # unsorted: drawn in order
        scores=np.array([[0.7, 0.8], [0.4, 0.6], [0.9, 0.9]]),
        estimator_name="semi-private",
        baselines={"ceiling": [0.95, 0.97], "floor": 0.5},
    )


def test_plot_artists(plt):
    from matplotlib.collections import PolyCollection

    display = _display().plot()
    assert display.figure_ is display.ax_.figure
    assert display.errorbar_ is None
    (line,) = display.lines_
    np.testing.assert_array_equal(line.get_xdata(), [0.1, 1.0, 10.0])
    np.testing.assert_allclose(line.get_ydata(), [0.5, 0.75, 0.9])
    (band,) = display.fill_between_
    assert isinstance(band, PolyCollection)
    assert list(display.baseline_lines_) == ["ceiling", "floor"]
    np.testing.assert_allclose(display.baseline_lines_["ceiling"].get_ydata(), 0.96)
    assert display.baseline_fill_between_["ceiling"] is not None
    assert display.baseline_fill_between_["floor"] is None  # one repeat
    legend = [t.get_text() for t in display.ax_.get_legend().get_texts()]
    assert legend == ["semi-private", "ceiling", "floor"]
    assert display.ax_.get_xscale() == "log"
    assert display.ax_.get_xlabel() == "epsilon (private data)"
    assert display.ax_.get_ylabel() == "accuracy"


def test_plot_styles_and_shared_axes(plt):
    _, ax = plt.subplots()
    errorbar = _display().plot(ax=ax, std_display_style="errorbar", name="eb")
    assert errorbar.ax_ is ax and errorbar.lines_ is None
    assert errorbar.fill_between_ is None and len(errorbar.errorbar_) == 1
    plain = _display().plot(ax=ax, std_display_style=None, xscale="linear")
    assert plain.fill_between_ is None and plain.errorbar_ is None
    assert all(band is None for band in plain.baseline_fill_between_.values())
    assert ax.get_xscale() == "linear"
    with pytest.raises(ValueError, match="std_display_style"):
        _display().plot(std_display_style="band")
    with pytest.raises(ValueError, match="xscale"):
        _display().plot(xscale="symlog")


def test_plot_rejects_mismatched_shapes(plt):
    with pytest.raises(ValueError, match="shape"):
        PrivacyUtilityDisplay(param_values=[1.0, 2.0], scores=np.ones((3, 2))).plot()
    with pytest.raises(ValueError, match="non-empty"):
        PrivacyUtilityDisplay(param_values=[], scores=np.ones((0, 2))).plot()


def test_missing_matplotlib_raises_clear_import_error(data, monkeypatch):
    X, y, X_pub, _, X_test, y_test = data
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r'pip install "sklearn_semiprivate\['):
        _display().plot()
    log = _Log()
    with pytest.raises(ImportError, match="from_estimator requires matplotlib"):
        PrivacyUtilityDisplay.from_estimator(
            RecordingClassifier(log=log),
            X,
            y,
            X_public=PublicData(X_pub),
            X_test=X_test,
            y_test=y_test,
        )
    assert log == []  # checked before any fit: no budget spent
    # The computation itself needs no matplotlib.
    scores, _ = privacy_utility_curve(
        RecordingClassifier(log=log),
        X,
        y,
        X_public=PublicData(X_pub),
        X_test=X_test,
        y_test=y_test,
        n_repeats=1,
    )
    assert scores.shape == (5, 1)
