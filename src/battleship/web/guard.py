"""What stands between the network and the game: forwarded addresses (from configured proxies only), body
bounds, players' sessions, per-client rate limits, the access log, and every error answered as JSON
with a ``detail`` string (or, for a page that does not exist, a page that says so).

A client is a player's session where the request carries a valid one
(:mod:`battleship.web.sessions`), else its address; every address also has a wider limit for all
its sessions together. Where several processes serve one PostgreSQL store the requests are counted
in it (fixed windows), so the processes keep one limit between them; a process alone counts in memory.

The middlewares are plain ASGI: they pass the connection's own ``receive`` through, so an endpoint
can tell when its client went away (and stop its heavy work), and a live event stream flows
unbuffered.

Status codes the API answers with (and the OpenAPI schema lists): 400 bad input (a body that is not
the documented JSON included), 404 no such game, 409 not allowed now, 413 body too large, 429 too
many requests from one client, 503 the server is saturated, warming up or shutting down (both with
``Retry-After``), 500 when a computation's process died.
"""

from __future__ import annotations

import logging
import math
import re
import time
from dataclasses import dataclass

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from limits import RateLimitItem, parse_many, storage, strategies
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from battleship.errors import BattleshipError
from battleship.stop import Stopped
from battleship.web.gate import Saturated
from battleship.web.hub import TooManyStreams
from battleship.web.readiness import WARMING_DETAIL, Warming
from battleship.web.records import Conflict, NotFound
from battleship.web.sessions import Sessions, given_now, session_of
from battleship.web.workers import Closed, WorkerDied

MAX_BODY = 65_536  # bytes: the largest request is a custom rules file with a board or layout

access = logging.getLogger("battleship.access")
_SECRET = re.compile(r"/api/(games|seats)/([0-9a-f]{6})[0-9a-f]{26}")  # ids and seat tokens are keys


class Problem(BaseModel):
    """Every error's body: what is wrong, and where, in one sentence."""

    detail: str


@dataclass(frozen=True)
class Limits:
    """How much one client may ask (``limits`` notation, e.g. ``"20/second;600/minute"``; empty = no limit),
    and all the clients of one address together (``address``; used only while ``rate`` limits)."""

    rate: str = "20/second;600/minute"
    address: str = "200/second;6000/minute"

    def items(self) -> list[RateLimitItem]:
        """The parsed limits of a client; a clear error for bad notation."""
        return _parse(self.rate, "--rate-limit")

    def address_items(self) -> list[RateLimitItem]:
        """The parsed limits of an address (none where clients are not limited)."""
        return _parse(self.address, "--address-rate-limit") if self.items() else []


def _parse(rate: str, option: str) -> list[RateLimitItem]:
    if not rate.strip():
        return []
    try:
        return parse_many(rate)
    except ValueError as exc:
        raise BattleshipError(f"{option} {rate!r}: {exc}") from None


def problem(status: int, detail: str, retry_after: int | None = None) -> JSONResponse:
    """An error answer: ``{"detail": "..."}`` (and ``Retry-After`` for 429 and 503)."""
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


def install(
    app: FastAPI,
    limits: Limits,
    missing_page: str,
    forwarded_allow_ips: str = "",
    warming: tuple[Warming, str] | None = None,
    session_key: bytes = b"",
    counts: Counter | None = None,
) -> None:
    """Add the middlewares and the error handlers to ``app`` (``missing_page``: the HTML of a page not found;
    ``warming``: what the server waits for while it warms up, and the HTML page that says so;
    ``session_key``: what signs the sessions; ``counts``: where requests are counted, this process's
    memory by default)."""
    # the last added runs first: the log sees every answer, refusals included; the client's address
    # and session are settled before the rate limit reads them
    app.add_middleware(BoundBodies)
    app.add_middleware(
        RateLimit, items=limits.items(), address_items=limits.address_items(), counts=counts or LocalCounts()
    )
    app.add_middleware(Sessions, key=session_key or b"battleship")
    if warming is not None:
        app.add_middleware(WarmingUp, warming=warming[0], page=warming[1])
    app.add_middleware(AccessLog)
    if forwarded_allow_ips.strip():
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=forwarded_allow_ips)
    _handlers(app, missing_page)


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return client[0] if client else "-"


def client_key(scope: Scope) -> str:
    """Who a request counts against: its session (``s:...``) where it carries a valid one, else its
    address (``a:...``)."""
    session = session_of(scope)
    return f"s:{session}" if session is not None else f"a:{_client(scope)}"


