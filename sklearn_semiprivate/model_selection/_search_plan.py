"""The public side of :class:`PrivateParameterSearch`: its plan and its cost.

:class:`SearchPlanMixin` works out, from the search's parameters and its
public inputs alone, the selection it will run, its candidates and each one's
checked cost (``_plan``), the whole cost (``_total``), and the label set that
fills the candidates' open ``classes`` (``_label_set``). The same plan is what
``fit`` reserves and what ``_privacy_cost`` states to an estimator nesting the
search (a pipeline's last step, an active classifier's base learner), before
any private read.
"""

# SPDX-License-Identifier: BSD-3-Clause

from collections import namedtuple

import numpy as np

from .._public import PublicData, declared_classes, open_classes, resolve_classes
from ..pipeline._checks import unwrap_public
from ._candidates import checked_cost, is_sampled
from ._private_fits import search_cost

__all__ = ["SearchPlanMixin"]

# The public side of a fit: what ``_plan`` returns.
_Plan = namedtuple("_Plan", "selection candidates fit_params costs relations")


class SearchPlanMixin:
    """The plan and the cost of a search, from public inputs.

    Mixed into :class:`PrivateParameterSearch`, which provides ``_candidates``,
    ``_make``, ``_check_public_labels_format`` and the parameters read here.
    """

    def _plan(self, X_pub, y_pub):
        """The selection, the candidates and every cost, from public inputs.

        A function of the parameters and of which public inputs the fit gets
        (public labels decide ``"auto"``), so that ``fit`` and an estimator
        nesting the search (a pipeline's last step, an active classifier's
        base learner) reserve the same cost before any private read.
        """
        selection = self.selection
        if selection == "auto" and y_pub is not None:
            selection = "public"
        if selection == "public" and y_pub is None:
            raise ValueError(
                "selection='public' needs public labels: pass "
                "X_public=PublicData(X_pub, y_pub)."
            )
        fit_params = {} if X_pub is None else {"X_public": PublicData(X_pub)}
        candidates = self._candidates()
        # Every candidate's parameters checked, then its cost, a function of
        # them (not of its label set, which the fit fills in later).
        checked = [
            checked_cost(self._make(params), params, fit_params)
            for params in candidates
        ]
        costs = [cost for cost, _ in checked]
        relations = [relation for _, relation in checked]
        if selection == "auto":
            # No public labels: random stopping, whose cost does not grow with
            # the grid, unless a candidate has delta > 0, which it cannot take.
            approximate = any(c.delta > 0 for c in costs)
            selection = "exponential" if approximate else "random_stopping"
        return _Plan(selection, candidates, fit_params, costs, relations)

    def _total(self, plan):
        """``(total, relation, replace_one, score_epsilon)`` of ``plan``
        (``search_cost``); its refusals (``delta > 0`` for random stopping, a
        restricted relation) come after the candidates' format checks."""
        return search_cost(
            plan.selection,
            plan.costs,
            plan.relations,
            None,
            self.score_epsilon,
            refit=self.refit,
        )

    def _label_set(self, selection, candidates, y, y_pub):
        """What fills the candidates' open ``classes`` parameters, or None.

        ``classes``; else, with public selection, the public labels' set.
        Private selection: a candidate with an open classes parameter would
        read it off the rows each run is fitted on (random stopping's secret
        parts: a part missing a label failed its run, an event one row
        decided, a review found), and nested inside a meta-estimator it would
        do so after the dry run stops, unwarned. So the search reads it, once,
        and warns.
        """
        if self.classes is not None:
            declared_classes(self)  # a different set declared inside: an error
            classes = resolve_classes(self.classes, None, None)
        elif selection == "public":
            return np.unique(np.asarray(y_pub))
        elif any(open_classes(self._make(params)) for params in candidates):
            classes = resolve_classes(None, None, y)
        else:
            return None
        if classes.size < 2:
            # As a candidate's own fallback: the message names no label.
            raise ValueError(
                "A classifier needs at least two classes, and the label set "
                + (
                    "classes= "
                    if self.classes is not None
                    else "read from the private labels (no classes= and no "
                    "public labels) "
                )
                + "holds only one class. Pass classes=... listing every "
                "possible label."
            )
        return classes

    def _privacy_cost(self, X_public=None, y_public=None, **fit_params):
        """What ``fit`` reserves, from the parameters and the public inputs.

        Public labels (in ``X_public`` or ``y_public``) make ``"auto"`` the
        public selection; other fit arguments are not taken by the search and
        change nothing.
        """
        return self._total(self._public_plan(X_public, y_public))[0]

    def _privacy_neighbours(self, X_public=None, y_public=None, **fit_params):
        """The neighbours ``_privacy_cost`` holds for (see Notes)."""
        return self._total(self._public_plan(X_public, y_public))[1]

    def _public_plan(self, X_public, y_public):
        self._validate_params()
        if self.random_state is None and is_sampled(
            self.param_distributions, self.n_candidates
        ):
            # Each fit would draw other candidates than the ones costed here.
            raise ValueError(
                "A search whose candidates are drawn (distributions, or "
                "n_candidates) states its cost before its fit only for a fixed "
                "draw: pass an int random_state to the search when it is nested "
                "(a pipeline's last step, a base learner, a candidate)."
            )
        if X_public is not None and not isinstance(X_public, PublicData):
            # The fit warns about a raw array; stating its cost does not.
            X_public, y_public = PublicData(X_public, y_public), None
        X_pub, y_pub = unwrap_public(X_public, y_public)
        return self._plan(X_pub, self._check_public_labels_format(X_pub, y_pub))
