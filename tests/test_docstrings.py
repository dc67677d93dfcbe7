"""The public API's docstrings: every class and function ``import battleship`` offers has NumPy-style
sections with an Examples section, and every example in the modules the reference documents first
runs as a reader would type it (doctest), on small boards and few games."""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

import battleship
from battleship.shooters import registry

# the modules whose examples run: the front door's names live in them
MODULES = (
    "battleship.api",
    "battleship.rules",
    "battleship.layout",
    "battleship.game",
    "battleship.cells",
    "battleship.errors",
    "battleship.words",
    "battleship.inference.posterior",
    "battleship.inference.facts",
    "battleship.shooters.registry",
    "battleship.shooters.options",
    "battleship.lab.summary",
)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _docstrings() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    found = []
    for name in MODULES:
        found += [t for t in finder.find(importlib.import_module(name), name) if t.examples]
    return sorted(found, key=lambda t: t.name)


DOCSTRINGS = _docstrings()


@pytest.mark.parametrize("test", DOCSTRINGS, ids=[t.name for t in DOCSTRINGS])
def test_the_examples_run(test: doctest.DocTest, monkeypatch: pytest.MonkeyPatch) -> None:
    # an example that registers a shooter registers it for this test only
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    said: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    result = runner.run(test, out=said.append)
    assert result.failed == 0, "".join(said)


@pytest.mark.parametrize("name", [n for n in battleship.__all__ if n != "__version__"])
def test_every_public_class_and_function_has_numpy_sections_and_examples(name: str) -> None:
    value = getattr(battleship, name)
    if not (inspect.isclass(value) or inspect.isfunction(value)):
        return  # a value (PRESETS, CellLike) is documented where it is assigned
    doc = inspect.getdoc(value) or ""
    assert "\nExamples\n--------\n>>> " in doc, f"bs.{name} has no Examples section"
    if inspect.isfunction(value) and inspect.signature(value).parameters:
        assert "\nParameters\n----------\n" in doc, f"bs.{name} has no Parameters section"
    if inspect.isfunction(value):
        assert "\nReturns\n-------\n" in doc, f"bs.{name} has no Returns section"
    assert any(t.name.endswith(f".{name}") for t in DOCSTRINGS), f"bs.{name}'s examples are not run"
