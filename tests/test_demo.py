"""The main job (``python -m sklearn_semiprivate``) runs and reports true figures."""

import sys

import numpy as np
import pytest

from sklearn_semiprivate._demo import (
    CEILING,
    EPSILONS,
    _plot,
    main,
    make_displays,
    run,
)


@pytest.mark.slow
def test_demo_table_and_plot(tmp_path, capsys):
    path = tmp_path / "accuracy.png"
    assert main(["--repeats", "1", "--plot", str(path)]) == 0
    out = capsys.readouterr().out
    assert "private-only baseline" in out and "ceiling" in out
    assert path.stat().st_size > 0


def _fake_scores(n_repeats=3):
    rng = np.random.default_rng(0)
    rows = {
        "semi-private: a": rng.uniform(0.5, 0.9, size=(n_repeats, len(EPSILONS))),
        "private-only baseline: b": rng.uniform(size=(n_repeats, len(EPSILONS))),
    }
    return rows, rng.uniform(0.95, 0.97, size=n_repeats)


def test_demo_figure_is_drawn_by_the_display(tmp_path):
    pytest.importorskip("matplotlib")
    rows, ceiling = _fake_scores()
    curves = make_displays(rows, ceiling)
    assert [c.estimator_name for c in curves] == list(rows)
    assert curves[0].baselines is None and list(curves[-1].baselines) == [CEILING]
    np.testing.assert_array_equal(curves[0].scores, rows["semi-private: a"].T)
    path = tmp_path / "figure.png"
    assert _plot(curves, path, n_repeats=3) == path and path.stat().st_size > 0
    ax = curves[0].ax_
    assert all(c.ax_ is ax for c in curves)  # one figure, one axes
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [*rows, CEILING]
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "epsilon (private data)"
    assert all(len(c.fill_between_) == 1 for c in curves)  # spread over repeats


def test_demo_without_matplotlib_prints_the_table_and_a_note(
    monkeypatch, capsys, tmp_path
):
    import sklearn_semiprivate._demo as demo

    monkeypatch.setattr(demo, "run_scores", lambda n_repeats, seed: _fake_scores())
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    path = tmp_path / "figure.png"
    assert main(["--repeats", "3", "--plot", str(path)]) == 0
    out = capsys.readouterr().out
    assert "semi-private: a" in out and CEILING in out
    assert "matplotlib is not installed: no plot" in out
    assert not path.exists()


@pytest.mark.slow
def test_semi_private_beats_private_only_on_digits():
    names, table = run(n_repeats=2, seed=0)
    assert table.shape == (len(names), len(EPSILONS))
    best_semi = table[names.index("semi-private: k-means cells (k=30)")]
    baseline = table[[n.startswith("private-only") for n in names]][0]
    ceiling = table[-1]
    eps1 = EPSILONS.index(1.0)
    assert best_semi[eps1] > baseline[eps1] + 0.3
    assert ceiling[0] > best_semi.max()
