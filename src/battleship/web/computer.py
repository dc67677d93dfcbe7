"""How the computer plays: its modes as difficulty levels, every move within a deadline (falling back to a
bounded shooter, and saying so), and which rules each level answers in time.

A move runs in a worker process (:mod:`battleship.web.workers`); the request holds a slot of the
gate's move lane meanwhile (the calculator's and the replay's heat maps hold analysis slots), which
bounds how much the server works on at once. When a move's deadline passes, the DataGenetics density
shooter answers instead in the request's own thread (a few milliseconds on any rules); a heat map
that cannot be exact in time is estimated the same way.

Before a game starts under rules and a level that think (Hard, Expert, Adaptive), the level is timed
on :func:`battleship.web.jobs.positions` in a worker: rules it cannot answer within the move's
deadline are refused, with the reason, when the game is created rather than move after move.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from battleship.errors import BattleshipError
from battleship.game import Game, Observation
from battleship.inference.prior import PlacementModel
from battleship.rules import Rules, preset
from battleship.stop import OutOfTime, Stop
from battleship.web import jobs
from battleship.web.gate import ANALYSIS, Gate
from battleship.web.workers import Workers

PROBABILITY_BUDGET_MS = (
    250  # C. Liam Brown's calculator thinks four seconds; a quarter second keeps play brisk
)
REFUSED_FOR = 600.0  # seconds a refusal is remembered (a busy machine may have slowed the timing)


@dataclass(frozen=True)
class Mode:
    """A level of play: the API's name for it, the level and what it does in plain words, its shooter."""

    name: str
    level: str
    words: str
    spec: str
    source: str
    thinks: bool  # runs the inference engines: timed per move, and checked before a game starts

    def json(self, rules: Rules | None = None) -> dict[str, Any]:
        shooter = jobs.named(self.spec, rules) if rules is not None else self.spec
        return {
            "mode": self.name,
            "level": self.level,
            "words": self.words,
            "shooter": shooter,
            "source": self.source,
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
             "the strongest measured shooter (docs/strategies.md)", True),
        Mode("learning", "Adaptive", "expects your ships where players have hidden theirs before", "learning",
             "C. Liam Brown's Learning mode: exact odds under a model of played layouts", True),
    )
}  # fmt: skip


def mode(name: str) -> Mode:
    """A mode by its API name, or a clear error."""
    if name not in MODES:
        raise BattleshipError(f"mode must be one of {', '.join(MODES)}, not {name!r}")
    return MODES[name]


@dataclass(frozen=True)
class Move:
    """The computer's chosen cell, the shooter that chose it, and why a stand-in did (None when none did)."""

    cell: int
    shooter: str
    fallback: str | None = None

    def json(self) -> dict[str, Any]:
        return {"shooter": self.shooter, "fallback": self.fallback}


