"""A hider who cheats (Cheat Battleship): it commits to no layout and answers to keep the game longest.

Under ``[hider] kind = "adversarial"`` rules the referee holds no layout. Each shot is answered with
one of the answers some layout consistent with every earlier answer would give (miss, hit, or the
sinking the rules announce), so the game stays an honest-looking game to the shooter, who cannot
tell it apart from an honest one by its answers:

- ``play = "greedy"``: the answer that keeps the most layouts alive (counted exactly by the engines,
  :func:`battleship.inference.posterior`, from one posterior a shot), never one that ends the game
  while another goes on; ties drawn from the hider's own seeded stream;
- ``play = "minimax"``: the answer whose game value is the largest, the value being the fewest shots
  the best shooter still needs whatever the hider answers (:mod:`battleship.inference.minimax`,
  small boards only); ties by the greedy rule.

The game ends when the cells hit make a whole fleet. The layout the hider "had" is then one of the
layouts consistent with every answer, drawn from its stream: :attr:`Hider.layout`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

import numpy as np

from battleship import generators
from battleship.cells import CellLike
from battleship.errors import BattleshipError, IllegalShot
from battleship.game import Game, Observation, Outcome, Shot, Volley, checked_targets
from battleship.inference.evidence import evidence
from battleship.inference.posterior import Posterior, posterior
from battleship.inference.search import select_by_search
from battleship.layout import Layout
from battleship.rules import Rules, Sinks
from battleship.tables import tables

HIDER_SALT = 0x41D3_C4EA_7000_0001  # the hider's ties apart from the layouts' and the shooters' streams
QUICK_DRAWS = 64  # layouts drawn at random for the one the hider shows, before it picks one exactly


class Hider:
    """The referee of a game against a cheating hider (see the module docstring): a :class:`~battleship.game.Game`
    without a layout. ``seed`` and ``game`` seed its ties (game ``i`` of a run seeded ``s``: ``Hider(rules, s, i)``)."""

    def __init__(self, rules: Rules, seed: int = 0, game: int = 0):
        if rules.hider is None:
            raise BattleshipError(f"{rules.name} has an honest hider: Game(layout) is its referee")
        self._rules = rules
        self._base = rules.honest()
        self._rng = np.random.default_rng([int(seed) & (2**64 - 1), int(game) & (2**64 - 1), HIDER_SALT])
        self._observation = Observation(rules)
        self._layout: Layout | None = None
        self._solver = None
        if rules.hider.play == "minimax":
            from battleship.inference.minimax import Minimax, every_layout

            self._solver = Minimax(self._base, every_layout(self._base))

    def __copy__(self) -> Hider:
        """A hider to fire on without touching this one: its stream copied (the solver, read only, shared)."""
        twin = Hider.__new__(Hider)
        twin.__dict__.update(self.__dict__)
        twin._rng = copy.deepcopy(self._rng)
        return twin

    def __repr__(self) -> str:
        return f"<Hider {self._rules.hider.text() if self._rules.hider else ''}: {self._observation!r}>"

    @property
    def rules(self) -> Rules:
        """The rules being played."""
        return self._rules

    @property
    def observation(self) -> Observation:
        """What the shooter knows so far (all the hider is bound by)."""
        return self._observation

    @property
    def over(self) -> bool:
        """True once the cells hit make a whole fleet."""
        return self._observation.hit_mask.bit_count() == self._rules.ship_cells

    @property
    def layout(self) -> Layout:
        """A layout consistent with every answer given: the one the hider shows once the game is over
        (drawn once from its stream), or one it could still claim while the game goes on."""
        if self._layout is not None:
            return self._layout
        base = self._base
        honest = Observation(base, self._observation.shots, self._observation.volleys)
        layout = self._drawn(honest)
        if layout is None:
            layout = self._picked(honest)
        if self.over:
            self._layout = layout
        return layout

    def _drawn(self, honest: Observation) -> Layout | None:
        """A layout drawn uniformly and kept if it answers as the hider did (rejection sampling, uniform among
        the consistent layouts too): early in a game, where most layouts are consistent and picking one
        exactly searches billions, it is found at once. None when none of :data:`QUICK_DRAWS` is."""
        if honest.volleys:
            return None  # salvos: the exact pick
        base = self._base
        seed = int(self._rng.integers(2**63))
        masks = tables(base).masks
        hits, misses = honest.hit_mask, honest.miss_mask
        for row in generators.draw(base, "uniform", seed, QUICK_DRAWS, threads=False):
            candidate = tuple(int(masks[p]) for p in row)
            occupied = 0
            for mask in candidate:
                occupied |= mask
            if occupied & misses or hits & ~occupied:
                continue
            referee = Game(Layout(base, candidate))
            if all(referee.fire(shot.cell) == shot for shot in honest.shots):
                return Layout(self._rules, candidate)
        return None

    def _picked(self, honest: Observation) -> Layout:
        """A layout consistent with every answer, picked exactly: the ``k``-th of them, ``k`` uniform."""
        base = self._base
        result = posterior(base, honest)
        pick = int(self._rng.integers(int(result.layouts)))
        if len(base.fleet) == 1:  # a one-ship fleet's layouts are its placements (the search lists fleets)
            row = np.flatnonzero(result.placement_layouts)[pick : pick + 1]
        else:
            row = select_by_search(base, evidence(base, honest), np.array([pick], dtype=np.int64))[0]
        return Layout(self._rules, tuple(tables(base).masks[p] for p in row))

    def turn_size(self, ships_afloat: int | None = None, cells_afloat: int | None = None) -> int:
        """Shots the next turn fires (as :meth:`battleship.game.Game.turn_size`)."""
        free = self._observation.unknown_mask.bit_count()
        return min(self._rules.turn_size(ships_afloat, cells_afloat), free)

    def fire(self, target: CellLike) -> Shot:
        """Answer a shot at ``target`` as the hider chooses (consistently with every earlier answer)."""
        if self._rules.salvo is not None:
            return self.fire_salvo([target]).shots[0]
        cell = self._checked([target])[0]
        shot = self._answer(cell)
        self._observation = self._observation.after(shot)
        return shot

    def fire_salvo(self, targets: Iterable[CellLike], size: int | None = None) -> Volley:
        """Answer a salvo shot by shot, each as the hider chooses (``answers = "each"`` rules)."""
        cells = self._checked(list(targets))
        if size is not None and len(cells) != size:
            raise IllegalShot(f"this turn fires {size} shot{'s' * (size != 1)}, not {len(cells)}")
        if self._rules.salvo is None and len(cells) != 1:
            raise IllegalShot(f"these rules fire one shot a turn, not {len(cells)}")
        before = self._observation
        shots: list[Shot] = []
        for cell in cells:  # each answer binds the next: the salvo is answered in the order fired
            shot = self._answer(cell, tuple(shots))
            shots.append(shot)
        volley = Volley(
            cells,
            tuple(shots),
            hits=sum(s.outcome is not Outcome.MISS for s in shots),
            sunk=tuple(s.ship for s in shots if s.ship is not None),
            sunk_count=sum(s.outcome is Outcome.SUNK for s in shots),
            revealed=tuple(s.cells for s in shots if s.cells),
        )
        if self._rules.salvo is None:
            self._observation = before.after(shots[0])
        else:
            self._observation = before.after_volley(volley)
        return volley

    def _checked(self, targets: list[CellLike]) -> tuple[int, ...]:
        """The target cells, refusing cells off the board, repeats, and shots after the game is over."""
        return checked_targets(self._rules, self._observation, self.over, targets)

    def _answer(self, cell: int, pending: tuple[Shot, ...] = ()) -> Shot:
        """The answer to a shot at ``cell`` after the shots so far (and ``pending``, the salvo's earlier ones)."""
        base = self._base
        honest = Observation(base, (*self._observation.shots, *pending))
        options = answer_counts(base, honest, cell)
        hits = honest.hit_mask.bit_count()
        ending = [a.outcome is not Outcome.MISS and hits + 1 == base.ship_cells for a, _ in options]
        if not all(ending):  # never end the game while another answer goes on
            options = [o for o, end in zip(options, ending, strict=True) if not end]
        if self._solver is not None:
            layouts, hit = self._solver.state(honest)
            worth: dict[Shot, int] = {}
            for shot, using in self._solver.answers(layouts, hit, cell):
                after = hit if shot.outcome is Outcome.MISS else hit | 1 << cell
                worth[shot] = self._solver.value(using, after)
            top = max(worth.get(a, -1) for a, _ in options)
            options = [(a, n) for a, n in options if worth.get(a, -1) == top]
        most = max(n for _, n in options)
        tied = [a for a, n in options if n == most]
        return tied[int(self._rng.integers(len(tied)))] if len(tied) > 1 else tied[0]


def answer_counts(
    rules: Rules, observation: Observation, cell: int, result: Posterior | None = None
) -> list[tuple[Shot, int | float]]:
    """Each answer a shot at ``cell`` may get, with how many layouts consistent with ``observation`` give it
    (miss, hit, then each sinking the rules tell apart), from one exact posterior (``result``, when the
    caller has it); answers no layout gives are left out."""
    result = posterior(rules, observation) if result is None else result
    t = tables(rules)
    total = result.layouts
    struck = result.cell_layouts.ravel()[cell]
    out: list[tuple[Shot, int | float]] = [(Shot(cell, Outcome.MISS), total - struck)]
    sunk: dict[object, tuple[Shot, int | float]] = {}
    if rules.sinks is not Sinks.NONE:
        hit = observation.hit_mask | 1 << cell
        for i in range(int(t.through_start[cell]), int(t.through_start[cell + 1])):
            p = int(t.through[i])
            n = result.placement_layouts[p]
            if not n or t.masks[p] & ~hit:
                continue  # no layout uses it, or the shot would not complete it
            ship = int(t.ship_of[p])
            key, shot = {
                Sinks.SUNK: ("sunk", Shot(cell, Outcome.SUNK)),
                Sinks.NAMED: (ship, Shot(cell, Outcome.SUNK, ship)),
                Sinks.REVEALED: (p, Shot(cell, Outcome.SUNK, ship, t.masks[p])),
            }[rules.sinks]
            sunk[key] = (shot, sunk.get(key, (shot, 0))[1] + n)
    plain = struck - sum(n for _, n in sunk.values())
    out.append((Shot(cell, Outcome.HIT), plain))
    out += list(sunk.values())
    return [(a, int(n) if isinstance(n, np.integer) else n) for a, n in out if n > 0]
