"""Games streamed to a text file, one line a game, resumable after an interrupt or a kill.

A line holds whole numbers separated by spaces: a game's shots (``simulate``), each shooter's shots
on the same layout (``compare``), both sides' shots (``match``). Files of more than one column
start with a ``#`` line naming the columns; ``numpy.loadtxt`` and most tools skip it. Under salvo
rules the numbers are turns (salvos to sink the fleet), and the ``#`` line says so first: ``# turns``
for one column, ``# turns: a<TAB>b`` for several (files in shots are written as they always were). The run's
parameters are kept beside the file, in ``FILE.run.json``.

Every line is a finished game and games are written in order, so a file cut anywhere (Ctrl-C,
SIGTERM, a kill, a full disk) holds games ``0 .. n - 1`` and perhaps half a line: ``--resume``
checks that the parameters match, drops the half line and carries on from game ``n``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from battleship.errors import BattleshipError

BLOCK = 1 << 22  # bytes read at a time when a run resumes (a 10^8-game file is 300 MB)
SYNC_SECONDS = 1.0  # most seconds between forcing the file to disk (what a crash of the machine can lose)


class ShotsFile:
    """Games written one a line, with the run's parameters beside them (see the module docstring).

    ``columns`` names the numbers of a line when there is more than one (the header line).
    """

    def __init__(self, path: Path, params: dict, columns: list[str] | None = None, unit: str = "shots"):
        self.path = path
        self.meta = path.with_name(path.name + ".run.json")
        self.params = params
        self.columns = list(columns or ["shots"])
        self.unit = unit
        named = "\t".join(self.columns) if len(self.columns) > 1 else ""
        if unit != "shots":
            named = f"{unit}: {named}" if named else unit
        self.header = f"# {named}\n" if named else ""
        self._synced = 0.0

    @property
    def width(self) -> int:
        """Numbers a line."""
        return len(self.columns)

    def start(self, resume: bool, on_rows: Callable[[np.ndarray], None] | None = None) -> int:
        """Open for writing; returns the games already in the file (0 for a new run).

        On ``resume``, ``on_rows`` is handed the games kept, in order, as ``(games, width)`` arrays,
        so that the caller can count them in again.
        """
        if not resume:
            if self.path.exists():
                raise BattleshipError(f"{self.path} exists: pass --resume to carry on with it, or remove it")
            self.meta.write_text(json.dumps(self.params, indent=2) + "\n")
            self.path.write_text(self.header)
            return 0
        if not self.path.exists() or not self.meta.exists():
            raise BattleshipError(f"nothing to resume: {self.path} or {self.meta.name} is missing")
        try:
            saved = json.loads(self.meta.read_text())
        except ValueError:
            raise BattleshipError(
                f"{self.meta} is not the JSON a run writes: cannot resume from it"
            ) from None
        if _with_new_keys(saved) != self.params:
            changed = sorted(k for k in set(saved) | set(self.params) if saved.get(k) != self.params.get(k))
            raise BattleshipError(f"{self.path} was written by a different run ({', '.join(changed)} differ)")
        return self._read_back(on_rows)

    def _read_back(self, on_rows: Callable[[np.ndarray], None] | None) -> int:
        """Every whole line, handed to ``on_rows`` in blocks; the file is cut after the last one."""
        games, keep, line_number = 0, 0, 0
        with self.path.open("rb") as handle:
            rest = b""
            while True:
                data = handle.read(BLOCK)
                text = rest + data
                end = text.rfind(b"\n") + 1
                whole, rest = text[:end], text[end:]
                if keep == 0 and self.header and whole.startswith(b"#"):
                    cut = whole.index(b"\n") + 1
                    whole, keep, line_number = whole[cut:], cut, 1
                if whole:
                    rows = self._parse(whole, line_number)
                    games += len(rows)
                    keep += len(whole)
                    line_number += len(rows)
                    if on_rows is not None:
                        on_rows(rows)
                if not data:
                    break
        with self.path.open("r+b") as handle:
            handle.truncate(keep)  # a line cut short by the kill
            if keep == 0:
                handle.write(self.header.encode())
        return games

    def _parse(self, whole: bytes, before: int) -> np.ndarray:
        """Whole lines as a ``(games, width)`` array, or a clear error naming the first bad line."""
        lines = whole.count(b"\n")
        fields = whole.split()
        if len(fields) == lines * self.width:
            try:
                return np.array(fields).astype(np.int64).reshape(lines, self.width)
            except ValueError:
                pass
        for number, line in enumerate(whole.splitlines(), before + 1):
            parts = line.split()
            if len(parts) != self.width or not all(p.isdigit() for p in parts):
                raise BattleshipError(
                    f"{self.path}, line {number}: expected {self.width} whole number"
                    f"{'s' if self.width > 1 else ''}, found {line[:60].decode(errors='replace')!r}"
                )
        raise BattleshipError(f"{self.path}: cannot read the games it holds")  # pragma: no cover

    def append(self, rows: np.ndarray) -> None:
        """Add finished games (shots, or ``(games, width)`` rows), written before they are counted.

        Written whole and flushed at once (an interrupt or a kill of the process loses nothing
        written); forced to the disk itself at most every ``SYNC_SECONDS``, against a crash of the
        machine, so that fast shooters are not held up by the disk.
        """
        rows = np.asarray(rows).reshape(-1, self.width)
        if not len(rows):
            return
        if self.width == 1:
            text = "".join(f"{v}\n" for v in rows[:, 0].tolist())
        else:
            text = "".join(" ".join(map(str, row)) + "\n" for row in rows.tolist())
        with self.path.open("a") as handle:
            handle.write(text)
            handle.flush()
            if time.monotonic() - self._synced >= SYNC_SECONDS:
                os.fsync(handle.fileno())
                self._synced = time.monotonic()


def _with_new_keys(saved: object) -> object:
    """The saved parameters as a run today would write them: each shooter's label in today's spelling
    (``optimal:endgame=12`` reads as ``optimal:exact=12``) and option keys added since they were
    written read as their defaults, so that neither stops a run written before them from carrying on."""
    import contextlib
    import dataclasses

    from battleship.errors import BattleshipError
    from battleship.shooters import registry
    from battleship.shooters.options import Options

    if not isinstance(saved, dict):
        return saved
    options = saved.get("options")
    if isinstance(options, dict):
        default = dataclasses.asdict(Options())
        renewed: dict[str, object] = {}
        for label, values in options.items():
            # a class named outright, or a label no longer known, stays as saved
            with contextlib.suppress(BattleshipError):
                label, values = registry.canonical(label), dataclasses.asdict(registry.resolve(label)[1])
            if isinstance(values, dict):
                for key, value in default.items():
                    values.setdefault(key, value)
            renewed[label] = values
        saved["options"] = renewed
    return saved


@dataclass(frozen=True)
class Kept:
    """The games a ``--out`` file holds: a column a shooter (or side), in the unit it says."""

    columns: tuple[str, ...]
    unit: str
    games: np.ndarray  # (games, columns)
    cut: bool  # the last line was cut short (a run stopped mid-write) and is left out


def read_kept(path: Path) -> Kept:
    """Read a file ``simulate``, ``compare`` or ``match`` wrote with ``--out``: its header (``# turns``,
    ``# turns: a<TAB>b``, ``# a<TAB>b``, or none for one column of shots) and every whole line."""
    from battleship.files import read_text

    text = read_text(path, "results file", BattleshipError)
    lines = text.split("\n")
    header = lines[0][1:].strip() if lines and lines[0].startswith("#") else None
    body = lines[1:] if header is not None else lines
    unit, named = "shots", header or ""
    if header is not None:
        first, colon, rest = header.partition(":")
        if colon and first.strip() in ("turns", "shots"):
            unit, named = first.strip(), rest
        elif header.strip() in ("turns", "shots"):
            unit, named = header.strip(), ""
    columns = tuple(c.strip() for c in named.split("\t") if c.strip()) or (unit,)
    cut = bool(body) and body[-1] != ""  # a file ends with a newline after its last whole game
    whole = body[:-1]
    width = len(columns)
    rows = []
    for number, line in enumerate(whole, 2 if header is not None else 1):
        parts = line.split()
        if len(parts) != width or not all(p.isdigit() for p in parts):
            raise BattleshipError(
                f"{path}, line {number}: expected {width} whole number{'s' * (width > 1)} "
                f"({', '.join(columns)}), found {line[:60]!r}"
            )
        rows.append([int(p) for p in parts])
    if not rows:
        raise BattleshipError(f"{path} holds no finished game")
    return Kept(columns, unit, np.array(rows, dtype=np.int64).reshape(len(rows), width), cut)
