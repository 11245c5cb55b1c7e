"""What every semi-private estimator does before it reads a private row.

One path, shared by the estimators: validate the parameters and the private input
format, validate the public data against it, resolve the label set from public
sources and subsample the public set. Checks whose question a parameter chooses
(labels within ``classes``) come after the ledger is charged. Nothing here
releases anything computed from private rows.
"""

# SPDX-License-Identifier: BSD-3-Clause

import warnings

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from .._public import (
    check_public_data,
    column_names,
    declared_classes,
    declared_label_set,
    resolve_classes,
    subsample_public,
)
from ..exceptions import PublicDataWarning
from ..utils._private_errors import call_on_private
from ..utils._private_reads import reads_are_not_leaks
from ..utils._sklearn_compat import validate_data

__all__ = [
    "PreparedData",
    "check_label_set",
    "check_private_labels",
    "describe_member",
    "prepare_fit_data",
    "warn_no_public_data",
]


class PreparedData:
    """Validated inputs of a semi-private ``fit``.

    Attributes
    ----------
    X, y : ndarrays
        Private rows and labels (protected).
    X_public, y_public : ndarray or None
        Public rows (already subsampled to ``n_public``) and labels.
    classes : ndarray
        Sorted label set, from public sources unless a leak was warned about.
    """

    __slots__ = ("X", "X_public", "classes", "y", "y_public")

    def __init__(self, X, y, X_public, y_public, classes):
        self.X = X
        self.y = y
        self.X_public = X_public
        self.y_public = y_public
        self.classes = classes


def prepare_fit_data(estimator, X, y, X_public, y_public, *, classes, n_public, rng):
    """Validate a semi-private classifier's fit inputs, before any private release.

    Sets ``n_features_in_`` (and ``feature_names_in_``) on ``estimator``. Reads the
    private rows only to check their format (shapes, finite numbers, class-like
    labels), questions no parameter can change; such errors stop the fit before
    the ledger is charged. Whether every private label is in ``classes`` is a
    question a parameter chooses: the caller asks it with
    :func:`check_private_labels` after reserving the budget.

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator being fitted.
    X : array-like of shape (n_samples, n_features)
        Private rows.
    y : array-like of shape (n_samples,)
        Private labels.
    X_public : PublicData, array-like or None
        Public rows.
    y_public : array-like or None
        Public labels when ``X_public`` is a raw array.
    classes : array-like or None
        Declared label set (public).
    n_public : None, int or float
        How much of the public set to keep (see ``subsample_public``).
    rng : numpy.random.Generator or None
        Stream for the public subsample only (unused without public data).

    Returns
    -------
    data : PreparedData
    """
    y_kind = label_kind(y)  # before validation turns pandas labels to objects
    names = column_names(X)  # any labels, not only feature_names_in_'s strings
    # Format errors come before the charge: their messages must not quote a
    # private value (scikit-learn's do, e.g. "could not convert string to
    # float: '<cell>'"), so only a value-free start of them is kept.
    X, y = call_on_private(
        validate_data,
        estimator,
        X,
        y,
        reset=True,
        dtype=np.float64,
        what="the private rows (X, y)",
    )
    call_on_private(check_classification_targets, y, what="the private labels (y)")
    # A meta-estimator without classes= of its own takes the label set
    # declared inside it (a review: PATE over students declaring [0, 1, 2]
    # read [0, 1] off the private rows); two different ones are an error.
    inner = declared_classes(estimator)
    if classes is None:
        classes = inner
    declared = None if classes is None else declared_label_set(classes)
    Xp, yp = check_public_data(
        X_public,
        y_public,
        n_features=X.shape[1],
        feature_names=names,
        classes=declared,
    )
    # The label set comes from the *whole* public set, before subsampling, so
    # that it never depends on which public rows a small n_public keeps.
    classes_ = resolve_classes(declared, yp, y)
    if declared is None and yp is None and classes_.size < 2:
        # Read off the private labels (the leak-warned fallback): the message
        # names no label (it did: an exhausted ledger released the one label
        # of the private rows in this error, found in review).
        raise ValueError(
            "A classifier needs at least two classes, and the label set read "
            "from the private labels (no classes= and no public labels) holds "
            "only one class. Pass classes=... listing every possible label."
        )
    check_label_set(classes_)
    check_label_kinds(y, classes_, kind=y_kind)
    if Xp is not None:
        Xp, yp = subsample_public(Xp, yp, n_public, rng)
    elif n_public is not None and not isinstance(n_public, (int, np.integer)):
        raise ValueError(
            "A fractional n_public needs public data; without public data an int "
            "n_public sets the size of the data-independent grid."
        )
    return PreparedData(X, y, Xp, yp, classes_)


