"""The game against the computer (C. Liam Brown's html5 game) on this project's engine, independent of HTTP.

A game is its two layouts and its moves; everything else (answers, sunk ships, whose turn, the
end) is replayed from them with :class:`battleship.notation.PaperGame`, so what is stored is
exactly the Dunman High paper's game notation. The computer's shooter is made afresh for every move and sees only
its :class:`battleship.game.Observation` of the player's board.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sqlalchemy.engine import Engine

from battleship import generators, notation
from battleship import rules as rules_mod
from battleship.cells import cell_name, parse_cell
from battleship.errors import BattleshipError
from battleship.game import Game, Observation, Outcome, Shot
from battleship.inference import posterior, prior
from battleship.layout import Layout
from battleship.rng import game_rng
from battleship.rules import Rules, Sinks, preset
from battleship.shooters import make
from battleship.shooters.density import best_cells
from battleship.shooters.learning import LearningShooter
from battleship.shooters.learning import refusal as learning_refusal
from battleship.web import store

PLAYER, COMPUTER = "Player", "Computer"
RULES = ("standard", "datagenetics", "pirates", "r-blog")
PROBABILITY_BUDGET_MS = (
    250  # C. Liam Brown's calculator thinks for four seconds; a quarter second keeps the page brisk
)
HEAT_CACHE = 2048  # replay heat maps kept (a finished game's never change)
REFIT_EVERY = 10  # the Learning mode refits its model every this many new played games
MODES = {
    "random": "Random: any square not yet fired at, even after a hit",
    "probability": f"Probability (C. Liam Brown's calculator): exact Monte Carlo samples for {PROBABILITY_BUDGET_MS} ms a move, diagonal skew",
    "best": "Best: the strongest shooter measured for the rules",
    "learning": "Learning (C. Liam Brown's calculator): exact probabilities under a prior fitted to the layouts players used",
}


class NotFound(BattleshipError):
    """No game has that id."""


class Conflict(BattleshipError):
    """The move is not allowed now (not your turn, or the game is over)."""


def rules_for(name: str) -> Rules:
    """One of the rules the game offers."""
    if name not in RULES:
        raise BattleshipError(f"rules must be one of {', '.join(RULES)}, not {name!r}")
    return preset(name)


# custom rules (the CLI's TOML) are played within these bounds, which keep every move of the modes
# offered on them to about two seconds of CPU (measured with the best shooter on 10x10 boards)
MAX_RULES_TOML = 4000  # characters
MAX_SIDE = 10
MAX_SHIPS = 6
MAX_SHIP_CELLS = 5
CUSTOM_MODES = ("random", "best")


def custom_rules(text: str) -> Rules:
    """Rules from a TOML document, as ``--rules FILE.toml`` reads it, within the web's bounds."""
    if len(text) > MAX_RULES_TOML:
        raise BattleshipError(f"rules_toml: at most {MAX_RULES_TOML} characters, not {len(text)}")
    rules = rules_mod.from_toml(text, "rules_toml")
    if max(rules.rows, rules.cols) > MAX_SIDE:
        raise BattleshipError(f"rules_toml: the web plays boards of at most {MAX_SIDE}x{MAX_SIDE}")
    if len(rules.fleet) > MAX_SHIPS:
        raise BattleshipError(f"rules_toml: the web plays fleets of at most {MAX_SHIPS} ships")
    big = [s.name for s in rules.fleet if s.size > MAX_SHIP_CELLS]
    if big:
        raise BattleshipError(f"rules_toml: ships of at most {MAX_SHIP_CELLS} cells ({big[0]} has more)")
    return replace(rules, name="custom")


def pick_rules(name: str, toml: str | None) -> Rules:
    """Custom rules when ``toml`` is given, else the preset ``name``."""
    return custom_rules(toml) if toml is not None else rules_for(name)


def rules_of(row: dict[str, Any]) -> Rules:
    """The rules a stored game was played under."""
    return pick_rules(row["rules"], row["rules_toml"] if row["rules"] == "custom" else None)


