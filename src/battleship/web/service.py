"""Games against the computer (C. Liam Brown's html5 game) on this project's engine, independent of HTTP.

A game is its two layouts and its moves (:mod:`battleship.web.records`). The computer's shooter is
made afresh for every move, sees only its observation of the player's board, and thinks within the
move's deadline (:mod:`battleship.web.computer`). Moves on one game go one at a time; a move is
committed only if nothing changed since it was read.
"""

from __future__ import annotations

import json
import secrets
import threading
from typing import Any

from sqlalchemy.engine import Engine

from battleship import generators, notation
from battleship.cells import cell_name, parse_cell
from battleship.errors import BattleshipError
from battleship.game import Game, Observation
from battleship.layout import Layout
from battleship.rules import Rules, Sinks
from battleship.shooters.learning import refusal as learning_refusal
from battleship.stop import Stop
from battleship.web import store
from battleship.web.computer import MODES, Computer, Move, mode
from battleship.web.models import Models
from battleship.web.records import (
    FRIEND,
    TURNS,
    Conflict,
    NotFound,
    Replay,
    history_status,
    layout_json,
    pick_rules,
    replay,
    rules_json,
    ships_afloat,
    shots_json,
    write_record,
)

PLAYER, COMPUTER = 0, 1  # the sides of a game against the computer: the player moves first
HEAT_CACHE = 2048  # replay heat maps kept (a finished game's never change)
MAX_LOOKUP = 200  # games one history request may ask about
MAX_CELL_TEXT = 12  # characters of a cell name an error quotes back

__all__ = ["Conflict", "Games", "NotFound", "Service", "calculate", "random_layout"]


def random_layout(rules: Rules) -> Layout:
    """A uniformly random layout (on the calling thread: the threaded generator is not for many callers at once)."""
    row = generators.draw(rules, "uniform", secrets.randbits(63), 1, threads=False)[0]
    return generators.to_layout(rules, row)


def read_cell(cell: object, rules: Rules) -> int:
    """A cell index or name (``B7``) on this board; otherwise an error naming the field, the value and
    what this board allows (a name in the engine's words, :func:`battleship.cells.parse_cell`)."""
    allowed = f"an index 0..{rules.cells - 1} or a name {cell_name(0, rules.cols)}..{cell_name(rules.cells - 1, rules.cols)}"
    if cell is None:
        raise BattleshipError(f"cell: give the cell to fire at, {allowed}")
    if isinstance(cell, int) and not isinstance(cell, bool):
        if not 0 <= cell < rules.cells:
            raise BattleshipError(f"cell: {cell} is off the {rules.rows}x{rules.cols} board ({allowed})")
        return cell
    if not isinstance(cell, str):
        raise BattleshipError(f"cell: {json.dumps(cell)[:40]} is not a cell ({allowed})")
    if len(cell) > MAX_CELL_TEXT:
        raise BattleshipError(f"cell: {cell[:MAX_CELL_TEXT]!r}... is not a cell name ({allowed})")
    try:
        return parse_cell(cell, rules.rows, rules.cols)
    except BattleshipError as error:
        raise BattleshipError(f"cell: {error}; this board takes {allowed}") from None


def new_row(rules: Rules, mode_name: str, **fields: Any) -> dict[str, Any]:
    """A new game's row: a fresh 128-bit id, the times, the rules (custom ones as TOML), no move yet."""
    now = store.now()
    return {
        "id": secrets.token_hex(16),
        "created": now,
        "updated": now,
        "rules": rules.name,
        "rules_toml": rules.to_toml() if rules.name == "custom" else None,
        "mode": mode_name,
        "play_for_me": False,
        "moves": 0,
        **fields,
    }


