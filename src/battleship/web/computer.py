"""How the computer plays: its modes as difficulty levels, every move within a deadline (falling back to a
bounded shooter, and saying so), and which rules each level answers in time.

A move runs in a worker process (:mod:`battleship.web.workers`); the request holds a slot of the
gate's move lane meanwhile (the calculator's and the replay's heat maps hold analysis slots), which
bounds how much the server works on at once. When a move's deadline passes (or no slot comes free within the
gate's wait: play is never refused for want of one), the DataGenetics density
shooter answers instead in the request's own thread (a few milliseconds on any rules). A heat map is
the calculator's (:func:`battleship.inference.calculator.calculate`, in a worker): counted where that
fits in its time, else estimated by the exact sampler (layouts drawn uniformly among those that fit),
and the density's way when neither answers in time; each says which.

Before a game starts under rules and a level that think (Hard, Expert, Adaptive), the level is timed
on :func:`battleship.web.jobs.positions` in a worker: rules it cannot answer within the move's
deadline are refused, with the reason, when the game is created rather than move after move.

Under a spacing margin, Hard and Adaptive count on the sweep engine's state graph, which takes
seconds to compile: :class:`battleship.web.graphs.Graphs` compiles it ahead (the presets' when the
server warms up, a custom rules' when a game is created under them), and a worker maps it from
there. Such rules are refused only when the graph cannot be built (too large for memory); until
it is ready, moves are the density shooter's and say why, and the calculator estimates and says so.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Game, Observation
from battleship.inference.prior import PlacementModel
from battleship.rules import Rules, preset
from battleship.stop import SLICE, OutOfTime, Stop, Stopped
from battleship.web import graphs, jobs
from battleship.web.gate import ANALYSIS, MOVE, START, Gate, Saturated
from battleship.web.workers import StillCompiling, Workers

PROBABILITY_BUDGET_MS = (
    250  # C. Liam Brown's calculator thinks four seconds; a quarter second keeps play brisk
)
REFUSED_FOR = 600.0  # seconds a refusal is remembered (a busy machine may have slowed the timing)
SWEEPING = ("probability", "learning")
SAMPLED = (
    "the state graph that tells this prior's ships apart would not fit in memory: Adaptive weighed "
    "exact uniform samples by the prior (importance sampling) instead of counting exactly"
)  # levels whose exact odds sweep a state graph under a margin
UNFINISHED = " (its timing was cut off)"  # the end of a refusal the wall clock decided
SWEEP_RESERVE = 0.3  # share of a heat map's deadline kept for the sweep after waiting for its graph
# share of what is then left that the calculator is given (the rest: its last batch of samples, the
# worker's answer, before the worker is stopped)
ANALYSIS_SHARE = 0.9
MIN_SAMPLE_SECONDS = 0.1  # less time left than this: the density estimate answers at once


@dataclass(frozen=True)
class Mode:
    """A level of play: the API's name for it, the level and what it does in plain words, its shooter."""

    name: str
    level: str
    words: str
    spec: str
    source: str
    thinks: bool  # runs the inference engines: timed per move, and checked before a game starts

    def spec_for(self, rules: Rules) -> str:
        """The shooter this level plays under ``rules``: its own, or under ``[noise]`` one that weighs the
        answers' likelihood where its own would read every answer as true (:data:`UNDER_NOISE`)."""
        return UNDER_NOISE.get(self.name, self.spec) if rules.noise is not None else self.spec

    def refusal(self, rules: Rules) -> str | None:
        """Why this level cannot play ``rules`` at all, in one line, or None."""
        if rules.noise is not None and self.name in NOT_UNDER_NOISE:
            return f"the {self.level} level {NOT_UNDER_NOISE[self.name]}: choose another level for rules whose answers lie"
        return None

    def json(self, rules: Rules | None = None) -> dict[str, Any]:
        spec = self.spec_for(rules) if rules is not None else self.spec
        shooter = jobs.named(spec, rules) if rules is not None else spec
        source = self.source if spec == self.spec else NOISY_SOURCE
        return {
            "mode": self.name,
            "level": self.level,
            "words": self.words,
            "shooter": shooter,
            "source": source,
        }


