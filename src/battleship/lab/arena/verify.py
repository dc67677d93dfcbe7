"""Checking a finished run from its results alone: ``battleship arena --verify results.json``.

The organiser printed a commitment (SHA-256 of the run's key) before the first game and the results
reveal the key. From them anyone can check:

1. that the key is the one committed to (so it was fixed before the bots played), and, for a run
   with ``--seed``, the one that seed gives;
2. that the battlefields the key gives, drawn again here with the rules and generator the results
   name, are the ones the run played (their SHA-256 is in the results; ``--battlefields FILE``
   writes them, one layout a line, for any other tool to read);
3. that bots play the same games again: every registered shooter of the leaderboard, and any
   program or class named beside ``--verify`` (its author's own, say), is replayed on those
   battlefields with the run's seeds, and its shots, game by game, must be the saved ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from battleship import generators, shapes
from battleship.errors import BattleshipError
from battleship.lab.arena.bots import ShooterBot, parse_bot
from battleship.lab.arena.keys import Key, fingerprint
from battleship.lab.arena.results import load
from battleship.lab.arena.sandbox import Jail, Limits
from battleship.rules import Rules, Ship


@dataclass(frozen=True)
class Check:
    """One thing checked: what, whether it holds, and what was found."""

    what: str
    ok: bool
    detail: str


def rules_of(detail: dict) -> Rules:
    """The rules a results file describes (``rules_detail``)."""
    try:
        fleet = tuple(Ship(s["name"], s["symbol"], shapes.normalise(tuple(tuple(c) for c in s["cells"])))
                      for s in detail["fleet"])  # fmt: skip
        return Rules(detail["rows"], detail["cols"], fleet, detail["spacing"], detail["sinks"],
                     detail["reflections"], detail["name"])  # fmt: skip
    except (KeyError, TypeError, ValueError) as exc:
        raise BattleshipError(f"the results' rules_detail cannot be read: {exc}") from None


def verify(
    path: Path, bots: list[str] = (), battlefields: Path | None = None, jail: Jail | None = None
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
    named = [parse_bot(text, rules) for text in bots]
    shooters = [parse_bot(row["bot"], rules) for row in data["leaderboard"] if row.get("kind") == "shooter"]
    replay = [*(b for b in shooters if b.label not in {n.label for n in named}), *named]
    if replay:
        checks += _replays(data, rules, key, replay, jail)
    return checks


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
    missing = [b.label for b in bots if b.label not in saved]
    if missing:
        raise BattleshipError(
            f"{missing[0]!r} is not on the saved leaderboard: name a bot as the run named it"
        )
    games = max(len(saved[b.label].get("shots") or ()) for b in bots)
    limits = Limits(time=float(data.get("time_limit") or 0.5))
    again = run(rules, bots, games, key, data["generator"], limits, jail=jail)
    checks = []
    for row in again.leaderboard:
        want = saved[row.bot].get("shots") or []
        differ = [g + 1 for g, (a, b) in enumerate(zip(row.shots, want, strict=False)) if a != b]
        kind = (
            "registered shooter"
            if any(isinstance(b, ShooterBot) and b.label == row.bot for b in bots)
            else row.kind
        )
        checks.append(Check(f"replay {row.bot}", not differ and len(row.shots) >= len(want),
                            f"{kind}: {len(want):,} games replayed" + (f"; games {differ[:10]} differ" if differ else
                                                                    ", every one the same")))  # fmt: skip
    return checks