def check_label_set(classes):
    """Check the (public, or leak-warned) label set has at least two classes.

    Parameters
    ----------
    classes : ndarray of shape (n_classes,)
        Sorted label set.

    Returns
    -------
    classes : ndarray of shape (n_classes,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._base import check_label_set
    >>> check_label_set(np.array([0, 1, 2])).tolist()
    [0, 1, 2]
    """
    if classes.size < 2:
        raise ValueError(
            "A classifier needs at least two classes, got one class: the label set "
            f"is {classes.tolist()}. Pass classes=... listing every possible label."
        )
    return classes


def label_kind(y):
    """The NumPy kind of a label column's declared type, read off its dtype.

    A NumPy array's kind; for pandas labels, which NumPy sees as objects,
    ``"U"`` for a string dtype (``str``, ``string[...]``) and the categories'
    kind for a categorical; None where the dtype does not say. No value is
    read. pandas is not imported: its dtypes are recognised by their names.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._base import label_kind
    >>> label_kind(np.array([0, 1])), label_kind([0, 1])
    ('i', None)
    """
    dtype = getattr(y, "dtype", None)
    dtypes = getattr(y, "dtypes", None)  # a one-column frame
    if dtype is None and dtypes is not None and len(dtypes) == 1:
        dtype = next(iter(dtypes))
    categories = getattr(dtype, "categories", None)
    if categories is not None:
        dtype = getattr(categories, "dtype", None)
    if isinstance(dtype, np.dtype):
        return None if dtype.kind == "O" else dtype.kind
    name = str(dtype)
    if name == "str" or name.startswith("string"):
        return "U"
    return None


def check_label_kinds(y, classes, name="y", kind=None, hint=True):
    """Refuse string labels against a numeric label set, or the reverse.

    No label can then match, whatever the values: a format fact (the arrays'
    dtypes), like a string in ``X``, so refused before the charge (a review:
    ``y=['a', 'b']`` with ``classes=[0, 1]`` was charged, then failed the
    membership check). Object arrays can hold either, so they are left to
    :func:`check_private_labels`, unless ``kind``, the labels' declared kind
    (:func:`label_kind`: a pandas string or categorical column), says more.
    ``hint`` adds how meta-estimators code labels (for classifiers).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._base import check_label_kinds
    >>> check_label_kinds(np.array(["a", "b"]), np.array([0, 1]))
    Traceback (most recent call last):
    ...
    ValueError: y holds strings but the label set [0, 1] holds numbers: ...
    """
    kinds = [kind or np.asarray(y).dtype.kind, np.asarray(classes).dtype.kind]
    # Strings (NumPy's fixed-width and StringDType) against numbers (bool
    # included); any other pair, object arrays among them, is left alone.
    what = ["strings" if k in "UST" else "numbers" if k in "biufc" else None
            for k in kinds]  # fmt: skip
    if None in what or what[0] == what[1]:
        return
    raise ValueError(
        f"{name} holds {what[0]} but the label set {classes.tolist()} holds "
        f"{what[1]}: no label can match. Pass classes= of the labels' type (or "
        f"encode {name})." + (_encoded_labels_hint(classes) if hint else "")
    )


