"""Statistical ε lower bounds for whole estimators and workflows.

The other audit helpers check one mechanism. A user's privacy claim is about
everything a workflow releases: a ``fit``, a whole ``cross_validate`` (several
fits, the returned estimators *and* the test scores) or a hyper-parameter search
(every fit, the refit, ``best_params_``, ``cv_results_``). A fault between the
mechanisms — two fits sharing their noise, an exact validation score released
next to the private model — is invisible to a mechanism-level check but shows up
here: the workflow is run many times on two neighbouring datasets, a fixed event
is counted on its outputs, and :func:`epsilon_lower_bound` turns the counts into
a Clopper–Pearson lower confidence bound on the ε of the whole workflow.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np
from joblib import Parallel, delayed

from ..utils._validation import check_delta, check_integer, check_probability
from ._lower_bound import epsilon_lower_bound

__all__ = ["audit_epsilon"]


def _trial(run, dataset, event):
    """One independent run of the workflow, reduced at once to the event's bit.

    Reducing here keeps no fitted estimator alive and sends one bool back from a
    worker process.
    """
    hit = event(run(dataset))
    if not isinstance(hit, (bool, np.bool_)):
        raise TypeError(
            "event must return a bool (or numpy.bool_) for one output, got "
            f"{type(hit).__name__}."
        )
    return bool(hit)


def _check_callable(value, name, signature):
    if not callable(value):
        raise TypeError(
            f"{name} must be a callable {signature}, got {type(value).__name__}."
        )


def audit_epsilon(
    run,
    dataset,
    dataset_neighbour,
    event,
    *,
    n_trials=500,
    alpha=0.05,
    delta=0.0,
    n_jobs=None,
):
    """Lower confidence bound on the ε of a whole fit, cross-validation or search.

    ``run`` is called ``n_trials`` times on ``dataset`` and ``n_trials`` times
    on ``dataset_neighbour`` (interleaved), ``event`` is evaluated on every
    output, and the two counts give a Clopper–Pearson lower bound on ε, in both
    directions (see Notes). If the workflow is (ε, δ)-DP for this neighbour
    relation, the returned bound is at most ε with probability at least
    ``1 - alpha``; a bound above the claimed ε is statistical evidence that the
    claim is false.

    Parameters
    ----------
    run : callable
        ``run(dataset) -> output``: the whole workflow, e.g. build an estimator,
        ``fit`` it and return ``member_`` or its predictions; or run a
        ``cross_validate`` or a ``GridSearchCV`` and return what it releases.
        Every call must build **fresh** estimators (call a factory inside
        ``run``; never refit an object created outside it, whose state could
        carry over between trials) and must draw fresh privacy noise, i.e. run
        the estimator exactly as a user would, not inside
        :func:`~sklearn_semiprivate.reproducible_noise`.
    dataset, dataset_neighbour : object
        Two neighbouring inputs of ``run`` (whatever it takes, e.g. a tuple
        ``(X, y)``), differing in one private row under the neighbour relation
        of the claim. Public data may be captured by ``run`` instead.
    event : callable
        ``event(output) -> bool``, fixed before looking at any output (an
        event picked after seeing the outputs it is evaluated on voids the
        confidence level).
    n_trials : int, default=500
        Number of runs on each dataset, ``>= 1``.
    alpha : float, default=0.05
        The bound holds with probability at least ``1 - alpha``; in ``(0, 1)``.
    delta : float, default=0.0
        The δ of the claim being tested, in ``[0, 1)``.
    n_jobs : int, default=None
        Number of joblib workers for the trials; None means 1 unless in a
        :func:`joblib.parallel_config` context. Workers are separate processes
        by default: ``run`` and ``event`` must then be picklable, and neither
        :func:`~sklearn_semiprivate.reproducible_noise` nor an in-memory
        :class:`~sklearn_semiprivate.PrivacyAccountant` reaches them.

    Returns
    -------
    bound : EpsilonLowerBound
        The larger of the two directional bounds. ``event`` names the event and
        the direction that gave it; ``n_samples`` and ``n_samples_neighbour``
        are both ``n_trials``.

    See Also
    --------
    epsilon_lower_bound : the same bound from samples already drawn.
    max_privacy_loss_over_pairs : exact verification when the output
        distribution can be computed.

    Notes
    -----
    **Both directions.** DP bounds ``P[E | D] <= e^ε P[E | D'] + δ`` and the
    same with ``D`` and ``D'`` swapped. Which side an event favours is often
    not obvious in advance (it depends on which fold holds the changed row, or
    which candidate a search prefers), so both inequalities are tested, each at
    level ``alpha / 2`` (a union bound), and the larger bound is returned. The
    price is small: at ``alpha = 0.05`` and 500 trials, the bound from an event
    that never occurs on one side and always on the other is about 0.17 lower
    than a one-direction bound at level ``alpha``; about 0.2 when it occurs in
    a fifth of the trials, 0.24 in a twentieth (a review's measurement).

    **Independence.** The confidence level assumes independent trials: ``run``
    must carry nothing from one call to the next (a fitted object, a cache, a
    generator) and must not modify ``dataset``. A fixed ``random_state`` is
    fine, as it seeds the public side only. Inside
    :func:`~sklearn_semiprivate.reproducible_noise` it would also fix the noise
    of every trial; a per-trial seed makes trials independent again (this is
    how the tests re-create the shared-noise fault of cross-validation).

    **Several pairs.** To audit ``k`` pairs of neighbours, call this once per
    pair with ``alpha / k`` (each pair usually needs its own event) and take the
    largest bound: by the union bound it holds with probability ``1 - alpha``.

    **Cost.** The audit runs the workflow ``2 * n_trials`` times; it is meant
    for synthetic or public data. On real private data every run spends
    privacy.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_semiprivate import PublicData, SemiPrivateClassifier
    >>> from sklearn_semiprivate.audit import audit_epsilon
    >>> rng = np.random.default_rng(0)
    >>> X, X_pub = rng.uniform(size=(30, 1)), PublicData(rng.uniform(size=(5, 1)))
    >>> y = (X[:, 0] > 0.5).astype(int)
    >>> y_neighbour = y.copy()
    >>> y_neighbour[0] = 1 - y[0]  # one private label replaced
    >>> def run(data):
    ...     X, y = data
    ...     clf = SemiPrivateClassifier("thresholds", epsilon=1.0, classes=[0, 1])
    ...     return clf.fit(X, y, X_public=X_pub).predict([[0.5]])[0]
    >>> def predicts_one(label):
    ...     return label == 1
    >>> bound = audit_epsilon(run, (X, y), (X, y_neighbour), predicts_one, n_trials=40)
    >>> bound.n_samples, bool(bound.epsilon <= 1.0)
    (40, True)
    """
    _check_callable(run, "run", "run(dataset) -> output")
    _check_callable(event, "event", "event(output) -> bool")
    n_trials = check_integer(n_trials, "n_trials", 1)
    alpha = check_probability(alpha, "alpha", allow_zero=False)
    delta = check_delta(delta)

    # Interleaved, so that anything drifting during the audit (machine load, a
    # ledger filling up) affects both datasets alike.
    datasets = (dataset, dataset_neighbour)
    hits = Parallel(n_jobs=n_jobs)(
        delayed(_trial)(run, datasets[i % 2], event) for i in range(2 * n_trials)
    )
    hits = np.asarray(hits, dtype=bool)
    on_dataset, on_neighbour = hits[0::2], hits[1::2]

    def occurred(mask):
        return mask

    name = getattr(event, "__name__", "event")
    directions = (
        ("D vs D_neighbour", on_dataset, on_neighbour),
        ("D_neighbour vs D", on_neighbour, on_dataset),
    )
    bounds = [
        epsilon_lower_bound(
            first, second, occurred, alpha=alpha / 2, delta=delta
        )._replace(event=f"{name} on {label}")
        for label, first, second in directions
    ]
    return max(bounds, key=lambda bound: bound.epsilon)
