"""The front door's conveniences: one call for each thing the commands do, returning values.

These wrap the layers below with the forgiving arguments a newcomer reaches for: a shooter by its
spec text (``"density:skew=20"``, ``"best"``, ``"path/to/file.py:Class"``), rules by preset name,
a seed instead of a generator object. What they return is what the command of the same name prints:

- :func:`play` -> :class:`~battleship.game.Record` (``battleship play``)
- :func:`simulate` -> :class:`~battleship.lab.Summary` (``battleship simulate``)
- :func:`compare` -> :class:`~battleship.lab.Comparison` (``battleship compare``)
- :func:`match` -> :class:`~battleship.lab.match.MatchResult` (``battleship match``)
- :func:`count` -> :class:`LayoutCount` (``battleship count``)
- :func:`limit` -> :class:`~battleship.lab.limit.Limit` (``battleship limit``)
- :func:`generate` -> :class:`~battleship.layout.Layout` (``battleship layout``)
- :func:`check_shooter` -> :class:`ShooterReport` (what was checked; raises on the first fault)

Every shooter is named as the commands name it: its resolved spec (``best`` becomes what it plays).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass

from battleship import generators, lab
from battleship.game import Observation, Record, Shooter, Shot
from battleship.game import play as play_game
from battleship.layout import Layout
from battleship.rng import game_rng
from battleship.rules import Rules, load
from battleship.shooters import names, registry
from battleship.shooters.options import Options, format_spec


def _rules(rules: Rules | str) -> Rules:
    return load(rules) if isinstance(rules, str) else rules


def _resolved(shooter: str, rules: Rules) -> tuple[str, Options]:
    """A spec checked against the rules, ``best`` resolved."""
    return registry.check(shooter, rules)


def play(
    shooter: Shooter | str,
    layout: Layout,
    seed: int = 0,
    on_shot: Callable[[Observation, Shot], None] | None = None,
) -> Record:
    """Play one game to the end: ``shooter`` (a Shooter, or a spec like ``"density:skew=20"``) against ``layout``.

    A spec is resolved for the layout's rules, and the record names the shooter by it, as the commands
    do (``best`` on standard rules is recorded as ``density:skew=20``).
    """
    if not isinstance(shooter, str):
        return play_game(shooter, layout, game_rng(seed, 0), on_shot)
    name, options = _resolved(shooter, layout.rules)
    record = play_game(registry.spec(name).make(options), layout, game_rng(seed, 0), on_shot)
    return dataclasses.replace(record, shooter=format_spec(name, options))


def simulate(
    rules: Rules | str,
    shooter: str,
    games: int = 10_000,
    seed: int = 0,
    generator: str = "uniform",
    jobs: int = 1,
    layouts: list[Layout] | None = None,
) -> lab.Summary:
    """``games`` games of ``shooter`` on layouts drawn by ``generator`` (or on ``layouts``), summarised."""
    r = _rules(rules)
    name, options = _resolved(shooter, r)
    rows = None if layouts is None else generators.to_indices(r, layouts)
    start = time.perf_counter()
    shots = lab.simulate(
        r, name, games, seed=seed, generator=generator, jobs=jobs, options=options, layouts=rows
    )
    return lab.summarise(shots, r.ship_cells, time.perf_counter() - start)


def compare(
    rules: Rules | str,
    shooters: list[str],
    games: int = 10_000,
    seed: int = 0,
    generator: str = "uniform",
    jobs: int = 1,
    layouts: list[Layout] | None = None,
) -> lab.Comparison:
    """Every shooter on the same games: summaries and paired differences from the first, by name."""
    r = _rules(rules)
    specs = [_resolved(text, r) for text in shooters]
    rows = None if layouts is None else generators.to_indices(r, layouts)
    return lab.compare(r, specs, games, seed, generator, rows, jobs)


def match(
    rules: Rules | str,
    a: str,
    b: str,
    games: int = 10_000,
    seed: int = 0,
    first: str = "alternate",
    generator: str = "uniform",
    jobs: int = 1,
):
    """The Dunman High paper's two-player game: win rates with Wilson intervals, first-mover advantage, moves.

    Returns a :class:`battleship.lab.match.MatchResult`.
    """
    from battleship.lab.match import Side, play_match

    r = _rules(rules)
    sides = []
    for text in (a, b):
        name, options = _resolved(text, r)
        sides.append(Side(name, options, generator, format_spec(name, options)))
    if sides[0].label == sides[1].label:
        sides[1] = dataclasses.replace(sides[1], label=sides[1].label + " (B)")
    return play_match(r, sides[0], sides[1], games, seed=seed, jobs=jobs, first=first)


@dataclass(frozen=True)
class LayoutCount:
    """How many layouts fit: ships of the same shape told apart (distinct) and not (identical)."""

    distinct: int
    identical: int
    engine: str


def count(rules: Rules | str, board: Observation | None = None) -> LayoutCount:
    """The number of layouts of the rules (or consistent with a board), exactly."""
    from battleship import inference

    r = _rules(rules)
    distinct, engine = inference.count(r, board)
    return LayoutCount(distinct, distinct // inference.identical_factor(r), engine)


def limit(rules: Rules | str, shooters: list[str] | None = None, seed: int = 0, budget: int | None = None):
    """The exact optimum of a small board and each shooter's mean over every layout (``battleship limit``).

    Returns a :class:`battleship.lab.limit.Limit`.
    """
    from battleship.cli.limit import DEFAULT_SHOOTERS
    from battleship.lab.limit import DEFAULT_STATES
    from battleship.lab.limit import limit as solve

    return solve(_rules(rules), shooters or DEFAULT_SHOOTERS, seed=seed, budget=budget or DEFAULT_STATES)


def generate(rules: Rules | str, generator: str = "uniform", seed: int = 0) -> Layout:
    """One seeded layout (``uniform``: every valid layout equally likely)."""
    return generators.generate(_rules(rules), generator, seed, 1)[0]


def shooter_names() -> list[str]:
    """Every registered shooter's name."""
    return names()


@dataclass(frozen=True)
class ShooterReport:
    """What :func:`check_shooter` checked: for each rule set, ``"passed"`` or why the shooter refuses it."""

    shooter: str
    kernel: str | None  # "exactly": its kernel played the class's very games, shot for shot; None: no kernel
    games: int  # games played per rule set (twice each, to check the same seed gives the same game)
    rules: dict[str, str]

    @property
    def passed(self) -> list[str]:
        """The rule sets it played and passed."""
        return [name for name, outcome in self.rules.items() if outcome == "passed"]


def check_shooter(
    name: str | registry.ShooterSpec,
    rules: list[Rules] | None = None,
    options: Options | None = None,
    games: int = 5,
    seed: int = 0,
) -> ShooterReport:
    """Check a shooter keeps the protocol (and its kernel agrees with its class) on each rule set.

    Raises :class:`battleship.shooters.check.ShooterCheckError` on the first fault; otherwise returns
    what it checked. Default rules: standard and pirates. See :mod:`battleship.shooters.check`.
    """
    from battleship.rules import preset
    from battleship.shooters.check import check_shooter as run_checks

    s = registry.spec(name) if isinstance(name, str) else name
    outcomes = {}
    for r in rules or [preset("standard"), preset("pirates")]:
        run_checks(s, [r], options, games, seed)
        why = s.refusal(r)
        outcomes[r.name] = "passed" if why is None else f"refuses: {why}"
    return ShooterReport(s.name, "exactly" if s.kernel is not None else None, games, outcomes)
