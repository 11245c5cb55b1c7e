"""The public-data reduction of Alon, Bassily & Moran (2019), Alg. 2-4, Lemma 4.4.

A semi-private learner that needs ``n_public`` public examples is turned into a
*fully private* learner: its private sample mixes the real examples, at rate
``p = 1 / (100 n_public)``, into dummy examples with uniformly random labels
(PrivSamp, Alg. 3), and its public sample is all dummies (PubSamp, Alg. 4). The
reduction exists to study the lower bound: if the semi-private learner had excess
error ``alpha`` with few public examples, the private learner would have error
``<= 100 n_public alpha`` on realizable distributions (Claim 4.6), which private
learning lower bounds forbid for classes of infinite Littlestone dimension.

Research only: it lives in :mod:`sklearn_semiprivate.research`, apart from the
estimators meant for data one wants to learn from.
"""

# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted

from .._public import PublicData, open_classes
from ..accounting import PrivacyAccountant
from ..accounting._reservation import (
    InnerLedgersMixin,
    probe_on_placeholders,
    replace_one_base_cost,
    reserve_on_every_ledger,
)
from ..classifiers._base import check_private_labels, prepare_fit_data
from ..utils._nested_fit import forget_secret_seeds, seed_unset_random_states
from ..utils._private_errors import call_inner_on_private
from ..utils._rng import noise_rng, public_seed, spawn_rngs
from ..utils._sklearn_compat import (
    HasMethods,
    Interval,
    _fit_context,
    validate_data,
)

__all__ = ["PublicDataReduction", "priv_samp", "pub_samp"]


def _standard_normal_sampler(n_samples, n_features, rng):
    return rng.standard_normal((n_samples, n_features))


def priv_samp(n_real, n_private, p, rng):
    """Positions of the real examples in PrivSamp's output (Alg. 3).

    For ``i = 1 .. n_private``, draw ``b_i ~ Ber(p)``; where ``b_i = 1`` the next
    real example is placed, elsewhere a fresh dummy. The loop of Alg. 3 stops when
    the real sample is used up, so the output may be shorter than ``n_private``.
    Vectorised: the positions are the first ``n_real`` successes.

    Parameters
    ----------
    n_real : int
        Number of real (private) examples, ``ñ``.
    n_private : int
        Sample size the semi-private learner expects.
    p : float
        Mixing rate, in ``(0, 1]``.
    rng : numpy.random.Generator
        Source of the coins.

    Returns
    -------
    length : int
        Length of the generated private sample.
    real_positions : ndarray of shape (n_used,)
        Increasing positions at which real examples ``0, 1, ..., n_used - 1``
        are placed; every real example appears at most once (Claim 4.5).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.research import priv_samp
    >>> length, pos = priv_samp(3, 1000, 0.01, np.random.default_rng(0))
    >>> len(pos) <= 3 and length <= 1000
    True
    """
    coins = rng.random(n_private) < p
    successes = np.flatnonzero(coins)
    if successes.size >= n_real:
        # S~ is exhausted at the n_real-th success: the while loop exits there.
        positions = successes[:n_real]
        length = int(positions[-1]) + 1 if n_real else 0
        return length, positions
    return n_private, successes


def pub_samp(n_public, n_features, classes, dummy_sampler, rng):
    """PubSamp (Alg. 4): ``n_public`` fresh dummy examples from D0.

    Parameters
    ----------
    n_public : int
        Number of public examples.
    n_features : int
        Number of features.
    classes : ndarray
        Label set; dummy labels are uniform over it.
    dummy_sampler : callable
        ``dummy_sampler(n_samples, n_features, rng)`` returning the dummy points.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    X : ndarray of shape (n_public, n_features)
    y : ndarray of shape (n_public,)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.research import pub_samp
    >>> def sampler(n, d, rng):
    ...     return rng.standard_normal((n, d))
    >>> X, y = pub_samp(4, 2, np.array([0, 1]), sampler, np.random.default_rng(0))
    >>> X.shape, set(y.tolist()) <= {0, 1}
    ((4, 2), True)
    """
    X = np.asarray(dummy_sampler(n_public, n_features, rng), dtype=np.float64)
    if X.shape != (n_public, n_features):
        raise ValueError(
            f"dummy_sampler returned shape {X.shape}, expected "
            f"{(n_public, n_features)}."
        )
    return X, classes[rng.integers(classes.size, size=n_public)]


