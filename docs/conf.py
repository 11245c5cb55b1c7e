"""Sphinx configuration: numpydoc API pages and the sphinx-gallery examples.

Build with ``python -m sphinx -W -b html docs OUT`` (``OUT`` anywhere). The build
writes nothing into the source tree: ``setup`` below copies the hand-written
pages into a staging directory inside the build's doctree directory
(``OUT/.doctrees/_source``) and reads them from there, so the autosummary stubs
(``generated/``), the gallery (``auto_examples/``) and
``sg_execution_times.rst`` are written next to the copy, not into ``docs/``.
``-D plot_gallery=0`` builds the gallery pages without running the examples
(``tests/test_docs.py`` does that; ``tests/test_examples.py`` runs them).
"""

# SPDX-License-Identifier: BSD-3-Clause

import shutil
from pathlib import Path

from docutils import nodes

import sklearn_semiprivate

DOCS = Path(__file__).resolve().parent
EXAMPLES = DOCS.parent / "examples"

project = "sklearn_semiprivate"
copyright = "the sklearn_semiprivate developers"
release = sklearn_semiprivate.__version__
version = release
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]
templates_path = [str(DOCS / "_templates")]
exclude_patterns = ["_build", "_templates", "auto_examples/*.ipynb"]
default_role = "literal"

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": True}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

html_theme = "pydata_sphinx_theme"
html_title = "sklearn_semiprivate"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 8,
}
html_sidebars = {"index": [], "getting_started": []}
html_show_sourcelink = False

sphinx_gallery_conf = {
    # Absolute paths: the source directory is the staging copy (see setup).
    "examples_dirs": str(EXAMPLES),
    "gallery_dirs": "auto_examples",
    "filename_pattern": "/plot_",
    "download_all_examples": False,
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("sklearn_semiprivate",),
    "remove_config_comments": True,
}

# Labels and glossary terms that scikit-learn's own docstrings refer to, in
# methods our estimators inherit (``ClassifierMixin.score``, ``set_fit_request``).
# intersphinx needs the network at build time; these map the few targets to
# scikit-learn's pages instead. Any other missing reference still warns.
SKLEARN = "https://scikit-learn.org/stable/"
SKLEARN_TARGETS = {
    ("ref", "accuracy_score"): "modules/model_evaluation.html#accuracy-score",
    ("ref", "metadata_routing"): "metadata_routing.html",
    ("term", "meta-estimator"): "glossary.html#term-meta-estimator",
}


def _resolve_sklearn_target(app, env, node, contnode):
    key = (node.get("reftype"), node.get("reftarget"))
    if key not in SKLEARN_TARGETS:
        return None
    ref = nodes.reference("", "", internal=False, refuri=SKLEARN + SKLEARN_TARGETS[key])
    ref += contnode
    return ref


def _stage_sources(app):
    """Read the pages from a copy under the doctree directory.

    Called from ``setup``, before Sphinx lists the documents. Files generated
    by earlier builds of the same output directory stay in the copy, so that
    incremental builds stay incremental.
    """
    staging = Path(app.doctreedir) / "_source"
    generated = {"generated", "auto_examples", "sg_execution_times.rst"}
    ignore = shutil.ignore_patterns(
        "_build", "__pycache__", "*.pyc", *sorted(generated)
    )
    shutil.copytree(DOCS, staging, ignore=ignore, dirs_exist_ok=True)
    # Pages deleted from docs/ since the last build go from the copy too.
    for path in sorted(staging.rglob("*"), reverse=True):
        rel = path.relative_to(staging)
        if rel.parts[0] in generated or (DOCS / rel).exists():
            continue
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    app.srcdir = staging


def setup(app):
    _stage_sources(app)
    app.connect("missing-reference", _resolve_sklearn_target)
