"""The hub's copy of every table's log, and the delayed view spectators get of it.

This module owns :class:`TableReplica`: one :class:`~chaodipi.table.store.EventStore` per table
(``<hub data_dir>/<slug>.sqlite``, the table's topic slug, the same schema and rules as the
table's own log) that appends only the event with ``seq`` = its last + 1
(:meth:`EventStore.append_copies`, keeping the table's ``seq`` and ``t``). A newer one is held
(up to ``max_pending``) until the gap before it is filled, and the hub's ack tells the table to
send again from the gap. An event whose ``seq`` is already held is compared with the held copy:
the same content is a duplicate and is ignored (re-deliveries are idempotent); different
content is a *conflict*, returned to the hub, which keeps it aside
(:mod:`chaodipi.hub.set_aside`) — never dropped unseen, never written over the log. So each
event is applied exactly once, in order.

:class:`DelayedLog` is a read-only view of a replica that shows only the events received at
least ``delay_s`` seconds ago (the broadcast delay): an event becomes visible at
``max(its t, the time the hub received it) + delay_s`` and in order, so a spectator's state is
the table as it was then. :class:`Health` keeps each table's last camera report (fps, frame
age, CPU temperature) and calibration check for the organisers' overview.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chaodipi.hub.set_aside import event_digest
from chaodipi.table.store import EventStore, StoredEvent, StoreError

log = logging.getLogger("chaodipi.hub.hub")


@dataclass
class Offered:
    """What one batch did to a replica."""

    applied: list[StoredEvent] = field(default_factory=list)
    duplicates: int = 0
    held: int = 0
    gap: bool = False  # events are held behind a missing seq
    rejected: int = 0
    conflicts: list[StoredEvent] = field(default_factory=list)  # a held seq, other content


class TableReplica:
    """The hub's copy of one table's log (see the module docstring)."""

    def __init__(self, table: str, path: Path, max_pending: int = 5000) -> None:
        self.table = table
        self.store = EventStore(path)
        self.max_pending = max_pending
        self.pending: dict[int, StoredEvent] = {}

    @property
    def last_seq(self) -> int:
        return self.store.last_seq

    def offer(self, events: list[StoredEvent]) -> Offered:
        """Apply whatever continues the log, hold what is ahead, ignore what is known and
        return what contradicts it."""
        out = Offered()
        last = self.store.last_seq
        stored: list[StoredEvent] = []
        for ev in events:
            if ev.seq <= last:
                stored.append(ev)
            elif ev.seq in self.pending:
                self._compare(self.pending[ev.seq], ev, out)
            elif ev.seq == last + 1 or len(self.pending) < self.max_pending:
                self.pending[ev.seq] = ev
            # else dropped: the table sends it again once the gap is filled
        if stored:
            low, high = min(e.seq for e in stored), max(e.seq for e in stored)
            held = {e.seq: e for e in self.store.events(since=low - 1, limit=high - low + 1)}
            for ev in stored:
                self._compare(held.get(ev.seq), ev, out)
        chain: list[StoredEvent] = []
        nxt = last + 1
        while nxt in self.pending:
            chain.append(self.pending.pop(nxt))
            nxt += 1
        if chain:
            try:
                self.store.append_copies(chain)
                out.applied = chain
            except StoreError as e:
                log.error("table %s: events %d… refused: %s", self.table, chain[0].seq, e)
                out.rejected = len(chain)
        out.held = len(self.pending)
        out.gap = bool(self.pending)
        return out

    @staticmethod
    def _compare(held: StoredEvent | None, offered: StoredEvent, out: Offered) -> None:
        if held is not None and event_digest(held) == event_digest(offered):
            out.duplicates += 1
        else:
            out.conflicts.append(offered)

    def held(self, seq: int) -> StoredEvent | None:
        """The event this replica holds (or holds back) at ``seq``."""
        pending = self.pending.get(seq)
        if pending is not None:
            return pending
        found = self.store.events(since=seq - 1, limit=1)
        return found[0] if found and found[0].seq == seq else None

    def close(self) -> None:
        self.store.close()


class DelayedLog:
    """A read-only view of a log that shows events ``delay_s`` after they arrived."""

    def __init__(self, store: EventStore, delay_s: float) -> None:
        self.store = store
        self.delay_s = delay_s
        self._cond = threading.Condition()
        self._waiting: deque[tuple[int, float]] = deque()
        cutoff = time.time() - delay_s
        visible = 0
        if delay_s > 0:
            for ev in store.events():
                if not self._waiting and ev.t <= cutoff:
                    visible = ev.seq
                else:
                    self._waiting.append((ev.seq, ev.t))
        else:
            visible = store.last_seq
        self._visible = visible

    # ----- fed by the hub ----------------------------------------------------------------------
    def arrived(self, events: list[StoredEvent], received_t: float) -> None:
        """Events just committed to the store, received at ``received_t``."""
        with self._cond:
            for ev in events:
                self._waiting.append((ev.seq, max(ev.t, received_t)))
        self.advance()

    def advance(self, now: float | None = None) -> None:
        """Show every event whose delay has passed."""
        cutoff = (time.time() if now is None else now) - self.delay_s
        with self._cond:
            moved = False
            while self._waiting and self._waiting[0][1] <= cutoff:
                self._visible = self._waiting.popleft()[0]
                moved = True
            if moved:
                self._cond.notify_all()

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    # ----- what LiveTable and the API read -----------------------------------------------------
    @property
    def path(self) -> Path:
        return self.store.path

    @property
    def data_dir(self) -> Path:
        return self.store.data_dir

    @property
    def last_seq(self) -> int:
        return self._visible

    @property
    def closed(self) -> bool:
        return self.store.closed

    def events(self, since: int = 0, limit: int | None = None) -> list[StoredEvent]:
        visible = self._visible
        if since >= visible:
            return []
        if limit is None or limit > visible - since:
            limit = visible - since
        return self.store.events(since=since, limit=limit)

    def wait(self, after: int, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._visible <= after and not self.store.closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(min(left, 1.0))
            return self._visible

    def append(self, kind: str, data: Mapping[str, Any], actor: str | None = None) -> int:
        raise StoreError("the hub's copy of a table is read-only: act at the table")

    def append_many(self, events: Iterable[tuple[str, Mapping[str, Any], str | None]]) -> list[int]:
        raise StoreError("the hub's copy of a table is read-only: act at the table")


@dataclass
class Health:
    """A table's latest camera report and calibration check (from its events)."""

    fps: float | None = None
    last_frame_age_s: float | None = None
    cpu_temp_c: float | None = None
    reported_t: float | None = None
    calibration_ok: bool | None = None
    drift: str | None = None

    def apply(self, ev: StoredEvent) -> None:
        if ev.kind == "camera_health":
            self.fps = _num(ev.data.get("fps"))
            self.last_frame_age_s = _num(ev.data.get("last_frame_age_s"))
            self.cpu_temp_c = _num(ev.data.get("cpu_temp_c"))
            self.reported_t = ev.t
        elif ev.kind == "calibration_drift":
            self.calibration_ok = bool(ev.data.get("ok"))
            self.drift = None if self.calibration_ok else str(ev.data.get("detail", ""))

    def to_json(self, now: float) -> dict[str, Any]:
        age = self.last_frame_age_s
        if age is not None and self.reported_t is not None:
            age = round(age + max(0.0, now - self.reported_t), 1)
        return {
            "fps": self.fps,
            "last_frame_age_s": age,
            "cpu_temp_c": self.cpu_temp_c,
            "calibration_ok": self.calibration_ok,
            "drift": self.drift,
        }


def _num(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None
