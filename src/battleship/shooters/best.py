"""``best``: the strongest measured shooter for the rules, from the record in docs/research/rules.md.

``make("best")`` builds a :class:`BestShooter`, which picks its shooter when it learns the rules;
the lab and the command line resolve ``best`` to that shooter up front
(:func:`battleship.shooters.registry.resolve`), so their output names what really played.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from battleship.game import Observation, Shooter
from battleship.rules import Rules, Sinks, Spacing
from battleship.shooters.options import Named, Options, format_spec

# exact greedy play, with greedy's exact rest of game once at most 5,000 layouts remain
REST_OF_GAME = "twoply:endgame=5000,plies=1"
# on small problems, the rest of game played on by itself once at most 500 layouts remain (a second
# step of policy improvement: a shot over 1,000 layouts can take half a second)
SMALL_LOOKAHEAD = "twoply:endgame=5000,plies=1,second=500"
# the strongest measured shooter per preset (docs/research/rules.md has the measurements)
BEST = {
    "standard": "density:skew=20,lattice=1,lastship=8",
    "datagenetics": "density:skew=20,lattice=1,lastship=8",
    "pirates": REST_OF_GAME,
}
# density with the skew alone: ahead of the skew's lattice on 7x7 and 8x8 boards, level on 6x6 and 9x9
DENSITY_SKEWED = "density:skew=20"
DENSITY_LATTICE = "density:skew=20,lattice=1"  # microseconds a game: best:fast=1 where the look-ahead plays
LATTICE_CELLS = 100  # boards from this many cells on: the lattice measured ahead (10x10 to 15x15)
LOOKAHEAD_CELLS = 100  # the last-ship look-ahead measured on 10x10 boards; its cost grows with the board
# under a margin, where exact play costs too much or ``fast`` asks for a kernel
MARGIN_KERNEL = "trial-sink:skew=20"
# salvo rules (several shots a turn, or a turn answered whole): the set-aware shooter, measured ahead
# of top-K density on the `salvo` preset (benchmarks/salvo_shooters.py); density with ``fast=1``
SALVO = "salvo"
SALVO_FAST = "density"
# presets whose exact play is measured at scale: a graph no larger than one of theirs is affordable
MEASURED_GRAPHS = ("seabattle", "pirates")
SMALL = 10**6  # placement combinations up to which exact inference costs next to nothing a shot
# boards on which minimax plays the game against a cheating hider solved exactly: the noisy study's seven
# boards (at most 20 cells, 448 layouts) solve in seconds (benchmarks/noise.py --only values); 5x5 with
# ships 3 and 2 (956 layouts) passes the search's budget of states
CHEAT_EXACT = 500
CHEAT_EXACT_CELLS = 20


def best_for(rules: Rules, options: Options | None = None) -> str:
    """The strongest measured shooter for what the rules are (never for what they are called), and
    for the layouts the options say to expect (``prior=GENERATOR``).

    - salvo rules (a ``[salvo]`` table) of several shots a turn: the set-aware shooter ``salvo``, which
      chooses each salvo by its worth over two turns on exact samples, 0.72 turns ahead of density's
      five likeliest cells and 0.29 ahead of density with the skew over 400 paired `salvo` games, and
      about 4 turns ahead of density over 100 paired `salvo-count` games, where density reads only
      what is certain cell by cell, and level with exact greedy play's K likeliest cells there over
      20 paired games at a thirtieth of its time (benchmarks/salvo_shooters.py); density's K likeliest cells with ``fast=1`` (no kernel plays
      salvo games; density is microseconds a salvo);
    - one shot a turn answered whole (`hits-named`): density with the skew where sinkings are named on
      ships that may touch (the set-aware shooter, a two-step look-ahead there, was 7.8 shots behind
      it over 20 paired `hits-named` games), else exact greedy play;

    - small problems (at most ``SMALL`` combinations of placements, the 3x3 to 5x5 and 4x6 boards
      of the limit study): exact greedy play with greedy's exact rest of game once at most 5,000
      layouts remain, played on by itself once at most 500 remain (``SMALL_LOOKAHEAD``); never
      worse than exact greedy play (policy improvement, twice), and far closer to the optimum on
      the limit table, where exact greedy play gives up to 0.27 shots and density and trial-sink up
      to 1.9 (``battleship limit``, docs/research/limit.md); exact greedy play itself with ``fast=1``
      or a ``prior``, which the rest of game does not read;
    - ships that are not straight: exact greedy play (``optimal``), which reads any shape and every
      answer; measured ahead of density on 8x8 with a T-shaped ship;
    - a spacing margin with a one-cell ship (Sea Battle's boats): exact greedy play, 2.0 shots ahead
      of trial-sink over 2,000 paired Sea Battle games, where its state graph is no larger than a
      measured preset's (:func:`exact_is_quick`); trial-sink otherwise;
    - any other spacing margin, layouts expected from a generator (``prior``): exact greedy play under
      that generator's placement weights, 0.18 shots ahead of trial-sink under the same prior over
      10,000 paired contest layouts of `pirates` (where :func:`exact_is_quick` says it is affordable);
    - any other spacing margin without sinking announcements (the C# Pirates contest's rules), where
      exact play is quick: exact greedy play with greedy's exact rest of game once at most 5,000
      layouts remain (``twoply:endgame=5000,plies=1``), ahead of exact greedy play over 5,000 paired
      `pirates` games of each generator (docs/research/rules.md);
    - any other spacing margin: trial-sink with C. Liam Brown's skew, which reads a finished ship off
      a run of hits and every sinking announced: level with exact greedy play over 10,000 paired
      uniform `pirates` games, 0.42 shots ahead of it over 2,000 sequentially drawn ones, and far
      cheaper (a kernel, microseconds a shot);
    - sinkings named or shown: density with a skew (DataGenetics' rules); on boards of 100 cells or
      more whose smallest ship has two cells, the skew's lattice follows the smallest afloat ship
      (``lattice=1``), 0.012 and 0.017 shots ahead over a million paired standard games of each
      generator and ahead on 11x11 to 15x15 boards; the plain skew on smaller boards, where the
      lattice was level or behind; on 10x10 boards, with density's exact look-ahead for the last
      ship (``lastship=8``; not with ``fast=1``, which keeps a game to microseconds), and on the
      standard rules themselves with the shipped opening book (``book=1``: 0.039 and 0.028 shots ahead
      of the lattice alone over 200,000 paired games of each generator; on top of the look-ahead, level
      over the 2,000 paired games of each that could be afforded: the two act on different positions,
      the book before any ship is sunk, the look-ahead once one ship is left);
    - ships that may touch, anonymous or no sink announcements: exact greedy play, because the
      density count cannot use an anonymous sinking.

    ``fast=1`` (lab runs): the strongest measured shooter that runs as a Numba kernel where the
    strongest does not (trial-sink under a margin); exact greedy play where no kernel reads the rules.
    """
    fast = options is not None and bool(options.fast)
    if rules.hider is not None or rules.noise is not None:
        return _twisted(rules, fast)
    if rules.salvo is not None:
        if fast:
            return SALVO_FAST
        if rules.salvo.shots == 1:  # one shot a turn, answered whole (hits-named)
            named = rules.sinks in (Sinks.NAMED, Sinks.REVEALED)
            return DENSITY_SKEWED if rules.spacing is Spacing.TOUCH and named else "optimal"
        return SALVO
    if not all(s.is_straight for s in rules.fleet):
        return "optimal"
    if math.prod(len(p) for p in rules.placements) <= SMALL:
        return "optimal" if fast or (options is not None and options.prior) else SMALL_LOOKAHEAD
    if rules.spacing is not Spacing.TOUCH:
        if min(ship.size for ship in rules.fleet) > 1:
            if fast or not exact_is_quick(rules):
                return MARGIN_KERNEL
            if options is not None and options.prior:
                return "optimal"  # twoply's endgame reads no prior
            return BEST["pirates"] if rules.sinks is Sinks.NONE else MARGIN_KERNEL
        # a skew toward one colour only delays one-cell ships, which left trial-sink behind exact play
        return "optimal" if not fast and exact_is_quick(rules) else "trial-sink"
    if rules.sinks in (Sinks.NAMED, Sinks.REVEALED):
        if rules.cells < LATTICE_CELLS or min(ship.size for ship in rules.fleet) != 2:
            return DENSITY_SKEWED
        if rules.cells > LOOKAHEAD_CELLS or fast:
            return DENSITY_LATTICE
        return with_book(rules, BEST["standard"], options)
    return "optimal"


def _twisted(rules: Rules, fast: bool) -> str:
    """What ``best`` plays against a cheating hider or answers that lie (docs/research/noise.md):

    - a cheating hider (``[hider]`` rules): on boards of at most ``CHEAT_EXACT_CELLS`` cells and
      ``CHEAT_EXACT`` placement combinations ``minimax`` playing the game solved exactly (the best
      worst case against any hider; the noisy study's seven boards solve in seconds); elsewhere
      density's skewed count, ahead of ``minimax`` (the cell whose worst answer leaves fewest
      layouts) by 1.09 shots and of exact greedy play by 0.55 against the greedy cheating hider of
      the ``cheat`` preset (100 paired games, benchmarks/noise.py --only cheat);
    - answers that lie (``[noise]`` rules): exact greedy play (``optimal``), the posterior weighing every
      layout by the likelihood of the answers, wherever exact inference is quick (ships that may touch,
      counted by the row engine; small problems; margins no larger than a measured preset's); density's
      likelihood count (``density:skew=20``) elsewhere and with ``fast=1``.
    """
    if rules.hider is not None:
        if rules.salvo is not None:
            return "optimal"
        small = (
            rules.cells <= CHEAT_EXACT_CELLS and math.prod(len(p) for p in rules.placements) <= CHEAT_EXACT
        )
        return f"minimax:exact={CHEAT_EXACT}" if small else DENSITY_SKEWED
    if fast:
        return DENSITY_SKEWED
    from battleship.inference import counted_by_rows

    small = math.prod(len(p) for p in rules.placements) <= SMALL
    straight = all(s.is_straight for s in rules.fleet)
    if counted_by_rows(rules.honest()) or small or (straight and exact_is_quick(rules.honest())):
        return "optimal"
    return DENSITY_SKEWED


def with_book(rules: Rules, spec: str, options: Options | None) -> str:
    """``spec`` playing the shipped opening book where one was built for these rules and for the
    shooter that will play (``spec`` with the options given to ``best`` on top: ``best:skew=0`` is
    another shooter, which no book serves), else ``spec`` itself (docs/research/book.md)."""
    from battleship.shooters.book import has_book
    from battleship.shooters.options import split_spec
    from battleship.shooters.registry import CHOOSER_KEYS
    from battleship.shooters.registry import spec as registered

    name, written = split_spec(spec)
    given = {k: v for k, v in (options.named() if options else {}).items() if k not in CHOOSER_KEYS}
    played = registered(name).build(given, registered(name).build(written))
    without = format_spec(name, dataclasses.replace(played, book=0, given=played.given_keys - {"book"}))
    return f"{spec},book=1" if has_book(rules, without) else spec


def exact_is_quick(rules: Rules) -> bool:
    """True when exact play's state graph under ``rules`` is surely no larger than that of a preset
    whose cost is measured (Sea Battle: 22.9 million states, about 3 s a game; `pirates`: 5.5 million,
    half a second): decided from the rules alone, in microseconds, so that naming what ``best`` plays
    never compiles or estimates anything."""
    from battleship.inference.state_graphs import no_larger
    from battleship.rules import preset

    return any(no_larger(rules, preset(name)) for name in MEASURED_GRAPHS)


class BestShooter(Named):
    """Plays as the strongest measured shooter for the rules it is reset with (options on top)."""

    name = "best"
    plays_noise = True  # what it plays under noise does

    def __init__(self, options: Options | None = None):
        self.options = options or Options()
        self._inner: Shooter | None = None

    def __repr__(self) -> str:
        # reset, it is named by what it plays (as its record is); before, as it was asked for
        return f"<Shooter {self.name}>" if self._inner is not None else super().__repr__()

    def reset(self, rules: Rules, rng: np.random.Generator) -> None:
        """Choose the shooter for ``rules`` and reset it."""
        from battleship.shooters.registry import checked, spec

        name, options = checked(format_spec("best", self.options), rules)
        self._inner = spec(name).make(options)
        self.name = format_spec(name, options)  # what plays, named as everywhere else
        self._inner.reset(rules, rng)

    def next_shot(self, observation: Observation) -> int:
        """The chosen shooter's next shot."""
        if self._inner is None:
            from battleship.errors import BattleshipError

            raise BattleshipError("best: call reset(rules, rng) before next_shot, as play() does")
        return self._inner.next_shot(observation)

    def next_salvo(self, observation: Observation, size: int) -> list[int]:
        """The chosen shooter's next salvo (its own choice of a whole salvo, or its next ``size`` cells)."""
        from battleship.game import choose_salvo

        if self._inner is None:
            from battleship.errors import BattleshipError

            raise BattleshipError("best: call reset(rules, rng) before next_salvo, as play() does")
        return list(choose_salvo(self._inner, observation, size))
