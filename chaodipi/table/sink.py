"""Where camera events enter the log: clock conversion, restart de-duplication, snapshots.

This module owns :class:`CameraSink`, the one path from the camera (the table pipeline, or the
feed standing in for it) to the event store:

* **Times.** Camera times (``t_landed``, ``t_stable``, ``t``) are on the source's clock (a
  monotonic clock for a live camera, the position in a recording). With ``clock_offset`` the
  sink adds it (``time.time() - frame.t`` at the first frame) so the log holds Unix times.
* **No doubles after a restart.** A restarted pipeline starts with an empty tracker and reports
  again the cards still lying on the table. A ``play`` whose seat already has a play with the
  same cards in the trick still on the table (logged, not yet cleared), and a ``kitty`` equal to
  the one logged for this hand, are dropped. (A seat really playing the same cards twice in one
  trick is impossible in a legal hand; a third copy would be a misread anyway.) A play that was
  held in the pipeline's reordering buffer when the service died was never logged, and is seen
  and logged again if the cards are still there.
* **Derived conflicts are not logged.** ``third_copy``, ``seat_played_twice``,
  ``count_mismatch``, ``incomplete_trick`` and ``deck_census`` are what
  :class:`vision.game_feed.GameFeed` derives from plays; the fold derives them per hand itself,
  so the pipeline's copies (from a feed that knows nothing of hands or corrections) are dropped.
  The tracker's own conflicts are logged.
* **Snapshots.** When a play makes a trick's fourth, ``picture`` (if given) is asked for a JPEG
  of the frame that showed it; it is saved with :class:`chaodipi.table.evidence.Evidence` and a
  ``snapshot {hand, trick, path}`` event follows.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from chaodipi.table.evidence import Evidence
from chaodipi.table.live import LiveTable

log = logging.getLogger(__name__)

DERIVED_CONFLICTS = frozenset(
    {"third_copy", "seat_played_twice", "count_mismatch", "incomplete_trick", "deck_census"}
)
TIME_KEYS = ("t_landed", "t_stable", "t")
Picture = Callable[[Mapping[str, Any]], bytes | None]


class CameraSink:
    """Camera events → the store (see the module docstring)."""

    def __init__(
        self,
        live: LiveTable,
        *,
        evidence: Evidence | None = None,
        picture: Picture | None = None,
        clock_offset: float = 0.0,
    ) -> None:
        self.live = live
        self.evidence = evidence
        self.picture = picture
        self.clock_offset = clock_offset
        self.dropped = 0

    def from_pipeline(self, line: Mapping[str, Any]) -> int | None:
        """A pipeline event line (``{"seq", "type", …}``, as ``TablePipeline`` emits it)."""
        body = {k: v for k, v in line.items() if k not in ("seq", "type")}
        return self.emit(str(line["type"]), body)

    def emit(self, kind: str, data: Mapping[str, Any]) -> int | None:
        """Log one camera event; returns its seq, or None when it was dropped."""
        body = dict(data)
        if kind == "recognition_conflict" and body.get("kind") in DERIVED_CONFLICTS:
            return None
        if self.clock_offset:
            for key in TIME_KEYS:
                if isinstance(body.get(key), int | float):
                    body[key] = body[key] + self.clock_offset
        with self.live.locked() as state:
            hand = state.hand
            on_table = hand.open_trick_plays()
            if self._repeat(kind, body, on_table, hand.feed.record.get("kitty")):
                self.dropped += 1
                log.info("dropped a repeat of a logged %s (restart): %s", kind, body)
                return None
            seats = {p["seat"] for p in on_table}
            complete = kind == "play" and len(seats) == 3 and body.get("seat") not in seats
            number, trick = hand.number, hand.camera_trick_number()
            seq = self.live.append(kind, body, "camera")
            protected = state.protected_evidence() if complete and self.evidence else set()
        if complete:
            self._snapshot(body, number, trick, protected)
        return seq

    @staticmethod
    def _repeat(
        kind: str, body: Mapping[str, Any], on_table: list[dict[str, Any]], kitty: Any
    ) -> bool:
        if kind == "kitty":
            return kitty is not None and Counter(kitty) == Counter(body.get("cards", ()))
        if kind != "play":
            return False
        cards = Counter(body.get("cards", ()))
        seat = body.get("seat")
        return any(p["seat"] == seat and Counter(p["cards"]) == cards for p in on_table)

    def _snapshot(self, play: Mapping[str, Any], hand: int, trick: int, keep: set[str]) -> None:
        if self.picture is None or self.evidence is None:
            return
        jpeg = self.picture(play)
        if jpeg is None:
            return
        path = self.evidence.save(jpeg, hand, trick, current_hand=hand, protected=keep)
        if path is not None:
            self.live.append("snapshot", {"hand": hand, "trick": trick, "path": path}, "system")

    def health(
        self,
        fps: float | None,
        last_frame_age_s: float | None,
        cpu_temp_c: float | None,
        frames_ended_t: float | None = None,
    ) -> int:
        """Log a ``camera_health`` event (the caller keeps it to one per 5 s);
        ``frames_ended_t``: the last frame's time on the events' clock once a recording has
        played out (at a replay's speed that clock runs ahead of the wall clock)."""
        data: dict[str, Any] = {
            "fps": fps,
            "last_frame_age_s": last_frame_age_s,
            "cpu_temp_c": cpu_temp_c,
        }
        if frames_ended_t is not None:
            data["frames_ended_t"] = frames_ended_t
        return self.live.append("camera_health", data, "camera")
