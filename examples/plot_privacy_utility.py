"""
===================================================================
Privacy-utility curves: accuracy against epsilon, ceiling and floor
===================================================================

The central picture of semi-private learning: how much test accuracy each
epsilon buys. Two reference lines frame it:

* the **ceiling**: a non-private model fitted on the private rows. It is *not*
  private; it shows what privacy costs.
* the **floor**: a model fitted on the labeled public rows alone. It spends no
  privacy at all; a semi-private learner is worth its budget only above it.

:class:`~sklearn_semiprivate.display.PrivacyUtilityDisplay` draws both beside
the mean test accuracy over repeated fits, with a band of ± one standard
deviation. The repeats differ only by their privacy noise, which is fresh on
every fit.

The data: the digits shipped with scikit-learn (8x8 images, 10 classes). 30%
of the rows are held out to score the models; of the others, 40 (four per
digit) are public and labeled, the rest private.

**Privacy.** Every semi-private fit is ``epsilon``-DP for the private rows
(add/remove and replace-one neighbours); the public rows and their labels, and
the hyper-parameters, are not protected.

.. warning::

    A figure like this one is an **evaluation tool for the analyst**, not a
    release. The ceiling reads the private rows without noise, and every test
    score is an exact statistic of the test rows: if those are private, so is
    the curve. Publish such a figure only when the test rows are public and no
    baseline reads private data.
"""

# SPDX-License-Identifier: BSD-3-Clause

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, train_test_split

from sklearn_semiprivate import PublicData, SemiPrivateClassifier
from sklearn_semiprivate.display import PrivacyUtilityDisplay
from sklearn_semiprivate.hypotheses import PartitionLabelings
from sklearn_semiprivate.model_selection import PrivateKFold

X, y = load_digits(return_X_y=True)
CLASSES = np.arange(10)  # the ten digits: part of the task's public description
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.3, random_state=0, stratify=y
)
X_priv, X_pub, y_priv, y_pub = train_test_split(
    X_train, y_train, test_size=40, random_state=0, stratify=y_train
)
print(f"{len(X_priv)} private rows, {len(X_pub)} public rows, {len(X_test)} test rows")


def kmeans_cells(n_clusters, **kwargs):
    """Labelings of k-means cells of the public points, one chosen privately."""
    return SemiPrivateClassifier(
        PartitionLabelings("kmeans", n_clusters=n_clusters, random_state=0),
        classes=CLASSES,
        random_state=0,  # the public side only: the privacy noise stays fresh
        **kwargs,
    )


# %%
# Accuracy against epsilon
# ------------------------
# :meth:`~sklearn_semiprivate.display.PrivacyUtilityDisplay.from_estimator`
# fits a clone of the learner ``n_repeats`` times at each epsilon, on the
# private rows with the public rows, and scores it on the test rows. The
# shortcuts ``"non_private"`` and ``"public_only"`` fit a standardized
# ``LogisticRegression`` on the private rows (ceiling) and on the labeled
# public rows only (floor).
#
# A second display on the same axes adds the *private-only* learner: the same
# class with no public data, its cells built on a data-independent grid over
# the pixel range ``[0, 16]`` (public knowledge).
EPSILONS = [0.1, 0.3, 1.0, 3.0, 10.0]
fig, ax = plt.subplots(figsize=(8, 4.5))
semi = PrivacyUtilityDisplay.from_estimator(
    kmeans_cells(30),
    X_priv,
    y_priv,
    X_public=PublicData(X_pub, y_pub),
    X_test=X_test,
    y_test=y_test,
    param_values=EPSILONS,
    n_repeats=4,
    baselines=["non_private", "public_only"],
    name="semi-private: 30 k-means cells of the public points",
    ax=ax,
)
private_only = PrivacyUtilityDisplay.from_estimator(
    kmeans_cells(30, bounds=(0.0, 16.0), n_public=200),
    X_priv,
    y_priv,  # no X_public: a grid of 200 points inside the bounds
    X_test=X_test,
    y_test=y_test,
    param_values=EPSILONS,
    n_repeats=4,
    name="private-only: 30 k-means cells of a grid",
    ax=ax,
)
ax.set_title("Digits: 40 labeled public rows")
ax.legend(fontsize=8, loc="center right")
fig.tight_layout()

for display in (semi, private_only):
    print(display.estimator_name)
    for eps, row in zip(display.param_values, display.scores):
        print(f"  epsilon={eps:<5g} {row.mean():.3f} +- {row.std():.3f}")
for label, values in semi.baselines.items():
    print(f"{label}: {values.mean():.3f}")

# %%
# The semi-private learner crosses the floor near ``epsilon = 1`` and levels
# off well below the ceiling: 30 cells labeled privately cannot express what
# a linear model on all private labels can. Without public points the same
# class on a grid is far worse at every epsilon.
#
# The public-size variant
# -----------------------
# ``param_name="n_public"`` puts the number of public rows on the x axis, here
# at ``epsilon = 1`` with a larger public pool (unlabeled). Public subsets are
# prefixes of one seeded permutation, so larger values see supersets.
X_pool = X_train[:400]  # public, unlabeled (the labels are not used)
X_priv_rest, y_priv_rest = X_train[400:], y_train[400:]
sizes = PrivacyUtilityDisplay.from_estimator(
    kmeans_cells(30),
    X_priv_rest,
    y_priv_rest,
    X_public=PublicData(X_pool),
    X_test=X_test,
    y_test=y_test,
    param_name="n_public",
    param_values=[30, 60, 120, 240, 400],
    n_repeats=3,
    baselines=["non_private"],
    name="semi-private at epsilon = 1",
)
sizes.ax_.set_title("Digits: accuracy against the public-set size")
sizes.ax_.set_xticks([30, 60, 120, 240, 400], labels=["30", "60", "120", "240", "400"])
sizes.ax_.minorticks_off()
sizes.figure_.tight_layout()

# %%
# More public rows help most at first (three fits per point, band: +- one
# standard deviation). The curve need not rise at every step: each public set
# gives other k-means cells, and 30 cells labeled privately stay well below
# the ceiling however many public rows place them.
#
# From a grid search
# ------------------
# :meth:`~sklearn_semiprivate.display.PrivacyUtilityDisplay.from_cv_results`
# draws a search's ``cv_results_`` against one of its parameters: one point
# per epsilon, the best mean over the other parameters (here the number of
# cells), with the spread over the folds. Those validation scores are exact
# statistics of private folds: a release outside the guarantee, so this view
# is for the analyst only (see
# :class:`~sklearn_semiprivate.model_selection.PrivateParameterSearch` for a
# private selection).
search = GridSearchCV(
    kmeans_cells(10),
    {
        "epsilon": [0.1, 1.0, 10.0],
        "hypothesis_class": [
            PartitionLabelings("kmeans", n_clusters=k, random_state=0) for k in (10, 30)
        ],
    },
    # PrivateKFold, not the default StratifiedKFold (its folds follow the
    # private labels) nor a seeded KFold (its folds follow the private number
    # of rows): docs/limitations.rst, "Folds".
    cv=PrivateKFold(3),
).fit(X_priv, y_priv, X_public=PublicData(X_pub))
cv_display = PrivacyUtilityDisplay.from_cv_results(
    search.cv_results_, param_name="epsilon"
)
cv_display.ax_.set_title("GridSearchCV over epsilon and the number of cells")
plt.show()
