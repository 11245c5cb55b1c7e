"""PublicAssistedQueryRelease's fit: APAP (Bassily et al. 2020, Alg. 3) and PMW^Pub.

Private query release assisted by public data. ``support="representative"`` is
APAP exactly: a cover ``H~`` of the query class from the distinct public points
(steps 1-2), the representative domain ``X_H~`` (Definition 2), private points
mapped to their representatives, offline Private Multiplicative Weights over
``(H~, X_H~)`` (Lemma 7), and every query answered by its projection onto ``H~``.
``support="public"`` runs MWEM-style rounds over the public points themselves
(PMW^Pub, Liu et al. 2021), which scales to domains far too large for APAP
(the public part of both: ``_pmw_release.py``);
with ``selection="all"`` it measures every query once and fits the public
points' distribution to the measurements (``_measure.py``). Given private
labels ``y``, ``support="public"`` releases labeled rows (``_labeled.py``).
``support="graphical"`` and ``support="mixture"`` (marginal workloads) run
AIM-style adaptive rounds of whole-marginal Gaussian measurements and fit a
graphical model over a pair model of the public rows (``_graphical.py``),
or a mixture of product distributions started at the public rows
(``_mixture.py``); the rounds are in ``_adaptive.py``.

The estimator class (its parameters, documentation and ``fit``) is in
``_public_assisted.py``; what its ``fit`` runs is here, in the mixin
``_ReleaseFit``: the public plans and size limits, the reservation before
the first private read, the private runs of APAP and PMW^Pub (the tests patch
``noise_rng`` and ``mwem_rounds`` on this module), and the cost stated from
the parameters alone.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from .._public import check_public_data, column_names, declared_label_set
from ..accounting import PrivacyCost
from ..accounting._reservation import reserve_budget
from ..classifiers._base import check_label_kinds, check_private_labels, label_kind
from ..utils._private_errors import call_on_private
from ..utils._rng import noise_rng
from ..utils._sklearn_compat import validate_data
from ._adaptive import fit_mixture, plan_mixture, zcdp_budget, zcdp_privacy
from ._labeled import (
    check_private_label_format,
    joint_points,
    label_set,
    labeled_support,
)
from ._measure import measure_all_cost, plan_measure_all, run_measure_all
from ._options import ADAPTIVE_SUPPORTS, check_release_options, mixture_refusal
from ._pmw import mwem_rounds, sparse_vector_pmw
from ._pmw_budget import mwem_round_parameters, sparse_vector_pmw_parameters
from ._pmw_release import plan_public, plan_representative

__all__ = []


def check_label_column(workload, n_columns, n_classes):
    """A categorical workload's label column (the last) has one code per class.

    For the supports that model the whole declared domain ("mixture",
    "graphical"): a wider column was fitted and charged, and gave mass to
    label codes no class has, which ``sample`` could not map back (a
    review). A narrower one is refused by the public support's codes, and
    the public support's points hold real codes only. Public: the workload
    and ``classes``.
    """
    cards = getattr(workload, "_cards", None)
    if cards is None:
        return
    n_codes = int(cards(n_columns)[-1])
    if n_codes != n_classes:
        raise ValueError(
            f"In a labeled release the workload's last column is the label: it "
            f"has n_categories={n_codes}, but there are {n_classes} classes. "
            "Give the label column exactly one category per class."
        )


class _ReleaseFit:
    """What ``PublicAssistedQueryRelease.fit`` runs, and its stated cost (a mixin)."""

    def _fit(self, X, y, X_public, y_public):
        names = column_names(X)  # any labels: feature_names_in_ has strings only
        # Format checks only; their messages quote no private value.
        X = call_on_private(
            validate_data, self, X, reset=True, dtype=np.float64, what="the private X"
        )
        labeled = y is not None
        # A parameter, checked even where unused (an unlabeled fit): a review
        # found an invalid one ignored without a word.
        declared = None if self.classes is None else declared_label_set(self.classes)
        if labeled:
            y_kind = label_kind(y)  # a pandas column's declared type
            y = check_private_label_format(y, X.shape[0])
        Xp, yp = check_public_data(
            X_public,
            y_public if labeled else None,
            n_features=X.shape[1],
            feature_names=names,
            classes=declared if labeled else None,
            required=True,
        )
        workload = self.queries
        support = self._resolved_support()
        if labeled and declared is None and yp is None and support in ADAPTIVE_SUPPORTS:
            # These supports build the label column's domain, and check it
            # against the workload, before the charge: with a label set read
            # off y, those checks quoted the private number of labels for
            # free, even on a spent ledger (a review).
            raise ValueError(
                f"A labeled release with support={support!r} needs a public "
                "label set: pass classes= or public labels (PublicData(X_pub, "
                "y_pub)). (support='public' can read it off y, with a "
                "PrivacyLeakWarning.)"
            )
        if labeled:
            # The label set from public sources (or, with a leak warning, y).
            classes = label_set(declared, yp, y)
            # hint=False: the meta-estimators' label coding is a classifier's.
            check_label_kinds(y, classes, kind=y_kind, hint=False)
            points, init = labeled_support(
                Xp, None if yp is None else np.searchsorted(classes, yp), classes.size
            )
            # The label codes of the support are checked against the
            # workload's domain too: all public.
            points = workload._check_points(points, "X_public (with the labels)")
            query_set = workload._bind(X.shape[1] + 1)
        else:
            Xp = workload._check_points(Xp, "X_public")
            query_set = workload._bind(X.shape[1])
            # Alg. 3 step 1: the distinct public points (and their multiplicities).
            points, counts = np.unique(Xp, axis=0, return_counts=True)
            init = counts.astype(np.float64)
        if query_set.n_queries == 0:
            raise ValueError("The workload is empty: it holds no query.")
        n = X.shape[0]
        if labeled and support in ADAPTIVE_SUPPORTS:
            check_label_column(workload, X.shape[1] + 1, classes.size)
        # Everything that depends on public data only, and every size limit,
        # before the accountant is checked and before any private read.
        if support == "representative":
            plan = plan_representative(self, workload, query_set, points)
        elif support in ADAPTIVE_SUPPORTS:
            plan = plan_mixture(
                query_set,
                points,
                init,
                epsilon=self.epsilon,
                delta=self.delta,
                n_rounds=self.n_iterations,
                random_state=self.random_state,
                estimator=support,
            )
        elif self.selection == "all":
            plan = plan_measure_all(
                query_set,
                points,
                init,
                n,
                epsilon=self.epsilon,
                delta=self.delta,
                measurement=self.measurement,
                n_iterations=self.n_iterations,
                regularization=self.regularization,
            )
        else:
            plan = plan_public(self, query_set, points, init, n)
        # Reserved atomically before the first private read, and kept if the
        # fit fails afterwards: the stated cost, at least what the plan spends
        # (privacy_spent_).
        reserve_budget(self.accountant, self._stated_cost(support), self)
        # Private rows inside the workload's domain, a question the (public)
        # workload chooses: asked after the charge, so that it is no free
        # oracle. The message names no row, no value, no count.
        if labeled:
            # So is "every private label is in classes" (a parameter).
            check_private_labels(y, classes, hint=False)
            # One private row (x, y) is one row (x, code) of the joint
            # dataset: replacing it moves every query answer on the joint
            # domain by at most 1/n, the sensitivity the mechanisms assume.
            X = joint_points(X, np.searchsorted(classes, y))
        X = workload._check_points(X, "X")
        # Every draw below is privacy noise: fresh, never from random_state.
        rng = noise_rng(self.random_state)
        if support == "representative":
            self._fit_representative(plan, X, n, rng)
        elif support in ADAPTIVE_SUPPORTS:
            for name, value in fit_mixture(plan, query_set, X, rng).items():
                setattr(self, name, value)
        elif self.selection == "all":
            for name, value in run_measure_all(plan, query_set, X, n, rng).items():
                setattr(self, name, value)
        else:
            self._fit_public(plan, query_set, X, n, rng)
        self.support_type_ = support
        if labeled and support in ADAPTIVE_SUPPORTS:
            self.classes_ = classes
        elif labeled:
            self.classes_ = classes
            codes = self.support_[:, -1].astype(np.intp)
            self.support_ = self.support_[:, :-1]
            self.support_labels_ = classes[codes]
        self.answers_ = self._answer(query_set, plan.get("member"))

    def _privacy_neighbours(self, **fit_params):
        """The neighbours ``_privacy_cost`` holds for (docs/privacy.rst).

        add/remove for the adaptive supports (``replace_one_privacy_`` gives
        replace-one), replace-one for the others.
        """
        if self._resolved_support() in ADAPTIVE_SUPPORTS:
            return "add/remove"
        return "replace-one"

    def _privacy_cost(self, **fit_params):
        """What ``fit`` reserves, from the parameters alone.

        It lets :class:`~sklearn_semiprivate.pipeline.PublicFittedPipeline` and
        the searches charge for a release before any private row is
        transformed. The same functions as the plans of ``fit`` compute it.
        """
        check_release_options(self, labeled=False)
        return self._stated_cost(self._resolved_support())

    def _stated_cost(self, support):
        """The cost ``fit`` reserves for ``support``: at least ``privacy_spent_``.

        With ``support="public"`` (rounds) or ``"representative"`` and
        ``n_iterations=None``, the number of rounds or updates is chosen from
        the data (the row count, the public cover), so the plan's own cost is
        known only during a fit. Every number of them stays within
        ``(epsilon, delta)`` by construction (:func:`mwem_round_parameters`,
        :func:`sparse_vector_pmw_parameters`), and that bound is what is
        reserved; ``privacy_spent_`` holds the plan's exact cost.
        """
        if support in ADAPTIVE_SUPPORTS:
            return zcdp_privacy(zcdp_budget(self.epsilon, self.delta), self.delta)
        if support == "public" and self.selection == "all":
            return measure_all_cost(self.epsilon, self.delta, self.measurement)
        if self.n_iterations is None:
            return PrivacyCost(float(self.epsilon), float(self.delta))
        if support == "representative":
            return sparse_vector_pmw_parameters(
                self.epsilon, self.delta, self.n_iterations
            )[1]
        return mwem_round_parameters(
            self.epsilon,
            self.delta,
            self.n_iterations,
            selection=self.selection,
            measurement=self.measurement,
        )["cost"]

    def _resolved_support(self):
        """``support`` with ``"auto"`` resolved, from the parameters alone.

        ``"auto"`` is ``"graphical"`` whenever its parameters allow it
        (:func:`mixture_refusal`), else ``"public"`` (measured ahead of
        ``"representative"`` wherever both ran; see Notes).
        """
        if self.support != "auto":
            return self.support
        allowed = mixture_refusal(self, "graphical") is None
        return "graphical" if allowed else "public"

    def _fit_representative(self, plan, X, n, rng):
        cover, reps, support = plan["cover"], plan["reps"], plan["support"]
        # Alg. 3 step 3: each private row replaced by its representative. A
        # changed row changes one representative: the histogram moves by one
        # count in two cells, every cover answer by at most 1/n.
        counts = np.bincount(plan["class_map"](X), minlength=reps.shape[0])
        # The cover's exact answers on the private representatives; read only by
        # the mechanisms inside sparse_vector_pmw (sensitivity 1/n each).
        true_answers = cover.weighted_sums(reps, counts / n)
        # Alg. 3 step 4: offline PMW over (H~, X_H~), at accuracy alpha / 2.
        self.n_updates_ = sparse_vector_pmw(
            support,
            true_answers,
            n,
            epsilon0=plan["eps0"],
            alpha=plan["alpha_pmw"],
            n_updates=plan["c"],
            rng=rng,
        )
        support.refresh()
        self.cover_ = cover
        self._public_points = plan["distinct"]
        self._cover_answers = np.clip(support.answers, 0.0, 1.0)
        self.cover_size_ = cover.n_queries
        self.support_ = reps
        self.weights_ = support.weights
        self.n_iterations_ = plan["c"]
        self.epsilon0_ = plan["eps0"]
        self.rho_ = None
        self.privacy_spent_ = plan["cost"]

    def _fit_public(self, plan, query_set, X, n, rng):
        support, params = plan["support"], plan["params"]
        # The workload's exact answers on the private rows; read only by the
        # selection (sensitivity 1 on counts) and measurement (sensitivity 1/n)
        # mechanisms inside mwem_rounds.
        true_answers = query_set.answers(X)
        self.selected_ = mwem_rounds(
            support,
            true_answers,
            n,
            n_rounds=plan["t"],
            params=params,
            selection=self.selection,
            measurement=self.measurement,
            rng=rng,
        )
        self.cover_size_ = query_set.n_queries
        self.support_ = support.points
        self.weights_ = support.weights
        self.n_iterations_ = plan["t"]
        self.n_updates_ = plan["t"]
        self.rho_ = params["rho"]
        self.privacy_spent_ = plan["cost"]
