"""What stands between the network and the game: body bounds, per-client rate limits, the access log, and
every error answered as JSON with a ``detail`` string.

Status codes the API answers with (and the OpenAPI schema lists): 400 bad input (a body that is not
the documented JSON included), 404 no such game,
409 not allowed now, 413 body too large, 429 too many requests from one client, 503 the server is saturated (both with ``Retry-After``).
"""

from __future__ import annotations

import logging
import math
import re
import time
from dataclasses import dataclass

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from limits import RateLimitItem, parse_many, storage, strategies
from pydantic import BaseModel

from battleship.errors import BattleshipError
from battleship.web.gate import Saturated
from battleship.web.service import Conflict, NotFound

MAX_BODY = 65_536  # bytes: the largest request is a custom rules file with a board or layout

access = logging.getLogger("battleship.access")
_GAME_ID = re.compile(r"/api/games/([0-9a-f]{6})[0-9a-f]{26}")


class Problem(BaseModel):
    """Every error's body: what is wrong, and where, in one sentence."""

    detail: str


@dataclass(frozen=True)
class Limits:
    """How much one client may ask (``limits`` notation, e.g. ``"20/second;600/minute"``; empty = no limit)."""

    rate: str = "20/second;600/minute"

    def items(self) -> list[RateLimitItem]:
        """The parsed limits; a clear error for bad notation."""
        if not self.rate.strip():
            return []
        try:
            return parse_many(self.rate)
        except ValueError as exc:
            raise BattleshipError(f"--rate-limit {self.rate!r}: {exc}") from None


def problem(status: int, detail: str, retry_after: int | None = None) -> JSONResponse:
    """An error answer: ``{"detail": "..."}`` (and ``Retry-After`` for 429 and 503)."""
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


def install(app: FastAPI, limits: Limits) -> None:
    """Add the middlewares and the error handlers to ``app``."""
    # the last added runs first: the log sees every answer, refusals included
    _bound_bodies(app)
    _rate_limit(app, limits.items())
    _access_log(app)
    _handlers(app)


def _access_log(app: FastAPI) -> None:
    """One line a request: client, method, path (game ids shortened: they are the games' keys), status, time."""

    @app.middleware("http")
    async def log(request: Request, call_next):
        start = time.perf_counter()
        status = 500
        try:
            response = await call_next(request)
            status = response.status_code
            return response
        finally:
            if access.isEnabledFor(logging.INFO):
                client = request.client.host if request.client else "-"
                path = _GAME_ID.sub(r"/api/games/\1…", request.url.path)
                access.info(
                    '%s "%s %s" %d %.1fms',
                    client,
                    request.method,
                    path,
                    status,
                    1000 * (time.perf_counter() - start),
                )


def _rate_limit(app: FastAPI, items: list[RateLimitItem]) -> None:
    """429 with ``Retry-After`` once a client (by address) passes any of ``items`` on the API."""
    limiter = strategies.MovingWindowRateLimiter(storage.MemoryStorage())

    @app.middleware("http")
    async def limit(request: Request, call_next):
        if items and request.url.path.startswith("/api/"):
            client = request.client.host if request.client else "-"
            for item in items:
                if not limiter.test(item, client):
                    reset = limiter.get_window_stats(item, client).reset_time
                    wait = max(1, math.ceil(reset - time.time()))
                    return problem(429, f"too many requests: at most {item} from one client", wait)
            for item in items:
                limiter.hit(item, client)
        return await call_next(request)


def _bound_bodies(app: FastAPI) -> None:
    """413 for a body over ``MAX_BODY`` bytes, declared or not."""
    too_big = f"request bodies are limited to {MAX_BODY} bytes"

    @app.middleware("http")
    async def bound(request: Request, call_next):
        size = request.headers.get("content-length")
        if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
            return problem(413, too_big)
        unsized = size is None and request.method in ("POST", "PUT", "PATCH")
        if unsized and len(await request.body()) > MAX_BODY:
            return problem(413, too_big)
        return await call_next(request)


def _handlers(app: FastAPI) -> None:
    """Each kind of error as its status code, with a one-sentence ``detail``."""
    for kind, status in ((NotFound, 404), (Conflict, 409), (BattleshipError, 400)):
        app.add_exception_handler(kind, lambda _r, exc, status=status: problem(status, str(exc)))

    @app.exception_handler(Saturated)
    async def saturated(_request: Request, exc: Saturated):
        return problem(503, str(exc), exc.retry_after)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError):
        return problem(400, "; ".join(_say(e) for e in exc.errors()))


def _say(error: dict) -> str:
    """One validation error as "where: what" (``cell: ...``, ``query.move: ...``, ``body: not valid JSON ...``)."""
    loc = [str(p) for p in error.get("loc", ())]
    if error.get("type") == "json_invalid":
        return f"body: not valid JSON (at character {loc[-1]})" if len(loc) > 1 else "body: not valid JSON"
    where = ".".join(p for p in loc if p != "body") or "body"
    return f"{where}: {error.get('msg')}"
