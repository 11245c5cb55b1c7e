"""
=================================================================
The public-data reduction: error at most 100 * n_public * alpha
=================================================================

The lower bound of Alon, Bassily & Moran (2019) rests on a reduction (Algorithms
2-4, Lemma 4.4): any semi-private learner ``A`` that uses ``n_public`` public
examples becomes a *fully private* learner ``B``, with no public data at all.
:class:`~sklearn_semiprivate.research.PublicDataReduction` implements ``B``
(in the ``research`` namespace: it exists to study the lower bound). Given ``ñ``
real examples, it builds

* a private sample of ``n_private = 10 n_public ñ`` rows (PrivSamp, Alg. 3):
  each row is the next real example with probability
  ``p = 1 / (100 n_public)``, else a *dummy* from a fixed distribution ``D0``
  (standard normal points, labels uniformly random);
* a public sample of ``n_public`` dummies (PubSamp, Alg. 4);

and returns ``A``'s hypothesis. Lemma 4.4: if ``A`` is an ``(alpha, 1/18)``
agnostic learner, i.e. with probability ``>= 17/18`` its excess error is at
most ``alpha`` on the *mixture* ``D(p) = p D + (1 - p) D0``, then on any
realizable ``D`` the error of ``B`` is at most ``100 n_public alpha`` with
probability ``>= 15/16``.

We check this with ``A`` = :class:`~sklearn_semiprivate.SemiPrivateClassifier`
over thresholds at ``epsilon = 1``, on a realizable ``D``: ``x ~ N(0, 1)``,
``y = 1[x > 0.5]``. Both sides are measured, from independent runs:

* ``alpha``: run ``A`` on genuine i.i.d. samples of ``D(p)`` (``n_private``
  private rows, ``n_public`` public points) and take the ``17/18`` quantile of
  its excess error on ``D(p)``;
* the error of ``B``: run ``PublicDataReduction`` on ``ñ`` examples of ``D``
  and take the ``15/16`` quantile of its error on ``D``.

All errors are exact (normal CDF), not estimated. Because the dummy labels are
pure noise, every hypothesis ``h`` has ``err(h; D(p)) = p err(h; D) + (1 - p)/2``
and the best one has ``(1 - p)/2``, so an excess of ``alpha`` on ``D(p)`` is an
error of ``alpha / p = 100 n_public alpha`` on ``D``: that is where the bound
comes from. What the lemma adds is that ``B``'s samples, whose public part holds
no real example, behave like i.i.d. samples of ``D(p)``.

**Privacy.** ``A`` is ``1``-DP for its private sample; ``B`` is then ``1``-DP
for its ``ñ`` real examples under replace-one neighbours (Claim 4.5: each real
example lands in at most one row of the generated sample), not add/remove.
"""

# SPDX-License-Identifier: BSD-3-Clause

import time

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter, NullLocator
from scipy.special import ndtr

from sklearn_semiprivate import PublicData, SemiPrivateClassifier
from sklearn_semiprivate.research import PublicDataReduction

MU, SIGMA, T_STAR = 0.0, 1.0, 0.5  # D: x ~ N(MU, SIGMA**2), y = 1[x > T_STAR]
N_REAL = 6_000  # ñ, the fully private learner's sample size
N_PUBLIC = np.array([2, 4, 8])
EPSILON = 1.0
N_REPEATS = 48

# %%
# Exact errors on ``D``
# ---------------------
# With two classes the threshold cover lists the constants ``0`` and ``1``,
# then for every cut ``t`` the member ``x <= t -> 0 else 1`` and its mirror.


def errors_on_d(cover):
    """Exact error on D of every member of a threshold cover."""
    p_below = ndtr((T_STAR - MU) / SIGMA)  # P(y = 0)
    miss = np.abs(ndtr((cover.thresholds_ - MU) / SIGMA) - p_below)
    members = np.column_stack([miss, 1.0 - miss]).ravel()
    return np.concatenate([[1.0 - p_below, p_below], members])


def sample_d(n, rng):
    x = MU + SIGMA * rng.standard_normal(n)
    return x[:, None], (x > T_STAR).astype(int)


def sample_mixture(n, p, rng):
    """n i.i.d. examples of D(p): from D with probability p, else from D0."""
    X = rng.standard_normal((n, 1))  # D0: the reduction's default dummy points
    y = rng.integers(2, size=n)  # D0: uniformly random labels
    real = rng.random(n) < p
    X[real], y[real] = sample_d(int(real.sum()), rng)
    return X, y


def learner():
    return SemiPrivateClassifier("thresholds", epsilon=EPSILON, classes=[0, 1])


# %%
# Both sides of Lemma 4.4
# -----------------------
# For each ``n_public``: ``N_REPEATS`` runs of ``A`` on ``D(p)`` and as many
# runs of ``B`` on ``D``, each with its own seed.

start = time.perf_counter()
excess_a = np.zeros((N_PUBLIC.size, N_REPEATS))  # A's excess error on D(p)
error_b = np.zeros((N_PUBLIC.size, N_REPEATS))  # B's error on D
for i, n_public in enumerate(N_PUBLIC):
    p = 1.0 / (100 * n_public)  # Alg. 2 step 2
    n_private = 10 * n_public * N_REAL
    for r in range(N_REPEATS):
        rng = np.random.default_rng([n_public, r])
        X, y = sample_mixture(n_private, p, rng)
        X_public, _ = sample_mixture(n_public, p, rng)  # A sees public points only
        a = learner().set_params(random_state=r)
        a.fit(X, y, X_public=PublicData(X_public))
        excess_a[i, r] = p * errors_on_d(a.cover_)[a.member_]

        X, y = sample_d(N_REAL, rng)
        b = PublicDataReduction(
            learner(), n_public=int(n_public), classes=[0, 1], random_state=r
        ).fit(X, y)
        error_b[i, r] = errors_on_d(b.estimator_.cover_)[b.estimator_.member_]
