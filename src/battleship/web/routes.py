"""The JSON API of games against the computer, the calculator, the statistics and the history: request
bodies with their real constraints, every status code each operation can answer, and links from a new
game to everything one can do with it (so clients and Schemathesis can follow).

Heavy work (a shooter or the inference engines) runs through :func:`stoppable`: with a deadline, and
stopped when the client goes away or the server shuts down. The rest runs on the thread pool.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import Body, FastAPI, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    WithJsonSchema,
    field_validator,
    model_validator,
)
from pydantic.config import JsonDict
from pydantic_core import PydanticCustomError
from starlette.concurrency import run_in_threadpool

from battleship.rules import preset
from battleship.stop import CANCELLED, INTERRUPT, Stop
from battleship.web import stats
from battleship.web.computer import DEFAULT_MODE, MODES, aiming
from battleship.web.gate import ANALYSIS, Saturated
from battleship.web.guard import MAX_BODY, Problem
from battleship.web.readiness import STOPPING, NotReady, Ready, not_ready
from battleship.web.records import MAX_RULES_TOML, MAX_SIDE, RULES, custom_rules, rules_json
from battleship.web.service import MAX_LOOKUP, calculate, random_layout

if TYPE_CHECKING:  # a Literal built at run time is beyond mypy: to it, these are strings
    RuleName = str
    ModeName = str
else:
    RuleName = Literal[(*RULES, "custom")]
    ModeName = Literal[tuple(MODES)]
MAX_CELL = MAX_SIDE * MAX_SIDE - 1
CELL_NAME = r"^(auto|[A-O](1[0-5]|[1-9]))$"  # A1 .. O15: rows A.., columns 1.. (boards up to 15x15)
LAYOUT = r"^[.A-Z/\n]+$"  # rows of '.' and ship letters joined by '/' (or one a line)
# rows of '.', 'o', 'x', '#' and ship letters; under salvo rules answered whole also '?' (fired, not known
# on its own) and, after " | ", each salvo and its answer ("E5,F5,G5=2+C", "E5=B", "F1=-")
BOARD = r"^[.oxA-Z#/\n?| ,=+\-0-9]+$"
MAX_BOARD = 4000  # characters: a 15x15 board and a long game's salvos
HEX = r"^[0-9a-f]{32}$"
GameId = Annotated[str, Path(pattern=HEX, description="The game's id (32 hex digits).")]
RulesToml = Annotated[
    str | None,
    Field(
        max_length=MAX_RULES_TOML,
        description="Custom rules: a TOML document as `battleship rules --toml` writes it (boards up to "
        f"{MAX_SIDE}x{MAX_SIDE}, up to 10 ships of up to 6 cells). With it, `rules` is left out or "
        '`"custom"`; whether a level answers in time under them is measured when the game starts.',
    ),
]
# JSON Schema for "rules_toml goes with rules "custom" (or none), and rules "custom" needs rules_toml"
ONE_RULES: JsonDict = {
    "allOf": [
        {
            "if": {"required": ["rules_toml"], "properties": {"rules_toml": {"type": "string"}}},
            "then": {"properties": {"rules": {"const": "custom"}}},
        },
        {
            "if": {"required": ["rules"], "properties": {"rules": {"const": "custom"}}},
            "then": {"required": ["rules_toml"], "properties": {"rules_toml": {"type": "string"}}},
        },
    ]
}

OPEN_BOARD = "/".join(["." * 10] * 10)
EXAMPLE_LAYOUT = "CCCCC...../BBBB....../DDD......./SSS......./PP......../" + "/".join(["." * 10] * 5)


class NewGame(BaseModel):
    """A new game: rules (a preset, or custom TOML), the computer's level, the player's layout (random if left out)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"rules": "standard", "mode": "best", "layout": EXAMPLE_LAYOUT}],
            **ONE_RULES,
        },
    )
    rules: RuleName = None  # type: ignore[assignment]  # absent: standard, or the custom rules of rules_toml
    rules_toml: RulesToml = None
    mode: ModeName = DEFAULT_MODE
    layout: Annotated[
        str | None,
        Field(max_length=480, pattern=LAYOUT, description="The player's layout, e.g. `BBBB....../...`"),
    ] = None


