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
The kernels come compiled with the package (``battleship.jit``); a call they do not cover
compiles what it needs first and says so on stderr, with progress. A :func:`posterior` expected to
take more than a couple of seconds says so first, as a :class:`SlowWarning`.
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
    """Said before an answer expected to take long starts (how long, and what is quicker).

    Examples
    --------
    >>> import warnings, battleship as bs
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("error", bs.SlowWarning)  # or "ignore": a warning, not an error
    ...     bs.posterior(bs.Observation(bs.preset("square-6"))).layouts
    6687136
    """


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
    """Play one game to the end on ``layout`` (``battleship play``).

    Parameters
    ----------
    layout : Layout
        The hidden layout (:func:`generate` draws one).
    shooter : Shooter or str
        A shooter object, or a spec like ``"density:skew=20"``, resolved for the layout's rules; the
        record names the shooter by it, as the commands do (``best`` on standard rules is recorded
        as what it plays). ``play(shooter, layout)``, the older order, still works and warns.
    seed : int
        Seeds the shooter's random choices (game 0 of the seed, as the lab plays it).
    on_shot : callable, optional
        Called after every turn with the observation and the answer (a Shot, or a Volley).

    Returns
    -------
    Record
        The layout, the shooter's name and every shot.

    Examples
    --------
    >>> import battleship as bs
    >>> record = bs.play(bs.generate("standard", seed=7), "density:skew=20", seed=1)
    >>> record.shooter, record.turns
    ('density:skew=20', 55)
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
    """Many games of one shooter, summarised (``battleship simulate``), in the lab's Numba kernels.

    Parameters
    ----------
    rules : Rules or str
        The rules, or a preset name.
    shooter : str
        A spec: ``"density:skew=20"``, ``"best"``, ``"path/to/file.py:Class"``.
    games : int
        How many games.
    seed : int
        Draws the layouts and the shooter's random choices: the same seed, the same games.
    generator : str
        How layouts are drawn (``uniform``: every valid layout equally likely).
    jobs : int
        Threads (the result does not depend on it).
    layouts : list of Layout, optional
        Play on these instead (``games`` of them).

    Returns
    -------
    Summary
        Shots per game: mean with its 95% interval, spread, quantiles.

    Examples
    --------
    >>> import battleship as bs
    >>> summary = bs.simulate("standard", "density", games=100, seed=1)
    >>> summary
    <Summary of 100 games: mean 44.92 shots (95% 43.08..46.76), sd 9.28, median 44, 25..67>
    """
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
    """Every shooter on the same games: summaries and paired differences from the first
    (``battleship compare``).

    Parameters
    ----------
    rules : Rules or str
        The rules, or a preset name.
    shooters : list of str
        The specs; the first is the one the others are compared with.
    games, seed, generator, jobs, layouts
        As for :func:`simulate`: every shooter plays the very same layouts.

    Returns
    -------
    Comparison
        Each shooter's summary and its mean paired difference from the first, with its interval.

    Examples
    --------
    >>> import battleship as bs
    >>> paired = bs.compare("standard", ["density", "density:skew=20"], games=100, seed=1)
    >>> paired
    <Comparison on standard, 100 games (seed 1): density 44.92, density:skew=20 44.34 (-0.58)>
    """
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
    """The Dunman High paper's two-player game: each side hides a fleet and fires at the other's
    (``battleship match``).

    Parameters
    ----------
    rules : Rules or str
        The rules, or a preset name.
    a, b : str
        The two shooters' specs.
    games, seed, generator, jobs
        As for :func:`simulate`.
    first : str
        Who moves first: ``"alternate"`` (game by game), ``"a"`` or ``"b"``.
    turns : str
        ``"alternate"`` or ``"simultaneous"`` (BattleSalvo's rule: both fire at once, and both
        fleets sinking in the same turn is a tie). Under salvo rules each side's salvo is what its
        own fleet gives it (``shots = "afloat"``: one shot per ship still afloat), counted in turns.

    Returns
    -------
    MatchResult
        Win rates with Wilson intervals, first-mover advantage, moves.

    Examples
    --------
    >>> import battleship as bs
    >>> result = bs.match("square-8", "density", "random", games=20, seed=1)
    >>> result.a_wins + result.b_wins + result.ties, result.a_win_rate > 0.5
    (20, True)
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
    """How many layouts fit: ships of the same shape told apart (distinct) and not (identical).

    Attributes
    ----------
    distinct : int
        Layouts with every ship told apart.
    identical : int
        Layouts with ships of the same shape taken as one (what a player sees).
    engine : str
        The exact engine that counted them.

    Examples
    --------
    >>> import battleship as bs
    >>> bs.count("square-6")
    LayoutCount(distinct=6687136, identical=3343568, engine='search')
    """

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
        return (
            f"{call} takes an Observation, not a Game: {call}(game.observation) (what the shooter has seen)"
        )
    if isinstance(what, Record):
        return f"{call} takes an Observation, not a Record: {call}(record.observation) (the board at its end)"
    if isinstance(what, Layout):
        return (
            f"{call} takes an Observation, not a Layout (the hidden answer): {call}(game.observation) "
            f"for a game on it, game = bs.Game(layout); {call}(layout.rules) for the open board"
        )
    return f"{call} takes an Observation (game.observation), rules or a preset name, not {kind}"


