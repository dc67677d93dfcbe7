"""Docs that cannot go stale: every command and snippet in README.md, CHANGELOG.md and every page of the
documentation site (docs/, its build output and generated pages aside) is run, long runs scaled down,
and a console block's output must be what the command prints.

The rule a writer follows is in docs/design/architecture.md ("Docs that run"); tests/docs/markdown.py reads
it out of the Markdown. Each document's items run in order in a scratch folder of their own (so a
command may use a file an earlier one wrote), with ``examples/`` and ``benchmarks/`` and the
project's ``.venv`` beside them.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from battleship.cli import COMMANDS, app
from tests.docs.markdown import SHELL, Item, items, matches, scaled

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SKIPPED = {"_build", "_generated"}  # the site's build output, and pages written from the code at build time


def _pages() -> list[Path]:
    """README.md, CHANGELOG.md and every Markdown page of the site, in a stable order."""
    site = [p for p in sorted((ROOT / "docs").rglob("*.md")) if not SKIPPED & set(p.relative_to(ROOT).parts)]
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *site]


DOCS = _pages()
NAMES = {doc: doc.relative_to(ROOT).as_posix() for doc in DOCS}  # docs/guides/lab.md: pages share names
ITEMS = [item for doc in DOCS for item in items(doc, set(COMMANDS), NAMES[doc])]
VENV = Path(sys.executable).resolve().parents[1] if (Path(sys.prefix) / "bin").exists() else None
WAIT = 900  # seconds a documented command may take in the suite (scaled down: seconds, as a rule)
runner = CliRunner()


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    """A scratch folder per document, with the project's examples, benchmarks and virtualenv beside."""
    out = {}
    for doc in DOCS:
        folder = tmp_path_factory.mktemp(doc.stem)
        for name in ("examples", "benchmarks"):
            (folder / name).symlink_to(ROOT / name)
        (folder / ".venv").symlink_to(Path(sys.prefix))
        out[NAMES[doc]] = folder
    return out


def _env() -> dict[str, str]:
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "PATH": path}


def played_in_python(command: str) -> bool:
    """Does the command name a shooter the lab plays in Python (no kernel), ``best`` resolved for its rules?
    Scripts (benchmarks, examples) count as such: what they play is theirs to say."""
    from battleship import rules as rules_mod
    from battleship.errors import BattleshipError
    from battleship.shooters import registry

    if command.startswith(".venv/bin/python "):
        return True
    words = shlex.split(SHELL.split(command)[0]) if command else []
    rules_name = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in ("--rules", "-r")), "standard")
    try:
        rules = rules_mod.load(rules_name)
    except BattleshipError:
        rules = None
    candidates = [part for word in words for part in word.split(",")]
    for text in candidates:
        name = text.split(":")[0]
        if name not in registry.names():
            continue
        try:
            resolved, _ = registry.resolve(text, rules)
        except BattleshipError:
            continue
        if registry.spec(resolved).kernel is None:
            return True
    return False


