"""Counting private values at public thresholds: exact against searchsorted."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sklearn_semiprivate.hypotheses import DecisionStumps, Intervals, _counting
from sklearn_semiprivate.hypotheses._counting import ClassCounts, locate


def thresholds_and_values(rng, kind, m=500, n=20_000):
    """Sorted distinct public thresholds and private values that probe them."""
    draw = {
        "gaussian": lambda size: rng.normal(size=size),
        "heavy": lambda size: rng.standard_cauchy(size=size) ** 3,
        "lognormal": lambda size: rng.lognormal(sigma=4.0, size=size),
        "integers": lambda size: rng.integers(-50, 50, size=size).astype(float),
        "tiny": lambda size: rng.normal(size=size) * 1e-300,
        "huge": lambda size: rng.normal(size=size) * 1e300,
        "offset": lambda size: 1e9 + rng.normal(size=size) * 1e-3,
        "outlier": lambda size: np.append(rng.normal(size=size - 1), 1e200),
    }[kind]
    thresholds = np.unique(draw(m))
    near = rng.choice(thresholds, size=n // 2)
    # exact thresholds, their float neighbours, fresh draws, extremes
    values = np.concatenate(
        [
            near,
            np.nextafter(near[: n // 8], np.inf),
            np.nextafter(near[: n // 8], -np.inf),
            draw(n // 4),
            [-1.7e308, 1.7e308, 0.0, -0.0],
        ]
    )
    return thresholds, rng.permutation(values)


KINDS = [
    "gaussian",
    "heavy",
    "lognormal",
    "integers",
    "tiny",
    "huge",
    "offset",
    "outlier",
]


def built_candidates(thresholds):
    """Every candidate grid, built: the grid path whether or not it is chosen."""
    return [grid.build() for grid in _counting._candidate_grids(thresholds)]


def grid_locate(grid, values):
    out = np.empty(values.size, dtype=np.int32)
    return grid.locate(values, out, _counting._work_buffers(values.size))


@pytest.mark.parametrize("kind", KINDS)
def test_every_candidate_grid_locates_exactly(kind):
    rng = np.random.default_rng(0)
    thresholds, values = thresholds_and_values(rng, kind)
    expected = np.searchsorted(thresholds, values, side="left")
    grids = built_candidates(thresholds)
    uniform = [g for g in grids if isinstance(g, _counting._UniformGrid)]
    assert len(uniform) == len(_counting._TRIMS)
    positive = kind in ("lognormal", "offset")  # bit-pattern candidates too
    assert (len(grids) > len(uniform)) == positive
    for grid in grids:
        # the table is a lower bound of the location (monotone cell map)...
        assert np.all(grid.table[grid.cells(values)] <= expected)
        # ...and stepping plus the final search makes it exact
        np.testing.assert_array_equal(grid_locate(grid, values), expected)
    np.testing.assert_array_equal(locate(values, thresholds), expected)


@pytest.mark.parametrize(
    "thresholds",
    [
        # hi - lo overflows: scale 0
        np.concatenate(
            [np.linspace(-1.7e308, -1e307, 100), np.linspace(1e307, 1.7e308, 100)]
        ),
        np.concatenate([np.arange(100.0), 1e12 + np.arange(100.0)]),  # two clusters
        np.arange(200) * 5e-324,  # subnormal spacing: uniform scale overflows
    ],
    ids=["overflowing-range", "two-clusters", "subnormal-range"],
)
def test_ranges_unfit_for_uniform_cells(thresholds):
    """No uniform grid fits: binary search, or bit-pattern cells if positive."""
    chosen = _counting._choose_grid(thresholds)
    assert not isinstance(chosen, _counting._UniformGrid)
    rng = np.random.default_rng(8)
    values = np.concatenate([thresholds, rng.choice(thresholds, 500) * 0.999])
    expected = np.searchsorted(thresholds, values, side="left")
    np.testing.assert_array_equal(locate(values, thresholds), expected)
    codes = rng.integers(0, 2, values.size)
    got = ClassCounts(codes, 2).count_at_most(values[:, None], [thresholds])[0]
    want = brute_force_at_most(values[:, None], codes, 2, [thresholds])[0]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("spread", ["lognormal", "log-uniform", "subnormal"])
def test_log_spread_positive_values_choose_binade_cells(spread):
    rng = np.random.default_rng(9)
    draw = {
        "lognormal": lambda size: rng.lognormal(sigma=4.0, size=size),
        "log-uniform": lambda size: 10.0 ** rng.uniform(-300, 300, size),
        "subnormal": lambda size: rng.integers(1, 10**6, size) * 5e-324,
    }[spread]
    thresholds = np.unique(draw(4000))
    grid = _counting._choose_grid(thresholds)
    assert isinstance(grid, _counting._BinadeGrid)
    masses = {True: [], False: []}
    for g in _counting._candidate_grids(thresholds):
        masses[isinstance(g, _counting._BinadeGrid)].append(g.searched_mass())
    assert min(masses[True]) < 0.1
    assert min(masses[False], default=1.0) > 0.5
    values = np.concatenate([draw(20_000), thresholds, -thresholds[:50], [0.0, -0.0]])
    expected = np.searchsorted(thresholds, values, side="left")
    assert np.all(grid.table[grid.cells(values)] <= expected)
    np.testing.assert_array_equal(grid_locate(grid, values), expected)


def drawn_thresholds(elements):
    return hnp.arrays(np.float64, st.integers(64, 300), elements=elements, unique=True)


def assert_grids_exact_on_drawn_values(thresholds, data):
    """Every candidate grid and ``locate`` agree with searchsorted; returns grids."""
    thresholds = np.sort(thresholds)
    values = data.draw(
        hnp.arrays(
            np.float64,
            st.integers(1, 400),
            elements=st.one_of(
                st.sampled_from(thresholds.tolist()),
                st.floats(allow_nan=False, allow_infinity=False),
            ),
        )
    )
    expected = np.searchsorted(thresholds, values, side="left")
    grids = built_candidates(thresholds)
    for grid in grids:
        np.testing.assert_array_equal(grid_locate(grid, values), expected)
    np.testing.assert_array_equal(locate(values, thresholds), expected)
    return grids


@settings(max_examples=60, deadline=None)
@given(
    thresholds=drawn_thresholds(st.floats(-1e6, 1e6, allow_nan=False)),
    data=st.data(),
)
def test_grids_locate_exactly_on_drawn_inputs(thresholds, data):
    assert_grids_exact_on_drawn_values(thresholds, data)


@settings(max_examples=60, deadline=None)
@given(
    thresholds=drawn_thresholds(st.floats(5e-324, 1e308, allow_infinity=False)),
    data=st.data(),
)
def test_binade_grids_locate_exactly_on_drawn_positive_inputs(thresholds, data):
    grids = assert_grids_exact_on_drawn_values(thresholds, data)
    assert any(isinstance(g, _counting._BinadeGrid) for g in grids)


def test_float32_thresholds_are_counted_in_float64():
    """Thresholds and values must share the cell map's arithmetic."""
    rng = np.random.default_rng(0)
    for _ in range(20):
        scale = np.float32(rng.choice([1, 1e3, 1e-3]))
        t = np.unique(rng.normal(size=200).astype(np.float32) * scale)
        X = t.astype(np.float64)[:, None].repeat(80, 0)
        codes = np.zeros(X.shape[0], dtype=int)
        got = ClassCounts(codes, 1).count_at_most(X, [t])[0]
        np.testing.assert_array_equal(got, brute_force_at_most(X, codes, 1, [t])[0])


