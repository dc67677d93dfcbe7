"""The JSON API: request bodies with their real constraints, every status code each operation can answer,
and links from a new game to everything one can do with it (so clients and Schemathesis can follow).

Heavy work (a shooter or the inference engines) passes the gate; the rest runs on the thread pool.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Body, FastAPI, Path, Query
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, field_validator
from starlette.concurrency import run_in_threadpool

from battleship.errors import BattleshipError
from battleship.web import stats
from battleship.web.gate import Gate
from battleship.web.guard import MAX_BODY, Problem
from battleship.web.service import MAX_RULES_TOML, MODES, RULES, Service, calculate, random_layout_json

RuleName = Literal["standard", "datagenetics", "pirates", "r-blog"]
MAX_CELL = 99  # the largest board the web plays is 10x10 (custom rules included)
LAYOUT = r"^[.A-Z/\n]+$"  # rows of '.' and ship letters joined by '/' (or one a line)
BOARD = r"^[.oxA-Z#/\n]+$"  # rows of '.', 'o', 'x', '#' and ship letters
GameId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="The game's id (32 hex digits).")]
RulesToml = Annotated[
    str | None,
    Field(
        max_length=MAX_RULES_TOML,
        description="Custom rules: a TOML document as `battleship rules --toml` writes it (boards up to "
        "10x10, up to 6 ships of up to 5 cells). When given, leave `rules` out.",
    ),
]


OPEN_BOARD = "/".join(["." * 10] * 10)
EXAMPLE_LAYOUT = "CCCCC...../BBBB....../DDD......./SSS......./PP......../" + "/".join(["." * 10] * 5)


class NewGame(BaseModel):
    """A new game: rules (a preset, or custom TOML), the computer's mode, the player's layout (random if left out)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"rules": "standard", "mode": "best", "layout": EXAMPLE_LAYOUT}]},
    )
    rules: RuleName = "standard"
    rules_toml: RulesToml = None
    mode: Literal["random", "probability", "best", "learning"] = "best"
    layout: Annotated[
        str | None,
        Field(max_length=400, pattern=LAYOUT, description="The player's layout, e.g. `BBBB....../...`"),
    ] = None


class Fire(BaseModel):
    """The player's shot: a cell index or name such as ``B7``; ``"auto"`` (or ``auto: true``) for "play for me".

    Strict types: ``true`` is not the cell 1, and ``"7"`` is not the cell 7.
    """

    model_config = ConfigDict(extra="forbid")
    cell: (
        Annotated[StrictInt, Field(ge=0, le=MAX_CELL)]
        | Annotated[StrictStr, Field(pattern=r"^(auto|[A-J](10|[1-9]))$")]
        | None
    ) = None
    auto: StrictBool = False

    @field_validator("cell", mode="before")
    @classmethod
    def whole_floats_are_integers(cls, value: object) -> object:
        """JSON Schema counts ``10.0`` as the integer 10; so does this API (``true`` stays refused)."""
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value


