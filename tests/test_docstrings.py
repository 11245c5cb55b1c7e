"""Every public name has a numpydoc docstring with a runnable Examples section.

The examples themselves run under ``--doctest-modules``.
"""

import importlib
import inspect

import pytest

MODULES = [
    "sklearn_semiprivate",
    "sklearn_semiprivate.accounting",
    "sklearn_semiprivate.mechanisms",
    "sklearn_semiprivate.hypotheses",
    "sklearn_semiprivate.classifiers",
    "sklearn_semiprivate.audit",
    "sklearn_semiprivate.query_release",
    "sklearn_semiprivate.utils",
    "sklearn_semiprivate.model_selection",
    "sklearn_semiprivate.display",
    "sklearn_semiprivate.pipeline",
    "sklearn_semiprivate.research",
]


def public_objects():
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                yield pytest.param(obj, id=f"{module_name}.{name}")


@pytest.mark.parametrize("obj", list(public_objects()))
def test_public_object_has_examples(obj):
    doc = inspect.getdoc(obj) or ""
    assert "Examples\n--------" in doc, f"{obj.__qualname__} has no Examples section"
    assert ">>>" in doc
