"""The table pipeline: camera frames → motion → top-down table → cards → zones → plays → audit.

This module owns the wiring of one table's vision into the engine, frame by frame
(:class:`TablePipeline`). Per frame:

1. *calibration*: with no calibration in the config, the corner markers are found in the first
   frames (``vision.calibration.calibrate``; a one-line :class:`PipelineError` when they stay
   hidden for ``calibrate_within_s``). Every ``drift_check_s`` a still frame is checked with
   ``check_drift``; markers that moved or vanished give one ``calibration_drift`` event (again
   only when the finding changes); the calibration itself is never changed silently.
2. *motion*: the :class:`vision.motion.MotionGate` reads every frame (downscaled, masked to the
   table and each zone, cheap).
3. *decision frames*, at most ``decision_fps`` a second. With a detector that looks at an
   image at its own scale (``reads_native``: the exported ONNX takes any input size) the zones
   are read one by one (``vision.zone_reads.ZoneReader``, ``zone_reads=None`` chooses): each
   zone's rectangle is warped top-down at ``px_per_cm`` (:data:`vision.zone_reads.PX_PER_CM`,
   12: the localiser needs about 10 to box a fanned card's 1.3 cm strip, and reads unseen decks
   better at 12; the whole reading region in one letterboxed pass gave it 6.4) and localised
   in one pass, each index read from the camera frame itself through the calibration's
   homography, and only zones whose thumbnail changed since their last read
   cost a pass (at most ``max_zone_reads`` a frame; the rest, and zones a hand covers, count as
   not seen this frame). With any other detector (test fakes) the part of the table the zones
   cover (``Zones.reading_region_cm``: 80 × 80 cm of the default 90 cm table) is warped
   top-down (``px_per_cm`` pixels a cm) and the detector decides its own tiling; a detector
   with a classifier (``reads_source``) reads each index from the camera frame.
   ``group_cards`` makes cards, card centres go to table cm and ``Zones.assign`` sorts them by
   seat, and
   ``PlayTracker.observe`` gets the cards (of a kitty read with more cards than a kitty holds
   and exactly as many of them surely, the sure ones: :func:`kitty_reading`) with the frame's
   motion state, per zone
   (``zone_motion``, default): a zone is blocked only while the gate finds motion covering
   ``zone_moving_fraction`` of it (a hand over it), not by motion elsewhere. Table-wide blocking
   leaves the tracker too few still frames for its consensus (3 frames over 0.6 s) between a
   trick's last play and the sweep (about 1.3 s in rendered hands, of which the gate needs about
   0.7 s to settle), so last plays and cleared tricks were never accepted. The tracker (unless
   one is given) accepts new cards after ``TRACKER_FRAMES`` (3) identical usable decision frames
   in a row, its ``settle_s`` set to span exactly those (0.5 s at 4 fps; its own default of 0.6
   s would ask for a fourth frame, and the empty table between a sweep and the next lead can
   last only 0.6–0.8 s). Frames where the whole table is occluded are never read. Frames that
   are merely *moving* are read by default: the tracker dates a landing from the first frame
   that shows the cards, even a moving one, and skipping them would date every play after the
   carrying hand has left and the motion settled (0.5–1 s late). ``skip_moving=True`` saves that
   CPU at the cost of timing.
   Cards read in no zone (a card dropped or shown on the table: ``ZoneReads.outside``, or the
   ``outside`` sightings of the whole-region read) go to the
   :class:`vision.tracking.ExposedCardWatcher`, which reports one lying still for 2 s as an
   ``exposed_card`` (read under :data:`vision.zone_reads.UNSURE_READ`: unsure, with its
   runner-up); the tracker reports a play lifted back before the sweep as a ``takeback``.
   In the draw phase — before the hand's first play, from the start and again after a hand's
   kitty was shown — the watcher reports the cards a seat shows instead as a ``declaration``
   (叫主 or 炒; the game feed lists it in ``before_play``). The draw phase's first play, one or
   two cards, is held until another seat plays; lifted before that, the next play tells it: its
   own seat's, a lead taken back; another seat's, a showing read inside its seat's play area,
   a declaration too (:mod:`chaodipi.table.bidding_lead`).
4. *events*: the tracker's plays are held ``reorder_s`` and released in landing order (two
   plays accepted out of order must not make an out-of-turn play), every event goes to the
   optional :class:`vision.events.EventLog`, to the optional ``on_event`` hook (the table
   service's :class:`chaodipi.table.sink.CameraSink`) and to the :class:`vision.game_feed.GameFeed`,
   whose recognition conflicts are logged too; :meth:`TablePipeline.audit` is the engine's
   audit of the hand so far.

The contract (rules, rule overrides, levels, declarer, trump) cannot be seen by the camera:
it comes from the caller (``contract``; ``chaodipi replay`` takes it from the ``record.json``
beside rendered footage, or from command-line flags), else the config's rules and the feed's
defaults. Per-stage wall time is accumulated in :attr:`TablePipeline.timings` for benchmarks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Protocol, cast

import cv2
import numpy as np

from chaodipi.config import TableConfig, default_config
from chaodipi.table.bidding_lead import BiddingLeadHold
from device.source import Frame
from engine.audit import AuditReport
from vision.calibration import (
    CalibrationError,
    calibrate,
    check_drift,
    to_image,
    top_down_view,
    warp_view,
)
from vision.crops import ReadingSource
from vision.events import Event, EventLog, KittyEvent, PlayEvent, RecognitionConflictEvent
from vision.game_feed import GameFeed
from vision.grouping import BoxLike, CardSighting, group_cards
from vision.motion import MOVING_FRACTION, OCCLUDED_FRACTION, MotionGate, MotionState
from vision.table_geometry import Calibration
from vision.tracking import KITTY_ZONE, ExposedCardWatcher, PlayTracker
from vision.zone_reads import MAX_READS, PX_PER_CM, UNSURE_READ, NativeDetector, ZoneReader
from vision.zones import OUTSIDE, Zones

STAGES: tuple[str, ...] = ("motion", "warp", "detect", "zones", "track")
"""Timed stages: motion gate (every frame), warp, detector, grouping + zones, tracker + feed."""
PI_DECISION_BUDGET_MS = 250.0  # a Raspberry Pi 5 deciding 4 times a second
PI_SLOWDOWN = 4.0  # one Pi 5 core ≈ 4× slower than one core of the development machine
TRACKER_FRAMES = 3
"""A zone's new cards are accepted after this many identical usable decision frames in a row
(the tracker's ``min_frames``; its ``settle_s`` is set to span exactly them: 0.5 s at 4 fps)."""
CONTRACT_KEYS: tuple[str, ...] = ("rules", "rule_overrides", "levels", "declarer", "trump")


class PipelineError(ValueError):
    """The pipeline cannot run on this input; the message is one line naming the fix."""


class Detector(Protocol):
    """What the pipeline needs of a detector (``vision.detector.CardDetector`` fits)."""

    def detect(self, image_bgr: np.ndarray) -> Sequence[BoxLike]: ...


class SourceReadingDetector(Protocol):
    """A detector that can read indices from a finer image (``CardDetector`` with a classifier
    says so in ``reads_source``)."""

    reads_source: bool

    def detect(
        self, image_bgr: np.ndarray, tiles: int | None = None, source: ReadingSource | None = None
    ) -> Sequence[BoxLike]: ...


@dataclass(frozen=True)
class DriftEvent:
    """The markers no longer lie where the calibration put them (or are back in place)."""

    ok: bool
    detail: str
    t: float
    moved: dict[int, float] = field(default_factory=dict)
    missing: tuple[int, ...] = ()

    type: ClassVar[str] = "calibration_drift"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "ok": self.ok,
            "detail": self.detail,
            "t": self.t,
            "moved": {str(k): v for k, v in self.moved.items()},
            "missing": list(self.missing),
        }


