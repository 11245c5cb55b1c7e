"""The public/private contract: ``PublicData`` and the checks every estimator runs.

Public data is not protected: the output of an estimator may depend on it
arbitrarily. It must therefore never be mixed with private rows, and never be
sliced by scikit-learn's cross-validation as if it were a per-sample quantity.
"""

# SPDX-License-Identifier: BSD-3-Clause

import cmath
import numbers
import warnings

import numpy as np
from sklearn.utils import check_array

from .exceptions import PublicDataWarning
from .utils._private_reads import warn_private_read
from .utils._rng import check_rng

__all__ = [
    "PublicData",
    "check_public_data",
    "column_names",
    "declared_classes",
    "declared_label_set",
    "labels_differ",
    "open_classes",
    "resolve_classes",
    "subsample_public",
    "without_column_names",
]

# Largest public magnitude accepted: its square and sums of up to 1e100 such
# terms stay far from float64's 1.8e308.
MAX_PUBLIC_MAGNITUDE = 1e100


class PublicData:
    """Opaque container for public rows ``X`` and optional public labels ``y``.

    It deliberately has no ``__len__``, ``shape`` or ``__array__``: scikit-learn's
    cross-validation slices every fit parameter that looks like an array of the
    same length as ``X``, and would otherwise split the public set across folds.
    Pass it as ``fit(X, y, X_public=PublicData(X_pub, y_pub))``.

    Parameters
    ----------
    X : array-like of shape (n_public, n_features)
        Public points (unprotected).
    y : array-like of shape (n_public,), default=None
        Public labels, if any (unprotected).

    Attributes
    ----------
    X : array-like of shape (n_public, n_features)
        The public points, as given.
    y : array-like of shape (n_public,) or None
        The public labels, as given.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PublicData
    >>> pub = PublicData(np.zeros((3, 2)))
    >>> pub
    PublicData(n_samples=3, labeled=False)
    >>> hasattr(pub, "__len__") or hasattr(pub, "shape")
    False
    """

    __slots__ = ("X", "y")

    def __init__(self, X, y=None):
        self.X = X
        self.y = y

    def __repr__(self):
        n = np.shape(self.X)[0] if np.ndim(self.X) else 0
        return f"PublicData(n_samples={n}, labeled={self.y is not None})"

    def __getstate__(self):
        return {"X": self.X, "y": self.y}

    def __setstate__(self, state):
        self.X = state["X"]
        self.y = state["y"]


def column_names(X):
    """The column labels of a data frame, or None: schema, never a value.

    Labels of every type, not only scikit-learn's string feature names: a
    review found private and public frames with integer labels (pandas'
    default) in different orders accepted, since ``feature_names_in_`` is
    None for them. Only scalar labels are taken: a pyarrow ``Table``'s
    ``columns`` are its column *data* (its names are ``column_names``), and
    a second review found them quoted, every private value, in the refusal
    message. Anything else with a ``columns`` attribute gives None.
    """
    for attr in ("columns", "column_names"):
        labels = getattr(X, attr, None)
        if labels is None or isinstance(labels, (str, bytes)):
            continue
        try:
            labels = list(labels)
        except TypeError:
            continue
        if all(_is_scalar_label(c) for c in labels):
            names = np.empty(len(labels), dtype=object)  # tuples stay whole
            names[:] = labels
            return names
    return None


def _is_scalar_label(label):
    # pandas' NA and NaT are scalars too; a MultiIndex label is a tuple of
    # them; arrays, lists and columns of data are none of these.
    if isinstance(label, (str, bytes)):
        return True
    if isinstance(label, (tuple, frozenset)):
        return all(_is_scalar_label(part) for part in label)
    return np.ndim(label) == 0 and not hasattr(label, "__len__")


def _same_label(a, b):
    if a is b:
        return True
    if isinstance(a, tuple) and isinstance(b, tuple):
        # MultiIndex labels, NaN parts included (a third review).
        return len(a) == len(b) and all(map(_same_label, a, b))
    try:
        if bool(a == b):
            return True
    except (TypeError, ValueError):  # pandas' NA: "boolean value of NA is ambiguous"
        return False
    # NaN labels: equal to each other, not to themselves (a review found
    # identical frames refused).
    return a != a and b != b and type(a) is type(b)


def labels_differ(labels, other):
    """Whether two arrays of column labels (or None) are both given and differ."""
    if labels is None or other is None:
        return False
    return len(labels) != len(other) or not all(
        _same_label(a, b) for a, b in zip(labels, other)
    )


