"""Who entered which bot: the organiser says, never a bot.

Ratings carry from run to run under each player's identity, so an identity is worth borrowing: a bot
that forfeits every game under a rival's name drags the rival's rating down. An identity therefore
comes from the organiser only:

- by default each bot is its own player, under its name on the leaderboard (an entry's file or
  folder name, a program's command, a shooter's spec);
- an organiser's **roster** (``--roster roster.toml``) maps entries to entrants, so that an entrant's
  several entries, or the same entrant's entries over a season under different names, are one
  player::

      [entries]
      "alice.py" = "Alice Martin"
      "alice-v2" = "Alice Martin"
      "bob.js" = "Bob Stone"

An entry's own ``bot.toml`` may say ``author = "..."``: that is the entrant's claim, shown beside
the bot (``author`` in the results) and merged on nowhere.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from battleship.errors import BattleshipError
from battleship.lab.arena.names import escape

TABLE = "entries"


class Named(Protocol):
    label: str
    entrant: str | None


def read(path: Path) -> dict[str, str]:
    """The roster in ``path``: {entry name: entrant}; a one-line error saying what is wrong and where."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BattleshipError(f"--roster {escape(path)}: cannot read it: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BattleshipError(f"--roster {escape(path)}: not a TOML file: {exc}") from None
    extra = sorted(set(data) - {TABLE})
    if extra or not isinstance(data.get(TABLE), dict):
        said = f"unknown key {escape(extra[0])!r}" if extra else f"no [{TABLE}] table"
        raise BattleshipError(
            f'--roster {escape(path)}: {said}; it holds one [{TABLE}] table, "entry" = "entrant"'
        )
    roster = {}
    for entry, entrant in data[TABLE].items():
        if not isinstance(entrant, str) or not entrant.strip():
            raise BattleshipError(
                f"--roster {escape(path)}: entry {escape(entry)!r} must name its entrant in a non-empty string, "
                f"not {escape(entrant)!r}"
            )
        roster[entry] = entrant.strip()
    return roster


def apply(roster: dict[str, str], bots: Sequence[Named]) -> None:
    """Give each bot the roster names its entrant (a bot it does not name stays a player of its own)."""
    for bot in bots:
        bot.entrant = roster.get(bot.label)


def identity(bot: Named) -> str:
    """Whom a bot's rating belongs to: its entrant, else the bot itself (its name on the leaderboard)."""
    return bot.entrant or bot.label


def check(bots: Sequence[Named]) -> None:
    """Refuse a run in which two players would share an identity by accident: a roster naming an
    entrant as another bot is named (which would merge that bot into the entrant)."""
    labels = {bot.label for bot in bots}
    for bot in bots:
        if bot.entrant is not None and bot.entrant != bot.label and bot.entrant in labels:
            raise BattleshipError(
                f"the roster makes {escape(bot.label)!r} an entry of {escape(bot.entrant)!r}, which is also the name "
                "of another bot in this run: give the entrant a name no bot has"
            )
