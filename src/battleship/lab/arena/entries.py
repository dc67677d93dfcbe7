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

Each bot sees only its own entry (the file, or the whole directory) in the sandbox, from a private
read-only copy made before anything runs (:mod:`~battleship.lab.arena.snapshots`): an entry that is a
link, or holds a link leading out of it, a hard link to a file outside, a special file or another file
system, is refused in one line naming it.

Who entered an entry is the organiser's to say: an entry is rated under its own name, or under the
entrant an organiser's roster (:mod:`~battleship.lab.arena.roster`) gives it. A ``bot.toml`` may name
an ``author``, which is shown beside the bot as its claim and merges nothing.
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
from battleship.lab.arena.snapshots import Snapshot

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
    """A bot for every entry of ``folder``, in name order, each from a private copy of its files; a
    clear error naming any entry it cannot run, or must refuse, before anything runs."""
    if not folder.is_dir():
        raise BattleshipError(f"--entries {escape(folder)}: not a folder")
    folder = folder.resolve()
    snapshot = Snapshot()
    bots = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith((".", "_")) or (_is_file(entry) and entry.suffix.lower() in SKIPPED):
            continue
        bot = entry_bot(entry, snapshot)
        bot.asked = str(entry)
        bots.append(bot)
    if not bots:
        raise BattleshipError(f"--entries {escape(folder)}: no entry in it (one file or folder per bot)")
    return bots


def _is_file(entry: Path) -> bool:
    return entry.is_file() and not entry.is_symlink()


def entry_bot(entry: Path, snapshot: Snapshot | None = None) -> ProgramBot:
    """The bot one entry is (see the module docstring), run from its copy in ``snapshot`` (a new one if
    None), which the bot keeps alive."""
    snapshot = snapshot or Snapshot()
    copy = snapshot.take(entry, entry.name)  # the entry checked, before anything reads it
    if copy.is_dir():
        bot = _directory(entry, copy)
    else:
        argv = _run_file(copy, None, entry.name, shown=entry)
        bot = ProgramBot(entry.name, replace(program_of(argv), reads=(str(entry),)))
    bot.program = replace(bot.program, sources=((str(entry), str(copy)),))
    bot.snapshot = snapshot
    return bot


def _run_file(path: Path, language: str | None, label: str, shown: Path | None = None) -> list[str]:
    """The command that runs ``path`` (named ``shown`` where the bot sees it): its language's
    interpreter, or itself if executable."""
    language = language or EXTENSIONS.get(path.suffix.lower())
    name = str(shown or path)
    if language is not None:
        if language not in LANGUAGES:
            raise BattleshipError(
                f"entry {escape(label)}: no language {language!r}; choose one of {', '.join(LANGUAGES)}, "
                f"or give a command in {MANIFEST}"
            )
        return [*LANGUAGES[language], name]
    if path.is_file() and os.access(path, os.X_OK):
        return [name]
    raise BattleshipError(
        f"entry {escape(label)}: cannot tell how to run {escape(path.name)} (extensions: {', '.join(EXTENSIONS)}, or an "
        f"executable file); put it in a folder with a {MANIFEST} that says"
    )


def _directory(folder: Path, copy: Path) -> ProgramBot:
    """The bot a folder entry is, read from its checked ``copy`` (the bot sees it where ``folder`` is)."""
    label = folder.name
    manifest = copy / MANIFEST
    spec = _manifest(manifest, label) if manifest.is_file() else _main_file(copy, label)
    bot = _directory_bot(folder, copy, label, spec)
    if spec.get("author") is not None:
        bot.claimed_author = str(spec["author"]).strip()[:80] or None
    return bot


def _directory_bot(folder: Path, copy: Path, label: str, spec: dict) -> ProgramBot:
    cwd = str(folder)
    if "class" in spec:
        program = class_program(str(spec["class"]), cwd, base=str(copy))
        return ProgramBot(label, replace(program, reads=(cwd,)), "class")
    if "command" in spec:
        try:
            argv = shlex.split(str(spec["command"]))
        except ValueError as exc:
            raise BattleshipError(f"entry {escape(label)}: {MANIFEST}: command: {exc}") from None
        if not argv:
            raise BattleshipError(f"entry {escape(label)}: {MANIFEST}: command is empty")
    else:
        main = Path(os.path.normpath(copy / str(spec["main"])))  # a link in the copy stays in it
        if (
            not main.is_file()
            or not main.is_relative_to(copy)
            or not main.resolve().is_relative_to(copy.resolve())
        ):
            raise BattleshipError(f"entry {escape(label)}: main {spec['main']!r} is not a file in the entry")
        argv = _run_file(main, spec.get("language"), label, shown=folder / main.relative_to(copy))
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
