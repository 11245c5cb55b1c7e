"""The documentation: it builds clean, out of tree, and covers the public API.

``test_docs_build`` runs the documented build command with warnings as errors,
but with the gallery's execution switched off (``-D plot_gallery=0``) to stay
within CI's time: ``tests/test_examples.py`` runs every example already. It is
skipped only when the docs tools are not installed (the ``test`` extra installs
them).
"""

# SPDX-License-Identifier: BSD-3-Clause

import importlib
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

SUBPACKAGES = [
    "accounting",
    "audit",
    "classifiers",
    "display",
    "exceptions",
    "hypotheses",
    "mechanisms",
    "model_selection",
    "pipeline",
    "query_release",
    "research",
    "utils",
]


def _documented_objects():
    """Objects named by api.rst's autosummary entries and ``.. data::``."""
    text = (DOCS / "api.rst").read_text()
    names = []
    for block in re.findall(
        r"^\.\. autosummary::\n((?:[ \t]+\S.*\n|[ \t]*\n)+)", text, re.M
    ):
        for line in block.splitlines():
            entry = line.strip()
            if entry and not entry.startswith(":"):
                names.append(entry)
    names += re.findall(r"^\.\. data:: (\S+)$", text, re.M)
    objects = []
    for name in names:
        module_name, _, attr = f"sklearn_semiprivate.{name}".rpartition(".")
        objects.append(getattr(importlib.import_module(module_name), attr))
    return names, objects


def test_api_reference_lists_every_public_name():
    names, objects = _documented_objects()
    assert len(names) == len(set(names)), "a name is listed twice in api.rst"
    documented = {id(obj) for obj in objects}
    missing = []
    for module_name in ["sklearn_semiprivate"] + [
        f"sklearn_semiprivate.{sub}" for sub in SUBPACKAGES
    ]:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            if name == "__version__":
                continue
            if id(getattr(module, name)) not in documented:
                missing.append(f"{module_name}.{name}")
    assert not missing, f"public names missing from docs/api.rst: {missing}"


def test_every_subpackage_is_checked():
    import sklearn_semiprivate

    found = {
        path.name
        for path in Path(sklearn_semiprivate.__file__).parent.iterdir()
        if path.is_dir() and (path / "__init__.py").exists()
    } | {"exceptions"}
    public = {name for name in found if not name.startswith("_")}
    assert public == set(SUBPACKAGES)


def _python_blocks(path):
    """The ``.. code-block:: python`` blocks of an rst page, in order."""
    blocks = re.findall(
        r"^\.\. code-block:: python\n\n((?:[ \t]+\S.*\n|[ \t]*\n)+)",
        path.read_text(),
        re.M,
    )
    return [textwrap.dedent(block) for block in blocks]


def test_getting_started_runs(capsys, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    page = DOCS / "getting_started.rst"
    blocks = _python_blocks(page)
    assert len(blocks) >= 4
    namespace = {}  # the blocks run in order, as a reader would run them
    for code in blocks:
        exec(compile(code, str(page), "exec"), namespace)
    import matplotlib.pyplot as plt

    plt.close("all")
    out = capsys.readouterr().out
    assert "PrivacyCost(epsilon=1.0, delta=0.0)" in out


@pytest.mark.slow
def test_docs_build(tmp_path):
    for module in ["sphinx", "numpydoc", "sphinx_gallery", "pydata_sphinx_theme"]:
        pytest.importorskip(module)
    before = sorted(p.relative_to(DOCS) for p in DOCS.rglob("*"))
    env = dict(os.environ, MPLBACKEND="Agg", MPLCONFIGDIR=str(tmp_path / "mpl"))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            "-D",
            "plot_gallery=0",
            str(DOCS),
            str(tmp_path / "html"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-6000:]
    assert "WARNING" not in result.stderr, result.stderr[-6000:]
    assert (tmp_path / "html" / "index.html").exists()
    assert (tmp_path / "html" / "auto_examples" / "index.html").exists()
    after = sorted(p.relative_to(DOCS) for p in DOCS.rglob("*"))
    new = sorted(set(after) - set(before))
    new = [p for p in new if "__pycache__" not in p.parts]
    assert not new, f"the build wrote into the source tree: {new}"


def test_readme_documents_the_build():
    readme = (ROOT / "README.md").read_text()
    assert "python -m sphinx -W -b html docs" in readme
