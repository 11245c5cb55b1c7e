"""
=====================================================================
Tracing attack: finding the members of a release of decision stumps
=====================================================================

Bassily et al. (2020, Thm 13) show that releasing the ``p`` coordinate
stumps ``h_j(x) = x_j`` on ``{±1}^p`` accurately and privately needs about
``sqrt(p) / alpha`` private rows, however much public data helps otherwise.
The proof is a *tracing attack* (Thm 14, after Dwork, Smith, Steinke, Ullman &
Vadhan 2015): given the released answers ``q`` and a candidate row ``y``, the
attacker computes

    ``T(q, y) = <y - mu, q - mu>``,

where ``mu`` is the mean of some fresh reference rows, and says IN when it is
large. A member contributes ``y / n`` to the exact average ``q``, so its score
is higher by ``sum_j Var(x_j) / n`` in expectation, against a spread of about
``sqrt(sum_j Var(x_j)**2 / n)``: with ``p`` much larger than ``n`` the members
stand out.

:class:`~sklearn_semiprivate.audit.TracingAttack` calibrates the threshold on
reference rows the release never saw (split conformal), so its false positive
rate is at most 5% by construction. We measure its true positive rate on

* **exact** averages of ``n = 50``, ``500`` and ``5000`` rows, ``p = 2000``
  (too few rows, then more);
* a **Gaussian mechanism** release of the ``n = 50`` averages at
  ``(epsilon, delta) = (0.5, 1e-6)`` (L2 sensitivity ``2 sqrt(p) / n``);
* :class:`~sklearn_semiprivate.query_release.PublicAssistedQueryRelease`
  ("public-assisted" below; ``support="public"``, the representative domain
  of ``{±1}^2000`` being far too large to hold) on the same ``n = 50``
  private rows with ``200`` public rows, at ``(0.5, 1e-6)``.

A DP release bounds every attack by ``TPR <= e^epsilon FPR + delta``
(``0.082`` here), so the attack is at chance against both DP releases. The
public rows, which the release may use freely, are traced, as they may be.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math
import time

import matplotlib.pyplot as plt
import numpy as np

from sklearn_semiprivate import PublicData
from sklearn_semiprivate.audit import TracingAttack, membership_rates
from sklearn_semiprivate.mechanisms import GaussianMechanism
from sklearn_semiprivate.query_release import PublicAssistedQueryRelease, StumpQueries
from sklearn_semiprivate.utils import spawn_rngs

P = 2000  # coordinate stumps
EPSILON, DELTA = 0.5, 1e-6
FPR = 0.05
N_MEAN, N_CALIBRATION = 200, 199  # attacker's fresh reference rows
N_PUBLIC = 200  # public rows given to PublicAssistedQueryRelease
N_OUTSIDERS = 50  # fresh non-members scored per trial
SEED = 0
start = time.perf_counter()

# %%
# The data: a product distribution on ``{±1}^p``
# ----------------------------------------------
# Coordinate means drawn uniformly in ``[-1, 1]``, as in Dwork et al. (2015).
# Every trial draws fresh private rows, public rows, reference rows and
# outsiders from it.

bias_rng, run_rng = spawn_rngs(SEED, 2)
BIAS = bias_rng.uniform(-1.0, 1.0, size=P)


def draw_rows(rng, n):
    """``n`` rows of the product distribution, in ``{-1, +1}``."""
    return np.where(rng.random((n, P)) < (1.0 + BIAS) / 2.0, 1.0, -1.0)


# %%
# The releases
# ------------
# Each takes the private rows (and public rows) and returns the answers to the
# ``p`` stumps with the scale they are expressed in: averages in ``[-1, 1]``
# (``"signed"``) or fractions of ``+1`` entries in ``[0, 1]`` (``"fraction"``,
# what :class:`~sklearn_semiprivate.query_release.StumpQueries` returns).


def exact_release(X, X_public, rng):
    return X.mean(axis=0), "signed"


def gaussian_release(X, X_public, rng):
    # The p averages at once: replacing one row moves each by at most 2 / n,
    # so the L2 sensitivity of the vector is 2 sqrt(p) / n.
    mech = GaussianMechanism(EPSILON, DELTA, sensitivity=2.0 * math.sqrt(P) / len(X))
    return mech.sample(X.mean(axis=0), random_state=rng), "signed"


def public_assisted_release(X, X_public, rng):
    release = PublicAssistedQueryRelease(
        StumpQueries(),  # threshold 0 on {±1}^p: h_j(x) = x_j, as fractions
        epsilon=EPSILON,
        delta=DELTA,
        support="public",
        random_state=int(rng.integers(2**31)),
    )
    release.fit(X, X_public=PublicData(X_public))
    return release.answers_, "fraction"


# %%
# Running the attack
# ------------------
# Per trial: draw the data, release, fit the attack on fresh reference rows,
# then decide IN/OUT for every member, ``N_OUTSIDERS`` fresh rows and the
# public rows. For the ROC curves each score is turned into its conformal
# p-value ``(1 + #{calibration scores >= s}) / (k + 1)``: deciding IN when it is
# ``<= a`` is the attack calibrated to false positive rate ``a``, and at
# ``a = 0.05`` it is exactly ``TracingAttack.predict``.


def p_values(attack, scores):
    cal = np.sort(attack.calibration_scores_)
    at_least = cal.size - np.searchsorted(cal, scores, side="left")
    return (1.0 + at_least) / (cal.size + 1.0)


def run(release, n_rows, n_trials, rng):
    out = {key: [] for key in ("members", "outsiders", "public", "p_in", "p_out")}
    for trial_rng in rng.spawn(n_trials):
        data_rng, release_rng = trial_rng.spawn(2)
        rows = draw_rows(
            data_rng, n_rows + N_PUBLIC + N_OUTSIDERS + N_MEAN + N_CALIBRATION
        )
        X, X_public, outsiders, reference = np.split(
            rows, np.cumsum([n_rows, N_PUBLIC, N_OUTSIDERS])
        )
        answers, scale = release(X, X_public, release_rng)
        attack = TracingAttack(
            false_positive_rate=FPR, n_calibration=N_CALIBRATION, answer_scale=scale
        ).fit(answers, reference)
        out["members"].append(attack.predict(X))
        out["outsiders"].append(attack.predict(outsiders))
        out["public"].append(attack.predict(X_public))
        out["p_in"].append(p_values(attack, attack.decision_function(X)))
        out["p_out"].append(p_values(attack, attack.decision_function(outsiders)))
    return {key: np.concatenate(value) for key, value in out.items()}


SETTINGS = {  # label -> (release, n private rows, trials)
    "exact, n=50": (exact_release, 50, 40),
    "exact, n=500": (exact_release, 500, 8),
    "exact, n=5000": (exact_release, 5000, 3),
    "Gaussian, n=50": (gaussian_release, 50, 40),
    "public-assisted, n=50": (public_assisted_release, 50, 40),
}
results = {
    label: run(release, n_rows, n_trials, rng)
    for (label, (release, n_rows, n_trials)), rng in zip(
        SETTINGS.items(), run_rng.spawn(len(SETTINGS))
    )
}

# %%
# True and false positive rates at the calibrated threshold
# ---------------------------------------------------------
# Decisions within one trial share the release, so these are point estimates
# over all members and outsiders of all trials. The DP bound is
# ``e^0.5 * 0.05 + 1e-6 = 0.082``.

rates = {
    label: membership_rates(res["members"], res["outsiders"])
    for label, res in results.items()
}
print(f"{'release':22s} {'TPR':>6s} {'FPR':>6s} {'public IN':>9s}")
for label, (tpr, fpr) in rates.items():
    public_in = results[label]["public"].mean()
    print(f"{label:22s} {tpr:6.3f} {fpr:6.3f} {public_in:9.3f}")
print(f"DP bound on TPR at FPR {FPR}: {math.exp(EPSILON) * FPR + DELTA:.3f}")

# %%
# ROC curves and the bar chart
# ----------------------------
# Left: true against false positive rate as the calibrated level varies; the
# diagonal is chance and the dotted line the DP bound ``e^eps FPR + delta``.
# Right: rates at the 5% level. The public rows are used only by the
# public-assisted release (the other releases ignore them, so for those they
# are just more outsiders); they are not protected, and they are traced.

fig, (ax_roc, ax_bar) = plt.subplots(1, 2, figsize=(12, 5))
levels = np.arange(1, N_CALIBRATION + 2) / (N_CALIBRATION + 1)
for label, res in results.items():
    tpr = (res["p_in"][:, None] <= levels).mean(axis=0)
    fpr = (res["p_out"][:, None] <= levels).mean(axis=0)
    ax_roc.plot(np.r_[0.0, fpr], np.r_[0.0, tpr], label=label)
grid = np.linspace(0, 1, 101)
ax_roc.plot(grid, grid, color="gray", lw=1, label="chance")
ax_roc.plot(
    grid,
    np.minimum(1.0, math.exp(EPSILON) * grid + DELTA),
    color="black",
    ls=":",
    lw=1,
    label=f"DP bound, eps={EPSILON}",
)
ax_roc.set_xlabel("false positive rate")
ax_roc.set_ylabel("true positive rate")
ax_roc.set_title(f"Tracing attack on p={P} coordinate stumps")
ax_roc.legend(loc="lower right", fontsize=8)

x = np.arange(len(rates))
bars = {
    "members IN (TPR)": [r.true_positive_rate for r in rates.values()],
    "outsiders IN (FPR)": [r.false_positive_rate for r in rates.values()],
    "public rows IN": [res["public"].mean() for res in results.values()],
}
for i, (name, heights) in enumerate(bars.items()):
    ax_bar.bar(x + (i - 1) * 0.27, heights, 0.27, label=name)
ax_bar.axhline(FPR, color="gray", lw=1, label="target FPR (5%)")
ax_bar.axhline(
    math.exp(EPSILON) * FPR + DELTA,
    color="black",
    ls=":",
    lw=1,
    label="DP bound on TPR",
)
ax_bar.set_xticks(x, [label.replace(", ", "\n") for label in rates], fontsize=8)
ax_bar.set_ylabel("rate at the 5% level")
ax_bar.set_title("Rows declared IN at the calibrated 5% level")
ax_bar.legend()
fig.tight_layout()
plt.show()

print(f"ran in {time.perf_counter() - start:.1f} s")