def cell_schema(auto: bool) -> dict[str, Any]:
    """A cell as JSON Schema: an index, or a name (A1 .. O15; with ``auto``, also ``"auto"``).

    Whether the cell is on the game's board (cell 129 on a 10x10 board) is beyond the schema: the
    server answers 400 saying what the board allows. Anything else is read by the engine's own
    reader, so a bad cell is refused in its words, naming the field and the value.
    """
    name = CELL_NAME if auto else CELL_NAME.replace("auto|", "")
    words = 'A cell\'s name such as "B7"' + (', or "auto"' if auto else "")
    return {
        "oneOf": [
            {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_CELL,
                "description": "A cell's index, row by row from 0",
            },
            {"type": "string", "pattern": name, "description": words},
        ]
    }


Cell = Annotated[Any, WithJsonSchema(cell_schema(True))]
FriendCell = Annotated[Any, WithJsonSchema(cell_schema(False))]
SALVO_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": cell_schema(False),
    "minItems": 1,
    "maxItems": MAX_CELL + 1,
    "description": "A salvo: the cells fired together this turn, as many as the turn fires (the state's "
    "`salvo` says how many); each an index or a name, none fired at before nor twice. A one-shot "
    "game takes a list of one.",
}
Cells = Annotated[Any, WithJsonSchema(SALVO_SCHEMA)]
AUTO_TRUE: JsonDict = {"required": ["auto"], "properties": {"auto": {"const": True}}}


def only(field: str, *others: JsonDict) -> JsonDict:
    """JSON Schema for "``field`` is given, and none of ``others``"."""
    return {"required": [field], "not": {"anyOf": list(others)}}


class Fire(BaseModel):
    """The player's turn: a cell index or name such as ``B7``; a salvo's ``cells`` (salvo rules); ``"auto"``
    (or ``auto: true``) for "play for me".

    One of them: ``{"cell": "B2", "auto": true}`` says two things at once and is refused, as are
    ``cell`` and ``cells`` together. Strict types: ``true`` is not the cell 1, and ``"7"`` is not
    the cell 7. With ``reply: true`` the computer's turn follows in the same request.
    """

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "oneOf": [
                only("cell", {"required": ["cells"]}, AUTO_TRUE),
                only("cells", {"required": ["cell"]}, AUTO_TRUE),
                {
                    **only("auto", {"required": ["cell"]}, {"required": ["cells"]}),
                    "properties": {"auto": {"const": True}},
                },
            ],
            "examples": [
                {"cell": "E5", "reply": True},
                {"cell": "E5"},
                {"cells": ["E5", "F6", "G7"]},
                {"auto": True},
            ],
        },
    )
    cell: Cell = None  # absent is allowed with auto: true or cells; anything else is read as a cell
    cells: Cells = None  # a salvo: read cell by cell, as the turn fires
    auto: StrictBool = False
    reply: Annotated[
        StrictBool,
        Field(
            description="Also play the computer's turn in this request (unless the shot ends the game): "
            "the answer's `reply` holds its shot (or salvo) and `computer`, and `state` is the state after "
            "both turns. One request a move instead of two"
        ),
    ] = False

    @field_validator("cell", mode="before")
    @classmethod
    def whole_floats_are_integers(cls, value: object) -> object:
        """JSON Schema counts ``10.0`` as the integer 10; so does this API (``true`` stays refused)."""
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    @field_validator("cells", mode="before")
    @classmethod
    def cells_are_a_list(cls, value: object) -> object:
        """``"cells": null`` is no salvo (any other value is read, and refused, cell by cell)."""
        return salvo_given(value)

    @model_validator(mode="after")
    def one_thing_at_once(self) -> Fire:
        """A cell, cells and ``auto: true``: two of them together are a contradiction, refused naming both."""
        given = self.model_fields_set
        if self.auto and ("cell" in given or "cells" in given):
            field = "cell" if "cell" in given else "cells"
            value = self.cell if field == "cell" else self.cells
            raise PydanticCustomError(
                "contradiction",
                f"{field} and auto: give {'a cell' if field == 'cell' else 'cells'} ({json.dumps(value)[:40]}) "
                'or auto: true ("play for me"), not both',
            )
        both_cells(self.model_fields_set)
        return self


