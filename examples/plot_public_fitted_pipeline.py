"""
===================================================================
Preprocessing fitted on public data: PublicFittedPipeline
===================================================================

A semi-private classifier builds its cover on the public rows and scores it on
the private rows, so both must be in the same coordinates. In a plain
scikit-learn :class:`~sklearn.pipeline.Pipeline` they are not: the scaler is
fitted on the private rows (itself a release outside any guarantee), transforms
them, and the routed ``X_public`` reaches the last step *untransformed*. The
cover is then built in raw units while ``predict`` works in standardized ones.

:class:`~sklearn_semiprivate.PublicFittedPipeline` fits every transformer on the
public rows only (free: public data is not protected) and applies it to both
sets; the private rows reach the transformers only through ``transform``.

The data: the breast cancer table shipped with scikit-learn, as a pandas frame,
with one string column added (the tumour's size band), as real tables have.
15% of the training rows are public and unlabeled; the others are private.

**Privacy.** Each :class:`~sklearn_semiprivate.PublicFittedPipeline` fit is
``1``-DP for the private rows (add/remove and replace-one neighbours): the
transformers and the cover see public rows only, and the private rows are read
once, by the exponential mechanism. The plain ``Pipeline`` fit is not: its
scaler reads the private rows without noise.
"""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from sklearn_semiprivate import (
    PublicData,
    PublicDataWarning,
    PublicFittedPipeline,
    SemiPrivateClassifier,
    make_public_fitted_pipeline,
)
from sklearn_semiprivate.hypotheses import PartitionLabelings

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
X["size band"] = pd.cut(
    X["mean area"], [0, 400, 800, np.inf], labels=["small", "medium", "large"]
).astype(str)
numeric = [c for c in X.columns if c != "size band"]


def semi_private(seed):
    """Labelings of 10 k-means cells of the public rows, chosen at epsilon = 1."""
    return SemiPrivateClassifier(
        PartitionLabelings("kmeans", n_clusters=10),
        epsilon=1.0,
        classes=[0, 1],
        random_state=seed,
    )


# %%
# Three pipelines, ten random splits
# ----------------------------------
# The plain ``Pipeline`` gets ``X_public`` the way the scikit-learn docs route
# fit parameters to a step (``<step>__X_public``). The two public-fitted
# pipelines take it as ``X_public=``: one on the numeric columns, one with a
# ``ColumnTransformer`` that also one-hot encodes the size band.
PLAIN = "Pipeline, public rows untransformed"
NUMERIC = "PublicFittedPipeline, numeric columns"
MIXED = "PublicFittedPipeline, + one-hot string column"
scores = {PLAIN: [], NUMERIC: [], MIXED: []}
majority, plain_warnings = [], set()
for seed in range(10):
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=seed, stratify=y
    )
    X_priv, X_pub, y_priv, _ = train_test_split(
        X_train, y_train, test_size=0.15, random_state=seed
    )
    public = PublicData(X_pub)  # unlabeled

    plain = make_pipeline(StandardScaler(), semi_private(seed))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plain.fit(
            X_priv[numeric],
            y_priv,
            semiprivateclassifier__X_public=PublicData(X_pub[numeric]),
        )
    plain_warnings.update(str(w.message) for w in caught)
    scores[PLAIN].append(plain.score(X_test[numeric], y_test))

    fitted = make_public_fitted_pipeline(StandardScaler(), semi_private(seed))
    fitted.fit(X_priv[numeric], y_priv, X_public=PublicData(X_pub[numeric]))
    scores[NUMERIC].append(fitted.score(X_test[numeric], y_test))

    encode = ColumnTransformer(
        [
            ("num", StandardScaler(), numeric),
            ("band", OneHotEncoder(handle_unknown="ignore"), ["size band"]),
        ]
    )
    mixed = PublicFittedPipeline([("encode", encode), ("clf", semi_private(seed))])
    mixed.fit(X_priv, y_priv, X_public=public)
    scores[MIXED].append(mixed.score(X_test, y_test))
    majority.append(max(y_test.mean(), 1 - y_test.mean()))

for name, values in scores.items():
    print(f"{name:46s} {np.mean(values):.3f} +- {np.std(values):.3f}")
print(f"{'majority class':46s} {np.mean(majority):.3f}")
print("warnings from the plain Pipeline:", sorted(plain_warnings) or "none")
print("privacy spent by each fit:", mixed.privacy_spent_)
print(
    "the encoder saw",
    mixed.named_steps_["encode"].n_features_in_,
    "columns of",
    len(X_pub),
    "public rows only",
)

# %%
# The plain pipeline's cover lives in raw units (areas in the hundreds) while
# its private rows and test rows are standardized: every private row falls in
# the same few cells, and the model predicts the majority class. With the
# ``ColumnTransformer``, the plain pipeline does not even get that far: the
# untransformed public frame still holds the strings.
try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PublicDataWarning)  # shown above
        make_pipeline(encode, semi_private(0)).fit(
            X_priv, y_priv, semiprivateclassifier__X_public=public
        )
except ValueError as exc:
    print("plain Pipeline with the string column:", exc)

fig, ax = plt.subplots(figsize=(9, 3.5))
names = list(scores)
ax.barh(
    names,
    [np.mean(scores[n]) for n in names],
    xerr=[np.std(scores[n]) for n in names],
    color=["tab:red", "tab:blue", "tab:green"],
)
ax.axvline(np.mean(majority), color="gray", linestyle="--", label="majority class")
ax.set_xlim(0.5, 1.0)
ax.set_xlabel("test accuracy (mean +- std over 10 splits), epsilon = 1")
ax.set_title("Breast cancer: 15% of training rows public, unlabeled")
ax.legend(loc="lower right", fontsize=8)
fig.tight_layout()
plt.show()

# %%
# Releasing marginals of continuous columns
# -----------------------------------------
# Query release works on categories. To release the 2-way marginals of four
# continuous columns, bin them into 4 equal widths of the public rows' range,
# in the same pipeline: the bins are public, and the pipeline charges the
# release's stated cost before any private row is binned. No ``y`` is needed.
# Error: the
# largest and mean absolute error of the cell fractions, against the private
# rows' exact marginals (on the same public bins), beside the public rows'
# own marginals.
from sklearn.preprocessing import KBinsDiscretizer

from sklearn_semiprivate import PrivacyAccountant
from sklearn_semiprivate.query_release import (
    MarginalQueries,
    PublicAssistedQueryRelease,
)

columns = ["mean radius", "mean texture", "mean smoothness", "mean symmetry"]
queries = MarginalQueries(k=2, n_categories=[4] * len(columns))
ledger = PrivacyAccountant(epsilon=2.0, delta=1e-5)
release = make_public_fitted_pipeline(
    KBinsDiscretizer(n_bins=4, encode="ordinal", strategy="uniform"),
    PublicAssistedQueryRelease(
        queries, epsilon=1.0, delta=1e-6, random_state=0, accountant=ledger
    ),
)
release.fit(X_priv[columns], X_public=PublicData(X_pub[columns]))
bins, fitted = release.steps_[0][1], release.steps_[-1][1]
exact = queries.evaluate(bins.transform(X_priv[columns]))
public_only = queries.evaluate(bins.transform(X_pub[columns]))
released = fitted.answers_
for name, answers in [("release, epsilon = 1", released), ("public rows", public_only)]:
    gap = np.abs(answers - exact)
    print(f"{name:22s} max error {gap.max():.3f}, mean {gap.mean():.4f}")
print("ledger:", ledger.spent(), "| support:", fitted.support_type_)