class Games:
    """What every kind of game shares: rows by id, one move at a time, the commit that ends a game."""

    def __init__(self, engine: Engine):
        self.engine = engine
        # moves on one game go one at a time; a fixed set of locks, striped by id, stays bounded
        self._locks = [threading.RLock() for _ in range(64)]

    def _lock(self, game_id: str) -> threading.RLock:
        return self._locks[hash(game_id) % len(self._locks)]

    def _row(self, game_id: str) -> dict[str, Any]:
        if not (
            isinstance(game_id, str) and len(game_id) == 32 and all(c in "0123456789abcdef" for c in game_id)
        ):
            raise NotFound("no such game")
        row = store.load(self.engine, game_id)
        if row is None:
            raise NotFound("no such game (unfinished games are deleted after a day without a move)")
        return row

    def _save(self, row: dict[str, Any], changes: dict[str, Any]) -> None:
        if not store.save(self.engine, row["id"], changes, {"moves": row["moves"], "status": row["status"]}):
            raise Conflict("the game moved on meanwhile; fetch its state again")

    def _commit(self, row: dict[str, Any], game: Replay, side: int, cell: int, extra: dict[str, Any]) -> None:
        """Store the game with one more move by ``side``; the end of the game is decided here."""
        moves = [*game.moves, (game.names[side], cell)]
        changes: dict[str, Any] = {"moves": len(moves), **extra}
        changes["record"] = write_record(game.rules, game.names, game.layouts, moves)
        if game.target(side).over:
            winner = ("player", "computer")[side] if row["mode"] != FRIEND else f"player{side + 1}"
            changes.update(status="over", winner=winner, finished=store.now(), ended_by="sunk")
            changes["notation"] = changes["record"]
        else:
            changes["status"] = TURNS[1 - side]
        self._save(row, changes)

    def _finished(self, game_id: str) -> dict[str, Any]:
        """A finished game's row (its replay shows both layouts, so only once it is over)."""
        row = self._row(game_id)
        if row["status"] != "over":
            raise Conflict("the replay opens once the game is over")
        return row

    def summaries(self, game_ids: list[str]) -> list[dict[str, Any]]:
        """What the history of games kept in a browser shows: one line per game that still exists."""
        if len(game_ids) > MAX_LOOKUP:
            raise BattleshipError(f"ask about at most {MAX_LOOKUP} games at once, not {len(game_ids)}")
        rows = store.load_many(self.engine, [g for g in game_ids if isinstance(g, str)])
        order = {g: i for i, g in enumerate(game_ids)}
        return [_summary(r) for r in sorted(rows, key=lambda r: order[r["id"]])]


def _summary(row: dict[str, Any]) -> dict[str, Any]:
    """One game in a history list."""
    rules = row["rules"] if row["rules"] != "custom" else "custom"
    return {
        "id": row["id"],
        "rules": rules,
        "mode": row["mode"],
        "status": history_status(row),
        "winner": row["winner"],
        "ended_by": row["ended_by"] or ("resigned" if row["resigned"] else "sunk" if row["winner"] else None),
        "moves": row["moves"],
        "created": row["created"].isoformat(),
        "finished": row["finished"].isoformat() if row["finished"] else None,
    }


