"""The statistics page's figures, per rules (each preset, and each set of custom rules apart), drawn from
every played game (C. Liam Brown's stats page).

A game counts once it was played (:data:`battleship.web.store.PLAYED_MOVES`). The placement map and
the Adaptive level's model appear only from ``MIN_LAYOUTS`` distinct layouts of as many games
(:mod:`battleship.web.models`), so that neither ever shows one player's layout. The models are read
as last fitted: they are refitted in the background, never inside a request.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from battleship import notation
from battleship.cells import iter_cells
from battleship.lab.match import wilson
from battleship.rules import Rules
from battleship.shooters.learning import refusal as learning_refusal
from battleship.web import store
from battleship.web.computer import MODES
from battleship.web.models import MIN_LAYOUTS, enough
from battleship.web.records import FRIEND, rules_key, rules_of


def summary(service) -> dict[str, Any]:
    """Per rules: each level's games, wins (with 95% intervals) and lengths; where people put their ships; the model."""
    groups: dict[str, dict[str, Any]] = {}
    played = store.played(service.engine)
    for g in played:
        key = rules_key(g)
        if key not in groups:
            groups[key] = {"rules": rules_of(g), "games": [], "layouts": []}
        groups[key]["games"].append(g)
        groups[key]["layouts"].append((g["id"], g["player_layout"]))
        if g["mode"] == FRIEND:
            groups[key]["layouts"].append((g["id"], g["computer_layout"]))
    if "standard" not in groups:
        from battleship.rules import preset

        groups["standard"] = {"rules": preset("standard"), "games": [], "layouts": []}
    out, pending = [], []
    for key, group in groups.items():
        rules = group["rules"]
        entry = {
            "key": key,
            "name": rules.name,
            "label": label(rules),
            "rows": rules.rows,
            "cols": rules.cols,
            "games": len(group["games"]),
            # how game lengths are counted: moves (both sides' shots), or under salvo rules turns
            # (both sides' salvos, the shots beside them)
            "unit": "turns" if rules.salvo is not None else "moves",
            "modes": _modes(group["games"], rules.salvo is not None),
            "placement": _placement(rules, group["layouts"]),
            "learning": None,
        }
        entry["learning"], waiting = _learning(service.models, rules)
        if waiting:
            pending.append(key)
        out.append(entry)
    out.sort(key=lambda e: (-e["games"], e["key"] != "standard", e["key"]))
    return {"games": len(played), "rules": out, "learning_pending": pending}


def _learning(models, rules: Rules) -> tuple[dict[str, Any] | None, bool]:
    """The Adaptive level's map under ``rules`` (None where it cannot play them), and whether it is being fitted."""
    if rules.noise is not None or learning_refusal(rules) or models.cannot(rules):
        return None, False  # under noise the Adaptive level does not play (it reads every answer as true)
    fitted = models.get(rules)
    if fitted is None:
        return None, not models.cannot(rules)
    shift = fitted.shift.ravel().round(4).tolist() if fitted.learned_from else None
    return {"layouts": fitted.learned_from, "minimum": MIN_LAYOUTS, "minus_uniform": shift}, False


def label(rules: Rules) -> str:
    """A rules' name as the page lists it (custom rules described by their board and fleet)."""
    if rules.name != "custom":
        return rules.name
    twist = (
        f", answers flipped at {rules.noise.flip:g}" if rules.noise is not None
        else ", a cheating hider" if rules.hider is not None else ""
    )  # fmt: skip
    return (
        f"custom: {rules.rows}x{rules.cols}, {len(rules.fleet)} ships, {rules.spacing.value}, "
        f"sinks {rules.sinks.value}{twist}"
    )


def _modes(games: list[dict[str, Any]], salvo: bool = False) -> dict[str, dict[str, Any]]:
    """Per level (and between friends): games, wins with a 95% interval, and each game's length in moves
    (and, under salvo rules, in turns)."""
    out: dict[str, dict[str, Any]] = {}
    for name in (*MODES, FRIEND):
        mine = [g for g in games if g["mode"] == name]
        if not mine:
            continue
        wins = sum(g["winner"] == ("player1" if name == FRIEND else "computer") for g in mine)
        n = len(mine)
        out[name] = {
            "games": n,
            "level": MODES[name].level if name in MODES else "between friends",
            "wins": wins,  # the computer's, or (between friends) the first player's
            "win_rate": wins / n,
            "win_rate_ci95": list(wilson(wins, n)),
            "moves": [g["moves"] for g in mine],
        }
        if salvo:
            out[name]["turns"] = [g["turns"] or 0 for g in mine]
    return out


def _placement(rules: Rules, layouts: list[tuple[str, str]]) -> dict[str, Any]:
    """How often each square held a person's ship, once enough distinct layouts exist (else only the counts)."""
    counted = enough(layouts)
    entry: dict[str, Any] = {"layouts": counted, "minimum": MIN_LAYOUTS, "share": None}
    if counted >= MIN_LAYOUTS:
        grid = np.zeros(rules.cells)
        for _game, text in layouts:
            for mask in notation.parse_layout(text, rules).masks:
                grid[list(iter_cells(mask))] += 1
        entry["share"] = (grid / len(layouts)).round(4).tolist()
    return entry
