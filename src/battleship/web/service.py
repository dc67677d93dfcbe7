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
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy.engine import Engine

from battleship import generators, notation
from battleship.cells import cell_name, parse_cell
from battleship.errors import BattleshipError
from battleship.game import Observation
from battleship.layout import Layout
from battleship.rules import Rules, Sinks
from battleship.shooters.learning import refusal as learning_refusal
from battleship.stop import Stop
from battleship.web import store
from battleship.web.computer import MODES, Computer, Move, mode
from battleship.web.computer import aiming as computer_aiming
from battleship.web.models import Models
from battleship.web.records import (
    COMPUTER_SIDES,
    FRIEND,
    NO_HIDER_SALVOS,
    TURNS,
    Conflict,
    NotFound,
    Replay,
    history_status,
    layout_json,
    pick_rules,
    referees,
    replay,
    rules_json,
    rules_of,
    salvo_rule_json,
    salvos_json,
    write_record,
)
from battleship.web.replays import Replays

PLAYER, COMPUTER = 0, 1  # the sides of a game against the computer: the player moves first
HEAT_CACHE = 2048  # replay heat maps kept (a finished game's never change)
MAX_LOOKUP = 200  # games one history request may ask about
MAX_CELL_TEXT = 12  # characters of a cell name an error quotes back
STRIPES = 4096  # locks games are striped over (a few hundred kilobytes)
GONE = "no such game (unfinished games are deleted after a day without a move)"
MOVED_ON = "the game moved on meanwhile; fetch its state again"
BETWEEN_FRIENDS = "that game is between friends: open it with your seat's link"

__all__ = ["Conflict", "Games", "NotFound", "Service", "calculate", "random_layout"]


def random_layout(rules: Rules) -> Layout:
    """A uniformly random layout (on the calling thread: the threaded generator is not for many callers at once)."""
    row = generators.draw(rules, "uniform", secrets.randbits(63), 1, threads=False)[0]
    return generators.to_layout(rules, row)


def read_cell(cell: object, rules: Rules, field: str = "cell") -> int:
    """A cell index or name (``B7``) on this board; otherwise an error naming the field, the value and
    what this board allows (a name in the engine's words, :func:`battleship.cells.parse_cell`)."""
    allowed = f"an index 0..{rules.cells - 1} or a name {cell_name(0, rules.cols)}..{cell_name(rules.cells - 1, rules.cols)}"
    if cell is None:
        raise BattleshipError(f"{field}: give the cell to fire at, {allowed}")
    if isinstance(cell, float) and cell.is_integer():
        cell = int(cell)  # JSON Schema counts 10.0 as the integer 10; so does this API
    if isinstance(cell, int) and not isinstance(cell, bool):
        if not 0 <= cell < rules.cells:
            raise BattleshipError(f"{field}: {cell} is off the {rules.rows}x{rules.cols} board ({allowed})")
        return cell
    if not isinstance(cell, str):
        raise BattleshipError(f"{field}: {json.dumps(cell)[:40]} is not a cell ({allowed})")
    if len(cell) > MAX_CELL_TEXT:
        raise BattleshipError(f"{field}: {cell[:MAX_CELL_TEXT]!r}... is not a cell name ({allowed})")
    try:
        return parse_cell(cell, rules.rows, rules.cols)
    except BattleshipError as error:
        raise BattleshipError(f"{field}: {error}; this board takes {allowed}") from None


def read_salvo(cells: object, rules: Rules, seen: Observation, size: int) -> tuple[int, ...]:
    """The cells of a turn's salvo (``cells``: a list of indices or names), exactly ``size`` of them, each
    on the board, none fired at before nor twice; otherwise an error naming the field, the value and
    what is allowed."""
    if not isinstance(cells, list):
        raise BattleshipError(
            f"cells: {json.dumps(cells)[:40]} is not a list of cells; this turn fires {size}"
        )
    read = tuple(read_cell(c, rules, f"cells[{i}]") for i, c in enumerate(cells))
    for i, cell in enumerate(read):
        name = cell_name(cell, rules.cols)
        if cell in read[:i]:
            raise BattleshipError(f"cells[{i}]: {name} is in the salvo twice")
        if seen.is_shot(cell) and rules.noise is None:  # under noise a cell may be fired at again
            raise BattleshipError(f"cells[{i}]: {name} has been fired at already")
    if len(read) != size:
        raise BattleshipError(
            f"cells: {len(read)} cell{'s' * (len(read) != 1)} given; {turn_words(rules, size)}"
        )
    return read