def counted_as(scope: Scope) -> list[str]:
    """Every client a request counts against: its session, or its address and the session it is being
    given (so a browser's first request, made before it had a session, counts in its session too)."""
    fresh = given_now(scope)
    return [client_key(scope)] + ([f"s:{fresh}"] if fresh is not None else [])


def address_of(scope: Scope) -> str:
    """The request's address (the proxy's client where the proxy is believed)."""
    return _client(scope)


class AccessLog:
    """One line a request: client, method, path (game ids and seats shortened), status, time."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not access.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        start, status = time.perf_counter(), 500

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            path = _SECRET.sub(r"/api/\1/\2…", scope["path"])
            ms = 1000 * (time.perf_counter() - start)
            access.info('%s "%s %s" %d %.1fms', _client(scope), scope["method"], path, status, ms)


WARMING_RETRY = 5  # seconds: the Retry-After of a request made while the server warms up
READY_RETRY = 1  # seconds: the Retry-After of ``GET /api/ready`` meanwhile (answered at once, however busy)


class WarmingUp:
    """503 with ``Retry-After`` to every request while ``warming`` is not ready: the API's in JSON (``GET
    /api/ready``'s saying what the server waits for), a page's as ``page`` (HTML that says so, asks
    ``/api/ready`` and goes on to the page asked for once the server is ready). Static files are served:
    they need no warm-up, and the warming page is drawn with them."""

    def __init__(self, app: ASGIApp, warming: Warming, page: str):
        self.app, self.warming, self.page = app, warming, page

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or self.warming.ready or path.startswith("/static/"):
            await self.app(scope, receive, send)
            return
        answer: Response
        if path == "/api/ready":
            answer = JSONResponse(
                self.warming.answer(),
                status_code=503,
                headers={"Retry-After": str(READY_RETRY), "Cache-Control": "no-store"},
            )
        elif path.startswith("/api/") or path == "/api" or path.endswith(".json"):
            answer = problem(503, WARMING_DETAIL, WARMING_RETRY)
        else:
            answer = HTMLResponse(
                self.page,
                status_code=503,
                headers={"Retry-After": str(WARMING_RETRY), "Cache-Control": "no-store"},
            )
        await answer(scope, receive, send)


class Counter:
    """Where requests are counted: :meth:`hit` counts one against each (key, limit) and says which of them
    it passed (its index), and the seconds until that limit's window lets it in again (None: within
    every limit)."""

    async def hit(self, keyed: list[tuple[str, RateLimitItem]]) -> tuple[int, int] | None:
        raise NotImplementedError


class LocalCounts(Counter):
    """This process's memory (moving windows): a server alone on its store."""

    def __init__(self) -> None:
        self.limiter = strategies.MovingWindowRateLimiter(storage.MemoryStorage())

    async def hit(self, keyed: list[tuple[str, RateLimitItem]]) -> tuple[int, int] | None:
        for i, (key, item) in enumerate(keyed):
            if not self.limiter.test(item, key):
                reset = self.limiter.get_window_stats(item, key).reset_time
                return i, max(1, math.ceil(reset - time.time()))
        for key, item in keyed:
            self.limiter.hit(item, key)
        return None