MODES = {
    m.name: m
    for m in (
        Mode("random", "Easy", "fires anywhere it has not fired yet, even after a hit", "random",
             "DataGenetics' random baseline", False),
        Mode("hunt-target", "Medium", "fires at random until it hits, then finishes that ship off",
             "hunt-target", "DataGenetics' hunt/target", False),
        Mode("probability", "Hard", "works out where your ships can still be and aims at the likeliest square",
             f"montecarlo:budget={PROBABILITY_BUDGET_MS},skew=20",
             "C. Liam Brown's Probability mode: exact samples for a quarter second", True),
        Mode("best", "Expert", "plays the strongest strategy measured for these rules", "best",
             "the strongest measured shooter (docs/research/rules.md)", True),
        Mode("learning", "Adaptive", "expects your ships where players have hidden theirs before", "learning",
             "C. Liam Brown's Learning mode: exact odds under a model of played layouts", True),
    )
}  # fmt: skip
DEFAULT_MODE = "best"  # the level a new game gets unless it names one (the API's default)


# under [noise], Hard weighs every layout by the likelihood of the answers (DataGenetics' count so weighed,
# with C. Liam Brown's skew): its exact samples would rule layouts out on answers that may lie. Easy reads
# no answer, Medium believes every one (as its source wrote it), Expert's best weighs them already.
UNDER_NOISE = {"probability": "density:skew=20"}
NOISY_SOURCE = "DataGenetics' density count, each layout weighed by the likelihood of the answers (docs/research/noise.md)"
NOT_UNDER_NOISE = {"learning": "expects your ships from honest games and reads every answer as true"}


def aiming(rules: Rules) -> Rules:
    """The rules the computer fires at the player's fleet under: the game's, less a cheating hider (the
    player's fleet is an honest layout, whoever hides the computer's)."""
    return rules.honest() if rules.hider is not None else rules


def sweeps(chosen: Mode, rules: Rules) -> bool:
    """True when ``chosen``'s moves may sweep a state graph: Hard and Adaptive always (exact samples and
    exact odds), Expert where it plays exact play (``optimal`` on Sea Battle's rules, ``twoply`` on
    the C# Pirates contest's)."""
    exact = jobs.named("best", rules).partition(":")[0] in ("optimal", "twoply")
    own = chosen.spec_for(rules) == chosen.spec  # under noise Hard counts placements, no state graph
    return (chosen.name in SWEEPING and own) or (chosen.name == "best" and exact)


def mode(name: str) -> Mode:
    """A mode by its API name, or a clear error."""
    if name not in MODES:
        raise BattleshipError(f"mode must be one of {', '.join(MODES)}, not {name!r}")
    return MODES[name]


@dataclass(frozen=True)
class Move:
    """The computer's chosen cell, the shooter that chose it, why a stand-in did (None when none did),
    for the Adaptive level whether its odds were counted exactly (None for other levels), and why
    they were not when it played all the same (``note``)."""

    cell: int
    shooter: str
    fallback: str | None = None
    exact: bool | None = None
    note: str | None = None
    salvo: tuple[int, ...] = ()  # under salvo rules: every cell of the salvo (``cell`` is its first)

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells fired this turn: the salvo's, or the one shot."""
        return self.salvo or (self.cell,)

    def json(self) -> dict[str, Any]:
        answer = {"shooter": self.shooter, "fallback": self.fallback, "exact": self.exact}
        return answer | ({"note": self.note} if self.note else {})


