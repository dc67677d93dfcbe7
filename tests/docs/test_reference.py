"""The reference pages the site writes from the code (docs/_ext/battleship_docs.py) cover all of it:
every command, every shooter, every path of the HTTP API and every name of the front door."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import battleship
from battleship.cli import COMMANDS
from battleship.shooters import names

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))
import battleship_docs  # a Sphinx extension, not a package: found through docs/_ext


def test_the_cli_reference_has_every_command_and_its_options():
    text = battleship_docs.cli_markdown()
    for name in COMMANDS:
        assert f"## `battleship {name}`" in text
    assert "`-r, --rules <str>`" in text and "`--json`" in text


def test_the_shooter_reference_has_every_shooter():
    text = battleship_docs.shooters_markdown()
    for name in names():
        assert f"`{name}`" in text
    assert not text.startswith("# ")  # the page's own title is the only one ("Shooters" once in the sidebar)
    prose = re.sub(r"\]\([^)]*\)|`[^`]*`", "", text)  # link targets and code (a command names its script)
    assert not re.search(r"(?<!\[)\b(?:docs|benchmarks)/[\w./-]+", prose), "a repository path printed as text"
    assert (
        "{doc}`/research/" in text and "](https://" in text
    )  # pages linked, scripts linked on the code host


def test_the_http_reference_has_every_operation_of_the_schema():
    schema = battleship_docs.openapi_schema()
    text = battleship_docs.http_markdown(schema)
    for path, operations in schema["paths"].items():
        for method in operations:
            assert f"### `{method.upper()} {path}`" in text
    assert "| 404 |" in text and "## Schemas" in text


def test_the_api_reference_names_every_name_of_the_front_door():
    text = battleship_docs.names_markdown()
    for name in battleship.__all__[1:]:
        assert f"`bs.{name} <" in text
    rows = dict(re.findall(r"`bs\.(\w+) <[^>]*>` \| (.*) \|", text))
    assert rows["CellLike"].startswith("A cell as the Python API takes it") and "PEP 604" not in text
    assert rows["PRESETS"].startswith("The rule presets by name")
    assert all(rows.values()), [name for name, said in rows.items() if not said]
