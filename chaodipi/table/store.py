"""The table's event log: one SQLite file, append-only, the single source of a table's state.

This module owns the ``events`` table of ``web_dashboard/API.md`` (``seq`` gap-free from 1,
``t`` Unix seconds of the append, ``kind``, ``actor``, ``data`` a JSON object) and
:class:`EventStore`, the only code that writes it:

* **Durability.** WAL journal with ``synchronous=FULL``: an append that returned survives a
  power cut or a ``kill -9``; one that did not return left nothing (a transaction is atomic).
* **Append-only.** Rows are inserted and never updated or deleted; SQLite triggers refuse an
  UPDATE or DELETE, so no later code can rewrite history by accident.
* **Order.** One writer at a time (a lock): ``seq`` is the last ``seq`` + 1 inside the same
  transaction, so it is gap-free; :meth:`EventStore.append_many` appends several events in one
  transaction (all or none).
* **Threads.** Appends go through one connection under the lock; each reader thread gets its
  own connection (WAL readers never block the writer). :meth:`EventStore.wait` blocks on a
  :class:`threading.Condition` until an event after a given ``seq`` exists (server-sent events
  use it; they wake within milliseconds of an append).

Kinds are checked against :data:`KINDS` so a typo cannot enter the log. Pictures (trick
snapshots, correction frames) are not stored here: see :mod:`chaodipi.table.evidence`.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

CAMERA_KINDS: tuple[str, ...] = (
    "play",
    "trick_cleared",
    "kitty",
    "takeback",
    "exposed_card",
    "declaration",
    "recognition_conflict",
    "calibration_drift",
    "camera_health",
)
SYSTEM_KINDS: tuple[str, ...] = ("hand_started", "hand_finished", "snapshot")
REFEREE_KINDS: tuple[str, ...] = (
    "contract_set",
    "kitty_entered",
    "chao_di",
    "card_check",
    "infraction_decided",
    "play_corrected",
    "correction_undone",
    "next_hand",
    "next_match",
)
KINDS: tuple[str, ...] = CAMERA_KINDS + SYSTEM_KINDS + REFEREE_KINDS

CLOSE_WAIT_S = 5.0
"""How long :meth:`EventStore.close` waits for queries in flight on other threads."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    seq   INTEGER PRIMARY KEY,
    t     REAL NOT NULL,
    kind  TEXT NOT NULL,
    actor TEXT NULL,
    data  TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""


class StoreError(ValueError):
    """A bad event or an unusable database file; the message is one line naming the fix."""


@dataclass(frozen=True)
class StoredEvent:
    """One row of the log."""

    seq: int
    t: float
    kind: str
    actor: str | None
    data: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "t": self.t,
            "kind": self.kind,
            "actor": self.actor,
            "data": self.data,
        }


def check_actor(actor: str | None) -> None:
    """``camera``, ``system``, ``referee:<name>`` or None."""
    if actor is None or actor in ("camera", "system"):
        return
    if not (actor.startswith("referee:") and len(actor) > len("referee:")):
        raise StoreError(f"actor {actor!r} unknown: use camera, system or referee:<name>")


class EventLog(Protocol):
    """What readers of a log need (:class:`EventStore`, or the hub's delayed view of one)."""

    @property
    def data_dir(self) -> Path: ...

    @property
    def last_seq(self) -> int: ...

    @property
    def closed(self) -> bool: ...

    def events(self, since: int = 0, limit: int | None = None) -> list[StoredEvent]: ...

    def wait(self, after: int, timeout: float) -> int: ...

    def append(self, kind: str, data: Mapping[str, Any], actor: str | None = None) -> int: ...

    def append_many(
        self, events: Iterable[tuple[str, Mapping[str, Any], str | None]]
    ) -> list[int]: ...


