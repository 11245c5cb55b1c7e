"""A relaxed synthetic dataset: a mixture of product distributions, fitted to marginals.

The estimator of ``support="mixture"`` (:mod:`._adaptive`): ``N`` relaxed rows,
row ``i`` holding on every column ``j`` a probability vector
``P[i, j] = softmax(Z[i, j])`` over the column's categories (the relaxed
synthetic data of Aydore et al. 2021, RAP, and Liu et al. 2021, GEM). The
distribution released is the mixture of the ``N`` product distributions
``⊗_j P[i, j]`` with weights ``pi``: its marginal on a column set ``S`` is
``sum_i pi[i] ⊗_{j in S} P[i, j]``, exactly. Its support is the whole grid of
the domain, not only the public points.

Each row ``i`` has a mixture weight ``pi = softmax(u)``, the multiplicity of
a distinct public point. The logits start at the public rows (each one-hot,
softened) and are fitted by Adam to a weighted least-squares loss against
noisy marginals. With ``learn_weights`` the weights are fitted too (the
reweighting of PMW^Pub, Liu et al. 2021): the rare public rows of a group the
public sample under-represents can then carry its mass with their own
conditional structure; it is off by default (see ``learn_weights``).
Everything here is post-processing: it reads released
measurements and public data only.
"""

# SPDX-License-Identifier: BSD-3-Clause

import numpy as np

__all__ = ["ProductMixture"]

# Adam's moment decay rates and stabiliser (Kingma & Ba 2015).
_BETA1, _BETA2, _ADAM_EPS = 0.9, 0.999, 1e-8


def _khatri_rao(a, b):
    """Row-wise outer product of ``(N, p)`` and ``(N, q)``: ``(N, p q)``, C order."""
    return (a[:, :, None] * b[:, None, :]).reshape(a.shape[0], -1)


