"""Word between the server processes of one PostgreSQL store: that a game changed, and who watches which seat.

A move made in one process must reach the players whose live streams another process holds. Each
process sends ``NOTIFY`` on one channel when a game changes (the payload: the process and the
game's id) and listens on that channel on a connection of its own, waking its own streams on that
game when another process's word comes (PostgreSQL's ``LISTEN``/``NOTIFY``: no other server to run).
A listener that lost its connection wakes every stream when it is back, so nothing said meanwhile is
missed: each stream reads its seat's view afresh when woken.

Who is watching: each process writes how many streams it holds on a seat (the ``presence`` table),
from a thread of its own (opening a stream waits for no write), and its heartbeat keeps its rows
fresh; a killed process's rows stop counting after :data:`battleship.web.store.PRESENCE_SECONDS`.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy.engine import Engine

from battleship.web import store

CHANNEL = "battleship_games"
RETRY_SECONDS = 1.0  # between attempts to listen again after the database went away
SEEN = 10_000  # seats whose count of streams elsewhere is kept at most (then all are read afresh)
log = logging.getLogger("battleship.web")


def conninfo(engine: Engine) -> str:
    """The libpq address of the store behind ``engine`` (for psycopg's own connections)."""
    return engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


class Bus:
    """This process's word with the others: :meth:`announce` a change, hear theirs (``on_change(game_id)``,
    ``on_gap()`` after a lost connection), record the streams it holds (:meth:`presence`)."""

    def __init__(self, engine: Engine, on_change: Callable[[str], None], on_gap: Callable[[], None]):
        self.engine, self.on_change, self.on_gap = engine, on_change, on_gap
        self.process = secrets.token_hex(8)
        self._stopping = threading.Event()
        self._sender: Any = None  # psycopg's connection, opened at the first word
        self._send_lock = threading.Lock()
        self._writes: queue.Queue[tuple[str, str, Callable[[], int]] | None] = queue.Queue()
        self._threads = [
            threading.Thread(target=self._listen, daemon=True, name="bus-listen"),
            threading.Thread(target=self._write, daemon=True, name="bus-presence"),
        ]
        self.listening = threading.Event()  # set once LISTEN is in place (the tests wait for it)
        # streams other processes hold on a seat, as last read: (the seat's game, the count, when read);
        # forgotten at any word on that game (a stream opened or closed elsewhere is announced) and
        # after PRESENCE_SECONDS (a killed process says nothing)
        self._seen: dict[str, tuple[str, int, float]] = {}
        self._seen_lock = threading.Lock()

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def close(self) -> None:
        """Stop listening and writing; this process's streams no longer count."""
        self._stopping.set()
        self._writes.put(None)
        for thread in self._threads:
            thread.join(5)
        with self._send_lock:
            if self._sender is not None:
                with contextlib.suppress(Exception):
                    self._sender.close()
        with contextlib.suppress(Exception):
            store.forget_presence(self.engine, self.process)

    # ---- telling ---------------------------------------------------------------------------------

    def announce(self, game_id: str) -> None:
        """Tell every other process that ``game_id`` changed (a failure is logged: the streams' own
        periodic look catches up)."""
        import psycopg

        payload = f"{self.process}:{game_id}"
        with self._send_lock:
            for attempt in (1, 2):  # a connection gone stale is opened again once
                try:
                    if self._sender is None or self._sender.closed:
                        self._sender = psycopg.connect(conninfo(self.engine), autocommit=True)
                    self._sender.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
                    return
                except psycopg.Error:
                    self._sender = None
                    if attempt == 2:
                        log.warning("telling the other processes of a change failed", exc_info=True)

    def presence(self, seat: str, game_id: str, count: Callable[[], int]) -> None:
        """Record (soon, from the writer thread) the streams this process holds on ``seat`` — ``count()``
        then — and tell the others that ``game_id`` changed (who is connected is part of its view)."""
        self._writes.put((seat, game_id, count))

    def elsewhere(self, seat: str, game_id: str | None = None) -> int:
        """Streams other processes hold open on ``seat`` (of ``game_id``: then the count is kept until a
        word on that game, so that every view of a seat does not read it again)."""
        if game_id is not None:
            with self._seen_lock:
                seen = self._seen.get(seat)
            if seen is not None and time.monotonic() - seen[2] < store.PRESENCE_SECONDS:
                return seen[1]
        count = store.streams_on(self.engine, seat, besides=self.process)
        if game_id is not None:
            with self._seen_lock:
                if len(self._seen) > SEEN:
                    self._seen.clear()
                self._seen[seat] = (game_id, count, time.monotonic())
        return count

    def _forget(self, game_id: str | None) -> None:
        """Forget the counts read on ``game_id``'s seats (every game's: None)."""
        with self._seen_lock:
            for seat in [s for s, seen in self._seen.items() if game_id is None or seen[0] == game_id]:
                del self._seen[seat]

    def beat(self) -> None:
        """This process is alive: its streams still count (the server's heartbeat calls it)."""
        store.refresh_presence(self.engine, self.process)

    # ---- the threads -----------------------------------------------------------------------------

    def _write(self) -> None:
        while True:
            item = self._writes.get()
            if item is None or self._stopping.is_set():
                return
            seat, game_id, count = item
            try:
                store.set_presence(self.engine, seat, self.process, count())
            except Exception:
                log.warning("recording who watches a seat failed", exc_info=True)
            self.announce(game_id)

    def _listen(self) -> None:
        import psycopg

        first = True
        while not self._stopping.is_set():
            try:
                with psycopg.connect(conninfo(self.engine), autocommit=True) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    if not first:
                        self._forget(None)
                        self.on_gap()  # words said while this process was not listening are lost
                    first = False
                    while not self._stopping.is_set():
                        for word in connection.notifies(timeout=0.5):
                            process, _, game_id = word.payload.partition(":")
                            if process != self.process:
                                self._forget(game_id)
                                self.on_change(game_id)
            except psycopg.Error:
                if not self._stopping.is_set():
                    log.warning("listening to the other processes failed; trying again", exc_info=True)
                    self._stopping.wait(RETRY_SECONDS)
