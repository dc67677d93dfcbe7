"""Live updates for games between friends: who is watching which game, and a wake-up when it changes.

Each open page holds one server-sent event stream (:func:`battleship.web.friend_routes`), which
subscribes here and sleeps on an :class:`asyncio.Event`. A move, made in a worker thread, calls
:meth:`Hub.publish`, which sets every subscriber's event from its own event loop. A player counts as
connected while a stream of theirs is open, so the other player sees them drop out and come back.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter

from battleship.errors import BattleshipError

MAX_PER_SEAT = 4  # open streams one seat may hold: a phone and a laptop, a tab or two (429 beyond)
MAX_PER_CLIENT = 16  # open streams one client address may hold, whatever seats (429 beyond)


class TooManyStreams(BattleshipError):
    """A seat, or a client, already holds as many live streams as it may."""


class Subscription:
    """One open stream's wake-up."""

    def __init__(self, hub: Hub, game_id: str, seat: str, client: str):
        self.hub, self.game_id, self.seat, self.client = hub, game_id, seat, client
        self.loop = asyncio.get_running_loop()
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
    """Subscriptions by game, and how many streams each seat has open."""

    def __init__(self, per_seat: int = MAX_PER_SEAT, per_client: int = MAX_PER_CLIENT) -> None:
        self.per_seat, self.per_client = per_seat, per_client
        self._lock = threading.Lock()
        self._by_game: dict[str, set[Subscription]] = {}
        self._open: Counter[str] = Counter()
        self._by_client: Counter[str] = Counter()

    def subscribe(self, game_id: str, seat: str, client: str = "-") -> Subscription:
        """A new stream for ``seat`` of ``game_id`` from ``client`` (call from the event loop); the other
        seat is told. :class:`TooManyStreams` when the seat or the client holds its share already."""
        subscription = Subscription(self, game_id, seat, client)
        with self._lock:
            if self._open[seat] >= self.per_seat:
                raise TooManyStreams(
                    f"too many live streams: this seat has {self._open[seat]} open, at most {self.per_seat} "
                    "(close another tab or device of this game)"
                )
            if self._by_client[client] >= self.per_client:
                raise TooManyStreams(
                    f"too many live streams: this client has {self._by_client[client]} open, at most "
                    f"{self.per_client}"
                )
            self._by_game.setdefault(game_id, set()).add(subscription)
            self._open[seat] += 1
            self._by_client[client] += 1
        self.publish(game_id)
        return subscription

    def _leave(self, subscription: Subscription) -> None:
        with self._lock:
            self._by_game.get(subscription.game_id, set()).discard(subscription)
            if not self._by_game.get(subscription.game_id):
                self._by_game.pop(subscription.game_id, None)
            for counts, key in ((self._open, subscription.seat), (self._by_client, subscription.client)):
                counts[key] -= 1
                if counts[key] <= 0:
                    del counts[key]
        self.publish(subscription.game_id)

    def connected(self, seat: str) -> bool:
        """True while a stream of ``seat`` is open."""
        with self._lock:
            return self._open[seat] > 0

    def publish(self, game_id: str) -> None:
        """Wake every stream watching ``game_id`` (from any thread)."""
        with self._lock:
            subscriptions = list(self._by_game.get(game_id, ()))
        for subscription in subscriptions:
            subscription.wake()

    def wake_all(self) -> None:
        """Wake every stream (the server is shutting down)."""
        with self._lock:
            subscriptions = [s for group in self._by_game.values() for s in group]
        for subscription in subscriptions:
            subscription.wake()
