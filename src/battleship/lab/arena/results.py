"""An arena run's results: the leaderboard and the head-to-head table, as plain data.

Each bot's games become shots per game (a forfeited game scores the most a game can take, every
cell of the board), summarised as the lab summarises any run (mean with its 95% interval) and paired
with the leader's games. ``--out results.json`` writes :meth:`ArenaResult.as_dict`, which
:func:`load` reads back (the web app's arena page shows such a file). A run cut short keeps the
games that finished: each row says how many it played, and pairs with the leader on those.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from battleship.errors import BattleshipError
from battleship.files import write_atomically
from battleship.lab.arena.bots import GameResult
from battleship.lab.arena.names import escape
from battleship.lab.arena.protocol import CAUSES, VERSION
from battleship.lab.match import wilson
from battleship.lab.summary import paired_difference, summarise

EXAMPLES = 5  # forfeits kept per bot, with their details, for the bot's author to read


@dataclass
class Tally:
    """One bot's games as they are played."""

    games: list[GameResult] = field(default_factory=list)

    def add(self, result: GameResult) -> None:
        self.games.append(result)

    def shots(self, forfeit_score: int) -> np.ndarray:
        """Shots per game, a forfeited game scored ``forfeit_score``."""
        return np.array([forfeit_score if g.fault else g.shots for g in self.games], dtype=np.int64)


@dataclass(frozen=True)
class Row:
    """One bot's line of the leaderboard."""

    rank: int
    bot: str
    kind: str  # shooter | class | program
    name: str | None  # the name the bot gave itself, if any
    games: int  # games played (fewer than the run's only if it was interrupted)
    mean: float
    ci95: tuple[float, float]
    sd: float
    median: float
    min: int
    max: int
    minus_leader: float
    minus_leader_ci95: tuple[float, float]
    forfeits: dict[str, int]
    forfeit_examples: list[dict]
    time_per_shot_ms: dict
    shots: list[int]  # each game's score, battlefield by battlefield (what --verify replays)
    entrant: str | None = None  # who entered it, as the organiser says (a roster): ratings merge on it
    author: str | None = None  # the author its own bot.toml claims: shown, never merged on


def _timing(tally: Tally) -> dict:
    times = [t for g in tally.games for t in g.times]
    timed = {g.timed for g in tally.games} or {"shot"}
    if not times:
        return {"median": None, "worst": None, "shots": 0, "timed": "/".join(sorted(timed))}
    return {
        "median": float(np.median(times)) * 1000,
        "worst": float(max(times)) * 1000,
        "shots": len(times),
        "timed": "/".join(sorted(timed)),
    }


def _forfeits(tally: Tally) -> tuple[dict[str, int], list[dict]]:
    counts = Counter(g.fault.cause for g in tally.games if g.fault)
    examples = [
        {"game": i + 1, "cause": g.fault.cause, "detail": escape(g.fault.detail)}
        for i, g in enumerate(tally.games)
        if g.fault
    ][:EXAMPLES]
    return {cause: counts.get(cause, 0) for cause in CAUSES}, examples


def leaderboard(bots: list, tallies: list[Tally], ship_cells: int, forfeit_score: int) -> list[Row]:
    """The rows, best mean first, of the bots that played; each paired with the leader's games (the
    same battlefields; after an interrupted run, those both played)."""
    shots = [t.shots(forfeit_score) for t in tallies]
    played = [i for i in range(len(bots)) if len(shots[i])]
    summaries = {i: summarise(shots[i], ship_cells, 0.0) for i in played}
    order = sorted(played, key=lambda i: (summaries[i].mean, i))
    leader = shots[order[0]] if order else np.zeros(0, dtype=np.int64)
    rows = []
    for rank, i in enumerate(order, 1):
        s, common = summaries[i], min(len(shots[i]), len(leader))
        diff, diff_ci = paired_difference(shots[i][:common], leader[:common])
        counts, examples = _forfeits(tallies[i])
        rows.append(
            Row(rank, escape(bots[i].label), bots[i].kind, _name(bots[i].said_name), len(shots[i]), s.mean, s.ci95,
                s.sd, s.median, s.min, s.max, diff, diff_ci, counts, examples, _timing(tallies[i]),
                shots[i].tolist(), _name(bots[i].entrant), _name(bots[i].claimed_author))
        )  # fmt: skip
    return rows


