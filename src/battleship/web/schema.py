"""The game store's schema, kept by Alembic migrations (``battleship/web/migrations``).

``battleship db upgrade`` brings a store up to this version's schema: a new one gets every table,
one made before migrations keeps its games (its tables are taken as they are, newer columns
added). A server alone on its store upgrades it as it starts, so SQLite needs no set-up; several
worker processes only check it (:func:`check`), since workers making tables at once is a race
(on PostgreSQL an upgrade holds an advisory lock, so two servers starting together still make the
tables once).
"""

from __future__ import annotations

import logging
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from battleship.errors import BattleshipError

MIGRATIONS = Path(__file__).parent / "migrations"
UPGRADE_LOCK = 0x42_53_44_42  # PostgreSQL advisory lock held while a store is upgraded ("BSDB")
# Alembic says each step at INFO; battleship db upgrade says what changed in a line of its own
logging.getLogger("alembic").setLevel(logging.WARNING)


def _config(connection: Connection | None = None):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head() -> str:
    """The revision this version of battleship needs."""
    from alembic.script import ScriptDirectory

    found = ScriptDirectory.from_config(_config()).get_current_head()
    assert found is not None  # the package ships its migrations
    return found


def current(engine: Engine) -> str | None:
    """The store's revision (None: no migration ever ran on it)."""
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Bring the store at ``engine`` to :func:`head`; the revisions before and after."""
    from alembic import command

    with engine.connect() as connection:
        if connection.dialect.name == "postgresql":  # one upgrade at a time; the others find it done
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": UPGRADE_LOCK})
            connection.commit()
        try:
            before = _revision(connection)
            if before != head():
                command.upgrade(_config(connection), "head")
                connection.commit()
        finally:
            if connection.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": UPGRADE_LOCK})
                connection.commit()
    return before, head()


def _revision(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def shown(url: str) -> str:
    """A database URL as messages show it: its password hidden."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy reads: said as given, the error that follows says why
        return url


def check(engine: Engine, url: str) -> None:
    """Refuse, in one line saying what to run, a store that is not at this version's schema."""
    found, wanted = current(engine), head()
    url = shown(url)
    if found == wanted:
        return
    state = (
        "has no battleship schema yet" if found is None else f"is at schema revision {found}, not {wanted}"
    )
    raise BattleshipError(
        f"the game store {url} {state}: run `battleship db upgrade --db {url}` first "
        "(servers with several workers check the schema, they do not make it)"
    )