class Computer:
    """The computer's thinking, bounded: moves, heat maps and the check of new rules."""

    def __init__(
        self,
        gate: Gate,
        workers: Workers,
        move_seconds: float,
        analysis_seconds: float,
        compiled: graphs.Graphs | None = None,
    ):
        self.gate, self.workers = gate, workers
        self.graphs = compiled if compiled is not None else graphs.Graphs()
        self.move_seconds, self.analysis_seconds = move_seconds, analysis_seconds
        self.probe_seconds = 4 * move_seconds  # the wall-clock bound on timing a level (judged on CPU time)
        self._verdicts: dict[tuple[str, str], tuple[str | None, float]] = {}
        # the timings under way: a request asking for a level being timed waits for that verdict (the
        # start-up's timing, say) instead of timing it again beside it
        self._timing: dict[tuple[str, str], threading.Event] = {}
        self._timing_lock = threading.Lock()

    def _heavy(self, job, *args: Any, stop: Stop, shapes: tuple[graphs.Shape | None, ...] = ()) -> Any:
        """A job in a worker (the caller holds a gate slot), with the compiled graphs of ``shapes`` mapped in."""
        return self.workers.run(graphs.with_graphs, self.graphs.directory, shapes, job, *args, stop=stop)

    def _thinking(self, job, *args: Any, stop: Stop, shapes: tuple[graphs.Shape | None, ...] = ()) -> Any:
        """A move's job in a worker, a slot of the gate's move lane held while it runs (and only then: the
        request reads and writes its game without one); :class:`Saturated` when none comes free in time."""
        work = partial(self._heavy, job, *args, stop=stop, shapes=shapes)
        return self.gate.run(work, lane=MOVE, stop=stop)

    def move(
        self,
        rules: Rules,
        observation: Observation,
        name: str,
        seed: tuple[int, int],
        stop: Stop,
        model: PlacementModel | None = None,
        size: int = 1,
    ) -> Move:
        """The cell ``name``'s shooter fires at (under salvo rules, the ``size`` cells of its salvo); the
        density shooter's when it is out of time."""
        chosen = mode(name)
        spec = chosen.spec_for(rules)
        shooter = jobs.named(spec, rules)
        if rules.salvo is not None:
            return self._salvo(rules, observation, chosen, seed, stop, model, size)
        if not chosen.thinks:  # a few microseconds: no worker needed
            return Move(jobs.shot(rules, observation, spec, seed, stop=Stop()), shooter)
        shapes, exact, why = self._graphs_for_move(rules, observation, chosen, model)
        if why is None:
            try:
                if stop.requested:  # the deadline passed while the request waited for a slot
                    stop.check()
                args = (rules, observation, spec, seed, model, bool(exact))
                cell = self._thinking(jobs.shot, *args, stop=stop, shapes=shapes)
                return Move(cell, shooter, None, exact, None if exact is not False else SAMPLED)
            except OutOfTime as late:
                why = self._late(chosen, shooter, late)
            except Saturated as busy:
                why = f"{chosen.level} ({shooter}) found no worker free: {busy}"
        stand_in = jobs.quick_shot(rules, observation, seed)
        return Move(stand_in, jobs.FALLBACK, why, None if exact is None else False)

    def _salvo(
        self,
        rules: Rules,
        observation: Observation,
        chosen: Mode,
        seed: tuple[int, int],
        stop: Stop,
        model: PlacementModel | None,
        size: int,
    ) -> Move:
        """A salvo by ``chosen``'s shooter; the stand-in's when it is out of time or cannot choose salvos."""
        shooter = jobs.named(chosen.spec_for(rules), rules)
        args = (rules, observation, chosen.spec_for(rules), seed, size)
        if not chosen.thinks:
            cells, why = jobs.salvo(*args, stop=Stop())
            exact = None
        else:
            shapes, exact, why = self._graphs_for_move(rules, observation, chosen, model)
            if why is None:
                try:
                    stop.check()  # the deadline may have passed while the request waited for a slot
                    cells, why = self._thinking(
                        jobs.salvo, *args, model, bool(exact), stop=stop, shapes=shapes
                    )
                except OutOfTime as late:
                    why = self._late(chosen, shooter, late)
                except Saturated as busy:
                    why = f"{chosen.level} ({shooter}) found no worker free: {busy}"
        if why is None:
            return Move(cells[0], shooter, None, exact, None if exact is not False else SAMPLED, cells)
        stand_in, by = jobs.quick_salvo(rules, observation, seed, size)
        return Move(stand_in[0], by, why, None if exact is None else False, None, stand_in)

    def _late(self, chosen: Mode, shooter: str, late: OutOfTime) -> str:
        """Why a move fell back to the stand-in when ``chosen`` ran out of time."""
        if isinstance(late, StillCompiling):
            return (
                f"{chosen.level} ({shooter}) was compiling its code for these rules, which takes longer than a "
                "move may; the compile goes on and is kept, so later moves do not wait for it"
            )
        return f"{chosen.level} ({shooter}) did not answer within {self.move_seconds:g} s"

    def _graphs_for_move(
        self, rules: Rules, observation: Observation, chosen: Mode, model: PlacementModel | None
    ) -> tuple[tuple[graphs.Shape | None, ...], bool | None, str | None]:
        """The graphs a move of ``chosen`` sweeps (this board's and the open board's, which the
        shooter reads when it starts), whether Adaptive counts exactly, and why it cannot play now.

        Never waits: a graph not ready yet is asked for, and the move is the stand-in's, saying why.
        Adaptive whose prior's graph would not fit plays by importance sampling on the uniform
        graph (and says it is not exact).
        """
        exact = True if chosen.name == "learning" else None
        if not sweeps(chosen, rules):
            return (), exact, None
        prior = model.prior() if model is not None else None
        boards = (observation, Observation(rules))
        shapes = tuple(graphs.needed(rules, board, prior) for board in boards)
        states = [self.graphs.want(shape) for shape in shapes]
        if prior is not None and any(s.state == graphs.TOO_LARGE for s in states):
            exact, shapes = False, tuple(graphs.needed(rules, board) for board in boards)
            states = [self.graphs.want(shape) for shape in shapes]
        waiting = [s for s in states if s.state != graphs.READY]
        if not waiting:
            return shapes, exact, None
        return shapes, exact, f"{chosen.level} is not ready under these rules: {waiting[0].words()}"

    def heat(
        self, rules: Rules, observation: Observation, stop: Stop, skew: bool = False, busy: str | None = None
    ) -> dict[str, Any]:
        """The calculator's answer within the request's time (:func:`jobs.analysis`: counted, or estimated
        from exact samples, ``exact: false`` with a ``note`` saying why); DataGenetics' density estimate,
        saying so, when neither answers in time.

        ``busy``: why no exact work may run now (every analysis slot taken, or this client's other
        calculation still running): the density estimate answers at once, saying so.
        """
        if busy is not None:
            return self._estimate(rules, observation, skew, busy)
        shape = graphs.needed(rules, observation)
        reserve = SWEEP_RESERVE * (stop.remaining() or self.analysis_seconds)
        until = None if stop.deadline is None else stop.deadline - reserve
        status = self.graphs.wait(shape, stop, until)
        reason, why = None, f"the exact count did not finish within {self.analysis_seconds:g} s"
        if status.state in (graphs.QUEUED, graphs.COMPILING):
            reason = f"the exact count needs a state graph for these rules: {status.words()}"
            why = reason
        left = stop.remaining()
        seconds = ANALYSIS_SHARE * (self.analysis_seconds if left is None else left)
        if stop.requested or seconds < MIN_SAMPLE_SECONDS:
            return self._estimate(rules, observation, skew, why)
        try:
            return self._heavy(
                jobs.analysis, rules, observation, seconds, skew, reason, stop=stop, shapes=(shape,)
            )
        except OutOfTime:
            return self._estimate(rules, observation, skew, why)
        except Stopped:
            raise  # the client went away, or the server stops
        except BattleshipError:  # no layout drawn in the time (rejection on a board hard to fit)
            return self._estimate(rules, observation, skew, why)

    @staticmethod
    def _estimate(rules: Rules, observation: Observation, skew: bool, why: str) -> dict[str, Any]:
        """The stand-in heat map, its note saying why it answers and what it is."""
        answer = jobs.estimate(rules, observation, skew)
        answer["note"] = (
            f"{why}: this is an estimate "
            "(each ship's placements counted on their own, as DataGenetics' density does)"
        )
        if any(not v.shots for v in observation.volleys):  # salvos answered whole
            answer["note"] += (
                "; of the salvos answered whole it reads only the squares their answers settle and the ships "
                "named sunk, not how many hits each salvo had"
            )
        return answer

    def admit(self, rules: Rules, name: str, stop: Stop, model: PlacementModel | None = None) -> None:
        """Refuse, saying why, a level that cannot answer within the move's deadline under ``rules``.

        ``stop`` is the request's (its going away ends the timing); the timing itself has
        :attr:`probe_seconds` from when it gets a worker. Verdicts are remembered, and a request for a
        level under way of being timed (the start-up times the standard rules' levels) waits for that
        timing's verdict.
        """
        chosen = mode(name)
        if not chosen.thinks:
            return
        if sweeps(chosen, rules) and (shape := graphs.needed(rules, Observation(rules))) is not None:
            self._admit_graph(rules, chosen, shape, stop, model)
            return
        key = (rules.name if rules.name != "custom" else rules.to_toml(), name)
        while True:
            with self._timing_lock:
                why, when = self._verdicts.get(key, (None, -1.0))
                if when >= 0 and (why is None or time.monotonic() - when <= REFUSED_FOR):
                    break
                under_way = self._timing.get(key)
                if under_way is None:
                    self._timing[key] = threading.Event()
            if under_way is None:
                why = self._timed(key, rules, chosen, stop, model)
                break
            while not under_way.wait(SLICE):  # another request's timing: its verdict is this one's too
                stop.check()
        if why:
            raise BattleshipError(why)

    def _timed(
        self, key: tuple[str, str], rules: Rules, chosen: Mode, stop: Stop, model: PlacementModel | None
    ) -> str | None:
        """Time ``chosen`` under ``rules`` (this request holds the timing of ``key``), keep the verdict and
        let whoever waits for it read it; why the level is refused, or None."""
        try:
            busy = self.gate.busy(ANALYSIS) + self.gate.busy(MOVE)  # heavy work beside the timing
            try:
                why = self._time(rules, chosen, stop, model)
            except StillCompiling:
                # cut off while compiling code the package does not hold for these rules: that is no
                # verdict on the level. The compile goes on and is kept; the game starts (its moves fall
                # back while they must, saying so) and the next game under these rules is timed again
                return None
            if why is not None and why.endswith(UNFINISHED) and busy and rules.name != "custom":
                # a preset's level, cut off by the wall clock while other work shared the cores: no
                # verdict either way (the presets' levels are the measured ones); the game starts, its
                # moves fall back if they must (saying so), and the next game is timed again. Custom
                # rules whose timing did not finish stay refused: they may truly take minutes.
                return None
            with self._timing_lock:
                self._verdicts[key] = (why, time.monotonic())
            return why
        finally:
            with self._timing_lock:
                self._timing.pop(key).set()

    def readiness(self, rules: Rules, name: str, model: PlacementModel | None = None) -> str | None:
        """What a player should know before the first move: why ``name`` cannot play exactly yet, or None."""
        chosen = mode(name)
        _shapes, _exact, why = self._graphs_for_move(rules, Observation(rules), chosen, model)
        if why is None:
            return None
        return f"{why}. Until then the quick density shooter ({jobs.FALLBACK}) answers, and each move says so"

    def _admit_graph(
        self, rules: Rules, chosen: Mode, shape: graphs.Shape, stop: Stop, model: PlacementModel | None
    ) -> None:
        """Ask for the graph ``chosen`` sweeps under ``rules`` (and the prior's, for Adaptive), waiting up to
        :attr:`probe_seconds` for a verdict; refuse, saying why, rules whose graph cannot be built.

        A graph still compiling then is no refusal: the game's first moves say they wait for it.
        """
        status = self.graphs.wait(shape, stop, time.monotonic() + self.probe_seconds)
        if status.state in (graphs.TOO_LARGE, graphs.FAILED):
            raise BattleshipError(
                f"{chosen.level} cannot play these rules: it counts exactly, and {status.words()}. Choose "
                "an easier level, or a smaller board or fleet"
            )
        if model is not None:  # Adaptive's own graph, when its prior splits ships of one length apart
            self.graphs.want(graphs.needed(rules, Observation(rules), model.prior()))

    def _probe(self, rules: Rules, chosen: Mode, model: PlacementModel | None, request: Stop) -> float:
        """Time ``chosen`` in a worker, within :attr:`probe_seconds` from now (sharing the request's flag)."""
        # the request going away stops the timing too
        spec = chosen.spec_for(rules)
        return self._heavy(jobs.probe, rules, spec, model, stop=request.child(self.probe_seconds))

    def _time(self, rules: Rules, chosen: Mode, stop: Stop, model: PlacementModel | None) -> str | None:
        """Why ``chosen`` is too slow under ``rules``, or None: one move timed on each probe position."""
        limit = self.move_seconds
        shooter = jobs.named(chosen.spec_for(rules), rules)
        try:
            seconds = self.gate.run(partial(self._probe, rules, chosen, model, stop), lane=START, stop=stop)
        except StillCompiling:
            raise
        except OutOfTime:
            seconds = None
        if seconds is not None and seconds <= limit:
            return None
        took = "did not finish" if seconds is None else f"took {seconds:.1f} s"
        advice = UNFINISHED if seconds is None else ""
        return (
            f"{chosen.level} ({shooter}) is too slow under these rules: one of its moves {took} where a "
            f"move may take {limit:g} s. Choose an easier level, or rules with fewer or straighter ships "
            f"that may touch{advice}"
        )