def _name(said: str | None) -> str | None:
    return None if said is None else escape(said)


@dataclass(frozen=True)
class Pairing:
    """Two bots head to head: A's wins (no draws: someone always sinks or forfeits first)."""

    a: str
    b: str
    games: int
    a_wins: int
    a_win_rate: float
    a_win_rate_ci95: tuple[float, float]
    a_forfeits: int  # games A lost by a fault of its own
    b_forfeits: int
    forfeit_examples: list[dict]  # the first few, with who, which game and why

    @classmethod
    def of(cls, a: str, b: str, a_wins: int, games: int, faults: list[dict]) -> Pairing:
        a_forfeits = sum(f["bot"] == a for f in faults)
        return cls(a, b, games, a_wins, a_wins / games, wilson(a_wins, games), a_forfeits,
                   len(faults) - a_forfeits, faults[:EXAMPLES])  # fmt: skip


@dataclass(frozen=True)
class ArenaResult:
    """A whole run: what was played and how each bot did."""

    rules: str
    rules_detail: dict
    generator: str
    games: int
    seed: int | None  # None: the key was secret, not made from a public seed
    time_limit: float
    forfeit_score: int
    leaderboard: list[Row]
    matches: list[Pairing] | None
    seconds: float
    commitment: str = ""  # SHA-256 of the key, printed before the first game
    key: str = ""  # the key itself, revealed now the run is over
    battlefields: str = ""  # SHA-256 of the battlefields in the layout text, one a line
    bot_seed: int = 0  # the seed registered shooters drew from (compare --layouts ... --seed BOT_SEED)
    interrupted: bool = False  # stopped early (Ctrl-C): the rows hold the games that finished
    jail: str = "sandbox"  # where programs ran: sandbox | unconfined
    ratings: list[dict] | None = None  # the bots' ratings after this run (--ratings), best first
    protocol: int = VERSION
    unit: str = "shots"  # what a game scores: shots, or turns (salvos) under salvo rules
    order: list[str] | None = None  # the bots in the order they played (--verify replays them so)
    limits: dict | None = None  # every limit the bots were held to (budgets worked out)
    caches: str = "dropped"  # the kernel's caches between bots: dropped, or shared (the organiser's choice)

    def as_dict(self) -> dict:
        """Plain data for JSON (tuples as lists)."""
        return json.loads(json.dumps(asdict(self)))


def save(result: ArenaResult, path: Path) -> None:
    """Write a run as JSON (what ``--out`` does): to a new file of a random name beside ``path``
    (created exclusively, so no link planted there is followed), then renamed over ``path`` (the
    name itself is replaced, never written through), so a file is whole or untouched."""
    write_atomically(path, json.dumps(result.as_dict(), indent=1) + "\n")


REQUIRED = ("rules", "games", "seed", "leaderboard")


def load(path: Path) -> dict:
    """A saved run as plain data, checked enough to be shown; a clear error if it is not one."""
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise BattleshipError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BattleshipError(f"{path} is not JSON: {exc}") from None
    missing = [k for k in REQUIRED if not isinstance(data, dict) or k not in data]
    if missing:
        raise BattleshipError(f"{path} is not an arena run: it has no {missing[0]!r}")
    if not isinstance(data["leaderboard"], list) or not all(
        isinstance(r, dict) and {"bot", "mean", "ci95"} <= set(r) for r in data["leaderboard"]
    ):
        raise BattleshipError(f"{path}: 'leaderboard' must be a list of rows with bot, mean and ci95")
    return data
