"""PublicFittedPipeline: preprocessing fitted on public rows, applied to both sets.

A plain ``Pipeline`` fits its transformers on the private rows and routes
``X_public`` to the last step untransformed. Here the transformers are fitted
on the public rows only and transform both sets; the private rows meet them
only through ``transform``, a row-by-row map fixed by public data, so one
changed private row is one changed transformed row and the last step's
guarantee holds for the original rows. A step not known to map each row on
its own (``_row_coupling``) transforms the rows one at a time.
"""

# SPDX-License-Identifier: BSD-3-Clause

import copy
import time

import numpy as np
from scipy.sparse import issparse
from sklearn.base import clone
from sklearn.utils import Bunch, get_tags
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._public import PublicData, check_public_data, column_names
from ..accounting._reservation import accountant_keys
from ..utils._private_errors import call_inner_on_private
from ..utils._private_reads import warn_private_read
from ..utils._sklearn_compat import (
    StrOptions,
    _BaseComposition,
    _fit_context,
    _name_estimators,
)
from ._checks import check_formats, on_private, on_public, unwrap_public
from ._final_step import _SKIPPED, FinalStepMixin, _clip_overflow
from ._row_coupling import (
    maps_rows_independently,
    one_row_at_a_time,
    warn_row_by_row,
)

__all__ = ["PublicFittedPipeline", "make_public_fitted_pipeline"]


def _final_step_has(method):
    """``available_if`` check: the final step (fitted, if fitted) has ``method``."""

    def check(self):
        steps = getattr(self, "steps_", None) or self.steps
        return hasattr(steps[-1][1], method)

    return check