def turn_words(rules: Rules, size: int) -> str:
    """How many shots this turn fires, and why (the salvo rule)."""
    if rules.salvo is None:
        return "these rules fire one shot a turn"
    shots = f"this turn fires {size} shot{'s' * (size != 1)}"
    rule = rules.salvo.shots
    why = {
        "afloat": "one for each of your ships afloat",
        "afloat-cells": "one for each unhit square of your fleet",
    }
    return f"{shots} ({why[rule]})" if rule in why else shots


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
        "winner": None,
        "resigned": False,
        **fields,
    }


class Games:
    """What every kind of game shares: rows by id, one move at a time, the commit that ends a game."""

    def __init__(self, engine: Engine):
        self.engine = engine
        # moves on one game go one at a time; a fixed set of locks, striped by id, stays bounded (across
        # processes, the store holds the game's row for the move: store.moving). Many stripes: two games
        # on one stripe wait for each other's moves, store writes included
        self._locks = [threading.RLock() for _ in range(STRIPES)]
        self.replays = Replays()

    def _lock(self, game_id: str) -> threading.RLock:
        return self._locks[hash(game_id) % len(self._locks)]

    @staticmethod
    def _check_id(game_id: str) -> None:
        if not (
            isinstance(game_id, str) and len(game_id) == 32 and all(c in "0123456789abcdef" for c in game_id)
        ):
            raise NotFound("no such game")

    def _row(self, game_id: str) -> dict[str, Any]:
        self._check_id(game_id)
        row = store.load(self.engine, game_id)
        if row is None:
            raise NotFound(GONE)
        return row

    @contextmanager
    def _moving(self, game_id: str) -> Iterator[store.Held]:
        """The game's row held for a move (this process's lock, and the store's: :func:`store.moving`)."""
        self._check_id(game_id)
        with self._lock(game_id), store.moving(self.engine, game_id) as held:
            if held.row is None:
                raise NotFound(GONE)
            yield held

    def _save(self, row: dict[str, Any], changes: dict[str, Any]) -> None:
        if not store.save(self.engine, row["id"], changes, {"moves": row["moves"], "status": row["status"]}):
            raise Conflict(MOVED_ON)

    def _changes(self, row: dict[str, Any], game: Replay, side: int, extra: dict[str, Any]) -> dict[str, Any]:
        """The row's changes after ``side``'s turn, played on ``game`` (:meth:`Replay.play`); the end of the
        game is decided here."""
        changes: dict[str, Any] = {"moves": len(game.moves), **extra}
        if game.rules.salvo is not None:
            changes["turns"] = len(game.turns)
        changes["record"] = game.record
        if game.target(side).over:
            winner = ("player", "computer")[side] if row["mode"] != FRIEND else f"player{side + 1}"
            changes.update(status="over", winner=winner, finished=store.now(), ended_by="sunk")
            changes.update(shown(game))
            changes["notation"] = changes["record"]
        else:
            changes["status"] = TURNS[1 - side]
        return changes

    def _commit(self, held: store.Held, game: Replay, changes: dict[str, Any]) -> dict[str, Any]:
        """Write ``changes`` (the game now ``game``) on the held row; the row as written. The game is kept
        replayed for the next request once the write is committed (a finished one is not)."""
        if not held.save(changes):
            raise Conflict(MOVED_ON)
        row = {**held.row, **changes}  # type: ignore[dict-item]
        if row["status"] == "over":
            held.committed.append(lambda: self.replays.forget(row["id"]))
        else:
            held.committed.append(lambda: self.replays.keep(row["id"], game))
        return row

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


def shown(game: Replay) -> dict[str, Any]:
    """A finished game's changes against a cheating hider: the layout it shows (consistent with every
    answer it gave) and the record with its grid, a paper game the notation replays answer for answer.
    No changes in any other game."""
    if game.rules.hider is None:
        return {}
    layout = game.shown_layout()
    game.record = write_record(game.rules, game.names, (game.layouts[0], layout), game.moves)
    return {"computer_layout": notation.format_layout(layout), "record": game.record}


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
        "turns": row["turns"],  # salvo games: turns (both sides' salvos); None in the one-shot game
        "twist": twist(row),
        "created": row["created"].isoformat(),
        "finished": row["finished"].isoformat() if row["finished"] else None,
    }


def twist(row: dict[str, Any]) -> str | None:
    """``noisy`` (answers may lie), ``cheat`` (the computer's hider cheats) or None: what a history list
    marks a game by."""
    if row["rules"] not in ("noisy", "cheat", "custom"):
        return None
    rules = rules_of(row)
    return "noisy" if rules.noise is not None else "cheat" if rules.hider is not None else None