class Calc(BaseModel):
    """A board state in the board-state format, and whether to apply C. Liam Brown's diagonal skew."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"rules": "standard", "board": OPEN_BOARD.replace("..", "o.", 1)}]},
    )
    rules: RuleName = "standard"
    rules_toml: RulesToml = None
    board: Annotated[str, Field(min_length=1, max_length=400, pattern=BOARD)]
    skew: StrictBool = False


def _responses(
    *codes: int, missing: str = "No game has that id (unfinished games expire)."
) -> dict[int | str, dict[str, Any]]:
    """The error answers an operation can give, each a :class:`Problem` (``missing``: what a 404 means)."""
    meaning = {
        400: "Bad input: the detail says what and where.",
        404: missing,
        409: "Not allowed now: not your turn, the game is over, or (replays) not over yet.",
        413: f"The request body is over {MAX_BODY} bytes.",
        429: "Too many requests from this client: retry after Retry-After seconds.",
        503: "The server is saturated: retry after Retry-After seconds.",
    }
    retry = {"Retry-After": {"description": "Seconds to wait", "schema": {"type": "integer"}}}
    return {
        c: {"model": Problem, "description": meaning[c], **({"headers": retry} if c in (429, 503) else {})}
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


def _one_rules(body: NewGame | Calc) -> None:
    """A preset or custom rules, not both (JSON Schema cannot say it; the field's description does)."""
    if "rules" in body.model_fields_set and body.rules_toml is not None:
        raise BattleshipError("give rules (a preset) or rules_toml (custom rules), not both")


def install(app: FastAPI, service: Service, gate: Gate) -> None:
    """Add the API's operations to ``app``."""
    _game_routes(app, service, gate)
    _other_routes(app, service, gate)


def _game_routes(app: FastAPI, service: Service, gate: Gate) -> None:
    """Starting, playing, giving up and replaying a game."""
    game = {"links": GAME_LINKS}

    @app.post(
        "/api/games",
        status_code=201,
        operation_id="newGame",
        responses={201: {"description": "The new game's state", **game}, **_responses()},
    )
    async def new_game(body: NewGame) -> dict[str, Any]:
        """Start a game; the answer holds its id (keep it: it is the only way back to the game)."""
        _one_rules(body)
        return await run_in_threadpool(service.new_game, body.rules, body.mode, body.layout, body.rules_toml)

    @app.get("/api/games/{game_id}", operation_id="getGame", responses={200: game, **_responses(404)})
    async def game_state(game_id: GameId) -> dict[str, Any]:
        """The player's view of a game (the computer's layout only once it is over)."""
        return await run_in_threadpool(service.state, game_id)

    @app.post(
        "/api/games/{game_id}/fire",
        operation_id="fire",
        responses={200: {"description": "The shot and the new state"}, **_responses(404, 409, 503)},
    )
    async def fire(game_id: GameId, body: Fire = Body(default_factory=Fire)) -> dict[str, Any]:
        """The player's shot, or with ``"cell": "auto"`` (or ``"auto": true``) the best shooter's ("play for me")."""
        if body.auto or body.cell == "auto":
            return await run_in_threadpool(gate.run, service.fire, game_id, None, True)
        return await run_in_threadpool(service.fire, game_id, body.cell, False)

    @app.post(
        "/api/games/{game_id}/computer",
        operation_id="computerMove",
        responses={200: {"description": "The shot and the new state"}, **_responses(404, 409, 503)},
    )
    async def computer(game_id: GameId) -> dict[str, Any]:
        """The computer's shot at the player's fleet."""
        return await run_in_threadpool(gate.run, service.computer_turn, game_id)

    @app.post("/api/games/{game_id}/resign", operation_id="resign", responses=_responses(404, 409))
    async def resign(game_id: GameId) -> dict[str, Any]:
        """Give up: the game ends and both layouts are shown."""
        return await run_in_threadpool(service.resign, game_id)

    @app.get("/api/games/{game_id}/replay", operation_id="getReplay", responses=_responses(404, 409))
    async def replay(game_id: GameId) -> dict[str, Any]:
        """A finished game move by move, each in the Dunman High paper's notation, with both layouts."""
        return await run_in_threadpool(service.replay_view, game_id)

    @app.get("/api/games/{game_id}/heat", operation_id="getHeatMap", responses=_responses(404, 409, 503))
    async def heat(
        game_id: GameId,
        move: Annotated[int, Query(ge=0, le=2 * (MAX_CELL + 1), description="After this many moves")] = 0,
        side: Annotated[
            Literal["computer", "player"],
            Query(description="Whose view: the computer's of your board, or yours"),
        ] = "computer",
    ) -> dict[str, Any]:
        """Exact hit probabilities as one side saw them after ``move`` moves of a finished game."""
        return await run_in_threadpool(gate.run, service.heat, game_id, move, side)


def _other_routes(app: FastAPI, service: Service, gate: Gate) -> None:
    """The rules on offer, random layouts, the calculator and the statistics."""

    @app.get("/api/rules", operation_id="listRules", responses=_responses())
    def rules_list() -> dict[str, Any]:
        """The rules and computer modes the game offers."""
        from battleship.rules import preset
        from battleship.web.service import CUSTOM_MODES, rules_json

        return {"rules": [rules_json(preset(n)) for n in RULES], "modes": MODES, "custom_modes": CUSTOM_MODES}

    @app.get("/api/layout", operation_id="randomLayout", responses=_responses())
    async def random_layout(rules: RuleName = "standard") -> dict[str, Any]:
        """A uniformly random layout for the rules (to start from when placing ships)."""
        return await run_in_threadpool(random_layout_json, rules)

    @app.post("/api/calc", operation_id="calculate", responses=_responses(503))
    async def calc(body: Calc) -> dict[str, Any]:
        """Exact hit probabilities, the number of layouts left and the best cells of a board state."""
        _one_rules(body)
        return await run_in_threadpool(
            gate.run, calculate, body.rules, body.board, body.skew, body.rules_toml
        )

    @app.get("/api/stats", operation_id="getStats", responses=_responses())
    async def statistics() -> dict[str, Any]:
        """Figures drawn from every played game."""
        return await run_in_threadpool(stats.summary, service)

    @app.get("/api/arena", operation_id="listArenaRuns", responses=_responses())
    def arena_runs() -> dict[str, Any]:
        """The saved arena runs on show (``battleship serve --arena FILE``)."""
        return {"runs": app.state.arena.listing()}

    @app.get(
        "/api/arena/{run}",
        operation_id="getArenaRun",
        responses=_responses(404, missing="No run on show has that id."),
    )
    def arena_run(run: Annotated[str, Path(max_length=200)]) -> dict[str, Any]:
        """One saved arena run, as ``battleship arena --out`` wrote it: the leaderboard and the matches."""
        return app.state.arena.get(run)
