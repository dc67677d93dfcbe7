"""The arena's run: every bot on the same battlefields, then (if asked) every pair head to head.

Bots play one after another, never side by side, so no bot's program shares the CPU with another's
while it is timed; each program is stopped when its turn is over.

The battlefields come from the run's secret key (:mod:`~battleship.lab.arena.keys`), each from a seed
of its own; the bots' seeds come from the key too, from a stream apart. A registered shooter plays
the battlefields with the random numbers ``battleship compare --layouts BATTLEFIELDS --seed
BOT_SEED`` gives it, so its row equals those ``compare`` figures.

Ctrl-C (a ``KeyboardInterrupt``; SIGTERM too under :func:`battleship.stop.signals_stop`) ends the
run early: every bot process is stopped and the result holds the games that finished, marked
``interrupted``.

In a match each bot hides a fleet (its own answer to ``place``, else one drawn by the generator) and
fires at the other's; turns alternate, A moving first in the even games. A side's shots do not depend
on the other's, so each side's game is played alone and the two are then laid in turn order: whoever
sinks the other's fleet first wins, and a forfeit loses when it comes first (a failed ``place`` comes
before any shot, the first mover's before the second's). Under salvo rules a game scores turns
(salvos); matches are played only with a fixed number of shots a turn, where the sides stay
independent (``shots = "afloat"`` ties each side's salvo to the other's hits: ``battleship match``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import combinations

from battleship import generators
from battleship.errors import BattleshipError
from battleship.lab.arena import channel, sandbox
from battleship.lab.arena.bots import Bot, GameResult, ProgramBot
from battleship.lab.arena.keys import Key, fingerprint
from battleship.lab.arena.names import escape
from battleship.lab.arena.protocol import BotFault
from battleship.lab.arena.results import ArenaResult, Pairing, Tally, leaderboard
from battleship.lab.arena.sandbox import Jail, Limits
from battleship.layout import Layout
from battleship.rules import Rules


def run(
    rules: Rules,
    bots: list[Bot],
    games: int,
    key: Key | int | None = None,
    generator: str = "uniform",
    limits: Limits | None = None,
    matches: bool = False,
    on_game: Callable[[], None] | None = None,
    jail: Jail | None = None,
    seed: int | None = None,
) -> ArenaResult:
    """Play the arena (see the module docstring); ``on_game`` hears each game played (a progress bar).

    ``key`` is the run's secret (default: a new one from the operating system; an int, or ``seed``,
    is a public seed: ``Key.from_seed``); ``jail`` where programs run (default: the sandbox, refused
    in one clear line where the machine has none).
    """
    if isinstance(key, int):
        key = Key.from_seed(key)
    elif key is None and seed is not None:
        key = Key.from_seed(seed)
    limits, key, jail = limits or Limits(), key or Key.new(), jail or sandbox.choose()
    check(rules, bots, games, limits, jail, matches)
    begin = time.perf_counter()
    rows = key.battlefields(rules, generator, games)
    tallies = [Tally() for _ in bots]
    pairings, interrupted = None, False
    try:
        for bot, tally in zip(bots, tallies, strict=True):
            with started(bot, rules, limits, jail, games):
                for g in range(games):
                    layout = generators.to_layout(rules, rows[g])
                    tally.add(bot.play(g, layout, rows[g], key.bot_seed("battlefields")))
                    _tick(on_game)
        if matches:
            pairings = play_matches(rules, bots, games, key, generator, limits, on_game, jail)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        channel.stop_all()
    # a forfeit scores every cell of the board: the most shots a game can take, and the most turns
    perfect = rules.ship_cells if rules.salvo is None else -(-rules.ship_cells // rules.turn_size())
    board = leaderboard(bots, tallies, perfect, rules.cells)
    return ArenaResult(
        rules.name, rules.as_dict(), generator, games, key.seed, limits.time, rules.cells, board, pairings,
        time.perf_counter() - begin, key.commitment, key.hex, fingerprint(rules, rows),
        key.bot_seed("battlefields"), interrupted, "sandbox" if jail.confined else "unconfined",
        unit="shots" if rules.salvo is None else "turns",
    )  # fmt: skip


def check(
    rules: Rules, bots: list[Bot], games: int, limits: Limits, jail: Jail, matches: bool = False
) -> None:
    """Refuse, before anything is played, a run that cannot be fair (a clear error saying why)."""
    if not bots:
        raise BattleshipError("name at least one bot")
    if matches and rules.salvo is not None and not isinstance(rules.salvo.shots, int):
        raise BattleshipError(
            f'--matches under salvo shots = "{rules.salvo.shots}": a side\'s salvo shrinks as the other sinks '
            "its ships, which the arena's one-sided games cannot follow; `battleship match` plays such "
            "matches turn by turn (the arena plays them with a fixed number of shots a turn)"
        )
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
    programs = [bot for bot in bots if isinstance(bot, ProgramBot)]
    sandbox.require(jail, [bot.label for bot in programs])
    for bot in programs:
        jail.check(bot.program, bot.label)


def _tick(on_game: Callable[[], None] | None) -> None:
    if on_game is not None:
        on_game()


@contextmanager
def started(bot: Bot, rules: Rules, limits: Limits, jail: Jail, games: int) -> Iterator[Bot]:
    """The bot, started for ``games`` games; its program is stopped however the block ends."""
    bot.start(rules, limits, jail, games)
    try:
        yield bot
    finally:
        bot.close()


def hidden_fleets(rules: Rules, bot: Bot, k: int, games: int, key: Key, generator: str, limits: Limits,
                  jail: Jail) -> list:  # fmt: skip
    """Bot ``k``'s fleet in each match game: a Layout, or the BotFault its answer to ``place`` was."""
    drawn = key.fleets(rules, generator, k, games)
    fleets: list[Layout | BotFault] = []
    with started(bot, rules, limits, jail, games):
        for g in range(games):
            try:
                fleets.append(bot.place(g, key.bot_seed("place", k)) or generators.to_layout(rules, drawn[g]))
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
    rules: Rules, bots: list[Bot], games: int, key: Key, generator: str, limits: Limits, on_game, jail: Jail
) -> list[Pairing]:
    """Every pair of bots head to head over ``games`` games (see the module docstring)."""
    fleets = [hidden_fleets(rules, b, k, games, key, generator, limits, jail) for k, b in enumerate(bots)]
    played: dict[tuple[int, int], list[GameResult | None]] = {}
    for a, bot in enumerate(bots):
        with started(bot, rules, limits, jail, games * (len(bots) - 1)):
            for d in range(len(bots)):
                if d != a:
                    played[a, d] = [_fire_at(rules, bot, g, fleets[d][g], key.bot_seed("match", a, d), on_game)
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
                {
                    "bot": escape(bots[loser].label),
                    "game": g + 1,
                    "cause": fault.cause,
                    "detail": escape(fault.detail),
                }
            )
    return Pairing.of(escape(bots[a].label), escape(bots[b].label), a_wins, games, faults)
