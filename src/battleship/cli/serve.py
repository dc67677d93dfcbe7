"""The ``serve`` command: the game (against the computer or a friend), the replay, the calculator and the
statistics in the browser.

With ``--workers N`` (PostgreSQL only) N server processes share the port, each with its own heavy-work
processes, and share through the store the games' events, who is connected, the heavy-work slots and
the rate limits; they check the store's schema and do not make it (``battleship db upgrade`` does,
once). SIGHUP replaces the workers one at a time, each new one serving before its old one stops.

The port opens at once: while the engines load (seconds: the package comes with its kernels compiled),
every request is answered 503 with ``Retry-After``, pages with a page that says what the server waits
for and reloads itself. SIGTERM and Ctrl-C stop the server within a few seconds: every computation under way is stopped at
once (its worker process killed), live streams end, and requests still open get 503 before uvicorn's
short graceful shutdown closes the connections.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from battleship.cli.common import console, friendly, output_file, output_folder
from battleship.cli.helptext import examples
from battleship.errors import BattleshipError

ForwardedOpt = Annotated[
    str,
    typer.Option(
        "--forwarded-allow-ips",
        help="Proxies whose X-Forwarded-For is believed: addresses or networks, comma-separated, '*' for "
        "any (uvicorn's notation; default $FORWARDED_ALLOW_IPS, else none: the peer's address counts).",
    ),
]

RateLimitOpt = Annotated[
    str,
    typer.Option(
        "--rate-limit",
        help="Requests one client (a player's session, or an address without one) may make, e.g. "
        '"20/second;600/minute" ("" for no limits at all); past it: 429.',
    ),
]

AddressRateLimitOpt = Annotated[
    str,
    typer.Option(
        "--address-rate-limit",
        help="Requests all the sessions of one address may make together (a classroom behind one NAT); "
        "past it: 429.",
    ),
]


@examples("battleship serve", "battleship serve --port 8080 --arena results.json")
@friendly
def serve_cmd(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    db: Annotated[
        str, typer.Option("--db", help="SQLAlchemy URL of the game store (default: an SQLite file here).")
    ] = "sqlite:///battleship.db",
    heavy_workers: Annotated[
        int | None,
        typer.Option(
            "--heavy-workers",
            help="Worker processes for heavy work (computer moves, calculator, heat maps; default: cores + 1).",
        ),
    ] = None,
    heavy_queue: Annotated[
        int,
        typer.Option(
            "--heavy-queue", help="Requests that may wait for a worker; past it: 503 (a move falls back)."
        ),
    ] = 16,
    heavy_wait: Annotated[
        float, typer.Option("--heavy-wait", help="Seconds a request may wait for a worker; past it: 503.")
    ] = 5.0,
    move_seconds: Annotated[
        float,
        typer.Option(
            "--move-seconds",
            help="Deadline of a computer move; past it the density shooter answers (and says so). "
            "Levels that cannot move within it under some rules are refused for them.",
        ),
    ] = 2.0,
    analysis_seconds: Annotated[
        float,
        typer.Option(
            "--analysis-seconds", help="Deadline of the calculator and heat maps; past it: an estimate."
        ),
    ] = 10.0,
    forwarded_allow_ips: ForwardedOpt = "",
    rate_limit: RateLimitOpt = "20/second;600/minute",
    address_rate_limit: AddressRateLimitOpt = "200/second;6000/minute",
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            help="Server processes sharing the port (PostgreSQL only; run 'battleship db upgrade' first).",
        ),
    ] = 1,
    expire_hours: Annotated[
        float, typer.Option("--expire-hours", help="Delete unfinished games idle this long (0: keep them).")
    ] = 24.0,
    arena: Annotated[
        list[Path] | None,
        typer.Option(
            "--arena", help="A run saved by 'battleship arena --out', shown at /arena (repeat for more)."
        ),
    ] = None,
    access_log: Annotated[
        str,
        typer.Option("--access-log", help='Where the access log goes: a file, "-" for stderr, "" for none.'),
    ] = "-",
    graphs: Annotated[
        Path | None,
        typer.Option(
            "--graphs",
            help="Folder for the compiled state graphs of exact play, kept across restarts and shared by every "
            "process given it (default: $BATTLESHIP_GRAPHS, else a temporary folder deleted at exit).",
        ),
    ] = None,
) -> None:
    """Serve the game against the computer or a friend, replays, the calculator and the statistics (FastAPI on uvicorn)."""
    _start_loading(db, workers)
    from battleship.web.app import Settings

    _check_numbers(port, heavy_queue, expire_hours, heavy_workers)
    for name, seconds in (
        ("--heavy-wait", heavy_wait),
        ("--move-seconds", move_seconds),
        ("--analysis-seconds", analysis_seconds),
    ):
        if not seconds > 0:
            raise BattleshipError(f"{name} must be a positive number of seconds, not {seconds}")
    settings = Settings(
        heavy_queue=heavy_queue,
        heavy_wait=heavy_wait,
        move_seconds=move_seconds,
        analysis_seconds=analysis_seconds,
        rate_limit=rate_limit,
        address_rate_limit=address_rate_limit,
        expire_hours=expire_hours,
        arena=tuple(arena or ()),
        forwarded_allow_ips=forwarded_allow_ips or os.environ.get("FORWARDED_ALLOW_IPS", ""),
        graphs=output_folder(graphs, "--graphs"),
    )
    if heavy_workers is not None:
        settings = replace(settings, heavy_workers=heavy_workers)
    _log_to(access_log)
    output_file(_sqlite_file(db), "--db")  # an SQLite file's folder: created, as for every file written
    if workers > 1:
        _run_workers(settings, db, host, port, workers, access_log)
    else:
        _run(settings, db, host, port)


def _check_numbers(port: int, heavy_queue: int, expire_hours: float, heavy_workers: int | None) -> None:
    """Refuse, in one line, a port or a count out of its range."""
    if not 0 < port < 65536:
        raise BattleshipError(f"--port {port} is not a port number")
    for name, value, least in (("--heavy-queue", heavy_queue, 0), ("--expire-hours", expire_hours, 0)):
        if value < least:
            raise BattleshipError(f"{name} must be at least {least}, not {value}")
    if heavy_workers is not None and heavy_workers < 1:
        raise BattleshipError(f"--heavy-workers must be at least 1, not {heavy_workers}")


def _start_loading(db: str, workers: int) -> None:
    """Refuse a missing web extra or workers a store cannot serve; with one process, start the workers'
    process, which loads its kernels while this one loads the web app."""
    from battleship.extras import require

    require("web")
    if workers < 1:
        raise BattleshipError(f"--workers must be at least 1, not {workers}")
    if workers > 1 and db.startswith("sqlite"):
        raise BattleshipError(
            f"--workers {workers}: SQLite serves one process (the store the game needs no set-up for); "
            "several workers share a PostgreSQL store: --db postgresql+psycopg://USER@HOST/NAME"
        )
    if workers == 1:
        from battleship.web.workers import start_forkserver

        start_forkserver()
    else:
        _check_store(
            db
        )  # at once, in one line, before the web app loads (seconds) and once, not a worker each


def _sqlite_file(db: str) -> Path | None:
    """The file an SQLite URL names (None for another database, or one in memory)."""
    import re

    found = re.fullmatch(r"sqlite(?:\+\w+)?:///([^?]*)(?:\?.*)?", db)
    if found is None or found.group(1) in ("", ":memory:"):
        return None
    return Path(found.group(1))


def _run(settings, db: str, host: str, port: int) -> None:
    """Build the app, serve (warming up behind the open port) until SIGTERM or Ctrl-C (which first stop
    every computation)."""
    import uvicorn

    from battleship.web.app import create_app, shut_down
    from battleship.web.schema import shown

    def ready() -> None:
        where = shown(db)
        console.print(
            f"battleship: serving on http://{host}:{port}/ (games stored in {where})", highlight=False
        )

    try:
        application = create_app(db, warm=True, settings=settings, on_ready=ready)
    except BattleshipError:
        raise
    except Exception as exc:  # a bad URL or an unreachable database: say which, not a traceback
        raise BattleshipError(f"cannot open the game store {db}: {exc}") from None

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            shut_down(application)  # computations stop now, not after uvicorn's wait for them
            super().handle_exit(sig, frame)

    # the proxies to believe are the app's business (Settings.forwarded_allow_ips), not uvicorn's default
    config = uvicorn.Config(
        application,
        host=host,
        port=port,
        log_level="warning",
        proxy_headers=False,
        timeout_graceful_shutdown=3,
    )
    console.print(
        f"battleship: warming up on http://{host}:{port}/ (loading the engines: seconds); until it is ready, "
        "every request there hears 503 and pages say what they wait for…",
        highlight=False,
    )
    Server(config).run()


def _check_store(db: str) -> None:
    """Refuse, in one line, a store several workers cannot serve: unreachable, or not at this schema."""
    from battleship.web import schema, store

    try:
        store.connect(db, "check").dispose()
    except BattleshipError:
        raise
    except Exception as exc:  # a bad URL or an unreachable database: say which, not a traceback
        raise BattleshipError(f"cannot open the game store {schema.shown(db)}: {exc}") from None


def _run_workers(settings, db: str, host: str, port: int, workers: int, access_log: str) -> None:
    """``workers`` server processes on one port (uvicorn's supervisor: a worker that dies is replaced,
    SIGHUP replaces them one at a time), each the app of :func:`battleship.web.app.from_environment`."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from battleship.web.app import DB_ENV, SETTINGS_ENV, settings_json
    from battleship.web.graphs import folder_from_environment, temporary_folder

    made = None
    if settings.graphs is None and folder_from_environment() is None:
        # one folder for every worker: each graph compiled once (a worker of its own folder each would
        # compile the presets' side by side, 1.5 GB at the peak of each)
        settings = replace(settings, graphs=(made := temporary_folder()))
    os.environ[DB_ENV], os.environ[SETTINGS_ENV] = db, settings_json(settings)
    os.environ[ACCESS_LOG_ENV] = access_log
    config = uvicorn.Config(
        "battleship.cli.serve:worker_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="warning",
        proxy_headers=False,
        timeout_graceful_shutdown=3,
        timeout_worker_healthcheck=START_SECONDS,  # a worker warms up before it serves
    )
    console.print(
        f"battleship: {workers} workers warming up on http://{host}:{port}/ (each loads the engines: seconds)…",
        highlight=False,
    )
    try:
        Multiprocess(config, sockets=[config.bind_socket()]).run()
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)


ACCESS_LOG_ENV = "BATTLESHIP_ACCESS_LOG"
START_SECONDS = 300  # how long a worker may take to warm up (minutes where the kernels compile afresh)


def worker_app():
    """One worker's app (in a process uvicorn's supervisor started): the access log where the command
    said, and a line once it serves."""
    from battleship.web.app import DB_ENV, from_environment
    from battleship.web.schema import shown

    _log_to(os.environ.get(ACCESS_LOG_ENV, "-"))
    app = from_environment()
    where = shown(os.environ.get(DB_ENV, ""))
    app.state.on_ready = lambda: console.print(
        f"battleship: worker {os.getpid()} serving (games stored in {where})", highlight=False
    )
    return app


def _log_to(access_log: str) -> None:
    """Send the access log (and the server's own notes) to a file or stderr, a line each."""
    if not access_log:
        return
    if access_log != "-":
        output_file(Path(access_log), "--access-log")
    try:
        handler = logging.StreamHandler(sys.stderr) if access_log == "-" else logging.FileHandler(access_log)
    except OSError as exc:
        raise BattleshipError(f"--access-log {access_log}: {exc.strerror}") from None
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    for name in ("battleship.access", "battleship.web"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.INFO)
        logger.addHandler(handler)
