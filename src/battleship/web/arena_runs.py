"""Saved arena runs (``battleship arena --out``) that the server shows on its arena page.

``battleship serve --arena results.json`` names the files; each is read when asked for, so a run
saved again under the same name shows its new results without a restart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from battleship.errors import BattleshipError
from battleship.lab.arena import load
from battleship.web.service import NotFound


class ArenaRuns:
    """The runs on show, by id (the file's name without ``.json``; a number is added if two share it)."""

    def __init__(self, files: tuple[Path, ...] = ()):
        self.files: dict[str, Path] = {}
        for path in files:
            load(path)  # refuse a file that is not a run now, not when a page asks for it
            base = path.stem or "run"
            key, n = base, 2
            while key in self.files:
                key, n = f"{base}-{n}", n + 1
            self.files[key] = path

    def listing(self) -> list[dict[str, Any]]:
        """Each run's id, rules, games and bots (a run that can no longer be read says why)."""
        out: list[dict[str, Any]] = []
        for key, path in self.files.items():
            try:
                data = load(path)
            except BattleshipError as exc:
                out.append({"id": key, "error": str(exc)})
                continue
            bots = [row["bot"] for row in data["leaderboard"]]
            out.append(
                {
                    "id": key,
                    "rules": data["rules"],
                    "games": data["games"],
                    "seed": data["seed"],
                    "bots": bots,
                }
            )
        return out

    def get(self, key: str) -> dict[str, Any]:
        """One run, as saved."""
        if key not in self.files:
            raise NotFound(f"no arena run {key!r} is on show (battleship serve --arena FILE shows one)")
        return load(self.files[key])