PipelineEvent = Event | DriftEvent


def contract_from_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a hand record the camera cannot see: rules, overrides, levels, declarer,
    trump (the keys present)."""
    return {k: record[k] for k in CONTRACT_KEYS if k in record}


@dataclass
class StageTimes:
    """Wall time spent per stage, the frames and decisions it covers (for the benchmark)."""

    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    calls: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAGES, 0))
    frames: int = 0
    decisions: int = 0
    footage_s: float = 0.0

    def add(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds
        self.calls[stage] = self.calls.get(stage, 0) + 1

    def merge(self, other: StageTimes) -> None:
        for k, v in other.seconds.items():
            self.seconds[k] = self.seconds.get(k, 0.0) + v
        for k, n in other.calls.items():
            self.calls[k] = self.calls.get(k, 0) + n
        self.frames += other.frames
        self.decisions += other.decisions
        self.footage_s += other.footage_s

    def to_json(self) -> dict[str, Any]:
        return {
            "seconds": {k: round(v, 6) for k, v in self.seconds.items()},
            "calls": dict(self.calls),
            "frames": self.frames,
            "decisions": self.decisions,
            "footage_s": round(self.footage_s, 3),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StageTimes:
        return cls(
            seconds={str(k): float(v) for k, v in data.get("seconds", {}).items()},
            calls={str(k): int(v) for k, v in data.get("calls", {}).items()},
            frames=int(data.get("frames", 0)),
            decisions=int(data.get("decisions", 0)),
            footage_s=float(data.get("footage_s", 0.0)),
        )

    def budget(
        self,
        decision_budget_ms: float = PI_DECISION_BUDGET_MS,
        slowdown: float = PI_SLOWDOWN,
    ) -> dict[str, Any]:
        """Per stage: ms per call, ms per decision (every stage's time over the decisions
        made, so the motion gate's frames between decisions are included) and its share of
        the Pi 5 decision budget (``decision_budget_ms / slowdown`` on this machine)."""
        host_budget = decision_budget_ms / slowdown
        decisions = max(1, self.decisions)
        rows: dict[str, Any] = {}
        total = 0.0
        for stage in self.seconds:
            s, n = self.seconds[stage], self.calls.get(stage, 0)
            per_decision = 1000 * s / decisions
            total += per_decision if stage in STAGES else 0.0
            rows[stage] = {
                "calls": n,
                "ms_per_call": round(1000 * s / n, 3) if n else None,
                "ms_per_decision": round(per_decision, 3),
                "budget_fraction": round(per_decision / host_budget, 4),
                "in_pipeline": stage in STAGES,
            }
        pipeline_s = sum(self.seconds.get(s, 0.0) for s in STAGES)
        return {
            "host_budget_ms": host_budget,
            "pi_budget_ms": decision_budget_ms,
            "pi_slowdown": slowdown,
            "stages": rows,
            "pipeline_ms_per_decision": round(total, 3),
            "pipeline_budget_fraction": round(total / host_budget, 4),
            "frames_per_s": round(self.frames / pipeline_s, 2) if pipeline_s else None,
            "decisions_per_s": round(self.decisions / pipeline_s, 2) if pipeline_s else None,
            "pi_decisions_per_s": (round(1000 / (total * slowdown), 2) if total > 0 else None),
        }


def budget_text(
    times: StageTimes, camera_fps: float | None = None, slowdown: float = PI_SLOWDOWN
) -> str:
    """The per-stage table of :meth:`StageTimes.budget` as text (a Pi 5 ``slowdown`` times
    slower than this core)."""
    b = times.budget(slowdown=slowdown)
    lines = [
        f"{times.frames} frames, {times.decisions} decisions"
        + (f" ({camera_fps:g} fps footage)" if camera_fps else "")
        + f"; budget {b['pi_budget_ms']:g} ms a decision on a Pi 5 ≈ "
        f"{b['host_budget_ms']:.1f} ms here ({b['pi_slowdown']:.3g}× slower Pi)",
        f"{'stage':<8} {'calls':>6} {'ms/call':>8} {'ms/decision':>12} {'of budget':>10}",
    ]
    for stage, row in b["stages"].items():
        per_call = "-" if row["ms_per_call"] is None else f"{row['ms_per_call']:.2f}"
        note = "" if row["in_pipeline"] else "  (replay only)" if stage == "decode" else "  (rare)"
        lines.append(
            f"{stage:<8} {row['calls']:>6} {per_call:>8} {row['ms_per_decision']:>12.2f} "
            f"{100 * row['budget_fraction']:>9.1f}%{note}"
        )
    lines.append(
        f"pipeline {b['pipeline_ms_per_decision']:.1f} ms a decision = "
        f"{100 * b['pipeline_budget_fraction']:.0f}% of the budget; "
        f"{b['frames_per_s']} frames/s, {b['decisions_per_s']} decisions/s on this core; "
        f"≈ {b['pi_decisions_per_s']} decisions/s on a Pi 5 (need ≥ 4)"
    )
    return "\n".join(lines)


def _with_unsure_reads(event: Event, by_zone: Mapping[str, Sequence[CardSighting]]) -> Event:
    """A play with its cards that this decision frame read under :data:`UNSURE_READ` (a card
    read twice counts its less sure read) or whose two corners it read as two cards (a sure
    corner does not outvote the other: ``CardSighting.also_read``), and what each may be
    instead (that read's runner-up); the kitty likewise, from the kitty zone's reads; any other
    event as it is."""
    if isinstance(event, KittyEvent):
        zone = KITTY_ZONE
    elif isinstance(event, PlayEvent):
        zone = event.seat
    else:
        return event
    read: dict[str, CardSighting] = {}
    for sighting in by_zone.get(zone, ()):
        known = read.get(sighting.identity)
        if known is None or _surer(known, sighting):
            read[sighting.identity] = sighting
    doubted = [
        read[card] for card in dict.fromkeys(event.cards) if card in read and _in_doubt(read[card])
    ]
    if not doubted:
        return event
    unsure = tuple((s.identity, round(s.confidence, 3)) for s in doubted)
    maybe = tuple((s.identity, s.runner_up) for s in doubted if s.runner_up)
    return replace(event, unsure=unsure, maybe=maybe)


def kitty_reading(read: Sequence[CardSighting], kitty_size: int) -> list[str]:
    """The kitty zone's cards as the tracker gets them: a kitty holds ``kitty_size`` cards, so
    where more are read and exactly that many of them surely, the reads in doubt are not
    cards of it (atlasnye's own pair read the left edge of a fanned kitty whole as a small
    joker at 0.78: nine cards, and the kitty was never judged)."""
    sure = [s.identity for s in read if not _in_doubt(s)]
    if len(read) > kitty_size and len(sure) == kitty_size:
        return sure
    return [s.identity for s in read]


def _in_doubt(sighting: CardSighting) -> bool:
    """Read under :data:`UNSURE_READ`, or its corners read as two cards."""
    return sighting.confidence < UNSURE_READ or bool(sighting.also_read)


def _surer(known: CardSighting, other: CardSighting) -> bool:
    """Whether ``known`` is the surer of two reads of one card: the less sure one speaks for
    both (a card in doubt before one sure of it, then the lower confidence)."""
    return (_in_doubt(other), -other.confidence) > (_in_doubt(known), -known.confidence)


def _poly_mask(poly_px: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    mask = np.zeros((h, w), np.uint8)
    if len(poly_px) >= 3:
        cv2.fillPoly(mask, [np.round(poly_px).astype(np.int32)], 255)
    return mask


class TablePipeline:
    """One table's frames in, events and the audit out (see the module docstring)."""

    def __init__(
        self,
        config: TableConfig | None,
        detector: Detector,
        *,
        decision_fps: float = 4.0,
        px_per_cm: float = PX_PER_CM,
        rules: str | None = None,
        contract: Mapping[str, Any] | None = None,
        event_log: str | Path | None = None,
        tracker: PlayTracker | None = None,
        skip_moving: bool = False,
        zone_motion: bool = True,
        zone_moving_fraction: float = OCCLUDED_FRACTION,
        zone_reads: bool | None = None,
        max_zone_reads: int = MAX_READS,
        reorder_s: float = 1.5,
        drift_check_s: float = 30.0,
        calibrate_within_s: float = 5.0,
        on_event: Callable[[dict[str, Any]], object] | None = None,
    ) -> None:
        if not decision_fps > 0:
            raise PipelineError(f"decision fps must be > 0 (got {decision_fps}): use e.g. 4")
        if not px_per_cm > 0:
            raise PipelineError(f"px_per_cm must be > 0 (got {px_per_cm}): use e.g. 10")
        self.config = config or default_config()
        self.detector = detector
        self.decision_fps = decision_fps
        self.px_per_cm = px_per_cm
        self.skip_moving = skip_moving
        self.zone_motion = zone_motion
        self.zone_moving_fraction = zone_moving_fraction
        self.reorder_s = reorder_s
        self.drift_check_s = drift_check_s
        self.calibrate_within_s = calibrate_within_s
        self.zones = Zones.from_config(self.config.table, self.config.zones)
        self.reading_region_cm = self.zones.reading_region_cm()
        if zone_reads is None:
            zone_reads = bool(getattr(detector, "reads_native", False))
        self.zone_reader = (
            ZoneReader(
                cast(NativeDetector, detector),
                self.zones,
                px_per_cm=px_per_cm,
                max_reads=max_zone_reads,
            )
            if zone_reads
            else None
        )
        self.tracker = tracker or PlayTracker(
            settle_s=(TRACKER_FRAMES - 1) / decision_fps, min_frames=TRACKER_FRAMES
        )
        self.exposed = ExposedCardWatcher(
            self.zones.width_cm,
            self.zones.height_cm,
            min_frames=TRACKER_FRAMES,
            unsure_below=UNSURE_READ,
        )
        self._draw_phase = True  # no play yet in this hand: cards shown are the bidding
        self._first_lead = BiddingLeadHold()
        terms = dict(contract or {})
        terms.setdefault("rules", rules or self.config.rules)
        if rules is not None:
            terms["rules"] = rules
        try:
            self.feed = GameFeed(
                str(terms["rules"]),
                terms.get("levels"),
                str(terms.get("declarer", "S")),
                str(terms.get("trump", "NT")),
                rule_overrides=terms.get("rule_overrides"),
            )
        except ValueError as e:  # RecordError: a bad contract
            raise PipelineError(f"bad contract: {e}") from None
        self.calibration: Calibration | None = self.config.calibration
        self.timings = StageTimes()
        self.events: list[dict[str, Any]] = []  # every event released, as JSON with seq
        self._log = EventLog(event_log) if event_log is not None else None
        self._on_event = on_event
        self._seq = 0
        self._gate: MotionGate | None = None
        self._next_decision: float | None = None
        self._next_drift: float | None = None
        self._drift_message: str | None = None
        self._first_t: float | None = None
        self._last_t: float | None = None
        self._pending: list[PlayEvent] = []

    # ----- public ------------------------------------------------------------------------
    def process(self, frame: Frame) -> list[PipelineEvent]:
        """Read one frame; returns the events released by it, in order."""
        t = frame.t
        if self._first_t is None:
            self._first_t = t
        self._last_t = t
        self.timings.frames += 1
        self.timings.footage_s = t - self._first_t
        out: list[PipelineEvent] = []
        if self._gate is None and not self._start(frame):
            return out
        assert self._gate is not None
        with self._timed("motion"):
            motion = self._gate.update(frame.image, t)
        out += self._check_drift(frame, motion)
        if self._due(t) and not motion.occluded and not (self.skip_moving and motion.moving):
            self._schedule_next(t)
            out += self._decide(frame, motion)
        out += self._release(t)
        return out

    def finish(self) -> list[PipelineEvent]:
        """Release every held play and tell the cards a seat is still showing in the draw
        phase (at the end of footage or when stopping: the rest of that showing cannot come)."""
        out = self._take(self._first_lead.release())
        out += self._release(None)
        if self._last_t is not None:
            # Outside the draw phase the watcher tells every open showing at once.
            out += self._take(self.exposed.observe(self._last_t, [], draw_phase=False))
        return out

    def close(self) -> None:
        """Close the event log (the pipeline's events stay in :attr:`events`)."""
        if self._log is not None:
            self._log.close()

    def audit(self) -> AuditReport:
        """The engine's audit of the hand as recovered so far."""
        return self.feed.audit()

    @property
    def record(self) -> dict[str, Any]:
        """The recovered hand record (``chaodipi-hand/1``)."""
        return self.feed.record

    # ----- setup ------------------------------------------------------------------------
    @contextmanager
    def _timed(self, stage: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings.add(stage, time.perf_counter() - start)

    def _start(self, frame: Frame) -> bool:
        """Calibrate (if needed) and build the motion gate; False while markers are hidden."""
        h, w = frame.image.shape[:2]
        if self.calibration is None:
            try:
                with self._timed("calibrate"):
                    self.calibration = calibrate(frame.image, self.config.table)
            except CalibrationError as e:
                assert self._first_t is not None
                if frame.t - self._first_t >= self.calibrate_within_s:
                    raise PipelineError(
                        f"no calibration after {self.calibrate_within_s:g} s of footage: {e}"
                    ) from None
                return False
        cal = self.calibration
        if tuple(cal.image_size) not in ((w, h), (0, 0)):
            cw, ch = cal.image_size
            raise PipelineError(
                f"frames are {w}x{h} but the calibration was made at {cw}x{ch}: set the camera "
                "to that size or run chaodipi calibrate again"
            )
        polys = self.zones.polygons_cm()
        masks = {
            name: _poly_mask(to_image(poly, cal), (w, h))
            for name, poly in polys.items()
            if name != "table"
        }
        table = _poly_mask(to_image(polys["table"], cal), (w, h))
        self._gate = MotionGate(table_mask=table, zones=masks)
        self._next_drift = frame.t + self.drift_check_s
        return True

    # ----- per frame --------------------------------------------------------------------
    def _due(self, t: float) -> bool:
        return self._next_decision is None or t >= self._next_decision - 1e-9

    def _schedule_next(self, t: float) -> None:
        step = 1.0 / self.decision_fps
        nxt = (t if self._next_decision is None else self._next_decision) + step
        self._next_decision = nxt if nxt > t else t + step

    def _check_drift(self, frame: Frame, motion: MotionState) -> list[PipelineEvent]:
        if self._next_drift is None or frame.t < self._next_drift or motion.moving:
            return []
        assert self.calibration is not None
        self._next_drift = frame.t + self.drift_check_s
        with self._timed("drift"):
            report = check_drift(frame.image, self.calibration, self.config.table)
        if report.ok and self._drift_message is None:
            return []
        message = report.message()
        if message == self._drift_message:
            return []
        self._drift_message = None if report.ok else message
        event = DriftEvent(report.ok, message, frame.t, dict(report.moved), tuple(report.missing))
        self._emit(event)
        return [event]

    def _decide(self, frame: Frame, motion: MotionState) -> list[PipelineEvent]:
        assert self.calibration is not None
        self.timings.decisions += 1
        if self.zone_reader is not None:
            return self._decide_by_zone(frame, motion)
        with self._timed("warp"):
            to_top, size = top_down_view(self.calibration, self.px_per_cm, self.reading_region_cm)
            top = warp_view(frame.image, to_top, size)
        with self._timed("detect"):
            if getattr(self.detector, "reads_source", False):
                # Localise on the top-down view, read each index from the camera frame itself.
                source = ReadingSource(frame.image, np.linalg.inv(to_top))
                reader = cast(SourceReadingDetector, self.detector)
                detections = reader.detect(top, source=source)
            else:
                detections = self.detector.detect(top)
        with self._timed("zones"):
            sightings = group_cards(detections)
            placed = [(s, self._centre_cm(s)) for s in sightings]
            by_zone = self.zones.assign(placed)
            outside = [(s, where) for s, where in placed if s in by_zone[OUTSIDE]]
        return self._observe(frame, by_zone, self._for_tracker(motion), outside)

    def _decide_by_zone(self, frame: Frame, motion: MotionState) -> list[PipelineEvent]:
        """A decision frame read zone by zone (``vision.zone_reads``): the zones a hand covers
        are not read, nor changed zones past the frame's read budget; neither counts as seen."""
        assert self.calibration is not None and self.zone_reader is not None
        for_tracker = self._for_tracker(motion)
        reads = self.zone_reader.read(
            frame.image,
            self.calibration,
            frame.t,
            skip=for_tracker.occluded_zones,
            timed=self._timed,
            still=self._still_zones(motion),
        )
        unseen = for_tracker.occluded_zones | set(reads.unread)
        motion = replace(for_tracker, occluded_zones=unseen)
        return self._observe(frame, reads.cards, motion, reads.outside, reads.glimpsed)

    def _observe(
        self,
        frame: Frame,
        by_zone: Mapping[str, Sequence[CardSighting]],
        motion: MotionState,
        outside: Sequence[tuple[CardSighting, tuple[float, float]]] = (),
        glimpsed: Sequence[str] = (),
    ) -> list[PipelineEvent]:
        """The tracker gets each seat's and the kitty zone's cards (and the zones where a card
        lay that no read named), the exposed-card watcher the cards in no zone; their events
        are taken."""
        seen = {zone: [s.identity for s in by_zone[zone]] for zone in self.tracker.seats}
        seen[KITTY_ZONE] = kitty_reading(by_zone[KITTY_ZONE], self.tracker.kitty_size)
        lying = [(s.identity, where, s.confidence, s.runner_up or None) for s, where in outside]
        with self._timed("track"):
            tracked = [
                _with_unsure_reads(e, by_zone)
                for e in self.tracker.observe(frame.t, seen, motion, str(frame.index), glimpsed)
            ]
            events = self._first_lead.sort(tracked, self._draw_phase)
            for e in events:
                if isinstance(e, (PlayEvent, KittyEvent)):
                    self._draw_phase = isinstance(e, KittyEvent)  # the kitty ends a hand
            events += self.exposed.observe(
                frame.t, lying, str(frame.index), draw_phase=self._draw_phase
            )
        return self._take(events)

    @staticmethod
    def _still_zones(motion: MotionState) -> set[str] | None:
        """Zones with no motion in them (None: the gate measured no zones, take all as still)."""
        if not motion.zone_fractions:
            return None
        return {z for z, f in motion.zone_fractions.items() if f <= MOVING_FRACTION}

    def _for_tracker(self, motion: MotionState) -> MotionState:
        """The motion the tracker sees: with ``zone_motion``, a zone is blocked only by motion
        inside it (a hand sweeping one trick away must not block reading the other zones);
        else any motion on the table blocks every zone."""
        if not self.zone_motion or motion.occluded:
            return motion
        busy = {z for z, f in motion.zone_fractions.items() if f > self.zone_moving_fraction}
        return replace(motion, moving=False, occluded_zones=motion.occluded_zones | busy)

    def _centre_cm(self, sighting: CardSighting) -> tuple[float, float]:
        """A card's centre in table cm: the mean of its corner boxes' centres."""
        x, y = sighting.centre
        x0, y0 = self.reading_region_cm[:2]
        return x0 + x / self.px_per_cm, y0 + y / self.px_per_cm

    # ----- events -----------------------------------------------------------------------
    def _take(self, events: Sequence[Event]) -> list[PipelineEvent]:
        """Hold plays for reordering (released in landing order); a non-play event first
        releases every held play. Events come in the tracker's order: a trick it clears
        before a new lead is cleared before that lead is taken."""
        out: list[PipelineEvent] = []
        for event in events:
            if isinstance(event, PlayEvent):
                self._pending.append(event)
            else:
                out += self._release(None)
                out += self._commit(event)
        return out

    def _release(self, now: float | None) -> list[PipelineEvent]:
        """Held plays due by ``now`` (all when None), with any that landed before them."""
        if not self._pending:
            return []
        self._pending.sort(key=lambda e: e.t_landed)
        due = [
            i
            for i, e in enumerate(self._pending)
            if now is None or now - e.t_stable >= self.reorder_s - 1e-9
        ]
        if not due:
            return []
        cut = due[-1] + 1
        ready, self._pending = self._pending[:cut], self._pending[cut:]
        out: list[PipelineEvent] = []
        for event in ready:
            out += self._commit(event)
        return out

    def _commit(self, event: Event) -> list[PipelineEvent]:
        self._emit(event)
        out: list[PipelineEvent] = [event]
        with self._timed("track"):
            conflicts: list[RecognitionConflictEvent] = self.feed.apply(event)
        for conflict in conflicts:
            self._emit(conflict)
            out.append(conflict)
        return out

    def _emit(self, event: PipelineEvent) -> None:
        if self._log is not None:
            line = self._log.append(event.to_json())
        else:
            self._seq += 1
            line = {"seq": self._seq, **event.to_json()}
        self.events.append(line)
        if self._on_event is not None:
            self._on_event(line)
