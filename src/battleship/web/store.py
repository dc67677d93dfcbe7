"""Where games live: SQL tables (games, and the seats of games between friends), any SQLAlchemy URL (an
embedded SQLite file by default, PostgreSQL for several processes); and what several server processes
share through them: who watches which seat, how many requests each client made, the key that signs
sessions. The schema is kept by migrations (:mod:`battleship.web.schema`).

A game's row is written, and committed, before the move that changed it is acknowledged, so a
killed server loses nothing it answered. SQLite runs in WAL mode with full sync. A move holds its
game's row from the read to the write (:func:`moving`): on PostgreSQL locked in the database, so two
processes' moves on one game go one after the other; on SQLite (one process) the process's own lock
does it. Either way the write goes through only if the row still holds what was read.
"""

from __future__ import annotations

import functools
import json
import math
import queue
import secrets
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypeVar

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    Update,
    bindparam,
    create_engine,
    delete,
    event,
    func,
    insert,
    not_,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

metadata = MetaData()
T = TypeVar("T")

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


# the live streams each server process holds open on a seat, refreshed by the process's heartbeat: a
# process that stopped beating (killed) no longer counts after PRESENCE_SECONDS
presence = Table(
    "presence",
    metadata,
    Column("seat", String(32), primary_key=True),
    Column("process", String(32), primary_key=True),
    Column("streams", Integer, nullable=False),
    Column("seen", DateTime(timezone=True), nullable=False),
)
PRESENCE_SECONDS = 10.0

# requests per client, limit and window, counted by every process (``client``: the limit and who,
# ``bucket``: the window's number, ``ends``: when it ends, seconds since the epoch, ``span``: its length)
rate_counts = Table(
    "rate_counts",
    metadata,
    Column("client", String(120), primary_key=True),
    Column("bucket", BigInteger, primary_key=True),
    Column("hits", Integer, nullable=False),
    Column("ends", Float, nullable=False),
    Column("span", Float, nullable=False),
)

# keys the processes share: the one that signs players' sessions
server_keys = Table(
    "server_keys",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", String(128), nullable=False),
)

# connections a server process keeps to PostgreSQL, and more it may open at a peak: as many as the
# threads that serve requests (40, anyio's default), so no request waits for a connection
POOL_SIZE, POOL_OVERFLOW = 10, 30


def now() -> datetime:
    """The current time, in UTC."""
    return datetime.now(UTC)


def connect(url: str, schema: Literal["upgrade", "check", "none"] = "upgrade") -> Engine:
    """An engine for ``url``; SQLite gets WAL and full sync. ``schema``: bring the store up to this
    version's schema (a server alone on it), only check that it is (several workers: one line saying
    to run ``battleship db upgrade`` if not), or neither."""
    from battleship.web import schema as schemas

    sqlite = url.startswith("sqlite")
    if url.startswith("postgresql"):
        from battleship.extras import require

        require("postgres")
    engine = create_engine(
        url,
        future=True,
        connect_args={"check_same_thread": False} if sqlite else {},
        pool_pre_ping=not sqlite,
        **({} if sqlite else {"pool_size": POOL_SIZE, "max_overflow": POOL_OVERFLOW}),
    )
    if sqlite:

        @event.listens_for(engine, "connect")
        def _pragmas(connection, _record):  # pragma: no cover - runs inside SQLAlchemy
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA busy_timeout=10000")
            cursor.close()

    if schema == "upgrade":
        schemas.upgrade(engine)
    elif schema == "check":
        schemas.check(engine, url)
    return engine


def shared(engine: Engine) -> bool:
    """True where several processes may serve one store (PostgreSQL): what they share goes through it."""
    return engine.dialect.name == "postgresql"


# ---- writing: on SQLite one thread writes for every request ---------------------------------------


