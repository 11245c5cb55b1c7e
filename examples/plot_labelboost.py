"""
======================================================================
Fewer labels: LabelBoost and the SubSampling active learner
======================================================================

Two constructions of Beimel, Nissim & Stemmer (*Learning Privately with Labeled
and Unlabeled Examples*) reduce how many **labeled** private rows a private
learner needs.

* :class:`~sklearn_semiprivate.LabelBoostClassifier` (Alg. 3 around Alg. 2)
  relabels batches of private unlabeled rows with hypotheses chosen by the
  exponential mechanism over their dichotomies, deleting 99/100 of the rows in
  every round to pay for it, and runs the base learner at the end. Its
  privacy steps are fixed by the proof; the paper's growth constants would
  need millions of labeled rows before a round grows the labeled set, so this
  example uses a *scaled* ``growth_denominator`` (a utility constant only) and
  shows what a fit does: the sizes of the labeled set per round (the left
  panel). At these scales the deletions cost more than the rounds gain: see
  ``benchmarks/results/labeled_samples.md``.
* :class:`~sklearn_semiprivate.SubSamplingActiveClassifier` (Alg. 4, Claim
  5.7) asks for the labels of a random subset of a large pool only. Its
  guarantee improves with the pool, not with more labels: with 50 labels the
  accuracy stays put as epsilon shrinks, while the base learner run at that
  epsilon on the same 50 labels degrades (the right panel).

With a *public* unlabeled pool, the relabeled pool need not be protected:
that is :class:`~sklearn_semiprivate.SemiPrivateClassifier` with a
``final_estimator``.

**Privacy.** Both learners are differentially private for the private rows
under replace-one neighbours (one row replaced; the numbers of labeled and
unlabeled rows are public); each fit's ``privacy_spent_`` is printed below.
"""

# SPDX-License-Identifier: BSD-3-Clause

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import MaxNLocator

from sklearn_semiprivate import (
    LabelBoostClassifier,
    SemiPrivateClassifier,
    SubSamplingActiveClassifier,
)


def target(X):
    return (X[:, 0] > 0.3).astype(int)


def base_learner(epsilon=1.0):
    """The exponential mechanism over thresholds on a 64-point grid of [0, 1]."""
    return SemiPrivateClassifier(
        "thresholds", epsilon=epsilon, bounds=(0, 1), n_public=64, classes=[0, 1]
    )


rng = np.random.default_rng(0)
X_test = rng.uniform(size=(4000, 1))
y_test = target(X_test)

# %%
# LabelBoost: 2500 labeled rows and 317,500 unlabeled ones (``y == -1``).
X = rng.uniform(size=(320_000, 1))
y = target(X)
y[2500:] = -1
boost = LabelBoostClassifier(
    base_learner(), n_base=10, growth_denominator=0.1, classes=[0, 1], random_state=0
).fit(X, y)
print("rounds:", boost.n_rounds_, "| |S| per round:", boost.labeled_sizes_.tolist())
print("base learner fitted on", boost.n_base_rows_, "i.i.d. draws")
print("privacy spent:", boost.privacy_spent_)
print(f"test accuracy: {boost.score(X_test, y_test):.3f}")

# %%
# The active learner at several epsilon, 50 labels asked each time.
epsilons = [1.0, 0.5, 0.2, 0.1, 0.05]
n_labels, n_seeds = 50, 8
active, alone = [], []
for eps in epsilons:
    pool = int(np.ceil(n_labels * (3 + np.e**2) / eps)) + 1  # Claim 5.7's t
    acc_active, acc_alone = [], []
    for _ in range(n_seeds):
        X_pool = rng.uniform(size=(pool, 1))
        clf = SubSamplingActiveClassifier(
            base_learner(), epsilon=eps, n_subsample=n_labels
        )
        clf.fit(X_pool, label_oracle=lambda idx, X_pool=X_pool: target(X_pool[idx]))
        acc_active.append(clf.score(X_test, y_test))
        X_few = rng.uniform(size=(n_labels, 1))
        acc_alone.append(
            base_learner(eps).fit(X_few, target(X_few)).score(X_test, y_test)
        )
    active.append(np.mean(acc_active))
    alone.append(np.mean(acc_alone))
    print(f"eps={eps:<5} pool={pool:>6} active {active[-1]:.3f} alone {alone[-1]:.3f}")

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.plot(range(len(boost.labeled_sizes_)), boost.labeled_sizes_, "o-", label="|S|")
left.axhline(300 * 10, color="grey", ls="--", label="300 n (loop stops)")
left.xaxis.set_major_locator(MaxNLocator(integer=True))
left.set_ylim(bottom=0)
left.set_xlabel("round (0: the labeled rows given)")
left.set_ylabel("labeled rows |S|")
left.set_title("LabelBoost: the labeled set per round")
left.legend()
right.semilogx(epsilons, active, "o-", label="SubSampling active, 50 labels")
right.semilogx(epsilons, alone, "s--", label="base learner at eps, 50 labels")
right.set_xticks(epsilons, labels=[f"{e:g}" for e in epsilons])
right.minorticks_off()
right.set_xlabel("epsilon (smaller: more private)")
right.set_ylabel(f"test accuracy (mean of {n_seeds})")
right.set_title("Labels needed do not grow as 1/eps")
right.invert_xaxis()
right.legend()
fig.tight_layout()
plt.show()
