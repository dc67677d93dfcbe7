"""Checking a finished run from its results alone: ``battleship arena --verify results.json``.

The organiser printed a commitment (SHA-256 of the run's key) before the first game and the results
reveal the key. From them anyone can check:

1. that the key is the one committed to (so it was fixed before the bots played), and, for a run
   with ``--seed``, the one that seed gives;
2. that the battlefields the key gives, drawn again here with the rules and generator the results
   name, are the ones the run played (their SHA-256 is in the results; ``--battlefields FILE``
   writes them, one layout a line, for any other tool to read);
3. that every row adds up: its mean, interval, spread, median, extremes, difference from the leader
   and its interval recomputed from its games' shots, the ranks from the means, the forfeits against
   the games that scored a forfeit, the games against the shots;
4. that bots play the same games again: every registered shooter of the leaderboard (looked up by
   name in the registry, never run from the file's text: a ``shooter`` row naming anything else
   fails), and any program or class named beside ``--verify`` or found in an ``--entries`` folder,
   is replayed on those battlefields with the run's seeds and limits, of the kind its row says, and
   its shots, game by game, must be the saved ones. A row whose bot is not at hand is reported
   unchecked, and so are ratings (they carry earlier runs): the run is then not wholly verified,
   and says so.

The bots are replayed in the order the live run played them (the results record it), each in its
own sandbox with the kernel's caches dropped before its turn: an isolated replay. A bot whose games
come out differently is named with the games that differ and *flagged*: its live games were not
what it plays alone, a sign of interference (another bot passing it what it saw, through a channel
the live run left open), or of a bot whose play does not follow from its seeds. Either way its
scores are not to be trusted as they stand.

Nothing the file names is ever run: program and class rows only replay bots the verifier names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from battleship import generators, shapes
from battleship.errors import BattleshipError
from battleship.lab.arena.bots import ShooterBot, parse_bot
from battleship.lab.arena.entries import load_entries
from battleship.lab.arena.keys import Key, fingerprint
from battleship.lab.arena.names import escape
from battleship.lab.arena.protocol import CAUSES
from battleship.lab.arena.results import load
from battleship.lab.arena.sandbox import Jail, Limits, Sandbox
from battleship.lab.summary import paired_difference, summarise
from battleship.rules import Hider, Noise, Rules, Salvo, Ship
from battleship.shooters import registry


@dataclass(frozen=True)
class Check:
    """One thing checked: what, whether it holds, and what was found; ``checked`` False: it could not
    be checked (a bot not at hand), which is not a pass."""

    what: str
    ok: bool
    detail: str
    checked: bool = True
    flagged: str | None = None  # a bot whose live games differ from an isolated replay of it


def results_digest(path: Path) -> str:
    """SHA-256 of a results file's whole content (published beside the commitment)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rules_of(detail: dict) -> Rules:
    """The rules a results file describes (``rules_detail``, with its ``salvo``, ``noise`` and ``hider``
    where the rules have them)."""
    try:
        fleet = tuple(Ship(s["name"], s["symbol"], shapes.normalise(tuple(tuple(c) for c in s["cells"])))
                      for s in detail["fleet"])  # fmt: skip
        salvo = detail.get("salvo")  # salvo rules only
        noise = detail.get("noise")  # rules with answers that lie only
        hider = detail.get("hider")  # rules with a cheating hider only
        return Rules(detail["rows"], detail["cols"], fleet, detail["spacing"], detail["sinks"],
                     detail["reflections"], detail["name"],
                     None if salvo is None else Salvo(salvo["shots"], salvo["answers"]),
                     None if noise is None else Noise(noise["flip"], noise["sinkings"]),
                     None if hider is None else Hider(hider["kind"], hider["play"]))  # fmt: skip
    except (KeyError, TypeError, ValueError, AttributeError, BattleshipError) as exc:
        raise BattleshipError(f"the results' rules_detail cannot be read: {exc}") from None