class _Pending:
    """A write's outcome, waited for by its request: set once by the writer thread.

    A bare lock, taken at birth and released when the outcome is in: ``concurrent.futures.Future``
    builds a Condition for each (a lock, a list of waiters) and notifies through it, which took about
    4% of a busy web process's time, one write a move."""

    __slots__ = ("_error", "_ready", "_value")

    def __init__(self) -> None:
        self._ready = threading.Lock()
        self._ready.acquire()
        self._value: Any = None
        self._error: BaseException | None = None

    def set_result(self, value: Any) -> None:
        self._value = value
        self._ready.release()

    def set_exception(self, error: BaseException) -> None:
        self._error = error
        self._ready.release()

    def result(self) -> Any:
        self._ready.acquire()
        if self._error is not None:
            raise self._error
        return self._value


class Writer:
    """The one thread that writes an SQLite store, for every request of its process.

    SQLite takes one writer at a time, and a connection that finds the file locked sleeps (from one
    to a hundred milliseconds, SQLite's busy handler) before it looks again: threads writing side by
    side spent most of their time asleep. Queued here instead, the writes of every request waiting
    go in one transaction, committed with one sync to disk for all of them (group commit); each
    request is answered once its write is committed, as before. A write that fails is retried alone,
    so it fails only its own request.
    """

    BATCH = 64  # writes at most in one transaction

    def __init__(self, engine: Engine):
        self.engine = engine
        self._queue: queue.SimpleQueue[tuple[Callable[[Connection], Any], _Pending] | None] = (
            queue.SimpleQueue()
        )
        threading.Thread(target=self._loop, daemon=True, name="store-writer").start()

    def write(self, work: Callable[[Connection], T]) -> T:
        """``work(connection)`` in a transaction of the writer's, once committed; its result or error."""
        done = _Pending()
        self._queue.put((work, done))
        return done.result()

    def stop(self) -> None:
        """End the thread once the writes queued are done."""
        self._queue.put(None)

    def _loop(self) -> None:
        # a connection of its own, kept between batches: taking one from the pool and giving it back
        # for every batch was 4% of a busy server's time (a failed batch closes it: it may be broken)
        connection: Connection | None = None
        while (batch := self._next_batch()) is not None:
            try:
                connection = connection or self.engine.connect()
                with connection.begin():
                    results = [work(connection) for work, _done in batch]
            except Exception:  # one write failed (or the commit): each is tried again on its own
                if connection is not None:
                    connection.close()
                    connection = None
                for work, done in batch:
                    self._alone(work, done)
                continue
            for (_work, done), result in zip(batch, results, strict=True):
                done.set_result(result)
        if connection is not None:
            connection.close()

    def _next_batch(self) -> list[tuple[Callable[[Connection], Any], _Pending]] | None:
        """The writes waiting, at least one (waited for) and at most :attr:`BATCH`; None once stopped."""
        first = self._queue.get()
        if first is None:
            return None
        batch = [first]
        while len(batch) < self.BATCH:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                self._queue.put(None)  # seen again once this batch is written
                break
            batch.append(item)
        return batch

    def _alone(self, work: Callable[[Connection], Any], done: _Pending) -> None:
        try:
            with self.engine.begin() as c:
                done.set_result(work(c))
        except Exception as error:
            done.set_exception(error)


_writers: weakref.WeakKeyDictionary[Engine, Writer] = weakref.WeakKeyDictionary()
_writers_lock = threading.Lock()


def _write(engine: Engine, work: Callable[[Connection], T]) -> T:
    """``work(connection)`` in a committed transaction: SQLite's through its :class:`Writer`, any other
    database's on a connection of the calling thread's."""
    if engine.dialect.name != "sqlite":
        with engine.begin() as c:
            return work(c)
    with _writers_lock:
        writer = _writers.get(engine)
        if writer is None:
            writer = _writers[engine] = Writer(engine)
    return writer.write(work)


def close(engine: Engine) -> None:
    """The store is no longer used (the server stops): its writer thread ends, its connections close."""
    with _writers_lock:
        writer = _writers.pop(engine, None)
    if writer is not None:
        writer.stop()
    engine.dispose()


