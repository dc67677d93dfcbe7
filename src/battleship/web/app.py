"""The FastAPI app: the JSON API (with an OpenAPI schema that says what it does), the pages, and the API's
documentation page, all served from the package (nothing fetched at run time).

Every bad input gets a 4xx whose body is ``{"detail": "<what is wrong, and where>"}``; request
bodies are bounded; each client is rate limited (429); heavy work runs in worker processes behind a
gate, each request with a deadline, stopped when its client goes away or the server shuts down; a
game is reachable only by its 128-bit random id (a seat between friends by its own token), and
unfinished games expire.

Warm-up (``warm=True``, as ``battleship serve`` runs it): the worker processes and the server's own
kernels are run once at start-up, behind the open port, so no player's first move waits for the
compiler. Meanwhile every request hears 503 with ``Retry-After`` (a page: a page that says what the
server waits for, asked of ``GET /api/ready``, and goes on to the page by itself once it is over; the
API: ``{"detail": ...}``), so a player who comes early is told why, where a closed port would show
nothing. The presets' state graphs (exact counting under a
spacing margin; Sea Battle's takes seconds to compile) are compiled after that, in the background,
in a process of their own (:mod:`battleship.web.graphs`): until each is ready, its boards are
estimated and say so.

The friends' clocks never run while the server is away: it records a heartbeat every few seconds
and as it stops cleanly, and when it opens for play again each running turn's start moves forward
by the time since (the warm-up's included).
"""

from __future__ import annotations

import atexit
import gc
import json
import logging
import os
import signal
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from datetime import timedelta
from pathlib import Path
from typing import Literal

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from battleship.rules import preset
from battleship.stop import INTERRUPT
from battleship.web import friend_routes, guard, readiness, routes, store
from battleship.web.arena_runs import ArenaRuns
from battleship.web.bus import Bus
from battleship.web.computer import Computer
from battleship.web.friends import Friends
from battleship.web.gate import Gate
from battleship.web.graphs import Graphs, folder_from_environment, warm_presets
from battleship.web.hub import Hub
from battleship.web.models import Models
from battleship.web.readiness import Warming
from battleship.web.service import Service
from battleship.web.workers import Workers

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("battleship.web")


@dataclass(frozen=True)
class Settings:
    """How much the server takes on: heavy-work processes, queue and deadlines, per-client rate, expiry, proxies."""

    # two more than the cores: with two calculations running, a start and a move still find a process
    heavy_workers: int = (os.cpu_count() or 1) + 2
    heavy_queue: int = 16  # requests waiting for a worker before the rest hear 503 (a move falls back)
    heavy_wait: float = 5.0  # seconds a request may wait for a worker
    move_seconds: float = 2.0  # the computer's move, "play for me": past it the density shooter answers
    analysis_seconds: float = 10.0  # the calculator and replay heat maps: past it an estimate answers
    rate_limit: str = guard.Limits().rate
    address_rate_limit: str = guard.Limits().address  # all of one address's sessions together
    expire_hours: float = 24.0  # unfinished games with no move for this long are deleted (0: never)
    arena: tuple[Path, ...] = ()  # saved arena runs shown at /arena
    warm_graphs: bool = True  # the presets' state graphs built in the background once open
    forwarded_allow_ips: str = ""  # proxies whose X-Forwarded-For is believed (uvicorn's notation); none
    # where compiled state graphs are kept, shared by every process given the same folder (None: the
    # folder of $BATTLESHIP_GRAPHS, else a temporary one of this process's, deleted when it stops)
    graphs: Path | None = None


