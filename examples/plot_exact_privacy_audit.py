"""
==========================================================
Choosing privately, and checking the privacy loss exactly
==========================================================

The selection step of every semi-private learner in this package is a
*discrete* mechanism: given the score of every candidate (for a classifier, the
number of private rows each hypothesis labels correctly), it returns one
candidate. Its output distribution can be computed exactly, so its privacy can
be *verified* rather than assumed: enumerate neighbouring score vectors (each
score moved by at most the sensitivity) and take the largest log-ratio of the
output probabilities.

This example compares the exponential mechanism with permute-and-flip
(McKenna & Sheldon 2020) on the same scores, shows that both stay within their
epsilon, and that a deliberately broken mechanism (the factor 2 in the exponent
forgotten) does not.
"""

# SPDX-License-Identifier: BSD-3-Clause

import matplotlib.pyplot as plt
import numpy as np

from sklearn_semiprivate.audit import max_privacy_loss_over_scores
from sklearn_semiprivate.mechanisms import ExponentialMechanism, PermuteAndFlip

# Scores of five candidate hypotheses: correct predictions on 40 private rows.
scores = np.array([31.0, 29.0, 24.0, 20.0, 12.0])

# %%
# Output distributions at several epsilons
# ----------------------------------------
# Permute-and-flip puts more mass on the best candidate than the exponential
# mechanism at the same epsilon: it is never worse in expected score.
epsilons = [0.1, 0.5, 1.0, 2.0]
fig, axes = plt.subplots(1, len(epsilons), figsize=(13, 3), sharey=True)
for ax, eps in zip(axes, epsilons):
    p_exp = np.exp(ExponentialMechanism(eps).log_probabilities(scores))
    p_pf = np.exp(PermuteAndFlip(eps).log_probabilities(scores))
    x = np.arange(scores.size)
    ax.bar(x - 0.2, p_exp, width=0.4, label="exponential")
    ax.bar(x + 0.2, p_pf, width=0.4, label="permute-and-flip")
    ax.set_title(f"epsilon = {eps}")
    ax.set_xticks(x, [f"{s:g}" for s in scores])
    ax.set_xlabel("candidate score")
axes[0].set_ylabel("probability of being chosen")
axes[0].legend(fontsize=8)
fig.tight_layout()

# %%
# The audit: worst log-ratio over all neighbouring score vectors
# --------------------------------------------------------------
# Every score moves by -1, -0.5, 0, 0.5 or 1 (sensitivity 1), in all 5**5
# combinations. A correct mechanism stays at or below epsilon; the mutant that
# forgets the factor 2 of ``exp(epsilon * score / 2)`` goes up to 2 epsilon.


def forgot_factor_two(eps):
    # exp(eps * score) instead of exp(eps * score / 2): sensitivity halved.
    return ExponentialMechanism(eps, sensitivity=0.5)


rows = []
for eps in epsilons:
    losses = [
        max_privacy_loss_over_scores(
            mechanism.log_probabilities, scores, sensitivity=1.0
        ).epsilon
        for mechanism in (
            ExponentialMechanism(eps),
            PermuteAndFlip(eps),
            forgot_factor_two(eps),
        )
    ]
    rows.append((eps, *losses))

print(f"{'epsilon':>8} | {'exponential':>11} | {'permute-flip':>12} | {'mutant':>8}")
for eps, exp_loss, pf_loss, mutant_loss in rows:
    print(f"{eps:8.2f} | {exp_loss:11.4f} | {pf_loss:12.4f} | {mutant_loss:8.4f}")
    assert exp_loss <= eps + 1e-9 and pf_loss <= eps + 1e-9
    assert mutant_loss > eps

fig, ax = plt.subplots(figsize=(5, 3.5))
table = np.array(rows)
# The two mechanisms' losses coincide: hollow circles keep both visible.
ax.plot(
    table[:, 0], table[:, 1], "o-", ms=10, mfc="none", label="exponential mechanism"
)
ax.plot(table[:, 0], table[:, 2], "s--", ms=4, label="permute-and-flip")
ax.plot(table[:, 0], table[:, 3], "x--", label="mutant: factor 2 forgotten")
ax.plot(table[:, 0], table[:, 0], "k:", label="claimed epsilon")
ax.set_xlabel("claimed epsilon")
ax.set_ylabel("measured worst privacy loss")
ax.set_title("Worst privacy loss over neighbours, computed exactly", fontsize=10)
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