class PublicFittedPipeline(FinalStepMixin, _BaseComposition):
    """Pipeline whose transformers are fitted on the public rows only.

    Every step but the last is a transformer: it is cloned, fitted on the
    public rows (``X_public``, with ``y_public`` if given), and then transforms
    both the public rows and the private rows. The last step, a semi-private
    estimator, is fitted as ``fit(Xt, y, X_public=PublicData(Xt_public,
    y_public))``, with both sets in the same coordinates. ``predict`` and the
    other methods transform their input with the fitted transformers and call
    the last step.

    A plain :class:`~sklearn.pipeline.Pipeline` instead fits its transformers
    on the private rows and hands routed ``X_public`` to the last step
    untransformed (see :doc:`/limitations`).

    Parameters
    ----------
    steps : list of (str, estimator) tuples
        The transformers, in order, then the semi-private estimator. A
        transformer may be ``"passthrough"`` or ``None`` (skipped). The last
        step's ``fit`` must accept ``X_public``. Steps are cloned in ``fit``:
        the fitted ones are in ``steps_``.
    fit_on_private : {"raise", "warn"}, default="raise"
        What to do when ``fit`` gets no public data, so the transformers could
        only be fitted on the private rows. ``"raise"``: a ``ValueError``
        before any private row is read. ``"warn"``: fit them on the private
        ``(X, y)`` with a :class:`~sklearn_semiprivate.PrivacyLeakWarning`; the
        preprocessing, hence the model, is then **not** differentially private
        (an opt-in for scikit-learn's ``check_estimator``, which fits without
        public data).
    row_wise : {"known", "all"} or list or tuple of str, default="known"
        Which transformers may transform a batch of private rows at once: the
        guarantee needs each row mapped on its own, and some transformers use
        their batch (``NMF``). ``"known"``: the scikit-learn transformers
        known to map each row on its own (scalers, encoders, imputers, PCA,
        feature selectors, and composites of them); every other step
        transforms the rows one at a time, slower, with a ``UserWarning``.
        A list of step names: those too (your declaration that their
        ``transform`` maps each row on its own). ``"all"``: every step.
    verbose : bool, default=False
        If True, print the elapsed time as each step is fitted.

    Attributes
    ----------
    steps_ : list of (str, estimator) tuples
        The fitted steps (clones of ``steps``).
    row_by_row_steps_ : list of str
        The steps that transform rows one at a time, in ``fit`` and in
        ``predict`` and the other methods (``row_wise``).
    named_steps_ : :class:`~sklearn.utils.Bunch`
        The fitted steps by name.
    classes_ : ndarray of shape (n_classes,)
        The last step's labels.
    privacy_spent_ : PrivacyCost
        The last step's ``privacy_spent_``: the transformers spend nothing.
    n_features_in_ : int
        Number of features of ``X`` (and ``X_public``) seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Column names of ``X``, when it is a data frame with string columns.

    See Also
    --------
    make_public_fitted_pipeline : Build one, naming the steps automatically.
    sklearn.pipeline.Pipeline : Fits every transformer on the private rows.

    Notes
    -----
    **Privacy.** The transformers are fitted on the public rows and labels
    only, and see the private rows only through ``transform``; the private
    ``y`` reaches the last step only. A fitted transformer is a map fixed by
    public data; if it transforms each row on its own, one changed, added or
    removed private row is one changed, added or removed transformed row, so
    the last step's guarantee (neighbour relation, ``privacy_spent_``) holds
    for the original rows. A ``transform`` that mixes rows breaks this
    (scikit-learn's ``NMF`` stops on a criterion summed over the batch): a
    step that is not a known row-wise transformer, nor declared one in
    ``row_wise``, transforms the rows one at a time. Not protected: the
    public data and the fitted transformers.

    **Errors.** A failure on the public rows quotes the original message; a
    failure on the private rows gives the step, the exception's type and at
    most a known value-free start of its message, since messages may quote
    private values. That a private row made a transformer fail (a category
    absent from the public rows, say) is still revealed: see
    :doc:`/limitations`, "Pipelines".

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_semiprivate import (
    ...     PublicData, PublicFittedPipeline, SemiPrivateClassifier)
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(50.0, 10.0, size=(2000, 2))
    >>> y = (X[:, 0] > 55.0).astype(int)
    >>> X_pub = rng.normal(50.0, 10.0, size=(100, 2))
    >>> pipe = PublicFittedPipeline([
    ...     ("scale", StandardScaler()),
    ...     ("clf", SemiPrivateClassifier(classes=[0, 1], random_state=0)),
    ... ])
    >>> pipe = pipe.fit(X, y, X_public=PublicData(X_pub))
    >>> int(pipe.named_steps_["scale"].n_samples_seen_)  # the public rows only
    100
    >>> pipe.privacy_spent_
    PrivacyCost(epsilon=1.0, delta=0.0)
    >>> bool(pipe.score(X, y) > 0.9)
    True
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}

    _parameter_constraints = {
        "steps": [list],
        "fit_on_private": [StrOptions({"raise", "warn"})],
        "row_wise": [StrOptions({"known", "all"}), list, tuple],
        "verbose": ["boolean"],
    }

    def __init__(
        self, steps, *, fit_on_private="raise", row_wise="known", verbose=False
    ):
        self.steps = steps
        self.fit_on_private = fit_on_private
        self.row_wise = row_wise
        self.verbose = verbose

    def get_params(self, deep=True):
        """Parameters; with ``deep``, the steps' as ``<step>__<param>`` too."""
        return self._get_params("steps", deep=deep)

    def set_params(self, **params):
        """Set parameters, a whole step (``<step>=``) or a step's (``<step>__<p>``)."""
        return self._set_params("steps", **params)

    def set_output(self, *, transform=None):
        """Set the output container of every transformer step.

        ``transform="pandas"`` makes each transformer output a data frame, so
        the last step sees the transformed column names.

        Parameters
        ----------
        transform : {"default", "pandas", "polars"}, default=None
            See :meth:`sklearn.pipeline.Pipeline.set_output`.

        Returns
        -------
        self : PublicFittedPipeline
            This estimator.
        """
        for _, step in self.steps[:-1]:
            if step not in _SKIPPED and hasattr(step, "set_output"):
                step.set_output(transform=transform)
        return self

    @property
    def named_steps(self):
        """The steps by name, as given (unfitted; see ``named_steps_``)."""
        return Bunch(**dict(self.steps))

    @property
    def named_steps_(self):
        """The fitted steps by name."""
        return Bunch(**dict(self.steps_))

    @property
    def classes_(self):
        """The last step's labels."""
        return self.steps_[-1][1].classes_

    @property
    def privacy_spent_(self):
        """The last step's privacy cost: the transformers spend nothing."""
        return self.steps_[-1][1].privacy_spent_

    def _log(self, idx, name, start, *, private=False):
        """One progress line; a step that read private rows gets no duration
        (how long it took may depend on them: docs/privacy.rst)."""
        if self.verbose:
            timing = (
                "on the private rows (duration not shown)"
                if private
                else f"total={time.perf_counter() - start:5.1f}s"
            )
            print(
                f"[PublicFittedPipeline] (step {idx + 1} of {len(self.steps)}) "
                f"Processing {name}, {timing}"
            )

    # False: the steps validate their own parameters.
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y=None, X_public=None, y_public=None, **params):
        """Fit the transformers on the public rows, then the last step.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows (protected). A data frame may hold string columns for
            the transformers to encode.
        y : array-like of shape (n_samples,), default=None
            Private labels (protected); only the last step reads them. None
            for a last step that takes none (a
            :class:`~sklearn_semiprivate.PublicAssistedQueryRelease`).
        X_public : PublicData or array-like of shape (n_public, n_features), \
                default=None
            Public rows, in the format of ``X`` (same columns), preferably
            wrapped in :class:`~sklearn_semiprivate.PublicData` (it may carry
            public labels too). Required when there is a transformer, unless
            ``fit_on_private="warn"``. The transformers' ``fit_transform`` gets
            the public labels, or None: a supervised transformer
            (``SelectKBest``) needs labeled public rows.
        y_public : array-like of shape (n_public,), default=None
            Public labels when ``X_public`` is a raw array.
        **params : dict
            Fit parameters of the last step: routed when metadata routing is
            enabled, else given as ``<last step>__<param>``.

        Returns
        -------
        self : PublicFittedPipeline
            Fitted pipeline.
        """
        self._validate_steps()
        final_params = self._final_fit_params(params)
        Xp, yp = unwrap_public(X_public, y_public)
        transformers = [s for s in self.steps[:-1] if s[1] not in _SKIPPED]
        if Xp is None and transformers and self.fit_on_private == "raise":
            raise ValueError(
                "PublicFittedPipeline fits its transformers "
                f"{[name for name, _ in transformers]} on public rows only, and "
                "fit got no public data: pass X_public=PublicData(X_pub). (With "
                "fit_on_private='warn' they are fitted on the private rows instead, "
                "which is not differentially private.)"
            )
        n_features, names = check_formats(X, Xp)
        if Xp is None and transformers:
            warn_private_read(
                f"No public data: the transformers {[n for n, _ in transformers]} "
                "are fitted on the private rows (X, y), as fit_on_private='warn' "
                "asks. The preprocessing, and so the model, is not differentially "
                "private.",
                stacklevel=3,
            )

        declared = self._declared_row_wise()
        start = time.perf_counter()
        steps_, Xpt, fitted, public_out = [], Xp, [], {}
        for idx, (name, step) in enumerate(self.steps[:-1]):
            if step in _SKIPPED:
                steps_.append((name, step))
                continue
            step = clone(step)
            if Xp is not None:
                # fit, then transform: the public rows must go through the map
                # the private and test rows will (TargetEncoder's fit_transform
                # cross-fits, giving public rows other values; a review).
                Xpt = on_public(name, _fit_then_transform(step), Xpt, yp)
                public_out[name] = Xpt  # the format each private row must keep
                self._log(idx, name, start)
            fitted.append((idx, name, step))
            steps_.append((name, step))
        # A step not known to map each row on its own (NMF's transform uses
        # its batch) transforms the private rows one at a time
        # (_row_coupling): decided by the steps' types and row_wise, public,
        # before the charge.
        row_by_row = [
            name
            for _, name, step in fitted
            if name not in declared and not maps_rows_independently(step)
        ]
        if row_by_row and Xp is not None:
            warn_row_by_row(row_by_row)
        name, final = self.steps[-1]
        if Xp is not None and not issparse(Xpt):
            # The last step checks its public rows too, but after the charge:
            # public rows the transformers left malformed (NaN, huge values, a
            # label outside classes=) are refused here, free, on public
            # inputs alone.
            check_public_data(
                PublicData(Xpt, yp),
                n_features=np.shape(Xpt)[1],
                feature_names=column_names(Xpt),
                classes=final.get_params().get("classes"),
            )
        if accountant_keys(final):
            # The last step's own checks (its public parameters against this
            # data's format, the private labels' format) run before its
            # reservation when it is fitted alone: free. Run them here too,
            # before the pipeline charges for it.
            self._check_final_before_charge(
                final, X, y, Xpt, yp, final_params, transformed=bool(fitted)
            )
        # A copy: a step may return a buffer it writes again (a review:
        # FunctionTransformer(np.log1p, kw_args={"out": buf})), and the
        # private rows' transform below would then overwrite the public rows
        # the last step gets.
        public = None if Xp is None else PublicData(copy.deepcopy(Xpt), yp)
        final = self._reserve_final(clone(final), final_params, public)
        # Only now, with the last step's cost charged, are the private rows
        # transformed: whether a transform of them fails is a question the
        # public fit chose (an encoder's categories), answered exactly.
        Xt = X
        for idx, step_name, step in fitted:
            if Xp is not None:
                transform = step.transform
                if step_name in row_by_row:
                    transform = one_row_at_a_time(transform, public_out[step_name])
                Xt = on_private(step_name, transform, Xt)
            else:
                Xt = on_private(step_name, step.fit_transform, Xt, y, action="fit on")
                self._log(idx, step_name, start, private=True)
            # After every step, not only the last: an overflow to inf would
            # make the next transformer refuse the rows (a review's
            # reproducer: PolynomialFeatures, then PCA, one row at 1e200).
            Xt = _clip_overflow(Xt)
        # A last step of another library may quote its rows in an error.
        call_inner_on_private(
            final, "fit", Xt, y, X_public=public, **final_params,
            what=f"the fit of step {name!r} on the private rows",
        )  # fmt: skip
        steps_.append((name, final))
        self._log(len(self.steps) - 1, name, start, private=True)

        self.steps_ = steps_
        self.row_by_row_steps_ = row_by_row
        self._name_inner_ledgers()
        self.n_features_in_ = n_features
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def __sklearn_is_fitted__(self):
        return hasattr(self, "steps_")

    def _declared_row_wise(self):
        """The step names ``row_wise`` declares row-wise (all for ``"all"``)."""
        names = [name for name, _ in self.steps[:-1]]
        if isinstance(self.row_wise, str):
            return names if self.row_wise == "all" else []
        declared = list(self.row_wise)
        unknown = [d for d in declared if d not in names]
        if unknown:
            raise ValueError(
                f"row_wise names {unknown}, which are not transformer steps of "
                f"this pipeline: {names}."
            )
        return declared

    def _row_by_row_steps(self):
        """``row_by_row_steps_``; for a pipeline fitted before it existed, every
        fitted step not known to be row-wise."""
        if hasattr(self, "row_by_row_steps_"):
            return self.row_by_row_steps_
        return [
            name
            for name, step in self.steps_[:-1]
            if step not in _SKIPPED and not maps_rows_independently(step)
        ]

    def _call_final(self, method, X, *args, **kwargs):
        """Transform ``X`` with the fitted transformers, then call the last step.

        Errors are not rewritten: these rows are not the fit's private rows.
        """
        check_is_fitted(self)
        # errstate: finite rows near the largest float overflow a scaler (and
        # scikit-learn's input checks); they become +-inf, kept at the largest
        # float as in fit, and the last step clips them.
        # After every transformer, as in fit (a review: only after the last
        # one, so a row a first step overflowed made the next one refuse).
        # Only what a transformer overflowed: an input row of +-inf reaches
        # the first step (or, with none, the last step) as it is, which
        # refuses it as it would alone (a review: with no transformer, inf
        # rows were predicted).
        # A step not known to map rows on their own transforms them one at a
        # time, as in fit: a row's prediction then does not depend on the
        # other rows it is predicted with.
        row_by_row = self._row_by_row_steps()
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            for name, step in self.steps_[:-1]:
                if step not in _SKIPPED:
                    transform = step.transform
                    if name in row_by_row:
                        transform = one_row_at_a_time(transform)
                    X = _clip_overflow(transform(X))
        return getattr(self.steps_[-1][1], method)(X, *args, **kwargs)

    @available_if(_final_step_has("predict"))
    def predict(self, X):
        """Transform ``X`` and predict with the last step.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows in the input format of the private ``X``.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The last step's predictions.
        """
        return self._call_final("predict", X)

    @available_if(_final_step_has("predict_proba"))
    def predict_proba(self, X):
        """Transform ``X`` and call the last step's ``predict_proba``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows in the input format of the private ``X``.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            The last step's class probabilities.
        """
        return self._call_final("predict_proba", X)

    @available_if(_final_step_has("decision_function"))
    def decision_function(self, X):
        """Transform ``X`` and call the last step's ``decision_function``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows in the input format of the private ``X``.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            The last step's scores.
        """
        return self._call_final("decision_function", X)

    @available_if(_final_step_has("score"))
    def score(self, X, y, sample_weight=None):
        """Transform ``X`` and call the last step's ``score``.

        A score on private rows is an exact statistic of them, released outside
        any guarantee (see :doc:`/privacy`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows in the input format of the private ``X``.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to the last step's ``score`` when given.

        Returns
        -------
        score : float
            The last step's score (accuracy, for a classifier).
        """
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
        return self._call_final("score", X, y, **kwargs)

    def get_metadata_routing(self):
        """``X_public``/``y_public`` are consumed here, other fit metadata
        goes to the last step."""
        router = MetadataRouter(owner=self).add_self_request(self)
        name, final = self.steps[-1]
        # The transformers take no routed metadata: they are fitted on the
        # public rows, and per-sample metadata is aligned with the private X.
        router.add(
            method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            **{name: final},
        )
        return router

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            used = [s for _, s in self.steps if s not in _SKIPPED]
            # As scikit-learn's Pipeline: input tags from the steps, the
            # estimator type and target tags from the last step.
            tags.input_tags.sparse = all(get_tags(s).input_tags.sparse for s in used)
            last = get_tags(self.steps[-1][1])
            tags.estimator_type = last.estimator_type
            tags.target_tags.multi_output = last.target_tags.multi_output
            tags.classifier_tags = last.classifier_tags
            tags.regressor_tags = last.regressor_tags
        except (ValueError, AttributeError, TypeError):
            pass  # malformed steps: fit raises the error
        return tags


