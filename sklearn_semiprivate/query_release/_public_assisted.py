"""PublicAssistedQueryRelease, the estimator: its parameters and documentation.

The class with its numpydoc docstring (parameters, attributes, the privacy,
labeled-rows, accuracy and choice-of-support notes, references, examples), its
parameter constraints, ``__init__``, ``fit`` and tags. What ``fit`` runs (the
public plans, the reservation, the private runs, the cost stated from the
parameters) is the mixin ``_ReleaseFit`` of ``_release.py``, and what a fitted
release answers is the mixin ``_ReleasedDistribution`` of ``_released.py``.
"""

# SPDX-License-Identifier: BSD-3-Clause

from numbers import Integral, Real

from sklearn.base import BaseEstimator
from sklearn.utils import TransformerTags

from ..accounting import PrivacyAccountant
from ..utils._sklearn_compat import Interval, StrOptions, _fit_context
from ._base import QueryWorkload
from ._options import check_release_options
from ._release import _ReleaseFit
from ._released import _ReleasedDistribution

__all__ = ["PublicAssistedQueryRelease"]


class PublicAssistedQueryRelease(_ReleaseFit, _ReleasedDistribution, BaseEstimator):
    """Differentially private query release assisted by public data.

    Releases a distribution over a finite public support whose answers to a
    workload of counting queries approximate those of the private rows. The
    answer to a query is the fraction of rows satisfying it, in ``[0, 1]``
    (for ``±1``-valued queries the paper's ``E[h(x)]`` is ``2 * answer - 1``).

    Given private labels ``y`` (not with ``support="representative"``), the
    release is *labeled*: the workload is over ``(x, label)`` rows, the label
    code (its index in ``classes_``) as one more column after the features,
    and the support (``"public"``) is every distinct public point paired with
    every label (the public rows may be unlabeled); ``"mixture"`` treats the
    label as one more categorical column. :meth:`sample` then returns
    ``(X, y)``.

    Parameters
    ----------
    queries : QueryWorkload
        The workload: :class:`ThresholdQueries`, :class:`StumpQueries`,
        :class:`MarginalQueries` or :class:`PredicateQueries`. ``answers_``
        holds its answers; :meth:`transform` answers any other batch.
    epsilon : float, default=1.0
        Privacy parameter, ``> 0``.
    delta : float, default=1e-6
        Privacy parameter in ``[0, 1)``. ``support="representative"`` and the
        Gaussian measurement need ``delta > 0``.
    alpha : float, default=0.05
        Target accuracy. ``support="representative"`` runs PMW at accuracy
        ``alpha / 2`` (Alg. 3 step 4): its threshold is ``3 alpha / 8``, its
        learning rate ``alpha / 4`` and its number of updates
        ``ceil(16 ln|X_H~| / alpha²)`` (Dwork & Roth 2014, Thm 4.15, the source
        of Lemma 7, at ``alpha / 2``). Not used by ``support="public"``.
    support : {"auto", "representative", "public", "mixture", "graphical"}, \
            default="auto"
        ``"auto"``: ``"graphical"`` for a :class:`MarginalQueries` workload
        with ``delta > 0``, ``selection="exponential"`` and
        ``measurement="gaussian"`` (the defaults), else ``"public"``; decided
        from the parameters and the workload's type alone (see Notes, "Which
        support"). ``"representative"``: APAP (Alg. 3), PMW over the
        representative domain of the public cover; raises an error when that
        domain is too large to hold. ``"public"``: PMW^Pub, MWEM rounds over
        the distinct public points, starting from the public empirical
        distribution. ``"mixture"``
        (:class:`MarginalQueries` only, ``delta > 0``): AIM's adaptive rounds
        (McKenna et al. 2022), each selecting a marginal of at most 3 columns
        by the exponential mechanism and measuring all its cells with
        Gaussian noise, and a released distribution that is a mixture of
        product distributions, one per distinct public row to start with,
        refitted to every measurement: its support is the whole domain, not
        only the public points. ``n_iterations`` is AIM's round budget ``T``
        (None: ``16 sqrt(min(epsilon, 1))``, at least 4, per column; at least
        the number of columns plus one);
        ``selection`` must be ``"exponential"`` and ``measurement``
        ``"gaussian"``. Guarantees add/remove neighbours (see Notes).
        ``"graphical"``: the same rounds (with ``n_iterations=None``:
        ``8 sqrt(min(epsilon, 1))``, at least 5, per column), conditions and
        guarantee, and a released distribution that is a graphical model (the
        estimator of Private-PGM and AIM: the distribution of largest
        entropy, relative to a pair model fitted to the public rows, that
        matches every measurement in weighted least squares; exact marginals
        by junction tree); a candidate that would grow its junction tree past
        2^20 cells is not selectable.
    n_iterations : int, default=None
        Largest number of PMW updates (``"representative"``) or number of MWEM
        rounds (``"public"``); the privacy calibration uses it. With
        ``selection="all"``, the largest number of iterations of the fit to
        the measurements (post-processing; None is 1000). None chooses it
        from ``alpha`` (see above) or, for ``"public"``, balancing the
        convergence of MW against the noise of each round, within
        ``[1, 500]``: ``sqrt(ln|support|) n sqrt(ρ) / ln|Q|`` with ``delta > 0``
        (``ρ`` the zCDP budget of ``(epsilon, delta)``, per-round noise growing
        like ``sqrt(T)``), and ``(n epsilon sqrt(ln|support|) / (10 ln|Q|))^(2/3)``
        with ``delta = 0`` (basic composition, per-round noise growing like
        ``T``; Hardt, Ligett & McSherry 2012, Thm 2.2).
    selection : {"exponential", "permute_and_flip", "all"}, default="exponential"
        Selection step of ``support="public"``. ``"all"``: no selection and no
        rounds; every query of the workload is measured once, by one Gaussian
        (or Laplace) mechanism calibrated to the workload's exact sensitivity
        (for marginals, ``sqrt(2 S) / n`` in L2 for ``S`` column sets, however
        many cells), and the distribution on the public points is fitted to
        the measurements by maximum entropy with an L2 penalty
        (post-processing). Good for marginal workloads, whose many queries
        cost little more than one.
    measurement : {"gaussian", "laplace"}, default="gaussian"
        Measurement step of ``support="public"``. With ``selection="all"``,
        ``"gaussian"`` is the analytic Gaussian mechanism (Balle & Wang 2018)
        at ``(epsilon, delta)`` and ``"laplace"`` is ``epsilon``-DP.
    regularization : float, default=1.0
        Penalty of ``selection="all"``'s fit, ``> 0``: the fit minimises
        ``KL(w || w0) + ||answers(w) - measurements||² / (2 tau)`` with
        ``tau = regularization * (v / a + 1 / n)``, ``v`` the noise variance of
        one measurement and ``a`` the mean answer of the starting distribution
        ``w0`` (1 is a prior standard deviation of one log-odds unit on each
        query's effect). Larger values keep the distribution closer to the
        public one. Post-processing: no privacy cost. Not used otherwise.
    classes : array-like of shape (n_classes,), default=None
        Label set of a labeled fit. None takes it from the public labels
        ``y_public``, else from the private ``y`` with a
        :class:`~sklearn_semiprivate.PrivacyLeakWarning`. Ignored without ``y``.
    accountant : PrivacyAccountant, default=None
        Ledger charged per fit, atomically, before the first private read,
        the cost the parameters state: ``privacy_spent_``, or more where the
        number of rounds is settled during the fit (``"graphical"`` and
        ``"mixture"``: the whole zCDP budget; ``"public"`` with rounds and
        ``"representative"`` with ``n_iterations=None``: the bound
        ``(epsilon, delta)`` that every number of rounds stays within). The
        charge stays if the fit fails afterwards.
    random_state : int, RandomState instance or None, default=None
        Unused by the mechanisms: their noise is fresh OS entropy on every fit
        and is never derived from it (see
        :func:`~sklearn_semiprivate.reproducible_noise` for tests and docs). It
        is accepted so that a release can be seeded like the package's other
        estimators. Pass ``random_state`` to :meth:`sample` for reproducible
        synthetic rows (post-processing).

    Attributes
    ----------
    support_type_ : {"representative", "public", "mixture", "graphical"}
        The support the release was fitted with (``"auto"`` resolved);
        :meth:`transform` answers from this fitted state, whatever ``support``
        is set to later.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` has string column names.
    support_ : ndarray of shape (n_support, n_features)
        The released distribution's points: the representative domain, or the
        distinct public points. In a labeled fit, each distinct public point
        once per label, in the order of ``classes_`` (so
        ``weights_.reshape(-1, n_classes)`` has one row per distinct point).
    support_labels_ : ndarray of shape (n_support,)
        The label of each support point (labeled fit only).
    classes_ : ndarray of shape (n_classes,)
        The sorted label set (labeled fit only).
    weights_ : ndarray of shape (n_support,)
        The released distribution over ``support_`` (sums to 1).
    answers_ : ndarray of shape (n_queries,)
        DP answers to the workload ``queries``, in ``[0, 1]``.
    cover_ : query list
        The cover ``H~`` (``support="representative"`` only).
    cover_size_ : int
        ``|H~|`` (``support="representative"``); the workload size otherwise.
    n_iterations_ : int
        The update budget ``c`` or the number of rounds ``T`` used.
    n_updates_ : int
        Updates made (``"representative"``: at most ``n_iterations_``; the run
        stops once a full pass finds no badly answered query).
    privacy_spent_ : PrivacyCost
        ``(epsilon, delta)`` spent; never above the parameters.
    epsilon0_ : float
        Budget of one sparse-vector instance plus its measurement
        (``support="representative"`` only).
    rho_ : float or None
        zCDP parameter spent by ``support="public"``, ``"graphical"`` and
        ``"mixture"`` (None otherwise, with ``delta=0`` or with
        ``selection="all"``).
    selected_ : ndarray of shape (``n_iterations_``,)
        Query measured in each MWEM round (``support="public"`` only, not with
        ``selection="all"``).
    measurements_ : ndarray of shape (n_queries,)
        The noisy answers of the workload (``selection="all"`` only); the
        released distribution was fitted to them.
    regularization_ : float
        The penalty ``tau`` of that fit (``selection="all"`` only).
    graphical_model_ : GraphicalModel
        ``support="graphical"`` only (it has no ``support_`` nor
        ``weights_``): the released graphical model (``maximal`` cliques of
        its junction tree, ``theta`` the potential of every measured column
        set, ``base`` the public tree). The other attributes are those of
        ``"mixture"`` below.
    mixture_ : ProductMixture
        ``support="mixture"`` only (it has no ``support_`` nor ``weights_``):
        the released mixture of product distributions (its ``weights``, and
        per row and column the probabilities ``column(j)``). With it,
        ``selected_`` lists the column set measured in each round,
        ``measurements_`` every ``(columns, noisy counts, sigma)``,
        ``noise_scales_`` and ``selection_epsilons_`` the ``sigma`` of every
        measurement and ``ε_sel`` of every selection, ``n_rows_estimate_`` the
        row count estimated from the measurements, ``rho_`` the zCDP
        parameter spent (add/remove) and ``replace_one_privacy_`` the
        ``(ε, δ)`` of the same run for replace-one neighbours (weaker).

    See Also
    --------
    ThresholdQueries, StumpQueries, MarginalQueries, PredicateQueries

    Notes
    -----
    **Privacy.** (``privacy_spent_``)-DP with respect to the private rows ``X``
    (and ``y`` in a labeled fit). With ``support="graphical"`` (what the
    default ``"auto"`` runs for marginal workloads) and ``"mixture"``, the
    neighbours are add/remove, and ``replace_one_privacy_`` is the weaker
    guarantee of the same run for replace-one (their bullet below). With the
    other supports they are replace-one (``n``, the number of private rows, is
    treated as public): every answer is a fraction of the ``n`` rows,
    sensitivity ``1/n``. In a labeled fit a private row is
    the pair ``(x, y)``: replacing it changes one row of the joint dataset, so
    every query on the joint domain still moves by at most ``1/n``. Not
    protected: the public rows and labels, the workload, ``classes``, the
    hyper-parameters. Without ``classes`` and public labels the label set is
    read off the private ``y`` (with a ``PrivacyLeakWarning``), outside the
    guarantee.

    * ``"representative"``: the cover and the representative domain depend on
      public points only, and replacing one private row changes one mapped
      representative (Theorem 10's proof). PMW is at most ``c`` AboveThreshold
      instances (threshold noise ``Lap(2/(n ε_svt))``, query noise
      ``Lap(4/(n ε_svt))``, Dwork & Roth 2014, Thm 3.23), each followed by a
      Laplace measurement; each instance plus measurement is ``ε0``-DP and the
      ``c`` of them compose by advanced composition to ``(epsilon, delta)``
      (:func:`sparse_vector_pmw_parameters`).
    * ``"public"``: ``T`` rounds of (selection, measurement), accounted in zCDP
      and converted to ``(epsilon, delta)`` (:func:`mwem_round_parameters`).
    * ``selection="all"``: one Gaussian mechanism on the vector of answers,
      ``(epsilon, delta)`` by the analytic calibration to its exact L2
      sensitivity (or one Laplace mechanism, ``epsilon``-DP, L1); the fit is
      post-processing.
    * ``"mixture"`` and ``"graphical"``: **add/remove neighbours** (``n`` is
      private too, as in AIM): Gaussian measurements of marginals of counts (L2
      sensitivity 1, ``1/(2σ²)``-zCDP each) and exponential-mechanism
      selections (score sensitivity ``max w_c``, ``ε_sel²/8``-zCDP each),
      composed to at most ``ρ``, the largest zCDP budget whose Rényi conversion
      is ``(epsilon, delta)``; ``replace_one_privacy_`` holds the replace-one
      guarantee of the same run (sensitivities ``sqrt(2)`` and ``2 max w_c``).
      Details in ``_adaptive.py``.

    **Labeled rows.** ``support="representative"`` does not release labeled
    rows (its representative domain partitions the feature domain only) and
    raises an error when given ``y``. With public labels, the starting
    distribution puts half the mass of each public point on its public labels
    and half uniformly on every label, so that no pair starts at weight 0.

    After ``fit`` everything is post-processing: :meth:`transform` and
    :meth:`sample` read only the released distribution. Everything that depends
    on public data only (the cover, the representative domain, the projection
    of the workload onto the cover, every size limit) is computed before the
    accountant is checked and before any private row is read, so such failures
    spend nothing.

    **Continuous columns.** Bin them on the public rows, as the last step of a
    :class:`~sklearn_semiprivate.pipeline.PublicFittedPipeline` (e.g. after a
    ``KBinsDiscretizer``): the pipeline charges the release's cost, which
    its parameters fix, before any private row is binned (with
    ``support="public"`` or ``"representative"`` and ``n_iterations=None``,
    the bound ``(epsilon, delta)``: their number of rounds depends on the
    data).

    **Which support.** Measured in ``benchmarks/bench_query_release.py``
    (results in ``benchmarks/results/query_release.md``): on every 3-way
    marginal of two real survey tables and a synthetic one, with 5% of the
    rows public, i.i.d. or shifted, ``"graphical"`` has a lower mean error
    than ``"mixture"`` in 17 of 18 settings and a lower max error in 12, at
    0.75-3.0 times its fit time, and both beat
    ``"public"`` and public-only in mean error everywhere, while ``"representative"``
    refuses those tables (its domain is too large to hold). On smaller
    domains (thresholds on the line, marginals of 10 columns with 3
    categories), ``"public"`` had lower error than ``"representative"`` in
    every setting. Hence ``"auto"``. Against private-only AIM (McKenna et
    al. 2022), on the same five splits of the real tables (60 pairs of
    fits), ``"graphical"`` has a mean error at or below AIM's in 47 (the
    others 1.006-1.087 times it) and a max error at or below in 41 (run of
    2026-11-27 15:18-16:08), at 1/16.6 to 1/179 of its fit time
    (run of 2026-11-25, an unloaded machine); ``"mixture"`` had
    1.02-1.35 times AIM's mean error from ``epsilon = 0.5`` (3-split
    means). ``"auto"``
    changes the neighbour relation with the workload: add/remove for
    ``"graphical"``, replace-one for ``"public"`` (see above;
    ``support_type_`` says which ran).

    **Accuracy.** APAP (Theorem 10's proof) runs PMW at accuracy ``alpha / 2``
    (Alg. 3 step 4), so with probability ``1 - beta / 2`` every answer of the
    cover is within ``alpha / 2`` when the private sample meets Lemma 7 at
    ``alpha / 2`` and ``beta / 2`` (:func:`pmw_private_sample_size`); when the
    cover is an ``alpha/4``-cover (about ``d/alpha`` public points, Lemma 11),
    projecting a query onto it moves its answer by at most ``alpha / 4``. Every
    query of the class is then answered within ``3 alpha / 4 <= alpha``. The
    representative domain grows exponentially with the dimension (it has one
    point per cell of the cover's dual), hence ``support="public"``.

    References
    ----------
    R. Bassily, A. Cheu, S. Moran, A. Nikolov, J. Ullman, Z. S. Wu. Private Query
    Release Assisted by Public Data. ICML 2020.

    T. Liu, G. Vietri, T. Steinke, J. Ullman, Z. S. Wu. Leveraging Public Data
    for Practical Private Query Release. ICML 2021.

    R. McKenna, B. Mullins, D. Sheldon, G. Miklau. AIM: An Adaptive and
    Iterative Mechanism for Differentially Private Synthetic Data. VLDB 2022.

    S. Aydore, W. Brown, M. Kearns, K. Kenthapadi, L. Melis, A. Roth, A.
    Siva. Differentially Private Query Release Through Adaptive Projection.
    ICML 2021.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PublicData
    >>> from sklearn_semiprivate.query_release import (
    ...     PublicAssistedQueryRelease, ThresholdQueries)
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20000, 1))
    >>> X_pub = rng.normal(size=(200, 1))
    >>> queries = ThresholdQueries(np.linspace(-2, 2, 9))
    >>> qr = PublicAssistedQueryRelease(queries, epsilon=1.0, alpha=0.1,
    ...                                 random_state=0)
    >>> qr = qr.fit(X, X_public=PublicData(X_pub))
    >>> err = np.abs(qr.answers_ - queries.evaluate(X)).max()
    >>> bool(err < 0.1)
    True
    >>> qr.sample(3, random_state=0).shape
    (3, 1)

    A labeled release: 2-way marginals of a binned feature and the label.

    >>> from sklearn_semiprivate.query_release import MarginalQueries
    >>> X = rng.integers(4, size=(5000, 1)).astype(float)
    >>> y = (X[:, 0] >= 2).astype(int)
    >>> X_pub = rng.integers(4, size=(100, 1)).astype(float)
    >>> queries = MarginalQueries(k=2, n_categories=[4, 2])  # feature, label
    >>> qr = PublicAssistedQueryRelease(queries, support="public", selection="all",
    ...                                 classes=[0, 1], random_state=0)
    >>> X_syn, y_syn = qr.fit(X, y, X_public=PublicData(X_pub)).sample(
    ...     1000, random_state=0)
    >>> bool(np.mean(y_syn == (X_syn[:, 0] >= 2)) > 0.9)
    True

    All 3-way marginals of 5 correlated columns, ``support="mixture"``.

    >>> z = rng.integers(2, size=(10000, 1))
    >>> X = (z + rng.integers(2, size=(10000, 5))).astype(float)  # codes 0-2
    >>> X_pub = X[rng.choice(10000, 200)]  # stand-in for a public sample
    >>> queries = MarginalQueries(k=3, n_categories=3)
    >>> qr = PublicAssistedQueryRelease(queries, epsilon=1.0, support="mixture",
    ...                                 random_state=0)
    >>> qr = qr.fit(X, X_public=PublicData(X_pub))
    >>> bool(np.abs(qr.answers_ - queries.evaluate(X)).max() < 0.05)
    True
    >>> qr.sample(2, random_state=0).shape
    (2, 5)
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}

    # Read by PublicFittedPipeline: without public rows this release refuses
    # (free), so a pipeline must refuse before its charge too.
    _requires_public_data = True

    _parameter_constraints = {
        "queries": [QueryWorkload],
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="left")],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "support": [
            StrOptions({"auto", "representative", "public", "mixture", "graphical"})
        ],
        "n_iterations": [None, Interval(Integral, 1, None, closed="left")],
        "selection": [StrOptions({"exponential", "permute_and_flip", "all"})],
        "measurement": [StrOptions({"gaussian", "laplace"})],
        "regularization": [Interval(Real, 0, None, closed="neither")],
        "classes": ["array-like", None],
        "accountant": [PrivacyAccountant, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        queries,
        *,
        epsilon=1.0,
        delta=1e-6,
        alpha=0.05,
        support="auto",
        n_iterations=None,
        selection="exponential",
        measurement="gaussian",
        regularization=1.0,
        classes=None,
        accountant=None,
        random_state=None,
    ):
        self.queries = queries
        self.epsilon = epsilon
        self.delta = delta
        self.alpha = alpha
        self.support = support
        self.n_iterations = n_iterations
        self.selection = selection
        self.measurement = measurement
        self.regularization = regularization
        self.classes = classes
        self.accountant = accountant
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, X_public=None, y_public=None):
        """Release the private rows' answers, using the public rows freely.

        Once the parameters are validated, a fit that fails leaves no fitted
        attribute (not even those of an earlier fit). It charges nothing if it
        fails on public work or the private rows' format; from the reservation
        on (just before the private rows are checked against the workload's
        domain and read), the charge stays.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows (protected), in the workload's declared domain.
        y : array-like of shape (n_samples,), default=None
            Private labels (protected). None releases unlabeled rows. Given,
            the workload is over ``n_features + 1`` columns, the last one the
            label's code (its index in ``classes_``), and the support is every
            distinct public point with every label (``support="public"``).
        X_public : PublicData or array-like of shape (n_public, n_features)
            Public rows (required), in the workload's declared domain.
        y_public : array-like of shape (n_public,), default=None
            Public labels when ``X_public`` is a raw array (or give them in
            ``PublicData(X_pub, y_pub)``). In a labeled fit they give the
            starting distribution (and the label set without ``classes``);
            ignored without ``y``.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        self._clear_fitted()
        try:
            check_release_options(self, labeled=y is not None)
            self._fit(X, y, X_public, y_public)
        except BaseException:
            self._clear_fitted()
            raise
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        # A transformer in scikit-learn's terms: ``transform`` answers queries
        # and ``sample`` releases rows in the input's features (named by
        # ``get_feature_names_out``). No dtype of X is preserved: transform's
        # output is the answers to queries, not transformed rows.
        tags.transformer_tags = TransformerTags(preserves_dtype=[])
        return tags
