"""Sphinx configuration: the furo theme, MyST for the Markdown pages, the API from the docstrings
(autodoc), and the command line, the HTTP API and the shooters written from the code at build time
(docs/_ext/battleship_docs.py). ``make docs`` builds it with warnings as errors."""

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
    "sphinx.ext.viewcode",
    "battleship_docs",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_generated", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3  # "#the-limit" links to a heading, as on GitHub

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_preserve_defaults = True

html_theme = "furo"
html_title = f"battleship {release}"
html_static_path: list[str] = []
