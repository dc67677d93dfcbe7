"""Ratings that carry across runs: OpenSkill's Plackett-Luce model, one rating per player.

A leaderboard ranks the bots of one run; a club meeting weekly wants to know who is strong over
all of them, with bots joining and leaving. ``battleship arena --ratings ratings.json`` keeps a
rating for each player in that file. A player is an identity the organiser gives
(:mod:`~battleship.lab.arena.roster`): a bot's name on the leaderboard (an entry's file or folder
name, a program's command), or the entrant an organiser's roster names for an entry. Every
battlefield of a run is one multiplayer game, its players ranked by the shots they took (fewer is
better, equal shots tie, a forfeit scores every cell), and OpenSkill's Plackett-Luce model (Weng and
Lin's Bayesian approximation, what ``openskill`` implements) moves each player's skill ``mu`` and its
uncertainty ``sigma``. Players are ordered by ``mu - 3 sigma`` (the ``ordinal``: a skill the player
is very likely above), so a newcomer with a lucky first run does not top the table.

A run is added once: the file remembers each run's commitment and refuses the same run twice.
An interrupted run changes no rating (its later bots played fewer games, or none).

Ratings an entrant cannot inflate:

- one entrant, one rating: entries the roster gives the same entrant are rated as one player under
  the entrant's name, their shots on each battlefield averaged, so copies of one bot score as the
  bot, and weaker variants only pull their entrant down. What a bot says of itself (an ``author`` in
  its bot.toml) merges nothing: a bot cannot join, or drag down, another's rating;
- forfeits move no one else's rating: a game that scored a forfeit (every cell of the board) is left
  out of the others' rating game, so many always-forfeiting entries raise and lower no one's skill;
  the forfeiter itself is still rated last against everyone in that game, so a forfeit never saves
  a rating either. A battlefield on which any of an entrant's entries forfeited is the entrant's
  forfeit (averaged in, it would move the others).
"""

from __future__ import annotations

import json
from collections.abc import Set as AbstractSet
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
    return table(data, set(players(result)))


def players(result: ArenaResult) -> dict[str, list[float]]:
    """Who is rated and their shots battlefield by battlefield: an entrant of the roster once, its bots'
    shots averaged (a forfeit if any of them forfeited); any other bot under its own name."""
    groups: dict[str, list] = {}
    for row in result.leaderboard:
        groups.setdefault(row.entrant or row.bot, []).append(row.shots)
    games = min((len(s) for rows in groups.values() for s in rows), default=0)
    forfeit = result.forfeit_score

    def score(rows: list, g: int) -> float:
        shots = [s[g] for s in rows]
        return float(forfeit) if max(shots) >= forfeit else sum(shots) / len(shots)

    return {name: [score(rows, g) for g in range(games)] for name, rows in groups.items()}


def apply(data: dict, result: ArenaResult) -> None:
    """Rate every battlefield of ``result`` as one game among its players (see the module docstring)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    played = players(result)
    names = list(played)
    if len(names) >= 2:
        before = {n: _ordinal(data["bots"].get(n)) for n in names}
        ratings = {n: _rating(model, data["bots"].get(n), n) for n in names}
        for g in range(len(played[names[0]])):
            ratings = _rate_game(model, ratings, {n: played[n][g] for n in names}, result.forfeit_score)
        for name in names:
            old, rating = data["bots"].get(name, {}), ratings[name]
            data["bots"][name] = {
                "mu": rating.mu,
                "sigma": rating.sigma,
                "games": old.get("games", 0) + len(played[name]),
                "runs": old.get("runs", 0) + 1,
                "change": rating.ordinal() - before[name] if before[name] is not None else None,
            }
    data["runs"].append(result.commitment)


def _rate_game(model, ratings: dict, shots: dict[str, float], forfeit: int) -> dict:
    """One battlefield: the players that finished rated among themselves; each forfeiter rated last
    against all of them, its opponents' ratings left as the finished game made them."""
    finished = [n for n in ratings if shots[n] < forfeit]
    after = dict(ratings)
    if len(finished) >= 2:
        ranked = model.rate([[ratings[n]] for n in finished], ranks=[shots[n] for n in finished])
        after.update({n: team[0] for n, team in zip(finished, ranked, strict=True)})
    for loser in (n for n in ratings if shots[n] >= forfeit):
        others = [n for n in ratings if n != loser]
        teams = model.rate([[ratings[n]] for n in others] + [[ratings[loser]]],
                           ranks=[min(shots[n], forfeit - 1) for n in others] + [forfeit])  # fmt: skip
        after[loser] = teams[-1][0]
    return after


def _rating(model, saved: dict | None, name: str):
    if saved is None:
        return model.rating(name=name)
    return model.rating(mu=float(saved["mu"]), sigma=float(saved["sigma"]), name=name)


def _ordinal(saved: dict | None) -> float | None:
    return None if saved is None else float(saved["mu"]) - 3 * float(saved["sigma"])


def table(data: dict, in_run: AbstractSet[str] = frozenset()) -> list[dict]:
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
