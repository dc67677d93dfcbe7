"""``check_shooter``: does a shooter keep the protocol, and does its kernel play as its class does?

In the manner of Gymnasium's ``check_env``: run it on your own shooter after registering it. It
plays whole seeded games and raises :class:`ShooterCheckError` naming the first thing wrong:

- the class has ``name``, ``reset`` and ``next_shot``, and refuses the rules it cannot play only
  through ``refusal`` (a refusal that says nothing is an error);
- every shot is a legal cell (on the board, not fired at before), the game ends within the board's
  cells, and the same seed gives the very same shots; under salvo rules, every salvo is legal (its
  size, no cell twice, none fired at before or aimed at already);
- with a kernel: the kernel plays the very same games, shot for shot, random numbers included: game
  ``i`` of a run seeded ``seed`` by the kernel is the class reset with ``rng.game_rng(seed, i)``
  (checked with the options given, and with random ties too where the shooter reads ``tie``).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from battleship import generators
from battleship.errors import BattleshipError, IllegalShot
from battleship.game import Game, Shooter, choose_salvo
from battleship.rng import game_rng
from battleship.rules import Rules, preset
from battleship.shooters.options import Options, format_spec
from battleship.shooters.registry import ShooterSpec, spec


class ShooterCheckError(BattleshipError):
    """A shooter broke the protocol or disagrees with its kernel."""


def _shots(shooter: Shooter, rules: Rules, row: np.ndarray, rng: np.random.Generator, who: str) -> list[int]:
    """The cells ``shooter`` fires at in one game on layout ``row``, each checked by the referee."""
    game = Game(generators.to_layout(rules, row))
    shooter.reset(rules, rng)
    cells: list[int] = []
    while not game.over:
        if len(cells) >= rules.cells:
            raise ShooterCheckError(f"{who}: the game did not end within {rules.cells} shots")
        cell = shooter.next_shot(game.observation)
        try:
            game.fire(cell)
        except IllegalShot as exc:
            raise ShooterCheckError(f"{who}: shot {len(cells) + 1} is illegal: {exc}") from None
        cells.append(int(cell))
    return cells


def _salvos(shooter: Shooter, rules: Rules, row: np.ndarray, rng: np.random.Generator, who: str) -> list[int]:
    """Under salvo rules: every cell ``shooter`` fires in one game on layout ``row``, salvo by salvo,
    each salvo checked by the referee (its size, no cell twice, none fired at before)."""
    game = Game(generators.to_layout(rules, row))
    shooter.reset(rules, rng)
    cells: list[int] = []
    while not game.over:
        if game.observation.turns >= rules.cells:
            raise ShooterCheckError(f"{who}: the game did not end within {rules.cells} salvos")
        size = game.turn_size()
        salvo = choose_salvo(shooter, game.observation, size)
        try:
            game.fire_salvo(salvo, size)
        except IllegalShot as exc:
            raise ShooterCheckError(f"{who}: salvo {game.observation.turns + 1} is illegal: {exc}") from None
        cells.extend(int(c) for c in salvo)
    return cells


def _check_kernel(s: ShooterSpec, rules: Rules, options: Options, games: int, seed: int) -> None:
    """The kernel's shot counts against the class's, game by game, on the same streams."""
    from battleship.shooters.kernels import KINDS, play_rows

    assert s.kernel is not None  # only a shooter with a kernel is checked against one
    rows = generators.draw(rules, "uniform", seed, games)
    fast = play_rows(rules, KINDS[s.kernel], seed, rows, options)
    slow = np.array(
        [len(_shots(s.make(options), rules, row, game_rng(seed, i), s.name)) for i, row in enumerate(rows)]
    )
    differ = np.flatnonzero(fast != slow)
    if len(differ):
        i = int(differ[0])
        raise ShooterCheckError(
            f"{s.name} ({format_spec(s.name, options)}) on {rules.name}: game {i} took {slow[i]} shots "
            f"as a class and {fast[i]} as a kernel"
        )


def check_shooter(
    name: str | ShooterSpec,
    rules: list[Rules] | None = None,
    options: Options | None = None,
    games: int = 5,
    seed: int = 0,
) -> None:
    """Check a registered shooter (or a spec) on ``rules`` (default: standard and pirates); raise on the first fault."""
    s = spec(name) if isinstance(name, str) else name
    cls = s.load()
    for attr in ("name", "reset", "next_shot"):
        if not hasattr(cls, attr):
            raise ShooterCheckError(f"{s.name}: the class {cls.__name__} has no {attr!r}")
    options = options or Options()
    for r in rules or [preset("standard"), preset("pirates")]:
        why = s.refusal(r)
        if why is not None:
            if not why.strip():
                raise ShooterCheckError(f"{s.name} refuses {r.name} without saying why")
            continue
        play = _shots if r.salvo is None else _salvos
        for i, row in enumerate(generators.draw(r, "uniform", seed, games)):
            first = play(s.make(options), r, row, game_rng(seed, i), s.name)
            again = play(s.make(options), r, row, game_rng(seed, i), s.name)
            if first != again:
                raise ShooterCheckError(
                    f"{s.name} on {r.name}: the same seed gave different shots (game {i})"
                )
        if s.kernel is not None and r.salvo is None:  # the kernels play one shot a turn
            _check_kernel(s, r, options, games, seed)
            if "tie" in s.reads and options.tie != "random":
                _check_kernel(s, r, dataclasses.replace(options, tie="random"), games, seed)
