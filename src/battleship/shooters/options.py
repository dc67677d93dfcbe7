"""Shooter options, written ``name:key=value,...`` on the command line, and the vector kernels read.

One :class:`Options` value configures every shooter; each reads only the keys it documents:

- ``tie``: how equal cells are split: ``first`` (reading order), ``random`` or ``centre`` (nearest
  the middle, then reading order); every scoring shooter. ``informative`` (the cell whose answer
  tells most) is read by optimal and montecarlo only.
- ``colour``: the checkerboard colour hunt-target-parity hunts on, ``(row + col) % 2``.
- ``weight``: density's factor per unexplained hit a placement passes through.
- ``skew``: C. Liam Brown's diagonal skew, in percent (C. Liam Brown's calculator uses 20): while the smallest ship may be afloat,
  cells of one checkerboard colour (the colour most of the shots so far went to) score that much
  more. density, density-grid, trial-sink.
- ``lattice``: 1 makes the skew follow the smallest afloat ship: cells ``(row + col) % n == k`` for
  its length ``n`` score ``skew`` percent more while any ship floats (plain skew: the checkerboard,
  and only while a ship of the fleet's smallest size may be afloat). Every shooter that reads ``tie``
  and ``skew`` (not density-grid).
- ``lastship``: density's look-ahead for the last ship: once one ship is afloat and every sunk
  ship's cells are known, each of the ``lastship`` cells density ranks highest is played on by
  density against every placement of that ship that fits, and the one with fewest shots in all is
  fired (an exact rollout: those placements are equally likely on uniform layouts). 0: off.
- ``boost``: the Dunman High paper's parity boost, in percent, to cells ``(row + col) % n == k`` where ``n`` is the
  smallest afloat ship's length and ``k`` the residue most shots so far went to. superposition
  (default 5) and optimal (default 0).
- ``endgame``: optimal solves the rest of the game exactly (fewest expected shots) once at most
  this many layouts remain (0: never).
- ``exact``: twoply solves the rest of the game exactly once at most this many layouts remain (the
  endgame solver, as optimal's ``endgame``; past its budget of states, twoply's own cell). 0: never.
- ``second``: once at most this many layouts remain, twoply's endgame plays each candidate on by its
  own rollout over greedy instead of by greedy (a second step of policy improvement, for small
  boards). 0: never.
- ``model``: learning's placement model file (written by ``battleship learn``).
- ``prior``: a layout generator (``contest``, ``sequential``, ...) the shooter assumes the layouts come
  from: each placement is weighed by how much more often that generator draws it than uniform
  layouts do (fitted once on generated layouts). trial-sink.
- ``samples``: montecarlo's exact samples per shot (reproducible); learning's under a spacing margin.
- ``rollouts``: rollout's sampled layouts per shot, each played on from every candidate.
- ``width``: rollout's and twoply's candidate cells per shot.
- ``fast``: best only: 1 plays the strongest measured shooter that runs as a Numba kernel at
  thousands of games a second (no ``lastship`` look-ahead), for lab runs where the strongest costs too much.
- ``plies``: twoply's look-ahead before its endgame: 2 (this shot and the next) or 1 (greedy's best
  cell, skewed as asked, until ``endgame`` layouts remain).
- ``early``: what twoply plays before its endgame instead of what ``plies`` says: ``density`` (the
  DataGenetics density strategy's cell) or ``trial-sink``, with the same ``skew`` and ``tie``, so
  that the look-ahead changes that shooter's play in the endgame only.
- ``budget``: montecarlo's time per shot in milliseconds, as C. Liam Brown's calculator does it (0: use ``samples``); the
  number of samples then depends on the machine, so runs with a budget are not reproducible.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from battleship.errors import BattleshipError
from battleship.rules import Rules, Sinks, Spacing

TIES = {"first": 0, "random": 1, "centre": 2, "informative": 3}
EARLY = ("", "density", "trial-sink")  # what twoply may play before its endgame ("": as ``plies`` says)
SINK_CODES = {Sinks.NONE: 0, Sinks.SUNK: 1, Sinks.NAMED: 2, Sinks.REVEALED: 3}
SPACING_CODES = {Spacing.TOUCH: 0, Spacing.NO_EDGE: 1, Spacing.NO_CONTACT: 2}
DEFAULT_WEIGHT = 20
SUPERPOSITION_BOOST = 5  # the Dunman High paper: "a few percentage points"

# the whole-number keys and the values they may take (low, high, what they are)
RANGES = {
    "colour": (0, 1, "a checkerboard colour"),
    "weight": (1, 10_000, "a factor"),
    "skew": (0, 100, "a percentage"),
    "boost": (0, 100, "a percentage"),
    "samples": (1, 10_000_000, "a number of samples"),
    "budget": (0, 600_000, "milliseconds"),
    "endgame": (0, 100_000, "a number of layouts"),
    "exact": (0, 100_000, "a number of layouts"),
    "second": (0, 100_000, "a number of layouts"),
    "rollouts": (1, 100_000, "a number of layouts"),
    "width": (1, 1_000, "a number of candidate cells"),
    "plies": (1, 2, "a look-ahead depth"),
    "fast": (0, 1, "0 or 1"),
    "lattice": (0, 1, "0 or 1"),
    "lastship": (0, 100, "a number of candidate cells"),
}

# positions in the kernels' parameter vector
TIE, COLOUR, WEIGHT, SKEW, BOOST, SINKS, SPACING, LATTICE, LASTSHIP = range(9)


@dataclass(frozen=True)
class Options:
    """How a shooter plays (see the module docstring for what each key means)."""

    tie: str = "first"
    colour: int = 0
    weight: int = DEFAULT_WEIGHT
    skew: int = 0
    lattice: int = 0
    lastship: int = 0
    boost: int | None = None  # None: the shooter's own default
    samples: int = 1000
    budget: int = 0
    endgame: int = 0
    exact: int = 0
    second: int = 0
    model: str = ""
    prior: str = ""
    rollouts: int = 48
    width: int = 6
    plies: int = 2
    early: str = ""
    fast: int = 0

    def __post_init__(self) -> None:
        if self.tie not in TIES:
            raise BattleshipError(f"tie rule {self.tie!r} is not one of {', '.join(TIES)}")
        if self.early not in EARLY:
            raise BattleshipError(f"early is {' or '.join(e for e in EARLY if e)}, not {self.early!r}")
        for key, (low, high, what) in RANGES.items():
            value = getattr(self, key)
            if value is not None and not low <= value <= high:
                raise BattleshipError(f"{key} is {what} from {low:,} to {high:,}, not {value:,}")
        if self.prior:
            from battleship.generators import parse_generator

            parse_generator(self.prior)  # a clear error now rather than mid-run

    def vector(self, rules: Rules) -> np.ndarray:
        """The int64 parameter vector of the kernels, for ``rules``."""
        out = np.zeros(9, dtype=np.int64)
        out[TIE] = TIES[self.tie]
        out[COLOUR] = self.colour
        out[WEIGHT] = self.weight
        out[SKEW] = self.skew
        out[BOOST] = SUPERPOSITION_BOOST if self.boost is None else self.boost
        out[SINKS] = SINK_CODES[rules.sinks]
        out[SPACING] = SPACING_CODES[rules.spacing]
        out[LATTICE] = self.lattice
        out[LASTSHIP] = self.lastship
        return out

    def changed(self) -> dict[str, object]:
        """The options that differ from the defaults."""
        default = Options()
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        }


def parse_spec(spec: str, base: Options | None = None) -> tuple[str, Options]:
    """``"density:tie=random,skew=20"`` -> ``("density", Options(tie="random", skew=20))``.

    A key given twice, a value that is not a whole number where one is read, and a value out of its
    range (:data:`RANGES`) are refused, naming the spec.
    """
    name, _, rest = spec.partition(":")
    name = name.strip()
    if not name:
        raise BattleshipError(f"shooter {spec!r}: no name before the options")
    values: dict[str, object] = {}
    fields = {f.name: f.type for f in dataclasses.fields(Options)}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if key not in fields or not eq:
            raise BattleshipError(
                f"shooter {spec!r}: {item!r} is not key=value with a key among {', '.join(fields)}"
            )
        if key in values:
            raise BattleshipError(f"shooter {spec!r}: {key} is given twice")
        if key in ("tie", "model", "prior", "early"):
            values[key] = value.strip()
        else:
            try:
                values[key] = int(value)
            except ValueError:
                raise BattleshipError(
                    f"shooter {spec!r}: {key} must be an integer, not {value.strip()!r}"
                ) from None
    try:
        return name, dataclasses.replace(base or Options(), **values)
    except BattleshipError as exc:
        raise BattleshipError(f"shooter {spec!r}: {exc}") from None


def format_spec(name: str, options: Options) -> str:
    """The inverse of :func:`parse_spec` (defaults left out)."""
    changed = options.changed()
    return name + (":" + ",".join(f"{k}={v}" for k, v in changed.items()) if changed else "")