def expire(engine: Engine, idle_before: datetime) -> int:
    """Delete unfinished games with no move since ``idle_before`` (and their seats); how many went."""
    idle = (games.c.status != "over") & (games.c.updated < idle_before)

    def work(c: Connection) -> int:
        c.execute(delete(seats).where(seats.c.game_id.in_(select(games.c.id).where(idle))))
        return c.execute(delete(games).where(idle)).rowcount

    return _write(engine, work)


def create(engine: Engine, row: dict[str, Any]) -> None:
    """Insert a new game."""
    _write(engine, lambda c: c.execute(insert(games).values(**row)))


# a move's statements, built once: building one each time (SQLAlchemy's coercions and cache key) cost
# several times running it on SQLite (an update 250-310 microseconds of CPU built anew, 42 prebuilt)
_LOAD = select(games).where(games.c.id == bindparam("_id"))
_LOAD_FOR_UPDATE = _LOAD.with_for_update()


def load(engine: Engine, game_id: str) -> dict[str, Any] | None:
    """A game's row, or None."""
    with engine.connect() as c:
        row = c.execute(_LOAD, {"_id": game_id}).mappings().first()
    return dict(row) if row else None


def save(engine: Engine, game_id: str, changes: dict[str, Any], expected: dict[str, Any]) -> bool:
    """Write ``changes`` if nothing changed in between (``expected``: columns and the values read, such as
    ``moves`` and ``status``); False if something did."""
    return _write(engine, lambda c: _save(c, game_id, changes, expected))


def _save(c: Connection, game_id: str, changes: dict[str, Any], expected: dict[str, Any]) -> bool:
    values = {"updated": now(), **changes}
    statement = _update_of(tuple(sorted(values)), tuple(sorted(expected)))
    was = {f"_was_{name}": value for name, value in expected.items()}
    return c.execute(statement, {**values, **was, "_id": game_id}).rowcount == 1


@functools.lru_cache(maxsize=64)
def _update_of(columns: tuple[str, ...], expected: tuple[str, ...]) -> Update:
    """The update of a game's ``columns`` where its row still holds the ``expected`` values (one statement
    for each set of columns a move writes: a few)."""
    same = [games.c[name] == bindparam(f"_was_{name}") for name in expected]
    where = update(games).where(games.c.id == bindparam("_id"), *same)
    return where.values({name: bindparam(name) for name in columns})


class Held:
    """A game's row held for a move (:func:`moving`): ``row`` as read (None: no such game), and
    :meth:`save`, which writes only if the row still holds the moves and the status read."""

    def __init__(self, engine: Engine, connection: Connection | None, row: dict[str, Any] | None):
        self.engine, self.connection, self.row = engine, connection, row
        self.committed: list[Callable[[], None]] = []  # what to do once the write is committed

    @property
    def current(self) -> dict[str, Any]:
        """The row as read (the caller has made sure there is one)."""
        assert self.row is not None
        return self.row

    def save(self, changes: dict[str, Any]) -> bool:
        assert self.row is not None
        expected = {"moves": self.row["moves"], "status": self.row["status"]}
        if self.connection is None:
            return save(self.engine, self.row["id"], changes, expected)
        return _save(self.connection, self.row["id"], changes, expected)


@contextmanager
def moving(engine: Engine, game_id: str) -> Iterator[Held]:
    """A game's row held from its read to the write of a move.

    PostgreSQL: read ``FOR UPDATE`` in a transaction that the write commits, so a move on this game
    from another process waits for this one and then reads what it wrote. SQLite: a plain read
    and a write of its own (a read transaction that then writes fails on SQLite once another game
    was written meanwhile); one process serves it, and the caller holds the game's lock.
    """
    if not shared(engine):
        held = Held(engine, None, load(engine, game_id))
        yield held
    else:
        with engine.begin() as c:
            row = c.execute(_LOAD_FOR_UPDATE, {"_id": game_id}).mappings().first()
            held = Held(engine, c, dict(row) if row else None)
            yield held
    for then in held.committed:
        then()


