"""Measure every query once, then fit the support's distribution to the measurements.

``selection="all"`` of :class:`PublicAssistedQueryRelease`: no selection step.
The whole vector of answers is released at once by one Gaussian (or Laplace)
mechanism calibrated to the workload's exact replace-one sensitivity, and a
distribution over the public support is then fitted to the noisy answers. The
fit is post-processing: it reads the released answers and public data only.

When a workload's queries exclude each other (the cells of a marginal), one
measurement of all of them costs little more than the measurement of one
(:meth:`_QuerySet.replace_one_sensitivity`): for ``S`` column sets the L2
sensitivity of the counts is ``sqrt(2 S)``, whatever the number of cells.

The fit is maximum entropy with a Gaussian (L2) penalty (Chen & Rosenfeld
2000; Dudík, Phillips & Schapire 2007): among distributions ``w`` on the
support, minimise ``KL(w || w0) + ||A w - m||² / (2 tau)``, ``w0`` the public
starting distribution, ``A w`` the answers of ``w``, ``m`` the measurements.
Its dual is smooth and strictly convex, so the fit has one solution, whatever
the optimiser's path: ``w ∝ w0 exp(Aᵀ λ)`` at the minimiser ``λ`` of
``log Σ_x w0(x) exp((Aᵀ λ)_x) - λ·m + tau ||λ||² / 2``.
"""

# SPDX-License-Identifier: BSD-3-Clause

import math

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp

from ..accounting import PrivacyCost
from ..mechanisms import GaussianMechanism, LaplaceMechanism

__all__ = [
    "MeasureAll",
    "default_regularization",
    "fit_to_measurements",
    "measure_all_cost",
    "plan_measure_all",
    "run_measure_all",
]

# Largest number of L-BFGS iterations of the fit when n_iterations is None.
DEFAULT_FIT_ITERATIONS = 1000


def measure_all_cost(epsilon, delta, measurement):
    """Cost of :class:`MeasureAll`: ``(ε, δ)`` Gaussian, ``(ε, 0)`` Laplace.

    From the parameters alone (``PublicAssistedQueryRelease._privacy_cost``).
    """
    return PrivacyCost(
        float(epsilon), float(delta) if measurement == "gaussian" else 0.0
    )


class MeasureAll:
    """One noisy measurement of every answer of a workload (fractions).

    Parameters
    ----------
    query_set : _QuerySet
        The bound workload (public).
    n : int
        Number of private rows (public): answers are fractions of ``n``.
    epsilon, delta : float
        Budget; ``delta = 0`` needs ``measurement="laplace"``.
    measurement : {"gaussian", "laplace"}
        The analytic Gaussian mechanism (Balle & Wang 2018), calibrated to the
        L2 sensitivity, or the Laplace mechanism, calibrated to the L1
        sensitivity.

    Attributes
    ----------
    mechanism : GaussianMechanism or LaplaceMechanism
    cost : PrivacyCost
        ``(epsilon, delta)`` (Gaussian) or ``(epsilon, 0)`` (Laplace).
    noise_variance : float
        Variance of the noise on one answer.
    """

    def __init__(self, query_set, n, epsilon, delta, measurement):
        l1, l2 = query_set.replace_one_sensitivity()
        # Counts move by at most (l1, l2) when one private row is replaced,
        # so the answers (counts / n) by (l1 / n, l2 / n).
        if measurement == "gaussian":
            self.mechanism = GaussianMechanism(epsilon, delta, sensitivity=l2 / n)
            sigma = self.mechanism.sigma
            self.noise_variance = sigma * sigma  # inf, not OverflowError
        else:
            self.mechanism = LaplaceMechanism(epsilon, sensitivity=l1 / n)
            scale = self.mechanism.scale
            self.noise_variance = 2.0 * scale * scale
        if not math.isfinite(self.noise_variance):
            # From epsilon ~ 1e-160 (Laplace) ``scale**2`` was a bare
            # OverflowError, and at 5e-324 the scale was inf and the fit of
            # the measurements computed NaN after the charge. The caller
            # builds this before the charge, so it refuses for free.
            raise ValueError(
                f"epsilon={epsilon!r} is too small: the noise of one answer has "
                "no finite variance as a double. Use a larger epsilon."
            )
        self.cost = measure_all_cost(epsilon, delta, measurement)

    def sample(self, true_answers, rng):
        """The noisy answers: ``true_answers`` plus the mechanism's noise."""
        return np.asarray(self.mechanism.sample(true_answers, random_state=rng))


