"""Sphinx configuration: numpydoc API pages and the sphinx-gallery examples."""

import sklearn_semiprivate

project = "sklearn_semiprivate"
release = sklearn_semiprivate.__version__
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]
autosummary_generate = True
numpydoc_show_class_members = False
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": "/plot_",
}
exclude_patterns = ["_build", "auto_examples/*.ipynb"]