def read_targets(
    cell: object, cells: list[Any] | None, rules: Rules, seen: Observation, size: int
) -> tuple[int, ...]:
    """A turn's cells from a request: ``cell`` (one shot) or ``cells`` (a salvo), as the turn fires."""
    if cells is not None:
        return read_salvo(cells, rules, seen, size)
    target = read_cell(cell, rules)
    if seen.is_shot(target) and rules.noise is None:  # under noise a cell may be fired at again
        raise BattleshipError(f"{cell_name(target, rules.cols)} has been fired at already")
    if size != 1:
        raise BattleshipError(f"cell: one cell given; {turn_words(rules, size)}: give them as cells")
    return (target,)


def salvo_view(game: Replay, side: int, over: bool, mine: str, theirs: str) -> dict[str, Any]:
    """What a salvo game adds to side ``side``'s view: the rule and the shots each side's next turn
    fires (``salvo``), and each side's salvos with their answers (``<mine>_salvos`` for this side's,
    ``<theirs>_salvos`` for the other's)."""
    rules = game.rules
    return {
        "salvo": {
            **(salvo_rule_json(rules) or {}),
            mine: 0 if over else game.turn_size(side),
            theirs: 0 if over else game.turn_size(1 - side),
        },
        f"{mine}_salvos": salvos_json(game.target(side).observation, rules),
        f"{theirs}_salvos": salvos_json(game.at[side].observation, rules),
    }


CHEATING = (
    "The computer cheats: it hides no fleet and moves its ships, answering each shot to keep the game "
    "going longest, always consistently with every answer it gave. At the end it shows a layout that "
    "fits every answer."
)


def noise_view(game: Replay, over: bool) -> dict[str, Any]:
    """What a page says of answers that lie: the chance (``flip``), what sinkings do, the record's coins
    once the game is over, and then how many of each side's answers were flipped."""
    noise = game.rules.noise
    assert noise is not None
    out: dict[str, Any] = {"flip": noise.flip, "sinkings": noise.sinkings.value}
    if over:
        out["coins"] = str(game.coins)  # a string: JavaScript's numbers lose a 63-bit seed's last digits
        out["flipped"] = [
            sum(s.get("flipped", False) for s in game.fired(side, truth=True)) for side in (0, 1)
        ]
    return out


def turn_answer(state: dict[str, Any], who: str) -> dict[str, Any]:
    """A turn's answer out of the new state: ``shot`` (the one-shot game), or ``salvo`` and its
    ``shots`` (salvo rules); ``who``: the state's name for the side that moved (``player``, ``your``)."""
    shots = state[f"{who}_shots"]
    if "salvo" not in state:
        return {"shot": shots[-1], "state": state}
    salvo = state[f"{who}_salvos"][-1]
    return {"salvo": salvo, "shots": shots[-len(salvo["cells"]) :], "state": state}


