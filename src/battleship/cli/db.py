"""The ``db`` commands: the game store's schema (``battleship db upgrade``)."""

from __future__ import annotations

from typing import Annotated

import typer

from battleship.cli import helptext
from battleship.cli.common import console, friendly
from battleship.errors import BattleshipError

UPGRADE_EXAMPLES = (
    "battleship db upgrade",
    "battleship db upgrade --db postgresql+psycopg://battleship@localhost/battleship",
)
db_app = typer.Typer(
    cls=helptext.Group,
    help="The web game's store: bring its schema up to this version (before serving with several workers).",
    epilog=helptext.epilog(UPGRADE_EXAMPLES),
    no_args_is_help=True,
)


@helptext.examples(*UPGRADE_EXAMPLES)
@friendly
def upgrade_cmd(
    db: Annotated[
        str, typer.Option("--db", help="SQLAlchemy URL of the game store (default: an SQLite file here).")
    ] = "sqlite:///battleship.db",
) -> None:
    """Create the game store's tables, or bring an older store's up to this version (every game kept)."""
    from battleship.extras import require

    require("web")
    from battleship.web import schema, store

    try:
        engine = store.connect(db, "none")
        before, after = schema.upgrade(engine)
    except BattleshipError:
        raise
    except Exception as exc:  # an unreachable database or a bad URL: say which, not a traceback
        raise BattleshipError(f"cannot upgrade the game store {schema.shown(db)}: {exc}") from None
    if before == after:
        console.print(
            f"the game store {schema.shown(db)} is up to date (schema revision {after})", highlight=False
        )
    else:
        console.print(
            f"the game store {schema.shown(db)}: schema revision {before or 'none'} -> {after}",
            highlight=False,
        )


db_app.command("upgrade", **helptext.command_options(upgrade_cmd))(upgrade_cmd)
