"""Sphinx configuration: the furo theme, MyST for the Markdown pages, the API from the docstrings
(autodoc, their NumPy-style sections read by napoleon), and the command line, the HTTP API and the
shooters written from the code at build time (docs/_ext/battleship_docs.py). ``make docs`` builds it
with warnings as errors, in nitpicky mode: a cross-reference that links nowhere is an error too (the
extension links the Python, NumPy, Gymnasium and PettingZoo names the signatures use, offline)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

from battleship import __version__  # noqa: E402

project = "battleship"
author = "the battleship developers"
copyright = "the battleship developers"
release = version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "battleship_docs",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_generated", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3  # "#the-limit" links to a heading, as on GitHub

nitpicky = True  # every cross-reference must link somewhere (make docs turns warnings into errors)
nitpick_ignore = [("py:class", "battleship.stop.T")]  # a type variable: nothing to link to

napoleon_google_docstring = False  # NumPy style only: "Examples:" in prose stays prose
napoleon_use_rtype = False  # "Returns" says the type beside its description
napoleon_preprocess_types = True  # "Observation, optional" links its type
# the names the NumPy sections' types use, as the objects they stand for
napoleon_type_aliases = {
    name: f":class:`~{home}.{name}`"
    for home, names in {
        "battleship.rules": ("Rules", "Ship", "Salvo", "Spacing", "Sinks", "Answers"),
        "battleship.layout": ("Layout",),
        "battleship.game": ("Game", "Observation", "Shot", "Volley", "Outcome", "Record", "Shooter"),
        "battleship.cells": ("Cell",),
        "battleship.inference": ("Posterior",),
        "battleship.lab": ("Summary", "Comparison"),
        "battleship.shooters": ("ShooterSpec", "Options"),
        "battleship.stop": ("Stop",),
        "battleship.api": ("LayoutCount", "ShooterReport"),
        "battleship.lab.match": ("MatchResult",),
        "battleship.lab.limit": ("Limit",),
    }.items()
    for name in names
} | {
    "CellLike": ":data:`~battleship.cells.CellLike`",
    "callable": ":class:`~collections.abc.Callable`",
    "ndarray": ":class:`numpy.ndarray`",
    "Generator": ":class:`numpy.random.Generator`",
}

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_preserve_defaults = True

html_theme = "furo"
html_title = f"battleship {release}"
html_static_path: list[str] = []