def default_regularization(noise_variance, mean_answer, n, scale=1.0):
    """The fit's penalty ``tau = scale * (v / a + 1 / n)``, from public quantities.

    ``v`` is the variance of the measurement noise of one answer and ``a`` the
    mean answer of the starting distribution. A log-odds shift ``λ`` of prior
    variance ``s²``, read from an answer near ``a`` measured with noise of
    variance ``v``, has posterior mean ``(m - a) / (a + v / (a s²))``: the
    dual penalty ``tau = v / (a s²)``. The sampling noise of the ``n``
    private rows (variance about ``a / n``) adds ``1 / (n s²)``. ``scale`` is
    ``1 / s²``: 1 (a prior standard deviation of one log-odds unit) answers
    queries well; a model trained on the released rows wants more (see
    :class:`~sklearn_semiprivate.SyntheticDataClassifier`).

    Parameters
    ----------
    noise_variance : float
        Variance ``v`` of the measurement noise of one answer.
    mean_answer : float
        Mean answer ``a`` of the workload on the starting distribution.
    n : int
        Number of private rows (public).
    scale : float, default=1.0
        Multiplier, ``> 0``.

    Returns
    -------
    tau : float
    """
    mean_answer = max(float(mean_answer), 1.0 / n)
    return scale * (noise_variance / mean_answer + 1.0 / n)


def fit_to_measurements(query_set, points, init_weights, measured, tau, max_iter):
    """Max-entropy distribution on ``points`` answering about like ``measured``.

    Post-processing: reads the released answers and public points only.

    Parameters
    ----------
    query_set : _QuerySet
        The workload.
    points : ndarray of shape (n_points, n_columns)
        The support.
    init_weights : ndarray of shape (n_points,)
        Starting distribution ``w0`` (non-negative, positive sum); a point of
        weight 0 keeps weight 0.
    measured : ndarray of shape (n_queries,)
        Noisy answers.
    tau : float
        Penalty, ``> 0``.
    max_iter : int
        Largest number of L-BFGS iterations.

    Returns
    -------
    weights : ndarray of shape (n_points,)
        The fitted distribution (sums to 1).
    n_iter : int
        Iterations made.
    """
    with np.errstate(divide="ignore"):
        log_w0 = np.log(np.asarray(init_weights, dtype=np.float64))
    log_w0 = log_w0 - logsumexp(log_w0)
    measured = np.asarray(measured, dtype=np.float64)

    def log_weights(lam):
        z = log_w0 + query_set.point_sums(points, lam)
        return z - logsumexp(z)

    def dual(lam):
        z = log_w0 + query_set.point_sums(points, lam)
        lse = logsumexp(z)
        with np.errstate(under="ignore"):
            w = np.exp(z - lse)
            answers = query_set.weighted_sums(points, w)
        value = lse - lam @ measured + 0.5 * tau * (lam @ lam)
        return value, answers - measured + tau * lam

    result = minimize(
        dual,
        np.zeros(measured.size),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": int(max_iter)},
    )
    with np.errstate(under="ignore"):
        weights = np.exp(log_weights(result.x))
    return weights / weights.sum(), int(result.nit)


def plan_measure_all(
    query_set,
    points,
    init,
    n,
    *,
    epsilon,
    delta,
    measurement,
    n_iterations,
    regularization,
):
    """``selection="all"``'s public part: the measurement, its cost, the fit's penalty.

    Reads public data and parameters only (``n`` is public).
    """
    measure = MeasureAll(query_set, n, epsilon, delta, measurement=measurement)
    start = query_set.answers(points, init)  # the starting distribution: public
    tau = default_regularization(
        measure.noise_variance, start.mean(), n, regularization
    )
    if not math.isfinite(tau):
        # A second review: just above MeasureAll's refusal, or with a huge
        # regularization=, tau overflowed and the fit computed NaN after the
        # charge (releasing the public start). Refused before it.
        raise ValueError(
            f"The fit's penalty is not a finite double (epsilon={epsilon!r}, "
            f"regularization={regularization!r}): use a larger epsilon or a "
            "smaller regularization."
        )
    return {
        "measure": measure,
        "cost": measure.cost,
        "points": points,
        "init": init,
        "tau": tau,
        "max_iter": DEFAULT_FIT_ITERATIONS if n_iterations is None else n_iterations,
    }


def run_measure_all(plan, query_set, X, n, rng):
    """Measure every answer on the private rows once, then fit the support.

    Returns the fitted attributes of the release.
    """
    # The workload's exact answers on the private rows, read only by the one
    # measurement: replacing a row moves the vector of answers by the
    # workload's replace-one sensitivity / n, to which MeasureAll is calibrated.
    measured = plan["measure"].sample(query_set.answers(X), rng)
    # Post-processing of the measurements and public data from here on.
    weights, n_iter = fit_to_measurements(
        query_set, plan["points"], plan["init"], measured, plan["tau"], plan["max_iter"]
    )
    return {
        "measurements_": measured,
        "regularization_": plan["tau"],
        "cover_size_": query_set.n_queries,
        "support_": plan["points"],
        "weights_": weights,
        "n_iterations_": int(plan["max_iter"]),
        "n_updates_": n_iter,
        "rho_": None,
        "privacy_spent_": plan["cost"],
    }
