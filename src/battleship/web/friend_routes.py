"""The JSON API of games between friends, and their live updates as server-sent events.

Why server-sent events rather than WebSockets: the updates flow one way (the server tells a page the
game changed), while moves stay plain POSTs with the same validation, status codes and OpenAPI
schema as the rest of the API; an ``EventSource`` reconnects by itself after a dropped connection,
and the stream is ordinary HTTP that every proxy passes. Each event carries the seat's whole view,
so a page that reconnects is up to date with the first event it gets.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import Body, FastAPI, Path, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator, model_validator
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from battleship.web.friends import MAX_CLOCK, MIN_CLOCK
from battleship.web.guard import address_of, client_key
from battleship.web.hub import Subscription
from battleship.web.records import NotFound
from battleship.web.routes import (
    HEX,
    LAYOUT,
    ONE_RULES,
    Cells,
    FriendCell,
    RuleName,
    RulesToml,
    both_cells,
    only,
    responses,
    salvo_given,
    turn_cells,
)

SeatToken = Annotated[
    str, Path(pattern=HEX, description="A seat's token (32 hex digits): the player's link.")
]
Name = Annotated[str | None, Field(max_length=40, description="The name the other player sees")]
KEEP_ALIVE = 15.0  # seconds between comments on an idle stream (proxies close silent connections)
CLOCK_TICK = 1.0  # seconds between looks at a running clock (a flag falls within a second)
MISSING_SEAT = (
    "No seat has that token: the link is wrong, or the game was deleted after a day without a move."
)


class NewFriendGame(BaseModel):
    """A game between two people: the rules, an optional clock, the first player's name."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"rules": "standard", "clock": 300}], **ONE_RULES}
    )
    rules: RuleName = None  # type: ignore[assignment]  # absent: standard, or the custom rules of rules_toml
    rules_toml: RulesToml = None
    clock: Annotated[
        StrictInt | None,
        Field(ge=MIN_CLOCK, le=MAX_CLOCK, description="Seconds each side has for the whole game"),
    ] = None
    name: Name = None


class Place(BaseModel):
    """This seat's fleet (random if left out) and, optionally, the player's name."""

    model_config = ConfigDict(extra="forbid")
    layout: Annotated[
        str | None, Field(max_length=480, pattern=LAYOUT, description="The fleet, e.g. `BBBB....../...`")
    ] = None
    name: Name = None


