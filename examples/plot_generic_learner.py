"""
=====================================================================
Private unlabeled data: GenericLearner (Beimel, Nissim & Stemmer)
=====================================================================

Sometimes the unlabeled data is private too: many patient records without the
outcome, and a few records with it.
:class:`~sklearn_semiprivate.GenericLearnerClassifier` (Alg. 1 of *Learning
Privately with Labeled and Unlabeled Examples*) first *sanitizes* the unlabeled
rows with a differentially private query release, then builds the cover of the
hypothesis class on the sanitized points, and finally picks a member with the
exponential mechanism on the labeled rows. The two mechanisms read disjoint
rows, so the whole fit is (epsilon, delta)-DP.

Why bother? The domain is declared public knowledge — here a lab value in
``[0, 1]`` measured to 1/4096 — but the patients occupy a narrow band of it. A
private learner without unlabeled data must spread its cover over the whole
domain; GenericLearner learns *where the data is* from the unlabeled rows,
privately, and spends its labeled rows on the thresholds that matter.

If some public rows exist as well, pass them as ``X_public=PublicData(...)``:
they join the sanitized points in the cover (and their labels, if any, the
score) for free. Here there are none, and the grid-only learner is given
``bounds=``, the way to ask for private-only learning without a
``PublicDataWarning``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import matplotlib.pyplot as plt
import numpy as np

from sklearn_semiprivate import GenericLearnerClassifier


def make_rows(n, rng):
    x = rng.normal(0.5, 0.005, size=(n, 1)).clip(0.0, 1.0)
    y = (x[:, 0] > 0.501).astype(int)
    flip = rng.random(n) < 0.02  # 2% label noise
    return x, np.where(flip, 1 - y, y)


rng = np.random.default_rng(0)
X_test, y_test = make_rows(20_000, rng)
n_labeled_grid = [20, 40, 80, 160]
n_repeats = 6

# %%
# With and without the private unlabeled rows
# -------------------------------------------
# Both learners are epsilon = 1 for the labeled rows; GenericLearner also spends
# (epsilon, delta) = (1, 1e-6) on the 2000 unlabeled rows — parallel composition,
# since they are different people: the total is (1, 1e-6).
params = dict(
    hypothesis_class="thresholds",
    epsilon=1.0,
    delta=1e-6,
    n_bins=4096,
    bounds=(0.0, 1.0),
    classes=[0, 1],
)
GENERIC, GRID = "GenericLearner (+2000 unlabeled)", "grid only"
results = {GENERIC: [], GRID: []}
for n_labeled in n_labeled_grid:
    with_unl, grid_only = [], []
    for seed in range(n_repeats):
        X, y = make_rows(n_labeled, np.random.default_rng(100 + seed))
        X_unl, _ = make_rows(2000, np.random.default_rng(200 + seed))
        generic = GenericLearnerClassifier(random_state=seed, **params)
        generic.fit(X, y, X_unlabeled=X_unl)
        with_unl.append(generic.score(X_test, y_test))
        grid = GenericLearnerClassifier(random_state=seed, **params).fit(X, y)
        grid_only.append(grid.score(X_test, y_test))
    results[GENERIC].append(np.mean(with_unl))
    results[GRID].append(np.mean(grid_only))

print(f"{'labeled rows':>12} | {GENERIC:>31} | {GRID:>9}")
for i, n_labeled in enumerate(n_labeled_grid):
    print(f"{n_labeled:12d} | {results[GENERIC][i]:31.3f} | {results[GRID][i]:9.3f}")
print("privacy spent by a GenericLearner fit:", generic.privacy_spent_)
print("privacy spent by a grid-only fit:     ", grid.privacy_spent_)

# %%
# With few labeled rows the sanitized unlabeled data matters most: the grid's
# cover has 4096 thresholds, most of them far from the data, and the exponential
# mechanism needs many labeled rows to single out the right one. As labeled
# rows accumulate, the grid catches up (and the sanitized cover, with only
# ``n_synthetic`` points, can end up slightly coarser).

fig, ax = plt.subplots(figsize=(6, 4))
for name, accuracies in results.items():
    ax.plot(n_labeled_grid, accuracies, "o-", label=name)
ax.set_xscale("log")
ax.set_xticks(n_labeled_grid, labels=[f"{v:g}" for v in n_labeled_grid])
ax.minorticks_off()
ax.set_xlabel("labeled private rows")
ax.set_ylabel(f"test accuracy (mean of {n_repeats})")
ax.set_title("Thresholds on [0, 1] at resolution 1/4096, epsilon = 1")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