def make_public_fitted_pipeline(
    *steps, fit_on_private="raise", row_wise="known", verbose=False
):
    """Build a :class:`PublicFittedPipeline`, naming the steps after their types.

    Parameters
    ----------
    *steps : estimators
        The transformers, then the semi-private estimator.
    fit_on_private : {"raise", "warn"}, default="raise"
        See :class:`PublicFittedPipeline`.
    row_wise : {"known", "all"} or list or tuple of str, default="known"
        See :class:`PublicFittedPipeline`.
    verbose : bool, default=False
        If True, print the elapsed time as each step is fitted.

    Returns
    -------
    pipeline : PublicFittedPipeline
        The unfitted pipeline; step names are the lower-cased class names.

    Examples
    --------
    >>> from sklearn.decomposition import PCA
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_semiprivate import (
    ...     SemiPrivateClassifier, make_public_fitted_pipeline)
    >>> pipe = make_public_fitted_pipeline(
    ...     StandardScaler(), PCA(n_components=2), SemiPrivateClassifier())
    >>> [name for name, _ in pipe.steps]
    ['standardscaler', 'pca', 'semiprivateclassifier']
    """
    return PublicFittedPipeline(
        _name_estimators(steps),
        fit_on_private=fit_on_private,
        row_wise=row_wise,
        verbose=verbose,
    )


def _fit_then_transform(step):
    """``step.fit(X, y).transform(X)``, the map every other row goes through."""

    def fit_then_transform(X, y):
        if not hasattr(step, "fit"):
            # scikit-learn's Pipeline takes fit or fit_transform: without
            # fit, fit_transform is the step's only way to be fitted.
            return step.fit_transform(X, y)
        # As TransformerMixin.fit_transform calls fit: without y when None
        # (a transformer whose fit takes X alone); the step itself, not what
        # fit returns (a fit may forget to return self).
        if y is None:
            step.fit(X)
        else:
            step.fit(X, y)
        return step.transform(X)

    return fit_then_transform