def create_app(
    url: str = "sqlite:///battleship.db",
    warm: bool = False,
    settings: Settings | None = None,
    on_ready: Callable[[], None] | None = None,
    schema: Literal["upgrade", "check"] = "upgrade",
) -> FastAPI:
    """The app, storing games at the SQLAlchemy ``url``; ``warm`` runs every kernel at start-up, every
    request answered 503 until it is over. ``schema``: bring the store up to this version's schema
    (a server alone on it), or only check it (one of several workers: :mod:`battleship.web.schema`).

    On PostgreSQL the process shares with every other process of the store: the game's events and who
    is connected (:mod:`battleship.web.bus`), the heavy-work slots (:class:`battleship.web.gate.SharedSlots`)
    and the request counts (:class:`battleship.web.guard.SharedCounts`).
    """
    settings = settings or Settings()
    limits = guard.Limits(settings.rate_limit, settings.address_rate_limit)
    limits.items(), limits.address_items()  # a bad --rate-limit is refused now, not at the first request
    engine = store.connect(url, schema)
    shared = store.shared(engine)
    gate = Gate(
        settings.heavy_workers, settings.heavy_queue, settings.heavy_wait, shared=engine if shared else None
    )
    workers = Workers(settings.heavy_workers)
    compiled = Graphs(settings.graphs if settings.graphs is not None else folder_from_environment())
    computer = Computer(gate, workers, settings.move_seconds, settings.analysis_seconds, compiled)
    hub = Hub()
    if shared:
        hub.bus = Bus(engine, hub.wake, hub.wake_all)
    app = FastAPI(
        title="battleship",
        summary="Play the computer or a friend, replay games, ask the calculator, read the statistics.",
        version="3",
        lifespan=_lifespan(warm, settings.expire_hours, on_ready),
        docs_url=None,
        redoc_url=None,
    )
    state = app.state
    state.settings, state.gate, state.workers, state.computer, state.hub = (
        settings,
        gate,
        workers,
        computer,
        hub,
    )
    state.service = Service(engine, computer, Models(engine))
    state.friends = Friends(engine, hub)
    state.arena = ArenaRuns(settings.arena)
    state.stops, state.stopping = set(), threading.Event()
    state.warming = Warming(warm)  # until the warm-up is over, every request hears 503 and what it waits for
    state.heavy_clients, state.heavy_lock = set(), threading.Lock()  # clients with a calculation running
    guard.install(
        app,
        limits,
        _page_html("missing", "page not found"),
        settings.forwarded_allow_ips,
        (state.warming, _page_html("warming", "starting", head=NO_SCRIPT_REFRESH)),
        session_key=store.server_key(engine, "sessions").encode(),
        counts=guard.SharedCounts(engine) if shared else guard.LocalCounts(),
    )
    routes.install(app)
    friend_routes.install(app)
    _pages(app)
    _docs(app)
    # FastAPI's documented way to replace the schema is to assign app.openapi, which its types call a method
    app.openapi = lambda: _schema(app)  # type: ignore[method-assign]
    return app


SETTINGS_ENV = "BATTLESHIP_SETTINGS"  # the settings of every worker, as JSON (from_environment)
DB_ENV = "BATTLESHIP_DB"  # the store's URL (from_environment)


def settings_json(settings: Settings) -> str:
    """``settings`` as :func:`from_environment` reads them back."""
    fields = asdict(settings)
    fields["arena"] = [str(p) for p in settings.arena]
    fields["graphs"] = str(settings.graphs) if settings.graphs is not None else None
    return json.dumps(fields)


def from_environment() -> FastAPI:
    """The app of one of several worker processes (``battleship serve --workers N``, or uvicorn's or
    gunicorn's own workers with ``--factory battleship.web.app:from_environment``): the store's URL in
    ``$BATTLESHIP_DB``, the settings in ``$BATTLESHIP_SETTINGS`` (JSON; the defaults where left out).

    It warms up before it returns, so a worker takes no connection before it can play (the others
    serve meanwhile: a rolling restart refuses nothing), and checks the store's schema without making
    it (``battleship db upgrade`` makes it, once, before the workers start).
    """
    from battleship.web.workers import start_forkserver

    start_forkserver()  # the heavy workers' process loads its kernels while this one opens the store
    fields = json.loads(os.environ.get(SETTINGS_ENV) or "{}")
    fields["arena"] = tuple(Path(p) for p in fields.get("arena", ()))
    fields["graphs"] = Path(fields["graphs"]) if fields.get("graphs") else None
    url = os.environ.get(DB_ENV, "sqlite:///battleship.db")
    app = create_app(url, warm=True, settings=Settings(**fields), schema="check")
    app.state.chain_signals = True  # uvicorn's own server: its SIGTERM stops the streams at once too
    _warm_up(app)  # the lifespan's warm-up then finds everything loaded, and opens at once
    return app


