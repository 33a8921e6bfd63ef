"""Readable hand records for tests: tricks written as ``"S:AS W:3S N:4S E:5S"`` in table order."""

from __future__ import annotations

from typing import Any

from engine.audit import AuditReport, audit
from engine.record import load_record


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
