"""The FastAPI app: the JSON API (with its OpenAPI schema) and the three pages.

Every bad input gets a 4xx with a message saying what is wrong; request bodies are bounded; a
game is reachable only by its 128-bit random id.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field, StrictBool, StrictInt, StrictStr
from starlette.concurrency import run_in_threadpool

from battleship.errors import BattleshipError
from battleship.web import stats, store
from battleship.web.service import MODES, RULES, Conflict, NotFound, Service, calculate, random_layout_json

STATIC = Path(__file__).parent / "static"
MAX_BODY = 16_384  # bytes: the largest request is a board or layout of at most 16x16 cells


class NewGame(BaseModel):
    """A new game: rules, the computer's mode, and the player's layout (random when left out)."""

    rules: Literal["standard", "datagenetics", "pirates", "r-blog"] = "standard"
    mode: Literal["random", "probability", "best", "learning"] = "best"
    layout: Annotated[str | None, Field(max_length=400)] = None


class Fire(BaseModel):
    """The player's shot: a cell (index or name such as B7), or ``"auto"`` (or ``auto: true``) for "play for me".

    Strict types: ``true`` is not the cell 1, and ``"7"`` is not the cell 7.
    """

    cell: StrictInt | Annotated[StrictStr, Field(max_length=4)] | None = None
    auto: StrictBool = False


class Calc(BaseModel):
    """A board state in the board-state format, and whether to apply C. Liam Brown's diagonal skew."""

    rules: Literal["standard", "datagenetics", "pirates", "r-blog"] = "standard"
    board: Annotated[str, Field(max_length=400)]
    skew: bool = False


def create_app(url: str = "sqlite:///battleship.db", warm: bool = False) -> FastAPI:
    """The app, storing games at the SQLAlchemy ``url``; ``warm`` fits the Learning models at once, in the background."""
    engine = store.connect(url)
    service = Service(engine)
    if warm:
        from battleship.rules import preset

        for name in RULES:
            service.models.refit_in_background(preset(name))
    app = FastAPI(
        title="battleship",
        summary="Play against the computer, ask the calculator, read the statistics.",
        version="1",
    )
    app.state.service = service
    _guard(app)
    _api(app, service)
    _pages(app)
    return app


def _guard(app: FastAPI) -> None:
    """Bounded request bodies, and every user error answered as a 4xx with a message."""

    @app.middleware("http")
    async def bound_bodies(request: Request, call_next):
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
            return JSONResponse(
                {"detail": f"request bodies are limited to {MAX_BODY} bytes"}, status_code=413
            )
        if size is None and request.method in ("POST", "PUT", "PATCH"):
            body = await request.body()
            if len(body) > MAX_BODY:
                return JSONResponse(
                    {"detail": f"request bodies are limited to {MAX_BODY} bytes"}, status_code=413
                )
        return await call_next(request)

    @app.exception_handler(NotFound)
    async def not_found(_request: Request, exc: NotFound):
        return JSONResponse({"detail": str(exc)}, status_code=404)

    @app.exception_handler(Conflict)
    async def conflict(_request: Request, exc: Conflict):
        return JSONResponse({"detail": str(exc)}, status_code=409)

    @app.exception_handler(BattleshipError)
    async def bad_input(_request: Request, exc: BattleshipError):
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError):
        problems = [
            f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: {e.get('msg')}"
            for e in exc.errors()
        ]
        return JSONResponse({"detail": "; ".join(problems)}, status_code=422)


def _api(app: FastAPI, service: Service) -> None:
    """The JSON API."""

    @app.get("/api/rules")
    def rules_list() -> dict[str, Any]:
        """The rules and computer modes the game offers."""
        from battleship.rules import preset
        from battleship.web.service import rules_json

        return {"rules": [rules_json(preset(n)) for n in RULES], "modes": MODES}

    @app.get("/api/layout")
    async def random_layout(rules: Literal["standard", "datagenetics", "pirates", "r-blog"] = "standard"):
        """A uniformly random layout for the rules (to start from when placing ships)."""
        return await run_in_threadpool(random_layout_json, rules)

    @app.post("/api/games", status_code=201)
    async def new_game(body: NewGame) -> dict[str, Any]:
        """Start a game; the answer holds its id (keep it: it is the only way back to the game)."""
        return await run_in_threadpool(service.new_game, body.rules, body.mode, body.layout)

    @app.get("/api/games/{game_id}")
    async def game_state(game_id: str) -> dict[str, Any]:
        """The player's view of a game (the computer's layout only once it is over)."""
        return await run_in_threadpool(service.state, game_id)

    @app.post("/api/games/{game_id}/fire")
    async def fire(game_id: str, body: Fire = Body(default_factory=Fire)) -> dict[str, Any]:
        """The player's shot, or with ``auto`` the best shooter's ("play for me")."""
        auto = body.auto or body.cell == "auto"
        return await run_in_threadpool(service.fire, game_id, None if auto else body.cell, auto)

    @app.post("/api/games/{game_id}/computer")
    async def computer(game_id: str) -> dict[str, Any]:
        """The computer's shot at the player's fleet."""
        return await run_in_threadpool(service.computer_turn, game_id)

    @app.post("/api/games/{game_id}/resign")
    async def resign(game_id: str) -> dict[str, Any]:
        """Give up: the game ends and both layouts are shown."""
        return await run_in_threadpool(service.resign, game_id)

    @app.post("/api/calc")
    async def calc(body: Calc) -> dict[str, Any]:
        """Exact hit probabilities, the number of layouts left and the best cells of a board state."""
        return await run_in_threadpool(calculate, body.rules, body.board, body.skew)

    @app.get("/api/stats")
    async def statistics() -> dict[str, Any]:
        """Figures drawn from every finished game."""
        return await run_in_threadpool(stats.summary, service)


def _pages(app: FastAPI) -> None:
    """The three pages and their static files."""

    @app.get("/", include_in_schema=False)
    def game_page():
        return FileResponse(STATIC / "game.html")

    @app.get("/calc", include_in_schema=False)
    def calc_page():
        return FileResponse(STATIC / "calc.html")

    @app.get("/stats", include_in_schema=False)
    def stats_page():
        return FileResponse(STATIC / "stats.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