def verify(
    path: Path,
    bots: Sequence[str] = (),
    battlefields: Path | None = None,
    jail: Jail | None = None,
    entries: Path | None = None,
) -> list[Check]:
    """Every check of the module docstring on the run saved at ``path``."""
    data = load(path)
    if not data.get("key") or not data.get("commitment"):
        raise BattleshipError(f"{path} reveals no key: it was saved before runs were keyed, or by hand")
    key = Key.from_hex(data["key"])
    checks = [_commitment(key, data)]
    if data.get("seed") is not None:
        seeded = Key.from_seed(int(data["seed"])).secret == key.secret
        checks.append(
            Check("seed", seeded, f"the key {'is' if seeded else 'is not'} the one seed {data['seed']} gives")
        )
    rules = rules_of(data.get("rules_detail") or {})
    rows = key.battlefields(rules, data["generator"], int(data["games"]))
    digest = fingerprint(rules, rows)
    checks.append(Check("battlefields", digest == data.get("battlefields"),
                        f"{len(rows):,} battlefields drawn from the key ({data['generator']}): sha256 {digest}"))  # fmt: skip
    if battlefields is not None:
        battlefields.write_bytes(generators.format_lines(rules, rows))
    checks += consistency(data)
    named = [parse_bot(text, rules) for text in bots]
    if entries is not None:
        named += load_entries(entries)
    replay, unchecked = _at_hand(data, rules, named, checks)
    if replay:
        checks += _replays(data, rules, key, replay, jail)
    checks += unchecked
    if data.get("ratings"):
        checks.append(Check("ratings", False, "they carry earlier runs' ratings, which this file does not "
                            "hold: check them against the ratings file", checked=False))  # fmt: skip
    return checks


def _at_hand(data: dict, rules: Rules, named: list, checks: list[Check]) -> tuple[list, list[Check]]:
    """The bots to replay (a shooter row's from the registry, others only if named) and the rows left
    unchecked; a row whose kind does not match its bot fails in ``checks``."""
    by_label = {escape(b.label): b for b in named}  # as the results hold them
    replay, unchecked = [], []
    for row in data["leaderboard"]:
        label, kind = str(row["bot"]), row.get("kind")
        bot = by_label.get(label)
        if bot is None and kind == "shooter":
            bot = _registered(label, rules)
            if bot is None:
                checks.append(Check(f"kind {escape(label)}", False, "the row says shooter, but no registered "
                                    "shooter has that name (it was not run)"))  # fmt: skip
                continue
        if bot is None:
            unchecked.append(Check(f"replay {escape(label)}", False, f"{escape(kind)}: not replayed (name its "
                                   "program, class or --entries folder to replay it)", checked=False))  # fmt: skip
        elif bot.kind != kind:
            checks.append(
                Check(f"kind {escape(label)}", False, f"the row says {escape(kind)}, the bot is a {bot.kind}")
            )
        else:
            replay.append(bot)
    return replay, unchecked


def _registered(label: str, rules: Rules):
    """The registered shooter a row names, looked up in the registry; None if it names none."""
    name = label.partition(":")[0]
    if label.startswith("exec:") or not (name in registry.names() or name == "best"):
        return None
    try:
        bot = parse_bot(label, rules)
    except BattleshipError:
        return None
    return bot if isinstance(bot, ShooterBot) else None


def consistency(data: dict) -> list[Check]:
    """Every row's figures recomputed from its shots (see the module docstring, 3)."""
    checks, rows = [], data["leaderboard"]
    try:
        cells = int(data["forfeit_score"])
        ship_cells = sum(len(s["cells"]) for s in data["rules_detail"]["fleet"])
        shots = [np.asarray(r["shots"], dtype=np.int64) for r in rows]
    except (KeyError, TypeError, ValueError) as exc:
        return [Check("rows", False, f"the rows cannot be read: {exc}")]
    means = [float(s.mean()) if len(s) else np.inf for s in shots]
    order = sorted(range(len(rows)), key=lambda i: (means[i], i))
    leader = shots[order[0]] if order else np.zeros(0, dtype=np.int64)
    for rank, i in enumerate(order, 1):
        row, wrong = rows[i], []
        try:
            wrong = _row_faults(row, shots[i], leader, rank, cells, ship_cells)
        except (KeyError, TypeError, ValueError) as exc:
            wrong = [f"cannot be read ({exc})"]
        checks.append(Check(f"row {escape(row['bot'])}", not wrong,
                            "; ".join(wrong) if wrong else f"{len(shots[i]):,} games add up"))  # fmt: skip
    return checks


