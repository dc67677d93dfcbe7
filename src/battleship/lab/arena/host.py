"""Run a Python Shooter class as an arena bot: ``python -m battleship.lab.arena.host module:Class``.

The arena starts this in a process of its own for a bot named ``package.module:Class`` (or
``path/to/file.py:Class``), so a class gets the same referee, limits and restarts as any program.
The class is built with no arguments and must have the Shooter protocol: ``reset(rules, rng)`` at
each new game (``rng`` is ``numpy.random.default_rng(seed)`` with the game's seed) and
``next_shot(observation) -> cell``. It may also have ``place(rules, rng) -> Layout`` to hide its own
fleet in matches, and ``next_salvo(observation, k)`` to choose a salvo whole (else it is asked
for its next K cells, as :func:`battleship.game.choose_salvo` asks). Its ``name`` attribute, if
any, is reported to the arena. The host speaks version 3 of the protocol (it says ``protocol 3``): under
``[noise]`` rules each answer is added to the observation as it comes, a cell fired at again included
(a shooter that reads answers that lie, ``plays_noise``, weighs them; one that does not still plays, as
the class asks); under a cheating hider the answers are the hider's, read as any others.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import TextIO

import numpy as np

from battleship.cells import cell_name
from battleship.game import Observation, Shooter, Shot, choose_salvo
from battleship.lab.arena import protocol
from battleship.rules import Rules


def load_class(target: str) -> type:
    """The class ``target`` names: ``package.module:Class`` (importable from here) or ``file.py:Class``."""
    where, _, attr = target.rpartition(":")
    if where.endswith(".py"):
        spec = importlib.util.spec_from_file_location(Path(where).stem, where)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {where}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    return getattr(module, attr)


RULES_WORDS = ("rules", "board", "spacing", "sinks", "reflections", "ship", "salvo", "noise", "hider", "end")


class Host:
    """The bot side of the protocol around one Shooter object."""

    def __init__(self, shooter: Shooter, out: TextIO):
        self.shooter, self.out = shooter, out
        self.reader = protocol.RulesReader()
        self.rules: Rules | None = None
        self.observation: Observation | None = None
        self.rng: np.random.Generator | None = None
        self.aimed: tuple[int, ...] = ()  # the salvo fired, while its ``result`` lines come in
        self.answered: list[Shot] = []

    def say(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def handle(self, line: str) -> bool:
        """Act on one line from the referee; False once told to quit."""
        word, _, rest = line.partition(" ")
        if word in RULES_WORDS and (word != "salvo" or self.rules is None):
            self.reader.feed(line)
            self.rules = self.reader.rules
        elif word == "isready":
            name = getattr(self.shooter, "name", None)
            if name:
                self.say(f"name {name}")
            self.say(f"protocol {protocol.VERSION}")
            self.say("readyok")
        elif word == "newgame":
            self.rng = np.random.default_rng(int(rest.split()[1]))
            rules = self._rules(word)
            self.observation = Observation(rules)
            self.shooter.reset(rules, self.rng)
        elif word == "shoot":
            self._shoot(word, rest)
        elif word == "result":
            self._result(line)
        elif word == "salvo":  # a salvo answered whole (ships or count answers)
            self.observation = self._observation(word).after_volley(
                protocol.read_volley(line, self._rules(word))
            )
        elif word == "place":
            self.say(f"layout {self._layout()}")
        elif word == "quit":
            return False
        return True  # anything else (gameover, a later version's news) needs no answer

    def _shoot(self, word: str, rest: str) -> None:
        """Answer ``shoot`` with a cell, or ``shoot K`` with a salvo of K cells on one line."""
        observation, rules = self._observation(word), self._rules(word)
        if not rest:
            self.say(cell_name(int(self.shooter.next_shot(observation)), rules.cols))
            return
        self.aimed, self.answered = choose_salvo(self.shooter, observation, int(rest)), []
        self.say(" ".join(cell_name(c, rules.cols) for c in self.aimed))

    def _result(self, line: str) -> None:
        """A shot's answer: the one-shot game's, or one of a salvo's (the salvo is seen once all are in)."""
        observation, rules = self._observation("result"), self._rules("result")
        shot = protocol.read_result(line, rules)
        if rules.salvo is None:
            self.observation = observation.after(shot)
            return
        self.answered.append(shot)
        if len(self.answered) == len(self.aimed):
            self.observation = observation.after_volley(protocol.volley_of(tuple(self.answered)))

    def _rules(self, word: str) -> Rules:
        if self.rules is None:
            raise protocol.ProtocolError(f"{word!r} before the rules block")
        return self.rules

    def _observation(self, word: str) -> Observation:
        if self.observation is None:
            raise protocol.ProtocolError(f"{word!r} before 'newgame'")
        return self.observation

    def _layout(self) -> str:
        place = getattr(self.shooter, "place", None)
        if place is None:
            return "random"
        return place(self.rules, self.rng).text()


def main(argv: list[str]) -> int:
    """Load the class ``argv[0]`` names and serve the protocol on stdin/stdout."""
    if len(argv) != 1:
        print("usage: python -m battleship.lab.arena.host package.module:Class", file=sys.stderr)
        return 2
    sys.path.insert(0, os.getcwd())
    host = Host(load_class(argv[0])(), sys.stdout)
    for line in sys.stdin:
        if not host.handle(line.strip()):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
