"""The arena's run: every bot on the same battlefields, then (if asked) every pair head to head.

Bots play one after another, never side by side, so no bot's program shares the CPU with another's
while it is timed; each program is stopped when its turn is over, and the kernel's caches are
dropped before each program's turn (:mod:`~battleship.lab.arena.caches`), so no bot finds there what
an earlier one left. Each program has wall-clock budgets for a game and for the run
(:mod:`~battleship.lab.arena.budgets`). Whatever a bot does, the run goes on: an exception the
referee did not foresee while it played a bot's game is that bot's forfeit (``referee``), and the
other games stand.

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

Under ``[noise]`` each game's referee flips answers with coins seeded from the key (``referee_seed``,
a stream apart from the bots' seeds, so no bot can tell which answers lie): every bot meets the same
coins on the same battlefield, and a match game's coins are those of the fleet fired at. Under a
cheating hider (``[hider]``) the referee of each battlefield is the hider, its ties seeded so too; the
battlefields are drawn (and verified) all the same but not played, and matches are refused (nobody
hides a fleet). The referee's own time (the hider's thinking) is not charged to a bot's budgets.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from itertools import combinations

from battleship import generators
from battleship.errors import BattleshipError
from battleship.lab.arena import channel, protocol, roster, sandbox
from battleship.lab.arena.bots import Bot, GameResult, ProgramBot
from battleship.lab.arena.budgets import Clock
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
    on_status: Callable[[str], None] | None = None,
) -> ArenaResult:
    """Play the arena (see the module docstring); ``on_game`` hears each game played (a progress bar),
    ``on_status`` which bot is playing and how much of its time it has used.

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
    per_bot = games * (1 + (len(bots) if matches else 0))  # battlefields, fleets hidden, every opponent's
    clocks = [limits.clock(rules.cells, per_bot) for _ in bots]
    turn = Turn(on_game, on_status)
    pairings, interrupted = None, False
    try:
        for bot, tally, clock in zip(bots, tallies, clocks, strict=True):
            turn.status(bot, clock)
            with started(bot, rules, limits, jail, games):
                for g in range(games):
                    layout = generators.to_layout(rules, rows[g])
                    coins = key.referee_seed("battlefield", g)
                    tally.add(play_one(bot, clock, g, layout, rows[g], key.bot_seed("battlefields"), coins))
                    turn.played(bot, clock)
        if matches:
            pairings = play_matches(rules, bots, games, key, generator, limits, turn, jail, clocks)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        channel.stop_all()
    # a forfeit scores the most shots a game can take (every cell of the board; under noise the cap), and turns
    perfect = rules.ship_cells if rules.salvo is None else -(-rules.ship_cells // rules.turn_size())
    most = protocol.most_shots(rules)
    board = leaderboard(bots, tallies, perfect, most)
    return ArenaResult(
        rules.name, rules.as_dict(), generator, games, key.seed, limits.time, most, board, pairings,
        time.perf_counter() - begin, key.commitment, key.hex, fingerprint(rules, rows),
        key.bot_seed("battlefields"), interrupted, "sandbox" if jail.confined else "unconfined",
        unit="shots" if rules.salvo is None else "turns", order=[escape(bot.label) for bot in bots],
        limits=limits_of(limits, rules.cells, per_bot), caches=caches_of(jail),
    )  # fmt: skip


class Turn:
    """The run's progress: a game played (``on_game``), and whose time it is (``on_status``)."""

    def __init__(self, on_game: Callable[[], None] | None, on_status: Callable[[str], None] | None):
        self.on_game, self.on_status = on_game, on_status

    def played(self, bot: Bot, clock: Clock) -> None:
        """A game of ``bot``'s is over."""
        if self.on_game is not None:
            self.on_game()
        self.status(bot, clock)

    def status(self, bot: Bot, clock: Clock) -> None:
        """Say that ``bot`` is playing, and how much of its time it has used (at its turn's start too)."""
        if self.on_status is not None:
            self.on_status(f"{escape(bot.label)}: {clock.used:,.1f} s of its {clock.total:,.0f} s")


def play_one(bot: Bot, clock: Clock, game: int, layout: Layout, row, seed: int, coins: int = 0) -> GameResult:
    """One game of ``bot``'s, held to its budgets (the referee's own time not counted); whatever goes
    wrong is its forfeit, never the run's end. ``coins`` seeds the referee under noise or a hider."""
    budgeted = isinstance(bot, ProgramBot)  # registered shooters are timed, not held to budgets
    refusal = bot.refused or (clock.spent if budgeted else None)
    if refusal is not None:
        return GameResult(0, BotFault(refusal.cause, refusal.detail))
    begin = time.monotonic()
    try:
        result = bot.play(game, layout, row, seed, clock.allowance() if budgeted else None, coins)
    except Exception as exc:  # a registered shooter's, or the referee's own: the run goes on
        result = GameResult(0, protocol.unexpected(exc))
    clock.charge(max(time.monotonic() - begin - result.referee, 0.0), result.fault)
    return result


def limits_of(limits: Limits, cells: int, games: int) -> dict:
    """The limits the run held its bots to, as saved with its results (the budgets worked out)."""
    clock = limits.clock(cells, games)
    return {**asdict(limits), "cpu": limits.cpu_per_game(cells), "game": clock.game, "bot": clock.total}


def caches_of(jail: Jail) -> str:
    """How the run kept bots apart in the kernel's caches: dropped between bots, or shared."""
    return "dropped" if getattr(jail, "caches", False) else "shared"


def check(
    rules: Rules, bots: list[Bot], games: int, limits: Limits, jail: Jail, matches: bool = False
) -> None:
    """Refuse, before anything is played, a run that cannot be fair (a clear error saying why)."""
    if not bots:
        raise BattleshipError("name at least one bot")
    if matches and rules.hider is not None:
        raise BattleshipError(
            f"--matches under {rules.name}'s cheating hider ([hider]): nobody hides a fleet (the hider commits "
            "to none and answers for it), so two bots cannot hide against each other; play the battlefields"
        )
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
    for option, value in (("--game-budget", limits.game), ("--bot-budget", limits.bot)):
        if value is not None and not value > 0:
            raise BattleshipError(f"{option} must be above 0 seconds, not {value}")
    if limits.strikes < 1:
        raise BattleshipError(f"--budget-forfeits must be at least 1, not {limits.strikes}")
    sandbox.cpu_set(limits.cpus)  # refused now if the arena has fewer CPUs to give
    seen: dict[str, str] = {}
    for bot in bots:
        asked = bot.asked or bot.label
        if bot.label in seen:
            same = f"{seen[bot.label]!r} and {asked!r} are" if seen[bot.label] != asked else f"{asked!r} is"
            raise BattleshipError(f"{same} the same bot on {rules.name} ({bot.label}): name each bot once")
        seen[bot.label] = asked
    roster.check(bots)
    programs = [bot for bot in bots if isinstance(bot, ProgramBot)]
    sandbox.require(jail, [bot.label for bot in programs])
    for bot in programs:
        jail.check(bot.program, bot.label)


@contextmanager
def started(bot: Bot, rules: Rules, limits: Limits, jail: Jail, games: int) -> Iterator[Bot]:
    """The bot, started for ``games`` games (a program after the kernel's caches are dropped); its
    program is stopped however the block ends. A bot that cannot be started plays none of them."""
    try:
        if isinstance(bot, ProgramBot):
            jail.before_turn()
        bot.start(rules, limits, jail, games)
    except Exception as exc:  # the run goes on: each of its games is a forfeit saying why
        bot.refused = BotFault("start", f"not started: {type(exc).__name__}: {exc}")
    try:
        yield bot
    finally:
        bot.close()


def hidden_fleets(rules: Rules, bot: Bot, k: int, games: int, key: Key, generator: str, limits: Limits,
                  jail: Jail, clock: Clock, turn: Turn) -> list:  # fmt: skip
    """Bot ``k``'s fleet in each match game: a Layout, or the BotFault its answer to ``place`` was."""
    drawn = key.fleets(rules, generator, k, games)
    fleets: list[Layout | BotFault] = []
    turn.status(bot, clock)
    with started(bot, rules, limits, jail, games):
        for g in range(games):
            fleets.append(
                _placed(bot, clock, g, key.bot_seed("place", k)) or generators.to_layout(rules, drawn[g])
            )
            turn.played(bot, clock)
    return fleets


def _placed(bot: Bot, clock: Clock, game: int, seed: int) -> Layout | BotFault | None:
    """The fleet ``bot`` hides in match game ``game`` (None: the generator's), or why it hid none."""
    refusal = bot.refused or (clock.spent if isinstance(bot, ProgramBot) else None)
    if refusal is not None:
        return BotFault(refusal.cause, refusal.detail)
    begin = time.monotonic()
    try:
        return bot.place(game, seed)
    except BotFault as fault:
        return fault
    except Exception as exc:
        return protocol.unexpected(exc)
    finally:
        clock.charge(time.monotonic() - begin)


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
    rules: Rules, bots: list[Bot], games: int, key: Key, generator: str, limits: Limits, turn: Turn,
    jail: Jail, clocks: list[Clock],
) -> list[Pairing]:  # fmt: skip
    """Every pair of bots head to head over ``games`` games (see the module docstring)."""
    fleets = [hidden_fleets(rules, b, k, games, key, generator, limits, jail, clocks[k], turn)
              for k, b in enumerate(bots)]  # fmt: skip
    played: dict[tuple[int, int], list[GameResult | None]] = {}
    for a, bot in enumerate(bots):
        turn.status(bot, clocks[a])
        with started(bot, rules, limits, jail, games * (len(bots) - 1)):
            for d in range(len(bots)):
                if d != a:
                    seed = key.bot_seed("match", a, d)
                    played[a, d] = [_fire_at(rules, bot, clocks[a], g, fleets[d][g], seed, turn,
                                             key.referee_seed("match", d, g)) for g in range(games)]  # fmt: skip
    return [_pairing(bots, fleets, played, a, b, games) for a, b in combinations(range(len(bots)), 2)]


def _fire_at(
    rules: Rules, bot: Bot, clock: Clock, game: int, fleet, seed: int, turn: Turn, coins: int = 0
) -> GameResult | None:
    if isinstance(fleet, BotFault):
        turn.played(bot, clock)
        return None
    row = generators.to_indices(rules, [fleet])[0]
    result = play_one(bot, clock, game, fleet, row, seed, coins)
    turn.played(bot, clock)
    return result


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