class PublicDataReduction(InnerLedgersMixin, ClassifierMixin, BaseEstimator):
    """A fully private learner built from a semi-private one (Lemma 4.4).

    Given a private sample of size ``ñ``, it asks the wrapped semi-private learner
    for ``n_private = 10 · n_public · ñ`` private and ``n_public`` public examples
    (so that ``ñ = ⌈n_private / (10 n_public)⌉`` as in Alg. 2), and feeds it:

    * private: PrivSamp (Alg. 3) — each position holds the next real example with
      probability ``p = 1 / (100 n_public)``, a dummy otherwise;
    * public: PubSamp (Alg. 4) — ``n_public`` dummies, none of them real.

    Dummies come from a fixed distribution D0: points from ``dummy_sampler``
    (standard normal by default) and labels uniform over ``classes``.

    Real public rows, when ``fit`` is given some (``X_public``), are not needed
    by the construction; they are passed through to the wrapped learner's
    public sample, *after* PubSamp's ``n_public`` dummies. With public labels
    the public sample is labeled: the dummies keep their D0 labels (uniform
    over ``classes``, as PubSamp draws them) and the real rows their own.
    Without public labels it is unlabeled, as with no public rows.

    Parameters
    ----------
    estimator : estimator
        A semi-private classifier with ``fit(X, y, X_public=...)``, such as
        :class:`~sklearn_semiprivate.SemiPrivateClassifier`. Its own
        ``n_public`` should be None (all).
    n_public : int
        Number of PubSamp dummies in the wrapped learner's public sample,
        ``>= 1`` (the paper's ``n_pub``).
    dummy_sampler : callable, default=None
        ``dummy_sampler(n_samples, n_features, rng) -> ndarray`` drawing dummy
        points; must not look at data. None: standard normal.
    classes : array-like of shape (n_classes,), default=None
        Label set of the dummy labels (the paper's is binary, ``{0, 1}``). If
        None, taken from the public labels, else read from the private ``y``
        with a :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    accountant : PrivacyAccountant, default=None
        Ledger charged ``privacy_spent_`` per fit, atomically, before the
        first private read. A ledger of the wrapped learner (nested ones too)
        is charged the same cost once, with this one, and the learner is
        fitted with its ledgers cleared, then names them again.
    random_state : int, RandomState instance or None, default=None
        Seeds the public-side randomness only: PubSamp's dummies, and the
        wrapped learner's ``random_state`` when it has none and is of this
        package (which seeds its public side only with it) or scikit-learn.
        Another library's learner may draw its noise from its
        ``random_state``: it gets a secret seed. PrivSamp's coins
        and dummies, which hide where the real rows sit, are fresh OS entropy
        on every fit.

    Attributes
    ----------
    estimator_ : estimator
        The fitted wrapped learner.
    classes_ : ndarray of shape (n_classes,)
        Label set.
    n_features_in_ : int
        Number of features.
    privacy_spent_ : PrivacyCost
        The wrapped learner's replace-one cost: its ``privacy_spent_`` when
        that holds for replace-one, else doubled by group privacy (see Notes).

    See Also
    --------
    sklearn_semiprivate.SemiPrivateClassifier : the semi-private learner to
        wrap; with real public data, use it directly.

    Notes
    -----
    **Privacy.** The wrapped learner's ``(epsilon, delta)`` for replace-one
    neighbours of its sample (its own, or ``(2 epsilon, (1 + e^epsilon)
    delta)`` by group privacy for an add/remove learner), for **replace-one**
    neighbours of the real rows (Claim 4.5): the public sample contains no real
    example, each real example appears at most once in the private sample, and
    which positions they take depends only on coins independent of the data, so
    replacing one real row replaces at most one row of the generated sample.
    Add/remove is *not* covered: the generated sample's length is
    ``10 n_public n``, so adding a row changes it by many dummy rows. The number
    of private rows ``n`` is treated as public. Real public rows (``X_public``,
    ``y_public``) are not protected and join only the public sample; the
    guarantee holds because the wrapped learner is DP in its private sample
    for *every* public sample (the argument of Claim 4.5), which is the case
    for the learners of this package. This cost is what the reduction
    reserves on its ledger and the learner's, before PrivSamp reads a row
    (until a review in November 2026 only the learner's ledger was charged,
    its own add/remove cost, and a search could not take the reduction as a
    candidate: its stated cost was not the one reserved).

    **Utility.** If the wrapped learner has excess error ``alpha`` with
    ``n_public`` public examples, the output has error ``<= 100 n_public alpha``
    on distributions realizable by the class, w.p. ``>= 1 - 1/16`` (Claim 4.6).
    The claim is about the dummy-only public sample; real public rows from the
    target distribution can only add information the analysis does not use.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import SemiPrivateClassifier
    >>> from sklearn_semiprivate.research import PublicDataReduction
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((20, 1))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> learner = SemiPrivateClassifier("thresholds", classes=[0, 1])
    >>> red = PublicDataReduction(learner, n_public=5, classes=[0, 1], random_state=0)
    >>> red = red.fit(X, y)
    >>> red.estimator_.privacy_spent_ == red.privacy_spent_
    True
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        "n_public": [Interval(Integral, 1, None, closed="left")],
        "dummy_sampler": [callable, None],
        "classes": ["array-like", None],
        "accountant": [PrivacyAccountant, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator,
        *,
        n_public,
        dummy_sampler=None,
        classes=None,
        accountant=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.n_public = n_public
        self.dummy_sampler = dummy_sampler
        self.classes = classes
        self.accountant = accountant
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, X_public=None, y_public=None):
        """Run the wrapped learner on PrivSamp/PubSamp samples built from ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The real private sample ``S~``.
        y : array-like of shape (n_samples,)
            Its labels, elements of ``classes``.
        X_public : PublicData or array-like of shape (n_public_rows, n_features), \
                default=None
            Real public rows, preferably wrapped in
            :class:`~sklearn_semiprivate.PublicData` (which may carry labels):
            appended to PubSamp's dummies in the wrapped learner's public
            sample. None: the public sample is PubSamp's dummies only, as in
            the paper.
        y_public : array-like of shape (n_public_rows,), default=None
            Public labels when ``X_public`` is a raw array.

        Returns
        -------
        self : object
        """
        data = prepare_fit_data(
            self,
            X,
            y,
            X_public,
            y_public,
            classes=self.classes,
            n_public=None,
            rng=None,
        )
        X, y, classes = data.X, data.y, data.classes
        sampler = self.dummy_sampler or _standard_normal_sampler
        # Public side first: PubSamp's dummies (public-side seed) and the
        # learner, seeded where its random_state is None (a learner of this
        # package seeds only its public side with it), its open label sets
        # (nested ones too) set to D0's public one: never read off S_priv.
        rng_pub, rng_fit = spawn_rngs(self.random_state, 2)
        X_pub, y_pub = pub_samp(self.n_public, X.shape[1], classes, sampler, rng_pub)
        public = self._public_sample(X_pub, y_pub, data)
        # Another library's learner may draw its noise from random_state: a
        # public seed would fix it (a review), so it gets a secret one.
        est = seed_unset_random_states(
            clone(self.estimator),
            public_seed(rng_fit),
            secret_seed=public_seed(noise_rng(self.random_state)),
        )
        est.set_params(**dict.fromkeys(open_classes(est), classes))
        n_real = X.shape[0]
        p = 1.0 / (100 * self.n_public)  # Alg. 2 step 2
        n_private = 10 * self.n_public * n_real  # so n~ = ceil(n_private / (10 n_pub))
        # The learner's refusals of data of this format, free as when it is
        # fitted alone: its own fit on placeholder rows, up to its reservation.
        probe_on_placeholders(
            clone(est),
            n_private,
            X.shape[1],
            classes,
            fit=lambda e, X_p, y_p: e.fit(X_p, y_p, X_public=public),
        )
        # Reserved atomically before PrivSamp reads a row, on this ledger and
        # every ledger of the learner, each once; the learner is fitted with
        # its ledgers cleared (it would charge its own cost again).
        cost = self._privacy_cost(X_public=X_public, y_public=y_public)
        cleared = reserve_on_every_ledger(self, cost)
        est.set_params(**cleared)
        check_private_labels(y, classes)

        # PrivSamp's coins and dummies decide where the real rows sit in the
        # learner's private sample: privacy noise, fresh on every fit.
        rng_coins = noise_rng(self.random_state)
        length, positions = priv_samp(n_real, n_private, p, rng_coins)
        X_priv, y_priv = pub_samp(length, X.shape[1], classes, sampler, rng_coins)
        used = positions.size
        # S~ is taken in a random order, so that the rows that make it in are a
        # uniform subset (the data may be sorted, e.g. by label).
        order = rng_coins.permutation(n_real)[:used]
        X_priv[positions] = X[order]
        # A dtype that holds every private label as it is (they are all in
        # ``classes``, checked above): casting to the dummies' dtype could
        # truncate a string label.
        y_priv = y_priv.astype(np.result_type(y_priv.dtype, y.dtype), copy=False)
        y_priv[positions] = y[order]
        # The wrapped learner is DP in its private sample; each real row sits in
        # at most one position of it (Claim 4.5), so the reduction inherits it.
        # A learner of another library may quote its rows in an error.
        self.estimator_ = call_inner_on_private(
            est, "fit", X_priv, y_priv, X_public=public,
            what="the wrapped learner's fit",
        )  # fmt: skip
        self._name_inner_ledgers()
        # Its secret seed (another library's learner) must not stay in it.
        forget_secret_seeds(self.estimator_, self.estimator)
        self.classes_ = classes
        self.privacy_spent_ = cost
        return self

    def _privacy_neighbours(self, **fit_params):
        """The neighbours ``_privacy_cost`` holds for: replace-one only (Claim 4.5)."""
        return "replace-one"

    def _privacy_cost(self, X_public=None, y_public=None, **fit_params):
        """What ``fit`` spends: the wrapped learner's cost (Claim 4.5).

        The wrapped learner reserves its own cost on its own accountant; the
        reduction adds nothing (each real row sits in at most one position of
        the private sample), so its guarantee is the learner's for replace-one
        neighbours of that sample: the learner's cost when it holds for
        replace-one (or both), else its group-privacy doubling (an add/remove
        learner such as the tree; a review found its add/remove cost stated
        as replace-one).
        """
        public = self._public_kind(X_public, y_public)
        return replace_one_base_cost(
            "PublicDataReduction", self.estimator, X_public=public
        )

    @staticmethod
    def _public_kind(X_public, y_public):
        """A stand-in for the public sample the learner's fit gets, in kind.

        PubSamp's dummies are always there, labeled when public labels are
        given (:meth:`_public_sample`); the stand-in is labeled then too, since
        a learner's cost may depend on it (a search runs public selection: a
        review found the reduction charged random stopping's cost for it).
        """
        labeled = y_public is not None or (
            isinstance(X_public, PublicData) and X_public.y is not None
        )
        return PublicData(np.zeros((1, 1)), np.zeros(1) if labeled else None)

    @staticmethod
    def _public_sample(X_dummy, y_dummy, data):
        """PubSamp's dummies, followed by the real public rows if any (public)."""
        if data.X_public is None:
            return PublicData(X_dummy)
        X_pub = np.vstack([X_dummy, data.X_public])
        if data.y_public is None:
            return PublicData(X_pub)
        return PublicData(X_pub, np.concatenate([y_dummy, data.y_public]))

    def predict(self, X):
        """Predict with the wrapped learner's hypothesis.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self.estimator_.predict(X)