def shut_down(app: FastAPI) -> None:
    """Begin stopping (SIGTERM, Ctrl-C): every heavy job stops now and every live stream ends."""
    app.state.stopping.set()
    for stop in list(app.state.stops):
        stop.request(INTERRUPT)
    app.state.hub.wake_all()


def _lifespan(warm: bool, expire_hours: float, on_ready: Callable[[], None] | None):
    """Start-up (warm-up when asked, behind the open port), the friends' clocks given back the time the
    server was away, a heartbeat and a thread deleting idle unfinished games, and the pool closed at the end.

    At the end of a server's process, Python's own teardown would walk every object (Numba's compiled
    kernels and their type registries are many) in its last garbage collections: two seconds of a
    SIGTERM's stop, measured. Freezing them first (the atexit handler registered last runs first)
    leaves those collections nothing to walk; the process ends as it would, its other handlers run.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        stop = threading.Event()
        opened = threading.Event()
        if getattr(app.state, "chain_signals", False):
            _stop_at_signals(app)

        bus = app.state.hub.bus
        if bus is not None:  # the other processes' moves reach this one's streams from the start
            bus.start()

        def open_for_play() -> None:
            engine = app.state.service.engine
            _credit_downtime(engine)
            threading.Thread(
                target=_heartbeat, args=(engine, stop, bus), daemon=True, name="heartbeat"
            ).start()
            if expire_hours > 0:
                threading.Thread(
                    target=_sweep, args=(engine, expire_hours, stop), daemon=True, name="expire-games"
                ).start()
            opened.set()
            app.state.warming.open()
            ready = on_ready or getattr(app.state, "on_ready", None)  # a worker's is set on its app
            if ready is not None:
                ready()

        if warm:  # the port opens now; every request hears 503 and why until the warm-up is over
            threading.Thread(
                target=_warm_then_open, args=(app, open_for_play), daemon=True, name="warm-up"
            ).start()
        else:
            open_for_play()
        try:
            yield
        finally:
            stop.set()
            shut_down(app)
            if opened.is_set():  # a clean stop: the friends' clocks stop here, not at the last heartbeat
                store.beat(app.state.service.engine)
            if bus is not None:
                bus.close()
            if app.state.gate.shared is not None:
                app.state.gate.shared.close()
            app.state.workers.close()
            app.state.computer.graphs.close()
            store.close(app.state.service.engine)
            if warm:  # the server's own process (not a test's): it is about to end
                atexit.register(gc.freeze)

    return lifespan


def _stop_at_signals(app: FastAPI) -> None:
    """SIGTERM and SIGINT stop every computation and live stream at once, then do what they did (uvicorn's
    graceful shutdown, which would otherwise wait for the streams to end by themselves)."""
    for number in (signal.SIGTERM, signal.SIGINT):
        before = signal.getsignal(number)

        def handle(sig: int, frame, before=before) -> None:
            shut_down(app)
            if callable(before):
                before(sig, frame)

        signal.signal(number, handle)


def _warm_then_open(app: FastAPI, open_for_play: Callable[[], None]) -> None:
    """Warm up, then open the game for play; a failed warm-up stops the server, saying why."""
    try:
        _warm_up(app)
    except Exception:
        if app.state.stopping.is_set():
            return  # stopped while warming up: the workers were closed under it
        log.exception("warming up failed: the server stops")
        signal.raise_signal(signal.SIGTERM)
        return
    if app.state.stopping.is_set():
        return
    open_for_play()
    threading.Thread(target=_fill_in, args=(app,), daemon=True, name="fill-in").start()
    if app.state.settings.warm_graphs:
        warm_presets(app.state.computer.graphs)  # in the background, a process of their own


def _credit_downtime(engine) -> None:
    """Give the friends' running clocks the time the server was away (a failure is logged: the game opens).

    On a shared store another process may have served all along (a rolling restart): its heartbeat is
    then fresh, and nothing is given."""
    try:
        alive = store.last_alive(engine)
        if (
            store.shared(engine)
            and alive is not None
            and store.now() - alive < timedelta(seconds=3 * HEARTBEAT_SECONDS)
        ):
            return
        away = store.credit_downtime(engine)
    except Exception:
        log.exception("giving the friends' clocks the time the server was away failed")
        return
    if away > 0:
        log.info("the server was away %.1f s: friends' running clocks were given it back", away)


# how often the server records that it is alive: a killed server's clocks lose at most this much
HEARTBEAT_SECONDS = 2.0


def _heartbeat(engine, stop: threading.Event, bus: Bus | None = None) -> None:
    """Record every ``HEARTBEAT_SECONDS`` that the server is alive (and that its streams still count), until
    ``stop``."""
    while not stop.wait(HEARTBEAT_SECONDS):
        try:
            store.beat(engine)
            if bus is not None:
                bus.beat()
        except Exception:  # a database gone for a moment: the next beat tries again
            log.warning("recording the server's heartbeat failed", exc_info=True)


def _warm_up(app: FastAPI) -> None:
    """The worker processes (forked warm) and this process's own kernels, side by side.

    The forkserver compiles every level's kernels (:mod:`battleship.web.warm`) while this process,
    in a thread, compiles its own that play waits for (layouts, answers; the rest fills in once open,
    :func:`_fill_in`): on a fresh clone both compile at once on two cores, where one after the other
    took their sum.
    """
    failed: list[Exception] = []
    warming = app.state.warming  # each part named while it runs: GET /api/ready and the warming page say it

    def here() -> None:
        try:
            with warming.part(readiness.HERE):
                _warm_here(app)
        except Exception as exc:
            failed.append(exc)

    # a daemon thread, as the one that runs this: a server stopped while it compiles ends without it
    mine = threading.Thread(target=here, daemon=True, name="warm-up-here")
    mine.start()
    with warming.part(readiness.WORKERS):
        app.state.workers.start()
    # the levels timed on the workers while this process warms up: the first game's level is then
    # timed already (or under way: its request waits for that verdict), not timed in front of its player
    threading.Thread(target=_time_levels, args=(app,), daemon=True, name="time-levels").start()
    mine.join()
    if failed:
        raise failed[0]  # its error is the start-up's


def _warm_here(app: FastAPI) -> None:
    """This process's own kernels that play waits for: the random layouts of a new game, the answers."""
    from battleship.web import jobs
    from battleship.web.records import shots_json
    from battleship.web.service import random_layout

    for name in ("standard", "pirates"):
        rules = preset(name)
        random_layout(rules)
        shots_json(jobs.positions(rules)[1].shots, rules)


