"""
=====================================================================
Private SGD: what public rows add to a DP-SGD linear model
=====================================================================

:class:`~sklearn_semiprivate.PrivateSGDClassifier` trains multinomial
logistic regression by differentially private SGD (Algorithm 3 of Kohen &
Sheffet, ICML 2022): each step keeps every private row with probability
``sampling_rate``, clips each kept example's gradient, adds Gaussian noise to
their sum and projects the weights onto a ball. The noise is calibrated in
Rényi DP of the subsampled Gaussian, so the whole fit is
``(epsilon, 1e-5)``-DP for the private rows (add/remove neighbours).

Public rows are free. Unlabeled, they give the feature scaling (centre,
scale, clipping radius); labeled, they also give the starting weights (plain
gradient descent on them). Without public rows the scaling comes from the
domain box ``bounds=``. Here on the handwritten digits (10 classes, 64
pixels), with 10% of the training rows public, against scikit-learn's
non-private :class:`~sklearn.linear_model.LogisticRegression` on the private
rows and on the public rows alone.
"""

# SPDX-License-Identifier: BSD-3-Clause

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from sklearn_semiprivate import PrivateSGDClassifier, PublicData

X, y = load_digits(return_X_y=True)
X_rest, X_test, y_rest, y_test = train_test_split(
    X, y, test_size=0.2, random_state=0, stratify=y
)
X_priv, X_pub, y_priv, y_pub = train_test_split(
    X_rest, y_rest, test_size=0.1, random_state=0, stratify=y_rest
)
classes = np.arange(10)  # the label set is public knowledge
ceiling = LogisticRegression(max_iter=2000).fit(X_priv, y_priv).score(X_test, y_test)
public_only = LogisticRegression(max_iter=2000).fit(X_pub, y_pub).score(X_test, y_test)

# %%
# Accuracy against epsilon
# ------------------------
# The privacy noise is fresh on every fit: each point is the mean of three
# fits. The pixel box ``[0, 16]`` is the domain knowledge of the fit without
# public data.
epsilons = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]
settings = {
    "public X and y (scaling + start)": (
        {},
        {"X_public": PublicData(X_pub, y_pub)},
    ),
    "public X (scaling)": ({}, {"X_public": PublicData(X_pub)}),
    "no public data (bounds only)": ({"bounds": (0, 16)}, {}),
}
scores = {name: [] for name in settings}
for name, (params, fit_params) in settings.items():
    for eps in epsilons:
        runs = [
            PrivateSGDClassifier(epsilon=eps, classes=classes, **params)
            .fit(X_priv, y_priv, **fit_params)
            .score(X_test, y_test)
            for _ in range(3)
        ]
        scores[name].append(np.mean(runs))
    print(f"{name:34s}", " ".join(f"{s:.3f}" for s in scores[name]))

fig, ax = plt.subplots(figsize=(7, 4.5))
for name, values in scores.items():
    ax.plot(epsilons, values, marker="o", label=f"PrivateSGDClassifier, {name}")
ax.axhline(ceiling, color="k", ls="--", label="LogisticRegression, private rows")
ax.axhline(public_only, color="gray", ls=":", label="LogisticRegression, public rows")
ax.set_xscale("log")
ax.set_xticks(epsilons, labels=[f"{v:g}" for v in epsilons])
ax.minorticks_off()
ax.set_xlabel("epsilon (delta = 1e-5)")
ax.set_ylabel("test accuracy")
ax.set_title("DP-SGD on digits: 1229 private rows, 137 public")
ax.legend(fontsize=8, loc="lower right")
fig.tight_layout()

# %%
# What the fit releases
# ---------------------
# Everything but the weights is a function of public parameters: the number
# of steps, the noise multiplier of each step and the noise of the row count.
clf = PrivateSGDClassifier(epsilon=1.0, classes=classes)
clf.fit(X_priv, y_priv, X_public=PublicData(X_pub))
print(
    f"{clf.n_steps_} steps, noise multiplier {clf.noise_multiplier_:.3f}, "
    f"privacy spent {clf.privacy_spent_}, recomputed {clf.privacy_check()}"
)
plt.show()