def check_private_labels(y, classes, hint=True):
    """Check every private label is in ``classes``: call it after the reservation.

    The question this check asks ("is some private label outside the set?") is
    chosen by a public parameter, so asked before the budget is charged it
    would be a free, exact oracle (e.g. ``classes=[0, 1]`` reveals whether a
    label 2 occurs), even on an exhausted ledger. Estimators therefore run it
    after :func:`~sklearn_semiprivate.accounting._reservation.reserve_budget`:
    a fit it stops stays charged. The answer itself is still exact and outside
    the guarantee (see the limitations page); the message says "some labels",
    never how many or which.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Private labels.
    classes : ndarray of shape (n_classes,)
        Sorted label set from public sources (or from ``y`` after a leak warning).
    hint : bool, default=True
        Add how meta-estimators code labels (for classifiers; not for a
        query release).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._base import check_private_labels
    >>> check_private_labels(np.array([0, 1, 1]), np.array([0, 1, 2]))
    """
    if not np.all(np.isin(y, classes)):
        raise ValueError(
            "y has some labels that are not among the classes "
            f"{classes.tolist()} (taken from classes= or the public labels)."
            + (_encoded_labels_hint(classes) if hint else "")
        )


def _encoded_labels_hint(classes):
    """Why a meta-estimator's labels miss ``classes``, and what to pass instead.

    Depends on the (public) label set only, never on the private labels: the
    hint is given whenever ``classes`` are not already the codes
    ``0 .. n_classes - 1``, whichever labels made the check fail; for the
    codes ``[0, 1]`` it names ``OutputCodeClassifier``'s ``{-1, 1}`` coding.
    """
    codes = np.arange(classes.size)
    if classes.dtype.kind in "iub" and np.array_equal(classes, codes):
        if classes.size != 2:
            return ""
        return (
            " OutputCodeClassifier codes its binary problems as {-1, 1} when "
            "the estimator has decision_function (as the logistic regression "
            "does), else as {0, 1}: inside it, declare classes=[-1, 1]."
        )
    return (
        " Meta-estimators such as VotingClassifier, BaggingClassifier and "
        "StackingClassifier encode the labels as 0..n_classes-1 before fitting "
        "their estimators. Inside one, declare the encoded labels, "
        f"classes={codes.tolist()} (the position of each label in "
        f"{classes.tolist()}), and encode public labels, if any, the same way; "
        "the meta-estimator maps predictions back to the original labels. "
        "One-vs-rest and one-vs-one wrappers fit binary problems: declare "
        "classes=[0, 1] inside them, with unlabeled public data."
    )


def warn_no_public_data(estimator, stacklevel=3):
    """Warn that a semi-private estimator is fitted without public data.

    Called when there is no public data and no ``bounds``: the fit then falls
    back to private-only learning on a grid, which is the likely result of a
    forgotten ``X_public``. Depends only on public inputs (whether public data
    and ``bounds`` were given), never on private data. Not raised for an
    inner fit on public, released or synthetic rows
    (:func:`~sklearn_semiprivate.utils.reads_not_leaks`: PATE's student, the
    synthetic classifier's learner, a final estimator), whose caller cannot
    pass it public data.

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator being fitted (for its class name).
    stacklevel : int, default=3
        Passed to :func:`warnings.warn`.

    Examples
    --------
    >>> import warnings
    >>> from sklearn_semiprivate import PublicDataWarning, SemiPrivateClassifier
    >>> from sklearn_semiprivate.classifiers._base import warn_no_public_data
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_no_public_data(SemiPrivateClassifier())
    >>> caught[0].category is PublicDataWarning
    True
    """
    if reads_are_not_leaks():
        return
    warnings.warn(
        f"No public data: {type(estimator).__name__} was fitted with "
        "X_public=None and bounds=None, so it falls back to private-only "
        "learning on a data-independent grid, usually far less accurate. Pass "
        "X_public=PublicData(X_pub) to fit (inside a search or pipeline: with "
        "metadata routing, or as <step>__X_public), or pass bounds=(lo, hi) to "
        "ask for private-only learning.",
        PublicDataWarning,
        stacklevel=stacklevel,
    )


def describe_member(cover, member, feature_names):
    """``cover.describe(member)``, with the feature names when there are some.

    ``feature_names`` is passed only when not None, so a cover written against
    the older protocol (``describe(member)`` alone) keeps working on arrays.
    """
    if feature_names is None:
        return cover.describe(member)
    return cover.describe(member, feature_names=feature_names)