def test_heavy_tails_choose_a_trimmed_grid():
    rng = np.random.default_rng(1)
    thresholds = np.unique(rng.standard_cauchy(4000))
    full, *trimmed = _counting._candidate_grids(thresholds)
    grid = _counting._choose_grid(thresholds)
    assert grid.origin > thresholds[0]  # trimmed
    assert min(g.searched_mass() for g in trimmed) < 0.2 < 0.9 < full.searched_mass()


@pytest.mark.parametrize("kind", ["gaussian", "heavy", "lognormal", "outlier"])
def test_searched_mass_estimates_the_share_in_crowded_cells(kind):
    """The public-only estimate that picks the grid, against fresh draws."""
    rng = np.random.default_rng(7)
    thresholds, _ = thresholds_and_values(rng, kind, m=4000)
    fresh = {
        "gaussian": lambda size: rng.normal(size=size),
        "heavy": lambda size: rng.standard_cauchy(size=size) ** 3,
        "lognormal": lambda size: rng.lognormal(sigma=4.0, size=size),
        "outlier": lambda size: rng.normal(size=size),
    }[kind](100_000)
    for grid in _counting._candidate_grids(thresholds):
        crowded = grid._held[grid.cells(fresh)] > _counting._STEPS
        assert crowded.mean() == pytest.approx(grid.searched_mass(), abs=0.03)


def test_gaussian_grid_searches_few_values():
    rng = np.random.default_rng(2)
    thresholds = np.unique(rng.normal(size=10_000))
    grid = _counting._choose_grid(thresholds)
    values = rng.normal(size=200_000)
    expected = np.searchsorted(thresholds, values, side="left")
    start = grid.table[grid.cells(values)]
    # after the table and one step, under 1% of values are still behind
    stepped = start + (grid.padded[start] < values)
    behind_after_table = np.mean(start < expected)
    behind_after_step = np.mean(stepped < expected)
    assert behind_after_step < 0.01
    assert behind_after_step < behind_after_table / 5  # the step does real work


def test_few_thresholds_or_few_values_use_binary_search(monkeypatch):
    assert _counting._choose_grid(np.arange(10.0)) is None
    np.testing.assert_array_equal(locate([0.5, 20.0], np.arange(10.0)), [1, 10])
    np.testing.assert_array_equal(locate([], np.arange(100.0)), [])
    called = []
    monkeypatch.setattr(_counting, "_choose_grid", lambda t: called.append(t))
    locate(np.zeros(10), np.arange(10_000.0))  # 10 values: no table of 160k cells
    assert not called