class Service(Games):
    """Games against the computer, stored in ``engine``."""

    def __init__(self, engine: Engine, computer: Computer, models: Models | None = None):
        super().__init__(engine)
        self.computer = computer
        self.models = models or Models(engine)
        self._heat: dict[tuple[str, int, str], dict[str, Any]] = {}
        self._heat_lock = threading.Lock()

    def new_game(
        self,
        rules_name: str | None,
        mode_name: str,
        layout: str | None = None,
        rules_toml: str | None = None,
        stop: Stop | None = None,
    ) -> dict[str, Any]:
        """Start a game: the player's layout (notation) or a random one, and a hidden random one.

        ``rules_toml`` plays custom rules (within the web's bounds) instead of a preset; a level that
        cannot answer in time under the rules is refused, saying why.
        """
        rules = pick_rules(rules_name, rules_toml)
        chosen = mode(mode_name)
        if chosen.name == "learning" and (why := learning_refusal(rules)):
            raise BattleshipError(f"the Adaptive level cannot play these rules: {why}")
        player = notation.parse_layout(layout, rules) if layout is not None else random_layout(rules)
        model = self.models.model(rules) if chosen.name == "learning" else None
        self.computer.admit(rules, chosen.name, stop or Stop(), model)
        computer = random_layout(rules)
        row = new_row(
            rules,
            chosen.name,
            status=TURNS[PLAYER],
            seed=str(secrets.randbits(63)),
            player_layout=notation.format_layout(player),
            computer_layout=notation.format_layout(computer),
            record=write_record(rules, ("Player", "Computer"), (player, computer), []),
        )
        store.create(self.engine, row)
        state = self.state(row["id"])
        if notice := self.computer.readiness(rules, chosen.name, model):
            state["notice"] = notice
        return state

    def state(self, game_id: str) -> dict[str, Any]:
        """The player's view: never the computer's layout before the game is over."""
        row = self._row(game_id)
        if row["mode"] == FRIEND:
            raise NotFound("that game is between friends: open it with your seat's link")
        game = replay(row)
        rules = game.rules
        over = row["status"] == "over"
        view: dict[str, Any] = {
            "id": row["id"],
            "rules": rules_json(rules),
            "mode": row["mode"],
            "level": MODES[row["mode"]].json(rules),
            "status": row["status"],
            "winner": row["winner"],
            "resigned": row["resigned"],
            "play_for_me": row["play_for_me"],
            "moves": row["moves"],
            "player_layout": layout_json(game.layouts[PLAYER]),
            "player_shots": shots_json(game.at[COMPUTER].observation.shots, rules),
            "computer_shots": shots_json(game.at[PLAYER].observation.shots, rules),
            "computer_ships_left": ships_afloat(game.layouts[COMPUTER], game.at[COMPUTER].observation, over),
            "player_ships_left": ships_afloat(game.layouts[PLAYER], game.at[PLAYER].observation, True),
        }
        if over:
            view["computer_layout"] = layout_json(game.layouts[COMPUTER])
            view["notation"] = row["notation"]
        return view

    def _on_turn(self, game_id: str, side: int) -> tuple[dict[str, Any], Replay]:
        """The game's row and replay, if it is ``side``'s turn now."""
        row = self._row(game_id)
        if row["mode"] == FRIEND:
            raise NotFound("that game is between friends: open it with your seat's link")
        if row["status"] != TURNS[side]:
            other = "the computer's" if side == PLAYER else "the player's"
            raise Conflict("the game is over" if row["status"] == "over" else f"it is {other} turn")
        return row, replay(row)

    def fire(
        self, game_id: str, cell: int | str | None = None, auto: bool = False, stop: Stop | None = None
    ) -> dict[str, Any]:
        """The player's shot (a cell index or name such as B7), or with ``auto`` the Expert level's."""
        with self._lock(game_id):
            row, game = self._on_turn(game_id, PLAYER)
            rules, seen = game.rules, game.at[COMPUTER].observation
            move = None
            if auto:
                seed = (int(row["seed"]), 1)  # play for me: the game's second stream
                move = self.computer.move(rules, seen, "best", seed, stop or Stop(self.computer.move_seconds))
                target = move.cell
            else:
                target = read_cell(cell, rules)
                if seen.is_shot(target):
                    raise BattleshipError(f"{cell_name(target, rules.cols)} has been fired at already")
            game.at[COMPUTER].fire(target)
            self._commit(row, game, PLAYER, target, {"play_for_me": True} if auto else {})
        return self._answer(game_id, PLAYER, move)

    def computer_turn(self, game_id: str, stop: Stop | None = None) -> dict[str, Any]:
        """The computer's shot at the player's fleet, by its level's shooter, within the move's deadline."""
        with self._lock(game_id):
            row, game = self._on_turn(game_id, COMPUTER)
            rules, seen = game.rules, game.at[PLAYER].observation
            model = self.models.model(rules) if row["mode"] == "learning" else None
            seed = (int(row["seed"]), 0)  # the computer plays `battleship play` with the game's seed
            move = self.computer.move(
                rules, seen, row["mode"], seed, stop or Stop(self.computer.move_seconds), model
            )
            game.at[PLAYER].fire(move.cell)
            self._commit(row, game, COMPUTER, move.cell, {})
        return self._answer(game_id, COMPUTER, move)

    def _answer(self, game_id: str, side: int, move: Move | None) -> dict[str, Any]:
        """A move's answer: the shot (sunk ship's cells where known), the new state, who chose it."""
        state = self.state(game_id)
        shot = state["player_shots" if side == PLAYER else "computer_shots"][-1]
        answer = {"shot": shot, "state": state}
        if move is not None:
            answer["computer" if side == COMPUTER else "auto"] = move.json()
        return answer

    def resign(self, game_id: str) -> dict[str, Any]:
        """The player gives up: the game ends, the computer wins, both layouts are shown."""
        with self._lock(game_id):
            row = self._row(game_id)
            if row["mode"] == FRIEND:
                raise NotFound("that game is between friends: open it with your seat's link")
            if row["status"] == "over":
                raise Conflict("the game is over")
            changes = {"status": "over", "winner": "computer", "resigned": True, "finished": store.now()}
            self._save(row, {**changes, "ended_by": "resigned", "notation": row["record"]})
        return self.state(game_id)

    # ---- the replay ------------------------------------------------------------------------------

    def replay_view(self, game_id: str) -> dict[str, Any]:
        """A finished game move by move: who fired where (A1 names), the answer, and the paper's notation."""
        row = self._finished(game_id)
        game = replay(row)
        rules = game.rules
        shots = [shots_json(game.at[1 - side].observation.shots, rules) for side in (0, 1)]
        fired = [0, 0]
        moves = []
        for n, (who, cell) in enumerate(game.moves, 1):
            side = game.side(who)
            moves.append(
                {
                    "n": n,
                    "player": ("player", "computer")[side] if row["mode"] != FRIEND else f"player{side + 1}",
                    "side": side,
                    "name": cell_name(cell, rules.cols),
                    "notation": notation.write_move(who, cell, rules),
                    **shots[side][fired[side]],
                }
            )
            fired[side] += 1
        seats = store.seats_of(self.engine, game_id) if row["mode"] == FRIEND else []
        return {
            "id": row["id"],
            "rules": rules_json(rules),
            "mode": row["mode"],
            "level": MODES[row["mode"]].json(rules) if row["mode"] in MODES else None,
            "names": [s["name"] or game.names[s["side"]] for s in seats] or list(game.names),
            "winner": row["winner"],
            "resigned": row["resigned"],
            "ended_by": row["ended_by"] or ("resigned" if row["resigned"] else "sunk"),
            "play_for_me": row["play_for_me"],
            "player_layout": layout_json(game.layouts[0]),
            "computer_layout": layout_json(game.layouts[1]),
            "moves": moves,
            "notation": row["notation"],
        }

    def heat(
        self,
        game_id: str,
        move: int,
        side: str = "computer",
        stop: Stop | None = None,
        busy: str | None = None,
    ) -> dict[str, Any]:
        """The hit probabilities a side saw after ``move`` moves of a finished game (exact, or an estimate in time).

        ``computer``: the second side's view of the first side's fleet (the computer's of the
        player's, the DataGenetics walkthrough's heat map beside the board); ``player``: the first
        side's view of the second's.
        """
        key = (game_id, move, side)
        with self._heat_lock:
            if key in self._heat:
                return self._heat[key]
        game = replay(self._finished(game_id))
        if not 0 <= move <= len(game.moves):
            raise BattleshipError(f"move must be from 0 to {len(game.moves)}, not {move}")
        shooter = 1 if side == "computer" else 0
        target = Game(game.layouts[1 - shooter])
        for who, cell in game.moves[:move]:
            if game.side(who) == shooter:
                target.fire(cell)
        result = self.computer.heat(
            game.rules, target.observation, stop or Stop(self.computer.analysis_seconds), busy=busy
        )
        answer = {
            "move": move,
            "side": side,
            **{k: result[k] for k in ("layouts", "engine", "probability", "exact")},
        }
        if "note" in result:
            answer["note"] = result["note"]
            return answer  # an estimate: another ask may find time to be exact
        with self._heat_lock:
            if len(self._heat) >= HEAT_CACHE:
                self._heat.pop(next(iter(self._heat)))  # oldest first: finished games never change
            self._heat[key] = answer
        return answer


