"""SemiPrivateTreeClassifier: a decision tree grown privately, public split candidates.

The candidate splits are thresholds between public-quantile bins of each
feature (public data only). The tree is grown level by level: the nodes of a
level hold disjoint private rows, so one exponential mechanism per node, all
at the level's epsilon, costs that epsilon once (parallel composition); the
levels compose sequentially. Leaves release their class counts with Laplace
noise, again in parallel.
"""

# SPDX-License-Identifier: BSD-3-Clause

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..accounting import PrivacyAccountant, PrivacyCost
from ..accounting._reservation import replace_one_cost, reserve_budget
from ..exceptions import PublicDataWarning
from ..hypotheses._base import _gumbel_max
from ..mechanisms import LaplaceMechanism
from ..mechanisms._exponential import scaled_gaps
from ..query_release._binning import bin_codes, public_quantile_bins
from ..utils._rng import noise_rng, spawn_rngs
from ..utils._sklearn_compat import (
    Interval,
    StrOptions,
    _fit_context,
    validate_data,
)
from ._base import check_private_labels, prepare_fit_data, warn_no_public_data
from ._bounds import domain_box

__all__ = ["SemiPrivateTreeClassifier"]


def _child_counts(codes, y, node, n_nodes, n_bins, n_classes):
    """Class counts of both children of every candidate split of every node.

    Yields, per feature ``j`` with at least two bins, ``(j, left, right)``
    with ``left[v, t, k]`` the number of node ``v``'s rows of class ``k``
    whose bin code on feature ``j`` is ``<= t`` (``right``: the others).
    """
    for j, m in enumerate(n_bins):
        if m < 2:
            continue
        flat = (node * m + codes[:, j]) * n_classes + y
        counts = np.bincount(flat, minlength=n_nodes * m * n_classes)
        counts = counts.reshape(n_nodes, m, n_classes)
        left = np.cumsum(counts, axis=1)[:, :-1, :]
        right = counts.sum(axis=1, keepdims=True) - left
        yield j, left, right


def _correct(child):
    """Rows the child's majority label classifies correctly: ``max_k n_k``."""
    return child.max(axis=2)


def _gini(child):
    """``Σ_k n_k² / n`` (0 for an empty child): ``n`` minus ``n`` times the
    child's Gini impurity."""
    child = child.astype(np.float64)
    n = child.sum(axis=2)
    return np.where(n > 0, (child**2).sum(axis=2) / np.maximum(n, 1.0), 0.0)


def _norm(child):
    """``sqrt(Σ_k n_k²)``: the Euclidean norm of the child's class counts."""
    return np.sqrt((child.astype(np.float64) ** 2).sum(axis=2))


# criterion -> (per-child score, whether the score is monotone under add/remove)
CRITERIA = {
    "gini": (_gini, False),
    "misclassification": (_correct, True),
    "norm": (_norm, True),
}