class EventStore:
    """The append-only event log of one table (see the module docstring)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        folder = self.path.parent
        if folder.exists() and not folder.is_dir():
            raise StoreError(
                f"data_dir {folder} is a file, not a folder: set data_dir in the config (or "
                "--data-dir) to a folder"
            )
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(
                f"cannot create data_dir {folder} ({e.strerror}): set data_dir in the config "
                "(or --data-dir) to a folder the service may write"
            ) from None
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._local = threading.local()
        self._reading = 0  # queries running on the readers' connections
        self._readers: list[sqlite3.Connection] = []
        self._closed = False
        try:
            self._db = self._connect()
            self._db.executescript(SCHEMA)
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()
        except sqlite3.DatabaseError as e:
            raise StoreError(
                f"{self.path} is not a usable event log ({e}): move it away or restore it"
            ) from None
        self._last = int(row[0])

    @property
    def data_dir(self) -> Path:
        """The folder of the database (evidence and corrections live beside it)."""
        return self.path.parent

    @property
    def last_seq(self) -> int:
        """The ``seq`` of the newest event (0 for an empty log)."""
        return self._last

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        return db

    def _reader(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = self._connect()
            self._local.db = db
            with self._lock:
                self._readers.append(db)
        return db

    @contextlib.contextmanager
    def _reading_connection(self) -> Iterator[sqlite3.Connection]:
        """This thread's reader, counted while in use: closing a connection another thread is
        querying crashes the process, so :meth:`close` waits for the count to reach 0."""
        with self._changed:
            if self._closed:
                raise StoreError(f"the event log {self.path} is closed")
            self._reading += 1
        try:
            yield self._reader()
        finally:
            with self._changed:
                self._reading -= 1
                self._changed.notify_all()

    # ----- writing ---------------------------------------------------------------------
    def append(self, kind: str, data: Mapping[str, Any], actor: str | None = None) -> int:
        """Append one event; returns its ``seq`` once it is on disk."""
        return self.append_many([(kind, data, actor)])[-1]

    def append_many(self, events: Iterable[tuple[str, Mapping[str, Any], str | None]]) -> list[int]:
        """Append several events in one transaction (all or none); returns their seqs."""
        rows: list[tuple[str, str, str | None]] = []
        for kind, data, actor in events:
            if kind not in KINDS:
                raise StoreError(f"event kind {kind!r} unknown: use one of {', '.join(KINDS)}")
            if not isinstance(data, Mapping):
                raise StoreError(f"{kind} data must be a JSON object, not {type(data).__name__}")
            check_actor(actor)
            try:
                text = json.dumps(
                    dict(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False
                )
            except (TypeError, ValueError) as e:
                raise StoreError(f"{kind} data is not JSON ({e}): send plain values") from None
            rows.append((kind, text, actor))
        if not rows:
            return []
        with self._changed:
            if self._closed:
                raise StoreError(f"the event log {self.path} is closed")
            now = time.time()
            seqs = list(range(self._last + 1, self._last + 1 + len(rows)))
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(
                    "INSERT INTO events (seq, t, kind, actor, data) VALUES (?, ?, ?, ?, ?)",
                    [(s, now, k, a, d) for s, (k, d, a) in zip(seqs, rows, strict=True)],
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self._last = seqs[-1]
            self._changed.notify_all()
        return seqs

    def append_copies(self, events: Iterable[StoredEvent]) -> int:
        """Append events copied from another table's log (the hub's replica), keeping their
        ``seq`` and ``t``; they must continue this log exactly (``seq`` = last + 1, …), all in
        one transaction. Returns the new last ``seq``."""
        rows: list[tuple[int, float, str, str | None, str]] = []
        for ev in events:
            if ev.kind not in KINDS:
                raise StoreError(f"event kind {ev.kind!r} unknown: use one of {', '.join(KINDS)}")
            check_actor(ev.actor)
            text = json.dumps(ev.data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
            rows.append((ev.seq, float(ev.t), ev.kind, ev.actor, text))
        if not rows:
            return self._last
        with self._changed:
            if self._closed:
                raise StoreError(f"the event log {self.path} is closed")
            expected = self._last + 1
            seqs = [r[0] for r in rows]
            if seqs != list(range(expected, expected + len(rows))):
                raise StoreError(
                    f"copied events {seqs[0]}…{seqs[-1]} do not continue {self.path} at "
                    f"seq {expected}: send them in order from there"
                )
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany(
                    "INSERT INTO events (seq, t, kind, actor, data) VALUES (?, ?, ?, ?, ?)", rows
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self._last = seqs[-1]
            self._changed.notify_all()
        return self._last

    # ----- reading ---------------------------------------------------------------------
    def events(self, since: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """The events with ``seq > since``, in order (at most ``limit``)."""
        sql = "SELECT seq, t, kind, actor, data FROM events WHERE seq > ? ORDER BY seq"
        args: tuple[int, ...] = (since,)
        if limit is not None:
            sql += " LIMIT ?"
            args = (since, limit)
        with self._reading_connection() as db:
            rows = db.execute(sql, args).fetchall()
        return [StoredEvent(int(s), float(t), str(k), a, json.loads(d)) for s, t, k, a, d in rows]

    def wait(self, after: int, timeout: float) -> int:
        """Block until an event with ``seq > after`` exists or ``timeout`` s pass (or the store
        closes); returns the newest ``seq``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._last <= after and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(left)
            return self._last

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Checkpoint and close every connection; waiters wake up. Safe to call twice."""
        with self._changed:
            if self._closed:
                return
            self._closed = True
            self._changed.notify_all()
            self._changed.wait_for(lambda: self._reading == 0, timeout=CLOSE_WAIT_S)
            readers, self._readers = self._readers, []
        for db in readers:
            with contextlib.suppress(sqlite3.ProgrammingError):  # a thread still using it
                db.close()
        with contextlib.suppress(sqlite3.OperationalError):  # a reader still holds the WAL
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._db.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