def _all_strings(labels):
    """Whether ``labels`` are scikit-learn's feature names (all strings)."""
    return labels is not None and all(isinstance(c, str) for c in labels)


def warn_raw_public_array(stacklevel):
    """Warn that a raw-array ``X_public`` may be sliced by cross-validation.

    Raised for every raw array, whatever its length: a warning that fired only
    when the public set is as long as the private X would depend on the private
    row count.
    """
    warnings.warn(
        "X_public is a raw array; scikit-learn's cross-validation, search and "
        "multiclass tools slice an array as long as X together with X, by "
        "indices that can depend on the private labels (stratified folds, "
        "one-vs-one pairs), and the model is then not DP. Wrap it as "
        "X_public=PublicData(X_pub) to keep it whole (and silence this "
        "warning).",
        PublicDataWarning,
        stacklevel=stacklevel,
    )


def check_public_data(
    X_public,
    y_public=None,
    *,
    n_features,
    feature_names=None,
    classes=None,
    required=False,
):
    """Validate public data against the private data's shape and label set.

    Reads nothing private but ``n_features``, which is part
    of the (public) input format. Every estimator calls it before it uses any
    private row, so bad public data fails fast and spends nothing.

    Parameters
    ----------
    X_public : PublicData, array-like of shape (n_public, n_features) or None
        Public points. ``None`` means no public data.
    y_public : array-like of shape (n_public,), default=None
        Public labels when ``X_public`` is a raw array. Must be None when
        ``X_public`` is a :class:`PublicData` (give the labels to it instead).
    n_features : int
        Number of features of the private ``X``.
    feature_names : ndarray of str, default=None
        Feature names of the private ``X``, if it had any; public column names,
        if any, must match them.
    classes : array-like, default=None
        The known labels; every ``y_public`` label must be among them.
    required : bool, default=False
        Whether ``X_public=None`` is an error.

    Returns
    -------
    X_public : ndarray of shape (n_public, n_features) or None
        Finite float64 public points.
    y_public : ndarray of shape (n_public,) or None
        Public labels.

    Raises
    ------
    ValueError
        On an empty public set, NaN or infinity, a magnitude above
        ``MAX_PUBLIC_MAGNITUDE`` (1e100), a feature-count or feature-name
        mismatch, labels of the wrong length or outside ``classes``, or a missing
        public set when ``required``.
    TypeError
        When labels are given twice or ``X_public`` is not array-like.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PublicData
    >>> from sklearn_semiprivate._public import check_public_data
    >>> Xp, yp = check_public_data(PublicData([[0.0, 1.0]], [1]), n_features=2)
    >>> Xp.shape, yp
    ((1, 2), array([1]))
    """
    if isinstance(X_public, PublicData):
        if y_public is not None and X_public.y is not None:
            raise TypeError(
                "Public labels were given twice: in PublicData(X, y) and as "
                "y_public. Give them once."
            )
        raw = False
        Xp, yp = X_public.X, X_public.y if X_public.y is not None else y_public
    else:
        raw = True
        Xp, yp = X_public, y_public
    if Xp is None:
        if yp is not None:
            raise ValueError("y_public was given without X_public.")
        if required:
            raise ValueError(
                "This estimator requires public data: pass "
                "X_public=PublicData(X_pub) to fit."
            )
        return None, None

    public_names = column_names(Xp)
    if labels_differ(public_names, feature_names):
        raise ValueError(
            "The public data's feature names differ from the private X's: "
            f"{list(public_names)} vs {list(feature_names)}."
        )
    if np.ndim(Xp) == 2 and np.shape(Xp)[0] == 0:
        raise ValueError(
            "The public data set is empty (0 rows). Pass X_public=None for no "
            "public data."
        )
    if feature_names is None and _all_strings(public_names):
        # Reads column names only (strings: scikit-learn's feature names; a
        # frame's default integer labels are positions, as for an array). The
        # usual cause: a plain Pipeline's earlier steps turned X into an array
        # and left X_public a DataFrame.
        warnings.warn(
            "X_public has column names but the private X reaching this estimator "
            "has none. If it is the last step of a scikit-learn Pipeline, the "
            "earlier steps transformed X but not X_public: use "
            "sklearn_semiprivate.PublicFittedPipeline.",
            PublicDataWarning,
            stacklevel=3,
        )
    if public_names is None and _all_strings(feature_names):
        # As scikit-learn warns when a model fitted with feature names
        # predicts on an array: the columns are matched by position only.
        warnings.warn(
            "The private X has feature names but X_public has none: its "
            "columns are taken to be X's, in the same order. If this "
            "estimator is the last step of a scikit-learn Pipeline whose "
            "pandas output named X's columns, X_public skipped the earlier "
            "steps: use sklearn_semiprivate.PublicFittedPipeline. Otherwise "
            "pass X_public with X's column names to have them checked.",
            PublicDataWarning,
            stacklevel=3,
        )
    try:
        # errstate: scikit-learn's finiteness check sums the array first, and
        # finite rows near the largest float overflow that sum (a spurious
        # RuntimeWarning); the check itself stays exact.
        with np.errstate(over="ignore", invalid="ignore"):
            Xp = check_array(
                Xp, dtype=np.float64, ensure_all_finite=True, input_name="X_public"
            )
    except ValueError as exc:
        if "convert" not in str(exc):
            raise
        raise ValueError(
            f"X_public could not be converted to float ({exc}). If this estimator "
            "is the last step of a Pipeline whose earlier steps encode columns, "
            "they did not transform X_public: use PublicFittedPipeline."
        ) from exc
    if Xp.shape[1] != n_features:
        raise ValueError(
            f"X_public has {Xp.shape[1]} features, but the private X has "
            f"{n_features}; public and private rows must share the feature space. "
            "If this estimator is the last step of a scikit-learn Pipeline, its "
            "earlier steps transformed X but not X_public (routed fit parameters "
            "skip them): use sklearn_semiprivate.PublicFittedPipeline, which fits "
            "them on the public rows and transforms both. Wrappers that fit on a "
            "subset of the columns (RFE, RFECV, SequentialFeatureSelector, "
            "BaggingClassifier(max_features<1)) cannot pass X_public the same "
            "subset: they do not work with public data."
        )
    if Xp.size and np.max(np.abs(Xp)) > MAX_PUBLIC_MAGNITUDE:
        # A public-only check: public points set covers, bins, centroids and
        # scalings, whose ranges, squares and sums overflow float64 near its
        # largest values. (Private rows may be of any finite size: they are
        # clipped or binned into the public geometry.)
        raise ValueError(
            f"X_public has values of magnitude up to {np.max(np.abs(Xp)):.3g}; "
            f"this package needs |X_public| <= {MAX_PUBLIC_MAGNITUDE:g} so that "
            "ranges, squares and sums of public points stay finite. Rescale "
            "the features (a scaler fitted on the public rows, in a "
            "PublicFittedPipeline)."
        )
    if yp is not None:
        yp = check_array(
            yp,
            ensure_2d=False,
            dtype=None,
            ensure_all_finite=True,
            input_name="y_public",
        )
        if yp.ndim != 1:
            raise ValueError(f"y_public must be 1-dimensional, got shape {yp.shape}.")
        if yp.shape[0] != Xp.shape[0]:
            raise ValueError(
                f"y_public has {yp.shape[0]} labels for {Xp.shape[0]} public rows."
            )
        if classes is not None:
            unknown = np.setdiff1d(yp, np.asarray(classes))
            if unknown.size:
                raise ValueError(
                    f"y_public contains labels {unknown.tolist()} that are not in "
                    f"classes={np.asarray(classes).tolist()}."
                )
    if raw:
        warn_raw_public_array(stacklevel=4)
    return Xp, yp


