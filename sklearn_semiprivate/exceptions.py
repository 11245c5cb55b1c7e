"""Exceptions and warnings raised by sklearn_semiprivate."""

# SPDX-License-Identifier: BSD-3-Clause

__all__ = ["PrivacyBudgetError", "PrivacyLeakWarning", "PublicDataWarning"]


class PrivacyBudgetError(ValueError):
    """Raised when a release would exceed a privacy budget.

    Estimators reserve their whole cost atomically before their first private
    read, so a refused fit has read nothing and spent nothing. It is also
    raised by a detached copy of an in-memory ledger (unpickled in another
    process), which fails closed rather than lose the spends.

    Examples
    --------
    >>> from sklearn_semiprivate import PrivacyAccountant, PrivacyBudgetError
    >>> acc = PrivacyAccountant(epsilon=1.0)
    >>> try:
    ...     acc.check(2.0)
    ... except PrivacyBudgetError as exc:
    ...     print("refused")
    refused
    """


class PrivacyLeakWarning(UserWarning):
    """Warns that a value is being derived from private data outside a mechanism.

    The ecosystem's convention (diffprivlib, OpenDP): raised, for example, when no
    public data and no ``bounds`` are given, so bounds have to be read off the private
    rows; or when the label set is taken from the private ``y``. The resulting model is
    then **not** differentially private with respect to that information.

    Examples
    --------
    >>> import warnings
    >>> from sklearn_semiprivate import PrivacyLeakWarning
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("bounds read from private data", PrivacyLeakWarning)
    >>> caught[0].category.__name__
    'PrivacyLeakWarning'
    """


class PublicDataWarning(UserWarning):
    """Warns about public data passed in a way that is likely a mistake.

    For example a raw array ``X_public``: scikit-learn's cross-validation slices
    an array as long as the private ``X`` per fold, so the public set seen by
    each fit would silently shrink. It is raised for every raw array, whatever
    its length (a warning that fired only at the private row count would
    depend on private data). Wrap it in :class:`~sklearn_semiprivate.PublicData`
    instead.

    Also raised when a semi-private estimator is fitted with no public data
    and no ``bounds`` (message "No public data: ..."): it then falls back to
    private-only learning, most likely because ``X_public`` was forgotten
    (e.g. not routed through a search or pipeline). Pass ``bounds=`` to ask
    for private-only learning without the warning. Like every warning of the
    package, it depends on public inputs only.

    Examples
    --------
    >>> from sklearn_semiprivate.exceptions import PublicDataWarning
    >>> issubclass(PublicDataWarning, UserWarning)
    True
    """
