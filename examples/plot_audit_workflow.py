"""
=======================================================
Auditing a whole workflow: one fit, a cross-validation
=======================================================

A privacy claim is about everything a workflow releases, not about one
mechanism inside it. :func:`~sklearn_semiprivate.audit.audit_epsilon` runs a
workflow many times on two neighbouring datasets ``D`` and ``D'`` (one private
label replaced), counts how often a fixed *event* happens to its output, and
returns a 95% Clopper–Pearson lower bound on the ε of the whole workflow. A
bound above the claimed ε is evidence that the claim is false.

We audit:

* one fit of :class:`~sklearn_semiprivate.SemiPrivateClassifier`, claimed
  ``epsilon = 1``;
* a whole ``cross_validate`` with two folds, charged ``2 epsilon = 2``: its two
  fitted models, first with the real estimator (fresh privacy noise on every
  fit), then inside :func:`~sklearn_semiprivate.reproducible_noise`, where the
  noise comes from ``random_state``, which ``clone`` copies into both folds:
  the two fits then share their noise, and the audit shows it;
* the test scores ``cross_validate`` returns next to the models: exact
  accuracies on private rows, which no charge covers.

The hypothesis class is the smallest possible: "always 0" and "always 1"
(from one public point), so every fit is one draw of the exponential mechanism
between two members, and each event's probability is known exactly.
"""

# SPDX-License-Identifier: BSD-3-Clause

import itertools
import warnings

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from sklearn.dummy import DummyClassifier
from sklearn.model_selection import KFold, cross_validate

from sklearn_semiprivate import (
    PrivacyLeakWarning,
    PublicData,
    SemiPrivateClassifier,
    reproducible_noise,
)
from sklearn_semiprivate.audit import audit_epsilon
from sklearn_semiprivate.hypotheses import FiniteClass

EPSILON = 1.0
X_pub = np.zeros((1, 1))
constants = FiniteClass(
    [DummyClassifier(strategy="constant", constant=c).fit(X_pub, [c]) for c in (0, 1)]
)
public = PublicData(X_pub)

# 40 private rows with alternating labels: both halves A (rows 0-19) and
# B (rows 20-39) are balanced. The neighbour relabels row 21 (in B) 1 -> 0.
X = np.zeros((40, 1))
y = np.arange(40) % 2
y_neighbour = y.copy()
y_neighbour[21] = 0
D, D_neighbour = (X, y), (X, y_neighbour)

# %%
# One fit
# -------
# ``run`` builds a fresh estimator on every call (pass a factory, never a
# fitted object) and returns what the fit releases. The event is fixed in
# advance: "the model predicts 0".


def fit_once(data):
    X, y = data
    clf = SemiPrivateClassifier(constants, epsilon=EPSILON, classes=[0, 1])
    return clf.fit(X, y, X_public=public).member_


def predicts_zero(member):
    return member == 0


fit_bound = audit_epsilon(fit_once, D, D_neighbour, predicts_zero, n_trials=200)
print(f"one fit:            lower bound {fit_bound.epsilon:.2f}, claimed {EPSILON}")

# %%
# A whole cross-validation
# ------------------------
# ``cross_validate`` with ``KFold(2)`` fits on B (tested on A), then on A. The
# event is "the model trained on B says 0 and the model trained on A says 1".
# With independent noise it has probability 0.25 under ``D`` and 0.37
# under ``D'``. If both fits drew the *same* Gumbel noise, the two models would
# always agree under ``D`` (both halves balanced), but not under ``D'``: the
# event would have probability 0 under ``D`` and 0.23 under ``D'``, an
# infinite privacy loss. Every trial gets its own ``random_state``.
# (``reproducible_noise`` holds in the current thread only: run such an audit
# without ``n_jobs``, worker processes would draw fresh noise.)


def cross_validation(seeds):
    def run(data):
        X, y = data
        clf = SemiPrivateClassifier(
            constants, epsilon=EPSILON, classes=[0, 1], random_state=next(seeds)
        )
        return cross_validate(
            clf, X, y, cv=KFold(2), return_estimator=True, params={"X_public": public}
        )

    return run


def folds_disagree(result):
    trained_on_b, trained_on_a = (est.member_ for est in result["estimator"])
    return trained_on_b == 0 and trained_on_a == 1


N_CV = 300
cv_bound = audit_epsilon(
    cross_validation(itertools.count()),
    D,
    D_neighbour,
    folds_disagree,
    n_trials=N_CV,
)
with warnings.catch_warnings():
    # reproducible_noise warns that its output is not private: here that is
    # the point.
    warnings.simplefilter("ignore", PrivacyLeakWarning)
    with reproducible_noise():
        shared_bound = audit_epsilon(
            cross_validation(itertools.count()),
            D,
            D_neighbour,
            folds_disagree,
            n_trials=N_CV,
        )
print(f"cross_validate:     lower bound {cv_bound.epsilon:.2f}, charged {2 * EPSILON}")
print(f"  shared fold noise: lower bound {shared_bound.epsilon:.2f}")

# %%
# The test scores
# ---------------
# ``cross_validate`` also returns each fold's exact test accuracy. The model
# trained on A is tested on B, which holds the changed row: it scores exactly
# 0.5 under ``D`` and 0.45 or 0.55 under ``D'``, whatever the noise. No
# charge covers this release (a score on private rows is a release, not
# post-processing); 50 trials show it: the counts are 0 / 50 and 50 / 50.


def second_score_is_not_half(result):
    return result["test_score"][1] != 0.5


score_bound = audit_epsilon(
    cross_validation(itertools.count()),
    D,
    D_neighbour,
    second_score_is_not_half,
    n_trials=50,
)
print(f"  test scores:       lower bound {score_bound.epsilon:.2f}")

assert fit_bound.epsilon <= EPSILON
assert cv_bound.epsilon <= 2 * EPSILON
assert score_bound.epsilon > 2 * EPSILON  # deterministic counts

# %%
# Summary
# -------
# Each bar is a 95% lower bound on ε, the line what is claimed or charged.
labels = [
    "one fit",
    "cross_validate\n(models)",
    "cross_validate\nshared fold noise",
    "cross_validate\n(test scores)",
]
bounds = [
    fit_bound.epsilon,
    cv_bound.epsilon,
    shared_bound.epsilon,
    score_bound.epsilon,
]
claims = [EPSILON, 2 * EPSILON, 2 * EPSILON, 2 * EPSILON]
fig, ax = plt.subplots(figsize=(7, 3.5))
x = np.arange(len(labels))
colors = ["tab:green" if b <= c else "tab:red" for b, c in zip(bounds, claims)]
bars = ax.bar(x, bounds, color=colors, width=0.6)
ax.bar_label(bars, fmt="%.2f", fontsize=8)
ax.hlines(claims, x - 0.4, x + 0.4, colors="k", linestyles="--")
ax.set_xticks(x, labels, fontsize=8)
ax.set_ylabel("epsilon")
ax.set_title("Audit: 95% lower bound on epsilon (bars) against the claim (dashes)")
ax.legend(
    handles=[
        Patch(color="tab:green", label="bound <= claim: consistent"),
        Patch(color="tab:red", label="bound > claim: claim refuted"),
        Line2D([], [], color="k", ls="--", label="claimed or charged epsilon"),
    ],
    fontsize=8,
    loc="upper left",
)
fig.tight_layout()
plt.show()
