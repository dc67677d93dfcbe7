"""Where games live: two SQL tables (games, and the seats of games between friends), any SQLAlchemy URL
(an embedded SQLite file by default).

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
    Float,
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
    Column("moves", Integer, nullable=False, default=0),  # shots fired, both sides (every cell of a salvo)
    Column("seed", String(40), nullable=False),
    Column("player_layout", Text, nullable=False),
    Column("computer_layout", Text, nullable=False),
    Column("record", Text, nullable=False),  # JSON: every move in order
    Column("notation", Text),  # the Dunman High paper's game notation, written when the game ends
    # games between friends: the clock (seconds a side, or none), each side's time used so far (JSON),
    # when the side to move began its turn; how a game ended (sunk | resigned | time); its rematch
    Column("clock", Float),
    Column("clock_used", Text),
    Column("turn_started", DateTime(timezone=True)),
    Column("ended_by", String(16)),
    Column("rematch", String(32)),
    # salvo games: turns taken, both sides (a salvo is one); none in the one-shot game, where a turn is a move
    Column("turns", Integer),
)

# a game between friends has two seats, each reached by its own 128-bit random token (the link a
# player keeps); side 0 moves first
seats = Table(
    "seats",
    metadata,
    Column("token", String(32), primary_key=True),
    Column("game_id", String(32), nullable=False, index=True),
    Column("side", Integer, nullable=False),
    Column("name", String(40)),
)

# the server's last sign of life: written every few seconds while it serves, and as it stops, so a
# restart knows how long the server was away (and gives that time back to the friends' clocks)
life = Table(
    "server_life",
    metadata,
    Column("name", String(16), primary_key=True),  # one row: "server"
    Column("alive", DateTime(timezone=True), nullable=False),
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
    """Delete unfinished games with no move since ``idle_before`` (and their seats); how many went."""
    idle = (games.c.status != "over") & (games.c.updated < idle_before)
    with engine.begin() as c:
        c.execute(delete(seats).where(seats.c.game_id.in_(select(games.c.id).where(idle))))
        done = c.execute(delete(games).where(idle))
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


def save(engine: Engine, game_id: str, changes: dict[str, Any], expected: dict[str, Any]) -> bool:
    """Write ``changes`` if nothing changed in between (``expected``: columns and the values read, such as
    ``moves`` and ``status``); False if something did."""
    same = [games.c[name] == value for name, value in expected.items()]
    with engine.begin() as c:
        done = c.execute(update(games).where(games.c.id == game_id, *same).values(updated=now(), **changes))
    return done.rowcount == 1


def create_seats(
    engine: Engine, game_id: str, tokens: tuple[str, str], names: tuple[str | None, str | None]
) -> None:
    """The two seats of a game between friends."""
    with engine.begin() as c:
        for side, (token, name) in enumerate(zip(tokens, names, strict=True)):
            c.execute(insert(seats).values(token=token, game_id=game_id, side=side, name=name))


def seat(engine: Engine, token: str) -> dict[str, Any] | None:
    """A seat (its game id, side and name), or None."""
    with engine.connect() as c:
        row = c.execute(select(seats).where(seats.c.token == token)).mappings().first()
    return dict(row) if row else None


def seats_of(engine: Engine, game_id: str) -> list[dict[str, Any]]:
    """A game's seats, side 0 first."""
    with engine.connect() as c:
        rows = c.execute(select(seats).where(seats.c.game_id == game_id).order_by(seats.c.side)).mappings()
        return [dict(r) for r in rows]


def name_seat(engine: Engine, token: str, name: str | None) -> None:
    """Set the name a player gave their seat."""
    with engine.begin() as c:
        c.execute(update(seats).where(seats.c.token == token).values(name=name))


def set_rematch(engine: Engine, game_id: str, rematch: str) -> bool:
    """Link a finished game to its rematch, unless it has one already; False if it had."""
    with engine.begin() as c:
        done = c.execute(
            update(games).where(games.c.id == game_id, games.c.rematch.is_(None)).values(rematch=rematch)
        )
    return done.rowcount == 1


def delete_game(engine: Engine, game_id: str) -> None:
    """Delete a game and its seats."""
    with engine.begin() as c:
        c.execute(delete(seats).where(seats.c.game_id == game_id))
        c.execute(delete(games).where(games.c.id == game_id))


