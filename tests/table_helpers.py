"""Tables for tests: a real event store in a folder, fed a simulated hand through the camera
sink (the path the pipeline's events take)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chaodipi.table.actions import start_table
from chaodipi.table.feed import contract_of, record_events
from chaodipi.table.live import LiveTable
from chaodipi.table.sink import CameraSink
from chaodipi.table.store import EventStore
from engine.simulate import simulate_hand

EPOCH = 1_764_400_000.0


def hand(seed: int = 3, inject: tuple[str, ...] = ("revoke", "overtime")) -> dict[str, Any]:
    """A simulated XX hand (seed 3 plants a revoke by N in trick 7 and an overtime)."""
    record, _ = simulate_hand("XX", seed, list(inject))
    return record


def table(folder: Path, record: dict[str, Any] | None = None, upto: int | None = None) -> LiveTable:
    """A live table in ``folder`` with the first ``upto`` camera events of ``record``."""
    store = EventStore(folder / "T1.sqlite")
    live = LiveTable(store, "T1", "XX")
    if record is not None:
        start_table(live, contract_of(record))
        feed(live, record, 0, upto)
    return live


def feed(live: LiveTable, record: dict[str, Any], start: int = 0, stop: int | None = None) -> None:
    """Camera events ``start:stop`` of ``record`` through the sink."""
    sink = CameraSink(live)
    for _, (kind, data) in record_events(record, EPOCH)[start:stop]:
        sink.emit(kind, data)
