"""The domain box of a fit: from ``bounds=``, public data, or a warned private read.

Estimators without public data need a box for their geometry (scaling, a
grid, a clipping range). It comes from the ``bounds`` parameter; the only
fallback that reads private rows (:func:`infer_bounds_with_leak`) warns with
a ``PrivacyLeakWarning``. Meta-estimators refuse, before their charge, an inner
learner that would take its box off the rows they fit it on
(:func:`refuse_unset_bounds`).
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

from ..utils._private_reads import warn_private_read

__all__ = [
    "base_read_refused",
    "check_bounds",
    "data_independent_points",
    "domain_box",
    "infer_bounds_with_leak",
    "refuse_unset_bounds",
    "unset_bounds",
]


def infer_bounds_with_leak(X):
    """Domain bounds read off the private rows, with a ``PrivacyLeakWarning``.

    The fallback when there is neither public data nor ``bounds=``: the released
    model then depends on the private range without privacy. Constant features
    get a unit-wide box.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Private rows.

    Returns
    -------
    bounds : ndarray of shape (n_features, 2)

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._bounds import infer_bounds_with_leak
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     infer_bounds_with_leak(np.array([[0.0, 1.0], [2.0, 1.0]])).tolist()
    [[0.0, 2.0], [0.5, 1.5]]
    """
    warn_private_read(
        "No bounds= were given and there is no public data to take them from, so "
        "the domain bounds are read "
        "from the private X; the released model then leaks the range of the "
        "private data. Pass bounds=... or public data to avoid this.",
        stacklevel=3,
    )
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = np.where(hi > lo, 0.0, 0.5)
    return np.column_stack([lo - pad, hi + pad])


def domain_box(bounds, data, *, allow_leak):
    """The domain box of a fit without public data, or None.

    ``bounds`` when given; else, with ``allow_leak`` (after the reservation),
    the private rows' range with a ``PrivacyLeakWarning``; else None. None
    too when there is public data (which then sets the geometry).

    Parameters
    ----------
    bounds : array-like or None
        The estimator's ``bounds`` parameter.
    data : PreparedData
        The fit's validated inputs.
    allow_leak : bool
        Whether the private range may be read (with a warning).

    Returns
    -------
    box : ndarray of shape (n_features, 2) or None
    """
    # Checked even when public data sets the geometry: an invalid parameter
    # is an error whether or not this fit uses it.
    box = None if bounds is None else check_bounds(bounds, data.X.shape[1])
    if data.X_public is not None:
        return None
    if box is not None:
        return box
    return infer_bounds_with_leak(data.X) if allow_leak else None


def _fitted_on_the_rows(learner, params, key):
    """Whether this check decides for the ``bounds`` parameter ``key``.

    Not for an estimator that an owner lists in ``_params_not_fitted_on_rows``:
    it is never fitted on the owner's rows, or its fit reaches the output only
    through the owner's mechanism (a final estimator on public points, PATE's
    student and teachers, the synthetic classifier's learner), so a box it
    reads is not read off private rows (a review found them refused). Nor for
    a search's estimator (``_params_set_by_candidates``), whose candidates may
    set its box: one that does not is refused by the meta-estimator's probe
    on placeholder rows before the charge, or else at the read
    (:func:`~sklearn_semiprivate.utils.private_reads_refused`).
    """
    path = key.split("__")[:-1]
    for depth, name in enumerate(path):
        owner = learner if depth == 0 else params.get("__".join(path[:depth]))
        skipped = getattr(owner, "_params_not_fitted_on_rows", ()) + getattr(
            owner, "_params_set_by_candidates", ()
        )
        if name in skipped:
            return False
    return True


def base_read_refused(rows, *, charged):
    """Why LabelBoost or the active learner stops its base learner's read.

    The message of :func:`~sklearn_semiprivate.utils.private_reads_refused`
    around the base learner's fit on ``rows``: in the probe on placeholder
    rows before the charge (``charged=False``), or in the real fit after it.

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._bounds import base_read_refused
    >>> base_read_refused("its private rows", charged=False)[:39]
    'The base learner would read a value off'
    """
    when = (
        "The fit is stopped; the ledgers stay charged."
        if charged
        else "Refused before the charge (found on placeholder rows; nothing was spent)."
    )
    return (
        f"The base learner {'read' if charged else 'would read'} a value off "
        f"{rows} outside its stated cost (a search's candidate without "
        "bounds=, a pipeline fitting its transformers on private rows, ...), "
        f"so privacy_spent_ would not hold. {when} Give the base learner (and "
        "every candidate) its bounds= and classes=, or public data."
    )


def unset_bounds(learner):
    """The ``bounds`` parameters left at None that a fit would read off its rows.

    At any depth (``learner.get_params(deep=True)``), except those of inner
    learners never fitted on the learner's rows (see
    :func:`_fitted_on_the_rows`). Without public data, each would be read off
    the rows the learner is fitted on.

    Parameters
    ----------
    learner : estimator

    Returns
    -------
    keys : list of str
        Sorted parameter names (``"bounds"``, ``"clf__bounds"``, ...).

    Examples
    --------
    >>> from sklearn_semiprivate import SemiPrivateClassifier
    >>> from sklearn_semiprivate.classifiers._bounds import unset_bounds
    >>> unset_bounds(SemiPrivateClassifier(final_estimator=SemiPrivateClassifier()))
    ['bounds']
    """
    params = learner.get_params(deep=True)
    return sorted(
        key
        for key, value in params.items()
        if value is None
        and key.rsplit("__", 1)[-1] == "bounds"
        and _fitted_on_the_rows(learner, params, key)
    )


def refuse_unset_bounds(learner, has_public, *, reason):
    """Refuse an inner learner that would read its domain box off private rows.

    A learner of this package with a ``bounds`` parameter (at any depth, e.g.
    the last step of a pipeline, or the base of a base) left at None, and no
    public data to take the box from, reads the range of the rows a
    meta-estimator fits it on: private rows, outside the stated cost (with
    only a ``PrivacyLeakWarning``, and the meta-estimator's ``privacy_spent_``
    would still state its full guarantee). Checked on parameters alone,
    before the charge.

    Parameters
    ----------
    learner : estimator
        The inner learner (``get_params(deep=True)`` is read).
    has_public : bool
        Whether public rows are routed to the learner's fit.
    reason : str
        Which rows the learner is fitted on and which guarantee breaks, for
        the message.

    Examples
    --------
    >>> from sklearn_semiprivate import PrivateSGDClassifier
    >>> from sklearn_semiprivate.classifiers._bounds import refuse_unset_bounds
    >>> refuse_unset_bounds(PrivateSGDClassifier(bounds=(-1, 1)), False, reason="")
    >>> refuse_unset_bounds(PrivateSGDClassifier(), True, reason="")
    """
    if has_public:
        return
    unset = unset_bounds(learner)
    if unset:
        names = ", ".join(f"estimator__{key}" for key in unset)
        raise ValueError(
            f"The {reason}. Its bounds are None ({names}) and no public data "
            "is passed to fit, so it would read its domain box off those rows, "
            "outside the accounting. Set its bounds= or pass X_public."
        )


def check_bounds(bounds, n_features):
    """Return ``bounds`` as an array of shape ``(n_features, 2)`` with lo < hi.

    Parameters
    ----------
    bounds : array-like of shape (2,) or (n_features, 2)
        ``(lo, hi)`` for every feature, or one pair for all of them.
    n_features : int
        Number of features.

    Returns
    -------
    bounds : ndarray of shape (n_features, 2)

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._bounds import check_bounds
    >>> check_bounds((0, 1), 2).tolist()
    [[0.0, 1.0], [0.0, 1.0]]
    """
    b = np.asarray(bounds, dtype=np.float64)
    if b.shape == (2,):
        b = np.tile(b, (n_features, 1))
    if b.shape != (n_features, 2):
        raise ValueError(
            f"bounds must have shape (2,) or ({n_features}, 2), got {b.shape}."
        )
    if not np.all(np.isfinite(b)) or np.any(b[:, 0] >= b[:, 1]):
        raise ValueError("bounds must be finite with lo < hi for every feature.")
    return b


def data_independent_points(bounds, n_points, rng):
    """A seeded Latin-hypercube design inside ``bounds``: public pseudo-points.

    Used in place of public data when there is none (the generic private learner
    of Kasiviswanathan et al. 2008 over a discretised domain). Every feature takes
    ``n_points`` evenly spaced values strictly inside its bounds, each feature's
    values in an independent random order, so that hypotheses on different
    features label the points differently. Depends on ``bounds``, ``n_points`` and
    ``rng`` only, never on private data.

    Parameters
    ----------
    bounds : ndarray of shape (n_features, 2)
        Domain box.
    n_points : int
        Number of points.
    rng : numpy.random.Generator
        Source of the permutations.

    Returns
    -------
    points : ndarray of shape (n_points, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._bounds import data_independent_points
    >>> P = data_independent_points(np.array([[0.0, 1.0]]), 4, np.random.default_rng(0))
    >>> sorted(P[:, 0].tolist())
    [0.125, 0.375, 0.625, 0.875]
    """
    n_features = bounds.shape[0]
    levels = (np.arange(n_points) + 0.5) / n_points
    cols = [rng.permutation(levels) for _ in range(n_features)]
    unit = np.column_stack(cols)
    return bounds[:, 0] + unit * (bounds[:, 1] - bounds[:, 0])
