"""Ratings that carry across runs: OpenSkill's Plackett-Luce model, one rating per bot name.

A leaderboard ranks the bots of one run; a club meeting weekly wants to know who is strong over
all of them, with bots joining and leaving. ``battleship arena --ratings ratings.json`` keeps a
rating for each bot (by its name on the leaderboard: an entry's name, a program's command) in that
file: every battlefield of a run is one multiplayer game, its bots ranked by the shots they took
(fewer is better, equal shots tie, a forfeit scores every cell), and OpenSkill's Plackett-Luce
model (Weng and Lin's Bayesian approximation, what ``openskill`` implements) moves each bot's skill
``mu`` and its uncertainty ``sigma``. Bots are ordered by ``mu - 3 sigma`` (the ``ordinal``: a
skill the bot is very likely above), so a newcomer with a lucky first run does not top the table.

A run is added once: the file remembers each run's commitment and refuses the same run twice.
An interrupted run changes no rating (its later bots played fewer games, or none).
"""

from __future__ import annotations

import json
from pathlib import Path

from battleship.errors import BattleshipError
from battleship.extras import require
from battleship.files import write_atomically
from battleship.lab.arena.results import ArenaResult

require("arena")  # openskill: refused with its install line when imported, before any run

MODEL = "openskill plackett-luce"


def _empty() -> dict:
    return {"model": MODEL, "bots": {}, "runs": []}


def read(path: Path) -> dict:
    """The ratings file (an empty table if it does not exist yet); a clear error if it is not one."""
    if not path.exists():
        return _empty()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BattleshipError(f"cannot read ratings {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("model") != MODEL or not isinstance(data.get("bots"), dict):
        raise BattleshipError(f"{path} is not a ratings file of battleship arena ({MODEL})")
    return data


def update(path: Path, result: ArenaResult) -> list[dict]:
    """Add ``result``'s battlefields to the ratings in ``path`` (written back whole); the table after it."""
    data = read(path)
    if result.interrupted:
        raise BattleshipError("an interrupted run changes no rating")
    if result.commitment in data["runs"]:
        raise BattleshipError(f"this run (commitment {result.commitment[:12]}...) is already in {path}")
    apply(data, result)
    write_atomically(path, json.dumps(data, indent=1) + "\n")
    return table(data, {row.bot for row in result.leaderboard})


def apply(data: dict, result: ArenaResult) -> None:
    """Rate every battlefield of ``result`` as one game among its bots (see the module docstring)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rows = result.leaderboard
    if len(rows) >= 2:
        before = {row.bot: _ordinal(data["bots"].get(row.bot)) for row in rows}
        ratings = [_rating(model, data["bots"].get(row.bot), row.bot) for row in rows]
        for g in range(min(len(row.shots) for row in rows)):
            ranked = model.rate([[r] for r in ratings], ranks=[row.shots[g] for row in rows])
            ratings = [team[0] for team in ranked]
        for row, rating in zip(rows, ratings, strict=True):
            old = data["bots"].get(row.bot, {})
            data["bots"][row.bot] = {
                "mu": rating.mu,
                "sigma": rating.sigma,
                "games": old.get("games", 0) + len(row.shots),
                "runs": old.get("runs", 0) + 1,
                "change": rating.ordinal() - before[row.bot] if before[row.bot] is not None else None,
            }
    data["runs"].append(result.commitment)


def _rating(model, saved: dict | None, name: str):
    if saved is None:
        return model.rating(name=name)
    return model.rating(mu=float(saved["mu"]), sigma=float(saved["sigma"]), name=name)


def _ordinal(saved: dict | None) -> float | None:
    return None if saved is None else float(saved["mu"]) - 3 * float(saved["sigma"])


def table(data: dict, in_run: set[str] = frozenset()) -> list[dict]:
    """Every rated bot, best ordinal first; ``in_run`` marks the bots of the run just added."""
    rows = [
        {"bot": bot, "ordinal": _ordinal(r), "mu": r["mu"], "sigma": r["sigma"], "games": r["games"],
         "runs": r["runs"], "change": r.get("change") if bot in in_run else None, "in_run": bot in in_run}
        for bot, r in data["bots"].items()
    ]  # fmt: skip
    rows.sort(key=lambda r: (-r["ordinal"], r["bot"]))
    for rank, row in enumerate(rows, 1):
        row["rank"] = rank
    return rows