def resolve_classes(classes, y_public, y_private):
    """Choose the label set: ``classes``, else public labels, else private ``y``.

    The label set is part of the released model, so it must not come from private
    data. The last resort reads the private labels and emits
    :class:`~sklearn_semiprivate.exceptions.PrivacyLeakWarning`.

    Parameters
    ----------
    classes : array-like or None
        Labels declared by the user (public).
    y_public : ndarray or None
        Public labels.
    y_private : array-like
        Private labels; read only when both of the above are None.

    Returns
    -------
    classes : ndarray
        Sorted unique labels.

    Examples
    --------
    >>> from sklearn_semiprivate._public import resolve_classes
    >>> resolve_classes([1, 0], None, [0, 0, 1])
    array([0, 1])
    """
    if classes is not None:
        return declared_label_set(classes)
    if y_public is not None:
        return np.unique(y_public)
    warn_private_read(
        "No classes= and no public labels were given, so the label set is read from "
        "the private y. The set of labels present in the private data is then "
        "released without privacy. Pass classes=... to avoid this.",
        stacklevel=3,
    )
    return np.unique(np.asarray(y_private))


def declared_label_set(classes, name="classes"):
    """A declared label set, checked: its sorted unique labels.

    One-dimensional and non-empty, with no NaN, infinity or None among the
    labels: a label no ``y`` can hold, or that never equals itself (a review:
    ``classes=[0, nan]`` was charged, then failed with a membership error;
    elsewhere it was refused as "two different label sets"). A parameter, so
    refused before any charge.

    Examples
    --------
    >>> from sklearn_semiprivate._public import declared_label_set
    >>> declared_label_set([1, 0, 1]).tolist()
    [0, 1]
    """
    labels = np.asarray(classes)
    if labels.dtype.kind in "UST" and not isinstance(classes, np.ndarray):
        # NumPy turns [0, "a"] into ["0", "a"]: a label set of mixed types
        # would silently become strings (a review).
        kinds = {
            isinstance(v, (str, bytes))
            for v in np.ravel(np.asarray(classes, dtype=object))
        }
        if len(kinds) > 1:
            raise ValueError(
                f"{name} must hold labels of one type; got {list(classes)!r}, "
                "strings mixed with other labels"
            )
    if labels.dtype.kind == "T":
        # NumPy's StringDType: fixed-width strings, which np.isin can compare
        # with a label column of strings (a review: it raised after the charge).
        labels = np.asarray(labels.tolist())
    if labels.ndim != 1:
        raise ValueError(
            f"{name} must be a one-dimensional list of labels; got an array of "
            f"shape {labels.shape}."
        )
    if labels.size == 0:
        raise ValueError(f"{name} must not be empty.")
    if labels.dtype.kind in "fc":
        bad = not np.isfinite(labels).all()
    elif labels.dtype.kind in "mM":
        bad = bool(np.isnat(labels).any())
    else:
        bad = labels.dtype.kind == "O" and any(map(_not_a_label, labels.tolist()))
    if bad:
        raise ValueError(
            f"{name} must hold labels, not NaN, infinity or None; got "
            f"{labels.tolist()}."
        )
    return np.unique(labels)


