"""Private-only peers of ``bench_query_release.py``: smartnoise-synth AIM and MST.

Runs in its own venv (smartnoise-synth pins its own numpy, jax and torch)::

    python -m venv /tmp/venv-snsynth
    /tmp/venv-snsynth/bin/pip install smartnoise-synth
    /tmp/venv-snsynth/bin/python benchmarks/_query_peers.py \\
        --split split.npz --peer aim --rho 0.0034 --out answers.npz

It reads one split written by ``_query_datasets.save_npz`` (integer codes and
the declared number of categories per column; only ``X_private`` is used: the
peers see no public data), fits the peer on the private rows over the declared
domain, and writes the answers to every 3-way marginal in the order of
``MarginalQueries(k=3, n_categories)`` (column sets in ``itertools.combinations``
order, cells in C order), each marginal normalised to fractions.

How the peers are run (smartnoise-synth 1.0.8, mbi 1.1.0):

* The synthesizers' own ``AIM`` / ``MST`` methods are called on an
  ``mbi.Dataset`` built over the declared domain (smartnoise's ``fit`` would
  infer the categories from the private rows), with the zCDP budget ``rho``
  given directly (``fit`` would derive it from ``(epsilon, delta)`` with
  ``snsynth.utils.cdp_rho``; the caller does that conversion, see
  ``bench_query_release.py``). AIM's workload is every 3-way marginal (the
  evaluation workload; smartnoise's default is 2-way), its other settings the
  defaults (``rounds = 16 d``, ``max_model_size = 80``, ``max_cells = 10000``).
* **Answers are computed exactly from the fitted graphical model**
  (``model.project(clique).datavector()``, normalised), never from sampled
  rows: mbi 1.1.0's ``synthetic_data`` draws rows with spurious correlations.
  MST compresses rare categories into one code; its answers on the declared
  domain spread that code's mass uniformly over the categories it merged,
  which is the expectation of smartnoise's own ``reverse_data``.
* ``--aim-scoring fast`` (the default) replaces only the computation of the
  model's marginals inside AIM's candidate scoring
  (``AIMSynthesizer._worst_approximated``): per round, every candidate's
  marginal comes from one exact computation (the model's dense joint
  distribution when the domain has at most ``DENSE_LIMIT`` cells, otherwise
  one variable elimination per maximal candidate, its subsets summed out of
  it). The scores, the exponential mechanism and its sensitivity are
  smartnoise's, unchanged. ``--aim-scoring original`` runs smartnoise's code.
"""

# SPDX-License-Identifier: BSD-3-Clause

import argparse
import itertools
import json
import os
import sys
import time

import numpy as np

DENSE_LIMIT = 2_000_000


def _load(path):
    with np.load(path) as f:
        return f["X_private"].astype(np.int64), f["n_categories"].astype(np.int64)


def _mbi_dataset(X, cards):
    import pandas as pd
    from mbi import Dataset, Domain

    cols = [f"col{j}" for j in range(X.shape[1])]
    domain = Domain(cols, [int(c) for c in cards])
    return Dataset(pd.DataFrame(X, columns=cols), domain=domain), cols


def _marginal_answers(project, cols, cards, k=3):
    """Answers of every k-way marginal, in MarginalQueries order."""
    out = []
    for subset in itertools.combinations(range(len(cols)), k):
        v = np.asarray(project(tuple(cols[j] for j in subset)), dtype=np.float64)
        v = np.clip(v.reshape(-1), 0, None)
        out.append(v / v.sum() if v.sum() > 0 else np.full(v.size, 1.0 / v.size))
    return np.concatenate(out)


def _einsum_marginal(model, cl, path_cache=None):
    """Exact marginal of clique ``cl`` under ``model`` (counts, axes in ``cl``
    order), by one numpy einsum over the exponentiated potentials: the same
    quantity as ``model.project(cl)`` (variable elimination), without jax's
    per-operation dispatch."""
    pots = model.potentials
    attrs = list(model.domain.attrs)
    index = {a: i for i, a in enumerate(attrs)}
    operands = []
    covered = set()
    for clique in pots.cliques:
        log = np.asarray(pots[clique].datavector(flatten=False), dtype=np.float64)
        operands += [np.exp(log - log.max()), [index[a] for a in clique]]
        covered.update(clique)
    for a in cl:
        if a not in covered:
            operands += [np.ones(model.domain[a]), [index[a]]]
    out = np.einsum(*operands, [index[a] for a in cl], optimize="greedy")
    return out * (float(model.total) / out.sum())


class _Scorer:
    """Every candidate's marginal under one model, each computed exactly."""

    def __init__(self, model, candidates):
        self.model = model
        dom = model.domain
        self.cache = {}
        self.dense = None
        if dom.size() <= DENSE_LIMIT:
            self.attrs = tuple(dom.attrs)
            self.dense = _einsum_marginal(model, self.attrs)
        # Maximal candidates (not inside another); subsets summed from them.
        self.parent = {}
        maximal = []
        for cl in sorted(candidates, key=len, reverse=True):
            for big in maximal:
                if set(cl) <= set(big):
                    self.parent[cl] = big
                    break
            else:
                maximal.append(cl)
                self.parent[cl] = cl

    def _full(self, cl):
        if cl not in self.cache:
            if self.dense is not None:
                self.cache[cl] = _sum_to(self.dense, self.attrs, cl)
            else:
                self.cache[cl] = _einsum_marginal(self.model, cl)
        return self.cache[cl]

    def __call__(self, cl):
        cl = tuple(cl)
        big = self.parent.get(cl, cl)
        if big == cl:
            return self._full(cl).reshape(-1)
        return _sum_to(self._full(big), big, cl).reshape(-1)


