"""What the hub received but did not store as a table's event, kept aside for the organisers.

This module owns :class:`SetAside`, one SQLite file beside the replicas
(``<hub data_dir>/_set_aside.sqlite``, no table's slug starts with ``_``) with two tables:

* ``conflicts`` — an event whose ``seq`` the hub already holds (or holds back behind a gap)
  with different content. The copy held first stays in the table's log, which is append-only;
  the other one is kept here, with whether it was signed, when it came and how often. With a
  key for the table (``[table_keys]``) both copies carry the table's own signature: the table's
  log was restarted or restored, and the organisers decide which is right.
* ``rejected`` — a message from a table's topics that the hub refused: ``unsigned`` or with a
  ``bad signature`` where hub.toml holds the table's key. Its text is kept (at most 64 KiB).

A message offered again with the same content counts once more (``times``, ``last_t``) and is
not kept twice. Each table keeps at most ``max_rows`` rows of each kind; beyond that the hub
only counts (one ``overflow`` row per table and kind), so a flood cannot fill the disk and
nothing goes uncounted. :meth:`SetAside.counts` is what every overview row shows,
:meth:`SetAside.recent` what the organisers' overview lists.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from chaodipi.table.store import StoredEvent, StoreError

MESSAGE_KEPT = 64 * 1024
OVERFLOW = "overflow"

SCHEMA = """
CREATE TABLE IF NOT EXISTS conflicts (
    id       INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    digest   TEXT NOT NULL,
    signed   INTEGER NOT NULL,
    message  TEXT NOT NULL,
    first_t  REAL NOT NULL,
    last_t   REAL NOT NULL,
    times    INTEGER NOT NULL,
    UNIQUE (table_id, seq, digest)
);
CREATE TABLE IF NOT EXISTS rejected (
    id       INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    topic    TEXT NOT NULL,
    reason   TEXT NOT NULL,
    digest   TEXT NOT NULL,
    message  TEXT NOT NULL,
    first_t  REAL NOT NULL,
    last_t   REAL NOT NULL,
    times    INTEGER NOT NULL,
    UNIQUE (table_id, digest)
);
"""


def event_digest(event: StoredEvent) -> str:
    """The SHA-256 of an event's canonical JSON: equal digests, equal events."""
    text = json.dumps(
        event.to_json(), ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SetAside:
    """Conflicting events and rejected messages of every table (see the module docstring)."""

    def __init__(self, path: Path, max_rows: int = 1000) -> None:
        self.path = path
        self.max_rows = max_rows
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(
                path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
            self._counts: dict[str, dict[str, int]] = {}
            for kind, counted in (("conflicts", "1"), ("rejected", "times")):
                sql = (
                    f"SELECT table_id, SUM(CASE WHEN digest = '{OVERFLOW}' THEN times "
                    f"ELSE {counted} END) FROM {kind} GROUP BY table_id"
                )
                for table, n in self._db.execute(sql).fetchall():
                    self._count(str(table))[kind] = int(n)
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{path} is not usable ({e}): move it away or restore it") from None

    def _count(self, table: str) -> dict[str, int]:
        return self._counts.setdefault(table, {"conflicts": 0, "rejected": 0})

    def conflict(self, table: str, event: StoredEvent, *, signed: bool) -> bool:
        """Keep ``event`` aside as conflicting with the held one; True the first time."""
        message = json.dumps(event.to_json(), ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            new = self._keep("conflicts", table, event_digest(event), message, (event.seq, signed))
            self._count(table)["conflicts"] += int(new)
        return new

    def reject(self, table: str, topic: str, reason: str, payload: bytes) -> None:
        """Keep a refused message (``topic`` is its leaf: events or status)."""
        digest = hashlib.sha256(payload).hexdigest()
        message = payload[:MESSAGE_KEPT].decode("utf-8", "replace")
        with self._lock:
            self._count(table)["rejected"] += 1  # counted even if keeping it fails
            self._keep("rejected", table, digest, message, (topic, reason))

    def _keep(
        self, kind: str, table: str, digest: str, message: str, extra: tuple[Any, Any]
    ) -> bool:
        """Insert a row, or count one more of a row already there (False); past
        ``max_rows``, count on the table's overflow row instead."""
        try:
            return self._write(kind, table, digest, message, extra)
        except sqlite3.Error as e:  # a full disk: the hub runs on, the count stays in memory
            raise StoreError(f"cannot keep a {kind} row in {self.path}: {e}") from None

    def _write(
        self, kind: str, table: str, digest: str, message: str, extra: tuple[Any, Any]
    ) -> bool:
        now = time.time()
        again = f"UPDATE {kind} SET times = times + 1, last_t = ? WHERE table_id = ? AND digest = ?"
        if kind == "conflicts":
            same = self._db.execute(again + " AND seq = ?", (now, table, digest, extra[0]))
        else:
            same = self._db.execute(again, (now, table, digest))
        if same.rowcount:
            return False
        kept = self._db.execute(f"SELECT COUNT(*) FROM {kind} WHERE table_id = ?", (table,))
        if kept.fetchone()[0] >= self.max_rows:
            if self._db.execute(again, (now, table, OVERFLOW)).rowcount:
                return True
            digest, message = OVERFLOW, "(past the rows kept: counted only)"
            extra = (0, False) if kind == "conflicts" else extra
        columns = ("seq", "signed") if kind == "conflicts" else ("topic", "reason")
        self._db.execute(
            f"INSERT INTO {kind} (table_id, digest, message, first_t, last_t, times, "
            f"{columns[0]}, {columns[1]}) VALUES (?, ?, ?, ?, ?, 1, ?, ?)",
            (table, digest, message, now, now, *extra),
        )
        return True

    def counts(self, table: str) -> dict[str, int]:
        """``{"conflicts": events kept aside, "rejected": messages refused}`` of one table."""
        return dict(self._count(table))

    def recent(self, table: str, limit: int = 20) -> dict[str, list[dict[str, Any]]]:
        """The newest conflicts and rejected messages of one table, newest first (an
        ``overflow`` row counts what came past the rows kept)."""
        with self._lock:
            conflicts = self._db.execute(
                "SELECT seq, signed, message, first_t, last_t, times, digest FROM conflicts "
                "WHERE table_id = ? ORDER BY last_t DESC LIMIT ?",
                (table, limit),
            ).fetchall()
            rejected = self._db.execute(
                "SELECT topic, reason, message, first_t, last_t, times, digest FROM rejected "
                "WHERE table_id = ? ORDER BY last_t DESC LIMIT ?",
                (table, limit),
            ).fetchall()
        return {
            "conflicts": [
                {
                    "seq": seq,
                    "signed": bool(signed),
                    "offered": _json_or_text(message),
                    "first_t": first,
                    "last_t": last,
                    "times": times,
                    "overflow": digest == OVERFLOW,
                }
                for seq, signed, message, first, last, times, digest in conflicts
            ],
            "rejected": [
                {
                    "topic": topic,
                    "reason": reason,
                    "message": message,
                    "first_t": first,
                    "last_t": last,
                    "times": times,
                    "overflow": digest == OVERFLOW,
                }
                for topic, reason, message, first, last, times, digest in rejected
            ],
        }

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _json_or_text(message: str) -> Any:
    try:
        return json.loads(message)
    except ValueError:
        return message