def _fill_in(app: FastAPI) -> None:
    """What play does not wait for, loaded once the game is open (a request that needs one first loads
    it itself): the stand-ins a busy server answers with, the heat maps' estimate, the Adaptive level's
    model. A failure is logged; whatever it was loads at its first use."""
    from battleship.web import jobs

    try:
        for name in ("standard", "pirates"):
            rules = preset(name)
            board = jobs.positions(rules)[1]
            jobs.quick_shot(rules, board, (0, 0))
            jobs.estimate(rules, board, True)
        if not app.state.stopping.is_set():
            app.state.service.models.fit(preset("standard"))
    except Exception:
        if not app.state.stopping.is_set():
            log.exception("loading the stand-ins and the Adaptive level's model after opening failed")


def _time_levels(app: FastAPI) -> None:
    """Time the levels that think under the standard rules once, in the background once the worker
    processes are up, so that the first new game does not wait for its level's timing (half a second
    on an idle machine, measured)."""
    from battleship.stop import Stop
    from battleship.web.computer import DEFAULT_MODE, MODES

    # one at a time (a start's slot is one worker), the default level first: a first game most likely asks
    # for it, and would otherwise wait for the others' timings
    for name, chosen in sorted(MODES.items(), key=lambda item: item[0] != DEFAULT_MODE):
        if not chosen.thinks or name == "learning" or app.state.stopping.is_set():
            continue  # the Adaptive level is timed with its model, when a game asks for it
        try:
            app.state.computer.admit(preset("standard"), name, Stop())
        except Exception:  # a refusal or a busy server: the first game under these rules times it again
            log.info("timing %s under the standard rules at start-up did not settle", name)


