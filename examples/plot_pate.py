"""
==============================================================
PATE: private teachers label public rows for a student
==============================================================

:class:`~sklearn_semiprivate.PATEClassifier` (Papernot et al. 2017, 2018)
splits the private rows at random among many *teachers*, any scikit-learn
classifier each. The teachers vote on the label of every public (unlabeled)
row; noise added to the vote counts makes the labels differentially private,
and a *student* trained on the noisy labels is the released model.

You state the privacy target ``(epsilon, delta)``; the noise on every count is
calibrated to it for however many public rows are labeled, and the number of
teachers follows the noise (about four per noise standard deviation, so that a
clear majority of teachers survives it). Here 10,000 private rows and 500
public rows (5% of the data, unlabeled) are compared with a non-private
logistic regression on the private rows, and with always predicting the
majority class.
"""

# SPDX-License-Identifier: BSD-3-Clause

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_semiprivate import PATEClassifier, PublicData

X, y = make_classification(
    n_samples=15_500,
    n_features=10,
    n_informative=5,
    weights=[0.7, 0.3],
    flip_y=0.05,
    random_state=0,
)
X_rest, X_test, y_rest, y_test = train_test_split(
    X, y, test_size=5000, random_state=0, stratify=y
)
X_priv, X_pub, y_priv, _ = train_test_split(
    X_rest, y_rest, test_size=500, random_state=0, stratify=y_rest
)  # the public labels are thrown away: the public rows are unlabeled

majority = np.mean(y_test == np.bincount(y_priv).argmax())
non_private = make_pipeline(StandardScaler(), LogisticRegression())
non_private = non_private.fit(X_priv, y_priv).score(X_test, y_test)

# %%
# Accuracy against epsilon
# ------------------------
# Every fit is (epsilon, 1e-5)-DP for the private rows; the public rows are
# used freely. The default teacher and student are a standardised logistic
# regression.
epsilons = [0.5, 1.0, 2.0, 4.0, 8.0]
accuracy, n_teachers = [], []
for epsilon in epsilons:
    clf = PATEClassifier(epsilon=epsilon, classes=[0, 1], random_state=0)
    clf.fit(X_priv, y_priv, X_public=PublicData(X_pub))
    accuracy.append(clf.score(X_test, y_test))
    n_teachers.append(clf.n_teachers_)

print(f"majority class:              {majority:.3f}")
print(f"non-private LR (private X):  {non_private:.3f}")
print(f"{'epsilon':>8} | {'teachers':>8} | {'PATE accuracy':>13}")
for epsilon, k, acc in zip(epsilons, n_teachers, accuracy):
    print(f"{epsilon:8.2f} | {k:8d} | {acc:13.3f}")
print("privacy spent by the last fit:", clf.privacy_spent_)

# %%
# With a small budget the noise is large, so many teachers are needed, each
# trained on few rows: their votes are weak and the student falls towards the
# majority class. As epsilon grows the teachers get more rows each and the
# student approaches the non-private model. Each point is one fit, with fresh
# privacy noise, so the curve moves a little from run to run.

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(epsilons, accuracy, "o-", label="PATE (GNMax)")
ax.axhline(non_private, color="k", ls="--", label="non-private LR")
ax.axhline(majority, color="grey", ls=":", label="majority class")
ax.set_xscale("log")
ax.set_xticks(epsilons, labels=[f"{v:g}" for v in epsilons])
ax.minorticks_off()
ax.set_xlabel("epsilon (delta = 1e-5)")
ax.set_ylabel("test accuracy (one fit each)")
ax.set_title("10,000 private rows, 500 unlabeled public rows")
ax.legend()
fig.tight_layout()
plt.show()
