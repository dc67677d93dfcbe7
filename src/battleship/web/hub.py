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


class Subscription:
    """One open stream's wake-up."""

    def __init__(self, hub: Hub, game_id: str, seat: str):
        self.hub, self.game_id, self.seat = hub, game_id, seat
        self.loop = asyncio.get_running_loop()
        self.event = asyncio.Event()

    def wake(self) -> None:
        """Set the event from any thread."""
        self.loop.call_soon_threadsafe(self.event.set)

    def close(self) -> None:
        self.hub._leave(self)


class Hub:
    """Subscriptions by game, and how many streams each seat has open."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_game: dict[str, set[Subscription]] = {}
        self._open: Counter[str] = Counter()

    def subscribe(self, game_id: str, seat: str) -> Subscription:
        """A new stream for ``seat`` of ``game_id`` (call from the event loop); the other seat is told."""
        subscription = Subscription(self, game_id, seat)
        with self._lock:
            self._by_game.setdefault(game_id, set()).add(subscription)
            self._open[seat] += 1
        self.publish(game_id)
        return subscription

    def _leave(self, subscription: Subscription) -> None:
        with self._lock:
            self._by_game.get(subscription.game_id, set()).discard(subscription)
            if not self._by_game.get(subscription.game_id):
                self._by_game.pop(subscription.game_id, None)
            self._open[subscription.seat] -= 1
            if self._open[subscription.seat] <= 0:
                del self._open[subscription.seat]
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
