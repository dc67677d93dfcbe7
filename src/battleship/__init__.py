"""battleship: find hidden ships, under any rules, and know how well you did.

A five-minute tour::

    import battleship as bs

    rules = bs.preset("standard")              # or bs.load("my-rules.toml"); bs.Rules(...) by hand
    layout = bs.generate(rules, seed=7)        # a uniformly random valid layout
    print(layout.text())                       # rows joined by "/"; bs.Layout.from_text reads it back

    game = bs.Game(layout)                     # the referee holds the hidden layout
    shot = game.fire("E5")                     # or "e5", (4, 4), 44: Shot(cell, Outcome..., ...)
    board = game.observation                   # all a shooter may see: the rules and the shots
    print(board.text())                        # the board-state text; bs.Observation.from_text reads it

    result = bs.posterior(board)               # exact: every consistent layout, counted
    result.layouts, result["E6"], result.best()  # how many, P(ship) at E6, the likeliest cells

    shooter = bs.make("best")                  # any registered shooter: bs.shooter_names()
    record = bs.play(layout, shooter, seed=1)  # a whole game; len(record.shots) is its length
    summary = bs.simulate(rules, "density:skew=20", games=10_000, seed=1)   # the lab, in Numba
    paired = bs.compare(rules, ["density", "density:skew=20"], games=10_000)  # the same games each
    bs.count("pirates").distinct                # 3,851,502,784 layouts, counted exactly
    bs.match("square-8", "best", "hunt-target", games=1_000).a_win_rate   # the two-player game

The layers, each importing only those before it: the game (:mod:`~battleship.rules`,
:mod:`~battleship.layout`, :mod:`~battleship.game`, :mod:`~battleship.notation`,
:mod:`~battleship.generators`), then :mod:`battleship.inference`, :mod:`battleship.shooters`,
:mod:`battleship.lab`, and on top :mod:`battleship.cli` and :mod:`battleship.web`
(docs/design/architecture.md draws them). Beside the lab, :mod:`battleship.envs` registers a Gymnasium
environment (``battleship/Battleship-v0``) and holds a two-player PettingZoo one
(:mod:`battleship.envs.match`). Squares are plain ints (``row * cols + col``) and sets of squares
plain int bitboards, as in python-chess; wherever a cell is taken it may be named any usual way
(``"E5"``, ``(4, 4)`` or ``44``: :func:`~battleship.cells.to_cell`).

The calls take the board first (the rules, a layout or an observation, never rules beside an
observation that knows them), then the shooters, then the rest by keyword (:mod:`battleship.api`).
In a notebook, layouts, observations, records and posteriors draw themselves (SVG), and every value
has a short ``repr``. The first call after an install compiles the Numba kernels and says so
(``battleship warm`` compiles them ahead).

Names are loaded when first used, so ``import battleship`` is quick and loads no NumPy or Numba.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.2.0"

# public name -> the module that defines it
_EXPORTS = {
    "BattleshipError": "battleship.errors",
    "RulesError": "battleship.errors",
    "LayoutError": "battleship.errors",
    "IllegalShot": "battleship.errors",
    "NotationError": "battleship.errors",
    "Rules": "battleship.rules",
    "Ship": "battleship.rules",
    "Spacing": "battleship.rules",
    "Sinks": "battleship.rules",
    "Salvo": "battleship.rules",
    "Answers": "battleship.rules",
    "PRESETS": "battleship.rules",
    "preset": "battleship.rules",
    "load": "battleship.rules",
    "square": "battleship.rules",
    "Layout": "battleship.layout",
    "Game": "battleship.game",
    "Observation": "battleship.game",
    "Shot": "battleship.game",
    "Volley": "battleship.game",
    "Outcome": "battleship.game",
    "Shooter": "battleship.game",
    "Record": "battleship.game",
    "cell_name": "battleship.cells",
    "parse_cell": "battleship.cells",
    "to_cell": "battleship.cells",
    "CellLike": "battleship.cells",
    "Posterior": "battleship.inference",
    "Contradiction": "battleship.inference",
    "make": "battleship.shooters",
    "register": "battleship.shooters",
    "ShooterSpec": "battleship.shooters",
    "Options": "battleship.shooters.options",
    "Summary": "battleship.lab",
    "Comparison": "battleship.lab",
}
# names whose public form is a small wrapper defined in battleship.api
_API = (
    "play",
    "simulate",
    "compare",
    "match",
    "count",
    "posterior",
    "limit",
    "generate",
    "shooter_names",
    "check_shooter",
    "LayoutCount",
    "ShooterReport",
    "SlowWarning",
)

__all__ = ["__version__", *_EXPORTS, *_API]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    elif name in _API:
        value = getattr(importlib.import_module("battleship.api"), name)
    else:
        raise AttributeError(f"module 'battleship' has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:  # what type checkers and editors see
    from battleship.api import (
        LayoutCount,
        ShooterReport,
        SlowWarning,
        check_shooter,
        compare,
        count,
        generate,
        limit,
        match,
        play,
        posterior,
        shooter_names,
        simulate,
    )
    from battleship.cells import CellLike, cell_name, parse_cell, to_cell
    from battleship.errors import BattleshipError, IllegalShot, LayoutError, NotationError, RulesError
    from battleship.game import Game, Observation, Outcome, Record, Shooter, Shot, Volley
    from battleship.inference import Contradiction, Posterior
    from battleship.lab import Comparison, Summary
    from battleship.layout import Layout
    from battleship.rules import PRESETS, Answers, Rules, Salvo, Ship, Sinks, Spacing, load, preset, square
    from battleship.shooters import ShooterSpec, make, register
    from battleship.shooters.options import Options
