"""What a LabelBoostClassifier fit works out before its first private read.

:class:`LabelBoostPlanMixin` holds the checks of the label set (two classes,
none of them the ``-1`` that marks unlabeled rows) and of the class whose
dichotomies Alg. 2 enumerates, the base learner's replace-one cost (Lemma
4.6's premise), the schedule of Alg. 3 from the public counts of labeled and
unlabeled rows (or a ``ValueError`` naming the rows it needs), and the
guarantee of Theorems 4.13-4.14 with its neighbour relation: public
parameters and counts only, all before the charge. The privacy constants are
read from ``_labelboost_steps`` at call time, so the tests' mutants patch one
place.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from sklearn.base import clone

from .._public import declared_classes
from ..accounting._reservation import (
    probe_on_placeholders,
    replace_one_base_cost,
)
from ..hypotheses import PartitionLabelings
from ..utils._nested_fit import dropped_warnings
from . import _labelboost_steps as steps
from ._bounds import base_read_refused
from ._labelboost_steps import labelboost_privacy_cost, labelboost_schedule

__all__ = ["LabelBoostPlanMixin"]

_TINY = float(np.finfo(np.float64).smallest_subnormal)
# Placeholder points a relabeling class must cover (see _check_before_charge).
_EXTREME_VALUES = np.array(
    [np.finfo(np.float64).max, -np.finfo(np.float64).max, 1e39, -1e39, _TINY, -_TINY]
)

# The semi-supervised convention of scikit-learn: y == -1 marks unlabeled rows.
_UNLABELED = -1


class LabelBoostPlanMixin:
    """Label set, relabeling class, schedule and costs: public work only.

    Mixed into :class:`LabelBoostClassifier`, whose ``fit`` calls them before
    the charge (and whose ``_privacy_cost`` a search or a pipeline reserves).
    """

    def _check_classes(self, classes, quote_size=True):
        """Two classes, none of them -1; ``quote_size=False`` when read off
        the private labels (the count of distinct private labels is private)."""
        if classes.size != 2:
            size = (
                f"the label set has {classes.size} classes"
                if quote_size
                else (
                    "the label set read from the private labels (no classes= and "
                    "no public labels) does not have two classes"
                )
            )
            raise ValueError(
                "Only binary classification is supported by LabelBoostClassifier "
                f"(dichotomies, Alg. 2); {size}. Pass classes=[a, b]."
            )
        if np.any(np.asarray(classes.astype(object) == _UNLABELED, dtype=bool)):
            raise ValueError(
                "-1 marks unlabeled rows and cannot be a class (labels in "
                "{-1, +1} would make every -1 row unlabeled); relabel the "
                "classes (e.g. to 0/1), in y, classes= and y_public alike."
            )
        return classes

    def _relabeling_class(self, n_features):
        """The class whose dichotomies Alg. 2 enumerates."""
        spec = self.hypothesis_class
        if isinstance(spec, str):
            if n_features != 1:
                raise ValueError(
                    f"LabelBoostClassifier's hypothesis_class={spec!r} (the class "
                    "whose dichotomies it enumerates; 'thresholds' is its "
                    "default) is a 1-D class: X must have one feature, got "
                    f"{n_features}. For several features pass a class object, "
                    "e.g. hypothesis_class=hypotheses.DecisionStumps(), with "
                    "vc_dim=."
                )
            return steps._BUILTIN_CLASSES[spec]()
        if isinstance(spec, PartitionLabelings) and isinstance(spec.partitioner, str):
            # Alg. 2 enumerates the labelings of S ∘ T by a class C fixed in
            # advance (Lemma 4.6 compares the dichotomies of neighbouring
            # samples under the same C). These cells would be fitted on the
            # private points themselves, so one point could move them all.
            raise ValueError(
                f"PartitionLabelings({spec.partitioner!r}) fits its cells on the "
                "points it covers, which are private here: it is not a class "
                "fixed in advance, as LabelBoost's relabeling needs. Fit a "
                "partitioner on public rows and pass it, e.g. "
                "PartitionLabelings(DecisionTreeClassifier(max_leaf_nodes=8)"
                ".fit(X_pub, y_pub)), or use another class."
            )
        return clone(spec)

    def _check_before_charge(self, hypothesis_class, n_features, n_base, classes, kw):
        """What fails on data of this format, on placeholder rows (free).

        The relabeling class covers one placeholder point, and the base
        learner is fitted on ``n_base`` placeholder rows, as in step 5, up to
        its reservation: alone, either would refuse such data for free (a
        review found a base with a 1-D class on 2 features charged first).
        """
        try:
            with dropped_warnings():
                clone(hypothesis_class).cover(np.zeros((1, n_features)), classes)
        except Exception as exc:
            raise ValueError(
                f"hypothesis_class {type(hypothesis_class).__name__} cannot cover "
                f"points of {n_features} features (checked on a placeholder point, "
                f"before any private read): {exc}"
            ) from exc
        # Step 2d covers the private points of S o T: a class that fails on
        # some finite point would make the fit fail, after its charge, on a
        # dataset holding one such row and not on its neighbour (a review:
        # a tree's float32 cast of 1e39). Probed on extreme finite
        # placeholders; any finite point cannot be probed, and the docs say so.
        # Each value twice: a class that sums its points (a partition's cell
        # means) must not overflow either (a second review).
        extremes = np.repeat(np.repeat(_EXTREME_VALUES, 2)[:, None], n_features, 1)
        try:
            with dropped_warnings():
                clone(hypothesis_class).cover(extremes, classes)
        except Exception as exc:
            raise ValueError(
                f"hypothesis_class {type(hypothesis_class).__name__} fails on "
                "extreme finite points (±1.8e308, ±1e39, subnormals; checked "
                "on placeholders, before any private read). It covers the "
                "private points of S ∘ T, where one such row would make the fit "
                "fail after its charge. Use a class that takes every finite "
                "point, or clip the rows into a public range first."
            ) from exc
        rng = np.random.default_rng(0)  # placeholders: nothing secret
        probe = self._base_estimator(clone(self.estimator), classes, rng, {})
        refused = base_read_refused("its private rows (step 5)", charged=False)
        probe_on_placeholders(probe, n_base, n_features, classes, refused=refused, **kw)

    def _declared_classes(self):
        """``classes``, else the label set declared in the base learner,
        however deep (both public); two different ones are an error."""
        return declared_classes(self)

    def _base_cost(self, **fit_params):
        """The base learner's replace-one cost, or a TypeError naming what is
        missing.

        Lemma 4.6 needs a base learner private for replace-one neighbours of
        its sample: its stated cost when that holds for replace-one (or both),
        else the group-privacy doubling of it (an add/remove learner such as
        the tree or the logistic regression; a review found the add/remove
        epsilon checked against Lemma 4.6's bound of 1).
        """
        return replace_one_base_cost(
            "LabelBoostClassifier", self.estimator, **fit_params
        )

    def _n_base(self, n_unlabeled):
        if self.n_base is not None:
            return self.n_base
        n = math.floor(n_unlabeled / self.pool_factor)
        if n < 1:
            raise ValueError(
                f"n_base=None takes n = n_unlabeled // pool_factor (the paper's "
                f"pool of {self.pool_factor:g} n unlabeled rows), but there are "
                f"{n_unlabeled} unlabeled rows. Pass n_base=... (the base "
                "learner's sample complexity) or more unlabeled rows."
            )
        return n

    def _schedule(self, n_labeled, n_unlabeled):
        """The whole schedule from public counts, or a ValueError naming needs."""
        q = steps._subsample_rate(self.epsilon)
        m, u = math.floor(q * n_labeled), math.floor(q * n_unlabeled)
        n = self._n_base(n_unlabeled)
        params = {
            "vc_dim": self._relabeling_class_vc(),
            "alpha": self.alpha,
            "beta": self.beta,
            "growth_denominator": self.growth_denominator,
            "batch_factor": self.batch_factor,
        }
        try:
            schedule = labelboost_schedule(m, u, n_base=n, **params)
        except steps._ScheduleError as exc:
            need_m, need_u = steps._minimum_labeled(n, **params)
            raise ValueError(
                f"LabelBoost cannot run on {n_labeled} labeled and {n_unlabeled} "
                f"unlabeled rows ({exc}). With n_base={n} it needs at least "
                f"{math.ceil(need_m / q)} labeled rows and "
                f"{math.ceil(need_u / q)} unlabeled rows"
                + (f" (epsilon={self.epsilon:g} keeps a {q:.4g} fraction, "
                   "Claim 4.3)" if q < 1 else "")
                + f", or {math.ceil(steps._FINAL_KEEP * n / q)} labeled rows and no "
                "round. The deletion fractions are privacy steps; the growth "
                "constants (growth_denominator, batch_factor) only drive "
                "utility."
            ) from None  # fmt: skip
        if schedule.base_rows < 1:
            raise ValueError(
                f"LabelBoost keeps 1/{steps._FINAL_KEEP} of the labeled rows for the "
                f"base learner (Alg. 3 step 3): {m} rows leave none."
            )
        return schedule

    def _relabeling_class_vc(self):
        """VC dimension of the relabeling class, for step 2b."""
        if self.vc_dim is not None:
            return self.vc_dim
        if isinstance(self.hypothesis_class, str):
            return steps._BUILTIN_VC[self.hypothesis_class]
        raise ValueError(
            "vc_dim is required with a custom hypothesis_class: step 2b's "
            "batch size depends on the VC dimension."
        )

    def _privacy_neighbours(self, **fit_params):
        """The neighbours ``_privacy_cost`` holds for: ``"restricted"``.

        Theorem 4.13 covers a labeled row replaced by a labeled one, or an
        unlabeled by an unlabeled one; the number of labeled rows is public
        (``labeled_sizes_``), so a labeled row replaced by an unlabeled one is
        not covered at any cost.
        """
        return "restricted"

    def _privacy_cost(self, **fit_params):
        """Theorem 4.13/4.14's guarantee, from the parameters alone."""
        cost = labelboost_privacy_cost(self._base_cost(**fit_params), self.epsilon)
        if self.delta is not None and cost.delta > self.delta:
            raise ValueError(
                f"The guarantee's delta {cost.delta:.3g} (Lemma 4.6: 41 times the "
                "base learner's delta) exceeds delta="
                f"{self.delta:g}. Lower the base learner's delta."
            )
        return cost