def _in_process(command: str) -> tuple[int, str, str]:
    words = shlex.split(command)
    result = runner.invoke(app, words[1:], catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def _shell(command: str, cwd: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        ["bash", "-c", command], cwd=cwd, capture_output=True, text=True, env=_env(), timeout=WAIT,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def run(command: str, cwd: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    """A command in ``cwd``: ``battleship ...`` in this process (quick), anything else through bash (and a
    time budget too: it may leave a thread behind, which the program ends with itself)."""
    if command.startswith("battleship ") and not SHELL.search(command) and "--time" not in command:
        monkeypatch.chdir(cwd)
        return _in_process(command)
    return _shell(command, cwd)


# what a later item of the same document may read: a block written to a file, a command's output file,
# or a shell step (mkdir, cp, ...)
WRITES = re.compile(r">|--out\b|--notation\b|^(?!battleship |\.venv/bin/python )")
POSITION = {id(item): n for n, item in enumerate(ITEMS)}
_ran: set[int] = set()  # the items this process has run


def _execute(item: Item, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run one item in its document's folder; an AssertionError says what went wrong and where."""
    if item.kind == "file":
        (folder / item.expected).write_text(item.text, encoding="utf-8")
        return
    if item.kind == "python":
        script = folder / f"snippet-{item.line}.py"
        script.write_text(item.text + "\n", encoding="utf-8")
        code, out, err = _shell(f"{shlex.quote(sys.executable)} {script.name}", folder)
        assert code == 0, f"{item.where}: the snippet failed:\n{err[-3000:]}"
        return
    if item.kind == "console":
        code, out, err = run(item.text, folder, monkeypatch)
        assert code == 0, f"{item.where}: {item.text!r} exited {code}:\n{err[-3000:]}"
        assert matches(item.expected, out), (
            f"{item.where}: {item.text!r} printed\n{out}\nnot\n{item.expected}"
        )
        return
    command = scaled(item.text, played_in_python(item.text))
    code, out, err = run(command, folder, monkeypatch)
    assert code == 0, f"{item.where}: {command!r} exited {code}:\n{err[-3000:]}"


def _catch_up(item: Item, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Write what the items before this one in its document write, where this process has not run them
    (make test keeps a document's items on one worker, --dist loadfile; a plain -n N spreads them)."""
    for earlier in ITEMS[: POSITION[id(item)]]:
        if earlier.doc != item.doc or earlier.skipped or id(earlier) in _ran:
            continue
        if earlier.kind == "file" or WRITES.search(earlier.text):
            _ran.add(id(earlier))
            with contextlib.suppress(AssertionError):  # its own test reports it
                _execute(earlier, folder, monkeypatch)


@pytest.mark.parametrize("item", ITEMS, ids=[f"{i.where}:{i.kind}" for i in ITEMS])
def test_what_the_docs_say_runs(item: Item, folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch):
    folder = folders[item.doc]
    if item.skipped:
        pytest.skip(f"not run: {item.skipped}")
    _catch_up(item, folder, monkeypatch)
    _ran.add(id(item))
    _execute(item, folder, monkeypatch)


def test_the_rule_reads_what_writers_write(tmp_path):
    doc = tmp_path / "guide.md"
    doc.write_text(
        "Run `battleship simulate density --games 100000 --seed 1`, or `battleship calc BOARD`\n"
        "(a synopsis), `battleship arena` (a name) and `battleship 1` (not a command).\n\n"
        "<!-- not run: needs a cluster -->\n"
        "`battleship simulate --cluster tcp://example:8786`\n\n"
        "```sh\n# a comment\nbattleship layout --count 3 \\\n  --seed 2 > layouts.txt\n```\n\n"
        "<!-- file: bot.py -->\n```python\nprint('a file')\n```\n\n"
        "```console\n$ battleship rules\nRule presets\n\u2026\n```\n"
    )
    got = items(doc, set(COMMANDS))
    assert [(i.kind, i.text, i.skipped) for i in got] == [
        ("command", "battleship simulate density --games 100000 --seed 1", ""),
        ("command", "battleship simulate --cluster tcp://example:8786", "needs a cluster"),
        ("command", "battleship layout --count 3 --seed 2 > layouts.txt", ""),
        ("file", "print('a file')\n", ""),
        ("console", "battleship rules", ""),
    ]
    assert scaled(got[0].text, False) == "battleship simulate density --games 20 --seed 1"
    assert scaled("battleship compare optimal density --games 300", True).endswith("--games 1")
    assert scaled("battleship sweep --sizes 6..15", False) == "battleship sweep --sizes 6..7 --games 20"
    assert matches("Rule presets\n\u2026\n", "Rule presets\n┏━━\n│ x │  \n")
    assert not matches("layouts left: 5 (rows, \u2026 s)", "layouts left: 6 (rows, 0.1 s)")
    assert re.search("tcp", got[1].text)
