"""Live updates for games between friends: who is watching which game, and a wake-up when it changes.

Each open page holds one server-sent event stream (:func:`battleship.web.friend_routes`), which
subscribes here and sleeps on an :class:`asyncio.Event`. A move, made in a worker thread, calls
:meth:`Hub.publish`, which sets every subscriber's event from its own event loop. A player counts as
connected while a stream of theirs is open, so the other player sees them drop out and come back.

Several processes on one PostgreSQL store: a change is also told to the others and theirs heard
(:class:`battleship.web.bus.Bus`, ``LISTEN``/``NOTIFY``), and who is connected, and how many streams
a seat holds, count every process's streams.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from typing import TYPE_CHECKING

from battleship.errors import BattleshipError

if TYPE_CHECKING:
    from battleship.web.bus import Bus

MAX_PER_SEAT = 4  # open streams one seat may hold: a phone and a laptop, a tab or two (429 beyond)
MAX_PER_CLIENT = 16  # open streams one client (a session, or an address without one) may hold (429 beyond)
# open streams one address may hold in this process, whatever its sessions: a classroom behind one NAT,
# each pupil in a game or two (429 beyond)
MAX_PER_ADDRESS = 256


class TooManyStreams(BattleshipError):
    """A seat, or a client, already holds as many live streams as it may."""


class Subscription:
    """One open stream's wake-up (``loop``: the event loop the stream runs in)."""

    def __init__(
        self,
        hub: Hub,
        game_id: str,
        seat: str,
        client: str,
        loop: asyncio.AbstractEventLoop | None = None,
        address: str | None = None,
    ):
        self.hub, self.game_id, self.seat, self.client = hub, game_id, seat, client
        self.address = address if address is not None else client
        self.loop = loop or asyncio.get_running_loop()
        self.event = asyncio.Event()
        self.closed = False

    def wake(self) -> None:
        """Set the event from any thread."""
        self.loop.call_soon_threadsafe(self.event.set)

    def close(self) -> None:
        """Leave the hub (once: both the stream's end and the response's end call it)."""
        if not self.closed:
            self.closed = True
            self.hub._leave(self)


class Hub:
    """Subscriptions by game, and how many streams each seat, client and address has open; ``bus``: the
    other processes of a shared store (None: this process is alone)."""

    def __init__(
        self,
        per_seat: int = MAX_PER_SEAT,
        per_client: int = MAX_PER_CLIENT,
        per_address: int = MAX_PER_ADDRESS,
        bus: Bus | None = None,
    ) -> None:
        self.per_seat, self.per_client, self.per_address = per_seat, per_client, per_address
        self.bus = bus
        self._lock = threading.Lock()
        self._by_game: dict[str, set[Subscription]] = {}
        self._open: Counter[str] = Counter()
        self._by_client: Counter[str] = Counter()
        self._by_address: Counter[str] = Counter()

    def subscribe(
        self,
        game_id: str,
        seat: str,
        client: str = "-",
        loop: asyncio.AbstractEventLoop | None = None,
        address: str | None = None,
    ) -> Subscription:
        """A new stream for ``seat`` of ``game_id`` from ``client`` (a session, or an address) at ``address``;
        the other seat is told. :class:`TooManyStreams` when the seat, the client or the address holds its
        share already. From the event loop, or (with a shared store, which it reads) a thread given the
        stream's ``loop``."""
        subscription = Subscription(self, game_id, seat, client, loop, address)
        elsewhere = self.bus.elsewhere(seat) if self.bus is not None else 0
        with self._lock:
            if self._open[seat] + elsewhere >= self.per_seat:
                raise TooManyStreams(
                    f"too many live streams: this seat has {self._open[seat] + elsewhere} open, at most "
                    f"{self.per_seat} (close another tab or device of this game)"
                )
            if self._by_client[client] >= self.per_client:
                raise TooManyStreams(
                    f"too many live streams: this client has {self._by_client[client]} open, at most "
                    f"{self.per_client}"
                )
            if self._by_address[subscription.address] >= self.per_address:
                raise TooManyStreams(
                    f"too many live streams: this address has {self._by_address[subscription.address]} open, "
                    f"at most {self.per_address}"
                )
            self._by_game.setdefault(game_id, set()).add(subscription)
            self._open[seat] += 1
            self._by_client[client] += 1
            self._by_address[subscription.address] += 1
        self._seat_changed(seat, game_id)
        return subscription

    def _leave(self, subscription: Subscription) -> None:
        with self._lock:
            self._by_game.get(subscription.game_id, set()).discard(subscription)
            if not self._by_game.get(subscription.game_id):
                self._by_game.pop(subscription.game_id, None)
            for counts, key in (
                (self._open, subscription.seat),
                (self._by_client, subscription.client),
                (self._by_address, subscription.address),
            ):
                counts[key] -= 1
                if counts[key] <= 0:
                    del counts[key]
        self._seat_changed(subscription.seat, subscription.game_id)

    def _seat_changed(self, seat: str, game_id: str) -> None:
        """A stream opened or closed on ``seat``: this process's streams on the game are woken (whether the
        other player is connected is in their view), the other processes' once the count is written."""
        self.wake(game_id)
        if self.bus is not None:
            self.bus.presence(seat, game_id, lambda: self._here(seat))

    def _here(self, seat: str) -> int:
        with self._lock:
            return self._open[seat]

    def connected(self, seat: str, game_id: str | None = None) -> bool:
        """True while a stream of ``seat`` (of ``game_id``) is open (in any process)."""
        if self._here(seat) > 0:
            return True
        return self.bus is not None and self.bus.elsewhere(seat, game_id) > 0

    def publish(self, game_id: str) -> None:
        """Wake every stream watching ``game_id``, in this process and the others (from any thread)."""
        self.wake(game_id)
        if self.bus is not None:
            self.bus.announce(game_id)

    def wake(self, game_id: str) -> None:
        """Wake this process's streams watching ``game_id`` (from any thread)."""
        with self._lock:
            subscriptions = list(self._by_game.get(game_id, ()))
        for subscription in subscriptions:
            subscription.wake()

    def wake_all(self) -> None:
        """Wake every stream (the server is shutting down, or a word from the others may have been missed)."""
        with self._lock:
            subscriptions = [s for group in self._by_game.values() for s in group]
        for subscription in subscriptions:
            subscription.wake()
