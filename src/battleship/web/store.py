"""Where games live: one SQL table, any SQLAlchemy URL (an embedded SQLite file by default).

A game's row is written, and committed, before the move that changed it is acknowledged, so a
killed server loses nothing it answered. SQLite runs in WAL mode with full sync.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    delete,
    event,
    func,
    insert,
    inspect,
    not_,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine

metadata = MetaData()

games = Table(
    "games",
    metadata,
    Column("id", String(32), primary_key=True),  # 128 random bits, hex
    Column("created", DateTime(timezone=True), nullable=False),
    Column("updated", DateTime(timezone=True), nullable=False),
    Column("finished", DateTime(timezone=True)),
    Column("rules", String(32), nullable=False),  # a preset's name, or "custom"
    Column("rules_toml", Text),  # custom rules only: the TOML document the game was started with
    Column("mode", String(16), nullable=False),
    Column("play_for_me", Boolean, nullable=False, default=False),
    Column("status", String(16), nullable=False),  # player-turn | computer-turn | over
    Column("winner", String(16)),  # player | computer (resigned games: computer)
    Column("resigned", Boolean, nullable=False, default=False),
    Column("moves", Integer, nullable=False, default=0),
    Column("seed", String(40), nullable=False),
    Column("player_layout", Text, nullable=False),
    Column("computer_layout", Text, nullable=False),
    Column("record", Text, nullable=False),  # JSON: every move in order
    Column("notation", Text),  # the Dunman High paper's game notation, written when the game ends
)


def now() -> datetime:
    """The current time, in UTC."""
    return datetime.now(UTC)


def connect(url: str) -> Engine:
    """An engine for ``url``, its table created if missing; SQLite gets WAL and full sync."""
    sqlite = url.startswith("sqlite")
    engine = create_engine(
        url,
        future=True,
        connect_args={"check_same_thread": False} if sqlite else {},
        pool_pre_ping=not sqlite,
    )
    if sqlite:

        @event.listens_for(engine, "connect")
        def _pragmas(connection, _record):  # pragma: no cover - runs inside SQLAlchemy
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA busy_timeout=10000")
            cursor.close()

    metadata.create_all(engine)
    _add_missing_columns(engine)
    return engine


def _add_missing_columns(engine: Engine) -> None:
    """Stores made by an older version lack newer (nullable) columns: add them, keeping every game."""
    present = {c["name"] for c in inspect(engine).get_columns("games")}
    with engine.begin() as c:
        for column in games.columns:
            if column.name not in present:
                kind = column.type.compile(dialect=engine.dialect)
                c.execute(text(f"ALTER TABLE games ADD COLUMN {column.name} {kind}"))


def expire(engine: Engine, idle_before: datetime) -> int:
    """Delete unfinished games with no move since ``idle_before``; how many went."""
    with engine.begin() as c:
        done = c.execute(delete(games).where(games.c.status != "over", games.c.updated < idle_before))
    return done.rowcount


def create(engine: Engine, row: dict[str, Any]) -> None:
    """Insert a new game."""
    with engine.begin() as c:
        c.execute(insert(games).values(**row))


def load(engine: Engine, game_id: str) -> dict[str, Any] | None:
    """A game's row, or None."""
    with engine.connect() as c:
        row = c.execute(select(games).where(games.c.id == game_id)).mappings().first()
    return dict(row) if row else None


def save(engine: Engine, game_id: str, changes: dict[str, Any], expected_moves: int) -> bool:
    """Write ``changes`` if nobody moved in between (``moves`` still ``expected_moves``); False if they did."""
    with engine.begin() as c:
        done = c.execute(
            update(games)
            .where(games.c.id == game_id, games.c.moves == expected_moves)
            .values(updated=now(), **changes)
        )
    return done.rowcount == 1


# a game counts in the statistics and the Learning record once it was played: ended by a sinking,
# or given up after both sides fired at least ten shots (create-and-resign loops count for nothing)
PLAYED_MOVES = 20


def _played():
    """The SQL condition for a played game (see ``PLAYED_MOVES``)."""
    return (games.c.status == "over") & (not_(games.c.resigned) | (games.c.moves >= PLAYED_MOVES))


def played(engine: Engine) -> list[dict[str, Any]]:
    """Every played game (for the statistics), oldest first."""
    with engine.connect() as c:
        rows = c.execute(select(games).where(_played()).order_by(games.c.finished)).mappings()
        return [dict(r) for r in rows]


def player_layouts(engine: Engine, rules: str) -> list[str]:
    """The distinct layouts players used in played games under ``rules`` (the Learning mode's record).

    Each layout counts once, however many games used it: replaying one layout cannot steer the model.
    """
    with engine.connect() as c:
        rows = c.execute(
            select(games.c.player_layout).where(_played(), games.c.rules == rules).distinct()
        ).scalars()
        return sorted(rows)


def count_played(engine: Engine, rules: str) -> int:
    """How many played games under ``rules`` have ended."""
    with engine.connect() as c:
        return int(
            c.execute(
                select(func.count()).select_from(games).where(_played(), games.c.rules == rules)
            ).scalar_one()
        )


def dumps(record: list[dict[str, Any]]) -> str:
    """A move record as compact JSON."""
    return json.dumps(record, separators=(",", ":"))
