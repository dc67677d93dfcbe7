"""A contest from a folder of entries: one file or one directory per bot, its language detected or declared.

``battleship arena --entries FOLDER`` makes a bot of every entry in ``FOLDER`` (names starting with
``.`` or ``_`` and notes, ``*.md`` and ``*.txt``, are skipped), named on the leaderboard by the
entry's name, which is also the name its rating carries from run to run:

- a **file** is run by the interpreter its extension names (:data:`EXTENSIONS`: ``alice.py`` with
  the arena's Python, ``bob.js`` with ``node``, ...), or run itself if it is executable;
- a **directory** holds the bot's files and is its working directory. A ``bot.toml`` in it says how
  to run it, with one of::

      command = "java -cp . Bot"        # any command (split into words as a shell would; no shell runs it)
      main = "bot.lua"                  # a file, run as a file entry would be
      language = "python"               # with main: the interpreter, when the extension does not say
      class = "strategy.py:MyShooter"   # a Python class with the Shooter protocol, served by the host

  Without ``bot.toml`` it must hold one ``main`` file (``main.py``, ``main.js``, an executable ``main``).

Each bot sees only its own entry (the file, or the whole directory) in the sandbox.
"""

from __future__ import annotations

import os
import shlex
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

from battleship.errors import BattleshipError
from battleship.lab.arena.bots import ProgramBot, class_program, program_of
from battleship.lab.arena.names import escape

MANIFEST = "bot.toml"
LANGUAGES: dict[str, tuple[str, ...]] = {
    "python": (sys.executable,),  # the arena's own interpreter (NumPy is there)
    "javascript": ("node",),
    "ruby": ("ruby",),
    "perl": ("perl",),
    "lua": ("lua",),
    "shell": ("sh",),
    "bash": ("bash",),
    "php": ("php",),
}
EXTENSIONS = {
    ".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".rb": "ruby",
    ".pl": "perl", ".lua": "lua", ".sh": "shell", ".bash": "bash", ".php": "php",
}  # fmt: skip
SKIPPED = (".md", ".txt")
MANIFEST_KEYS = {"command", "main", "language", "class"}


def load_entries(folder: Path) -> list[ProgramBot]:
    """A bot for every entry of ``folder``, in name order; a clear error naming any entry it cannot run."""
    if not folder.is_dir():
        raise BattleshipError(f"--entries {escape(folder)}: not a folder")
    bots = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith((".", "_")) or (entry.is_file() and entry.suffix.lower() in SKIPPED):
            continue
        bot = entry_bot(entry)
        bot.asked = str(entry)
        bots.append(bot)
    if not bots:
        raise BattleshipError(f"--entries {escape(folder)}: no entry in it (one file or folder per bot)")
    return bots


def entry_bot(entry: Path) -> ProgramBot:
    """The bot one entry is (see the module docstring)."""
    entry = entry.resolve()
    if entry.is_dir():
        return _directory(entry)
    argv = _run_file(entry, None, entry.name)
    return ProgramBot(entry.name, replace(program_of(argv), reads=(str(entry),)))


def _run_file(path: Path, language: str | None, label: str) -> list[str]:
    """The command that runs ``path``: its language's interpreter, or itself if executable."""
    language = language or EXTENSIONS.get(path.suffix.lower())
    if language is not None:
        if language not in LANGUAGES:
            raise BattleshipError(
                f"entry {escape(label)}: no language {language!r}; choose one of {', '.join(LANGUAGES)}, "
                f"or give a command in {MANIFEST}"
            )
        return [*LANGUAGES[language], str(path)]
    if path.is_file() and os.access(path, os.X_OK):
        return [str(path)]
    raise BattleshipError(
        f"entry {escape(label)}: cannot tell how to run {escape(path.name)} (extensions: {', '.join(EXTENSIONS)}, or an "
        f"executable file); put it in a folder with a {MANIFEST} that says"
    )


def _directory(folder: Path) -> ProgramBot:
    label = folder.name
    manifest = folder / MANIFEST
    spec = _manifest(manifest, label) if manifest.is_file() else _main_file(folder, label)
    cwd = str(folder)
    bot = _directory_bot(folder, label, spec, cwd)
    if spec.get("author") is not None:
        bot.entrant = escape(str(spec["author"]).strip()) or None
    return bot


def _directory_bot(folder: Path, label: str, spec: dict, cwd: str) -> ProgramBot:
    if "class" in spec:
        program = class_program(str(spec["class"]), cwd)
        return ProgramBot(label, replace(program, reads=(cwd,)), "class")
    if "command" in spec:
        try:
            argv = shlex.split(str(spec["command"]))
        except ValueError as exc:
            raise BattleshipError(f"entry {escape(label)}: {MANIFEST}: command: {exc}") from None
        if not argv:
            raise BattleshipError(f"entry {escape(label)}: {MANIFEST}: command is empty")
    else:
        main = (folder / str(spec["main"])).resolve()
        if not main.is_file() or not main.is_relative_to(folder):
            raise BattleshipError(f"entry {escape(label)}: main {spec['main']!r} is not a file in the entry")
        argv = _run_file(main, spec.get("language"), label)
    return ProgramBot(label, replace(program_of(argv, cwd), reads=(cwd,)))


def _manifest(path: Path, label: str) -> dict:
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BattleshipError(f"entry {escape(label)}: {MANIFEST} cannot be read: {exc}") from None
    unknown = set(spec) - MANIFEST_KEYS - {"name", "author"}
    if unknown:
        raise BattleshipError(
            f"entry {escape(label)}: {MANIFEST}: unknown key {sorted(unknown)[0]!r}; expected one of "
            "command, main (with language if need be) or class"
        )
    ways = [k for k in ("command", "main", "class") if k in spec]
    if len(ways) != 1:
        raise BattleshipError(
            f"entry {escape(label)}: {MANIFEST} must give exactly one of command, main or class"
        )
    if "language" in spec and "main" not in spec:
        raise BattleshipError(f"entry {escape(label)}: {MANIFEST}: language goes with main")
    return spec


def _main_file(folder: Path, label: str) -> dict:
    mains = sorted(p.name for p in folder.iterdir() if p.is_file() and p.stem == "main")
    if len(mains) != 1:
        found = f"found {', '.join(mains)}" if mains else "found none"
        raise BattleshipError(
            f"entry {escape(label)}: a folder entry needs a {MANIFEST} or exactly one main file (main.py, main.js, "
            f"...); {found}"
        )
    return {"main": mains[0]}
