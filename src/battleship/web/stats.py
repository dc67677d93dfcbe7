"""The statistics page's figures, drawn from every played game (C. Liam Brown's stats page).

A game counts once it was played (:data:`battleship.web.store.PLAYED_MOVES`); the placement map
appears from ``MIN_LAYOUTS`` layouts, so that it never shows one player's layout; the Learning
models are read as last fitted (they are refitted in the background, never inside a request).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from battleship import notation
from battleship.cells import iter_cells
from battleship.lab.match import wilson
from battleship.rules import preset
from battleship.web import store
from battleship.web.service import MODES, RULES

MIN_LAYOUTS = 30  # played layouts under a rules before its placement map is shown


def summary(service) -> dict[str, Any]:
    """Win rates and game lengths per computer mode; ship placement heat maps; the Learning prior."""
    games = store.played(service.engine)
    per_mode: dict[str, dict[str, Any]] = {m: {"games": 0, "computer_wins": 0, "moves": []} for m in MODES}
    usage: dict[str, np.ndarray] = {}
    layouts: dict[str, set[str]] = defaultdict(set)
    played_under: dict[str, int] = defaultdict(int)
    for g in games:
        mode = per_mode[g["mode"]]
        mode["games"] += 1
        mode["computer_wins"] += g["winner"] == "computer"
        mode["moves"].append(g["moves"])
        if g["rules"] not in RULES:
            continue  # custom rules differ game to game: no placement map
        rules = preset(g["rules"])
        grid = usage.setdefault(g["rules"], np.zeros(rules.cells))
        layout = notation.parse_layout(g["player_layout"], rules)
        for mask in layout.masks:
            grid[list(iter_cells(mask))] += 1
        layouts[g["rules"]].add(g["player_layout"])
        played_under[g["rules"]] += 1
    for mode in per_mode.values():
        n, k = mode["games"], mode["computer_wins"]
        mode["computer_win_rate"] = k / n if n else None
        mode["computer_win_rate_ci95"] = list(wilson(k, n)) if n else None
    placements = {}
    for name, grid in usage.items():
        rules = preset(name)
        games_played = played_under[name]
        shown = len(layouts[name]) >= MIN_LAYOUTS  # distinct layouts: one player replaying one cannot show it
        placements[name] = {
            "games": games_played,
            "layouts": len(layouts[name]),
            "minimum": MIN_LAYOUTS,
            "rows": rules.rows,
            "cols": rules.cols,
            "share": (grid / games_played).round(4).tolist() if shown else None,
        }
    learning, pending = {}, []
    for name in RULES:
        fitted = service.models.get(preset(name))
        if fitted is None:
            pending.append(name)
            continue
        learning[name] = {
            "layouts": fitted.model.layouts,
            "minus_uniform": fitted.shift.ravel().round(4).tolist(),
        }
    return {
        "games": len(games),
        "modes": per_mode,
        "placements": placements,
        "learning": learning,
        "learning_pending": pending,
    }