class ProductMixture:
    """Uniform mixture of ``N`` product distributions over categorical columns.

    Parameters
    ----------
    n_categories : ndarray of shape (n_columns,)
        Categories of every column.
    logits : ndarray of shape (N, sum(n_categories))
        The logits of every row, column after column.
    weights : ndarray of shape (N,)
        Starting mixture weights (non-negative, summing to 1).
    """

    # Precision of the loss and its gradient (the parameters stay float64).
    compute_dtype = np.float32
    # Whether fit moves the mixture weights too. Off: on rwm5yr at epsilon =
    # 0.1 (3 fits each) learned weights gave max errors .025-.048, fixed ones
    # .026-.033 (the weights chase the noise of few, coarse measurements).
    learn_weights = False

    def __init__(self, n_categories, logits, weights):
        self.n_categories = np.asarray(n_categories, dtype=np.intp)
        self.offsets = np.concatenate([[0], np.cumsum(self.n_categories)])
        self.column_of = np.repeat(np.arange(self.n_categories.size), self.n_categories)
        weights = np.asarray(weights, dtype=np.float64)
        with np.errstate(divide="ignore"):
            log_weights = np.log(weights)  # a weight 0 stays 0
        self.set_params(np.column_stack([logits, log_weights]))

    @classmethod
    def from_rows(cls, rows, weights, n_categories, *, smoothing, n_copies, rng):
        """Start at integer-coded (public) rows, each one-hot, softened.

        A row puts ``1 - smoothing`` of its mass on its own category and
        spreads ``smoothing`` uniformly over all of them; a code ``-1`` (an
        unknown value, e.g. a missing public label) is uniform. Each row is
        repeated ``n_copies`` times, its weight shared among the copies, and
        the copies' logits are jittered by ``N(0, 0.1²)`` (public randomness
        from ``rng``) so that gradient steps can tell them apart.
        """
        rows = np.repeat(np.asarray(rows, dtype=np.intp), n_copies, axis=0)
        weights = np.repeat(np.asarray(weights, dtype=np.float64), n_copies)
        cards = np.asarray(n_categories, dtype=np.intp)
        offsets = np.concatenate([[0], np.cumsum(cards)])
        logits = np.zeros((rows.shape[0], int(offsets[-1])))
        index = np.arange(rows.shape[0])
        for j, c in enumerate(cards):
            # softmax of (s on the own category, 0 elsewhere) puts
            # 1 - smoothing + smoothing / c on it: s = log(1 + c (1 - sm) / sm).
            s = np.log1p(c * (1.0 - smoothing) / smoothing) if c > 1 else 0.0
            known = rows[:, j] >= 0
            logits[index[known], offsets[j] + rows[known, j]] = s
        if n_copies > 1:
            logits += rng.normal(0.0, 0.1, size=logits.shape)
        return cls(cards, logits, weights / weights.sum())

    @property
    def n_rows(self):
        return self.params.shape[0]

    def set_params(self, params):
        """Logits (all columns but the last) and log-weights (the last one)."""
        self.params = params
        u = params[:, -1]
        e = np.exp(u - u.max())
        self.weights = e / e.sum()
        logits = params[:, :-1]
        starts = self.offsets[:-1]
        z = logits - np.maximum.reduceat(logits, starts, axis=1)[:, self.column_of]
        e = np.exp(z)
        self.probs = e / np.add.reduceat(e, starts, axis=1)[:, self.column_of]

    def column(self, j):
        """Probability vectors of column ``j``: ``(N, c_j)`` (a view)."""
        return self.probs[:, self.offsets[j] : self.offsets[j + 1]]

    def marginal(self, cols):
        """The marginal of column set ``cols``, flat in C order (fractions)."""
        cols = list(cols)
        if len(cols) == 1:
            return self.weights @ self.column(cols[0])
        rest = self.column(cols[-1])
        for c in reversed(cols[1:-1]):
            rest = _khatri_rao(self.column(c), rest)
        return ((self.column(cols[0]) * self.weights[:, None]).T @ rest).ravel()

    def all_marginals(self, cliques):
        """Marginals of many column sets at once (one product per pair prefix).

        Returns a dict ``cols -> flat marginal`` for every tuple in ``cliques``
        (sizes 1 to 3; larger ones one by one).
        """
        out = {}
        by_prefix = {}
        for cols in cliques:
            if len(cols) == 1:
                out[cols] = self.weights @ self.column(cols[0])
            elif len(cols) == 2:
                by_prefix.setdefault((cols[0],), []).append(cols)
            elif len(cols) == 3:
                by_prefix.setdefault(cols[:2], []).append(cols)
            else:
                out[cols] = self.marginal(cols)
        for prefix, group in by_prefix.items():
            left = self.column(prefix[0]) * self.weights[:, None]
            if len(prefix) == 2:
                left = _khatri_rao(left, self.column(prefix[1]))
            last = sorted({g[-1] for g in group})
            right = np.concatenate([self.column(c) for c in last], axis=1)
            table = left.T @ right
            start = 0
            for c in last:
                width = self.n_categories[c]
                out[(*prefix, c)] = table[:, start : start + width].ravel()
                start += width
        return out

    def loss_and_grad(self, measurements):
        """Weighted least squares ``sum_r w_r ||M_r - y_r||² / 2`` and its gradient.

        ``measurements`` is a list of ``(cols, y, w)``: column set (1 to 3
        columns), noisy marginal (fractions, flat) and weight (one, or one
        per cell).
        """
        # M = sum_i pi_i f(P_i): the gradient of row i is pi_i times that of
        # f(P_i); the factor pi is applied once, at the end.
        n = self.n_rows
        # In float32: the products are the cost, and Adam needs no more.
        dtype = self.compute_dtype
        probs = self.probs.astype(dtype)
        pi = self.weights.astype(dtype)
        grad = np.zeros_like(probs)
        grad_pi = np.zeros(n, dtype=dtype)  # dL / d pi_i = <r, f(P_i)>
        loss = 0.0
        for cols, y, w in measurements:
            y = np.asarray(y, dtype=dtype)
            w = np.asarray(w, dtype=dtype)
            cards = [self.n_categories[c] for c in cols]
            sl = [slice(self.offsets[c], self.offsets[c + 1]) for c in cols]
            pa = probs[:, sl[0]]
            if len(cols) == 1:
                resid = pi @ pa - y
                loss += 0.5 * float((w * resid) @ resid)
                grad[:, sl[0]] += w * resid
                grad_pi += pa @ (w * resid)
                continue
            if len(cols) == 2:
                pb = probs[:, sl[1]]
                resid = ((pa * pi[:, None]).T @ pb).ravel() - y
                loss += 0.5 * float((w * resid) @ resid)
                r = (w * resid).reshape(cards)
                grad[:, sl[0]] += pb @ r.T
                t = pa @ r
                grad[:, sl[1]] += t
                grad_pi += np.einsum("ib,ib->i", t, pb)
                continue
            if len(cols) != 3:
                raise ValueError("measurements hold 1 to 3 columns.")
            pb, pc = probs[:, sl[1]], probs[:, sl[2]]
            bc = _khatri_rao(pb, pc)
            resid = ((pa * pi[:, None]).T @ bc).ravel() - y
            loss += 0.5 * float((w * resid) @ resid)
            r = (w * resid).reshape(cards[0], -1)
            grad[:, sl[0]] += bc @ r.T
            t = pa @ r
            grad_pi += np.einsum("ij,ij->i", t, bc)
            t = t.reshape(n, cards[1], cards[2])
            grad[:, sl[1]] += np.einsum("ibc,ic->ib", t, pc)
            grad[:, sl[2]] += np.einsum("ibc,ib->ic", t, pb)
        # Through the softmax of each column: dZ = P * (G - <G, P>_column).
        out = np.empty_like(self.params)
        pi = self.weights
        gp = grad * self.probs * pi[:, None]
        inner = np.add.reduceat(gp, self.offsets[:-1], axis=1)[:, self.column_of]
        out[:, :-1] = gp - self.probs * inner
        # Through the softmax of the weights: du = pi * (g - <g, pi>).
        out[:, -1] = pi * (grad_pi - pi @ grad_pi)
        return loss, out

    def sample(self, n_samples, rng):
        """Integer-coded rows: a component by its weight, then every column."""
        comp = rng.choice(self.n_rows, size=n_samples, p=self.weights)
        out = np.empty((n_samples, self.n_categories.size), dtype=np.intp)
        for j in range(self.n_categories.size):
            cdf = np.cumsum(self.column(j)[comp], axis=1)
            u = rng.random(n_samples)[:, None] * cdf[:, -1:]
            out[:, j] = np.minimum((u >= cdf).sum(axis=1), cdf.shape[1] - 1)
        return out

    def fit(self, measurements, n_iter, learning_rate, state=None):
        """Adam on logits and log-weights; returns its state for a warm restart."""
        if state is None:
            state = {"m": np.zeros_like(self.params), "v": np.zeros_like(self.params)}
            state["t"] = 0
        m, v = state["m"], state["v"]
        for _ in range(int(n_iter)):
            _, g = self.loss_and_grad(measurements)
            state["t"] += 1
            t = state["t"]
            m *= _BETA1
            m += (1.0 - _BETA1) * g
            v *= _BETA2
            v += (1.0 - _BETA2) * (g * g)
            step = (learning_rate / (1.0 - _BETA1**t)) * m
            step /= np.sqrt(v / (1.0 - _BETA2**t)) + _ADAM_EPS
            # A weight 0 (log-weight -inf) has gradient 0 and stays 0.
            step[~np.isfinite(self.params)] = 0.0
            if not self.learn_weights:
                step[:, -1] = 0.0
            self.set_params(self.params - step)
        return state