def _not_a_label(value):
    """Whether one label of an object array is missing, NaN or infinite.

    Of any type: None, pandas' NA, a NaN (Python, NumPy scalar of any width,
    Decimal: it never equals itself), an infinite number (a review: a float32
    NaN or inf passed the first version of this check).
    """
    if value is None:
        return True
    try:
        if bool(value != value):
            return True
    except (TypeError, ValueError):  # pandas' NA has no truth value
        return True
    if isinstance(value, (numbers.Number, np.number)):
        try:
            return cmath.isinf(complex(value))
        except (TypeError, ValueError, OverflowError):
            return False
    return False


def open_classes(estimator):
    """The ``classes`` parameters that a label set given from outside fills.

    Those left None under no declared one: a meta-estimator that declares
    ``classes`` hands its (public) label set to the estimators inside it, so
    theirs are not open (a review: a search filled the base learner of an
    active classifier declaring ``classes=[0, 1, 2]`` with the private label
    set, which then showed in the fitted model).

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_semiprivate import (
    ...     SemiPrivateClassifier, SubSamplingActiveClassifier)
    >>> from sklearn_semiprivate._public import open_classes
    >>> open_classes(make_pipeline(StandardScaler(), SemiPrivateClassifier()))
    ['semiprivateclassifier__classes']
    >>> open_classes(SubSamplingActiveClassifier(
    ...     SemiPrivateClassifier(), classes=[0, 1]))
    []
    >>> open_classes(SubSamplingActiveClassifier(
    ...     SemiPrivateClassifier(classes=[0, 1])))
    []
    >>> open_classes(SubSamplingActiveClassifier(SemiPrivateClassifier()))
    ['classes', 'estimator__classes']
    """
    deep = estimator.get_params(deep=True)
    slots = [k for k in deep if k == "classes" or k.endswith("__classes")]
    prefix = {k: k[: -len("classes")] for k in slots}
    declared = [prefix[k] for k in slots if deep[k] is not None]
    undeclared = [
        k
        for k in slots
        if deep[k] is None and not any(prefix[k].startswith(d) for d in declared)
    ]

    def below(k):
        return [j for j in slots if j != k and prefix[j].startswith(prefix[k])]

    # A meta-estimator's own slot (one with slots below it) is open only when
    # one of those is: with every estimator inside declaring its label set,
    # there is nothing to fill (a review: a nested search's unset classes
    # made the outer search read the private label set).
    return [
        k
        for k in undeclared
        if not below(k) or any(j in undeclared and not below(j) for j in below(k))
    ]


