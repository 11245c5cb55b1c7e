"""The steps of Subsample-Test-Reweigh (Kohen & Sheffet 2022): constants, costs.

Kohen & Sheffet, *Transfer Learning in Differential Privacy's Hybrid-Model*,
ICML 2022. Everything here is a function of public parameters (the number of
curator rows ``n`` is public: the curator's neighbours are replace-one,
Claim 4.1), except :func:`curator_round`, :func:`reweigh` and
:func:`local_test`, which read private rows through the mechanisms named
next to each read. The estimator (``_transfer.py``) reads the constants from
here at call time, so the tests' mutants patch one place. The checks of the
learner and of the target are in ``_transfer_checks.py``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np

from ..accounting import PrivacyCost, compose_advanced
from ..accounting._reservation import replace_one_cost
from ..mechanisms import (
    GaussianLossRandomizedResponse,
    LossRandomizedResponse,
    multiplicative_weights_update,
    project_kappa_dense,
)
from ..utils._nested_fit import dropped_warnings
from ..utils._numeric import exp_or_inf
from ..utils._private_errors import call_inner_on_private
from ..utils._private_predict import rowwise_matches
from ._transfer_checks import check_private_learner

__all__ = [
    "LEARNER_EPSILON",
    "FitWith",
    "agents_per_round",
    "check_learner_cost",
    "curator_privacy_cost",
    "curator_round",
    "curator_rows_needed",
    "default_kappa",
    "default_rounds",
    "default_subsample",
    "learner_delta",
    "learner_settings",
    "local_randomizer",
    "local_test",
    "replace_one_cost",
    "reweigh",
    "round_privacy_cost",
    "sq_tolerance",
]

# Section 4, after Claim 4.1: "we chose to apply M with eps = 1". This is the
# learner's epsilon for replace-one neighbours on its m1 rows, the premise of
# Claim 4.1 (Karwa & Vadhan 2018, Lemma 6.1, couples the two samples row by
# row: replace-one).
LEARNER_EPSILON = 1.0

# T of Algorithm 1 (Thm 3.1: 32 log(8(chi2+1)/alpha) / alpha^2) and of
# Algorithm 2 (Thm 4.3: 128 log(...) / alpha^2). The paper prints "log2"; the
# base-2 logarithm is the larger reading, hence the safe one for a round bound.
_ROUNDS_FACTOR = {False: 32.0, True: 128.0}


def default_rounds(alpha, chi2_bound, private):
    """``T`` of Alg. 1 (``32 log2(8(χ²+1)/α)/α²``) or Alg. 2 (``128 ...``).

    Parameters
    ----------
    alpha : float
        Accuracy parameter in ``(0, 1/8)``.
    chi2_bound : float
        Bound on ``χ²(T || S)``.
    private : bool
        Algorithm 2 (True) or Algorithm 1 (False).

    Returns
    -------
    rounds : int

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._transfer_steps import default_rounds
    >>> default_rounds(0.1, 0.0, private=False)
    20231
    """
    log_term = math.log2(8.0 * (chi2_bound + 1.0) / alpha)
    return math.ceil(_ROUNDS_FACTOR[bool(private)] * log_term / alpha**2 - 1e-9)


def default_kappa(alpha, chi2_bound):
    """``κ = α / (8 (χ² + 1))`` of Algorithm 2 (proof of Thm 4.3).

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._transfer_steps import default_kappa
    >>> default_kappa(0.08, 0.0)
    0.01
    """
    return alpha / (8.0 * (chi2_bound + 1.0))


def default_subsample(alpha, beta, rounds, n_features):
    """``m1``: ``ceil((d + 1 + ln(T / β)) / α)``, the realizable sample size.

    The rows a learner of VC dimension ``d + 1`` (halfspaces in ``d``
    features) needs for error ``α`` with probability ``1 - β/T`` up to
    constants; Appendix C uses ``(d + ln(0.05 / T)) / α`` for its SVM. A
    utility constant: the privacy analysis holds for every ``m1``.

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._transfer_steps import default_subsample
    >>> default_subsample(0.05, 0.1, 100, 4)
    239
    """
    return math.ceil((n_features + 1 + math.log(rounds / beta)) / alpha)


def learner_delta(kappa, delta, rounds):
    """``δ_M = κ δ / (8 e T)``, the learner's delta (proof of Thm 4.2).

    Then Claim 4.1's ``δ* = 4 m1 e^{ε*} δ_M / (κ n) <= δ / (2T)`` whenever
    ``m1 e^{ε* - 1} <= n``, and ``T δ* + δ/2 <= δ``.

    Examples
    --------
    >>> import math
    >>> from sklearn_semiprivate.classifiers._transfer_steps import learner_delta
    >>> math.isclose(learner_delta(0.5, 8e-3, 10), 0.5 * 8e-3 / (80 * math.e))
    True
    """
    return kappa * delta / (8.0 * math.e * rounds)


def check_learner_cost(stated):
    """Refuse a learner stating more than ``ε = 1/2`` at the ``ε = 1/2`` setting.

    Claim 4.1 (with :func:`replace_one_cost`) is applied to a learner that is
    replace-one ``ε = 1``: stated ``1/2`` for add/remove. A learner whose
    ``_privacy_cost`` still exceeds it after :func:`learner_settings` (it
    composes its ``epsilon`` over several releases, say) breaks that premise.

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._transfer_steps import (
    ...     check_learner_cost)
    >>> check_learner_cost((0.5, 1e-9))
    """
    eps = float(stated[0])
    if not eps <= LEARNER_EPSILON / 2.0:
        raise ValueError(
            f"The learner states epsilon={eps:g} at its epsilon=0.5 setting; "
            "Claim 4.1 is applied to a learner that is 0.5-DP as stated (1 for "
            "replace-one, Section 4's eps = 1). Use a learner whose stated "
            "epsilon is its epsilon parameter."
        )


def learner_settings(params, kappa, delta, rounds):
    """The learner's ``epsilon``/``delta`` parameters: replace-one ``(1, δ_M)``.

    Half of :data:`LEARNER_EPSILON` and ``δ_M / (1 + e^{1/2})``, so that
    :func:`replace_one_cost` of what the learner states is ``(1, δ_M)``:
    Claim 4.1 with the paper's ``ε = 1``. A learner without a ``delta``
    parameter is pure (``δ_M`` unused).

    Parameters
    ----------
    params : dict
        The learner's ``get_params(deep=False)``.
    kappa, delta : float
        κ and the curator's target δ.
    rounds : int
        ``T``.

    Returns
    -------
    settings : dict

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._transfer_steps import learner_settings
    >>> learner_settings({"epsilon": 3.0}, 0.5, 1e-6, 10)
    {'epsilon': 0.5}
    """
    check_private_learner(params)
    eps = LEARNER_EPSILON / 2.0
    settings = {"epsilon": eps}
    if "delta" in params:
        settings["delta"] = learner_delta(kappa, delta, rounds) / (1.0 + math.exp(eps))
    return settings


def round_privacy_cost(learner_cost, m, kappa, n):
    """Claim 4.1: one round is ``(ε*, δ*)``-DP for the curator's rows.

    ``ε* = 6 ε m / (κ n)`` and ``δ* = 4 m e^{ε*} δ / (κ n)``, for an
    ``(ε, δ)``-DP learner (replace-one) run on ``m`` i.i.d. draws from the
    κ-dense projection of weights in ``(0, κ]`` (Karwa & Vadhan 2018,
    Lemma 6.1, with ``TV(µ, µ') <= 1/(κ n)`` of Bun et al. 2020).

    Parameters
    ----------
    learner_cost : PrivacyCost or (epsilon, delta)
        The learner's replace-one cost on its ``m`` rows.
    m : int
        Rows drawn per round (``m1``).
    kappa : float
        Density of the projection.
    n : int
        Curator rows (public under replace-one).

    Returns
    -------
    cost : PrivacyCost

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._transfer_steps import (
    ...     round_privacy_cost)
    >>> round_privacy_cost((1.0, 0.0), m=10, kappa=0.5, n=1200)
    PrivacyCost(epsilon=0.1, delta=0.0)
    """
    eps, delta = (float(v) for v in learner_cost)
    eps_star = 6.0 * eps * m / (kappa * n)
    # exp_or_inf: e^{ε*} overflowed at κ = 0.005 (a review: OverflowError,
    # hiding the "needs more rows" error); δ* is then capped at 1.
    delta_star = (
        0.0 if delta == 0.0 else 4.0 * m * exp_or_inf(eps_star) * delta / (kappa * n)
    )
    return PrivacyCost(eps_star, min(1.0, delta_star))


def curator_privacy_cost(round_cost, rounds, delta):
    """Thm 4.2: advanced composition of ``T`` rounds with slack ``δ / 2``.

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._transfer_steps import (
    ...     curator_privacy_cost)
    >>> c = curator_privacy_cost((0.01, 0.0), rounds=100, delta=1e-5)
    >>> round(c.epsilon, 6), c.delta
    (0.504137, 5e-06)
    """
    return compose_advanced(round_cost, rounds, delta / 2.0)


def _fits(learner_cost, m, kappa, n, rounds, epsilon, delta):
    round_cost = round_privacy_cost(learner_cost, m, kappa, n)
    cost = curator_privacy_cost(round_cost, rounds, delta)
    # Each round within eps* <= 1 as well: Thm 4.2's proof applies Claim 4.1
    # only there (eps* <= eps / sqrt(8 T ln(2/delta)) < 1), and the lemma
    # behind the claim (Karwa & Vadhan 2018, Lemma 6.1) is not at hand to
    # check for a wider range (a review found n = 118 accepted at eps* = 2.54
    # for a target eps = 4, T = 1).
    return round_cost.epsilon <= 1.0 and cost.epsilon <= epsilon and cost.delta <= delta


def curator_rows_needed(learner_cost, m, kappa, rounds, epsilon, delta):
    """Smallest ``n`` whose ``T``-round composition is within ``(ε, δ)``.

    And whose rounds each stay within ``ε* <= 1``, the range Thm 4.2's proof
    uses Claim 4.1 in.

    The cost decreases in ``n``; found by doubling then bisection on the
    same arithmetic the fit uses (Thm 4.2 asks ``n >= m1 sqrt(288 T
    ln(2/δ)) / (ε κ)``, a closed-form sufficient condition; this is the exact
    one for advanced composition).

    Returns
    -------
    n : int

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._transfer_steps import (
    ...     curator_rows_needed)
    >>> curator_rows_needed((1.0, 0.0), 10, 1.0, 1, epsilon=1.0, delta=1e-6)
    60
    """
    hi = max(int(m), 1)
    while not _fits(learner_cost, m, kappa, hi, rounds, epsilon, delta):
        hi *= 2
        if hi > 2**62:
            raise ValueError("No number of curator rows meets (epsilon, delta).")
    lo = hi // 2  # does not fit (or is below m)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid >= m and _fits(learner_cost, m, kappa, mid, rounds, epsilon, delta):
            hi = mid
        else:
            lo = mid
    return max(hi, int(m))


def agents_per_round(alpha, beta, rounds, local_epsilon, local_delta):
    """``N0``: agents per round so that ``|a_t - err_T(h_t)| <= α`` w.p. ``1 - β/T``.

    The paper's ``N0 = 4 ln(2/δ) ln(8T/β) / (ε² α²)`` is for its Gaussian
    randomizer; here Hoeffding for the randomizer actually used:

    * ``local_delta == 0`` (binary randomized response of a Bernoulli(loss)
      bit): each de-biased answer lies in an interval of length
      ``1 / tanh(ε/2)``, so ``N0 = ln(2T/β) / (2 α² tanh²(ε/2))``;
    * ``local_delta > 0`` (``N(loss, σ²)``): loss plus noise is sub-Gaussian
      with variance proxy ``1/4 + σ²``, so ``N0 = 2 (1/4 + σ²) ln(2T/β) / α²``.

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._transfer_steps import agents_per_round
    >>> agents_per_round(0.1, 0.1, 10, 1.0, 0.0)
    1241
    """
    log_term = math.log(2.0 * rounds / beta)
    if local_delta == 0:
        spread = 1.0 / math.tanh(local_epsilon / 2.0)
        return math.ceil(spread**2 * log_term / (2.0 * alpha**2))
    sigma = GaussianLossRandomizedResponse(local_epsilon, local_delta).sigma
    return math.ceil(2.0 * (0.25 + sigma**2) * log_term / alpha**2)


def sq_tolerance(n_target, rounds, beta):
    """τ of the exact SQ oracle on ``N`` target rows: Hoeffding, union over T.

    ``sqrt(ln(2T/β) / (2N))``: each answer is within τ of ``err_T(h_t)``
    with probability ``1 - β/T`` (Algorithm 1's ``SQ_τ``).

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._transfer_steps import sq_tolerance
    >>> round(sq_tolerance(10_000, 100, 0.1), 4)
    0.0195
    """
    return math.sqrt(math.log(2.0 * rounds / beta) / (2.0 * n_target))


def local_randomizer(local_epsilon, local_delta):
    """The agents' randomizer: ``ε``-LDP for a loss in ``[0, 1]``.

    ``local_delta == 0``: :class:`LossRandomizedResponse` (pure ε: the
    output probabilities for any two losses are within ``e^ε``; a Laplace
    randomizer of scale ``1/(25ε)``, as in a public reference
    implementation, would be ``25ε``-LDP). ``local_delta > 0``:
    :class:`GaussianLossRandomizedResponse`, the paper's ``RR_{ε,δ}``.

    Examples
    --------
    >>> from sklearn_semiprivate.classifiers._transfer_steps import local_randomizer
    >>> local_randomizer(1.0, 0.0).privacy_cost
    PrivacyCost(epsilon=1.0, delta=0.0)
    """
    if local_delta == 0:
        return LossRandomizedResponse(local_epsilon)
    return GaussianLossRandomizedResponse(local_epsilon, local_delta)


def curator_round(X, y, log_weights, kappa, m, learner, rng):
    """One curator step: ``µ_t``, ``m`` draws from it, the learner on them.

    Algorithm 2: ``µ_t = Π_κ(w) / ||Π_κ(w)||_1`` (eq. (2), κ-dense by
    Def. 4.1), then ``m1`` rows i.i.d. from ``µ_t`` and ``h_t = M(rows)``: the
    round whose cost is Claim 4.1's. ``kappa=None`` is Algorithm 1: ``µ_t ∝
    w`` (no projection, not private). The draws come from ``rng`` (secret
    noise in Algorithm 2: Claim 4.1 needs them hidden).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        Curator rows (protected).
    log_weights : ndarray of shape (n,)
        ``log w_t``.
    kappa : float or None
        κ, or None for Algorithm 1.
    m : int
        Draws.
    learner : estimator
        Unfitted; fitted in place.
    rng : numpy.random.Generator

    Returns
    -------
    hypothesis : estimator
        The fitted learner.
    mu : ndarray of shape (n,)
        ``µ_t`` (internal state: never released in Algorithm 2).
    """
    if kappa is None:
        mu = np.exp(log_weights - log_weights.max())
    else:
        mu = project_kappa_dense(log_weights, kappa, log_weights=True)
    mu = mu / mu.sum()
    rows = rng.choice(mu.size, size=m, replace=True, p=mu)
    return learner.fit(X[rows], y[rows]), mu


def zero_one_losses(hypothesis, X, y):
    """``L(h(x), ℓ(x)) = 1[h(x) != y]`` for every row, in ``{0, 1}``.

    A row the hypothesis cannot predict (a tree's float32 conversion of a huge
    but finite value) has loss 1, instead of making the fit raise, after its
    charge, on that curator set and not its neighbour (a review): each row's
    loss still depends on that row only (:func:`rowwise_matches`). Its warnings are
    dropped.
    """
    y = np.asarray(y)
    if y.shape[0] == 0:
        return np.zeros(0)
    with dropped_warnings():
        matches, _ = rowwise_matches(hypothesis.predict, X, y)
    return (~matches).astype(np.float64)


def reweigh(log_weights, losses, alpha):
    """MW update ``w_i ← w_i exp(-α/8 [1 - L(h_t(x_i), ℓ(x_i))])`` (Alg. 1, 2).

    In log space; the weights only decrease, so weights started at κ stay in
    ``(0, κ]`` (Claim 4.1's premise). Row ``i``'s new weight depends on row
    ``i`` only (and on the released ``h_t``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate.classifiers._transfer_steps import reweigh
    >>> reweigh(np.zeros(2), np.array([1.0, 0.0]), 0.08).tolist()
    [0.0, -0.01]
    """
    return multiplicative_weights_update(
        log_weights, 1.0 - losses, alpha / 8.0, log_weights=True
    )


def local_test(hypothesis, X_batch, y_batch, randomizer, rng):
    """``a_t``: the batch's losses, each randomized once, de-biased and averaged.

    Each agent of the batch computes its own loss and answers once through
    ``randomizer`` (local ε-DP); the curator sees the answers only.

    Returns
    -------
    estimate : float
        Unbiased estimate of the batch's mean loss.
    """
    answers = randomizer.sample(
        zero_one_losses(hypothesis, X_batch, y_batch), random_state=rng
    )
    return float(randomizer.estimate_mean(answers))


class FitWith:
    """The learner with its public fit arguments: ``fit(X, y)`` passes them.

    ``private``: Algorithm 2's rounds, whose learner of another library may
    quote its rows in an error or a warning: withheld
    (:func:`~sklearn_semiprivate.utils._private_errors.call_inner_on_private`).
    Algorithm 1 releases nothing privately: shown as they are.
    """

    def __init__(self, estimator, fit_kw, private=True):
        self.estimator = estimator
        self._fit_kw = fit_kw
        self._private = private

    def fit(self, X, y):
        if not self._private:
            self.estimator.fit(X, y, **self._fit_kw)
            return self
        call_inner_on_private(
            self.estimator, "fit", X, y, **self._fit_kw,
            what="the learner's fit on the curator's draws",
        )  # fmt: skip
        return self
