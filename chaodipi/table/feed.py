"""A deterministic stand-in for the camera: hand records played back as camera events.

This module owns ``chaodipi run --feed RECORD.json``: :func:`record_events` turns a hand record
into the events the camera pipeline would report for it (each trick's plays with landing
times, ``trick_cleared``, and the kitty shown at the end), and :class:`FeedSource` sends them,
at ``speed`` times the record's pace, through the same :class:`~chaodipi.table.sink.CameraSink` as
the pipeline's events. It is for demos without a camera and for the crash test.

Times: a play's ``t_landed`` is ``epoch + t`` (the record's ``t``), ``epoch`` defaulting to the
time the hand started in the log, so a replay of the same log gives the same events.

Resuming after a restart works like the camera: the source looks at the folded hand and goes on
from the first event not yet logged (the hand's ``camera_events``); before that it shows again
the plays still on the table, as a camera would see them, and the sink drops those repeats.
Several records are several hands: when one is played out the source moves the table to the
next hand (``next_hand`` as ``system``, see :func:`chaodipi.table.actions.advance_hand`), with the
next record's contract.

With ``report_end`` (the demo's clip), once the records are played out the source goes on as a
camera whose recording ended would: a ``camera_health`` report every :data:`HEALTH_EVERY_S`
with no frame rate, the time since its last event and ``frames_ended_t``, so the table knows the
footage ended (the seat clock stops there). ``run --feed`` leaves it off: its log holds exactly
the records' events (the crash and hub tests count them).
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from chaodipi.table.actions import advance_hand
from chaodipi.table.live import LiveTable
from chaodipi.table.sink import CameraSink

Camera = tuple[str, dict[str, Any]]

HEALTH_EVERY_S = 5.0


class FeedError(ValueError):
    """A feed record that cannot be played; the message is one line."""


def read_record(path: str | Path) -> dict[str, Any]:
    """A hand record JSON file, checked by the engine."""
    from engine.record import load_record, parse_record_text

    p = Path(path)
    try:
        data = parse_record_text(p.read_text(encoding="utf-8"), str(p))
        load_record(data)
    except OSError as e:
        raise FeedError(f"cannot read feed record {p}: {e.strerror}") from None
    except ValueError as e:
        raise FeedError(
            f"feed record {p} is not a hand record ({e}): fix or regenerate it"
        ) from None
    return dict(data)


def record_events(record: Mapping[str, Any], epoch: float = 0.0) -> list[tuple[float, Camera]]:
    """``(record time, (kind, data))`` of every camera event of a hand record, in order."""
    out: list[tuple[float, Camera]] = []
    t = 0.0
    frame = 0
    for trick in record.get("tricks", []):
        for play in trick["plays"]:
            t = float(play["t"]) if play.get("t") is not None else t + 2.0
            frame += 1
            data = {
                "seat": play["seat"],
                "cards": list(play["cards"]),
                "t_landed": epoch + t,
                "t_stable": epoch + t + 0.5,
                "frames": {"landed": str(frame), "stable": str(frame + 1)},
            }
            out.append((t, ("play", data)))
        t += 1.5
        frame += 2
        out.append((t, ("trick_cleared", {"t": epoch + t, "frame": str(frame)})))
    if record.get("kitty") is not None:
        t += 2.0
        out.append((t, ("kitty", {"cards": list(record["kitty"]), "t": epoch + t, "frame": ""})))
    return out


def contract_of(record: Mapping[str, Any]) -> dict[str, Any]:
    """The contract a record was played under, with its draw and bidding when it has them
    (``draw``, ``before_play``, ``dealer_by_rotation``: the dealer check needs all three)."""
    contract = {
        "rules": record["rules"],
        "rule_overrides": dict(record.get("rule_overrides") or {}),
        "levels": dict(record["levels"]),
        "declarer": record["declarer"],
        "trump": record["trump"],
    }
    for key in ("draw", "before_play", "dealer_by_rotation"):
        if record.get(key) is not None:
            contract[key] = copy.deepcopy(record[key])
    return contract


def on_table(events: Sequence[tuple[float, Camera]], done: int) -> list[Camera]:
    """The plays still on the table after the first ``done`` events (a camera restarting
    there would see them again)."""
    shown: list[Camera] = []
    for _, (kind, data) in events[:done]:
        if kind == "play":
            shown.append((kind, data))
        elif kind == "trick_cleared":
            shown = []
    return shown


class FeedSource:
    """Plays records through a sink (see the module docstring); :meth:`run` in a thread."""

    def __init__(
        self,
        records: Sequence[Mapping[str, Any]],
        *,
        speed: float = 1.0,
        epoch: float | None = None,
        max_gap_s: float = 2.0,
        health_every_s: float = HEALTH_EVERY_S,
        report_end: bool = False,
    ) -> None:
        if not records:
            raise FeedError("give at least one feed record")
        if not speed > 0:
            raise FeedError(f"--speed must be > 0 (got {speed}): e.g. 10 for ten times faster")
        self.records = list(records)
        self.speed = speed
        self.epoch = epoch
        self.max_gap_s = max_gap_s
        self.health_every_s = health_every_s
        self.report_end = report_end
        self.done = threading.Event()

    def events(self, index: int, epoch: float) -> list[tuple[float, Camera]]:
        """The camera events of hand ``index`` (a subclass may take them from elsewhere)."""
        return record_events(self.records[index], epoch)

    def run(self, live: LiveTable, sink: CameraSink, stop: threading.Event) -> None:
        """Send every event not yet logged, hand after hand, until done or ``stop``."""
        shown_again = False
        while not stop.is_set():
            with live.locked() as state:
                hand = state.hand
                index = hand.number - state.hands[0].number
                done = hand.camera_events
                epoch = self.epoch if self.epoch is not None else hand.started_t
            if index >= len(self.records):
                break
            events = self.events(index, epoch)
            if not shown_again:  # a restart: the camera sees what still lies on the table
                for kind, data in on_table(events, done):
                    sink.emit(kind, data)
                shown_again = True
            previous = events[done - 1][0] if done else 0.0
            for t, (kind, data) in events[done:]:
                if stop.wait(min(self.max_gap_s, max(0.0, t - previous)) / self.speed):
                    return
                previous = t
                sink.emit(kind, data)
            if index + 1 < len(self.records):
                advance_hand(live, "system", contract_of(self.records[index + 1]))
            else:
                break
        self.done.set()
        if self.report_end:
            self._report_ended(sink, stop)

    def _report_ended(self, sink: CameraSink, stop: threading.Event) -> None:
        with sink.live.locked() as state:
            hand = state.hand
            epoch = self.epoch if self.epoch is not None else hand.started_t
            index = min(hand.number - state.hands[0].number, len(self.records) - 1)
        events = self.events(index, epoch)
        ended_t = epoch + events[-1][0] if events else None
        ended = time.time()
        while not stop.wait(self.health_every_s):
            sink.health(0.0, round(time.time() - ended, 1), None, ended_t)
