"""The front door's conveniences: one call for each thing the commands do, returning values.

These wrap the layers below with the forgiving arguments a newcomer reaches for: a shooter by its
spec text (``"density:skew=20"``, ``"best"``, ``"path/to/file.py:Class"``), rules by preset name,
a seed instead of a generator object, a cell as ``"E5"``, ``(4, 4)`` or ``44``. What they return
is what the command of the same name prints:

- :func:`play` -> :class:`~battleship.game.Record` (``battleship play``)
- :func:`simulate` -> :class:`~battleship.lab.Summary` (``battleship simulate``)
- :func:`compare` -> :class:`~battleship.lab.Comparison` (``battleship compare``)
- :func:`match` -> :class:`~battleship.lab.match.MatchResult` (``battleship match``)
- :func:`count` -> :class:`LayoutCount` (``battleship count``)
- :func:`posterior` -> :class:`~battleship.inference.Posterior` (``battleship calc``)
- :func:`limit` -> :class:`~battleship.lab.limit.Limit` (``battleship limit``)
- :func:`generate` -> :class:`~battleship.layout.Layout` (``battleship layout``)
- :func:`check_shooter` -> :class:`ShooterReport` (what was checked; raises on the first fault)

**One argument order.** First comes what the call is about: the board. That is the rules (a
preset name or :class:`~battleship.rules.Rules`) for a run of many games or a count, a
:class:`~battleship.layout.Layout` for one game, an :class:`~battleship.game.Observation` for one
position (it knows its rules: nothing takes both). Then who plays: one shooter or several, as
specs. Then the rest (games, seed, generator, jobs), best given by keyword. So
``posterior(observation)``, ``count(rules)`` or ``count(observation)``, ``play(layout, shooter)``,
``simulate(rules, shooter)``, ``compare(rules, shooters)``, ``match(rules, a, b)``,
``limit(rules, shooters)``, ``generate(rules)``; :func:`check_shooter`, about a shooter, takes it
first. The older forms ``posterior(rules, observation)``, ``count(rules, observation)`` and
``play(shooter, layout)`` still work and warn (:class:`DeprecationWarning`).

Every shooter is named as the commands name it: its resolved spec (``best`` becomes what it plays).
The kernels come compiled with the package (:mod:`battleship.jit`); a call they do not cover
compiles what it needs first and says so on stderr, with progress (:func:`battleship.jit.notice`). A :func:`posterior` expected to take more than a couple of seconds says so first, as a
:class:`SlowWarning`.
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from battleship import generators, lab
from battleship.errors import BattleshipError
from battleship.game import Game, Observation, Record, Shooter, Shot, Volley
from battleship.game import play as play_game
from battleship.jit import notice
from battleship.layout import Layout
from battleship.rng import check_seed, game_rng
from battleship.rules import Rules, load
from battleship.shooters import names, registry
from battleship.shooters.options import Options, format_spec

if TYPE_CHECKING:
    import numpy as np

    from battleship.inference.posterior import Posterior
    from battleship.lab.limit import Limit
    from battleship.lab.match import MatchResult
    from battleship.stop import Stop


class SlowWarning(UserWarning):
    """Said before an answer expected to take long starts (how long, and what is quicker)."""


def _deprecated(old: str, new: str, depth: int = 1) -> None:
    """Warn that a form is deprecated, pointing at the caller ``depth`` calls above the public function."""
    warnings.warn(f"{old} is deprecated: {new}", DeprecationWarning, stacklevel=2 + depth)


def _rules(rules: Rules | str) -> Rules:
    return load(rules) if isinstance(rules, str) else rules


def _resolved(shooter: str, rules: Rules) -> tuple[str, Options]:
    """A spec checked against the rules, ``best`` resolved."""
    return registry.check(shooter, rules)


def play(
    layout: Layout,
    shooter: Shooter | str,
    seed: int = 0,
    on_shot: Callable[[Observation, Shot | Volley], None] | None = None,
) -> Record:
    """Play one game to the end on ``layout``: ``shooter`` is a Shooter, or a spec like ``"density:skew=20"``.

    A spec is resolved for the layout's rules, and the record names the shooter by it, as the commands
    do (``best`` on standard rules is recorded as ``density:skew=20``). ``play(shooter, layout)``,
    the older order, still works and warns.
    """
    seed = check_seed(seed)
    if isinstance(shooter, Layout) and not isinstance(layout, Layout):
        _deprecated("play(shooter, layout)", "the layout comes first: play(layout, shooter)")
        layout, shooter = shooter, layout
    if not isinstance(layout, Layout):
        raise BattleshipError(
            f"play takes a Layout to play on, not {type(layout).__name__}: bs.generate(rules, seed=7) draws one"
        )
    with notice():
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
    seed = check_seed(seed)
    r = _rules(rules)
    name, options = _resolved(shooter, r)
    rows = None if layouts is None else generators.to_indices(r, layouts)
    with notice():
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
    seed = check_seed(seed)
    r = _rules(rules)
    specs = [_resolved(text, r) for text in shooters]
    rows = None if layouts is None else generators.to_indices(r, layouts)
    with notice():
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
    turns: str = "alternate",
) -> MatchResult:
    """The Dunman High paper's two-player game: win rates with Wilson intervals, first-mover advantage, moves.

    ``turns``: ``"alternate"`` or ``"simultaneous"`` (BattleSalvo's rule: both fire at once, and
    both fleets sinking in the same turn is a tie). Under salvo rules each side's salvo is what its
    own fleet gives it (``shots = "afloat"``: one shot per ship still afloat), counted in turns.
    Returns a :class:`battleship.lab.match.MatchResult`.
    """
    seed = check_seed(seed)
    from battleship.lab.match import Side, play_match

    r = _rules(rules)
    sides = []
    for text in (a, b):
        name, options = _resolved(text, r)
        sides.append(Side(name, options, generator, format_spec(name, options)))
    if sides[0].label == sides[1].label:
        sides[1] = dataclasses.replace(sides[1], label=sides[1].label + " (B)")
    with notice():
        return play_match(r, sides[0], sides[1], games, seed=seed, jobs=jobs, first=first, turns=turns)


@dataclass(frozen=True)
class LayoutCount:
    """How many layouts fit: ships of the same shape told apart (distinct) and not (identical)."""

    distinct: int
    identical: int
    engine: str


def _board(what: Rules | str | Observation, observation: Observation | None, call: str) -> Observation:
    """The one board a call is about: an observation, or the rules' open board; the older
    ``call(rules, observation)`` form warns, and refuses an observation of other rules."""
    if isinstance(what, Observation):
        if observation is not None:
            raise BattleshipError(f"{call} takes one observation (it knows its rules), not two")
        return what
    if not isinstance(what, Rules | str):
        raise BattleshipError(_not_a_board(what, call))
    r = _rules(what)
    if observation is None:
        return Observation(r)
    if not isinstance(observation, Observation):
        raise BattleshipError(f"{call}: the board is an Observation, not {type(observation).__name__}")
    _deprecated(f"{call}(rules, observation)", f"the observation knows its rules: {call}(observation)", 2)
    if observation.rules != r:
        raise BattleshipError(
            f"{call}: the observation is of rules {observation.rules.name!r}, not {r.name!r}: "
            f"call {call}(observation)"
        )
    return observation


def _not_a_board(what: object, call: str) -> str:
    """Why ``call`` refuses ``what``, naming the board it takes instead."""
    kind = type(what).__name__
    if isinstance(what, Game):
        return f"{call} takes an Observation, not a Game: {call}(game.observation) (what the shooter has seen)"
    if isinstance(what, Record):
        return f"{call} takes an Observation, not a Record: {call}(record.observation) (the board at its end)"
    if isinstance(what, Layout):
        return (
            f"{call} takes an Observation, not a Layout (the hidden answer): {call}(game.observation) "
            f"for a game on it, game = bs.Game(layout); {call}(layout.rules) for the open board"
        )
    return f"{call} takes an Observation (game.observation), rules or a preset name, not {kind}"


def count(board: Rules | str | Observation, observation: Observation | None = None) -> LayoutCount:
    """The number of layouts of the rules (``count(rules)``) or consistent with a board (``count(observation)``), exactly."""
    from battleship import inference

    seen = _board(board, observation, "count")
    with notice():
        distinct, engine = inference.count(seen.rules, seen)
    return LayoutCount(distinct, distinct // inference.identical_factor(seen.rules), engine)


def posterior(
    board: Observation | Rules | str,
    observation: Observation | None = None,
    *,
    prior: np.ndarray | None = None,
    stop: Stop | None = None,
) -> Posterior:
    """The exact posterior given what was seen: ``posterior(observation)``; ``posterior(rules)``: the open board.

    Every consistent layout counted (``battleship calc``); ``prior``: a weight per placement (see
    :func:`battleship.inference.posterior.posterior`); ``stop``: a :class:`battleship.stop.Stop` to
    interrupt it. Said first, as a :class:`SlowWarning`, when it is expected to take more than
    :data:`battleship.inference.cost.SAY_ABOVE` seconds (Monte Carlo on exact samples,
    :func:`battleship.inference.sampling.monte_carlo`, answers within a time instead).
    """
    from battleship.inference.cost import SAY_ABOVE, duration, exact_seconds
    from battleship.inference.posterior import posterior as exact

    seen = _board(board, observation, "posterior")
    with notice():
        expected = exact_seconds(seen.rules, seen)
        if expected > SAY_ABOVE:
            warnings.warn(
                f"counting every layout of this {seen.rules.name} board is expected to take about "
                f"{duration(expected)}; battleship.inference.sampling.monte_carlo(rules, observation, "
                "seconds=10) estimates it from exact samples within ten seconds",
                SlowWarning,
                stacklevel=2,
            )
        return exact(seen, prior=prior, stop=stop)


def limit(
    rules: Rules | str, shooters: list[str] | None = None, seed: int = 0, budget: int | None = None
) -> Limit:
    """The exact optimum of a small board and each shooter's mean over every layout (``battleship limit``).

    Returns a :class:`battleship.lab.limit.Limit`.
    """
    seed = check_seed(seed)
    from battleship.lab.limit import DEFAULT_SHOOTERS, DEFAULT_STATES
    from battleship.lab.limit import limit as solve

    with notice():
        return solve(_rules(rules), shooters or DEFAULT_SHOOTERS, seed=seed, budget=budget or DEFAULT_STATES)


def generate(rules: Rules | str, generator: str = "uniform", seed: int = 0) -> Layout:
    """One seeded layout (``uniform``: every valid layout equally likely)."""
    seed = check_seed(seed)
    with notice():
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
    seed = check_seed(seed)
    from battleship.rules import preset
    from battleship.shooters.check import check_shooter as run_checks

    s = registry.spec(name) if isinstance(name, str) else name
    outcomes = {}
    for r in rules or [preset("standard"), preset("pirates")]:
        with notice():
            run_checks(s, [r], options, games, seed)
        why = s.refusal(r)
        outcomes[r.name] = "passed" if why is None else f"refuses: {why}"
    return ShooterReport(s.name, "exactly" if s.kernel is not None else None, games, outcomes)