def _sweep(engine, expire_hours: float, stop: threading.Event) -> None:
    """Delete unfinished games idle for ``expire_hours`` (checked often) until ``stop``."""
    idle = timedelta(hours=expire_hours)
    every = min(600.0, max(1.0, idle.total_seconds() / 10))
    while True:
        gone = store.expire(engine, store.now() - idle)
        if gone:
            log.info("expired %d unfinished game(s) idle for over %g hours", gone, expire_hours)
        if stop.wait(every):
            return


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
    ("/friend", "friend", "play a friend"),
    ("/history", "history", "my games"),
    ("/replay", "replay", "replay"),
    ("/calc", "calc", "probability calculator"),
    ("/stats", "stats", "statistics"),
    ("/arena", "arena", "arena"),
)


# the warming page without scripts: it reloads itself (with them, it asks /api/ready and moves on at once)
NO_SCRIPT_REFRESH = '<noscript><meta http-equiv="refresh" content="5"></noscript>\n'
# snippets a page file names in braces, shared by the pages that show them
SNIPPETS = ("board-legend",)


def _page_html(page: str, title: str, head: str = "") -> str:
    """``page``'s file (its <main> and scripts, with its snippets) in the layout, titled ``title``, with
    ``head`` added to the layout's head."""
    body = (STATIC / f"{page}.html").read_text()
    for snippet in SNIPPETS:
        body = body.replace("{" + snippet + "}", (STATIC / f"{snippet}.html").read_text())
    layout = (STATIC / "layout.html").read_text()
    return layout.replace("{head}", head).replace("{title}", title).replace("{page}", body)


def _pages(app: FastAPI) -> None:
    """The pages and their static files."""
    for path, page, title in PAGES:
        app.add_api_route(path, _page(_page_html(page, title)), include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")


def _page(html: str):
    """An endpoint that serves ``html`` (a function of no arguments: FastAPI reads none from the query)."""

    def serve() -> HTMLResponse:
        return HTMLResponse(html, headers={"Cache-Control": "no-cache"})

    return serve


def _docs(app: FastAPI) -> None:
    """The API's documentation page, drawn by the vendored Swagger UI."""
    swagger = "/static/vendor/swagger-ui"
    html = get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="battleship: the API",
        swagger_js_url=f"{swagger}/swagger-ui-bundle.js",
        swagger_css_url=f"{swagger}/swagger-ui.css",
        swagger_favicon_url=f"{swagger}/favicon-32x32.png",
    )
    back = (
        '<body><nav style="font: 16px system-ui, sans-serif; padding: .5rem 1rem; background: #e8eef3">'
        '<a href="/">&larr; Back to the game</a></nav>'
    )
    page = bytes(html.body).decode().replace("<body>", back, 1)
    app.add_api_route(
        "/docs", lambda: HTMLResponse(page), include_in_schema=False, response_class=HTMLResponse
    )