def _sum_to(f, attrs, cl):
    """Marginal of array ``f`` (axes ``attrs``) on ``cl``, axes in ``cl`` order."""
    keep = [attrs.index(a) for a in cl]
    drop = tuple(i for i in range(len(attrs)) if i not in keep)
    m = f.sum(axis=drop)
    return np.transpose(m, np.argsort(np.argsort(keep)))


def run_aim(X, cards, rho, scoring, rounds=None):
    from snsynth.aim import AIMSynthesizer
    from snsynth.utils import exponential_mechanism

    data, cols = _mbi_dataset(X, cards)
    synth = AIMSynthesizer(epsilon=1.0, delta=1e-9, degree=3, rounds=rounds)
    synth.rho = float(rho)
    workload = synth.get_workload(data, degree=3, max_cells=synth.max_cells)
    stats = {"rounds": 0, "score_seconds": 0.0}

    if scoring == "fast":

        def worst(candidates, answers, model, eps, sigma):
            start = time.perf_counter()
            marg = _Scorer(model, candidates)
            errors, sensitivity = {}, {}
            for cl in candidates:
                wgt = candidates[cl]
                x = answers[cl]
                bias = np.sqrt(2 / np.pi) * sigma * model.domain.size(cl)
                xest = marg(cl)
                errors[cl] = wgt * (np.linalg.norm(x - xest, 1) - bias)
                sensitivity[cl] = abs(wgt)
            max_sensitivity = max(sensitivity.values())
            stats["rounds"] += 1
            stats["score_seconds"] += time.perf_counter() - start
            return exponential_mechanism(errors, eps, max_sensitivity)

        synth._worst_approximated = worst
    else:
        original = synth._worst_approximated

        def worst(*args):
            start = time.perf_counter()
            out = original(*args)
            stats["rounds"] += 1
            stats["score_seconds"] += time.perf_counter() - start
            return out

        synth._worst_approximated = worst

    start = time.perf_counter()
    synth.AIM(data, workload)
    fit_seconds = time.perf_counter() - start
    model = synth.synthesizer
    start = time.perf_counter()
    answers = _marginal_answers(lambda cl: _einsum_marginal(model, cl), cols, cards)
    stats["answer_seconds"] = time.perf_counter() - start
    return answers, fit_seconds, stats


def run_mst(X, cards, rho):
    from snsynth.mst import MSTSynthesizer

    data, cols = _mbi_dataset(X, cards)
    synth = MSTSynthesizer(epsilon=1.0, delta=1e-9)
    # smartnoise's MST derives rho = cdp_rho(epsilon, delta) inside MST();
    # give it rho directly by swapping that one call.
    import snsynth.mst.mst as mst_module

    saved = mst_module.cdp_rho
    mst_module.cdp_rho = lambda *_: float(rho)
    try:
        start = time.perf_counter()
        synth.MST(data, 1.0, 1e-9)
        fit_seconds = time.perf_counter() - start
    finally:
        mst_module.cdp_rho = saved
    model = synth.synthesizer
    # The compression map: recover it from the closure of undo_compress_fn.
    supports = next(
        c.cell_contents
        for c in synth.undo_compress_fn.__closure__
        if isinstance(c.cell_contents, dict)
    )
    expand = {}
    for j, col in enumerate(cols):
        sup = np.asarray(supports[col], dtype=bool)
        kept, extra = np.flatnonzero(sup), np.flatnonzero(~sup)
        size = int(sup.sum()) + (1 if extra.size else 0)
        E = np.zeros((int(cards[j]), size))
        E[kept, np.arange(kept.size)] = 1.0
        if extra.size:
            E[extra, kept.size] = 1.0 / extra.size
        expand[col] = E

    def project(cl):
        f = _einsum_marginal(model, cl)
        for axis, col in enumerate(cl):
            f = np.moveaxis(np.tensordot(expand[col], f, axes=([1], [axis])), 0, axis)
        return f

    start = time.perf_counter()
    answers = _marginal_answers(project, cols, cards)
    stats = {"answer_seconds": time.perf_counter() - start}
    return answers, fit_seconds, stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split")
    parser.add_argument("--peer", choices=["aim", "mst"])
    parser.add_argument("--rho", type=float, help="zCDP budget")
    parser.add_argument("--out")
    parser.add_argument(
        "--cdp-rho",
        metavar="EPS,DELTA[;EPS,DELTA...]",
        help="only print snsynth.utils.cdp_rho of each pair as a JSON list, exit",
    )
    parser.add_argument("--aim-scoring", choices=["fast", "original"], default="fast")
    parser.add_argument("--aim-rounds", type=int, default=None)
    args = parser.parse_args()
    if args.cdp_rho:
        from snsynth.utils import cdp_rho

        pairs = [[float(v) for v in p.split(",")] for p in args.cdp_rho.split(";")]
        print(json.dumps([cdp_rho(eps, delta) for eps, delta in pairs]))
        return
    X, cards = _load(args.split)
    if args.peer == "aim":
        answers, fit_seconds, stats = run_aim(
            X, cards, args.rho, args.aim_scoring, args.aim_rounds
        )
    else:
        answers, fit_seconds, stats = run_mst(X, cards, args.rho)
    from importlib.metadata import version

    info = {
        "peer": args.peer,
        "rho": args.rho,
        "smartnoise-synth": version("smartnoise-synth"),
        "mbi": version("mbi"),
        "python": sys.version.split()[0],
        "aim_scoring": args.aim_scoring if args.peer == "aim" else None,
        "threads": os.environ.get("OMP_NUM_THREADS", "unset"),
        **stats,
    }
    np.savez(args.out, answers=answers, fit_seconds=fit_seconds, info=json.dumps(info))


if __name__ == "__main__":
    main()