def check_mode(rules: Rules, mode: str) -> None:
    """Refuse unknown modes, modes not offered on custom rules, and Learning where its prior cannot be counted fast."""
    if mode not in MODES:
        raise BattleshipError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if rules.name == "custom" and mode not in CUSTOM_MODES:
        raise BattleshipError(
            f"on custom rules the computer plays {' or '.join(CUSTOM_MODES)}, not {mode} "
            "(its time per move is not bounded on every fleet)"
        )
    why = learning_refusal(rules) if mode == "learning" else None
    if why:
        raise BattleshipError(f"the Learning mode cannot play {rules.name}: {why}")


@dataclass
class Replay:
    """A stored game replayed: both sides' games and the notation."""

    rules: Rules
    player_layout: Layout
    computer_layout: Layout
    moves: list[tuple[str, int]]
    at_computer: Game  # the player's shots at the computer's fleet
    at_player: Game  # the computer's shots at the player's fleet


def replay(row: dict[str, Any]) -> Replay:
    """Rebuild a game from its stored row."""
    rules = rules_of(row)
    paper = notation.read_game(row["record"], rules)
    layouts = dict(paper.players)
    at_computer, at_player = Game(layouts[COMPUTER]), Game(layouts[PLAYER])
    for who, cell in paper.moves:
        (at_computer if who == PLAYER else at_player).fire(cell)
    return Replay(rules, layouts[PLAYER], layouts[COMPUTER], list(paper.moves), at_computer, at_player)


def write_record(rules: Rules, player: Layout, computer: Layout, moves: list[tuple[str, int]]) -> str:
    """The Dunman High paper's game notation of the whole game so far."""
    return notation.write_game(
        notation.PaperGame(rules, ((PLAYER, player), (COMPUTER, computer)), tuple(moves))
    )


def shot_json(shot: Shot, rules: Rules) -> dict[str, Any]:
    """A shot and its answer as the page reads it (cells of a revealed ship as a list)."""
    out: dict[str, Any] = {"cell": shot.cell, "outcome": shot.outcome.value}
    if shot.ship is not None:
        out["ship"] = rules.fleet[shot.ship].name
    if shot.cells:
        out["cells"] = [c for c in range(rules.cells) if shot.cells >> c & 1]
    return out


def layout_json(layout: Layout) -> dict[str, Any]:
    """A layout: its notation and each ship's cells."""
    rules = layout.rules
    return {
        "notation": notation.format_layout(layout),
        "ships": [
            {"name": ship.name, "cells": [c for c in range(rules.cells) if mask >> c & 1]}
            for ship, mask in zip(rules.fleet, layout.masks, strict=True)
        ],
    }


def random_layout_json(rules_name: str) -> dict[str, Any]:
    """A uniformly random layout, as :func:`layout_json` gives it."""
    rules = rules_for(rules_name)
    return layout_json(generators.generate(rules, "uniform", secrets.randbits(63), 1)[0])


def rules_json(rules: Rules) -> dict[str, Any]:
    """What the page needs to draw the rules (and, for custom rules, the TOML that gives them)."""
    out = {
        "name": rules.name,
        "rows": rules.rows,
        "cols": rules.cols,
        "sinks": rules.sinks.value,
        "spacing": rules.spacing.value,
        "fleet": [{"name": s.name, "symbol": s.symbol, "size": s.size} for s in rules.fleet],
    }
    if rules.name == "custom":
        out["toml"] = rules.to_toml()
    return out


