"""
=====================================================================
Transfer learning in the hybrid model: Subsample-Test-Reweigh
=====================================================================

:class:`~sklearn_semiprivate.SubsampleTestReweighClassifier` (Kohen &
Sheffet, ICML 2022) learns for a **target** distribution T from a curator's
labeled rows drawn from a **source** S. The target's rows belong to local
agents, who each answer one question once. Every round the curator draws a
small subsample from multiplicative weights over its rows, trains a learner,
asks a batch of agents for the hypothesis' loss, and down-weighs the rows the
hypothesis already gets right; it halts on the first hypothesis whose
estimated target loss is small.

Left: Algorithm 1 (not private) in the 2-D version of the paper's Appendix C:
T is concentrated (standard deviation 0.1) around a boundary that puts 5% of
T's mass on one side; a 20-row subsample of S rarely lands there, and the
reweighing moves it there. Right: Algorithm 2 (private), with
:class:`~sklearn_semiprivate.PrivateSGDClassifier` as the learner: each
round is a fresh batch of agents answering through randomized response
(1-LDP each), and the curator's rows are ``(1, 1e-5)``-DP over all rounds
(Claim 4.1 per round, advanced composition across rounds); the fit refuses
fewer curator rows than that needs.
"""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import MaxNLocator
from scipy.stats import norm
from sklearn.linear_model import LogisticRegression

from sklearn_semiprivate import PrivateSGDClassifier, SubsampleTestReweighClassifier

rng = np.random.default_rng(0)

# %%
# Algorithm 1 on a concentrated target, five seeds
q = 0.1 * norm.ppf(0.05)
X = rng.normal(size=(20_000, 2))
X_t = rng.normal(size=(20_000, 2)) * [0.1, 1.0]
y, y_t = (X[:, 0] > q).astype(int), (X_t[:, 0] > q).astype(int)
runs = []
for seed in range(5):
    clf = SubsampleTestReweighClassifier(
        LogisticRegression(C=1e4),
        alpha=0.02,
        epsilon=1.0,
        delta=1e-5,
        local_epsilon=1.0,
        max_iter=300,
        n_subsample=20,
        private=False,
        random_state=seed,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lbfgs on tiny separable subsamples
        clf.fit(X, y, X_target=X_t, y_target=y_t)
    runs.append(clf)

# %%
# Algorithm 2 with private SGD: source N(0, I), target shifted and narrower
X_s = rng.normal(size=(30_000, 2))
y_s = (X_s[:, 0] + X_s[:, 1] > 0.5).astype(int)
# Fewer agents than curator rows: an X_target as long as X warns (CV would
# slice it per fold with X, and every fit asks its agents again).
X_a = rng.normal(0.4, 0.4, size=(25_000, 2))
y_a = (X_a[:, 0] + X_a[:, 1] > 0.5).astype(int)
private = SubsampleTestReweighClassifier(
    PrivateSGDClassifier(classes=[0, 1], bounds=(-4, 4)),
    alpha=0.05,
    epsilon=1.0,
    delta=1e-5,
    kappa=0.5,
    local_epsilon=1.0,
    max_iter=5,
    n_subsample=500,
    random_state=0,
).fit(X_s, y_s, X_target=X_a, y_target=y_a)

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
for clf in runs:
    left.plot(np.arange(1, clf.n_iter_ + 1), clf.history_["target_loss"], "o-")
left.axhline(runs[0].threshold_, color="k", ls="--", label="halt: 2 alpha + tau")
left.set(
    xlabel="round",
    ylabel="0-1 loss on T (exact SQ)",
    title="Algorithm 1 (not private), 5 seeds",
)
left.legend()
a_t = private.history_["target_loss"]
right.plot(np.arange(1, a_t.size + 1), a_t, "o-", label="a_t (agents' answers)")
right.axhline(private.threshold_, color="k", ls="--", label="halt: 3 alpha")
eps, delta = private.privacy_spent_
right.set(
    xlabel="round",
    ylabel="estimated 0-1 loss on T",
    title=f"Algorithm 2: curator ({eps:g}, {delta:g})-DP, agents "
    f"{private.local_privacy_.epsilon:g}-LDP",
)
right.set_xlim(0.5, private.max_iter + 0.5)  # the rounds it may run
right.set_ylim(0, max(a_t.max(), private.threshold_) * 1.5)
right.annotate(
    f"halted after {private.n_iter_} round(s)",
    (a_t.size, a_t[-1]),
    xytext=(10, -25),
    textcoords="offset points",
)
for ax in (left, right):
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
right.legend(loc="upper right")
fig.tight_layout()
print(
    f"private: {private.n_iter_} rounds, {private.history_['n_agents'].sum()} "
    f"agents asked, error on T {1 - private.score(X_a, y_a):.3f}"
)
plt.show()
