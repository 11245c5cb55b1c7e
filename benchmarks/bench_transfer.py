"""Subsample-Test-Reweigh (Kohen & Sheffet 2022) on the paper's Gaussian settings.

1. Appendix C, non-private (Algorithm 1), scaled down: S = N(0, I_d), T has
   standard deviation sigma on k coordinates; the target hyperplane lives on
   those k coordinates and labels alpha of T's mass as the minority class.
   Error on T against n, rounds against the alpha^-2 bound, and the goal: error
   on T <= 2 alpha in >= 90% of 20 seeds.
2. Appendix D, private (Algorithm 2): d = 8, k = 2, S = N(0, 0.1^2 I),
   T = 0.07 on the k coordinates, ellipse hypotheses through the squared
   feature map, PrivateSGDClassifier (hinge) as M, eps = 0.5, delta = 1e-4,
   alpha = 0.08, kappa = alpha / (4 (chi2 + 1)). Loss on T per round and the
   privacy spent, at the curator rows Claim 4.1 and Thm 4.2 need for the
   chosen T and m1 (far below the paper's 324.7M, which does not fit 2 cores).

Run ``python benchmarks/bench_transfer.py [--quick]``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import math
import time
import warnings

import numpy as np
from _common import print_environment, print_table
from scipy.stats import chi2, norm
from sklearn.linear_model import LogisticRegression

from sklearn_semiprivate import PrivateSGDClassifier, SubsampleTestReweighClassifier
from sklearn_semiprivate.classifiers import _transfer_steps as steps


def chi2_plus_one(sigma_s, sigma_t, k):
    """chi^2(T || S) + 1 for Gaussians differing on k coordinates (Appendix C-D)."""
    return (sigma_s**4 / (sigma_t**2 * (2 * sigma_s**2 - sigma_t**2))) ** (k / 2)


def gaussian_c(n, n_target, d, k, sigma, alpha, rng):
    """Appendix C: hyperplane on the k concentrated coordinates."""
    w = np.zeros(d)
    w[:k] = 1 / math.sqrt(k)
    b = sigma * norm.ppf(alpha)  # T's mass below b is alpha
    X = rng.normal(size=(n, d))
    scale = np.ones(d)
    scale[:k] = sigma
    X_t = rng.normal(size=(n_target, d)) * scale
    return X, (X @ w > b).astype(int), X_t, (X_t @ w > b).astype(int)


def experiment_c(seeds, quick):
    d, k, sigma, alpha = 50, 5, 0.05, 0.02
    c1 = chi2_plus_one(1.0, sigma, k)
    bound_rounds = steps.default_rounds(alpha, c1 - 1, private=False)
    max_iter = 500
    ns = [5000, 20_000] if quick else [5000, 20_000, 50_000]
    rows, per_n = [], {}
    # m1: the default (d + 1 + ln(T/beta)) / alpha, and a small subsample that
    # needs the reweighing (the paper's d = 500 makes its m1 most of n).
    for n, m1 in [(n, m1) for m1 in (None, 300) for n in ns]:
        errs, iters, halted, secs = [], [], [], []
        for seed in seeds:
            rng = np.random.default_rng(seed)
            X, y, X_t, y_t = gaussian_c(n, 100_000, d, k, sigma, alpha, rng)
            X_test, y_test = gaussian_c(1, 100_000, d, k, sigma, alpha, rng)[2:]
            started = time.perf_counter()
            clf = SubsampleTestReweighClassifier(
                LogisticRegression(C=1e4, max_iter=1000),
                alpha=alpha, epsilon=1.0, delta=1e-5, local_epsilon=1.0,
                max_iter=max_iter, n_subsample=m1, private=False,
                random_state=seed,
            )  # fmt: skip
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # lbfgs on separable subsamples
                clf.fit(X, y, X_target=X_t, y_target=y_t)
            secs.append(time.perf_counter() - started)
            errs.append(1 - clf.score(X_test, y_test))
            iters.append(clf.n_iter_)
            halted.append(clf.halted_)
        errs = np.array(errs)
        met = float(np.mean(errs <= 2 * alpha))
        per_n[n, m1] = met
        rows.append(
            [
                n, clf.n_subsample_, f"{np.median(errs):.4f}", f"{errs.max():.4f}",
                f"{100 * met:.0f}%", "yes" if met >= 0.9 else "no",
                f"{np.median(iters):.0f}", f"{max(iters)}",
                f"{sum(halted)}/{len(halted)}", f"{np.mean(secs):.1f}",
            ]
        )  # fmt: skip
    print_table(
        f"Appendix C (Alg. 1), scaled: d={d}, k={k}, sigma={sigma}, alpha={alpha}, "
        f"chi2+1={c1:.1f}, N=100k target rows (SQ tolerance from Hoeffding), "
        f"LogisticRegression(C=1e4) as M, {len(seeds)} seeds, "
        f"max_iter={max_iter}; alpha^-2={1 / alpha**2:.0f}, Thm 3.1's "
        f"T={bound_rounds}",
        [
            "n", "m1", "median err_T", "max err_T", "err<=2a", "goal(>=90%)",
            "median rounds", "max rounds", "halted", "s/fit",
        ],
        rows,
    )  # fmt: skip
    return per_n


def gaussian_d(n, rng, r0, sigma_s=0.1, sigma_t=0.07, d=8, k=2):
    """Appendix D: label -1 inside the ellipse sum_{i<k} x_i^2 <= sigma_t^2 r0."""
    X = rng.normal(size=(n, d)) * sigma_s
    y = (np.sum(X[:, :k] ** 2, axis=1) > sigma_t**2 * r0).astype(int)
    return X**2, y  # the squared-feature map: ellipses are linear in it


def gaussian_d_target(n, rng, r0, sigma_s=0.1, sigma_t=0.07, d=8, k=2):
    scale = np.full(d, sigma_s)
    scale[:k] = sigma_t
    X = rng.normal(size=(n, d)) * scale
    y = (np.sum(X[:, :k] ** 2, axis=1) > sigma_t**2 * r0).astype(int)
    return X**2, y


def experiment_d(quick):
    alpha, eps, delta, local_eps = 0.08, 0.5, 1e-4, 0.5
    r0 = chi2.ppf(0.4, 2)
    c1 = chi2_plus_one(0.1, 0.07, 2)
    kappa = alpha / (4 * c1)
    rounds = 5 if quick else 10
    m1 = 300 if quick else 500
    sgd = PrivateSGDClassifier(
        loss="hinge", classes=[0, 1], bounds=(0.0, 0.09), n_epochs=20.0,
        sampling_rate=0.05,
    )  # fmt: skip
    clf = SubsampleTestReweighClassifier(
        sgd, alpha=alpha, epsilon=eps, delta=delta, kappa=kappa,
        local_epsilon=local_eps, max_iter=rounds, n_subsample=m1,
        random_state=0, verbose=1,
    )  # fmt: skip
    # The curator rows needed, from public parameters (what fit checks).
    settings = steps.learner_settings(sgd.get_params(), kappa, delta, rounds)
    learner_cost = steps.replace_one_cost(
        (settings["epsilon"], settings["delta"])
    )  # PrivateSGDClassifier states exactly its (epsilon, delta)
    n = steps.curator_rows_needed(learner_cost, m1, kappa, rounds, eps, delta)
    n0 = steps.agents_per_round(alpha, 0.1, rounds, local_eps, 0.0)
    paper_rounds = steps.default_rounds(alpha, c1 - 1, private=True)
    print(
        f"\nAppendix D (Alg. 2): chi2+1={c1:.3f}, kappa={kappa:.5f}, "
        f"T={rounds} rounds (Thm 4.3's T would be {paper_rounds}), m1={m1}; "
        f"Claim 4.1 + Thm 4.2 need n={n:,} curator rows (the paper used "
        f"324,700,000), N0={n0:,} agents per round"
    )
    rng = np.random.default_rng(0)
    X, y = gaussian_d(n, rng, r0)
    X_t, y_t = gaussian_d_target(n0 * rounds, rng, r0)
    X_test, y_test = gaussian_d_target(200_000, rng, r0)
    started = time.perf_counter()
    clf.fit(X, y, X_target=X_t, y_target=y_t)
    seconds = time.perf_counter() - started
    # For comparison, the SGD learner alone on m1 source rows at the same
    # replace-one eps (what round 1 is).
    rows = [[t + 1, f"{a:.4f}"] for t, a in enumerate(clf.history_["target_loss"])]
    print_table(
        "Private rounds: estimated 0-1 loss on T (a_t, from the agents' "
        f"randomized responses; halt at <= 3 alpha = {3 * alpha:.2f})",
        ["round", "a_t"],
        rows,
    )
    print_table(
        "Private result and privacy spent",
        ["n curator", "N agents used", "rounds", "halted", "err_T (200k test)",
         "curator (eps, delta)", "composed bound", "per round (Claim 4.1)",
         "per agent", "s"],
        [[
            f"{n:,}", f"{int(clf.history_['n_agents'].sum()):,}", clf.n_iter_,
            clf.halted_, f"{1 - clf.score(X_test, y_test):.4f}",
            f"({clf.privacy_spent_.epsilon:g}, {clf.privacy_spent_.delta:g})",
            f"({clf.curator_bound_.epsilon:.4f}, {clf.curator_bound_.delta:.2e})",
            f"({clf.round_privacy_.epsilon:.5f}, {clf.round_privacy_.delta:.2e})",
            f"({clf.local_privacy_.epsilon:g}, {clf.local_privacy_.delta:g})",
            f"{seconds:.0f}",
        ]],
    )  # fmt: skip
    print(
        f"  source-label minority share: S {np.mean(y == 0):.3f}, T "
        f"{np.mean(y_test == 0):.3f}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    seeds = range(5) if args.quick else range(20)
    print_environment()
    started = time.perf_counter()
    experiment_c(seeds, args.quick)
    experiment_d(args.quick)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
