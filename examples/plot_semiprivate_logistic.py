"""
=====================================================================
Semi-private logistic regression: public rows shape the features
=====================================================================

:class:`~sklearn_semiprivate.SemiPrivateLogisticRegression` is the estimator
to try first on a table. The public rows, unlabeled, are used only for the
features: a centre, a scale and a clipping radius, and quantile bins of each
feature (when the private rows are numerous enough for the bins to beat the
noise). The private rows are read through Gaussian releases: the class
counts, then, with the default ``solver="sgd"``, the noisy clipped gradient
sums of DP-SGD on Poisson-subsampled batches; with ``solver="mm"``, the Gram
matrix of the features and three noisy gradients, each driving one step of
Böhning's majorize-minimize algorithm for logistic regression.

Here on the handwritten digits shipped with scikit-learn (10 classes, 64
pixels), with 10% of the training rows public and unlabeled, the fit is
compared with the same estimator given only the domain box (``bounds=``, a
private-only fit), with the MM solver, with
:class:`~sklearn_semiprivate.SemiPrivateClassifier`'s default, and with a
non-private logistic regression on the private rows.
"""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from sklearn_semiprivate import (
    PublicData,
    SemiPrivateClassifier,
    SemiPrivateLogisticRegression,
)

X, y = load_digits(return_X_y=True)
X_rest, X_test, y_rest, y_test = train_test_split(
    X, y, test_size=0.2, random_state=0, stratify=y
)
X_priv, X_pub, y_priv, _ = train_test_split(
    X_rest, y_rest, test_size=0.1, random_state=0, stratify=y_rest
)  # the public labels are thrown away: the public rows are unlabeled
classes = np.arange(10)  # the label set is public knowledge
non_private = LogisticRegression(max_iter=2000).fit(X_priv, y_priv)
ceiling = non_private.score(X_test, y_test)

# %%
# Accuracy against epsilon
# ------------------------
# Every fit is (epsilon, 1e-5)-DP for the private rows (add/remove
# neighbours). The privacy noise is fresh on every fit, so each point of the
# logistic regressions is the mean of three fits (the stumps': of two). The
# pixel box ``[0, 16]`` is the domain knowledge of the private-only fit.
epsilons = [0.5, 1.0, 2.0, 4.0, 8.0]
models = {
    "SemiPrivateLogisticRegression (public X)": lambda eps: (
        SemiPrivateLogisticRegression(epsilon=eps, classes=classes),
        {"X_public": PublicData(X_pub)},
    ),
    "SemiPrivateLogisticRegression (public X, solver='mm')": lambda eps: (
        SemiPrivateLogisticRegression(epsilon=eps, solver="mm", classes=classes),
        {"X_public": PublicData(X_pub)},
    ),
    "SemiPrivateLogisticRegression (bounds only)": lambda eps: (
        SemiPrivateLogisticRegression(epsilon=eps, classes=classes, bounds=(0, 16)),
        {},
    ),
    "SemiPrivateClassifier (public X, stumps)": lambda eps: (
        SemiPrivateClassifier(epsilon=eps, classes=classes, random_state=0),
        {"X_public": PublicData(X_pub)},
    ),
}
# The stumps predict at most two of the ten labels, and say so in a
# UserWarning on every fit: shown here once, as the contrast it is.
warnings.filterwarnings("once", message="hypothesis_class='stumps' predicts")
scores = {name: [] for name in models}
for name, make in models.items():
    for eps in epsilons:
        runs = []
        for _ in range(2 if "stumps" in name else 3):
            clf, fit_params = make(eps)
            runs.append(clf.fit(X_priv, y_priv, **fit_params).score(X_test, y_test))
        scores[name].append(np.mean(runs))
    print(name, " ".join(f"{s:.3f}" for s in scores[name]))

fig, ax = plt.subplots(figsize=(7, 4.5))
for name, values in scores.items():
    ax.plot(epsilons, values, marker="o", label=name)
ax.axhline(ceiling, color="k", ls="--", label="LogisticRegression, non-private")
ax.set_xscale("log")
ax.set_xticks(epsilons, labels=[f"{v:g}" for v in epsilons])
ax.minorticks_off()
ax.set_xlabel("epsilon (delta = 1e-5)")
ax.set_ylabel("test accuracy")
ax.set_title(f"digits: {len(y_priv)} private rows, {len(X_pub)} public (unlabeled)")
ax.legend(fontsize=8)
fig.tight_layout()

# %%
# What the fit used
# -----------------
# ``n_bins_`` says whether the released class counts were large enough, for
# this epsilon, to pay for the bins; ``noise_scales_`` gives the noise of every
# release (from the parameters only) and ``privacy_spent_`` the guarantee.
clf = SemiPrivateLogisticRegression(epsilon=8.0, classes=classes)
clf.fit(X_priv, y_priv, X_public=PublicData(X_pub))
print("bins per feature:", clf.n_bins_)
print("noise sd of the counts:", round(clf.noise_scales_["counts"], 2))
print("noise sd of each step's gradient sum:", round(clf.noise_scales_["gradient"], 2))
print(clf.privacy_spent_)
plt.show()