def both_cells(given: set[str]) -> None:
    """``cell`` and ``cells`` together are refused: one shot or one salvo."""
    if "cell" in given and "cells" in given:
        raise PydanticCustomError(
            "contradiction", "cell and cells: give one cell (a shot) or cells (a salvo), not both"
        )


def salvo_given(value: object) -> object:
    """A salvo as given; ``null`` is refused here (an absent salvo and a null one must not look alike)."""
    if value is None:
        raise PydanticCustomError("not_a_salvo", "null is not a list of cells")
    return value


def turn_cells(body: BaseModel) -> list[Any] | None:
    """The salvo a request gives (``cells``), or None when it gives one ``cell``."""
    return body.cells if "cells" in body.model_fields_set else None  # type: ignore[attr-defined]


class Calc(BaseModel):
    """A board state in the board-state format, and whether to apply C. Liam Brown's diagonal skew."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"rules": "standard", "board": OPEN_BOARD.replace("..", "o.", 1)}],
            **ONE_RULES,
        },
    )
    rules: RuleName = None  # type: ignore[assignment]  # absent: standard, or the custom rules of rules_toml
    rules_toml: RulesToml = None
    board: Annotated[str, Field(min_length=1, max_length=MAX_BOARD, pattern=BOARD)]
    skew: StrictBool = False


class CustomRules(BaseModel):
    """Custom rules to read."""

    model_config = ConfigDict(extra="forbid")
    rules_toml: Annotated[str, Field(max_length=MAX_RULES_TOML, description="A TOML document of rules")]


class History(BaseModel):
    """The ids of games kept in a browser (the id is the key to a game: only its holder can ask)."""

    model_config = ConfigDict(extra="forbid")
    games: Annotated[list[Annotated[str, Field(pattern=HEX)]], Field(max_length=MAX_LOOKUP)]


RETRY = {"Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer"}}}


def responses(
    *codes: int, missing: str = "No game has that id (unfinished games expire)."
) -> dict[int | str, dict[str, Any]]:
    """The error answers an operation can give, each a :class:`Problem` (``missing``: what a 404 means)."""
    meaning = {
        400: "Bad input: the detail says what and where.",
        404: missing,
        409: "Not allowed now: not your turn, the game is over, or (replays) not over yet.",
        413: f"The request body is over {MAX_BODY} bytes.",
        429: "Too many requests from this client: retry after Retry-After seconds.",
        500: "The computation's process died (a crash in compiled code): try again.",
        503: "The server is saturated or shutting down: retry after Retry-After seconds.",
    }
    return {
        c: {"model": Problem, "description": meaning[c], **({"headers": RETRY} if c in (429, 503) else {})}
        for c in (400, 413, 429, *codes)
    }


GAME_LINKS = {
    name: {"operationId": op, "parameters": {"game_id": "$response.body#/id"}}
    for name, op in (
        ("GetGame", "getGame"),
        ("Fire", "fire"),
        ("ComputerMove", "computerMove"),
        ("Resign", "resign"),
        ("Replay", "getReplay"),
        ("HeatMap", "getHeatMap"),
    )
}


ONE_AT_A_TIME = "your other calculation is still running (one at a time for each client)"
SLOTS_TAKEN = "every slot for calculations is taken by other players' calculations"


def analysed(app: FastAPI, request: Request, work: Callable[..., Any]) -> Callable[..., Any]:
    """``work(*args, stop)`` in an analysis slot; at most one at a time for each client.

    Where the client's other calculation still runs, or no analysis slot comes free in time, the
    work answers at once with ``busy=`` saying why (an estimate, saying so), never a 503: a
    calculation answers within the page's time budget, and play keeps its own slots.
    """
    client = request.client.host if request.client else "-"
    state = app.state

    def run(*args: Any) -> Any:
        stop = args[-1]
        with state.heavy_lock:
            mine = client not in state.heavy_clients
            state.heavy_clients.add(client)
        if not mine:
            return work(*args, busy=ONE_AT_A_TIME)
        try:
            return state.gate.run(work, *args, lane=ANALYSIS, stop=stop)
        except Saturated:
            return work(*args, busy=SLOTS_TAKEN)
        finally:
            with state.heavy_lock:
                state.heavy_clients.discard(client)

    return run


async def stoppable(request: Request, seconds: float | None, work: Callable[..., Any], *args: Any) -> Any:
    """``work(*args, stop)`` on the thread pool with a :class:`Stop` of ``seconds``, asked to stop when the
    client goes away or the server shuts down."""
    stop = Stop(seconds)
    state = request.app.state
    state.stops.add(stop)
    if state.stopping.is_set():
        stop.request(INTERRUPT)
    watch = asyncio.create_task(_watch(request, stop))
    try:
        return await run_in_threadpool(work, *args, stop)
    finally:
        watch.cancel()
        state.stops.discard(stop)


async def _watch(request: Request, stop: Stop) -> None:
    """Set ``stop`` when the client hangs up (looked at five times a second, the first time after 0.2 s:
    most moves are answered sooner, and under load the looks took 5% of the web process's time)."""
    while not stop.requested:
        await asyncio.sleep(0.2)
        if await request.is_disconnected():
            stop.request(CANCELLED)
            return


def install(app: FastAPI) -> None:
    """Add the API's operations to ``app``."""
    _game_routes(app)
    _other_routes(app)


def _game_routes(app: FastAPI) -> None:
    """Starting, playing, giving up and replaying a game."""
    service, settings = app.state.service, app.state.settings
    game = {"links": GAME_LINKS}

    @app.post(
        "/api/games",
        status_code=201,
        operation_id="newGame",
        responses={201: {"description": "The new game's state", **game}, **responses(503)},
    )
    async def new_game(body: NewGame, request: Request) -> dict[str, Any]:
        """Start a game; the answer holds its id (keep it: it is the only way back to the game).

        A level that thinks (probability, best, learning) is timed once under new rules; one that cannot
        answer within a move's deadline is refused (400) with the reason.

        Rules ``noisy`` (or custom rules with a ``[noise]`` table): the server's referee flips each hit or
        miss answer with the chance ``rules.noise.flip``, by coins it draws and keeps in the game's record
        (``# coins: N``), so the replay gives every answer, lies included; a cell may be fired at again. The
        Hard level weighs the answers' likelihood (Adaptive, which reads every answer as true, is refused).
        Rules ``cheat`` (or ``[hider] kind = "adversarial"``): the computer hides no fleet and answers each
        shot to keep the game longest, consistent with every answer it gave (the state's ``cheating`` says
        so); it shows a layout that fits them all at the end. It fires at the player's fleet, an honest
        layout, under the same rules less the hider. A cheating hider plays one shot a turn.
        """
        args = (body.rules, body.mode, body.layout, body.rules_toml)
        return await stoppable(request, None, service.new_game, *args)  # timing a level has its own bound

    @app.get("/api/games/{game_id}", operation_id="getGame", responses={200: game, **responses(404)})
    async def game_state(game_id: GameId) -> dict[str, Any]:
        """The player's view of a game (the computer's layout only once it is over).

        Under noisy rules each shot of ``player_shots`` and ``computer_shots`` has ``visit`` (the how-many-th
        shot at its cell, from 1) and, where the truth may be told, ``flipped`` (whether its answer lied):
        the answers about the player's own fleet at once, the player's own once the game is over; ``noise``
        holds the rule (``flip``, ``sinkings``) and, at the end, the record's ``coins`` and how many answers
        each side got ``flipped``. Against a cheating computer ``cheating`` says what it does.
        """
        return await run_in_threadpool(service.state, game_id)

    @app.post(
        "/api/games/{game_id}/fire",
        operation_id="fire",
        responses={200: {"description": "The shot and the new state"}, **responses(404, 409, 500, 503)},
    )
    async def fire(game_id: GameId, request: Request, body: Fire = Body()) -> dict[str, Any]:
        """The player's shot, or under salvo rules their salvo (``cells``, as many as the turn fires), or with
        ``"cell": "auto"`` (or ``"auto": true``) the Expert level's ("play for me"); with ``"reply": true``
        the computer's turn too (``reply``: its shot and ``computer``, as ``computerMove`` answers them).

        "Play for me" and the computer think within the move's deadline; past it the density shooter
        answers, and ``auto.fallback`` (``reply.computer.fallback``) says why.
        """
        auto = body.auto or body.cell == "auto"
        if auto or body.reply:
            cell = None if auto else body.cell
            work = partial(service.fire, game_id, cell, auto, cells=turn_cells(body), reply=body.reply)
            return await stoppable(request, settings.move_seconds, lambda stop: work(stop=stop))
        return await run_in_threadpool(service.fire, game_id, body.cell, False, None, turn_cells(body))

    @app.post(
        "/api/games/{game_id}/computer",
        operation_id="computerMove",
        responses={200: {"description": "The shot and the new state"}, **responses(404, 409, 500, 503)},
    )
    async def computer(game_id: GameId, request: Request) -> dict[str, Any]:
        """The computer's shot at the player's fleet, within the move's deadline.

        ``computer.shooter`` names the shooter that chose it; when the level could not answer in time
        (or every worker was busy) the density shooter did, and ``computer.fallback`` says why.
        """
        return await stoppable(request, settings.move_seconds, service.computer_turn, game_id)

    @app.post("/api/games/{game_id}/resign", operation_id="resign", responses=responses(404, 409))
    async def resign(game_id: GameId) -> dict[str, Any]:
        """Give up: the game ends and both layouts are shown."""
        return await run_in_threadpool(service.resign, game_id)

    _finished_routes(app)


def _finished_routes(app: FastAPI) -> None:
    """A finished game: its replay and the heat maps each side saw."""
    service, settings = app.state.service, app.state.settings

    @app.get("/api/games/{game_id}/replay", operation_id="getReplay", responses=responses(404, 409))
    async def replay(game_id: GameId) -> dict[str, Any]:
        """A finished game move by move (cells named A1..), each also in the Dunman High paper's notation, with both layouts.

        Under noisy rules each move has ``visit`` and ``flipped`` (the truth, the game being over) and
        ``noise`` the rule and the record's coins; against a cheating computer ``computer_layout`` is the
        layout it showed at the end (consistent with every answer) and ``cheating`` says so.
        """
        return await run_in_threadpool(service.replay_view, game_id)

    @app.get("/api/games/{game_id}/heat", operation_id="getHeatMap", responses=responses(404, 409, 500, 503))
    async def heat(
        request: Request,
        game_id: GameId,
        move: Annotated[int, Query(ge=0, le=2 * (MAX_CELL + 1), description="After this many moves")] = 0,
        side: Annotated[
            Literal["computer", "player"],
            Query(
                description="Whose view: the second side's (the computer's) of the first fleet, or the first side's"
            ),
        ] = "computer",
    ) -> dict[str, Any]:
        """Hit probabilities as one side saw them after ``move`` moves of a finished game (exact, or an estimate in time)."""
        seconds = settings.analysis_seconds
        return await stoppable(request, seconds, analysed(app, request, service.heat), game_id, move, side)


def _other_routes(app: FastAPI) -> None:
    """The rules on offer, random layouts, the calculator, the statistics, the history and the arena."""
    service, settings, computer = app.state.service, app.state.settings, app.state.computer
    waiting = {
        "model": NotReady,
        "description": "Not ready: warming up (loading the engine's kernels) or shutting down; "
        "`waiting_for` says what for. Ask again after Retry-After seconds.",
        "headers": RETRY,
    }

    @app.get(
        "/api/ready",
        operation_id="getReadiness",
        response_model=Ready,
        responses={**responses(), 503: waiting},
    )
    def ready() -> Any:
        """Whether the server is open for play: 200 once it is, 503 with what it waits for while it warms
        up (at start-up, behind the open port) or shuts down. The warming page asks it."""
        if app.state.stopping.is_set():
            body = not_ready(STOPPING, 0.0, "the server is shutting down")
            return JSONResponse(body, status_code=503, headers={"Retry-After": "5"})
        return {"ready": True}

    @app.get("/api/rules", operation_id="listRules", responses=responses())
    def rules_list() -> dict[str, Any]:
        """Every preset (with the shooter each level plays under it), the levels, and the custom rules' bounds."""
        presets = []
        for name in RULES:
            rules = preset(name)
            levels = {m: MODES[m].json(aiming(rules))["shooter"] for m in MODES}
            # the levels that cannot play the rules at all (Adaptive under answers that lie), and why
            refused = {m: why for m in MODES if (why := MODES[m].refusal(aiming(rules)))}
            presets.append({**rules_json(rules), "levels": levels, "refused": refused})
        return {
            "rules": presets,
            "modes": [m.json() for m in MODES.values()],
            "custom": {
                "max_side": MAX_SIDE,
                "max_ships": 10,
                "max_ship_cells": 6,
                "max_toml": MAX_RULES_TOML,
            },
            "move_seconds": settings.move_seconds,
        }

    @app.post("/api/rules/custom", operation_id="readRules", responses=responses())
    def read_rules(body: CustomRules) -> dict[str, Any]:
        """Read custom rules (TOML) as the pages draw them: the board, the fleet and each ship's shape."""
        return rules_json(custom_rules(body.rules_toml))

    @app.get("/api/layout", operation_id="randomLayout", responses=responses())
    async def random(rules: Annotated[Literal[RULES], Query()] = "standard") -> dict[str, Any]:  # type: ignore[valid-type]
        """A uniformly random layout for the rules (to start from when placing ships)."""
        from battleship.web.records import layout_json

        return await run_in_threadpool(lambda: layout_json(random_layout(preset(rules))))

    @app.post("/api/calc", operation_id="calculate", responses=responses(500, 503))
    async def calc(body: Calc, request: Request) -> dict[str, Any]:
        """Hit probabilities, the number of layouts left and the best cells of a board state.

        Exact when the count finishes within the deadline; otherwise an estimate, with ``exact``
        false and a ``note`` saying so. ``over`` is true once every ship square has been hit (no square
        is left to find, and ``best`` is empty).
        """
        args = (computer, body.rules, body.board, body.skew, body.rules_toml)
        return await stoppable(request, settings.analysis_seconds, analysed(app, request, calculate), *args)

    @app.get("/api/stats", operation_id="getStats", responses=responses())
    async def statistics() -> dict[str, Any]:
        """Figures drawn from every played game, per rules (noisy and cheating rules each a group of their own)."""
        return await run_in_threadpool(stats.summary, service)

    @app.post("/api/history", operation_id="lookupGames", responses=responses())
    async def history(body: History) -> dict[str, Any]:
        """One line for each of these games that still exists (the history a browser keeps of its games);
        ``twist`` marks a game whose answers may lie (``noisy``) or whose computer cheats (``cheat``)."""
        return {"games": await run_in_threadpool(service.summaries, body.games)}

    @app.get("/api/arena", operation_id="listArenaRuns", responses=responses())
    def arena_runs() -> dict[str, Any]:
        """The saved arena runs on show (``battleship serve --arena FILE``)."""
        return {"runs": app.state.arena.listing()}

    @app.get(
        "/api/arena/{run}",
        operation_id="getArenaRun",
        responses=responses(404, missing="No run on show has that id."),
    )
    def arena_run(run: Annotated[str, Path(max_length=200)]) -> dict[str, Any]:
        """One saved arena run, as ``battleship arena --out`` wrote it: the leaderboard and the matches."""
        return app.state.arena.get(run)
