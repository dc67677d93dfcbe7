"""The ``serve`` command: the game, the calculator and the statistics in the browser."""

from __future__ import annotations

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
) -> None:
    """Serve the game against the computer, the calculator and the statistics page (FastAPI on uvicorn)."""
    import uvicorn

    from battleship.web.app import create_app

    if not 0 < port < 65536:
        raise BattleshipError(f"--port {port} is not a port number")
    try:
        application = create_app(db, warm=True)
    except Exception as exc:  # a bad URL or an unreachable database: say which, not a traceback
        raise BattleshipError(f"cannot open the game store {db}: {exc}") from None
    console.print(f"battleship: serving on http://{host}:{port}/ (games stored in {db})", highlight=False)
    uvicorn.run(application, host=host, port=port, log_level="warning")