def declared_classes(estimator):
    """The label set declared in ``estimator`` (``classes`` or a nested
    ``*__classes`` that is not None), or None; two different ones are an
    error.

    What a meta-estimator without a ``classes`` of its own takes from the
    estimators inside it, however deep the declaration sits (a pipeline's
    last step, a PATE student): :func:`open_classes` counts its own slot as
    filled from below then.

    Examples
    --------
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_semiprivate import SemiPrivateClassifier
    >>> from sklearn_semiprivate import make_public_fitted_pipeline
    >>> from sklearn_semiprivate._public import declared_classes
    >>> declared_classes(make_public_fitted_pipeline(
    ...     StandardScaler(), SemiPrivateClassifier(classes=[0, 1])))
    [0, 1]
    """
    deep = estimator.get_params(deep=True)
    slots = sorted(
        (k for k in deep if k == "classes" or k.endswith("__classes")),
        key=lambda k: k.count("__"),
    )
    declared = [k for k in slots if deep[k] is not None]
    sets = {k: declared_label_set(deep[k], k) for k in declared}
    first = next(iter(sets.values()), None)
    for key, labels in sets.items():
        if labels.shape != first.shape or np.any(labels != first):
            # One estimator would predict labels another does not know (a
            # review: classes_ from the outer set, the inner one fitted, and
            # predict_proba indexing past the end).
            raise ValueError(
                f"Two different label sets are declared: {declared[0]}="
                f"{first.tolist()} and {key}={labels.tolist()}. Declare one "
                "label set (the outer estimator hands it down to those inside)."
            )
    return deep[declared[0]] if declared else None


def subsample_public(X_public, y_public, n_public, random_state):
    """Keep ``n_public`` public rows: a prefix of one seeded permutation.

    The permutation depends only on ``random_state`` and the public set's size,
    so the subsets chosen for increasing ``n_public`` are nested, as a grid search
    over ``n_public`` expects.

    Parameters
    ----------
    X_public : ndarray of shape (n_public_total, n_features)
        Validated public points.
    y_public : ndarray of shape (n_public_total,) or None
        Validated public labels.
    n_public : None, int or float
        ``None`` keeps all rows, an int ``>= 1`` that many rows, a float in
        ``(0, 1]`` that fraction of them (at least one).
    random_state : None, int, Generator or RandomState
        Seeds the permutation.

    Returns
    -------
    X_public, y_public : ndarrays
        The kept rows.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate._public import subsample_public
    >>> X = np.arange(10.0).reshape(-1, 1)
    >>> a, _ = subsample_public(X, None, 3, random_state=0)
    >>> b, _ = subsample_public(X, None, 6, random_state=0)
    >>> bool(np.array_equal(a, b[:3]))
    True
    """
    total = X_public.shape[0]
    if n_public is None:
        return X_public, y_public
    if isinstance(n_public, (bool, np.bool_)):
        raise TypeError("n_public must be None, an int or a float, got a bool.")
    if isinstance(n_public, numbers.Integral):
        if n_public < 1:
            raise ValueError(f"n_public must be >= 1, got {n_public}.")
        if n_public > total:
            raise ValueError(
                f"n_public={n_public} exceeds the {total} public rows available."
            )
        k = int(n_public)
    elif isinstance(n_public, numbers.Real):
        if not 0 < n_public <= 1:
            raise ValueError(
                f"A float n_public is a fraction in (0, 1], got {n_public}."
            )
        k = max(1, int(np.floor(n_public * total)))
    else:
        raise TypeError(
            f"n_public must be None, an int or a float, got {type(n_public).__name__}."
        )
    order = check_rng(random_state).permutation(total)[:k]
    return X_public[order], (None if y_public is None else y_public[order])


def without_column_names(X_public):
    """Public rows (``PublicData`` or raw) with data-frame column names dropped.

    For a meta-estimator that hands its base learner private rows as arrays:
    the public rows go as arrays too, so the base learner does not take the
    missing names for a pipeline that transformed ``X`` but not ``X_public``
    (a false ``PublicDataWarning``). Check the names against the private
    ``X``'s first (:func:`check_public_data` with ``feature_names``).
    """
    if isinstance(X_public, PublicData):
        return PublicData(without_column_names(X_public.X), X_public.y)
    return X_public.to_numpy() if hasattr(X_public, "columns") else X_public
