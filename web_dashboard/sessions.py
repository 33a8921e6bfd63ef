"""Server-side sign-in sessions: who is signed in to which console, kept in the data dir.

This module owns :class:`SessionStore` (``<data_dir>/sessions.db``, SQLite, mode 0600) and
:class:`SessionGate`, one console's door to it (``app.extensions["chaodipi_sessions"]``). The
browser's cookie carries only a random session token (inside Flask's signed cookie); the row
behind it holds the name, the CSRF token, the console it opens (``table:<table id>`` or ``hub``)
and a tag of the PIN it was opened with (HMAC-SHA256 of the PIN under the data dir's session
key). The token itself is stored only as its SHA-256, so a copy of the file opens nothing.

A session ends when its holder signs out (the row is deleted: a saved cookie is refused from
then on), when it is :data:`LIFETIME_S` old, or when the console's PIN is no longer the one it
was opened with (a service restarted with another PIN ends every earlier session at once). A
restart with the same PIN keeps them: a referee need not sign in again after a power cut.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from flask import current_app, g, session

LIFETIME_S = 12 * 3600.0
FILE_NAME = "sessions.db"
TOKEN_KEY = "sid"

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY,
    scope      TEXT NOT NULL,
    name       TEXT NOT NULL,
    csrf       TEXT NOT NULL,
    pin_tag    TEXT NOT NULL,
    expires    REAL NOT NULL
);
"""


@dataclass(frozen=True)
class SignedIn:
    """An open session: the holder's name and the CSRF token its POSTs must carry."""

    name: str
    csrf: str


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class SessionStore:
    """The sessions of every console served from one data dir (see the module docstring)."""

    def __init__(self, data_dir: Path, key: bytes, lifetime_s: float = LIFETIME_S) -> None:
        self.path = data_dir / FILE_NAME
        self.key = key
        self.lifetime_s = lifetime_s
        self._lock = threading.Lock()
        data_dir.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        os.chmod(self.path, 0o600)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)

    def pin_tag(self, pin: str) -> str:
        return hmac.new(self.key, pin.encode(), hashlib.sha256).hexdigest()

    def open(self, scope: str, pin: str, name: str) -> tuple[str, SignedIn]:
        """A new session for ``name``; returns its token (for the cookie) and what it holds."""
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = time.time()
        with self._lock:
            self._db.execute("DELETE FROM sessions WHERE expires <= ?", (now,))
            self._db.execute(
                "INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?)",
                (_hash(token), scope, name, csrf, self.pin_tag(pin), now + self.lifetime_s),
            )
        return token, SignedIn(name, csrf)

    def find(self, token: str, scope: str, pin: str) -> SignedIn | None:
        """The session of ``token`` for ``scope`` while it is open under ``pin``, else None."""
        if not token or not pin:
            return None
        with self._lock:
            row = self._db.execute(
                "SELECT name, csrf, pin_tag, expires FROM sessions "
                "WHERE token_hash = ? AND scope = ?",
                (_hash(token), scope),
            ).fetchone()
        if row is None:
            return None
        name, csrf, tag, expires = row
        if expires <= time.time() or not hmac.compare_digest(tag, self.pin_tag(pin)):
            self.end(token)
            return None
        return SignedIn(str(name), str(csrf))

    def end(self, token: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM sessions WHERE token_hash = ?", (_hash(token),))

    def end_other_pins(self, scope: str, pin: str) -> int:
        """End the sessions of ``scope`` opened under another PIN; returns how many."""
        with self._lock:
            cur = self._db.execute(
                "DELETE FROM sessions WHERE scope = ? AND pin_tag != ?", (scope, self.pin_tag(pin))
            )
        return int(cur.rowcount)

    def close(self) -> None:
        with self._lock:
            self._db.close()


class SessionGate:
    """One console's sessions: its scope and PIN over a :class:`SessionStore`."""

    def __init__(self, store: SessionStore, scope: str, pin: str) -> None:
        self.store = store
        self.scope = scope
        self.pin = pin
        if pin:
            store.end_other_pins(scope, pin)

    def sign_in(self, name: str) -> SignedIn:
        """Open a session for this request's browser (any earlier one of it ends)."""
        self.sign_out()
        token, signed = self.store.open(self.scope, self.pin, name)
        session.clear()
        session.permanent = True
        session[TOKEN_KEY] = token
        g.chaodipi_signed_in = signed
        return signed

    def current(self) -> SignedIn | None:
        """The open session of this request, looked up once per request."""
        if "chaodipi_signed_in" not in g:
            token = session.get(TOKEN_KEY)
            found = self.store.find(token, self.scope, self.pin) if isinstance(token, str) else None
            g.chaodipi_signed_in = found
        signed: SignedIn | None = g.chaodipi_signed_in
        return signed

    def sign_out(self) -> None:
        token = session.get(TOKEN_KEY)
        if isinstance(token, str):
            self.store.end(token)
        session.clear()
        g.chaodipi_signed_in = None


def gate() -> SessionGate:
    """The session gate of the app handling this request."""
    found: SessionGate = current_app.extensions["chaodipi_sessions"]
    return found