class Service:
    """Games against the computer, stored in ``engine``."""

    def __init__(self, engine: Engine):
        self.engine = engine
        # moves on one game go one at a time; a fixed set of locks, striped by id, stays bounded
        self._locks = [threading.Lock() for _ in range(64)]
        self.models = Models(engine)
        self._heat: dict[tuple[str, int, str], dict[str, Any]] = {}
        self._heat_lock = threading.Lock()

    def _lock(self, game_id: str) -> threading.Lock:
        return self._locks[hash(game_id) % len(self._locks)]

    # ---- games ------------------------------------------------------------------------------

    def new_game(
        self, rules_name: str, mode: str, layout: str | None = None, rules_toml: str | None = None
    ) -> dict[str, Any]:
        """Start a game: the player's layout (notation) or a random one, and a hidden random one.

        ``rules_toml`` plays custom rules (a TOML document, within the web's bounds) instead of a preset.
        """
        rules = pick_rules(rules_name, rules_toml)
        check_mode(rules, mode)
        if layout is not None:
            player = notation.parse_layout(layout, rules)
        else:
            player = generators.generate(rules, "uniform", secrets.randbits(63), 1)[0]
        computer = generators.generate(rules, "uniform", secrets.randbits(63), 1)[0]
        game_id = secrets.token_hex(16)
        now = store.now()
        store.create(
            self.engine,
            {
                "id": game_id,
                "created": now,
                "updated": now,
                "rules": rules.name,
                "rules_toml": rules.to_toml() if rules_toml is not None else None,
                "mode": mode,
                "play_for_me": False,
                "status": "player-turn",
                "moves": 0,
                "seed": str(secrets.randbits(63)),
                "player_layout": notation.format_layout(player),
                "computer_layout": notation.format_layout(computer),
                "record": write_record(rules, player, computer, []),
            },
        )
        return self.state(game_id)

    def _row(self, game_id: str) -> dict[str, Any]:
        if not (
            isinstance(game_id, str) and len(game_id) == 32 and all(c in "0123456789abcdef" for c in game_id)
        ):
            raise NotFound("no such game")
        row = store.load(self.engine, game_id)
        if row is None:
            raise NotFound("no such game")
        return row

    def state(self, game_id: str) -> dict[str, Any]:
        """The player's view: never the computer's layout before the game is over."""
        row = self._row(game_id)
        game = replay(row)
        rules = game.rules
        over = row["status"] == "over"
        view: dict[str, Any] = {
            "id": row["id"],
            "rules": rules_json(rules),
            "mode": row["mode"],
            "status": row["status"],
            "winner": row["winner"],
            "resigned": row["resigned"],
            "play_for_me": row["play_for_me"],
            "moves": row["moves"],
            "player_layout": layout_json(game.player_layout),
            "player_shots": [shot_json(s, rules) for s in game.at_computer.observation.shots],
            "computer_shots": [shot_json(s, rules) for s in game.at_player.observation.shots],
            "computer_ships_left": self._ships_left(game.at_computer, rules) if not over else 0,
        }
        if over:
            view["computer_layout"] = layout_json(game.computer_layout)
            view["notation"] = row["notation"]
        return view

    @staticmethod
    def _ships_left(game: Game, rules: Rules) -> int | None:
        """Ships of the computer's fleet not yet announced sunk (None when the rules never say)."""
        if rules.sinks is Sinks.NONE:
            return None
        sunk = sum(1 for s in game.observation.shots if s.outcome is Outcome.SUNK)
        return len(rules.fleet) - sunk

    def _commit(
        self, row: dict[str, Any], game: Replay, move: tuple[str, int], extra: dict[str, Any]
    ) -> None:
        """Store the game with one more move; the end of the game is decided here."""
        moves = [*game.moves, move]
        changes: dict[str, Any] = {"moves": len(moves), **extra}
        changes["record"] = write_record(game.rules, game.player_layout, game.computer_layout, moves)
        if game.at_computer.over or game.at_player.over:
            changes.update(
                status="over",
                winner="player" if game.at_computer.over else "computer",
                finished=store.now(),
                notation=changes["record"],
            )
        else:
            changes["status"] = "computer-turn" if move[0] == PLAYER else "player-turn"
        if not store.save(self.engine, row["id"], changes, row["moves"]):
            raise Conflict("the game moved on meanwhile; fetch its state again")

    def _on_turn(self, game_id: str, turn: str) -> tuple[dict[str, Any], Replay]:
        """The game's row and replay, if it is ``turn`` (``player-turn`` or ``computer-turn``) now."""
        row = self._row(game_id)
        if row["status"] != turn:
            other = "the computer's" if turn == "player-turn" else "the player's"
            raise Conflict("the game is over" if row["status"] == "over" else f"it is {other} turn")
        return row, replay(row)

    def fire(self, game_id: str, cell: int | str | None = None, auto: bool = False) -> dict[str, Any]:
        """The player's shot (a cell index or name such as B7), or the best shooter's with ``auto``."""
        with self._lock(game_id):
            row, game = self._on_turn(game_id, "player-turn")
            rules = game.rules
            if auto:
                shooter = make("best")
                shooter.reset(rules, game_rng(int(row["seed"]), 1))
                target = int(shooter.next_shot(game.at_computer.observation))
            else:
                target = read_cell(cell, rules)
                if game.at_computer.observation.is_shot(target):
                    raise BattleshipError(f"{cell_name(target, rules.cols)} has been fired at already")
            shot = game.at_computer.fire(target)
            self._commit(row, game, (PLAYER, target), {"play_for_me": True} if auto else {})
        return {"shot": shot_json(shot, rules), "state": self.state(game_id)}

    def computer_turn(self, game_id: str) -> dict[str, Any]:
        """The computer's shot at the player's fleet, by its mode's shooter."""
        with self._lock(game_id):
            row, game = self._on_turn(game_id, "computer-turn")
            rules = game.rules
            shooter = self._shooter(rules, row["mode"])
            # the game's stream every turn: the computer plays `battleship play` on the player's
            # fleet with the game's seed, shot for shot
            shooter.reset(rules, game_rng(int(row["seed"]), 0))
            shot = game.at_player.fire(int(shooter.next_shot(game.at_player.observation)))
            self._commit(row, game, (COMPUTER, shot.cell), {})
        return {"shot": shot_json(shot, rules), "state": self.state(game_id)}

    def resign(self, game_id: str) -> dict[str, Any]:
        """The player gives up: the game ends, the computer wins, both layouts are shown."""
        with self._lock(game_id):
            row = self._row(game_id)
            if row["status"] == "over":
                raise Conflict("the game is over")
            changes = {"status": "over", "winner": "computer", "resigned": True, "finished": store.now()}
            changes["notation"] = row["record"]
            if not store.save(self.engine, game_id, changes, row["moves"]):
                raise Conflict("the game moved on meanwhile; fetch its state again")
        return self.state(game_id)

    # ---- the replay ------------------------------------------------------------------------------

    def replay_view(self, game_id: str) -> dict[str, Any]:
        """A finished game move by move: who fired where, the answer, and the move in the paper's notation."""
        row = self._finished(game_id)
        game = replay(row)
        rules = game.rules
        shots = {
            PLAYER: iter(game.at_computer.observation.shots),
            COMPUTER: iter(game.at_player.observation.shots),
        }
        moves = []
        for n, (who, cell) in enumerate(game.moves, 1):
            shot = shot_json(next(shots[who]), rules)
            moves.append(
                {
                    "n": n,
                    "player": who.lower(),
                    "name": cell_name(cell, rules.cols),
                    "notation": notation.write_move(who, cell, rules),
                    **shot,
                }
            )
        return {
            "id": row["id"],
            "rules": rules_json(rules),
            "mode": row["mode"],
            "winner": row["winner"],
            "resigned": row["resigned"],
            "play_for_me": row["play_for_me"],
            "player_layout": layout_json(game.player_layout),
            "computer_layout": layout_json(game.computer_layout),
            "moves": moves,
            "notation": row["notation"],
        }

    def heat(self, game_id: str, move: int, side: str = "computer") -> dict[str, Any]:
        """The exact hit probabilities a side saw after ``move`` moves of a finished game.

        ``computer``: the computer's view of the player's board (the DataGenetics walkthrough's heat
        map beside the board); ``player``: the player's view of the computer's board.
        """
        key = (game_id, move, side)
        with self._heat_lock:
            if key in self._heat:
                return self._heat[key]
        row = self._finished(game_id)
        game = replay(row)
        if not 0 <= move <= len(game.moves):
            raise BattleshipError(f"move must be from 0 to {len(game.moves)}, not {move}")
        shooter = COMPUTER if side == "computer" else PLAYER
        target = Game(game.player_layout if shooter == COMPUTER else game.computer_layout)
        for who, cell in game.moves[:move]:
            if who == shooter:
                target.fire(cell)
        result = posterior(game.rules, target.observation)
        answer = {
            "move": move,
            "side": side,
            "layouts": str(result.layouts),
            "engine": result.engine,
            "probability": [round(float(p), 6) for p in result.probability.ravel()],
        }
        with self._heat_lock:
            if len(self._heat) >= HEAT_CACHE:
                self._heat.pop(next(iter(self._heat)))  # oldest first: finished games never change
            self._heat[key] = answer
        return answer

    def _finished(self, game_id: str) -> dict[str, Any]:
        """A finished game's row (its replay shows the computer's layout, so only once it is over)."""
        row = self._row(game_id)
        if row["status"] != "over":
            raise Conflict("the replay opens once the game is over")
        return row

    # ---- the computer's shooters ------------------------------------------------------------

    def _shooter(self, rules: Rules, mode: str):
        if mode == "random":
            return make("random")
        if mode == "probability":
            return make(f"montecarlo:budget={PROBABILITY_BUDGET_MS},skew=20")
        if mode == "best":
            return make("best")
        return LearningShooter(model=self.model(rules))

    def model(self, rules: Rules) -> prior.PlacementModel:
        """The Learning mode's placement model for ``rules`` (fitted now only if none exists yet)."""
        fitted = self.models.get(rules)
        return fitted.model if fitted is not None else self.models.fit(rules).model


