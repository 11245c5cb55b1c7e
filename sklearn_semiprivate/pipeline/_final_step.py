"""The public-fitted pipeline's last step: its checks, parameters and charge.

:class:`FinalStepMixin` holds what :class:`PublicFittedPipeline` does about its
last step before any private row is transformed: the checks of the steps, the
last step's fit parameters (routed, or given as ``<last step>__<param>``, with
private rows refused), its cost and neighbour relation (the transformers are
free), the probe of a clone up to its reservation, which raises for free what
the step alone would refuse before charging, and the charge on its ledger.
``_SKIPPED`` holds the values that mark a step as skipped, and
``_clip_overflow`` keeps what a transformer overflowed at the largest float
before the last step gets it.
"""

# SPDX-License-Identifier: BSD-3-Clause

import inspect

import numpy as np
from scipy.sparse import issparse
from sklearn import get_config
from sklearn.base import clone
from sklearn.utils.metadata_routing import process_routing

from .._public import PublicData, check_public_data
from ..accounting._reservation import (
    accountant_keys,
    fit_cost,
    fit_neighbours,
    fit_to_reservation,
    name_ledgers_again,
    reserve_on_ledgers,
)
from ..utils._nested_fit import dropped_warnings, quiet
from ._checks import _shape

__all__ = ["FinalStepMixin"]

_SKIPPED = (None, "passthrough")


def _clip_overflow(Xt):
    """``Xt`` with +-inf at the largest float of its sign, in its container.

    Row by row and data-independent: a finite private row a transformer
    overflowed to +-inf is kept at the largest float (the last step clips it
    into the public geometry), so whether the fit fails does not depend on how
    far out a private row lies. NaN is left alone: it may be a transformer's
    "missing" for the next step to impute (see :doc:`/limitations`). Float
    arrays, the float columns of a pandas or polars DataFrame
    (``set_output``) and a sparse matrix's stored values; the container is
    kept (a review: pandas output skipped the clipping, so one private row
    at 1e306 made the fit fail after the charge).
    """
    if isinstance(Xt, np.ndarray):
        return _clip_array(Xt) if Xt.dtype.kind == "f" else Xt
    if issparse(Xt):
        if Xt.dtype.kind != "f":
            return Xt
        Xt = Xt.copy()
        Xt.data = _clip_array(Xt.data)
        return Xt
    module = type(Xt).__module__.partition(".")[0]
    if module == "pandas" and getattr(Xt, "ndim", 0) == 2:
        floats = [j for j, dtype in enumerate(Xt.dtypes) if dtype.kind == "f"]
        values = Xt.iloc[:, floats].to_numpy(dtype=np.float64, na_value=np.nan)
        if not np.isinf(values).any():
            return Xt  # the usual case, checked in one pass (no copy)
        Xt = Xt.copy()
        for j in floats:  # numpy and nullable floats, by position
            dtype = Xt.dtypes.iloc[j]
            big = np.finfo(getattr(dtype, "numpy_dtype", dtype)).max
            Xt.isetitem(j, Xt.iloc[:, j].clip(-big, big))
        return Xt
    if module == "polars":
        import polars as pl

        return Xt.with_columns(
            [
                pl.col(name).clip(-_big(dtype), _big(dtype))
                for name, dtype in Xt.schema.items()
                if dtype.is_float()
            ]
        )
    return Xt


def _clip_array(Xt):
    big = np.finfo(Xt.dtype).max
    return np.where(np.isposinf(Xt), big, np.where(np.isneginf(Xt), -big, Xt))


def _big(polars_dtype):
    """The largest float of a polars float dtype."""
    bits = 32 if str(polars_dtype) == "Float32" else 64
    return float(np.finfo(f"float{bits}").max)