def _row_faults(
    row: dict, shots: np.ndarray, leader: np.ndarray, rank: int, cells: int, ship_cells: int
) -> list[str]:
    s = summarise(shots, ship_cells, 0.0)
    common = min(len(shots), len(leader))
    diff, diff_ci = paired_difference(shots[:common], leader[:common])
    want = {"rank": rank, "games": len(shots), "mean": s.mean, "ci95": list(s.ci95), "sd": s.sd,
            "median": s.median, "min": s.min, "max": s.max, "minus_leader": diff,
            "minus_leader_ci95": list(diff_ci)}  # fmt: skip
    wrong = [
        f"{k} {row.get(k)!r} (the games give {v!r})" for k, v in want.items() if not _same(row.get(k), v)
    ]
    forfeits = row.get("forfeits") or {}
    unknown = set(forfeits) - set(CAUSES)
    if unknown or any(not isinstance(n, int) or n < 0 for n in forfeits.values()):
        wrong.append(f"forfeits {forfeits!r} are not counts of known causes")
    elif sum(forfeits.values()) > int(np.sum(shots == cells)):
        wrong.append(
            f"{sum(forfeits.values())} forfeits, but only {int(np.sum(shots == cells))} games scored one"
        )
    for example in row.get("forfeit_examples") or []:
        game = example.get("game")
        if not isinstance(game, int) or not 1 <= game <= len(shots) or shots[game - 1] != cells:
            wrong.append(f"forfeit example of game {game!r}, which did not score a forfeit")
        elif forfeits.get(example.get("cause"), 0) < 1:
            wrong.append(f"forfeit example of cause {example.get('cause')!r}, which the row never counts")
    return [escape(w) for w in wrong]


def _same(saved, want) -> bool:
    if isinstance(want, float) and want != want:  # NaN (one game has no spread): saved as NaN too
        return isinstance(saved, float) and saved != saved
    if isinstance(want, list):
        return isinstance(saved, list) and len(saved) == len(want) and all(map(_same, saved, want))
    try:
        return abs(float(saved) - float(want)) <= 1e-9 * max(1.0, abs(float(want)))
    except (TypeError, ValueError):
        return False


def _commitment(key: Key, data: dict) -> Check:
    ok = key.commitment == data["commitment"]
    return Check(
        "commitment",
        ok,
        f"sha256(key) = {key.commitment}" + ("" if ok else f", committed {data['commitment']}"),
    )


def _replays(data: dict, rules: Rules, key: Key, bots: list, jail: Jail | None) -> list[Check]:
    from battleship.lab.arena.contest import run

    saved = {row["bot"]: row for row in data["leaderboard"]}
    games = max(len(saved[escape(b.label)].get("shots") or ()) for b in bots)
    order, how = _live_order(data, bots)
    again = run(rules, order, games, key, data["generator"], limits_of(data), jail=jail)
    isolated = jail is None or not jail.confined or (isinstance(jail, Sandbox) and jail.caches)
    how += "" if isolated else "; caches shared between bots in this replay, so not isolated"
    checks = []
    for row in again.leaderboard:
        want = saved[row.bot].get("shots") or []
        differ = [g + 1 for g, (a, b) in enumerate(zip(row.shots, want, strict=False)) if a != b]
        kind = (
            "registered shooter"
            if any(isinstance(b, ShooterBot) and escape(b.label) == row.bot for b in bots)
            else row.kind
        )
        detail = f"{kind}: {len(want):,} games replayed ({how})"
        if differ:
            shown = ", ".join(map(str, differ[:10])) + (
                f" and {len(differ) - 10} more" if len(differ) > 10 else ""
            )
            detail += (f"; games {shown} differ from the recorded ones: the live run differed from an isolated "
                       "replay, a sign of interference (or of a bot whose play does not follow from its seeds)")  # fmt: skip
        else:
            detail += ", every one the same"
        checks.append(Check(f"replay {escape(row.bot)}", not differ and len(row.shots) >= len(want), detail,
                            flagged=escape(row.bot) if differ else None))  # fmt: skip
    return checks


def _live_order(data: dict, bots: list) -> tuple[list, str]:
    """The bots at hand in the order the live run played them, and how that order was known."""
    order = data.get("order")
    if not isinstance(order, list):
        return bots, "in leaderboard order: the results do not say the order the live run played"
    place = {str(label): i for i, label in enumerate(order)}
    return sorted(bots, key=lambda b: place.get(escape(b.label), len(place))), "in the live run's order"


def limits_of(data: dict) -> Limits:
    """The limits a saved run held its bots to (older results name only the time limit)."""
    saved = data.get("limits")
    if not isinstance(saved, dict):
        saved = {}
    known = {f.name for f in fields(Limits)}
    try:
        return Limits(**{k: v for k, v in saved.items() if k in known and v is not None} or
                      {"time": float(data.get("time_limit") or 0.5)})  # fmt: skip
    except (TypeError, ValueError) as exc:
        raise BattleshipError(f"the results' limits cannot be read: {exc}") from None