@dataclass(frozen=True)
class Fitted:
    """A Learning model, the played games it was fitted after, and its open-board shift from uniform."""

    played: int
    model: prior.PlacementModel
    shift: np.ndarray


class Models:
    """The Learning mode's models, one per rules, refitted in the background as played games accumulate.

    Readers get the newest fitted model at once (a request never waits for a refit); a model older
    than ``REFIT_EVERY`` played games starts one refit in a background thread.
    """

    def __init__(self, engine: Engine):
        self.engine = engine
        self._lock = threading.Lock()
        self._fitted: dict[str, Fitted] = {}
        self._fitting: dict[str, threading.Lock] = {}

    def get(self, rules: Rules) -> Fitted | None:
        """The newest fitted model (None while the first is being fitted); starts a refit when stale."""
        played = store.count_played(self.engine, rules.name)
        with self._lock:
            fitted = self._fitted.get(rules.name)
        if fitted is None or played - fitted.played >= REFIT_EVERY:
            self.refit_in_background(rules)
        return fitted

    def refit_in_background(self, rules: Rules) -> None:
        """Fit in a daemon thread, unless a fit of these rules is under way."""
        lock = self._fit_lock(rules)
        if lock.locked():
            return
        threading.Thread(target=self.fit, args=(rules, False), daemon=True, name=f"fit-{rules.name}").start()

    def fit(self, rules: Rules, wait: bool = True) -> Fitted | None:
        """Fit the model to the played games now (one fit of a rules at a time; ``wait`` for it)."""
        lock = self._fit_lock(rules)
        if not lock.acquire(blocking=wait):
            return None
        try:
            with self._lock:
                fitted = self._fitted.get(rules.name)
            played = store.count_played(self.engine, rules.name)
            if fitted is not None and played - fitted.played < REFIT_EVERY:
                return fitted  # another caller fitted it while this one waited
            texts = store.player_layouts(self.engine, rules.name)
            rows = generators.to_indices(rules, [notation.parse_layout(t, rules) for t in texts])
            model = prior.fit(rules, rows.reshape(-1, len(rules.fleet)))
            fitted = Fitted(played, model, prior.open_board_shift(model))
            with self._lock:
                self._fitted[rules.name] = fitted
            return fitted
        finally:
            lock.release()

    def _fit_lock(self, rules: Rules) -> threading.Lock:
        with self._lock:
            return self._fitting.setdefault(rules.name, threading.Lock())


def read_cell(cell: int | str | None, rules: Rules) -> int:
    """A cell index or name (``B7``) on this board; a clear error otherwise."""
    if isinstance(cell, bool) or cell is None:
        raise BattleshipError("give the cell to fire at: an index or a name such as B7")
    if isinstance(cell, int):
        if not 0 <= cell < rules.cells:
            raise BattleshipError(f"cell {cell} is off the {rules.rows}x{rules.cols} board")
        return cell
    return parse_cell(str(cell), rules.rows, rules.cols)


def calculate(
    rules_name: str, board: str, skew: bool = False, rules_toml: str | None = None
) -> dict[str, Any]:
    """The calculator: exact hit probabilities, layouts left and the best cells of a board state."""
    rules = pick_rules(rules_name, rules_toml)
    observation = Observation.from_text(board, rules)
    result = posterior(rules, observation)
    probability = result.probability.ravel()
    best = best_cells(rules, observation, probability, 20 if skew else 0)
    return {
        "rules": rules_json(rules),
        "layouts": str(result.layouts),
        "probability": [round(float(p), 6) for p in probability],
        "best": best,
        "engine": result.engine,
    }
