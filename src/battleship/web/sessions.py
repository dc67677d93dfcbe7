"""Players' sessions: a signed cookie that tells one player from another behind one address.

A classroom behind one NAT is one address to the server; limits kept per address alone would treat
thirty pupils as one client. So every browser (and every API client that keeps cookies) is given a
session, a random id signed with a key the store's processes share (:func:`battleship.web.store.server_key`),
and the per-client limits (requests, live streams) are kept per session. A request without a valid
session (a client that keeps no cookies, or sends a forged one) is counted by its address, as
before; and all of an address's sessions together stay under a wider limit of their own, so minting
sessions buys nothing past it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from http.cookies import CookieError, SimpleCookie

from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "battleship_session"
SCOPE_KEY = "battleship.session"  # the request's session id in the ASGI scope (None: no valid cookie)
NEW_KEY = "battleship.session.new"  # the session this request is being given (it came without one)
YEAR = 365 * 24 * 3600


def sign(key: bytes, session: str) -> str:
    """A session's cookie value: its id and the id's signature."""
    return f"{session}.{hmac.new(key, session.encode(), hashlib.sha256).hexdigest()[:32]}"


def verify(key: bytes, value: str) -> str | None:
    """The session id a cookie value carries, if its signature is right."""
    session, _, _mac = value.partition(".")
    if not session or len(value) > 80:
        return None
    return session if hmac.compare_digest(sign(key, session), value) else None


def session_of(scope: Scope) -> str | None:
    """The request's session id (None: it came without a valid one)."""
    return scope.get(SCOPE_KEY)


def given_now(scope: Scope) -> str | None:
    """The session id this request is being given, when it came without a valid one."""
    return scope.get(NEW_KEY)


def _cookie(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            try:
                jar = SimpleCookie(value.decode("latin-1"))
            except CookieError:
                return None
            if COOKIE in jar:
                return jar[COOKIE].value
    return None


class Sessions:
    """Read each request's session (``scope["battleship.session"]``); give one to a client without."""

    def __init__(self, app: ASGIApp, key: bytes):
        self.app, self.key = app, key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "").startswith("/static/"):
            await self.app(scope, receive, send)
            return
        value = _cookie(scope)
        session = verify(self.key, value) if value else None
        scope[SCOPE_KEY] = session
        if session is not None:
            await self.app(scope, receive, send)
            return
        fresh = secrets.token_hex(12)
        scope[NEW_KEY] = fresh
        given = sign(self.key, fresh)
        header = f"{COOKIE}={given}; Path=/; Max-Age={YEAR}; HttpOnly; SameSite=Lax".encode()

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", header)]}
            await send(message)

        await self.app(scope, receive, sending)