def calculate(
    computer: Computer,
    rules_name: str | None,
    board: str,
    skew: bool = False,
    rules_toml: str | None = None,
    stop: Stop | None = None,
    busy: str | None = None,
) -> dict[str, Any]:
    """The calculator: hit probabilities, layouts left and the best cells of a board state (exact, or an estimate in time).

    Under named rules a sunk ship may be marked on every cell it covered (as a player marks it), or
    only on the cell whose shot sank it.
    """
    rules = pick_rules(rules_name, rules_toml)
    text, note = whole_ships(board, rules)
    observation = Observation.from_text(text, rules)
    answer = {
        "rules": rules_json(rules),
        **computer.heat(rules, observation, stop or Stop(computer.analysis_seconds), skew, busy),
    }
    if note:
        answer["note"] = " ".join(filter(None, (answer.get("note"), note)))
    return answer


def whole_ships(board: str, rules: Rules) -> tuple[str, str | None]:
    """A board state with named sunk ships marked on all their cells, as the notation reads it.

    The notation marks a named sunk ship on one cell, the one whose shot sank it; the rest are hits.
    A letter on several cells that are one placement of its ship becomes hits plus the letter on
    a cell through which that placement is the only one lying on hits (so nothing is lost); when no
    cell pins it down, a note says the count also allows the ship elsewhere on those hits.
    """
    if rules.sinks is not Sinks.NAMED:
        return board, None
    rows = board.replace("\n", "/").split("/")
    if len(rows) != rules.rows or any(len(r) != rules.cols for r in rows):
        return board, None  # the notation's reader says what is wrong, and where
    grid = [c for r in rows for c in r]
    hits = sum(1 << i for i, c in enumerate(grid) if c not in ".o")
    notes = []
    for index, ship in enumerate(rules.fleet):
        marked = [i for i, c in enumerate(grid) if c == ship.symbol]
        mask = sum(1 << i for i in marked)
        if len(marked) < 2 or mask not in rules.placements[index]:
            continue  # one mark, or marks that are not one placement: the reader judges them
        pins = [
            c
            for c in marked
            if [m for m in rules.placements[index] if m >> c & 1 and not m & ~hits] == [mask]
        ]
        keep = pins[0] if pins else marked[-1]
        for i in marked:
            grid[i] = ship.symbol if i == keep else "x"
        if not pins:
            notes.append(f"the hits marked {ship.symbol} could hold the {ship.name} in more than one way")
    text = "/".join("".join(grid[r * rules.cols : (r + 1) * rules.cols]) for r in range(rules.rows))
    return text, "; ".join(notes) or None