def create_seats(
    engine: Engine, game_id: str, tokens: tuple[str, str], names: tuple[str | None, str | None]
) -> None:
    """The two seats of a game between friends."""

    def work(c: Connection) -> None:
        for side, (token, name) in enumerate(zip(tokens, names, strict=True)):
            c.execute(insert(seats).values(token=token, game_id=game_id, side=side, name=name))

    _write(engine, work)


def seat(engine: Engine, token: str) -> dict[str, Any] | None:
    """A seat (its game id, side and name), or None."""
    with engine.connect() as c:
        row = c.execute(select(seats).where(seats.c.token == token)).mappings().first()
    return dict(row) if row else None


def seated(engine: Engine, token: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The game a seat's token belongs to (None: none, or gone) and both its seats, side 0 first: what
    every view of a seat reads, on one connection."""
    game_of = select(seats.c.game_id).where(seats.c.token == token).scalar_subquery()
    with engine.connect() as c:
        both = [
            dict(r)
            for r in c.execute(
                select(seats).where(seats.c.game_id == game_of).order_by(seats.c.side)
            ).mappings()
        ]
        if not both:
            return None, []
        row = c.execute(select(games).where(games.c.id == both[0]["game_id"])).mappings().first()
    return (dict(row) if row else None), both


def seats_of(engine: Engine, game_id: str) -> list[dict[str, Any]]:
    """A game's seats, side 0 first."""
    with engine.connect() as c:
        rows = c.execute(select(seats).where(seats.c.game_id == game_id).order_by(seats.c.side)).mappings()
        return [dict(r) for r in rows]


def name_seat(engine: Engine, token: str, name: str | None) -> None:
    """Set the name a player gave their seat."""
    _write(engine, lambda c: c.execute(update(seats).where(seats.c.token == token).values(name=name)))


def set_rematch(engine: Engine, game_id: str, rematch: str) -> bool:
    """Link a finished game to its rematch, unless it has one already; False if it had."""
    linking = update(games).where(games.c.id == game_id, games.c.rematch.is_(None)).values(rematch=rematch)
    return _write(engine, lambda c: c.execute(linking).rowcount == 1)


def delete_game(engine: Engine, game_id: str) -> None:
    """Delete a game and its seats."""

    def work(c: Connection) -> None:
        c.execute(delete(seats).where(seats.c.game_id == game_id))
        c.execute(delete(games).where(games.c.id == game_id))

    _write(engine, work)


def _utc(moment: datetime) -> datetime:
    """A stored time as an aware UTC time (SQLite gives them back without their zone)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def beat(engine: Engine, moment: datetime | None = None) -> None:
    """Record that the server is alive at ``moment`` (now by default)."""
    moment = moment or now()

    def work(c: Connection) -> None:
        if c.execute(update(life).where(life.c.name == "server").values(alive=moment)).rowcount == 0:
            c.execute(insert(life).values(name="server", alive=moment))

    _write(engine, work)


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


# ---- what several processes share -----------------------------------------------------------------


def set_presence(engine: Engine, seat: str, process: str, streams: int) -> None:
    """Record that ``process`` holds ``streams`` live streams on ``seat`` (0: none, its row goes)."""
    with engine.begin() as c:
        c.execute(delete(presence).where(presence.c.seat == seat, presence.c.process == process))
        if streams > 0:
            c.execute(insert(presence).values(seat=seat, process=process, streams=streams, seen=now()))


def streams_on(engine: Engine, seat: str, besides: str | None = None) -> int:
    """Live streams open on ``seat`` in every process still beating (``besides``: leave that one out)."""
    fresh = presence.c.seen > now() - timedelta(seconds=PRESENCE_SECONDS)
    where = [presence.c.seat == seat, fresh]
    if besides is not None:
        where.append(presence.c.process != besides)
    with engine.connect() as c:
        return int(
            c.execute(select(func.coalesce(func.sum(presence.c.streams), 0)).where(*where)).scalar_one()
        )


def refresh_presence(engine: Engine, process: str) -> None:
    """``process`` is alive: its streams still count (its heartbeat calls this); stale rows go."""
    moment = now()
    with engine.begin() as c:
        c.execute(update(presence).where(presence.c.process == process).values(seen=moment))
        c.execute(delete(presence).where(presence.c.seen < moment - timedelta(seconds=10 * PRESENCE_SECONDS)))


def forget_presence(engine: Engine, process: str) -> None:
    """``process`` stops: none of its streams count any more."""
    with engine.begin() as c:
        c.execute(delete(presence).where(presence.c.process == process))


def count_requests(
    engine: Engine, limits: list[tuple[str, float]], moment: float
) -> list[tuple[int, int, float]]:
    """Count one request against each ``(key, seconds)`` window; for each, the requests counted in its
    window so far (this one included), those of the window before, and how far into its window
    ``moment`` is (0 to 1): a sliding window's estimate (:func:`over`) needs all three.

    PostgreSQL only (the counts of several processes): one statement, each window's row made or
    added to at once, so no two processes lose a count between them.
    """
    values, params = [], {}
    for n, (key, seconds) in enumerate(limits):
        bucket = math.floor(moment / seconds)
        values.append(f"(:c{n}, :b{n}, 1, :e{n}, :s{n})")
        params.update({f"c{n}": key, f"b{n}": bucket, f"e{n}": (bucket + 1) * seconds, f"s{n}": seconds})
    statement = text(
        "WITH counted AS (INSERT INTO rate_counts (client, bucket, hits, ends, span) VALUES "
        + ", ".join(values)
        + " ON CONFLICT (client, bucket) DO UPDATE SET hits = rate_counts.hits + 1"
        " RETURNING client, bucket, hits, ends, span)"
        " SELECT counted.client, counted.hits, coalesce(before.hits, 0), counted.ends, counted.span"
        " FROM counted LEFT JOIN rate_counts AS before"
        " ON before.client = counted.client AND before.bucket = counted.bucket - 1"
    )
    with engine.begin() as c:
        rows = {r[0]: r[1:] for r in c.execute(statement, params)}
    out = []
    for key, _seconds in limits:
        hits, earlier, ends, span = rows[key]
        out.append((int(hits), int(earlier), 1.0 - (ends - moment) / span))
    return out


def over(limit: int, hits: int, earlier: int, into: float) -> float | None:
    """Whether a window's requests pass ``limit``, as a sliding window sees them: those of this window and
    the share of the window before that the sliding window still covers. None if they do not; else
    the share of a window to wait until they would not (at least until the window's end, past the limit
    in this window alone)."""
    if hits + earlier * (1.0 - into) <= limit:
        return None
    if hits > limit or earlier == 0:
        return 1.0 - into
    return max(0.0, 1.0 - (limit - hits) / earlier - into)


def forget_requests(engine: Engine, moment: float) -> None:
    """Drop the counts of windows neither current nor just before it."""
    with engine.begin() as c:
        c.execute(delete(rate_counts).where(rate_counts.c.ends + rate_counts.c.span < moment))


def server_key(engine: Engine, name: str) -> str:
    """A random key every process of this store shares (made by the first that asks)."""
    with engine.begin() as c:
        found = c.execute(select(server_keys.c.value).where(server_keys.c.name == name)).scalar()
    if found is not None:
        return found
    try:
        with engine.begin() as c:
            c.execute(insert(server_keys).values(name=name, value=secrets.token_hex(32)))
    except IntegrityError:  # another process made it at the same moment: theirs stands
        pass
    with engine.begin() as c:
        return c.execute(select(server_keys.c.value).where(server_keys.c.name == name)).scalar_one()