def replay_salvos(game: Replay, player: tuple[str, str]) -> list[dict[str, Any]]:
    """Every salvo of a finished game in order: who fired it (``side``, ``player``), where its moves
    start in the list of moves (``first``, from 0), its cells and the answer (:func:`salvo_json`)."""
    answers = [iter(salvos_json(game.target(side).observation, game.rules)) for side in (0, 1)]
    out, first = [], 0
    for n, (side, cells) in enumerate(game.turns, 1):
        out.append({"n": n, "side": side, "player": player[side], "first": first, **next(answers[side])})
        first += len(cells)
    return out


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
        if rules.hider is not None and rules.salvo is not None:
            raise BattleshipError(NO_HIDER_SALVOS)
        aiming = computer_aiming(rules)  # against a cheating hider, the computer's shots are honest ones
        if why := chosen.refusal(aiming):
            raise BattleshipError(why)
        if chosen.name == "learning" and (why := learning_refusal(aiming)):
            raise BattleshipError(f"the Adaptive level cannot play these rules: {why}")
        player = notation.parse_layout(layout, rules) if layout is not None else random_layout(rules)
        model = self.models.model(aiming) if chosen.name == "learning" else None
        self.computer.admit(aiming, chosen.name, stop or Stop(), model)
        computer = random_layout(rules) if rules.hider is None else None  # a cheating hider places none
        coins = (
            secrets.randbits(63) if rules.noise is not None else None
        )  # the referees' seed: the record keeps it
        seed = secrets.randbits(63)
        row = new_row(
            rules,
            chosen.name,
            status=TURNS[PLAYER],
            seed=str(seed),
            player_layout=notation.format_layout(player),
            computer_layout=notation.format_layout(computer) if computer is not None else "",
            record=write_record(rules, COMPUTER_SIDES, (player, computer), [], coins),
        )
        store.create(self.engine, row)
        at = referees(rules, (player, computer), coins, seed)
        game = Replay(rules, COMPUTER_SIDES, (player, computer), [], at, [], row["record"], coins)
        self.replays.keep(row["id"], game)
        state = self._view(row, game)
        if notice := self.computer.readiness(aiming, chosen.name, model):
            state["notice"] = notice
        return state

    def state(self, game_id: str) -> dict[str, Any]:
        """The player's view: never the computer's layout before the game is over."""
        row = self._row(game_id)
        if row["mode"] == FRIEND:
            raise NotFound(BETWEEN_FRIENDS)
        return self._view(row, self.replays.get(row))

    def _view(self, row: dict[str, Any], game: Replay) -> dict[str, Any]:
        """The player's view of the game ``game`` stored as ``row``."""
        rules = game.rules
        over = row["status"] == "over"
        view: dict[str, Any] = {
            "id": row["id"],
            "rules": rules_json(rules),
            "mode": row["mode"],
            "level": MODES[row["mode"]].json(computer_aiming(rules)),
            "status": row["status"],
            "winner": row["winner"],
            "resigned": row["resigned"],
            "play_for_me": row["play_for_me"],
            "moves": row["moves"],
            "player_layout": layout_json(game.fleet(PLAYER)),
            # under noise each shot's visit to its cell; whether it lied: the answers about the player's
            # own fleet at once (the player knows it), the player's own answers once the game is over
            "player_shots": game.fired(PLAYER, truth=over),
            "computer_shots": game.fired(COMPUTER, truth=True),
            "computer_ships_left": game.ships_left(COMPUTER, over),
            "player_ships_left": game.ships_left(PLAYER, True),
        }
        if rules.salvo is not None:
            view.update(salvo_view(game, PLAYER, over, "player", "computer"))
            # what the player has seen of the computer's fleet, as the calculator reads it (the heat map)
            view["player_board"] = game.at[COMPUTER].observation.text()
        if rules.noise is not None:
            view["noise"] = noise_view(game, over)
        if rules.hider is not None:
            view["cheating"] = CHEATING
        if over:
            view["computer_layout"] = layout_json(game.fleet(COMPUTER))
            view["notation"] = row["notation"]
        return view

    @staticmethod
    def _on_turn(row: dict[str, Any], side: int) -> None:
        """Refuse the move unless it is ``side``'s turn in the game stored as ``row``."""
        if row["mode"] == FRIEND:
            raise NotFound(BETWEEN_FRIENDS)
        if row["status"] != TURNS[side]:
            other = "the computer's" if side == PLAYER else "the player's"
            raise Conflict("the game is over" if row["status"] == "over" else f"it is {other} turn")

    def fire(
        self,
        game_id: str,
        cell: int | str | None = None,
        auto: bool = False,
        stop: Stop | None = None,
        cells: list[Any] | None = None,
        reply: bool = False,
    ) -> dict[str, Any]:
        """The player's turn: a shot (a cell index or name such as B7), a salvo (``cells``, as many as the
        turn fires), or with ``auto`` the Expert level's ("play for me"); with ``reply``, the computer's
        turn too, unless the shot ended the game (one request, one write: ``reply`` in the answer)."""
        stop = stop or Stop(self.computer.move_seconds)
        with self._moving(game_id) as held:
            row = held.current
            self._on_turn(row, PLAYER)
            game = self.replays.get(row).copy()
            rules, seen = game.rules, game.at[COMPUTER].observation
            size = game.turn_size(PLAYER)
            move = None
            if auto:
                seed = (int(row["seed"]), 1)  # play for me: the game's second stream
                move = self.computer.move(rules, seen, "best", seed, stop, size=size)
                targets = move.cells
            else:
                targets = read_targets(cell, cells, rules, seen, size)
            game.play(PLAYER, targets)
            changes = self._changes(row, game, PLAYER, {"play_for_me": True} if auto else {})
            answered = None
            if reply and changes["status"] == TURNS[COMPUTER]:
                answered = self._computer_plays({**row, **changes}, game, stop)
                changes.update(self._changes({**row, **changes}, game, COMPUTER, {}))
            row = self._commit(held, game, changes)
        state = self._view(row, game)
        answer = turn_answer(state, "player")
        if move is not None:
            answer["auto"] = move.json()
        if reply:
            answer["reply"] = None
            if answered is not None:
                mine = turn_answer(state, "computer")
                del mine["state"]
                answer["reply"] = {**mine, "computer": answered.json()}
        return answer

    def _computer_plays(self, row: dict[str, Any], game: Replay, stop: Stop) -> Move:
        """The computer's turn played on ``game`` (stored as ``row``): its level's move within the deadline
        (against a cheating hider, at the player's honest fleet under the rules less the hider)."""
        seen = game.at[PLAYER].observation
        rules = seen.rules
        model = self.models.model(rules) if row["mode"] == "learning" else None
        seed = (int(row["seed"]), 0)  # the computer plays `battleship play` with the game's seed
        move = self.computer.move(rules, seen, row["mode"], seed, stop, model, size=game.turn_size(COMPUTER))
        game.play(COMPUTER, move.cells)
        return move

    def computer_turn(self, game_id: str, stop: Stop | None = None) -> dict[str, Any]:
        """The computer's turn at the player's fleet (a shot or a salvo), by its level's shooter, within
        the move's deadline."""
        with self._moving(game_id) as held:
            row = held.current
            self._on_turn(row, COMPUTER)
            game = self.replays.get(row).copy()
            move = self._computer_plays(row, game, stop or Stop(self.computer.move_seconds))
            row = self._commit(held, game, self._changes(row, game, COMPUTER, {}))
        answer = turn_answer(self._view(row, game), "computer")
        answer["computer"] = move.json()
        return answer

    def resign(self, game_id: str) -> dict[str, Any]:
        """The player gives up: the game ends, the computer wins, both layouts are shown."""
        with self._moving(game_id) as held:
            row = held.current
            if row["mode"] == FRIEND:
                raise NotFound(BETWEEN_FRIENDS)
            if row["status"] == "over":
                raise Conflict("the game is over")
            changes = {"status": "over", "winner": "computer", "resigned": True, "finished": store.now()}
            game = self.replays.get(row).copy()
            changes.update(shown(game))  # a cheating hider shows a layout consistent with its answers
            notation_text = changes.get("record", row["record"])
            row = self._commit(held, game, {**changes, "ended_by": "resigned", "notation": notation_text})
        return self._view(row, game)

    # ---- the replay ------------------------------------------------------------------------------

    def replay_view(self, game_id: str) -> dict[str, Any]:
        """A finished game move by move: who fired where (A1 names), the answer, and the paper's notation."""
        row = self._finished(game_id)
        game = replay(row)
        rules = game.rules
        shots = [game.fired(side, truth=True) for side in (0, 1)]
        fired = [0, 0]
        moves = []
        player = ("player", "computer") if row["mode"] != FRIEND else ("player1", "player2")
        for n, (who, cell) in enumerate(game.moves, 1):
            side = game.side(who)
            moves.append(
                {
                    "n": n,
                    "player": player[side],
                    "side": side,
                    "name": cell_name(cell, rules.cols),
                    "notation": notation.write_move(who, cell, rules),
                    **shots[side][fired[side]],
                }
            )
            fired[side] += 1
        seats = store.seats_of(self.engine, game_id) if row["mode"] == FRIEND else []
        extra = {"salvos": replay_salvos(game, player)} if rules.salvo is not None else {}
        return {
            "id": row["id"],
            "rules": rules_json(rules),
            "mode": row["mode"],
            "level": MODES[row["mode"]].json(computer_aiming(rules)) if row["mode"] in MODES else None,
            "names": [s["name"] or game.names[s["side"]] for s in seats] or list(game.names),
            "winner": row["winner"],
            "resigned": row["resigned"],
            "ended_by": row["ended_by"] or ("resigned" if row["resigned"] else "sunk"),
            "play_for_me": row["play_for_me"],
            "player_layout": layout_json(game.fleet(0)),
            "computer_layout": layout_json(game.fleet(1)),
            "moves": moves,
            **extra,
            **({"noise": noise_view(game, True)} if rules.noise is not None else {}),
            **({"cheating": CHEATING} if rules.hider is not None else {}),
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
        target = game.referee_at(1 - shooter)  # answers as the game's referee (or cheating hider) did
        done = 0  # moves of the turns replayed
        for who, cells in game.turns:
            if done + len(cells) > move:
                if done < move:
                    raise BattleshipError(
                        f"move: {move} falls inside a salvo (moves {done + 1}..{done + len(cells)}): "
                        f"ask after {done} or {done + len(cells)} moves"
                    )
                break
            done += len(cells)
            if who == shooter and game.rules.salvo is not None:
                target.fire_salvo(cells)
            elif who == shooter:
                target.fire(cells[0])
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
    """The calculator: hit probabilities, layouts left and the best cells of a board state (exact, or an estimate in time),
    and whether the game is over (``over``: every ship cell hit).

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