class Computer:
    """The computer's thinking, bounded: moves, heat maps and the check of new rules."""

    def __init__(self, gate: Gate, workers: Workers, move_seconds: float, analysis_seconds: float):
        self.gate, self.workers = gate, workers
        self.move_seconds, self.analysis_seconds = move_seconds, analysis_seconds
        self.probe_seconds = 4 * move_seconds  # the wall-clock bound on timing a level (judged on CPU time)
        self._verdicts: dict[tuple[str, str], tuple[str | None, float]] = {}

    def _heavy(self, job, *args: Any, stop: Stop) -> Any:
        """A job in a worker (the caller holds a gate slot)."""
        return self.workers.run(job, *args, stop=stop)

    def move(
        self,
        rules: Rules,
        observation: Observation,
        name: str,
        seed: tuple[int, int],
        stop: Stop,
        model: PlacementModel | None = None,
    ) -> Move:
        """The cell ``name``'s shooter fires at; the density shooter's when it is out of time."""
        chosen = mode(name)
        shooter = jobs.named(chosen.spec, rules)
        if not chosen.thinks:  # a few microseconds: no worker needed
            return Move(jobs.shot(rules, observation, chosen.spec, seed, stop=Stop()), shooter)
        try:
            if stop.requested:  # the deadline passed while the request waited for a slot
                stop.check()
            return Move(
                self._heavy(jobs.shot, rules, observation, chosen.spec, seed, model, stop=stop), shooter
            )
        except OutOfTime:
            why = f"{chosen.level} ({shooter}) did not answer within {self.move_seconds:g} s"
        return Move(jobs.quick_shot(rules, observation, seed), jobs.FALLBACK, why)

    def heat(self, rules: Rules, observation: Observation, stop: Stop, skew: bool = False) -> dict[str, Any]:
        """Exact hit probabilities, or the estimate (``exact: false``, with ``note``) when out of time."""
        try:
            if stop.requested:  # the deadline passed while the request waited for a slot
                stop.check()
            return self._heavy(jobs.probabilities, rules, observation, skew, stop=stop)
        except OutOfTime:
            answer = jobs.estimate(rules, observation, skew)
            answer["note"] = (
                f"the exact count did not finish within {self.analysis_seconds:g} s: this is an estimate "
                "(each ship's placements counted on their own, as DataGenetics' density does)"
            )
            return answer

    def admit(self, rules: Rules, name: str, stop: Stop, model: PlacementModel | None = None) -> None:
        """Refuse, saying why, a level that cannot answer within the move's deadline under ``rules``.

        ``stop`` is the request's (its going away ends the timing); the timing itself has
        :attr:`probe_seconds` from when it gets a worker. Verdicts are remembered.
        """
        chosen = mode(name)
        if not chosen.thinks:
            return
        key = (rules.name if rules.name != "custom" else rules.to_toml(), name)
        why, when = self._verdicts.get(key, (None, -1.0))
        if when < 0 or (why is not None and time.monotonic() - when > REFUSED_FOR):
            why = self._time(rules, chosen, stop, model)
            self._verdicts[key] = (why, time.monotonic())
        if why:
            raise BattleshipError(why)

    def _probe(self, rules: Rules, chosen: Mode, model: PlacementModel | None, request: Stop) -> float:
        """Time ``chosen`` in a worker, within :attr:`probe_seconds` from now (sharing the request's flag)."""
        # the request going away stops the timing too
        return self._heavy(jobs.probe, rules, chosen.spec, model, stop=request.child(self.probe_seconds))

    def _time(self, rules: Rules, chosen: Mode, stop: Stop, model: PlacementModel | None) -> str | None:
        """Why ``chosen`` is too slow under ``rules``, or None: one move timed on each probe position."""
        limit = self.move_seconds
        shooter = jobs.named(chosen.spec, rules)
        try:
            seconds = self.gate.run(
                partial(self._probe, rules, chosen, model, stop), lane=ANALYSIS, stop=stop
            )
        except OutOfTime:
            seconds = None
        if seconds is not None and seconds <= limit:
            return None
        took = "did not finish" if seconds is None else f"took {seconds:.1f} s"
        return (
            f"{chosen.level} ({shooter}) is too slow under these rules: one of its moves {took} where a "
            f"move may take {limit:g} s. Choose an easier level, or rules with fewer or straighter ships "
            "that may touch"
        )


def warm_up() -> None:
    """Every level's shooter, the stand-ins and both heat maps, run once on the presets most played.

    On a board half fired at, so that each kernel is compiled (or loaded from the cache) without
    paying for a whole count: what is warmed is the code, not any answer.
    """
    from battleship.generators import draw, to_layout
    from battleship.inference.prior import fit

    for name in ("standard", "pirates"):
        rules = preset(name)
        game = Game(to_layout(rules, draw(rules, "uniform", 1, 1, threads=False)[0]))
        for cell in range(rules.cells // 2):
            game.fire(cell)
        board = game.observation
        empty = fit(rules, np.zeros((0, len(rules.fleet)), dtype=np.int64))
        for m in MODES.values():
            jobs.shot(rules, board, m.spec, [0], empty if m.spec == "learning" else None, stop=Stop())
        jobs.quick_shot(rules, board, [0])
        jobs.probabilities(rules, board, True, stop=Stop())
        jobs.estimate(rules, board, True)
