"""Games between two people, each on their own device through their seat's link (or both on one screen).

A game has two seats, each reached only by its own random token: the first player's link, and the
invitation the first player passes on. Each player places their fleet on their own device; the
layouts stay on the server, and each player sees only their own until the game is over. Turns are
enforced here: "Player 1" fires first, then each shot passes the turn. With a clock each side has so
many seconds for the whole game, counted on the server from the moment the turn began; a player
whose time runs out loses. The finished game is stored like any other, so it has a replay and
counts in the statistics (mode ``friend``). A rematch swaps who starts.

Every change wakes the players' live streams through the :class:`~battleship.web.hub.Hub`.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from battleship import notation
from battleship.errors import BattleshipError
from battleship.web import store
from battleship.web.hub import Hub
from battleship.web.records import (
    FRIEND,
    FRIEND_SIDES,
    TURNS,
    Conflict,
    NotFound,
    clock_left,
    layout_json,
    pick_rules,
    rules_json,
    rules_of,
    write_record,
)
from battleship.web.service import (
    MOVED_ON,
    Games,
    new_row,
    noise_view,
    random_layout,
    read_targets,
    salvo_view,
    turn_answer,
)


def coins(rules) -> int | None:
    """A new game's referees' seed under ``[noise]`` (None without): drawn by the server, kept by the record."""
    return secrets.randbits(63) if rules.noise is not None else None


PLACING = "placing"  # the status while a fleet is still to be placed
MIN_CLOCK, MAX_CLOCK = 30, 3600  # seconds a side, when the game has a clock


class Friends(Games):
    """Games between friends, stored in ``engine``; ``hub`` hears of every change."""

    def __init__(self, engine, hub: Hub):
        super().__init__(engine)
        self.hub = hub

    def new(
        self,
        rules_name: str | None,
        rules_toml: str | None = None,
        clock: int | None = None,
        name: str | None = None,
    ) -> dict[str, Any]:
        """A new game: the first player's seat and the invitation for the second (both tokens)."""
        rules = pick_rules(rules_name, rules_toml)
        if rules.hider is not None:
            raise BattleshipError(
                "a cheating hider plays only against the computer: between friends a person hides a fleet"
            )
        if clock is not None and not MIN_CLOCK <= clock <= MAX_CLOCK:
            raise BattleshipError(f"clock: from {MIN_CLOCK} to {MAX_CLOCK} seconds a side, not {clock}")
        tokens = (secrets.token_hex(16), secrets.token_hex(16))
        self._create(rules, clock, tokens, (name, None))
        return {"seat": tokens[0], "invite": tokens[1], "state": self.view(tokens[0])}

    def _create(
        self, rules, clock: float | None, tokens: tuple[str, str], names: tuple[str | None, str | None]
    ) -> str:
        row = new_row(
            rules,
            FRIEND,
            status=PLACING,
            seed="0",
            player_layout="",  # each fleet is placed by its player
            computer_layout="",
            record="",
            clock=float(clock) if clock else None,
            clock_used=json.dumps([0.0, 0.0]),
        )
        store.create(self.engine, row)
        game_id = row["id"]
        store.create_seats(self.engine, game_id, tokens, names)
        return game_id

    def _seat(self, token: str) -> tuple[dict[str, Any], int]:
        """The game row behind a seat token and the seat's side (the clock checked first)."""
        row, side, _seats = self._seated(token)
        return row, side

    def _seated(self, token: str) -> tuple[dict[str, Any], int, list[dict[str, Any]]]:
        """The game row behind a seat token, the seat's side and both seats (the clock checked first)."""
        if not (isinstance(token, str) and len(token) == 32):
            raise NotFound("no such seat")
        row, both = store.seated(self.engine, token)
        if row is None:
            raise NotFound(
                "no such seat: the link is wrong, or the game was deleted after a day without a move"
            )
        side = next(s["side"] for s in both if s["token"] == token)
        if self._flag_fell(row):
            row = self._row(row["id"])
        return row, side, both

    # ---- the clock -----------------------------------------------------------------------------

    @staticmethod
    def _used(row: dict[str, Any]) -> list[float]:
        """Seconds each side has used, the side to move counted up to now."""
        used = json.loads(row["clock_used"] or "[0, 0]")
        if row["status"] in TURNS and row["turn_started"] is not None:
            started = row["turn_started"]
            started = started if started.tzinfo else started.replace(tzinfo=store.now().tzinfo)
            used[TURNS.index(row["status"])] += (store.now() - started).total_seconds()
        return used

    def _out_of_time(self, row: dict[str, Any]) -> dict[str, Any] | None:
        """The changes that end the game if the side to move has run out of time, else None."""
        if not row["clock"] or row["status"] not in TURNS:
            return None
        side = TURNS.index(row["status"])
        used = self._used(row)
        if used[side] < row["clock"]:
            return None
        used[side] = float(row["clock"])  # all of it: the loser's clock reads 0:00 from now on
        return {
            "status": "over",
            "winner": f"player{2 - side}",
            "finished": store.now(),
            "ended_by": "time",
            "clock_used": json.dumps([round(u, 3) for u in used]),
            "notation": row["record"],
        }

    def _flag_fell(self, row: dict[str, Any]) -> bool:
        """End the game if the side to move has run out of time; True if it ended now."""
        if self._out_of_time(row) is None:
            return False
        with self._moving(row["id"]) as held:
            assert held.row is not None
            changes = self._out_of_time(held.row)
            done = changes is not None and held.save(changes)
        if done:
            self.hub.publish(row["id"])
        return done

    # ---- what a seat sees ------------------------------------------------------------------------

    def view(self, token: str) -> dict[str, Any]:
        """What the player at this seat sees: never the other fleet before the game is over."""
        row, side, seats = self._seated(token)
        rules = rules_of(row)
        layouts = (row["player_layout"], row["computer_layout"])
        status = row["status"]
        view: dict[str, Any] = {
            "id": row["id"],
            "seat": side + 1,
            "rules": rules_json(rules),
            "status": status
            if status in (PLACING, "over")
            else ("your-turn" if TURNS.index(status) == side else "their-turn"),
            "moves": row["moves"],
            "you": {"name": seats[side]["name"] or FRIEND_SIDES[side], "placed": bool(layouts[side])},
            "them": {
                "name": seats[1 - side]["name"] or FRIEND_SIDES[1 - side],
                "placed": bool(layouts[1 - side]),
                "connected": self.hub.connected(seats[1 - side]["token"], row["id"]),
            },
            "your_shots": [],
            "their_shots": [],
            "clock": self._clock(row, side),
            "winner": None
            if not row["winner"]
            else ("you" if row["winner"] == f"player{side + 1}" else "them"),
            "ended_by": row["ended_by"],
            "rematch": self._rematch_seat(row, side),
        }
        if layouts[side]:
            view["your_layout"] = layout_json(notation.parse_layout(layouts[side], rules))
        if row["record"]:  # both fleets placed
            game = self.replays.get(row)
            over = status == "over"
            # under noise: each shot's visit to its cell; whether an answer lied, about this player's own
            # fleet at once (they know it), about the other's once the game is over
            view["your_shots"] = game.fired(side, truth=over)
            view["their_shots"] = game.fired(1 - side, truth=True)
            if rules.salvo is not None:
                view.update(salvo_view(game, side, over, "your", "their"))
            if rules.noise is not None:
                view["noise"] = noise_view(game, over)
            view["their_ships_left"] = game.ships_left(1 - side, over)
            view["your_ships_left"] = game.ships_left(side, True)
        if status == "over" and layouts[1 - side]:
            view["their_layout"] = layout_json(notation.parse_layout(layouts[1 - side], rules))
        return view

    def _clock(self, row: dict[str, Any], side: int) -> dict[str, Any] | None:
        if not row["clock"]:
            return None
        left = clock_left(row["clock"], self._used(row), row["ended_by"], row["winner"])
        running = (
            None if row["status"] not in TURNS else ("you" if TURNS.index(row["status"]) == side else "them")
        )
        return {
            "seconds": row["clock"],
            "yours": round(left[side], 1),
            "theirs": round(left[1 - side], 1),
            "running": running,
        }

    def _rematch_seat(self, row: dict[str, Any], side: int) -> str | None:
        """This player's seat in the rematch, if there is one (sides swap: the other player starts)."""
        if not row["rematch"]:
            return None
        for seat in store.seats_of(self.engine, row["rematch"]):
            if seat["side"] == 1 - side:
                return seat["token"]
        return None

    # ---- moves -----------------------------------------------------------------------------------

    def place(self, token: str, layout: str | None = None, name: str | None = None) -> dict[str, Any]:
        """Place this seat's fleet (a layout in notation, or a random one); the game starts once both are placed."""
        row, side = self._seat(token)
        with self._moving(row["id"]) as held:
            row = held.current
            if row["status"] != PLACING:
                raise Conflict(
                    "the fleets are placed: the game is under way"
                    if row["status"] != "over"
                    else "the game is over"
                )
            rules = rules_of(row)
            mine = notation.parse_layout(layout, rules) if layout is not None else random_layout(rules)
            columns = ("player_layout", "computer_layout")
            changes: dict[str, Any] = {columns[side]: notation.format_layout(mine)}
            other = row[columns[1 - side]]
            if other:
                theirs = notation.parse_layout(other, rules)
                layouts = (mine, theirs) if side == 0 else (theirs, mine)
                changes.update(
                    status=TURNS[0],
                    turn_started=store.now(),
                    # under noise the server's coins flip both players' answers: the record keeps them
                    record=write_record(rules, FRIEND_SIDES, layouts, [], coins(rules)),
                )
            if not held.save(changes):
                raise Conflict(MOVED_ON)
        if name is not None:
            store.name_seat(self.engine, token, name.strip() or None)
        self.hub.publish(row["id"])
        return self.view(token)

    def fire(
        self, token: str, cell: int | str | None = None, cells: list[Any] | None = None
    ) -> dict[str, Any]:
        """This seat's turn at the other fleet (a shot, or a salvo's ``cells``), within its clock."""
        row, side = self._seat(token)
        with self._moving(row["id"]) as held:
            row = held.current
            flag = self._out_of_time(row)
            if flag is not None:  # the clock ran out since the seat was read: the game ends now, on time
                held.save(flag)
            elif row["status"] != TURNS[side]:
                raise Conflict(
                    {PLACING: "the fleets are not both placed yet", "over": "the game is over"}.get(
                        row["status"], "it is the other player's turn"
                    )
                )
            else:
                game = self.replays.get(row).copy()
                seen = game.target(side).observation
                game.play(side, read_targets(cell, cells, game.rules, seen, game.turn_size(side)))
                used = self._used(row)
                extra = {"clock_used": json.dumps([round(u, 3) for u in used]), "turn_started": store.now()}
                self._commit(held, game, self._changes(row, game, side, extra))
        self.hub.publish(row["id"])
        if flag is not None:
            raise Conflict("the game is over")
        return turn_answer(self.view(token), "your")

    def resign(self, token: str) -> dict[str, Any]:
        """This player gives up: the other wins, both fleets are shown."""
        row, side = self._seat(token)
        with self._moving(row["id"]) as held:
            row = held.current
            if row["status"] == "over":
                raise Conflict("the game is over")
            changes = {
                "status": "over",
                "winner": f"player{2 - side}",
                "resigned": True,
                "finished": store.now(),
            }
            if not held.save({**changes, "ended_by": "resigned", "notation": row["record"] or None}):
                raise Conflict(MOVED_ON)
        self.hub.publish(row["id"])
        return self.view(token)

    def rematch(self, token: str) -> dict[str, Any]:
        """A new game with the same rules and clock, the other player starting; this player's new seat."""
        row, side = self._seat(token)
        if row["status"] != "over":
            raise Conflict("a rematch is offered once the game is over")
        if not row["rematch"]:
            seats = store.seats_of(self.engine, row["id"])
            tokens = (secrets.token_hex(16), secrets.token_hex(16))
            rules = rules_of(row)
            new_id = self._create(rules, row["clock"], tokens, (seats[1]["name"], seats[0]["name"]))
            if not store.set_rematch(self.engine, row["id"], new_id):
                store.delete_game(
                    self.engine, new_id
                )  # the other player asked at the same moment: theirs stands
            self.hub.publish(row["id"])
        seat = self._rematch_seat(self._row(row["id"]), side)
        if seat is None:  # the rematch's seats are gone: what view would say of a missing token
            raise NotFound("no such seat")
        return {"seat": seat, "state": self.view(seat)}
