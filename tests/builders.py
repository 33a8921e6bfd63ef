"""Readable hand records for tests: tricks written as ``"S:AS W:3S N:4S E:5S"`` in table order."""

from __future__ import annotations

from typing import Any

from chaodipi.config import TableConfig
from engine.audit import AuditReport, audit
from engine.record import load_record
from vision.table_geometry import Calibration


def trick(text: str, times: list[float] | None = None) -> dict[str, Any]:
    """One trick from ``"S:AS W:3S,3S N:4S E:5S"`` (seat:cards, cards comma-separated)."""
    plays = []
    for i, part in enumerate(text.split()):
        seat, cards = part.split(":")
        play: dict[str, Any] = {"seat": seat, "cards": cards.split(",")}
        if times is not None:
            play["t"] = times[i]
        plays.append(play)
    return {"plays": plays}


def record(
    tricks: list[str] | list[dict[str, Any]],
    *,
    rules: str = "XX",
    declarer: str = "S",
    trump: str = "H",
    levels: dict[str, str] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    return {
        "format": "chaodipi-hand/1",
        "rules": rules,
        "levels": levels or {"NS": "2", "EW": "2"},
        "declarer": declarer,
        "trump": trump,
        "tricks": [trick(t) if isinstance(t, str) else t for t in tricks],
        **extra,
    }


def run(tricks: list[str] | list[dict[str, Any]], **kw: Any) -> AuditReport:
    return audit(load_record(record(tricks, **kw)))


def kinds(report: AuditReport) -> list[tuple[str, str, int | None]]:
    return [(i.kind, i.seat, i.trick) for i in report.infractions]


def all_cards(record: dict[str, Any]) -> list[str]:
    """The kitty and every card played, in record order."""
    cards = list(record["kitty"])
    for trick in record["tricks"]:
        for play in trick["plays"]:
            cards += play["cards"]
    return cards


def top_down_config(size: int, table_id: str = "table-1") -> TableConfig:
    """A table config calibrated for a ``size``-px square frame that *is* the 90 cm table seen
    straight from above (no markers needed: the frame's corners are the table's)."""
    k = 90.0 / size
    cal = Calibration(
        homography=((k, 0.0, 0.0), (0.0, k, 0.0), (0.0, 0.0, 1.0)),
        image_size=(size, size),
        table_size_cm=(90.0, 90.0),
        points_px=((0, 0), (size, 0), (size, size), (0, size)),
        when="test",
        method="manual",
    )
    return TableConfig(table_id=table_id, calibration=cal)
