"""PrivacyUtilityDisplay: test score against epsilon (or the public-set size).

The central picture of semi-private learning: how much accuracy each epsilon
buys, between the non-private ceiling and the public-only floor. Built like
scikit-learn's displays (:class:`~sklearn.model_selection.ValidationCurveDisplay`,
:class:`~sklearn.metrics.RocCurveDisplay`): ``__init__`` stores computed
arrays, ``from_estimator`` and ``from_cv_results`` compute them and call
``plot``, ``plot`` draws and returns the display. matplotlib is optional: it is
imported only when something is drawn.
"""

# SPDX-License-Identifier: BSD-3-Clause

import re

import numpy as np

from ._curve import _check_param_values, privacy_utility_curve

__all__ = ["PrivacyUtilityDisplay", "privacy_utility_curve"]

_STD_DISPLAY_STYLES = ("fill_between", "errorbar", None)
_BASELINE_LINESTYLES = ("--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)))
_SPLIT_KEY = re.compile(r"^split(\d+)_test_score$")


def _import_pyplot(caller):
    """``matplotlib.pyplot``, or an ImportError that says how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError(
            f"{caller} requires matplotlib, an optional dependency of "
            'sklearn_semiprivate. Install it with: pip install "sklearn_semiprivate'
            '[examples]" (or pip install matplotlib).'
        ) from exc
    return plt


def _estimator_name(estimator):
    """Legend label of an estimator: a pipeline is named after its last step."""
    steps = getattr(estimator, "steps", None)
    if steps:
        estimator = steps[-1][1]
    return type(estimator).__name__


def _base_param_name(param_name):
    return param_name.rsplit("__", 1)[-1]


def _x_label(param_name):
    base = _base_param_name(param_name)
    if base == "epsilon":
        return "epsilon (private data)"
    if base == "n_public":
        return "public rows (n_public)"
    return base


def _label_log_axis(axis, x):
    """Plain numbers (0.1, 0.2, 0.5, 1) on a log axis, not powers of ten."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    if x.max() <= 1000 * x.min():  # 1-2-5 ticks stay readable up to 3 decades
        axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


class PrivacyUtilityDisplay:
    """Privacy-utility curve: score against epsilon, between ceiling and floor.

    One line, with markers, gives the mean score at each value of a privacy
    parameter (``epsilon``, or ``n_public`` for the public-size curve) with a
    band of ± one standard deviation over repeated fits; each baseline (the
    non-private ceiling, the public-only floor, ...) is a horizontal line with
    its own band. Several displays can share one ``ax`` (one line each).

    Prefer :meth:`from_estimator` or :meth:`from_cv_results` to create one;
    the constructor only stores precomputed scores. matplotlib is needed only
    to draw (``pip install "sklearn_semiprivate[examples]"``).

    Parameters
    ----------
    param_values : array-like of shape (n_values,)
        Values of the parameter on the x axis.
    scores : array-like of shape (n_values, n_repeats)
        Score of every repeat at every value (a 1-D array is one repeat).
    param_name : str, default="epsilon"
        Name of the parameter; a nested pipeline name is labeled by its last
        part. ``"epsilon"`` gives a log x axis labeled "epsilon (private
        data)".
    estimator_name : str, default=None
        Legend label of the line; None gives "mean score".
    baselines : dict of str to array-like of shape (n_fits,), default=None
        Scores of each reference, drawn as a horizontal line at their mean (a
        float is one fit).
    score_name : str, default="accuracy"
        Label of the y axis.

    Attributes
    ----------
    ax_ : matplotlib Axes
        Axes with the curve.
    figure_ : matplotlib Figure
        Figure containing the curve.
    lines_ : list of matplotlib Line2D or None
        The mean line, unless ``std_display_style="errorbar"``.
    fill_between_ : list of matplotlib PolyCollection or None
        The ± std band of the line with ``std_display_style="fill_between"``.
    errorbar_ : list of matplotlib ErrorbarContainer or None
        The line with its error bars with ``std_display_style="errorbar"``.
    baseline_lines_ : dict of str to matplotlib Line2D
        The horizontal line of every baseline.
    baseline_fill_between_ : dict of str to matplotlib artist or None
        The ± std band of every baseline (None when not drawn or of zero width).

    See Also
    --------
    privacy_utility_curve : the scores, computed without matplotlib.
    sklearn.model_selection.ValidationCurveDisplay : the non-private analogue.
    sklearn_semiprivate.model_selection.PrivateParameterSearch : private
        selection of hyper-parameters.

    Notes
    -----
    **What is private.** The display draws what it is given. Scores of the
    semi-private fits are as private as those fits (each fit spends its
    epsilon); a score on private test rows, a ``cv_results_`` of a search on
    private folds, and every non-private baseline fitted on private rows are
    exact statistics of private data. Such a figure is a release outside any
    guarantee: it is for the analyst, not for publication. The public-only
    floor reads no private row to fit; its score is as public as the test
    rows.

    The band is mean ± standard deviation (``ddof=0``, as scikit-learn's
    curve displays) over repeats; with one repeat it has zero width.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")  # no window
    >>> import numpy as np
    >>> from sklearn_semiprivate import PublicData, SemiPrivateClassifier
    >>> from sklearn_semiprivate.display import PrivacyUtilityDisplay
    >>> rng = np.random.default_rng(0)
    >>> X, X_pub, X_test = (rng.uniform(size=(n, 3)) for n in (500, 40, 200))
    >>> y, y_pub, y_test = ((Z[:, 0] > 0.5).astype(int) for Z in (X, X_pub, X_test))
    >>> display = PrivacyUtilityDisplay.from_estimator(
    ...     SemiPrivateClassifier("stumps", classes=[0, 1]), X, y,
    ...     X_public=PublicData(X_pub, y_pub), X_test=X_test, y_test=y_test,
    ...     param_values=[0.1, 1.0, 10.0], n_repeats=3,
    ...     baselines=["non_private", "public_only"])
    >>> display.scores.shape
    (3, 3)
    >>> for label, values in display.baselines.items():
    ...     print(label, values.shape)
    non-private LogisticRegression (ceiling) (1,)
    public-only LogisticRegression (floor) (1,)
    >>> display.ax_.get_xlabel(), display.ax_.get_xscale()
    ('epsilon (private data)', 'log')
    >>> import matplotlib.pyplot as plt
    >>> plt.close(display.figure_)
    """

    def __init__(
        self,
        *,
        param_values,
        scores,
        param_name="epsilon",
        estimator_name=None,
        baselines=None,
        score_name="accuracy",
    ):
        self.param_values = param_values
        self.scores = scores
        self.param_name = param_name
        self.estimator_name = estimator_name
        self.baselines = baselines
        self.score_name = score_name

    def _validated(self):
        """The stored arrays as float arrays, with their shapes checked."""
        x = np.asarray(self.param_values, dtype=float)
        if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
            raise ValueError(
                "param_values must be a non-empty 1-D array of finite numbers, got "
                f"{self.param_values!r}."
            )
        scores = np.asarray(self.scores, dtype=float)
        if scores.ndim == 1:
            scores = scores[:, None]
        if scores.ndim != 2 or scores.shape[0] != x.size or scores.shape[1] == 0:
            raise ValueError(
                f"scores must have shape (n_values, n_repeats) = ({x.size}, "
                f"n_repeats), got {np.shape(self.scores)}."
            )
        baselines = {}
        for label, values in (self.baselines or {}).items():
            values = np.atleast_1d(np.asarray(values, dtype=float))
            if values.ndim != 1 or values.size == 0:
                raise ValueError(
                    f"Baseline {label!r} must be a float or a 1-D array of repeat "
                    f"scores, got shape {values.shape}."
                )
            baselines[label] = values
        return x, scores, baselines

    def plot(
        self,
        ax=None,
        *,
        name=None,
        std_display_style="fill_between",
        xscale=None,
        line_kw=None,
        fill_between_kw=None,
        errorbar_kw=None,
        baseline_kw=None,
    ):
        """Draw the curve and the baselines.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; None creates a figure. Pass the same ``ax`` to
            several displays to compare estimators.
        name : str, default=None
            Legend label of the line; None uses ``estimator_name``.
        std_display_style : {"fill_between", "errorbar"} or None, \
                default="fill_between"
            How the spread over repeats (± one standard deviation) is drawn:
            a band, error bars, or not at all. Baselines get a band unless
            None.
        xscale : {"log", "linear"} or None, default=None
            None chooses: log for ``epsilon``, and for other parameters when
            the largest value is at least 5 times the smallest; linear
            otherwise (or when a value is not positive).
        line_kw : dict, default=None
            Passed to :meth:`matplotlib.axes.Axes.plot` for the mean line.
        fill_between_kw : dict, default=None
            Passed to :meth:`matplotlib.axes.Axes.fill_between` for the band.
        errorbar_kw : dict, default=None
            Passed to :meth:`matplotlib.axes.Axes.errorbar`.
        baseline_kw : dict, default=None
            Passed to :meth:`matplotlib.axes.Axes.axhline` for every baseline.

        Returns
        -------
        display : PrivacyUtilityDisplay
            Object that stores computed values and the artists.
        """
        plt = _import_pyplot(f"{type(self).__name__}.plot")
        if std_display_style not in _STD_DISPLAY_STYLES:
            raise ValueError(
                f"std_display_style must be one of {_STD_DISPLAY_STYLES}, got "
                f"{std_display_style!r}."
            )
        if xscale not in ("log", "linear", None):
            raise ValueError(f"xscale must be 'log', 'linear' or None, got {xscale!r}.")
        x, scores, baselines = self._validated()
        if ax is None:
            _, ax = plt.subplots()

        order = np.argsort(x, kind="stable")
        x, scores = x[order], scores[order]
        mean, std = scores.mean(axis=1), scores.std(axis=1)
        label = name or self.estimator_name or "mean score"
        self.lines_ = self.fill_between_ = self.errorbar_ = None
        if std_display_style == "errorbar":
            kw = {"marker": "o", "capsize": 3, **(errorbar_kw or {})}
            self.errorbar_ = [ax.errorbar(x, mean, std, label=label, **kw)]
        else:
            kw = {"marker": "o", **(line_kw or {})}
            (line,) = ax.plot(x, mean, label=label, **kw)
            self.lines_ = [line]
            if std_display_style == "fill_between":
                kw = {"alpha": 0.2, "linewidth": 0, "color": line.get_color()}
                kw.update(fill_between_kw or {})
                self.fill_between_ = [ax.fill_between(x, mean - std, mean + std, **kw)]

        self.baseline_lines_, self.baseline_fill_between_ = {}, {}
        for i, (base_label, values) in enumerate(baselines.items()):
            style = _BASELINE_LINESTYLES[i % len(_BASELINE_LINESTYLES)]
            kw = {"color": "0.2", "linestyle": style, "linewidth": 1.2}
            kw.update(baseline_kw or {})
            base_mean, base_std = values.mean(), values.std()
            line = ax.axhline(base_mean, label=base_label, **kw)
            self.baseline_lines_[base_label] = line
            band = None
            if std_display_style is not None and base_std > 0:
                band = ax.axhspan(
                    base_mean - base_std,
                    base_mean + base_std,
                    color=line.get_color(),
                    alpha=0.1,
                    linewidth=0,
                )
            self.baseline_fill_between_[base_label] = band

        if xscale is None:
            positive = x.min() > 0
            wide = x.max() >= 5 * x.min()
            is_epsilon = _base_param_name(self.param_name) == "epsilon"
            xscale = "log" if positive and (is_epsilon or wide) else "linear"
        ax.set_xscale(xscale)
        if xscale == "log":
            _label_log_axis(ax.xaxis, x)
        ax.set_xlabel(_x_label(self.param_name))
        ax.set_ylabel(self.score_name)
        ax.legend()
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        X_public=None,
        y_public=None,
        X_test,
        y_test,
        param_name="epsilon",
        param_values=(0.1, 0.3, 1.0, 3.0, 10.0),
        baselines=None,
        n_repeats=5,
        scoring=None,
        n_jobs=None,
        name=None,
        score_name=None,
        ax=None,
        std_display_style="fill_between",
        xscale=None,
        line_kw=None,
        fill_between_kw=None,
        errorbar_kw=None,
        baseline_kw=None,
    ):
        """Fit an estimator at each value of a privacy parameter and plot.

        For each value of ``param_name`` and each repeat, a clone of
        ``estimator`` is fitted on the private ``(X, y)`` with the public data
        and scored on ``(X_test, y_test)``; see :func:`privacy_utility_curve`.
        matplotlib is checked before the first fit, so a missing install
        spends no budget.

        Parameters
        ----------
        estimator : estimator
            The (semi-)private estimator, or a
            :class:`~sklearn_semiprivate.PublicFittedPipeline` ending in one.
        X : array-like of shape (n_samples, n_features)
            Private rows (protected).
        y : array-like of shape (n_samples,)
            Private labels (protected).
        X_public : PublicData or array-like of shape (n_public, n_features), \
                default=None
            Public rows, passed to every fit as ``X_public``.
        y_public : array-like of shape (n_public,), default=None
            Public labels when ``X_public`` is a raw array.
        X_test : array-like of shape (n_test, n_features)
            Rows every model is scored on (public labeled rows, ideally).
        y_test : array-like of shape (n_test,)
            Their labels.
        param_name : str, default="epsilon"
            ``"epsilon"``, ``"n_public"`` (the public-size curve), or a nested
            name such as ``"semiprivateclassifier__epsilon"``.
        param_values : array-like of shape (n_values,), \
                default=(0.1, 0.3, 1.0, 3.0, 10.0)
            Values of ``param_name``.
        baselines : dict, list of str or None, default=None
            Reference lines: an estimator (fitted on the private rows),
            ``(estimator, "public")`` (fitted on the labeled public rows only),
            or the shortcuts ``"non_private"`` and ``"public_only"``; see
            :func:`privacy_utility_curve`.
        n_repeats : int, default=5
            Fits per value and per baseline estimator; they differ by their fresh
            privacy noise.
        scoring : str, callable or None, default=None
            Scorer; None uses each estimator's ``score``.
        n_jobs : int, default=None
            Parallel fits (joblib).
        name : str, default=None
            Legend label; None names the estimator (the last step of a
            pipeline).
        score_name : str, default=None
            y-axis label; None gives "test accuracy" (``scoring=None``) or
            "test <scoring>".
        ax : matplotlib Axes, default=None
            Axes to draw on; None creates a figure.
        std_display_style : {"fill_between", "errorbar"} or None, \
                default="fill_between"
            How the spread over repeats is drawn.
        xscale : {"log", "linear"} or None, default=None
            x-axis scale; None chooses (see :meth:`plot`).
        line_kw, fill_between_kw, errorbar_kw, baseline_kw : dict, default=None
            Passed to matplotlib; see :meth:`plot`.

        Returns
        -------
        display : PrivacyUtilityDisplay
            The display, drawn.

        Notes
        -----
        Every fit of ``estimator`` spends its epsilon (charged to its
        accountant, if any); the non-private baselines and scores on private
        test rows are releases outside any guarantee (see the class Notes).
        """
        _import_pyplot(f"{cls.__name__}.from_estimator")
        scores, baseline_scores = privacy_utility_curve(
            estimator,
            X,
            y,
            X_public=X_public,
            y_public=y_public,
            X_test=X_test,
            y_test=y_test,
            param_name=param_name,
            param_values=param_values,
            baselines=baselines,
            n_repeats=n_repeats,
            scoring=scoring,
            n_jobs=n_jobs,
        )
        if score_name is None:
            if scoring is None:
                score_name = "test accuracy"
            elif isinstance(scoring, str):
                score_name = f"test {scoring.replace('_', ' ')}"
            else:
                score_name = "test score"
        display = cls(
            param_values=np.asarray(list(param_values)),
            scores=scores,
            param_name=param_name,
            estimator_name=name or _estimator_name(estimator),
            baselines=baseline_scores,
            score_name=score_name,
        )
        return display.plot(
            ax=ax,
            std_display_style=std_display_style,
            xscale=xscale,
            line_kw=line_kw,
            fill_between_kw=fill_between_kw,
            errorbar_kw=errorbar_kw,
            baseline_kw=baseline_kw,
        )

    @classmethod
    def from_cv_results(
        cls,
        cv_results,
        *,
        param_name="epsilon",
        fixed_params=None,
        baselines=None,
        name=None,
        score_name="validation score",
        ax=None,
        std_display_style="fill_between",
        xscale=None,
        line_kw=None,
        fill_between_kw=None,
        errorbar_kw=None,
        baseline_kw=None,
    ):
        """Plot the ``cv_results_`` of a search against one of its parameters.

        One point per value of ``param_name``. Its repeats are the
        candidate's per-split scores (``split<k>_test_score``) when present,
        else its ``mean_test_score`` alone (no spread). When other parameters
        vary too, the point is the candidate with the **best mean score** among
        those with that value (the envelope; optimistic, as any maximum over
        noisy scores), unless ``fixed_params`` picks one combination: plot one
        display per combination on a shared ``ax`` to see them all.
        Candidates without a score (NaN: a failed fit, or a private search that
        does not release it) are skipped.

        Parameters
        ----------
        cv_results : dict of arrays
            ``cv_results_`` of :class:`~sklearn.model_selection.GridSearchCV`,
            :class:`~sklearn.model_selection.RandomizedSearchCV` or
            :class:`~sklearn_semiprivate.model_selection.PrivateParameterSearch`:
            keys ``params``, ``param_<param_name>``, ``mean_test_score`` and
            optionally ``split<k>_test_score``.
        param_name : str, default="epsilon"
            The searched parameter on the x axis, as named in the grid
            (``"semiprivateclassifier__epsilon"`` in a pipeline).
        fixed_params : dict, default=None
            Keep only the candidates with these values of other parameters.
        baselines : dict of str to array-like or float, default=None
            Precomputed scores of reference lines.
        name : str, default=None
            Legend label; None gives "validation score" (with "best per value"
            when other parameters vary).
        score_name : str, default="validation score"
            y-axis label.
        ax : matplotlib Axes, default=None
            Axes to draw on; None creates a figure.
        std_display_style : {"fill_between", "errorbar"} or None, \
                default="fill_between"
            How the spread over splits is drawn.
        xscale : {"log", "linear"} or None, default=None
            x-axis scale; None chooses (see :meth:`plot`).
        line_kw, fill_between_kw, errorbar_kw, baseline_kw : dict, default=None
            Passed to matplotlib; see :meth:`plot`.

        Returns
        -------
        display : PrivacyUtilityDisplay
            The display, drawn.

        Notes
        -----
        The validation scores of a scikit-learn search on private folds are
        exact statistics of private rows, and picking the best candidate per
        value reads them again: the figure is a release outside any
        guarantee, for the analyst only. The search's fits cost their
        epsilon each. With
        :class:`~sklearn_semiprivate.model_selection.PrivateParameterSearch`
        and ``selection="public"``, the scores are on public labeled rows and
        the figure adds no release to the search's charge; with random
        stopping only the winner has a (noisy) score, so the curve has one
        point.
        """
        _import_pyplot(f"{cls.__name__}.from_cv_results")
        key = f"param_{param_name}"
        if key not in cv_results:
            searched = sorted(k[6:] for k in cv_results if k.startswith("param_"))
            raise ValueError(
                f"cv_results has no {key!r}: the searched parameters are {searched}."
            )
        for required in ("params", "mean_test_score"):
            if required not in cv_results:
                raise ValueError(f"cv_results has no {required!r} key.")
        params = list(cv_results["params"])
        mean = np.asarray(cv_results["mean_test_score"], dtype=float)
        column = cv_results[key]
        missing = np.ma.getmaskarray(column)
        fixed_params = dict(fixed_params or {})
        unknown = [k for k in fixed_params if not any(k in p for p in params)]
        if unknown:
            raise ValueError(f"fixed_params names unknown parameters {unknown}.")
        split_keys = sorted(
            (k for k in cv_results if _SPLIT_KEY.match(k)),
            key=lambda k: int(_SPLIT_KEY.match(k).group(1)),
        )
        splits = (
            np.column_stack([np.asarray(cv_results[k], float) for k in split_keys])
            if split_keys
            else mean[:, None]
        )

        by_value = {}
        for i, p in enumerate(params):
            if missing[i] or not np.isfinite(mean[i]):
                continue
            if any(k not in p or p[k] != v for k, v in fixed_params.items()):
                continue
            value = column[i]
            _check_param_values([value], param_name)
            by_value.setdefault(float(value), []).append(i)
        if not by_value:
            raise ValueError(
                f"No candidate of cv_results with a score has a value of "
                f"{param_name!r}" + (f" and {fixed_params}." if fixed_params else ".")
            )
        values = sorted(by_value)
        best = [max(by_value[v], key=lambda i: mean[i]) for v in values]
        varies = any(len(by_value[v]) > 1 for v in values)
        if name is None:
            name = "validation score" + (" (best per value)" if varies else "")
        display = cls(
            param_values=np.asarray(values),
            scores=splits[best],
            param_name=param_name,
            estimator_name=name,
            baselines=baselines,
            score_name=score_name,
        )
        return display.plot(
            ax=ax,
            std_display_style=std_display_style,
            xscale=xscale,
            line_kw=line_kw,
            fill_between_kw=fill_between_kw,
            errorbar_kw=errorbar_kw,
            baseline_kw=baseline_kw,
        )