def warm_up() -> None:
    """Every level's shooter, the stand-ins and both heat maps, run once under the standard rules.

    On a board half fired at, so that each kernel is loaded from the package's compiled kernels
    (:mod:`battleship.jit`) before a game needs it: what is warmed is the code, not any answer. Rules
    with a spacing margin are left out: their exact levels read a state graph, which the server compiles
    in the background once it is open (:mod:`battleship.web.graphs`), and compiling one here held the
    opening back by seconds.
    """
    from battleship.generators import draw, to_layout
    from battleship.inference.prior import fit

    for name in ("standard",):
        rules = preset(name)
        game = Game(to_layout(rules, draw(rules, "uniform", 1, 1, threads=False)[0]))
        for cell in range(rules.cells // 2):
            game.fire(cell)
        board = game.observation
        empty = fit(rules, np.zeros((0, len(rules.fleet)), dtype=np.int64))
        for m in MODES.values():
            jobs.shot(rules, board, m.spec, (0, 0), empty if m.spec == "learning" else None, stop=Stop())
        jobs.quick_shot(rules, board, (0, 0))
        jobs.analysis(rules, board, 600.0, True, stop=Stop())
        with contextlib.suppress(
            BattleshipError
        ):  # no sample in the time: its kernels are compiled all the same
            jobs.analysis(rules, board, 0.01, True, "warming up", stop=Stop())
        jobs.estimate(rules, board, True)