class FriendFire(BaseModel):
    """A shot (a cell index or name such as ``B7``), or under salvo rules a salvo (``cells``)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "oneOf": [only("cell", {"required": ["cells"]}), only("cells", {"required": ["cell"]})],
            "examples": [{"cell": "E5"}, {"cells": ["E5", "F6", "G7"]}],
        },
    )
    cell: FriendCell = None
    cells: Cells = None

    @field_validator("cells", mode="before")
    @classmethod
    def cells_are_a_list(cls, value: object) -> object:
        """``"cells": null`` is no salvo (any other value is read, and refused, cell by cell)."""
        return salvo_given(value)

    @model_validator(mode="after")
    def one_thing_at_once(self) -> FriendFire:
        """A shot or a salvo, not both."""
        both_cells(self.model_fields_set)
        return self


SEAT_LINKS = {
    name: {"operationId": op, "parameters": {"seat": f"$response.body#/{field}"}}
    for name, op, field in (
        ("GetSeat", "getSeat", "seat"),
        ("PlaceFleet", "placeFleet", "seat"),
        ("FireAtFriend", "fireAtFriend", "seat"),
        ("ResignFriend", "resignFriend", "seat"),
        ("Rematch", "rematch", "seat"),
        ("GetInvitedSeat", "getSeat", "invite"),
        ("PlaceInvitedFleet", "placeFleet", "invite"),
    )
}


def install(app: FastAPI) -> None:
    """Add the operations on games between friends, and their event streams."""
    friends = app.state.friends
    seat_errors = responses(404, 409, missing=MISSING_SEAT)

    @app.post(
        "/api/friends",
        status_code=201,
        operation_id="newFriendGame",
        responses={
            201: {"description": "The first player's seat, the invitation, the state", "links": SEAT_LINKS},
            **responses(),
        },
    )
    async def new_friend_game(body: NewFriendGame) -> dict[str, Any]:
        """Start a game between two people: keep ``seat`` (your link) and pass ``invite`` on to the other player."""
        return await run_in_threadpool(friends.new, body.rules, body.rules_toml, body.clock, body.name)

    @app.get("/api/seats/{seat}", operation_id="getSeat", responses=responses(404, missing=MISSING_SEAT))
    async def seat_view(seat: SeatToken) -> dict[str, Any]:
        """What this seat's player sees (the other fleet only once the game is over)."""
        return await run_in_threadpool(friends.view, seat)

    @app.post("/api/seats/{seat}/layout", operation_id="placeFleet", responses=seat_errors)
    async def place(seat: SeatToken, body: Place = Body(default_factory=Place)) -> dict[str, Any]:
        """Place this seat's fleet (a random one if none is given); the game starts once both are placed."""
        return await run_in_threadpool(friends.place, seat, body.layout, body.name)

    @app.post("/api/seats/{seat}/fire", operation_id="fireAtFriend", responses=seat_errors)
    async def fire(seat: SeatToken, body: FriendFire) -> dict[str, Any]:
        """This seat's shot, or under salvo rules its salvo (``cells``), on its turn (and within its clock)."""
        return await run_in_threadpool(friends.fire, seat, body.cell, turn_cells(body))

    @app.post("/api/seats/{seat}/resign", operation_id="resignFriend", responses=seat_errors)
    async def resign(seat: SeatToken) -> dict[str, Any]:
        """Give up: the other player wins; both fleets are shown."""
        return await run_in_threadpool(friends.resign, seat)

    @app.post("/api/seats/{seat}/rematch", operation_id="rematch", responses=seat_errors)
    async def rematch(seat: SeatToken) -> dict[str, Any]:
        """After the game: this player's seat in a new game with the same rules and clock (the other player starts)."""
        return await run_in_threadpool(friends.rematch, seat)

    @app.get("/api/seats/{seat}/events", include_in_schema=False)
    async def events(seat: SeatToken, request: Request) -> StreamingResponse:
        """Server-sent events: ``state`` with the seat's whole view whenever the game changes."""
        first = await run_in_threadpool(friends.view, seat)  # 404 before the stream starts
        # 429 past the seat's share (every process's streams), the client's or the address's
        subscription = await run_in_threadpool(
            friends.hub.subscribe,
            first["id"],
            seat,
            client_key(request.scope),
            asyncio.get_running_loop(),
            address_of(request.scope),
        )
        stream = _stream(app, request, seat, first, subscription)
        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(
            stream,
            media_type="text/event-stream",
            headers=headers,
            background=BackgroundTask(subscription.close),  # also when the stream never started
        )


async def _stream(
    app: FastAPI, request: Request, seat: str, view: dict[str, Any], subscription: Subscription
) -> AsyncIterator[str]:
    """The seat's view now, then again after every change (and every second while a clock runs)."""
    friends, stopping = app.state.friends, app.state.stopping
    try:
        yield "retry: 1500\n\n"  # reconnect soon after a dropped connection
        sent, number, quiet = None, 0, 0.0
        while not stopping.is_set():
            text = json.dumps(view, separators=(",", ":"))
            if text != sent:
                number += 1
                yield f"id: {number}\nevent: state\ndata: {text}\n\n"
                sent, quiet = text, 0.0
            ticking = view["clock"] is not None and view["clock"]["running"] is not None
            wait = CLOCK_TICK if ticking else KEEP_ALIVE
            try:
                await asyncio.wait_for(subscription.event.wait(), wait)
            except TimeoutError:
                quiet += wait
                if quiet >= KEEP_ALIVE:
                    yield ": still here\n\n"
                    quiet = 0.0
            subscription.event.clear()
            if stopping.is_set() or await request.is_disconnected():
                return
            try:
                view = await run_in_threadpool(friends.view, seat)
            except NotFound:  # the game was deleted meanwhile
                return
    finally:
        subscription.close()
