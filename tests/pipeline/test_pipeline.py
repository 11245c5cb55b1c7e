"""PublicFittedPipeline: transformers fitted on public rows, applied to both sets."""

import pickle
import traceback

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_breast_cancer
from sklearn.decomposition import PCA
from sklearn.feature_selection import SelectKBest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_validate, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from sklearn_semiprivate import (
    PrivacyAccountant,
    PrivacyBudgetError,
    PrivacyCost,
    PrivacyLeakWarning,
    PublicData,
    PublicDataWarning,
    PublicFittedPipeline,
    SemiPrivateClassifier,
    SemiPrivateLogisticRegression,
    make_public_fitted_pipeline,
    reproducible_noise,
)
from sklearn_semiprivate.hypotheses import PartitionLabelings


@pytest.fixture(params=[False, True], ids=["no-routing", "routing"])
def routing(request):
    with sklearn.config_context(enable_metadata_routing=request.param):
        yield request.param


def make_data(n=600, n_pub=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(50.0, 10.0, size=(n, 3))
    y = (X[:, 1] > 52.0).astype(int)
    X_pub = rng.normal(50.0, 10.0, size=(n_pub, 3))
    return X, y, X_pub


def make_frame(n, seed, *, secret=None):
    """Mixed numeric and string columns; the label depends on both."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "age": rng.normal(50.0, 10.0, size=n),
            "income": rng.lognormal(10.0, 0.5, size=n),
            "city": rng.choice(["paris", "lyon", "nice"], size=n),
        }
    )
    y = ((frame["age"] > 50) ^ (frame["city"] == "nice")).astype(int).to_numpy()
    if secret is not None:
        frame.loc[0, "city"] = secret
    return frame, y


def clf(**params):
    return SemiPrivateClassifier(classes=[0, 1], random_state=0, **params)


class Spy(TransformerMixin, BaseEstimator):
    """Standardizes, and records every call with the data it received.

    The log is a class attribute because the pipeline fits a clone.
    """

    log = []

    def _record(self, method, X, y=None):
        type(self).log.append((method, X, None if y is None else np.asarray(y)))

    def fit(self, X, y=None):
        self._record("fit", X, y)
        self.mean_, self.scale_ = np.mean(X, axis=0), np.std(X, axis=0)
        return self

    def fit_transform(self, X, y=None):
        self._record("fit_transform", X, y)
        self.mean_, self.scale_ = np.mean(X, axis=0), np.std(X, axis=0)
        return (np.asarray(X) - self.mean_) / self.scale_

    def transform(self, X):
        self._record("transform", X)
        return (np.asarray(X) - self.mean_) / self.scale_


@pytest.fixture
def spy():
    Spy.log = []
    yield Spy
    Spy.log = []


def test_private_rows_reach_transformers_only_through_transform(spy):
    X, y, X_pub = make_data()
    y_pub = (X_pub[:, 1] > 52.0).astype(int)
    pipe = PublicFittedPipeline([("spy", Spy()), ("clf", clf())], row_wise=["spy"])
    pipe.fit(X, y, X_public=PublicData(X_pub, y_pub))
    fits = [(X_seen, y_seen) for m, X_seen, y_seen in spy.log if m.startswith("fit")]
    transforms = [X_seen for m, X_seen, _ in spy.log if m == "transform"]
    # Fitted once, on the public rows and labels, never on a private row.
    assert len(fits) == 1
    assert fits[0][0] is X_pub
    np.testing.assert_array_equal(fits[0][1], y_pub)
    # The public rows go through transform after the fit (the map every
    # other row takes), then the private rows, the very object passed to fit.
    assert len(transforms) == 2
    assert transforms[0] is X_pub and transforms[1] is X
    for method, X_seen, y_seen in spy.log:
        assert X_seen.shape[0] in (X_pub.shape[0], X.shape[0])
        if method != "transform":
            assert not np.array_equal(X_seen, X)
            assert y_seen is None or y_seen.shape[0] == X_pub.shape[0]
    # The last step saw the public rows standardized with public statistics.
    scaler = pipe.named_steps_["spy"]
    np.testing.assert_allclose(scaler.mean_, X_pub.mean(axis=0))
    # predict, score: transform only.
    spy.log = []
    pipe.predict(X[:7])
    pipe.score(X[:7], y[:7])
    assert [m for m, _, _ in spy.log] == ["transform", "transform"]


def test_cross_validation_never_fits_a_transformer_on_private_rows(spy, routing):
    X, y, X_pub = make_data(n=300)
    y_pub = (X_pub[:, 1] > 52.0).astype(int)
    pipe = PublicFittedPipeline([("spy", Spy()), ("clf", clf())], row_wise=["spy"])
    cross_validate(pipe, X, y, cv=3, params={"X_public": PublicData(X_pub, y_pub)})
    fits = [(m, X_seen, y_seen) for m, X_seen, y_seen in spy.log if m != "transform"]
    assert len(fits) == 3
    for _, X_seen, y_seen in fits:
        assert X_seen is X_pub
        np.testing.assert_array_equal(y_seen, y_pub)
    # transform saw the public rows after each fit, the 200-row training
    # folds and the 100-row test folds.
    sizes = sorted(X_seen.shape[0] for m, X_seen, _ in spy.log if m == "transform")
    assert sizes == sorted([len(X_pub)] * 3 + [100] * 3 + [200] * 3)


def test_unlabeled_public_rows_give_transformers_no_labels(spy):
    X, y, X_pub = make_data()
    PublicFittedPipeline([("spy", Spy()), ("clf", clf())], row_wise=["spy"]).fit(
        X, y, X_public=PublicData(X_pub)
    )
    assert [(m, y_seen) for m, _, y_seen in spy.log if m != "transform"] == [
        ("fit", None)
    ]


def test_same_as_preprocessing_public_rows_by_hand():
    X, y, X_pub = make_data()
    with reproducible_noise():
        pipe = make_public_fitted_pipeline(
            StandardScaler(), PCA(n_components=2), clf(hypothesis_class="partition")
        ).fit(X, y, X_public=PublicData(X_pub))
        scaler = StandardScaler().fit(X_pub)
        pca = PCA(n_components=2).fit(scaler.transform(X_pub))
        by_hand = clf(hypothesis_class="partition").fit(
            pca.transform(scaler.transform(X)),
            y,
            X_public=PublicData(pca.transform(scaler.transform(X_pub))),
        )
    X_test = make_data(seed=1)[0]
    np.testing.assert_array_equal(
        pipe.predict(X_test), by_hand.predict(pca.transform(scaler.transform(X_test)))
    )
    assert pipe.named_steps_["semiprivateclassifier"].member_ == by_hand.member_


def test_fixes_the_plain_pipeline_on_breast_cancer():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.3, random_state=0, stratify=y
    )
    X_priv, X_pub, y_priv, _ = train_test_split(
        X_tr, y_tr, test_size=0.15, random_state=0
    )
    cls = PartitionLabelings("kmeans", n_clusters=10)
    # The plain Pipeline's mistake is detected (from column names only).
    with reproducible_noise(), pytest.warns(PublicDataWarning, match="PublicFitted"):
        plain = make_pipeline(StandardScaler(), clf(hypothesis_class=cls)).fit(
            X_priv, y_priv, semiprivateclassifier__X_public=PublicData(X_pub)
        )
    with reproducible_noise():
        ours = make_public_fitted_pipeline(
            StandardScaler(), clf(hypothesis_class=cls)
        ).fit(X_priv, y_priv, X_public=PublicData(X_pub))
    majority = max(np.mean(y_te), 1 - np.mean(y_te))
    assert plain.score(X_te, y_te) <= majority + 0.01
    assert ours.score(X_te, y_te) > 0.85
    np.testing.assert_array_equal(ours.feature_names_in_, X.columns)


def test_no_public_data_raises_before_any_private_read(spy):
    X, y, _ = make_data()
    pipe = PublicFittedPipeline([("spy", Spy()), ("clf", clf())], row_wise=["spy"])
    with pytest.raises(ValueError, match=r"\['spy'\] on public rows only.*X_public"):
        pipe.fit(X, y)
    with pytest.raises(ValueError, match="on public rows only"):
        pipe.fit(X, y, X_public=PublicData(None))
    assert spy.log == []
    assert not hasattr(pipe, "steps_")


def test_fit_on_private_warn_is_an_explicit_leak(spy):
    X, y, _ = make_data()
    pipe = PublicFittedPipeline(
        [("spy", Spy()), ("clf", clf(bounds=(-3.0, 3.0)))], fit_on_private="warn"
    )
    with pytest.warns(PrivacyLeakWarning, match="fitted on the private rows"):
        pipe.fit(X, y)
    assert spy.log[0][0] == "fit_transform" and spy.log[0][1] is X


def test_without_transformers_public_data_is_optional():
    X, y, X_pub = make_data()
    pipe = PublicFittedPipeline([("skip", "passthrough"), ("clf", clf())])
    pipe.fit(X, y, X_public=PublicData(X_pub))
    assert pipe.score(X, y) > 0.9
    # No transformer to fit: the last step's own private-only path.
    pipe = PublicFittedPipeline([("skip", None), ("clf", clf(bounds=(0, 100)))])
    assert pipe.fit(X, y).privacy_spent_ == PrivacyCost(1.0, 0.0)


def test_public_failure_names_the_step_and_set():
    X, y = make_frame(200, 0)
    X_pub, _ = make_frame(40, 1)
    X_pub = X_pub.astype({"age": object})
    X_pub.loc[3, "age"] = "not a number"
    pipe = PublicFittedPipeline(
        [
            ("ct", ColumnTransformer([("num", StandardScaler(), ["age"])])),
            ("clf", clf()),
        ]
    )
    with pytest.raises(ValueError, match="Step 'ct' failed on the public rows") as e:
        pipe.fit(X, y, X_public=PublicData(X_pub))
    # Public data is not protected: the original message is kept and chained.
    assert "not a number" in str(e.value)
    assert e.value.__cause__ is not None


@pytest.mark.parametrize(
    "step, column, kept",
    [
        (StandardScaler(), "age", "could not convert string to float"),
        (OneHotEncoder(), "city", "Found unknown categories"),
    ],
    ids=["string-in-numeric", "unknown-category"],
)
def test_private_failure_does_not_echo_private_values(step, column, kept):
    X, y = make_frame(200, 0)
    X = X.astype({"age": object})
    X.loc[5, column] = "Alice-Smith-1970"  # a private value
    X_pub, _ = make_frame(40, 1)
    pipe = PublicFittedPipeline(
        [("ct", ColumnTransformer([("enc", step, [column])])), ("clf", clf())]
    )
    with pytest.raises(ValueError) as e:
        pipe.fit(X, y, X_public=PublicData(X_pub))
    message = str(e.value)
    assert message.startswith("Step 'ct' failed to transform the private rows (X)")
    assert kept in message and "ValueError" in message
    assert "Alice" not in message
    # The original exception is not attached: no traceback can print it.
    assert e.value.__cause__ is None and e.value.__context__ is None
    assert "Alice" not in "".join(traceback.format_exception(e.value))


def test_complex_private_rows_are_not_quoted():
    X, y, X_pub = make_data()
    X = X.astype(complex)
    X[3, 1] = 123.456 + 1j
    pipe = make_public_fitted_pipeline(StandardScaler(), clf())
    with pytest.raises(ValueError, match="Complex data not supported; the rest") as e:
        pipe.fit(X, y, X_public=PublicData(X_pub))
    assert "123.456" not in str(e.value)


def test_unknown_message_is_withheld():
    X, y, X_pub = make_data()

    class Leaky(Spy):
        def transform(self, X):
            if len(X) == len(X_pub):  # the public rows pass
                return super().transform(X)
            raise RuntimeError(f"row {X[0]} is odd")

    pipe = PublicFittedPipeline([("leaky", Leaky()), ("clf", clf())], row_wise="all")
    with pytest.raises(ValueError, match=r"RuntimeError \(its message is withheld"):
        pipe.fit(X, y, X_public=PublicData(X_pub))


def test_format_mismatch_is_a_clear_error():
    X, y, X_pub = make_data()
    pipe = make_public_fitted_pipeline(StandardScaler(), clf())
    with pytest.raises(ValueError, match="X_public has 2 features, but the private"):
        pipe.fit(X, y, X_public=PublicData(X_pub[:, :2]))
    with pytest.raises(ValueError, match="empty"):
        pipe.fit(X, y, X_public=PublicData(X_pub[:0]))
    frame, y_frame = make_frame(100, 0)
    public, _ = make_frame(30, 1)
    with pytest.raises(ValueError, match="columns must be those of the private X"):
        pipe.fit(frame, y_frame, X_public=PublicData(public[["city", "age", "income"]]))
    with pytest.raises(ValueError, match="2-dimensional"):
        pipe.fit(X[:, 0], y, X_public=PublicData(X_pub))


def make_mixed_pipeline(**clf_params):
    encode = ColumnTransformer(
        [
            ("num", StandardScaler(), ["age", "income"]),
            (
                "cat",
                OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                ["city"],
            ),
        ]
    )
    return PublicFittedPipeline(
        [
            ("encode", encode),
            ("pca", PCA(n_components=3)),
            ("clf", clf(hypothesis_class="partition", **clf_params)),
        ]
    )


@pytest.mark.parametrize("output", ["default", "pandas"])
def test_column_transformer_on_pandas_with_strings(output):
    X, y = make_frame(800, 0)
    X_pub, _ = make_frame(120, 1)
    X_pub.loc[0, "city"] = "marseille"  # public-only category: public, fine
    pipe = make_mixed_pipeline().set_output(transform=output)
    pipe.fit(X, y, X_public=PublicData(X_pub))
    X_test, _ = make_frame(300, 2)
    X_test.loc[0, "city"] = "brest"  # unseen category: ignored
    assert pipe.predict(X_test).shape == (300,)
    assert pipe.predict_proba(X_test).shape == (300, 2)
    np.testing.assert_array_equal(pipe.feature_names_in_, ["age", "income", "city"])
    assert pipe.n_features_in_ == 3
    final = pipe.named_steps_["clf"]
    if output == "pandas":
        np.testing.assert_array_equal(final.feature_names_in_, ["pca0", "pca1", "pca2"])
    else:
        assert not hasattr(final, "feature_names_in_")
    np.testing.assert_array_equal(pipe.classes_, [0, 1])


def test_grid_search_and_cross_validate(routing):
    X, y = make_frame(600, 0)
    X_pub, _ = make_frame(100, 1)
    ledger = PrivacyAccountant(epsilon=100.0)
    pipe = make_mixed_pipeline(accountant=ledger)
    search = GridSearchCV(
        pipe, {"pca__n_components": [2, 3], "clf__epsilon": [1.0, 2.0]}, cv=3
    )
    search.fit(X, y, X_public=PublicData(X_pub))
    assert len(ledger.history) == 4 * 3 + 1
    assert search.best_estimator_.named_steps_["pca"].n_samples_ == 100
    result = cross_validate(pipe, X, y, cv=3, params={"X_public": PublicData(X_pub)})
    assert len(ledger.history) == 4 * 3 + 1 + 3
    assert np.all(result["test_score"] > 0.6)


def test_last_step_fit_params_without_routing():
    X, y, X_pub = make_data()
    pipe = make_public_fitted_pipeline(StandardScaler(), clf())
    with pytest.raises(ValueError, match=r"Pass X_public to PublicFittedPipeline\.fit"):
        pipe.fit(X, y, semiprivateclassifier__X_public=PublicData(X_pub))
    with pytest.raises(ValueError, match="does not accept 'standardscaler__sw'"):
        pipe.fit(X, y, X_public=PublicData(X_pub), standardscaler__sw=1)


def test_routing_delivers_public_data_and_nothing_else(routing):
    X, y, X_pub = make_data()
    pipe = make_public_fitted_pipeline(StandardScaler(), clf())
    if routing:
        request = pipe.get_metadata_routing().consumes("fit", ["X_public", "y_public"])
        assert request == {"X_public", "y_public"}
        with pytest.raises(TypeError, match="sample_weight"):
            pipe.fit(X, y, X_public=PublicData(X_pub), sample_weight=np.ones(len(y)))
    assert pipe.fit(X, y, X_public=PublicData(X_pub)).score(X, y) > 0.9


def test_clone_pickle_and_params():
    X, y, X_pub = make_data()
    ledger = PrivacyAccountant(epsilon=10.0)
    pipe = make_public_fitted_pipeline(StandardScaler(), clf(accountant=ledger))
    params = pipe.get_params()
    assert params["semiprivateclassifier__epsilon"] == 1.0
    pipe.set_params(semiprivateclassifier__epsilon=2.0, standardscaler="passthrough")
    assert pipe.named_steps["semiprivateclassifier"].epsilon == 2.0
    twin = clone(pipe)
    assert twin.named_steps["semiprivateclassifier"].accountant is ledger
    pipe.fit(X, y, X_public=PublicData(X_pub))
    assert pipe.privacy_spent_ == PrivacyCost(2.0, 0.0)
    assert ledger.spent().epsilon == pytest.approx(2.0)
    # fit cloned the steps: the given ones are untouched.
    assert not hasattr(pipe.named_steps["semiprivateclassifier"], "member_")
    again = pickle.loads(pickle.dumps(pipe))
    np.testing.assert_array_equal(again.predict(X), pipe.predict(X))


def test_methods_follow_the_last_step():
    X, y, X_pub = make_data()
    plain = make_public_fitted_pipeline(StandardScaler(), clf())
    assert not hasattr(plain, "decision_function")
    relabel = make_public_fitted_pipeline(
        StandardScaler(), clf(final_estimator=LogisticRegression())
    )
    relabel.fit(X, y, X_public=PublicData(X_pub))
    scores = relabel.decision_function(X[:20])
    np.testing.assert_array_equal(scores > 0, relabel.predict(X[:20]) == 1)
    assert sklearn.base.is_classifier(relabel)


def test_public_labels_reach_supervised_transformers():
    X, y, X_pub = make_data()
    y_pub = (X_pub[:, 1] > 52.0).astype(int)
    pipe = make_public_fitted_pipeline(SelectKBest(k=1), clf())
    pipe.fit(X, y, X_public=PublicData(X_pub, y_pub))
    assert pipe.named_steps_["selectkbest"].get_support().tolist() == [
        False,
        True,
        False,
    ]
    with pytest.raises(ValueError, match="Step 'selectkbest' failed on the public"):
        pipe.fit(X, y, X_public=PublicData(X_pub))


def test_raw_public_array_warns():
    X, y, X_pub = make_data()
    pipe = make_public_fitted_pipeline(StandardScaler(), clf())
    with pytest.warns(PublicDataWarning, match="raw array"):
        pipe.fit(X, y, X_public=X_pub)
    with pytest.raises(TypeError, match="given twice"):
        pipe.fit(X, y, X_public=PublicData(X_pub, y[:80]), y_public=y[:80])


def test_invalid_steps():
    X, y, X_pub = make_data()
    with pytest.raises(TypeError, match="Step 'lr' must be a transformer"):
        PublicFittedPipeline([("lr", LogisticRegression()), ("clf", clf())]).fit(
            X, y, X_public=PublicData(X_pub)
        )
    with pytest.raises(TypeError, match="accepts X_public"):
        make_public_fitted_pipeline(StandardScaler(), LogisticRegression()).fit(
            X, y, X_public=PublicData(X_pub)
        )
    with pytest.raises(ValueError, match="empty"):
        PublicFittedPipeline([]).fit(X, y)


def test_verbose_prints_each_step(capsys):
    X, y, X_pub = make_data()
    pipe = make_public_fitted_pipeline(StandardScaler(), clf(), verbose=True)
    pipe.fit(X, y, X_public=PublicData(X_pub))
    out = capsys.readouterr().out
    assert "(step 1 of 2) Processing standardscaler" in out
    assert "(step 2 of 2) Processing semiprivateclassifier" in out
    # Review: the last step's line gave the total time, the private fit's
    # included.
    (last,) = [line for line in out.splitlines() if "step 2 of 2" in line]
    assert "total=" not in last and "duration not shown" in last


def test_fitted_last_step_names_its_ledger():
    # Review: the pipeline fitted a clone with its ledger cleared, and that
    # fitted step (steps_, a search's best_estimator_) no longer charged it.
    X, y, X_pub = make_data()
    ledger = PrivacyAccountant(epsilon=10)
    pipe = make_public_fitted_pipeline(StandardScaler(), clf(accountant=ledger))
    pipe.fit(X, y, X_public=PublicData(X_pub))
    fitted = pipe.steps_[-1][1]
    assert fitted.get_params()["accountant"] is ledger
    spent = ledger.spent().epsilon
    clone(fitted).fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent().epsilon == pytest.approx(spent + 1.0)


def test_last_step_charged_before_private_rows_are_transformed():
    # A public-fitted encoder that fails on a category absent from the public
    # rows would answer "is this category among the private rows?". The
    # pipeline reserves its last step's cost first: an exhausted ledger refuses
    # before any private row is transformed, and a failing transform stays
    # charged, once.
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(
        {"city": ["paris"] * 5 + ["rome"] * 45, "x": np.linspace(0, 1, 50)}
    )
    y = (X["x"] > 0.5).astype(int).to_numpy()
    X_pub = pd.DataFrame({"city": ["rome", "oslo"], "x": [0.2, 0.7]})

    def pipe(ledger):
        encode = ColumnTransformer(
            [("city", OneHotEncoder(handle_unknown="error"), ["city"])],
            remainder="passthrough",
        )
        return make_public_fitted_pipeline(encode, clf(accountant=ledger))

    spent = PrivacyAccountant(epsilon=1.0)
    spent.spend(1.0)
    with pytest.raises(PrivacyBudgetError):
        pipe(spent).fit(X, y, X_public=PublicData(X_pub))
    ledger = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(ValueError, match="private rows"):
        pipe(ledger).fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent() == PrivacyCost(1.0, 0.0)
    assert len(ledger.history) == 1
    # A successful fit is charged once too (not by the pipeline and the step).
    ok = pipe(ledger).fit(
        X[X["city"] == "rome"], y[X["city"] == "rome"], X_public=PublicData(X_pub)
    )
    assert len(ledger.history) == 2
    assert ok.privacy_spent_ == PrivacyCost(1.0, 0.0)


def test_overflow_between_transformers_does_not_fail_the_fit():
    # A review: +-inf was clipped after the last transformer only, so a
    # finite private row that overflowed in the first made the second refuse
    # the rows, after the charge, on one dataset and not its neighbour.
    from sklearn.preprocessing import PolynomialFeatures

    X, y, X_pub = make_data()
    for row in ([1e200, 0.0, 0.0], [1e200, -1e200, 1.0], [-1e308, 1e308, 1e308]):
        ledger = PrivacyAccountant(epsilon=10.0)
        neighbour = X.copy()
        neighbour[0] = row
        pipe = make_public_fitted_pipeline(
            PolynomialFeatures(2),
            PCA(2),
            SemiPrivateLogisticRegression(classes=[0, 1], accountant=ledger),
        )
        pipe.fit(neighbour, y, X_public=PublicData(X_pub))
        assert len(ledger.history) == 1


def test_refused_charge_of_a_last_step_with_two_ledgers_charges_neither():
    # A review: the pipeline charged the last step's ledgers one by one, so
    # one without room left the other charged for a fit that read nothing.
    from sklearn_semiprivate import SubSamplingActiveClassifier

    X, y, X_pub = make_data()
    roomy, full = PrivacyAccountant(epsilon=10.0), PrivacyAccountant(epsilon=0.1)
    active = SubSamplingActiveClassifier(
        clf(accountant=full), epsilon=0.5, classes=[0, 1], accountant=roomy
    )
    with pytest.raises(PrivacyBudgetError):
        make_public_fitted_pipeline(StandardScaler(), active).fit(
            X, y, X_public=PublicData(X_pub)
        )
    assert roomy.history == [] and full.history == []


def test_pre_charge_probe_prints_nothing(capsys):
    # A review: the probe fit before the charge printed the last step's
    # progress lines, which the real fit then printed again.
    X, y, X_pub = make_data()
    make_public_fitted_pipeline(StandardScaler(), clf(verbose=1)).fit(
        X, y, X_public=PublicData(X_pub)
    )
    alone = capsys.readouterr().out
    Xs_pub = StandardScaler().fit(X_pub)
    clf(verbose=1).fit(
        Xs_pub.transform(X), y, X_public=PublicData(Xs_pub.transform(X_pub))
    )
    direct = capsys.readouterr().out
    assert alone.count("cover:") == direct.count("cover:") == 1


def test_private_unlabeled_rows_are_refused():
    # They would reach the last step untransformed (and, after the charge,
    # fail or be sanitized in the wrong coordinates).
    from sklearn_semiprivate import GenericLearnerClassifier

    X, y, X_pub = make_data()
    ledger = PrivacyAccountant(epsilon=10.0)
    pipe = make_public_fitted_pipeline(
        StandardScaler(), GenericLearnerClassifier(classes=[0, 1], accountant=ledger)
    )
    with pytest.raises(ValueError, match="does not pass X_unlabeled"):
        pipe.fit(
            X, y, X_public=PublicData(X_pub), genericlearnerclassifier__X_unlabeled=X
        )
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_bad_last_step_parameter_costs_nothing():
    X, y, X_pub = make_data()
    ledger = PrivacyAccountant(epsilon=10.0)
    pipe = make_public_fitted_pipeline(
        StandardScaler(), clf(accountant=ledger, mechanism="bogus")
    )
    with pytest.raises(ValueError, match="mechanism"):
        pipe.fit(X, y, X_public=PublicData(X_pub))
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


@pytest.mark.parametrize(
    ("params", "y_of", "match"),
    [
        ({"bounds": (1, 0)}, lambda y: y, "lo < hi"),
        ({}, lambda y: y[:-1], "inconsistent numbers"),
        ({}, lambda y: np.c_[y, y], "1d array"),
    ],
)
def test_last_steps_free_errors_cost_nothing_in_the_pipeline(params, y_of, match):
    # Review: the pipeline charged the last step's cost before the last step's
    # own checks (its public parameters, the labels' format), which cost
    # nothing when it is fitted alone.
    X, y, X_pub = make_data()
    ledger = PrivacyAccountant(epsilon=1.0)
    step = SemiPrivateLogisticRegression(classes=[0, 1], accountant=ledger, **params)
    pipe = make_public_fitted_pipeline(StandardScaler(), step)
    with pytest.raises(ValueError, match=match):
        pipe.fit(X, y_of(y), X_public=PublicData(X_pub))
    assert ledger.spent().epsilon == 0.0


def test_query_release_on_public_bins():
    # The workflow of continuous private rows: bins fitted on the public
    # rows, the release of their marginals last, no y. The ledger is charged
    # once, with the release's stated cost, before any private row is binned;
    # the release sees the binned public rows.
    from sklearn.preprocessing import KBinsDiscretizer

    from sklearn_semiprivate.query_release import (
        MarginalQueries,
        PublicAssistedQueryRelease,
    )

    X, _, X_pub = make_data()
    ledger = PrivacyAccountant(epsilon=5.0, delta=1e-5)
    bins = KBinsDiscretizer(n_bins=4, encode="ordinal", strategy="uniform")
    release = PublicAssistedQueryRelease(
        MarginalQueries(k=2, n_categories=[4, 4, 4]),
        epsilon=1.0,
        delta=1e-6,
        random_state=0,
        accountant=ledger,
    )
    pipe = make_public_fitted_pipeline(bins, release).fit(X, X_public=PublicData(X_pub))
    fitted = pipe.steps_[-1][1]
    assert [c.cost for c in ledger.history] == [release._privacy_cost()]
    assert fitted.privacy_spent_.epsilon <= 1.0
    assert fitted.support_type_ == "graphical"
    sample = fitted.sample(50, random_state=0)
    assert set(np.unique(sample)) <= {0.0, 1.0, 2.0, 3.0}
    # The binning is the public rows' alone.
    edges = clone(bins).fit(X_pub).bin_edges_
    for got, want in zip(pipe.steps_[0][1].bin_edges_, edges):
        np.testing.assert_array_equal(got, want)


def _binned_release_pipeline(support, epsilon, ledger):
    """Public bins, then a release whose rounds the data choose."""
    from sklearn.preprocessing import KBinsDiscretizer

    from sklearn_semiprivate.query_release import (
        MarginalQueries,
        PublicAssistedQueryRelease,
    )

    release = PublicAssistedQueryRelease(
        MarginalQueries(k=2, n_categories=[3, 3, 3]),
        support=support,
        alpha=0.5,
        epsilon=epsilon,
        delta=1e-6,
        accountant=ledger,
    )
    bins = KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="uniform")
    return make_public_fitted_pipeline(bins, release)


@pytest.mark.parametrize("support", ["public", "representative"])
def test_query_release_with_data_chosen_rounds_in_a_pipeline(support):
    # n_iterations=None: the rounds are chosen from the data, so the release
    # states the bound (epsilon, delta); the pipeline charges it before any
    # private row is binned (it raised a TypeError asking for n_iterations).
    X, _, X_pub = make_data()
    ledger = PrivacyAccountant(epsilon=5.0, delta=1e-5)
    pipe = _binned_release_pipeline(support, 1.0, ledger)
    pipe.fit(X, X_public=PublicData(X_pub))
    fitted = pipe.steps_[-1][1]
    assert [c.cost for c in ledger.history] == [PrivacyCost(1.0, 1e-6)]
    assert fitted.privacy_spent_.epsilon <= 1.0
    assert fitted.privacy_spent_.delta <= 1e-6
    assert fitted.support_type_ == support


@pytest.mark.parametrize("support", ["public", "representative"])
def test_release_plan_refusal_in_a_pipeline_is_free(support):
    # epsilon too small for the rounds the data choose: the release alone
    # refuses while planning, before its charge; the pipeline, which charges
    # the stated bound, must refuse before it too (a review).
    X, _, X_pub = make_data()
    ledger = PrivacyAccountant(epsilon=5.0, delta=1e-5)
    pipe = _binned_release_pipeline(support, 1e-300, ledger)
    with pytest.raises(ValueError, match="normal double"):
        pipe.fit(X, X_public=PublicData(X_pub))
    assert ledger.history == []


def test_release_without_public_rows_is_refused_free_with_private_fitting():
    # fit_on_private="warn" and no public rows: the transformers would be
    # fitted on the private rows, so the last step cannot be probed; the
    # release's refusal for want of public rows came after the charge (a
    # review). It needs no probe.
    from sklearn.preprocessing import KBinsDiscretizer

    from sklearn_semiprivate.query_release import (
        MarginalQueries,
        PublicAssistedQueryRelease,
    )

    X = make_data()[0]
    ledger = PrivacyAccountant(epsilon=5.0, delta=1e-5)
    release = PublicAssistedQueryRelease(
        MarginalQueries(k=2, n_categories=[3, 3, 3]), delta=1e-6, accountant=ledger
    )
    pipe = make_public_fitted_pipeline(
        KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="uniform"),
        release,
        fit_on_private="warn",
    )
    with (
        pytest.warns(PrivacyLeakWarning),
        pytest.raises(ValueError, match="requires public data"),
    ):
        pipe.fit(X)
    assert ledger.history == []


def test_query_release_last_step_is_refused_where_a_predictor_is_needed():
    # A review: predict existed whatever the last step, so a search accepted
    # a pipeline ending in a release, charged its whole cost, and picked a
    # candidate at random (every score NaN).
    from sklearn_semiprivate.model_selection import PrivateParameterSearch
    from sklearn_semiprivate.query_release import (
        MarginalQueries,
        PublicAssistedQueryRelease,
    )

    X, _, X_pub = make_data()
    X, X_pub = (X > 50).astype(float), (X_pub > 50).astype(float)
    ledger = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    pipe = make_public_fitted_pipeline(
        StandardScaler(),
        PublicAssistedQueryRelease(
            MarginalQueries(k=2, n_categories=[2, 2, 2]), delta=1e-6
        ),
    )
    assert not hasattr(pipe, "predict")
    search = PrivateParameterSearch(
        pipe,
        {"publicassistedqueryrelease__epsilon": [0.5, 1.0]},
        accountant=ledger,
    )
    with pytest.raises(ValueError, match="predict"):
        search.fit(X, np.zeros(len(X), int), X_public=PublicData(X_pub))
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_last_step_without_public_rows_refuses_before_the_charge():
    # No transformer and no public rows: the release refuses for want of
    # public data; the pipeline charged first (a review).
    from sklearn_semiprivate.query_release import (
        MarginalQueries,
        PublicAssistedQueryRelease,
    )

    X = (make_data()[0] > 50).astype(float)
    ledger = PrivacyAccountant(epsilon=10.0, delta=1e-3)
    release = PublicAssistedQueryRelease(
        MarginalQueries(k=2, n_categories=[2, 2, 2]), delta=1e-6, accountant=ledger
    )
    with pytest.raises(ValueError, match="public data"):
        make_public_fitted_pipeline(release).fit(X)
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


@pytest.mark.parametrize("bad", ["nan", "strings"])
def test_malformed_rows_without_transformer_are_refused_before_the_charge(bad):
    # With no transformer the last step gets X itself; the pipeline charged
    # first and the step then refused its format (a review). Now the
    # pre-charge probe reads X as the step alone would: free.
    X, y, X_pub = make_data()
    X = X.astype(object) if bad == "strings" else X.copy()
    X[0, 0] = "a" if bad == "strings" else np.nan
    ledger = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(ValueError):
        make_public_fitted_pipeline(clf(accountant=ledger)).fit(
            X, y, X_public=PublicData(X_pub)
        )
    assert ledger.spent() == PrivacyCost(0.0, 0.0)


def test_infinite_rows_are_refused_without_transformer():
    # predict clipped +-inf to the largest float even when no transformer
    # produced it, accepting rows the last step alone refuses (a review).
    X, y, X_pub = make_data()
    pipe = make_public_fitted_pipeline(clf()).fit(X, y, X_public=PublicData(X_pub))
    rows = X[:3].copy()
    rows[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        pipe.predict(rows)
    with pytest.raises(ValueError, match="infinity"):
        pipe.steps_[-1][1].predict(rows)