print(f"{2 * N_PUBLIC.size * N_REPEATS} fits in {time.perf_counter() - start:.1f} s")

alpha = np.quantile(excess_a, 17 / 18, axis=1)
bound = 100 * N_PUBLIC * alpha
quantile_b = np.quantile(error_b, 15 / 16, axis=1)
scaled_a = 100 * N_PUBLIC[:, None] * excess_a  # A's excess, in units of D-error

print(f"\nñ = {N_REAL}, epsilon = {EPSILON}, {N_REPEATS} runs each; errors are exact")
print(
    f"{'n_public':>8} {'n_private':>9} {'p':>7} {'alpha (A)':>10} "
    f"{'100 n_pub alpha':>15} {'err B q15/16':>12} {'mean 100n_pub exc A':>19} "
    f"{'mean err B':>10} {'P(err B <= bound)':>17}"
)
for i, n_public in enumerate(N_PUBLIC):
    print(
        f"{n_public:>8} {10 * n_public * N_REAL:>9} {1 / (100 * n_public):>7.4f} "
        f"{alpha[i]:>10.2e} {bound[i]:>15.3f} {quantile_b[i]:>12.3f} "
        f"{scaled_a[i].mean():>19.3f} {error_b[i].mean():>10.3f} "
        f"{np.mean(error_b[i] <= bound[i]):>17.2f}"
    )

# %%
# The plot
# --------
# Left: for each ``n_public``, the share of runs whose error is at least ``x``
# (log scale, to see the tail), for ``B``'s error on ``D`` (solid) and for
# ``100 n_public`` times ``A``'s excess error on ``D(p)`` (dashed). Lemma 4.4
# compares their upper quantiles: where the dashed curve crosses ``1/18`` is the
# bound ``100 n_public alpha``; the solid curve must be below ``1/16`` from
# there on. Right: ``alpha`` against ``p = 1 / (100 n_public)``.

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
above = 1.0 - np.arange(N_REPEATS) / N_REPEATS  # share of runs >= k-th smallest
for i, n_public in enumerate(N_PUBLIC):
    color = f"C{i}"
    left.step(
        np.sort(error_b[i]),
        above,
        where="post",
        color=color,
        label=f"n_public={n_public}: err of B on D",
    )
    left.step(
        np.sort(scaled_a[i]),
        above,
        where="post",
        color=color,
        linestyle="--",
        label=f"n_public={n_public}: 100 n_public x excess of A",
    )
for level, text, va in [(1 / 16, "1/16", "bottom"), (1 / 18, "1/18", "top")]:
    left.axhline(level, color="gray", linewidth=0.8, linestyle=":")
    left.annotate(text, (0.5, level), va=va, fontsize=8, color="gray")
left.set(
    xlim=(0, 1),
    yscale="log",
    ylim=(0.5 / N_REPEATS, 1.1),
    xlabel="error on D (exact)",
    ylabel="share of runs with error >= x",
    title=f"PublicDataReduction, thresholds, ñ={N_REAL}, eps={EPSILON}",
)
left.legend(fontsize=7, loc="lower left")

right.plot(N_PUBLIC, alpha, "o-", label="alpha: 17/18 quantile of A's excess")
right.plot(N_PUBLIC, 1 / (100 * N_PUBLIC), "k:", label="p = 1 / (100 n_public)")
right.set(
    xscale="log",
    yscale="log",
    xlabel="n_public",
    ylabel="excess error on D(p) (exact)",
    title="The wrapped learner A on D(p)",
)
right.set_xticks(N_PUBLIC, labels=[str(n) for n in N_PUBLIC])
right.xaxis.set_minor_locator(NullLocator())
right.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
right.yaxis.set_minor_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
right.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %%
# Reading the result
# ------------------
# * **The two distributions coincide.** Solid and dashed curves of one colour
#   follow each other, and the mean columns of the table agree within their
#   sampling noise: ``B`` hands ``A`` samples distributed as i.i.d. draws of
#   ``D(p)``, up to the ``1%`` chance that PrivSamp runs out of real examples
#   and a total variation of at most ``0.01`` for the public part, which holds
#   no real example. (Here ``D`` and ``D0`` share the marginal ``N(0, 1)``, so
#   for an unlabeled public sample that distance is even zero.) Hence the
#   ``15/16`` quantile of ``B``'s error sits at the ``17/18`` quantile of
#   ``100 n_public`` times ``A``'s excess error: the bound of Lemma 4.4, up to the
#   sampling noise of two tail quantiles estimated from 48 runs each. That noise
#   is coarse: the errors are bimodal (a cut near ``0.5``, or the mirrored rule
#   or a constant, with errors near ``0.7``), and the mass of the upper mode is
#   close to ``1/16``, so either estimate can land in either mode.
# * **The bound is large.** ``B`` uses only about ``ñ / 10`` real examples,
#   buried among ``10 n_public ñ`` noise-labeled dummies, so ``A`` sees a
#   signal of relative size ``p`` and its excess error on ``D(p)`` cannot fall
#   far below ``p`` (right panel; it is always at most ``p``, since no
#   hypothesis errs more than always on ``D``). That is the point of the
#   reduction. A semi-private learner with ``alpha`` well below
#   ``1 / (100 n_public)`` would make ``B`` an accurate *fully private* learner;
#   for classes that cannot be learned privately (thresholds over an infinite
#   domain) that is impossible, so a semi-private learner with excess ``alpha``
#   needs ``n_public`` of order ``1 / alpha`` public examples: the lower bound
#   that matches ``plot_public_sample_complexity.py``.