@pytest.mark.parametrize("mutant", ["no_search", "table_too_high"])
def test_mutants_of_locate_are_caught(monkeypatch, mutant):
    rng = np.random.default_rng(3)
    thresholds, values = thresholds_and_values(rng, "gaussian")
    expected = np.searchsorted(thresholds, values, side="left")
    if mutant == "no_search":
        monkeypatch.setattr(np, "flatnonzero", lambda a: np.zeros(0, dtype=np.intp))
    else:
        build = _counting._Grid.build

        def too_high(self):
            build(self)
            self.table = self.table + 1  # not a lower bound any more
            return self

        monkeypatch.setattr(_counting._Grid, "build", too_high)
    assert not np.array_equal(locate(values, thresholds), expected)


def brute_force_at_most(X, codes, n_classes, thresholds):
    return [
        np.stack(
            [
                ((X[:, j][None, :] <= t[:, None]) & (codes == c)[None, :]).sum(axis=1)
                for c in range(n_classes)
            ],
            axis=1,
        )
        for j, t in enumerate(thresholds)
    ]


@pytest.mark.parametrize("chunk", [7, 1000, 2**16])
def test_class_counts_equal_brute_force_across_chunks(monkeypatch, chunk):
    monkeypatch.setattr(_counting, "_CHUNK", chunk)
    rng = np.random.default_rng(4)
    n, k = 3000, 3
    thresholds = [
        np.unique(rng.normal(size=100)),
        np.unique(rng.integers(0, 5, 8) + 0.5),
    ]
    thresholds.append(np.zeros(0))  # a feature without splits
    X = np.empty((n, 3))
    X[:, 0] = rng.choice(np.append(thresholds[0], rng.normal(size=50)), n)
    X[:, 1] = rng.integers(0, 6, n)
    X[:, 2] = rng.normal(size=n)
    codes = rng.integers(0, k, n)
    assert _counting._use_grid(n, thresholds[0])  # both paths are exercised
    assert _counting._choose_grid(thresholds[0]) is not None
    assert _counting._choose_grid(thresholds[1]) is None
    got = ClassCounts(codes, k).count_at_most(X, thresholds)
    for g, e in zip(got, brute_force_at_most(X, codes, k, thresholds), strict=True):
        assert g.dtype == np.int64
        np.testing.assert_array_equal(g, e)


def test_class_counts_on_a_strided_column_view_and_empty_rows():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(2000, 4))
    t = np.unique(rng.normal(size=100))
    codes = rng.integers(0, 2, 2000)
    counts = ClassCounts(codes, 2)
    got = counts.count_at_most(X[:, 2:3], [t])[0]
    np.testing.assert_array_equal(got, brute_force_at_most(X[:, 2:3], codes, 2, [t])[0])
    empty = ClassCounts(np.zeros(0, dtype=int), 2).count_at_most(np.zeros((0, 1)), [t])
    np.testing.assert_array_equal(empty[0], np.zeros((t.size, 2)))


def test_stump_and_interval_scores_equal_brute_force_on_the_grid_path():
    rng = np.random.default_rng(6)
    X_public = rng.normal(size=(80, 2))
    X = np.vstack([rng.normal(size=(1400, 2)), X_public[rng.integers(0, 80, 200)]])
    y = rng.integers(0, 3, X.shape[0])
    cover = DecisionStumps().cover(X_public, classes=[0, 1, 2])
    assert _counting._use_grid(X.shape[0], cover._kept_thresholds[0])
    expected = (cover.labelings(X) == y[None, :]).sum(axis=1)
    np.testing.assert_array_equal(cover.scores(X, y), expected)

    icover = Intervals().cover(X_public[:, :1], classes=[0, 1])
    Xi, yi = X[:, :1], (y > 0).astype(int)
    sub = rng.choice(icover.size, 400, replace=False)
    predicted = np.stack([icover.predict(int(member), Xi) for member in sub])
    expected = (predicted == yi[None, :]).sum(axis=1)
    np.testing.assert_array_equal(icover.scores(Xi, yi)[sub], expected)


def test_grids_are_chosen_under_strict_floating_point_errors():
    """Estimates and cell maps never raise when the caller traps underflow."""
    keys = np.float64(1e-305).view(np.int64) + np.arange(9)
    sets = [
        np.concatenate(
            [
                [-3e300, -2e300, -1e300, 1e-310],
                keys.view(np.float64),
                np.geomspace(1e-200, 1e300, 55),
            ]
        ),
        2.0 ** np.arange(-1074, -1010),
    ]
    for thresholds in sets:
        with np.errstate(all="raise"):
            for grid in _counting._candidate_grids(thresholds):
                grid.searched_mass()
            values = np.concatenate([thresholds, -thresholds, [0.0]])
            expected = np.searchsorted(thresholds, values, side="left")
            for grid in built_candidates(thresholds):
                np.testing.assert_array_equal(grid_locate(grid, values), expected)