def split_scores(
    codes, y, node, n_nodes, n_bins, n_classes, criterion="misclassification"
):
    """Score of every candidate split of every node, summed over its children.

    Candidate ``(j, t)`` sends a row left when its bin code on feature ``j`` is
    ``<= t``. Adding or removing one private row changes one child of every
    candidate of one node (the node's rows are disjoint from the other
    nodes'); every score below then moves by at most 1 (sensitivity 1):

    * ``"misclassification"``: ``Σ_children max_k n_k``, the number of the
      node's rows that the children's majority labels classify correctly.
      Adding a row raises one child's maximum by 0 or 1, removing lowers it
      by 0 or 1: all candidates move in the same direction (a monotone
      score).
    * ``"gini"``: ``Σ_children Σ_k n_k² / n``, i.e. the node's row count
      minus the children's total Gini impurity (the criterion of
      :class:`~sklearn.tree.DecisionTreeClassifier`). Adding a row of class
      ``k`` to a child of ``n`` rows changes its term by
      ``(n (2 n_k + 1) - Σ n_k²) / (n (n + 1))``, which lies in ``(-1, 1]``
      (largest at ``n_k = n``, smallest at ``n_k = 0`` with a pure child);
      removing is the reverse, in ``[-1, 1)``. The candidates can move in
      opposite directions: the score is **not** monotone, so its exponential
      mechanism needs the factor 2 (:func:`split_log_probabilities`).
    * ``"norm"``: ``Σ_children sqrt(Σ_k n_k²)``, the Euclidean norm of each
      child's class-count vector (``n`` for a pure child, ``n / sqrt(K)``
      for a uniform one). Adding a row adds a unit vector to one child's
      counts: by the triangle inequality its norm grows by at most 1, and
      it cannot shrink (the counts are nonnegative). Monotone, like the
      misclassification count (which is the max-norm), but, like Gini, it
      rewards every split that changes the class proportions: the children's
      norms add up to more than the node's unless both children have the
      node's proportions (equality in the triangle inequality).

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features) of int
        Bin codes of the private rows (public edges).
    y : ndarray of shape (n_samples,) of int
        Class codes.
    node : ndarray of shape (n_samples,) of int
        The node each row is in.
    n_nodes : int
        Number of nodes of the level.
    n_bins : ndarray of shape (n_features,) of int
        Bins per feature.
    n_classes : int
        Number of classes.
    criterion : {"misclassification", "gini", "norm"}, \
            default="misclassification"
        The score.

    Returns
    -------
    scores : ndarray of shape (n_nodes, n_candidates)
    candidates : ndarray of shape (n_candidates, 2)
        ``(feature, threshold code)`` of every column.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._tree import split_scores
    >>> codes = np.array([[0], [0], [1], [1]])
    >>> S, cand = split_scores(codes, np.array([0, 0, 1, 1]), np.zeros(4, int),
    ...                        1, np.array([2]), 2)
    >>> S.tolist(), cand.tolist()
    ([[4.0]], [[0, 0]])
    >>> codes = np.array([[0], [0], [1], [1], [1]])
    >>> S, _ = split_scores(codes, np.array([0, 0, 1, 1, 0]), np.zeros(5, int),
    ...                     1, np.array([2]), 2, criterion="gini")
    >>> round(float(S[0, 0]), 4)  # 4/2 + (4 + 1)/3
    3.6667
    """
    child_score, _ = CRITERIA[criterion]
    blocks, candidates = [], []
    for j, left, right in _child_counts(codes, y, node, n_nodes, n_bins, n_classes):
        blocks.append(child_score(left) + child_score(right))
        candidates.extend((j, t) for t in range(left.shape[1]))
    if not blocks:
        return np.zeros((n_nodes, 0)), np.zeros((0, 2), dtype=np.intp)
    return (
        np.concatenate(blocks, axis=1).astype(np.float64),
        np.array(candidates, dtype=np.intp),
    )


def split_logits(scores, epsilon, criterion="misclassification"):
    """Logits of every node's exponential mechanism at ``epsilon``.

    Sensitivity 1 (:func:`split_scores`). A monotone score needs no factor 2
    (McSherry & Talwar 2007; Dwork & Roth 2014, remark after Thm 3.10):
    between neighbours ``D ⊂ D'`` every weight ``exp(ε·score)`` grows by a
    factor in ``[1, e^ε]``, so every probability changes by at most ``e^ε``.
    A score that is not monotone (``"gini"``) gets the general mechanism's
    ``exp(ε·score / 2)`` (Dwork & Roth 2014, Thm 3.10).
    """
    _, monotone = CRITERIA[criterion]
    # Relative to every node's best score (the same distribution), through
    # the mechanisms' overflow-safe exponent: at a huge epsilon, epsilon *
    # score overflowed to inf, the shift made NaN of it, and the argmax took
    # the first best candidate instead of a uniform one among the ties.
    coef = epsilon if monotone else 0.5 * epsilon
    return scaled_gaps(coef, scores, scores.max(axis=-1, keepdims=True))


