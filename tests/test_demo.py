"""The main job (``python -m sklearn_semiprivate``) runs and reports true figures."""

import pytest

from sklearn_semiprivate._demo import EPSILONS, main, run


@pytest.mark.slow
def test_demo_table_and_plot(tmp_path, capsys):
    path = tmp_path / "accuracy.png"
    assert main(["--repeats", "1", "--plot", str(path)]) == 0
    out = capsys.readouterr().out
    assert "private-only baseline" in out and "ceiling" in out
    assert path.stat().st_size > 0


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
