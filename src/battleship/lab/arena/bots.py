"""The arena's bots, and the referee that plays each of their games.

A bot is one of three kinds, named on the command line:

- a registered shooter spec (``density:skew=20``, ``best``): played in the arena's process exactly as
  ``battleship compare`` plays it (the same layouts, the same random streams, its Numba kernel when it
  has one), so its leaderboard figures are its ``compare`` figures;
- ``package.module:Class`` or ``path/to/file.py:Class``: a class with the :class:`~battleship.game.Shooter`
  protocol, run in a process of its own by :mod:`battleship.lab.arena.host`;
- ``exec:COMMAND``: any program speaking the line protocol (:mod:`battleship.lab.arena.protocol`);
  ``COMMAND`` is split as a POSIX shell splits words (``shlex``), but no shell runs it.

Classes and programs get the same referee: every answer is checked, every wait has a deadline, and
a fault loses the game (:data:`~battleship.lab.arena.protocol.CAUSES`) and restarts the program.
They run in a sandbox (:mod:`~battleship.lab.arena.sandbox`) that shows them their own files: those
their command names (a file ``.py`` of a class; the package of ``package.module``), read-only.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from battleship.cells import cell_name
from battleship.errors import BattleshipError
from battleship.game import Game, Referee, choose_salvo
from battleship.lab.arena import protocol
from battleship.lab.arena.budgets import Allowance
from battleship.lab.arena.channel import Process
from battleship.lab.arena.protocol import BotFault
from battleship.lab.arena.sandbox import Jail, Limits, Program
from battleship.layout import Layout
from battleship.rng import game_rng
from battleship.rules import Rules
from battleship.shooters import kernels, registry
from battleship.shooters.options import Options, format_spec

T = TypeVar("T")
START_TRIES = 3  # a program that fails to start this many times in a row forfeits the rest of its games
_CLASS = re.compile(r"([A-Za-z_][\w.]*|[^:]+\.py):([A-Za-z_]\w*)")


@dataclass
class GameResult:
    """One game of one bot: legal shots fired (turns, salvos, under salvo rules), the fault that ended
    it early, seconds per shot (per salvo)."""

    shots: int
    fault: BotFault | None = None
    times: list[float] = field(default_factory=list)
    timed: str = "shot"  # "shot": each shot timed; "game": the game's time shared among its shots
    referee: float = 0.0  # seconds the referee itself took (a cheating hider thinks): not the bot's to pay


def derive(seed: int, *path: int) -> int:
    """A seed of 63 bits (any language holds it) drawn from ``seed`` and a path: the same path, the same seed.

    A program's game ``g`` of a run seeded ``s`` gets ``derive(s, g)``.
    """
    words = np.random.SeedSequence([w % 2**64 for w in (seed, *path)]).generate_state(2, np.uint32)
    return (int(words[0]) << 31) ^ int(words[1])


def make_referee(layout: Layout, coins: int, game: int) -> Referee:
    """The referee of game ``game`` (from 0): a :class:`~battleship.game.Game` hiding ``layout``, its coins
    seeded ``coins`` under ``[noise]``; under a cheating hider the hider, its ties seeded ``coins``
    (it hides no layout: ``layout`` is not played)."""
    rules = layout.rules
    if rules.hider is not None:
        from battleship.inference.hider import Hider

        return Hider(rules, coins, game)
    return Game(layout, seed=coins if rules.noise is not None else None)


class Bot:
    """What the arena asks of every bot (see the module docstring for the kinds)."""

    label: str  # how the leaderboard names it (a registered shooter's full spec)
    kind: str
    asked: str = ""  # the text it was named by (``best`` for the shooter best resolves to)
    said_name: str | None = None  # the name a program gave itself
    said_version: int = 1  # the protocol version a program says it speaks (``protocol N``; 1 if it says none)
    entrant: str | None = None  # who entered it, as the organiser says (ratings merge on it; None: the label)
    claimed_author: str | None = None  # the author an entry's own bot.toml names: shown, never merged on
    refused: BotFault | None = None  # why it plays none of its (remaining) games: each is this forfeit

    def start(self, rules: Rules, limits: Limits, jail: Jail | None = None, games: int | None = None) -> None:
        """Get ready to play ``rules``; a program runs in ``jail``, for ``games`` games at most (if known)."""

    def play(
        self,
        game: int,
        layout: Layout,
        row: np.ndarray,
        seed: int,
        allowance: Allowance | None = None,
        coins: int = 0,
    ) -> GameResult:
        """Play game ``game`` (from 0) against ``layout`` (also as placement indices, ``row``), within
        ``allowance`` (a program's wall-clock budget for the game; None: none); ``coins`` seeds the
        referee under noise or a cheating hider (:func:`make_referee`)."""
        raise NotImplementedError

    def place(self, game: int, seed: int) -> Layout | None:
        """The fleet this bot hides in match game ``game``; None to let the arena's generator draw it."""
        return None

    def close(self) -> None:
        """Stop whatever runs for this bot."""


class ShooterBot(Bot):
    """A registered shooter, played as the lab plays it (so the same seed gives compare's games)."""

    kind = "shooter"

    def __init__(self, name: str, options: Options):
        self.name, self.options = name, options
        self.label = format_spec(name, options)

    def start(self, rules: Rules, limits: Limits, jail: Jail | None = None, games: int | None = None) -> None:
        from battleship.lab import runner

        self.rules, self.limits = rules, limits
        self.spec = registry.spec(self.name)
        if rules.salvo is None:
            runner.warm_up(rules, self.name)
        else:
            runner.check(self.name, rules)  # salvo games are played in Python: no kernel to warm

    def play(
        self,
        game: int,
        layout: Layout,
        row: np.ndarray,
        seed: int,
        allowance: Allowance | None = None,
        coins: int = 0,
    ) -> GameResult:
        from battleship.lab import runner

        if self.rules.salvo is not None:
            return self._play_salvos(game, layout, seed, coins)
        if not runner.is_kernel(self.name, self.rules):  # kernels play honest answers only
            return self._play_python(game, layout, seed, coins)
        begin = time.perf_counter()
        assert self.spec.kernel is not None  # is_kernel said so
        kind = kernels.KINDS[self.spec.kernel]
        shots = int(kernels.play_rows(self.rules, kind, seed, row[None, :], self.options, game)[0])
        share = (time.perf_counter() - begin) / shots
        fault = _late(share, self.limits.time, "a shot on average")
        return GameResult(shots, fault, [share] * shots, "game")

    def _play_python(self, game: int, layout: Layout, seed: int, coins: int) -> GameResult:
        """One game as :func:`battleship.game.play` plays it (``runner.play_python``), each shot timed;
        under noise or a cheating hider against the arena's referee (:func:`make_referee`)."""
        shooter = self.spec.make(self.options)
        referee = make_referee(layout, coins, game)
        shooter.reset(layout.rules, game_rng(seed, game))
        times: list[float] = []
        while not referee.over:
            stop = protocol.endless(referee.observation.fired, self.rules)
            if stop:
                return GameResult(len(times), stop, times)
            begin = time.perf_counter()
            cell = shooter.next_shot(referee.observation)
            times.append(time.perf_counter() - begin)
            fault = _late(times[-1], self.limits.time, "a shot")
            if fault:
                return GameResult(len(times) - 1, fault, times)
            referee.fire(cell)
        return GameResult(len(times), None, times)

    def _play_salvos(self, game: int, layout: Layout, seed: int, coins: int) -> GameResult:
        """One salvo game as :func:`battleship.game.play` plays it, each salvo timed (its turns scored)."""
        shooter = self.spec.make(self.options)
        referee = make_referee(layout, coins, game)
        shooter.reset(layout.rules, game_rng(seed, game))
        times: list[float] = []
        while not referee.over:
            stop = protocol.endless(referee.observation.fired, self.rules)
            if stop:
                return GameResult(len(times), stop, times)
            size = referee.turn_size()
            begin = time.perf_counter()
            cells = choose_salvo(shooter, referee.observation, size)
            times.append(time.perf_counter() - begin)
            fault = _late(times[-1], self.limits.time, "a salvo")
            if fault:
                return GameResult(len(times) - 1, fault, times)
            referee.fire_salvo(cells, size)
        return GameResult(len(times), None, times)


def _late(seconds: float, limit: float, what: str) -> BotFault | None:
    if seconds <= limit:
        return None
    return BotFault("time", f"took {seconds * 1000:.0f} ms for {what}; the limit is {limit * 1000:.0f} ms")


class ProgramBot(Bot):
    """A program speaking the line protocol; a Python class runs as one through the host."""

    def __init__(self, label: str, program: Program, kind: str = "program"):
        self.label, self.program, self.kind = label, program, kind
        self._process: Process | None = None
        self._failed_starts = 0
        self._last_line: str | None = None  # the last line it wrote (a referee failure names it)
        self.snapshot: object | None = None  # the private copy of an entry it runs from, kept while it lives
        self._game_end = float("inf")  # when the game's allowance runs out (time.monotonic)
        self._referee_seconds = 0.0  # the referee's own time in the game under way

    def start(self, rules: Rules, limits: Limits, jail: Jail | None = None, games: int | None = None) -> None:
        if jail is None:
            raise ValueError("a program bot needs a jail (sandbox.choose())")
        self.rules, self.limits, self.jail, self.games = rules, limits, jail, games

    def _open(self, game: int = 0) -> Process:
        """The running process, started (and handed the rules) if need be, before game ``game``."""
        if self._process is not None:
            return self._process
        if self.refused is not None:  # not started again: its answer would be the same
            raise BotFault(self.refused.cause, self.refused.detail)
        if self._failed_starts >= START_TRIES:
            raise BotFault("start", f"did not start {START_TRIES} times in a row; not tried again")
        try:
            left = None if self.games is None else max(self.games - game, 1)
            total = (
                None
                if left is None
                else self.limits.start + left * self.limits.cpu_per_game(self.rules.cells)
            )
            self._process = Process(self.program, self.limits, self.jail, total)
            deadline = time.monotonic() + self.limits.start
            greeting = protocol.greeting(self.rules)
            self._process.send([greeting, *protocol.rules_lines(self.rules), "isready"], deadline)
            answer = self._answer(self._process, deadline, "'isready'")
            if answer != "readyok":
                raise BotFault("start", f"answered {answer[:60]!r} to 'isready', not 'readyok'")
            self._check_version()
        except BotFault as fault:
            self._failed_starts += 1
            detail = fault.detail
            tail = ""
            if self._process is not None:
                self._process.settle_stderr()
                tail = self._process.stderr_tail()
            if tail and "stderr ends" not in detail:  # a runtime's own fault report is on its stderr
                detail = f"{detail}; stderr ends {tail!r}"
            self._drop()
            raise BotFault("start", detail) from None
        except Exception as exc:  # the arena's own trouble starting it (a control group, say): its forfeit
            self._failed_starts += 1
            self._drop()
            raise BotFault("start", f"the arena could not start it: {type(exc).__name__}: {exc}") from None
        self._failed_starts = 0
        return self._process

    def _answer(self, process: Process, deadline: float, what: str) -> str:
        """The bot's next line that is not chatter (``info``/``name``/``author`` lines are skipped)."""
        while True:
            line = self._last_line = process.receive(deadline, what)
            if not protocol.is_chatter(line):
                return line.strip()
            if line.startswith("name "):
                self.said_name = protocol.read_name(line)
            if line.startswith("protocol "):
                self.said_version = protocol.read_version(line)

    def _check_version(self) -> None:
        """Refuse a bot that does not speak the version these rules need (salvos need version 2, noise and
        a cheating hider version 3), for good."""
        rules, needed = self.rules, protocol.needed(self.rules)
        if needed == 1 or self.said_version >= needed:  # every bot plays version 1, whatever it says
            return
        said = "said no 'protocol N' line" if self.said_version == 1 else "named no version it speaks"
        speaks = f"speaks version {max(self.said_version, 1)} of the arena protocol ({said} before 'readyok')"
        if needed == protocol.SALVO_VERSION:
            assert rules.salvo is not None
            why = (
                f"which has no salvos; these rules fire several shots a turn (salvo {rules.salvo.text()}): "
                f"a bot that plays them says 'protocol {protocol.SALVO_VERSION}' before 'readyok' and answers "
                "'shoot K' with K cells"
            )
        else:
            twist = (
                f"answers that lie (noise {rules.noise.text()}: a cell may be fired at again)"
                if rules.noise is not None
                else f"a cheating hider (hider {rules.hider.text() if rules.hider else ''})"
            )
            why = (
                f"which has neither answers that lie nor a cheating hider; these rules have {twist}: a bot "
                f"that plays them says 'protocol {protocol.TWISTS_VERSION}' before 'readyok'"
            )
        self.refused = BotFault("start", f"{speaks}, {why}")
        raise self.refused

    def _drop(self) -> None:
        if self._process is not None:
            self._process.stop()
            self._process = None

    def play(
        self,
        game: int,
        layout: Layout,
        row: np.ndarray,
        seed: int,
        allowance: Allowance | None = None,
        coins: int = 0,
    ) -> GameResult:
        referee, times = make_referee(layout, coins, game), []
        self._last_line = None
        self._referee_seconds = 0.0
        try:
            process = self._open(game)
            self._game_end = time.monotonic() + allowance.seconds if allowance else float("inf")
            process.allow_cpu(self.limits.cpu_per_game(self.rules.cells))
            process.send([f"newgame {game + 1} {derive(seed, game)}"], self._deadline(time.monotonic()))
            while not referee.over:
                stop = protocol.endless(referee.observation.fired, self.rules)
                if stop:
                    raise stop
                times.append(self._shoot(process, referee))
            over = f"gameover {len(times)}"
            if self.rules.salvo is not None:
                over += f" {referee.observation.fired}"  # turns, then shots fired
            process.send([over], time.monotonic() + self.limits.time)
        except BotFault as fault:
            self._drop()  # out of step with the referee: the next game starts it afresh
            if allowance is not None and fault.cause == "time" and time.monotonic() >= self._game_end:
                fault = allowance.fault(len(times))  # it was the game's budget that ran out, not a shot's
            return GameResult(referee.observation.turns, fault, times, referee=self._referee_seconds)
        except Exception as exc:  # whatever it wrote, the run goes on: its forfeit, with what it wrote
            self._drop()
            failed = protocol.unexpected(exc, self._last_line)
            return GameResult(referee.observation.turns, failed, times, referee=self._referee_seconds)
        finally:
            self._game_end = float("inf")
        return GameResult(len(times), None, times, referee=self._referee_seconds)

    def _answered(self, answer: Callable[[], T]) -> T:
        """The referee's answer, its time (a cheating hider's thinking) kept off the bot's game budget."""
        begin = time.monotonic()
        try:
            return answer()
        finally:
            spent = time.monotonic() - begin
            self._referee_seconds += spent
            self._game_end += spent

    def _deadline(self, begin: float) -> float:
        """When an answer asked for at ``begin`` is late: the shot limit, or the game's budget if sooner."""
        return min(begin + self.limits.time, self._game_end)

    def _shoot(self, process: Process, referee: Referee) -> float:
        """Ask for one shot, check it, fire it and tell the bot; the seconds it took to answer."""
        if self.rules.salvo is not None:
            return self._salvo(process, referee)
        begin = time.monotonic()
        deadline = self._deadline(begin)
        process.send(["shoot"], deadline)
        line = self._answer(process, deadline, "'shoot'")
        seconds = time.monotonic() - begin
        process.over_cpu()
        cell = protocol.read_shot(line, self.rules)
        if referee.observation.is_shot(cell) and self.rules.noise is None:  # under noise, fire again at will
            raise BotFault("repeat", f"fired at {cell_name(cell, self.rules.cols)} a second time")
        shot = self._answered(lambda: referee.fire(cell))
        process.send([protocol.result_line(shot, self.rules)], time.monotonic() + self.limits.time)
        return seconds

    def _salvo(self, process: Process, referee: Referee) -> float:
        """Ask for a salvo (``shoot K``), check it, fire it and answer it; the seconds it took to answer."""
        size = referee.turn_size()
        begin = time.monotonic()
        deadline = self._deadline(begin)
        process.send([f"shoot {size}"], deadline)
        line = self._answer(process, deadline, f"'shoot {size}'")
        seconds = time.monotonic() - begin
        process.over_cpu()
        cells = protocol.read_salvo(line, self.rules, size, referee.observation.shot_mask)
        volley = self._answered(lambda: referee.fire_salvo(cells, size))
        process.send(protocol.answer_lines(volley, self.rules), time.monotonic() + self.limits.time)
        return seconds

    def place(self, game: int, seed: int) -> Layout | None:
        """Ask for the fleet to hide; a :class:`BotFault` if the answer is none."""
        self._last_line = None
        try:
            process = self._open(game)
            deadline = time.monotonic() + self.limits.time
            process.send([f"newgame {game + 1} {derive(seed, game)}", "place"], deadline)
            return protocol.read_layout(self._answer(process, deadline, "'place'"), self.rules)
        except BotFault:
            self._drop()
            raise
        except Exception as exc:  # whatever it wrote, the run goes on
            self._drop()
            raise protocol.unexpected(exc, self._last_line) from None

    def close(self) -> None:
        self._drop()


def parse_bot(text: str, rules: Rules) -> Bot:
    """The bot a command-line argument names (see the module docstring), checked against ``rules``."""
    bot = _parse(text.strip(), rules)
    bot.asked = text.strip()
    return bot


def _parse(text: str, rules: Rules) -> Bot:
    if text.startswith("exec:"):
        try:
            argv = shlex.split(text[5:])
        except ValueError as exc:
            raise BattleshipError(f"bot {text!r}: cannot split the command into words: {exc}") from None
        if not argv:
            raise BattleshipError(f"bot {text!r}: 'exec:' must be followed by a command")
        return ProgramBot(text, program_of(argv))
    name, _, rest = text.partition(":")
    if name in registry.names() or name == "best" or (rest and "=" in rest):
        return ShooterBot(*registry.check(text, rules))
    if not _CLASS.fullmatch(text):
        raise BattleshipError(
            f"bot {text!r} is not a registered shooter ({', '.join(registry.names())}), "
            "package.module:Class, path/to/file.py:Class or exec:COMMAND"
        )
    return ProgramBot(text, class_program(text), "class")


def program_of(argv: list[str], cwd: str | None = None) -> Program:
    """A command's :class:`Program`: its own files are the words naming files or directories (relative
    to ``cwd``, default the arena's); a first word without ``/`` is a command found on PATH."""
    base = cwd or os.getcwd()
    reads = [
        os.path.abspath(os.path.join(base, word))
        for i, word in enumerate(argv)
        if (i or "/" in word) and word and os.path.exists(os.path.join(base, word))
    ]
    command = os.path.realpath(os.path.join(base, argv[0]))
    return Program(tuple(argv), tuple(reads), cwd, python=command == os.path.realpath(sys.executable))


def class_program(target: str, cwd: str | None = None, base: str | None = None) -> Program:
    """How the host serves the class ``target`` names: its ``.py`` file, or its top package, is its own.

    Names are relative to ``cwd`` (default: the arena's working directory), whose files are looked for
    in ``base`` (an entry's private copy; default: ``cwd`` itself)."""
    where, _, attr = target.rpartition(":")
    shown = cwd or os.getcwd()
    look = base or shown
    host = [sys.executable, "-m", "battleship.lab.arena.host"]
    if where.endswith(".py"):
        path = os.path.abspath(os.path.join(shown, where))
        if not os.path.isfile(os.path.join(look, os.path.relpath(path, shown))):
            raise BattleshipError(f"bot {target!r}: no file {where}")
        return Program((*host, f"{path}:{attr}"), (path,), cwd, python=True)
    top = where.split(".")[0]
    for folder in [look, *sys.path]:
        for found in (os.path.join(folder or look, top), os.path.join(folder or look, top + ".py")):
            if os.path.exists(found):
                at = shown if folder == look else os.path.abspath(folder or look)
                env = (("PYTHONPATH", at),)
                return Program(
                    (*host, target), (os.path.join(at, os.path.basename(found)),), cwd, env, python=True
                )
    return Program((*host, target), (), cwd, python=True)  # not found here: the host says so when it starts