def count(board: Rules | str | Observation, observation: Observation | None = None) -> LayoutCount:
    """The number of layouts of the rules, or consistent with a board, counted exactly
    (``battleship count``).

    Parameters
    ----------
    board : Observation, Rules or str
        A board (``game.observation``), or rules or a preset name for the open board.
        ``count(rules, observation)``, the older form, still works and warns.

    Returns
    -------
    LayoutCount
        The counts, and the engine that made them.

    Raises
    ------
    BattleshipError
        A Game, Layout or Record instead of a board (saying to pass ``game.observation``).

    Examples
    --------
    >>> import battleship as bs
    >>> bs.count("square-6").distinct
    6687136
    >>> game = bs.Game(bs.generate("square-6", seed=1))
    >>> _ = game.fire("C3")
    >>> bs.count(game.observation).distinct
    3365816
    """
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
    """Where the ships are, given what was seen: every consistent layout counted (``battleship calc``).

    Parameters
    ----------
    board : Observation, Rules or str
        What the shooter has seen: ``game.observation`` for a game under way (a Game, Layout or
        Record is refused, naming it), or rules or a preset name for the open board.
        ``posterior(rules, observation)``, the older form, still works and warns.
    observation : Observation, optional
        Only in the older form.
    prior : numpy.ndarray, optional
        A weight per placement, in the order of :func:`battleship.tables.tables` (uniform over
        layouts by default; see :func:`battleship.inference.posterior`).
    stop : Stop, optional
        Interrupts the count: :class:`~battleship.stop.Stopped`, or
        :class:`~battleship.stop.OutOfTime` past its deadline.

    Returns
    -------
    Posterior
        How many layouts fit, and each cell's probability of a ship.

    Warns
    -----
    SlowWarning
        Said first when the count is expected to take more than a couple of seconds (Monte Carlo
        on exact samples, ``battleship calc --time``, answers within a time instead).

    Examples
    --------
    >>> import battleship as bs
    >>> game = bs.Game(bs.generate("standard", seed=7))
    >>> game.fire("E5")
    E5 miss
    >>> result = bs.posterior(game.observation)
    >>> result
    <Posterior standard 10x10, 1 shot: 23,665,921,496 layouts; best F6 23.0%>
    >>> result.best(), round(result["F6"], 3)
    ([F6], 0.23)
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

    Parameters
    ----------
    rules : Rules or str
        Rules with a few thousand layouts at most.
    shooters : list of str, optional
        The shooters measured against the optimum (default: optimal, density, trial-sink, rollout, best).
    seed : int
        Seeds the shooters' random choices.
    budget : int, optional
        The most states the solver may solve before it gives up.

    Returns
    -------
    Limit
        The fewest expected shots any strategy averages, and each shooter's mean and gap to it.

    Examples
    --------
    >>> import battleship as bs
    >>> tiny = bs.Rules(3, 3, (bs.Ship.line("Destroyer", "D", 2),), name="tiny")
    >>> result = bs.limit(tiny, ["random", "density"])
    >>> result.optimum.layouts, round(result.optimum.shots, 3), sorted(result.means)
    (12, 4.5, ['density', 'random'])
    """
    seed = check_seed(seed)
    from battleship.lab.limit import DEFAULT_SHOOTERS, DEFAULT_STATES
    from battleship.lab.limit import limit as solve

    with notice():
        return solve(_rules(rules), shooters or DEFAULT_SHOOTERS, seed=seed, budget=budget or DEFAULT_STATES)


def generate(rules: Rules | str, generator: str = "uniform", seed: int = 0) -> Layout:
    """One seeded layout (``battleship layout``).

    Parameters
    ----------
    rules : Rules or str
        The rules, or a preset name.
    generator : str
        How it is drawn: ``uniform`` (every valid layout equally likely), ``sequential``,
        ``r-blog``, ``contest``, ``edge``, ``clustered`` or ``spread``.
    seed : int
        The same seed gives the same layout.

    Returns
    -------
    Layout
        The layout.

    Examples
    --------
    >>> import battleship as bs
    >>> print(bs.generate("standard", seed=7).text())
    PP......../........../.......D../.......D../.......D../.........S/.........S/.........S/....CCCCC./BBBB......
    """
    seed = check_seed(seed)
    with notice():
        return generators.generate(_rules(rules), generator, seed, 1)[0]


def shooter_names() -> list[str]:
    """Every registered shooter's name (``battleship shooters`` says what each does).

    Returns
    -------
    list of str
        The names, in the order they were registered.

    Examples
    --------
    >>> import battleship as bs
    >>> bs.shooter_names()[:4]
    ['random', 'hunt-target', 'hunt-target-parity', 'density']
    """
    return names()


@dataclass(frozen=True)
class ShooterReport:
    """What :func:`check_shooter` checked: for each rule set, ``"passed"`` or why the shooter refuses it.

    Attributes
    ----------
    shooter : str
        The shooter's name.
    kernel : str or None
        ``"exactly"`` when its kernel played the class's very games, shot for shot; None without one.
    games : int
        Games played per rule set (twice each, to check the same seed gives the same game).
    rules : dict of str to str
        By rule set's name, ``"passed"`` or ``"refuses: ..."``.

    Examples
    --------
    >>> import battleship as bs
    >>> bs.check_shooter("hunt-target", games=2).passed
    ['standard', 'pirates']
    """

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

    Parameters
    ----------
    name : str or ShooterSpec
        A registered shooter's name, or a spec (a class named outright: ``file.py:Class``).
    rules : list of Rules, optional
        The rule sets (default: standard and pirates).
    options : Options, optional
        The options to check it with.
    games : int
        Games per rule set.
    seed : int
        Seeds the games.

    Returns
    -------
    ShooterReport
        What was checked.

    Raises
    ------
    ShooterCheckError
        The first fault (:func:`battleship.shooters.check.check_shooter` says what is checked).

    Examples
    --------
    >>> import battleship as bs
    >>> bs.check_shooter("random", games=1)
    ShooterReport(shooter='random', kernel='exactly', games=1, rules={'standard': 'passed', 'pirates': 'passed'})
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