class SharedCounts(Counter):
    """The store's ``rate_counts`` table, counted by every process of a PostgreSQL store in one statement a
    request: fixed windows read as a sliding one (this window's requests and the share of the last
    window's that a window ending now still covers), so no burst passes twice the limit across a
    window's edge. A store that cannot be reached counts nothing (the request goes on, and fails on
    its own if the store is truly gone)."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self._swept = 0.0

    async def hit(self, keyed: list[tuple[str, RateLimitItem]]) -> tuple[int, int] | None:
        from battleship.web import store

        moment = time.time()
        windows = [(f"{item}|{key}", float(item.get_expiry())) for key, item in keyed]
        try:
            counted = await run_in_threadpool(store.count_requests, self.engine, windows, moment)
            if moment - self._swept > SWEEP_SECONDS:  # windows long over go, a few times a minute
                self._swept = moment
                await run_in_threadpool(store.forget_requests, self.engine, moment)
        except Exception:
            access.warning("counting a request in the store failed", exc_info=True)
            return None
        for i, ((_key, item), (hits, earlier, into)) in enumerate(zip(keyed, counted, strict=True)):
            wait = store.over(item.amount, hits, earlier, into)
            if wait is not None:
                return i, max(1, math.ceil(wait * item.get_expiry()))
        return None


SWEEP_SECONDS = 10.0  # how often a process drops the counts of windows long over


class RateLimit:
    """429 with ``Retry-After`` once a client (a session, or an address without one) passes any of
    ``items``, or its address all of ``address_items``, on the API."""

    def __init__(
        self, app: ASGIApp, items: list[RateLimitItem], address_items: list[RateLimitItem], counts: Counter
    ):
        self.app, self.items, self.address_items, self.counts = app, items, address_items, counts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.items and scope["path"].startswith("/api/"):
            address = _client(scope)
            keyed = [(client, item) for client in counted_as(scope) for item in self.items]
            keyed += [(f"A:{address}", item) for item in self.address_items]
            refused = await self.counts.hit(keyed)
            if refused is not None:
                key, item = keyed[refused[0]]
                who = "one address (all its sessions)" if key.startswith("A:") else "one client"
                wait = refused[1]
                await problem(429, f"too many requests: at most {item} from {who}", wait)(
                    scope, receive, send
                )
                return
        await self.app(scope, receive, send)


class BoundBodies:
    """413 for a body over ``MAX_BODY`` bytes, declared or not (an undeclared one is read up to the bound)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        size = headers.get(b"content-length")
        too_big = _TooBig()
        if size is not None and (not size.isdigit() or int(size) > MAX_BODY):
            await too_big(scope, receive, send)
            return
        if size is None and scope["method"] in ("POST", "PUT", "PATCH"):
            body, more = b"", True
            while more:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client went away before it finished sending
                body += message.get("body", b"")
                more = message.get("more_body", False)
                if len(body) > MAX_BODY:
                    await too_big(scope, receive, send)
                    return
            receive = _replay(body, receive)
        await self.app(scope, receive, send)


class _TooBig:
    """The 413 answer, made only when it is sent."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await problem(413, f"request bodies are limited to {MAX_BODY} bytes")(scope, receive, send)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` once, then listens to the connection (for its going away)."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


def _handlers(app: FastAPI, missing_page: str) -> None:
    """Each kind of error as its status code, with a one-sentence ``detail``."""
    for kind, status in ((NotFound, 404), (Conflict, 409), (BattleshipError, 400)):
        app.add_exception_handler(kind, lambda _r, exc, status=status: problem(status, str(exc)))
    app.add_exception_handler(Saturated, lambda _r, exc: problem(503, str(exc), exc.retry_after))
    app.add_exception_handler(TooManyStreams, lambda _r, exc: problem(429, str(exc), 5))
    app.add_exception_handler(Stopped, _stopped)
    app.add_exception_handler(Closed, lambda _r, exc: problem(503, str(exc), 5))
    app.add_exception_handler(WorkerDied, lambda _r, exc: problem(500, f"{exc}; please try again"))

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError):
        return problem(400, "; ".join(_say(e) for e in exc.errors()))

    @app.exception_handler(HTTPException)
    async def http(request: Request, exc: HTTPException):
        if exc.status_code == 404 and not request.url.path.startswith(("/api/", "/openapi")):
            return HTMLResponse(missing_page, status_code=404)
        detail = exc.detail if isinstance(exc.detail, str) else "not allowed"
        if exc.status_code == 404:
            detail = f"no such address: {request.url.path} (the API's operations are listed at /docs)"
        answer = problem(exc.status_code, detail)
        answer.headers.update(exc.headers or {})  # a 405's Allow, say
        return answer


def _stopped(_request: Request, exc: Exception) -> JSONResponse:
    """Work stopped: the client went away (499, as nginx logs it: nobody reads the answer) or the server is stopping.
    ``exc`` is a :class:`Stopped`, typed as Starlette's handlers take any exception."""
    if str(exc) == "cancelled":
        return problem(499, "the client went away")
    if str(exc) == "interrupted":
        return problem(503, "the server is shutting down", 5)
    return problem(503, f"the computation was stopped ({exc})", 5)


def _say(error: dict) -> str:
    """One validation error as "where: what" (``cell: ...``, ``query.move: ...``, ``body: not valid JSON ...``)."""
    loc = [str(p) for p in error.get("loc", ())]
    if error.get("type") == "json_invalid":
        return f"body: not valid JSON (at character {loc[-1]})" if len(loc) > 1 else "body: not valid JSON"
    if error.get("type") == "contradiction":  # names its fields itself
        return str(error.get("msg"))
    where = ".".join(p for p in loc if p != "body") or "body"
    return f"{where}: {error.get('msg')}"
