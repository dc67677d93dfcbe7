"""The ``serve`` command: the game, the replay, the calculator and the statistics in the browser."""

from __future__ import annotations

import logging
import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from battleship.cli.common import console, friendly
from battleship.errors import BattleshipError


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
            help="Moves computed at once (computer moves, calculator; default: one per core).",
        ),
    ] = None,
    heavy_queue: Annotated[
        int, typer.Option("--heavy-queue", help="Requests that may wait for a worker; past it: 503.")
    ] = 16,
    heavy_wait: Annotated[
        float, typer.Option("--heavy-wait", help="Seconds a request may wait for a worker; past it: 503.")
    ] = 5.0,
    rate_limit: Annotated[
        str,
        typer.Option(
            "--rate-limit",
            help='Requests one client may make, e.g. "20/second;600/minute" ("" for none); past it: 429.',
        ),
    ] = "20/second;600/minute",
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
) -> None:
    """Serve the game against the computer, its replays, the calculator and the statistics (FastAPI on uvicorn)."""
    import uvicorn

    from battleship.web.app import Settings, create_app

    if not 0 < port < 65536:
        raise BattleshipError(f"--port {port} is not a port number")
    for name, value, least in (("--heavy-queue", heavy_queue, 0), ("--expire-hours", expire_hours, 0)):
        if value < least:
            raise BattleshipError(f"{name} must be at least {least}, not {value}")
    if heavy_workers is not None and heavy_workers < 1:
        raise BattleshipError(f"--heavy-workers must be at least 1, not {heavy_workers}")
    if heavy_wait <= 0:
        raise BattleshipError(f"--heavy-wait must be a positive number of seconds, not {heavy_wait}")
    settings = Settings(
        heavy_queue=heavy_queue,
        heavy_wait=heavy_wait,
        rate_limit=rate_limit,
        expire_hours=expire_hours,
        arena=tuple(arena or ()),
    )
    if heavy_workers is not None:
        settings = replace(settings, heavy_workers=heavy_workers)
    _log_to(access_log)
    try:
        application = create_app(db, warm=True, settings=settings)
    except BattleshipError:
        raise
    except Exception as exc:  # a bad URL or an unreachable database: say which, not a traceback
        raise BattleshipError(f"cannot open the game store {db}: {exc}") from None
    console.print(f"battleship: serving on http://{host}:{port}/ (games stored in {db})", highlight=False)
    uvicorn.run(application, host=host, port=port, log_level="warning")


def _log_to(access_log: str) -> None:
    """Send the access log (and the server's own notes) to a file or stderr, a line each."""
    if not access_log:
        return
    try:
        handler = logging.StreamHandler(sys.stderr) if access_log == "-" else logging.FileHandler(access_log)
    except OSError as exc:
        raise BattleshipError(f"--access-log {access_log}: {exc.strerror}") from None
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    for name in ("battleship.access", "battleship.web"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.INFO)
        logger.addHandler(handler)
