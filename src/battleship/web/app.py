"""The FastAPI app: the JSON API (with an OpenAPI schema that says what it does) and the five pages.

Every bad input gets a 4xx whose body is ``{"detail": "<what is wrong, and where>"}``; request
bodies are bounded; heavy work passes a :class:`~battleship.web.gate.Gate` (503 when saturated);
each client is rate limited (429); a game is reachable only by its 128-bit random id, and
unfinished games expire.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from battleship.rules import preset
from battleship.web import guard, routes, store
from battleship.web.arena_runs import ArenaRuns
from battleship.web.gate import Gate
from battleship.web.service import RULES, Service

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("battleship.web")


@dataclass(frozen=True)
class Settings:
    """How much the server takes on: heavy-work slots and queue, per-client rate, game expiry."""

    heavy_workers: int = max(1, os.cpu_count() or 1)  # more threads than cores only share them
    heavy_queue: int = 16  # requests waiting for a slot before the rest hear 503
    heavy_wait: float = 5.0  # seconds a request may wait for a slot (its deadline)
    rate_limit: str = guard.Limits().rate
    expire_hours: float = 24.0  # unfinished games with no move for this long are deleted (0: never)
    arena: tuple[Path, ...] = ()  # saved arena runs shown at /arena


def create_app(
    url: str = "sqlite:///battleship.db", warm: bool = False, settings: Settings | None = None
) -> FastAPI:
    """The app, storing games at the SQLAlchemy ``url``; ``warm`` fits the Learning models at once, in the background."""
    settings = settings or Settings()
    limits = guard.Limits(settings.rate_limit)
    limits.items()  # a bad --rate-limit is refused now, not at the first request
    engine = store.connect(url)
    service = Service(engine)
    if warm:
        for name in RULES:
            service.models.refit_in_background(preset(name))
    app = FastAPI(
        title="battleship",
        summary="Play against the computer, replay games, ask the calculator, read the statistics.",
        version="2",
        lifespan=_lifespan(engine, settings.expire_hours),
    )
    app.state.service = service
    app.state.arena = ArenaRuns(settings.arena)
    gate = Gate(settings.heavy_workers, settings.heavy_queue, settings.heavy_wait)
    app.state.gate = gate
    guard.install(app, limits)
    routes.install(app, service, gate)
    _pages(app)
    app.openapi = lambda: _schema(app)
    return app


def _lifespan(engine, expire_hours: float):
    """While the app runs, a thread deletes unfinished games idle for ``expire_hours`` (checked often)."""

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        stop = threading.Event()
        if expire_hours > 0:
            idle = timedelta(hours=expire_hours)
            every = min(600.0, max(1.0, idle.total_seconds() / 10))

            def sweep() -> None:
                while True:
                    gone = store.expire(engine, store.now() - idle)
                    if gone:
                        log.info("expired %d unfinished game(s) idle for over %g hours", gone, expire_hours)
                    if stop.wait(every):
                        return

            threading.Thread(target=sweep, daemon=True, name="expire-games").start()
        try:
            yield
        finally:
            stop.set()

    return lifespan


def _schema(app: FastAPI) -> dict:
    """The OpenAPI schema, made once; bad bodies answer 400 (with :class:`guard.Problem`), never 422."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)
        for operations in schema["paths"].values():
            for operation in operations.values():
                operation.get("responses", {}).pop("422", None)
        for name in ("HTTPValidationError", "ValidationError"):
            schema.get("components", {}).get("schemas", {}).pop(name, None)
        app.openapi_schema = schema
    return app.openapi_schema


# path, page file (its <main> and scripts) and title; each is set in static/layout.html, the head and
# header every page shares
PAGES = (
    ("/", "game", "play the computer"),
    ("/replay", "replay", "replay"),
    ("/calc", "calc", "probability calculator"),
    ("/stats", "stats", "statistics"),
    ("/arena", "arena", "arena"),
)


def _pages(app: FastAPI) -> None:
    """The five pages and their static files."""
    layout = (STATIC / "layout.html").read_text()
    for path, page, title in PAGES:
        html = layout.replace("{title}", title).replace("{page}", (STATIC / f"{page}.html").read_text())
        app.add_api_route(path, _page(html), include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")


def _page(html: str):
    """An endpoint that serves ``html`` (a function of no arguments: FastAPI reads none from the query)."""

    def serve() -> HTMLResponse:
        return HTMLResponse(html)

    return serve
