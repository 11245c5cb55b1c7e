"""The steps of :class:`PrivateParameterSearch`'s fit around its one charge.

:class:`SearchStepsMixin` holds, before the charge, the checks of the public
labels (their format, and that each candidate's declared ``classes`` holds
them), free since they read public inputs only; and after it, the fits and the
selection: public selection here (every candidate fitted on all the private
rows and scored on the public labels), random stopping and exponential
selection handed to ``_private_fits.py``, and the ``cv_results_`` each one
fills in. The search itself provides ``_make``, ``_log`` and the parameters
read here.
"""

# SPDX-License-Identifier: BSD-3-Clause

import os
from functools import partial

import numpy as np
from joblib import Parallel, delayed
from sklearn.utils import check_array

from ._candidates import describe, fit_only
from ._private_fits import fit_exponential, fit_random_stopping

__all__ = ["SearchStepsMixin"]


class SearchStepsMixin:
    """Public-label checks before the charge; fits and selection after it.

    Mixed into :class:`PrivateParameterSearch`, whose ``fit`` calls them.
    """

    @staticmethod
    def _check_public_labels_format(X_pub, y_pub):
        """Public labels: 1-D, finite, one per public row; before any charge
        (they are scored only after the fits, which are charged)."""
        if y_pub is None:
            return None
        y_pub = check_array(y_pub, ensure_2d=False, dtype=None, input_name="y_public")
        if y_pub.ndim != 1:
            raise ValueError(
                f"y_public must be 1-dimensional, got shape {y_pub.shape}."
            )
        if X_pub is None or y_pub.shape[0] != np.shape(X_pub)[0]:
            n_pub = 0 if X_pub is None else np.shape(X_pub)[0]
            raise ValueError(
                f"y_public has {y_pub.shape[0]} labels for {n_pub} public rows."
            )
        return y_pub

    @staticmethod
    def _check_public_labels(probe, params, y_pub):
        """Every public label is among the candidate's declared ``classes``."""
        for key, value in probe.get_params(deep=True).items():
            if value is None or not (key == "classes" or key.endswith("__classes")):
                continue
            unknown = np.setdiff1d(np.asarray(y_pub), np.asarray(value))
            if unknown.size:
                raise ValueError(
                    f"y_public contains labels {unknown.tolist()} that are not "
                    f"in classes={np.asarray(value).tolist()} of the candidate "
                    f"{describe(params)}."
                )

    def _fit_public(self, candidates, classes, X, y, fit_params, X_pub, y_pub):
        """Fit every candidate on all private rows; score on public labels."""
        self._log(f"fitting {len(candidates)} candidates on the private rows")
        pid = os.getpid()
        fitted = Parallel(n_jobs=self.n_jobs)(
            delayed(fit_only)(self._make(params, classes), X, y, fit_params, pid)
            for params in candidates
        )
        # Post-processing: the fitted candidates scored on public rows.
        scores = np.array([est.score(X_pub, y_pub) for est in fitted])
        self.best_index_ = int(np.argmax(scores))
        self.best_score_ = float(scores[self.best_index_])
        self.best_estimator_ = fitted[self.best_index_]
        ranks = np.empty(len(scores), dtype=np.int32)
        ranks[np.argsort(-scores, kind="stable")] = np.arange(1, len(scores) + 1)
        self.cv_results_ = self._results(candidates, scores)
        self.cv_results_["rank_test_score"] = ranks

    def _fit_private(
        self, selection, candidates, classes, X, y, fit_params, score_epsilon
    ):
        """Random stopping or exponential selection (``_private_fits.py``).

        ``classes`` fills the candidates' open ``classes`` parameters in every
        run and the refit: the label set the search read once (see ``fit``).
        """
        make = partial(self._make, classes=classes)
        common = {
            "score_epsilon": score_epsilon,
            "n_jobs": self.n_jobs,
            "random_state": self.random_state,
            "log": self._log,
        }
        if selection == "exponential":
            found = fit_exponential(make, candidates, X, y, fit_params, **common)
        else:
            found = fit_random_stopping(
                make,
                candidates,
                X,
                y,
                fit_params,
                validation_fraction=self.validation_fraction,
                n_runs=self.n_runs,
                refit=self.refit,
                **common,
            )
        self.best_index_, self.best_score_, self.best_estimator_ = found
        scores = np.full(len(candidates), np.nan)
        scores[self.best_index_] = self.best_score_
        self.cv_results_ = self._results(candidates, scores)

    def _results(self, candidates, scores):
        results = {"params": candidates}
        names = sorted({k for p in candidates for k in p})
        for name in names:
            column = np.ma.MaskedArray(
                np.empty(len(candidates), dtype=object),
                mask=[name not in p for p in candidates],
            )
            for i, p in enumerate(candidates):
                if name in p:
                    column[i] = p[name]
            results[f"param_{name}"] = column
        results["mean_test_score"] = scores
        results["selected"] = np.arange(len(candidates)) == self.best_index_
        return results
