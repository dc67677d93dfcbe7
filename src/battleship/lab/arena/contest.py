"""The arena's run: every bot on the same battlefields, then (if asked) every pair head to head.

Bots play one after another, never side by side, so no bot's program shares the CPU with another's
while it is timed; each program is stopped when its turn is over.

The battlefields are the layouts ``battleship compare`` draws from the same seed and generator, and
a registered shooter draws the same random numbers, so its row equals its ``compare`` figures.

In a match each bot hides a fleet (its own answer to ``place``, else one drawn by the generator) and
fires at the other's; turns alternate, A moving first in the even games. A side's shots do not depend
on the other's, so each side's game is played alone and the two are then laid in turn order: whoever
sinks the other's fleet first wins, and a forfeit loses when it comes first (a failed ``place`` comes
before any shot, the first mover's before the second's).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import combinations

from battleship import generators
from battleship.errors import BattleshipError
from battleship.lab.arena.bots import Bot, GameResult, derive
from battleship.lab.arena.channel import Limits
from battleship.lab.arena.protocol import BotFault
from battleship.lab.arena.results import ArenaResult, Pairing, Tally, leaderboard
from battleship.layout import Layout
from battleship.rules import Rules

PLACE, SHOOT = 1, 2  # seed paths for match games


def run(
    rules: Rules,
    bots: list[Bot],
    games: int,
    seed: int = 0,
    generator: str = "uniform",
    limits: Limits | None = None,
    matches: bool = False,
    on_game: Callable[[], None] | None = None,
) -> ArenaResult:
    """Play the arena (see the module docstring); ``on_game`` hears each game played (a progress bar)."""
    limits = limits or Limits()
    _check(rules, bots, games, limits)
    begin = time.perf_counter()
    rows = generators.draw(rules, generator, seed, games)
    tallies = [Tally() for _ in bots]
    for bot, tally in zip(bots, tallies, strict=True):
        with started(bot, rules, limits):
            for g in range(games):
                tally.add(bot.play(g, generators.to_layout(rules, rows[g]), rows[g], seed))
                _tick(on_game)
    board = leaderboard(bots, tallies, rules.ship_cells, rules.cells)
    pairings = play_matches(rules, bots, games, seed, generator, limits, on_game) if matches else None
    return ArenaResult(
        rules.name, rules.as_dict(), generator, games, seed, limits.time, rules.cells, board, pairings,
        time.perf_counter() - begin,
    )  # fmt: skip


def _check(rules: Rules, bots: list[Bot], games: int, limits: Limits) -> None:
    if not bots:
        raise BattleshipError("name at least one bot")
    if games < 1:
        raise BattleshipError(f"--games must be at least 1, not {games}")
    if not limits.time > 0:
        raise BattleshipError(f"--time-limit must be above 0 seconds, not {limits.time}")
    seen: dict[str, str] = {}
    for bot in bots:
        asked = bot.asked or bot.label
        if bot.label in seen:
            same = f"{seen[bot.label]!r} and {asked!r} are" if seen[bot.label] != asked else f"{asked!r} is"
            raise BattleshipError(f"{same} the same bot on {rules.name} ({bot.label}): name each bot once")
        seen[bot.label] = asked


def _tick(on_game: Callable[[], None] | None) -> None:
    if on_game is not None:
        on_game()


@contextmanager
def started(bot: Bot, rules: Rules, limits: Limits) -> Iterator[Bot]:
    """The bot, started; its program is stopped however the block ends."""
    bot.start(rules, limits)
    try:
        yield bot
    finally:
        bot.close()


def hidden_fleets(
    rules: Rules, bot: Bot, k: int, games: int, seed: int, generator: str, limits: Limits
) -> list:
    """Bot ``k``'s fleet in each match game: a Layout, or the BotFault its answer to ``place`` was."""
    drawn = generators.draw(rules, generator, derive(seed, PLACE, k), games)
    fleets: list[Layout | BotFault] = []
    with started(bot, rules, limits):
        for g in range(games):
            try:
                fleets.append(bot.place(g, derive(seed, PLACE, k)) or generators.to_layout(rules, drawn[g]))
            except BotFault as fault:
                fleets.append(fault)
    return fleets


def _end(fleet, result: GameResult | None, first: bool) -> tuple[float, BotFault | None]:
    """When a side's game ends, as a move number, and the fault that ended it (None: it sank the fleet).

    ``fleet`` is the side's own hidden fleet (a BotFault if it failed to hide one); ``result`` its
    game against the other's fleet (None if the other failed to hide one, so it never had to fire).
    """
    if isinstance(fleet, BotFault):
        return (-1 if first else 0), fleet
    if result is None:
        return float("inf"), None
    shots = result.shots + (1 if result.fault else 0)
    return (2 * shots - 1 if first else 2 * shots), result.fault


def play_matches(
    rules: Rules, bots: list[Bot], games: int, seed: int, generator: str, limits: Limits, on_game=None
) -> list[Pairing]:
    """Every pair of bots head to head over ``games`` games (see the module docstring)."""
    fleets = [hidden_fleets(rules, b, k, games, seed, generator, limits) for k, b in enumerate(bots)]
    played: dict[tuple[int, int], list[GameResult | None]] = {}
    for a, bot in enumerate(bots):
        with started(bot, rules, limits):
            for d in range(len(bots)):
                if d != a:
                    played[a, d] = [_fire_at(rules, bot, g, fleets[d][g], derive(seed, SHOOT, a, d), on_game)
                                    for g in range(games)]  # fmt: skip
    return [_pairing(bots, fleets, played, a, b, games) for a, b in combinations(range(len(bots)), 2)]


def _fire_at(rules: Rules, bot: Bot, game: int, fleet, seed: int, on_game) -> GameResult | None:
    _tick(on_game)
    if isinstance(fleet, BotFault):
        return None
    row = generators.to_indices(rules, [fleet])[0]
    return bot.play(game, fleet, row, seed)


def _pairing(bots, fleets, played, a: int, b: int, games: int) -> Pairing:
    a_wins, faults = 0, []
    for g in range(games):
        a_first = g % 2 == 0
        ea, a_fault = _end(fleets[a][g], played[a, b][g], a_first)
        eb, b_fault = _end(fleets[b][g], played[b, a][g], not a_first)
        loser, fault = (a, a_fault) if ea < eb else (b, b_fault)  # the side whose game ends first decides
        if fault is None:
            a_wins += loser == a  # it ended by sinking the other's fleet: a win, not a loss
        else:
            a_wins += loser == b
            faults.append(
                {"bot": bots[loser].label, "game": g + 1, "cause": fault.cause, "detail": fault.detail}
            )
    return Pairing.of(bots[a].label, bots[b].label, a_wins, games, faults)
