"""The live state of one table: its event store and the fold kept up to date with it.

This module owns :class:`LiveTable`, shared by the pipeline's sink, the web app and the feed.
The store is the only truth; :meth:`LiveTable.locked` folds whatever events were appended since
the last call (by any thread) into one :class:`~chaodipi.table.table_state.TableState` and hands it
out
under a lock, so readers never see a half-applied event. State JSON is cached per ``seq`` inside
the state, so a hundred spectators waking on one append build it once.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from chaodipi.table.store import EventLog
from chaodipi.table.table_state import TableState


class LiveTable:
    """A store and its folded state (see the module docstring)."""

    def __init__(self, store: EventLog, table: str = "table-1", rules: str = "XX") -> None:
        self.store = store
        self._state = TableState(table, rules)
        self._lock = threading.RLock()
        self._text: tuple[int, str] | None = None

    @contextmanager
    def locked(self) -> Iterator[TableState]:
        """The state, caught up with the store, held under the lock for the ``with`` block."""
        with self._lock:
            for event in self.store.events(since=self._state.seq):
                self._state.apply(event)
            yield self._state

    def append(self, kind: str, data: Mapping[str, Any], actor: str | None) -> int:
        return self.store.append(kind, data, actor)

    def append_many(self, events: Sequence[tuple[str, Mapping[str, Any], str | None]]) -> list[int]:
        return self.store.append_many(events)

    def public_json(self, now: float | None = None) -> dict[str, Any]:
        with self.locked() as state:
            return state.to_public_json(time.time() if now is None else now)

    def referee_json(self, now: float | None = None) -> dict[str, Any]:
        with self.locked() as state:
            return state.to_referee_json(time.time() if now is None else now)

    def public_text(self) -> tuple[int, str]:
        """``(seq, public state JSON text)``, built once per seq (server-sent events)."""
        with self.locked() as state:
            if self._text is None or self._text[0] != state.seq:
                body = state.to_public_json(time.time())
                self._text = (state.seq, json.dumps(body, ensure_ascii=False))
            return self._text