def _utc(moment: datetime) -> datetime:
    """A stored time as an aware UTC time (SQLite gives them back without their zone)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def beat(engine: Engine, moment: datetime | None = None) -> None:
    """Record that the server is alive at ``moment`` (now by default)."""
    moment = moment or now()
    with engine.begin() as c:
        if c.execute(update(life).where(life.c.name == "server").values(alive=moment)).rowcount == 0:
            c.execute(insert(life).values(name="server", alive=moment))


def last_alive(engine: Engine) -> datetime | None:
    """The server's last recorded sign of life, or None if it never recorded one."""
    with engine.connect() as c:
        alive = c.execute(select(life.c.alive).where(life.c.name == "server")).scalar()
    return _utc(alive) if alive is not None else None


def credit_downtime(engine: Engine, back: datetime | None = None) -> float:
    """Give the clocks of running friend games the time the server was away; seconds it was away.

    The server was away from its last sign of life to ``back`` (now by default): each running turn's
    start moves forward by that much (a turn begun after the last sign, in the beat's gap before a
    kill, starts again at ``back``), so nobody's clock ran while no move could be made. The sign of
    life is then set to ``back``, so the same time is never given twice.
    """
    back = back or now()
    alive = last_alive(engine)
    away = max(0.0, (back - alive).total_seconds()) if alive is not None else 0.0
    if alive is not None and away > 0:
        running = (games.c.mode == "friend") & games.c.turn_started.is_not(None) & (games.c.status != "over")
        with engine.begin() as c:
            turns = c.execute(select(games.c.id, games.c.turn_started).where(running)).all()
            for game_id, started in turns:
                moved = _utc(started) + (back - max(alive, _utc(started)))
                c.execute(
                    update(games)
                    .where(games.c.id == game_id, games.c.turn_started == started)
                    .values(turn_started=moved)
                )
    beat(engine, back)
    return away


def load_many(engine: Engine, game_ids: list[str]) -> list[dict[str, Any]]:
    """The rows of the games among ``game_ids`` that exist."""
    with engine.connect() as c:
        return [dict(r) for r in c.execute(select(games).where(games.c.id.in_(game_ids))).mappings()]


# a game counts in the statistics and the Learning record once it was played: ended by a sinking,
# or given up (or lost on time) after both sides fired at least ten shots (create-and-resign loops
# count for nothing)
PLAYED_MOVES = 20


def _played():
    """The SQL condition for a played game (see ``PLAYED_MOVES``)."""
    sunk = not_(games.c.resigned) & (func.coalesce(games.c.ended_by, "sunk") == "sunk")
    return (games.c.status == "over") & (sunk | (games.c.moves >= PLAYED_MOVES))


def _under(rules: str, toml: str | None):
    """The SQL condition for games under a preset, or under one set of custom rules."""
    if toml is None:
        return games.c.rules == rules
    return (games.c.rules == "custom") & (games.c.rules_toml == toml)


def played(engine: Engine) -> list[dict[str, Any]]:
    """Every played game (for the statistics), oldest first."""
    with engine.connect() as c:
        rows = c.execute(select(games).where(_played()).order_by(games.c.finished)).mappings()
        return [dict(r) for r in rows]


def human_layouts(engine: Engine, rules: str, toml: str | None = None) -> list[tuple[str, str]]:
    """(game id, layout) of every layout a person used in a played game under the rules: the player's
    against the computer, both players' between friends (the Learning record and the placement map)."""
    where = _played() & _under(rules, toml)
    with engine.connect() as c:
        mine = c.execute(select(games.c.id, games.c.player_layout).where(where)).all()
        theirs = c.execute(
            select(games.c.id, games.c.computer_layout).where(where, games.c.mode == "friend")
        ).all()
    return [(g, layout) for g, layout in (*mine, *theirs)]


def count_played(engine: Engine, rules: str, toml: str | None = None) -> int:
    """How many played games under the rules have ended."""
    with engine.connect() as c:
        return int(
            c.execute(
                select(func.count()).select_from(games).where(_played(), _under(rules, toml))
            ).scalar_one()
        )


def dumps(record: list[dict[str, Any]]) -> str:
    """A move record as compact JSON."""
    return json.dumps(record, separators=(",", ":"))