def split_log_probabilities(scores, epsilon, criterion="misclassification"):
    """Exponential mechanism of every node: log-probabilities of its candidates.

    ``P(c) ∝ exp(logit_c)`` with the logits of :func:`split_logits`, one
    independent draw per node; ``epsilon``-DP per node.
    """
    logits = split_logits(scores, epsilon, criterion)
    top = logits.max(axis=1, keepdims=True)
    shifted = logits - top
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def descend(codes, features, thresholds):
    """Leaf index of every row of a complete tree given level by level."""
    node = np.zeros(codes.shape[0], dtype=np.intp)
    rows = np.arange(codes.shape[0])
    for feat, thr in zip(features, thresholds):
        right = codes[rows, feat[node]] > thr[node]
        node = 2 * node + right
    return node


class SemiPrivateTreeClassifier(ClassifierMixin, BaseEstimator):
    """A decision tree grown privately, its split candidates from public data.

    Every feature's candidate thresholds lie between public-quantile bins. The
    tree is complete, ``max_depth`` levels deep; at each level every node
    picks a split by the exponential mechanism on the number of its rows that
    the children's majority labels classify correctly, and every leaf
    releases its class counts with Laplace noise. Trees find the interactions
    an additive model cannot (see Notes).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy target ``> 0``, split evenly over the levels and the leaves.
    max_depth : int, default=3
        Depth of the (complete) tree: ``2 ** max_depth`` leaves, at most 12
        (the last level scores every candidate of its ``2 ** (max_depth - 1)``
        nodes at once).
    criterion : {"misclassification", "norm", "gini"}, \
            default="misclassification"
        The split score (:func:`split_scores`), all of sensitivity 1.
        ``"misclassification"``: the rows the children's majority labels get
        right; monotone, so the exponential mechanism runs at the full
        exponent, but blind to a split that leaves every child's majority
        unchanged. ``"norm"``: the Euclidean norms of the children's class
        counts; monotone too, and it sees such splits. ``"gini"``: the
        children's Gini impurity, as in scikit-learn's trees; not monotone,
        so half the exponent. None wins everywhere: on seven tables held out
        of the accuracy benchmark the count has the best mean
        (``benchmarks/results/tree_tuning.md``), while the norm and Gini gain
        up to 2 points on the benchmark's churn tables at epsilon >= 1.
    n_bins : int, default=16
        Largest number of public-quantile bins per feature; the thresholds
        between them are the candidates.
    n_public : int, float or None, default=None
        How many public rows to use: ``None`` for all, an int for that many,
        a float in ``(0, 1]`` for that fraction.
    classes : array-like of shape (n_classes,), default=None
        Every possible label. If None, taken from the public labels, else
        from the private ``y`` with a
        :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    bounds : array-like of shape (2,) or (n_features, 2), default=None
        Domain box, used without public data: equal-width bins inside it.
        If None and there is no public data, a
        :class:`~sklearn_semiprivate.PublicDataWarning` is emitted and the
        bounds are read from the private ``X`` with a
        :class:`~sklearn_semiprivate.PrivacyLeakWarning`.
    accountant : PrivacyAccountant, default=None
        Ledger charged ``(epsilon, 0)`` per fit, atomically, before the first
        private read; shared, not copied, by :func:`~sklearn.base.clone`.
    random_state : int, RandomState instance or None, default=None
        Seeds the public subsample (``n_public``) only. The noise is fresh OS
        entropy on every fit (see
        :func:`~sklearn_semiprivate.reproducible_noise`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The label set.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Feature names, when ``X`` has string column names.
    bin_edges_ : list of ndarray
        Inner bin edges of every feature (public).
    split_features_, split_thresholds_ : list of ndarray
        Per level, the feature and the threshold code (a row goes right when
        its bin code is above it) chosen at every node.
    leaf_counts_ : ndarray of shape (2 ** max_depth, n_classes)
        Noisy class counts of every leaf (a DP release).
    privacy_spent_ : PrivacyCost
        ``(epsilon, 0)``, for add/remove neighbours.
    replace_one_privacy_ : PrivacyCost
        ``(2 epsilon, 0)``: the guarantee for replace-one neighbours (group
        privacy of two add/remove steps), to size a replace-one budget with.

    See Also
    --------
    SemiPrivateLogisticRegression : the estimator to try first on a table.

    Notes
    -----
    **Privacy.** The fit is ``epsilon``-DP for add/remove neighbours of the
    private ``(X, y)`` (``2 epsilon`` for replace-one: a replaced row may
    leave one node and join another). Bins come from public rows or
    ``bounds``. A level's nodes hold disjoint private rows, and which node a
    row is in depends on the private data only through the earlier levels'
    released splits; every split score has sensitivity 1
    (:func:`split_scores`), so each node's exponential mechanism at
    ``epsilon_level = epsilon / (max_depth + 1)``, ``exp(epsilon_level *
    score / 2)`` for Gini and ``exp(epsilon_level * score)`` for the
    monotone misclassification count (:func:`split_logits`), is
    ``epsilon_level``-DP and the level costs it once (parallel
    composition). The leaves' count vectors change in one count by
    one: ``Lap((max_depth + 1) / epsilon)`` on every count. Sequential
    composition over the levels and the leaves gives ``epsilon``.

    **Utility.** The budget is split ``max_depth + 1`` ways, so deep trees
    need many rows per leaf. On interaction-heavy tables
    (the diamonds cut in ``benchmarks/results/accuracy.md``) a depth-3 tree
    beats non-private logistic regression from epsilon 0.1 with i.i.d. public
    rows and from 0.5 with shifted ones; on near-linear
    ones it stays below :class:`SemiPrivateLogisticRegression`.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PublicData, SemiPrivateTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X, X_test = rng.uniform(size=(4000, 2)), rng.uniform(size=(1000, 2))
    >>> def both(Z): return ((Z[:, 0] > 0.3) & (Z[:, 1] > 0.6)).astype(int)
    >>> X_pub = rng.uniform(size=(200, 2))  # public, unlabeled
    >>> clf = SemiPrivateTreeClassifier(epsilon=1.0, max_depth=2, classes=[0, 1])
    >>> clf = clf.fit(X, both(X), X_public=PublicData(X_pub))
    >>> clf.privacy_spent_
    PrivacyCost(epsilon=1.0, delta=0.0)
    >>> bool(clf.score(X_test, both(X_test)) > 0.9)
    True
    """

    __metadata_request__fit = {"X_public": True, "y_public": True}

    _parameter_constraints = {
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "max_depth": [Interval(Integral, 1, 12, closed="both")],
        "criterion": [StrOptions(set(CRITERIA))],
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "n_public": [
            None,
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="right"),
        ],
        "classes": ["array-like", None],
        "bounds": ["array-like", None],
        "accountant": [PrivacyAccountant, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        epsilon=1.0,
        max_depth=3,
        criterion="misclassification",
        n_bins=16,
        n_public=None,
        classes=None,
        bounds=None,
        accountant=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.max_depth = max_depth
        self.criterion = criterion
        self.n_bins = n_bins
        self.n_public = n_public
        self.classes = classes
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, X_public=None, y_public=None):
        """Grow the tree on private ``(X, y)``; split candidates from public rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Private rows (protected).
        y : array-like of shape (n_samples,)
            Private labels (protected).
        X_public : PublicData or array-like of shape (n_public, n_features), \
                default=None
            Public rows, preferably wrapped in
            :class:`~sklearn_semiprivate.PublicData`. None: bins from
            ``bounds``.
        y_public : array-like of shape (n_public,), default=None
            Public labels when ``X_public`` is a raw array (they set the label
            set; the tree is grown on the private rows).

        Returns
        -------
        self : object
            Fitted estimator.
        """
        (rng_public,) = spawn_rngs(self.random_state, 1)
        data = prepare_fit_data(
            self,
            X,
            y,
            X_public,
            y_public,
            classes=self.classes,
            n_public=self.n_public,
            rng=rng_public,
        )
        if data.X_public is None and self.bounds is None:
            warn_no_public_data(self)
        edges = self._edges(data, allow_leak=False)
        if edges is not None and all(e.size == 0 for e in edges):
            warnings.warn(
                "No feature has two distinct public bins (the public rows are "
                "constant), so the tree cannot split: it is one leaf, its "
                "noisy class counts predicted everywhere.",
                PublicDataWarning,
                stacklevel=2,
            )
        # Reserved atomically before the first private read; a fit that fails
        # afterwards stays charged.
        reserve_budget(self.accountant, self._privacy_cost(), self)
        check_private_labels(data.y, data.classes)
        if edges is None:
            edges = self._edges(data, allow_leak=True)
        self.classes_ = data.classes
        self.bin_edges_ = edges
        n_classes = self.classes_.size
        codes = bin_codes(data.X, edges).astype(np.intp)
        y_codes = np.searchsorted(self.classes_, data.y)
        n_bins = np.array([e.size + 1 for e in edges])
        eps_part = float(self.epsilon) / (self.max_depth + 1)
        rng = noise_rng(self.random_state)
        node = np.zeros(codes.shape[0], dtype=np.intp)
        rows = np.arange(codes.shape[0])
        self.split_features_, self.split_thresholds_ = [], []
        for level in range(self.max_depth):
            n_nodes = 2**level
            scores, candidates = split_scores(
                codes, y_codes, node, n_nodes, n_bins, n_classes, self.criterion
            )
            if candidates.shape[0] == 0:  # no feature has two public bins
                feat = np.zeros(n_nodes, dtype=np.intp)
                thr = np.full(n_nodes, np.iinfo(np.intp).max // 2)
            else:
                # One exponential mechanism per node (sensitivity 1; the
                # factor 2 unless the criterion is monotone), parallel over
                # the level's disjoint nodes: eps_part for the level.
                logits = split_logits(scores, eps_part, self.criterion)
                choice = _gumbel_max(logits, rng)
                feat, thr = candidates[choice, 0], candidates[choice, 1]
            self.split_features_.append(feat)
            self.split_thresholds_.append(thr)
            node = 2 * node + (codes[rows, feat[node]] > thr[node])
        counts = np.bincount(
            node * n_classes + y_codes, minlength=2**self.max_depth * n_classes
        ).reshape(-1, n_classes)
        # Leaves: one count changes by one (L1 sensitivity 1, add/remove);
        # parallel over the disjoint leaves: eps_part.
        leaves = LaplaceMechanism(eps_part, sensitivity=1.0)
        self.leaf_counts_ = leaves.sample(counts.astype(np.float64), random_state=rng)
        self.privacy_spent_ = self._privacy_cost()
        self.replace_one_privacy_ = replace_one_cost(self.privacy_spent_)
        return self

    def _edges(self, data, *, allow_leak):
        """Bin edges from public rows or the box (equal width), else None."""
        # Checks bounds even when public data is given (then returns None).
        box = domain_box(self.bounds, data, allow_leak=allow_leak)
        if data.X_public is not None:
            return public_quantile_bins(data.X_public, int(self.n_bins))
        if box is None:
            return None
        return [np.linspace(lo, hi, self.n_bins + 1)[1:-1] for lo, hi in box]

    def _privacy_neighbours(self, **fit_params):
        """The neighbours ``_privacy_cost`` holds for (docs/privacy.rst).

        add/remove; replace-one at 2 epsilon (the table in docs/privacy.rst).
        """
        return "add/remove"

    def _privacy_cost(self, **fit_params):
        """What ``fit`` reserves, from the parameters alone: ``(ε, 0)``."""
        return PrivacyCost(float(self.epsilon), 0.0)

    def predict_proba(self, X):
        """Class probabilities: the leaf's noisy counts, clipped and normalised.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        codes = bin_codes(X, self.bin_edges_).astype(np.intp)
        leaf = descend(codes, self.split_features_, self.split_thresholds_)
        counts = np.maximum(self.leaf_counts_[leaf], 0.0)
        total = counts.sum(axis=1, keepdims=True)
        uniform = np.full_like(counts, 1.0 / counts.shape[1])
        return np.where(total > 0, counts / np.where(total > 0, total, 1.0), uniform)

    def predict(self, X):
        """The arg max of the leaf's noisy counts (deterministic, no noise).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points to label.

        Returns
        -------
        y : ndarray of shape (n_samples,)
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