class FinalStepMixin:
    """The last step's checks, fit parameters, cost and charge.

    Mixed into :class:`PublicFittedPipeline` (a ``_BaseComposition``: its
    ``_validate_names`` checks the step names); reads ``steps``.
    """

    def _validate_steps(self):
        if not self.steps:
            raise ValueError("The pipeline is empty: give at least its last step.")
        self._validate_names([name for name, _ in self.steps])
        for name, step in self.steps[:-1]:
            if step in _SKIPPED:
                continue
            if not hasattr(step, "transform") or not (
                hasattr(step, "fit") or hasattr(step, "fit_transform")
            ):
                raise TypeError(
                    f"Step {name!r} must be a transformer (fit and transform) or "
                    f"'passthrough'; got {step!r}."
                )
        name, final = self.steps[-1]
        fit = getattr(final, "fit", None)
        params = {} if fit is None else inspect.signature(fit).parameters
        if "X_public" not in params and not any(
            p.kind is p.VAR_KEYWORD for p in params.values()
        ):
            raise TypeError(
                f"The last step {name!r} must be a semi-private estimator whose fit "
                f"accepts X_public; got {final!r}."
            )

    def _final_and_params(self, fit_params):
        """The last step and its fit parameters, given as such or as
        ``<last step>__<param>``; only which ones are present matters.

        The public rows are passed on as given: the last step gets them
        transformed, row for row, so whether there are public rows and
        labels is the same (a search's selection depends on the labels).
        """
        name, final = self.steps[-1]
        prefix = f"{name}__"
        params = {
            k[len(prefix) :] if k.startswith(prefix) else k: v
            for k, v in fit_params.items()
        }
        return final, params

    def _privacy_neighbours(self, **fit_params):
        """The last step's neighbour relation (the transformers are free)."""
        final, params = self._final_and_params(fit_params)
        return fit_neighbours(final, **params)

    def _privacy_cost(self, **fit_params):
        """What ``fit`` reserves: the last step's cost (the transformers are free)."""
        final, params = self._final_and_params(fit_params)
        return fit_cost(final, **params)

    @staticmethod
    def _check_final_before_charge(final, X, y, Xpt, yp, final_params, transformed):
        """Fit a clone of the last step up to its reservation, which stops it.

        Its input is the private labels and a placeholder of the transformed
        rows (zeros, the transformed public rows' width, one row per private
        row): up to its reservation a fit of this package reads the format of
        ``X`` and ``y`` only, and the private rows are transformed only after
        the charge. An error raised here is the one the last step alone
        would raise before charging anything. With no transformer the
        probe gets ``X`` itself (the last step's input), and no
        ``X_public`` when there are no public rows.
        """
        public = {} if Xpt is None else {"X_public": PublicData(Xpt, yp)}
        if not transformed:
            # No transformer: the last step gets X itself, so it is probed
            # with X, and refuses here, free, exactly what it refuses alone
            # before its reservation (NaN, strings, sparse rows, no public
            # rows; a review found them charged first).
            rows = X
        elif Xpt is None:
            # Transformers fitted on private rows (fit_on_private="warn"): the
            # width is known only after the charge, so the step cannot be
            # probed; its refusal for want of public rows needs no width (a
            # review found it charged first).
            if getattr(final, "_requires_public_data", False):
                check_public_data(None, n_features=0, required=True)
            return
        else:
            # The transformed private rows will take as much memory after
            # the charge: the placeholder does not raise the fit's peak.
            rows = np.zeros((_shape(X, "X")[0], np.shape(Xpt)[1]))
        # Its warnings and its progress output come again from the real fit.
        with dropped_warnings():
            fit_to_reservation(quiet(clone(final)), rows, y, **public, **final_params)

    @staticmethod
    def _reserve_final(final, final_params, public):
        """Charge the last step's ledger before any private row is transformed.

        The last step's cost is a function of its public parameters and of
        which inputs its fit gets (:func:`~sklearn_semiprivate.accounting.
        _reservation.fit_cost`: ``final_params`` and ``public``, the
        transformed public rows or None), so the pipeline reserves it on the
        step's accountant itself, then fits a clone whose ledgers are
        cleared, which does not charge again. Returns that clone; it names
        its ledgers again after the fit (:meth:`_name_inner_ledgers`).
        """
        keys = accountant_keys(final)
        params = final.get_params(deep=True)
        named = {k: params[k] for k in keys if params[k] is not None}
        if not named:
            return final
        # Its parameters are checked first (free): a bad one must not cost.
        if hasattr(final, "_parameter_constraints"):
            final._validate_params()
        # Every ledger is checked before any is charged: the usual refusal
        # charges none.
        inputs = {**final_params, **({} if public is None else {"X_public": public})}
        reserve_on_ledgers(named.values(), fit_cost(final, **inputs), final)
        return final.set_params(**dict.fromkeys(named, None))

    def _name_inner_ledgers(self):
        """The fitted last step names its ledgers again, at every depth.

        They were cleared for its fit, which the pipeline charged; a refit of
        it, or of a clone of it, on private rows charges them, as the step
        would (:func:`~sklearn_semiprivate.accounting._reservation.
        name_ledgers_again`).
        """
        if hasattr(self, "steps_"):
            name_ledgers_again(self.steps_[-1][1], self.steps[-1][1])

    def _final_fit_params(self, params):
        """Fit parameters of the last step, routed or as ``<last>__<param>``."""
        final_name = self.steps[-1][0]
        if get_config()["enable_metadata_routing"]:
            out = process_routing(self, "fit", **params)[final_name].fit
            self._refuse_private_rows(out)
            return out
        out = {}
        for key, value in params.items():
            step, _, param = key.partition("__")
            if param in ("X_public", "y_public"):
                raise ValueError(
                    f"Pass {param} to PublicFittedPipeline.fit itself, not as "
                    f"{key!r}: the pipeline transforms it before the last step."
                )
            if step != final_name or not param:
                raise ValueError(
                    f"PublicFittedPipeline.fit does not accept {key!r}: give the "
                    f"last step's fit parameters as '{final_name}__<param>'. The "
                    "transformers take none: they are fitted on the public rows."
                )
            out[param] = value
        self._refuse_private_rows(out)
        return out

    @staticmethod
    def _refuse_private_rows(params):
        """Rows passed as a fit parameter would reach the last step untransformed.

        GenericLearnerClassifier's private unlabeled rows are the case: in raw
        coordinates they would be sanitized on a different grid from the one
        predict sees (or fail after the charge). Refused before anything runs.
        """
        if params.get("X_unlabeled") is not None:
            raise ValueError(
                "PublicFittedPipeline does not pass X_unlabeled to its last "
                "step: those private rows would not go through the transformers. "
                "Transform them yourself with transformers fitted on public rows, "
                "and fit the last step directly."
            )
