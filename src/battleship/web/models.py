"""The Adaptive (Learning) level's placement models, one per rules, fitted in the background from the layouts
people used in played games, and only once there are enough of them that none is one person's.

Privacy: a model (and the map of it the statistics page shows) is fitted from the layouts of played
games only when at least ``MIN_LAYOUTS`` distinct layouts of as many distinct games exist under the
rules; until then it is the uniform model (every layout equally likely), so neither the computer's
shots nor the page can give away one player's fleet. Each distinct layout counts once, however many
games used it: replaying one layout cannot steer the model.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from sqlalchemy.engine import Engine

from battleship import generators, notation
from battleship.errors import BattleshipError
from battleship.inference import prior
from battleship.rules import Rules
from battleship.web import store

MIN_LAYOUTS = 30  # distinct layouts of distinct played games before any learned or aggregated map
REFIT_EVERY = 10  # the model is refitted every this many new played games


def enough(layouts: list[tuple[str, str]]) -> int:
    """How many layouts count toward ``MIN_LAYOUTS``: distinct layouts, at most one per game."""
    return min(len({layout for _game, layout in layouts}), len({game for game, _layout in layouts}))


@dataclass(frozen=True)
class Fitted:
    """A model, the played games it was fitted after, the layouts it learned from (0: uniform), its open-board shift."""

    played: int
    model: prior.PlacementModel
    learned_from: int
    shift: np.ndarray


class Models:
    """The models by rules; readers get the newest at once (a request never waits for a refit)."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self._lock = threading.Lock()
        self._fitted: dict[str, Fitted] = {}
        self._fitting: dict[str, threading.Lock] = {}
        self._cannot: dict[str, str] = {}  # rules whose model cannot be fitted, and why

    @staticmethod
    def key(rules: Rules) -> str:
        return rules.name if rules.name != "custom" else rules.to_toml()

    def get(self, rules: Rules) -> Fitted | None:
        """The newest fitted model (None while the first is being fitted); starts a refit when stale."""
        if self.key(rules) in self._cannot:
            return None
        played = store.count_played(self.engine, rules.name, self._toml(rules))
        with self._lock:
            fitted = self._fitted.get(self.key(rules))
        if fitted is None or played - fitted.played >= REFIT_EVERY:
            self.refit_in_background(rules)
        return fitted

    def refit_in_background(self, rules: Rules) -> None:
        """Fit in a daemon thread, unless a fit of these rules is under way."""
        if self._fit_lock(rules).locked():
            return
        threading.Thread(target=self.fit, args=(rules, False), daemon=True, name="fit-learning").start()

    def fit(self, rules: Rules, wait: bool = True) -> Fitted | None:
        """Fit the model to the played games now (one fit of a rules at a time; ``wait`` for it)."""
        lock = self._fit_lock(rules)
        if not lock.acquire(blocking=wait):
            return None
        try:
            with self._lock:
                fitted = self._fitted.get(self.key(rules))
            played = store.count_played(self.engine, rules.name, self._toml(rules))
            if fitted is not None and played - fitted.played < REFIT_EVERY:
                return fitted  # another caller fitted it while this one waited
            layouts = store.human_layouts(self.engine, rules.name, self._toml(rules))
            texts = sorted({text for _game, text in layouts}) if enough(layouts) >= MIN_LAYOUTS else []
            rows = generators.to_indices(rules, [notation.parse_layout(t, rules) for t in texts])
            try:
                model = prior.fit(rules, rows.reshape(-1, len(rules.fleet)))
                model.prior()  # computed here, once: the worker processes receive it with the model
                fitted = Fitted(played, model, len(texts), prior.open_board_shift(model))
            except BattleshipError as exc:  # beyond what the prior's exact counts reach
                self._cannot[self.key(rules)] = str(exc)
                return None
            with self._lock:
                self._fitted[self.key(rules)] = fitted
            return fitted
        finally:
            lock.release()

    def cannot(self, rules: Rules) -> str | None:
        """Why no model can be fitted under ``rules`` (known once a fit was tried), or None."""
        return self._cannot.get(self.key(rules))

    def model(self, rules: Rules) -> prior.PlacementModel:
        """The model to play with now (fitted at once only if none exists yet); a clear error if none can be."""
        fitted = self.get(rules) or self.fit(rules)
        if fitted is None:
            raise BattleshipError(f"the Adaptive level cannot play these rules: {self.cannot(rules)}")
        return fitted.model

    @staticmethod
    def _toml(rules: Rules) -> str | None:
        return rules.to_toml() if rules.name == "custom" else None

    def _fit_lock(self, rules: Rules) -> threading.Lock:
        with self._lock:
            return self._fitting.setdefault(self.key(rules), threading.Lock())
