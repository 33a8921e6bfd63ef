"""The camera side of the table service: frames → :class:`~chaodipi.table.pipeline.TablePipeline` →
the camera sink, with trick pictures and camera health.

This module owns :class:`CameraLoop`. It reads a source (a live camera wrapped in
:class:`device.ResilientSource`, which reconnects with backoff; a file or folder plays to its
end), sets the sink's clock offset at the first frame (camera times become Unix times), keeps a
small ring of recent frames (one every 0.25 s for 3 s, scaled to at most 1280 px wide) so the
sink can save the frame that showed a trick's fourth play as evidence, and reports
``camera_health`` every 5 s from its own thread (so a camera that hangs still shows its growing
frame age). The contract of the hand in play is given to the pipeline when it starts; the
pipeline's own game feed only serves its conflict checks, which the sink leaves to the fold.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from chaodipi.config import TableConfig
from chaodipi.table.sink import CameraSink
from device import Frame, FrameSource, ResilientSource, open_source

log = logging.getLogger(__name__)

HEALTH_EVERY_S = 5.0
RING_EVERY_S = 0.25
RING_SIZE = 12
SNAPSHOT_WIDTH = 1280


def cpu_temp_c() -> float | None:
    """The SoC temperature where Linux reports it (a Raspberry Pi does), else None."""
    try:
        return round(int(Path("/sys/class/thermal/thermal_zone0/temp").read_text()) / 1000, 1)
    except (OSError, ValueError):
        return None


class FrameRing:
    """Recent frames, sampled, for trick pictures."""

    def __init__(self) -> None:
        self._frames: deque[tuple[int, float, np.ndarray]] = deque(maxlen=RING_SIZE)
        self._lock = threading.Lock()

    def add(self, frame: Frame) -> None:
        with self._lock:
            if self._frames and frame.t - self._frames[-1][1] < RING_EVERY_S:
                return
        image = frame.image
        h, w = image.shape[:2]
        if w > SNAPSHOT_WIDTH:
            image = cv2.resize(image, (SNAPSHOT_WIDTH, round(h * SNAPSHOT_WIDTH / w)))
        else:
            image = image.copy()
        with self._lock:
            self._frames.append((frame.index, frame.t, image))

    def jpeg(self, play: Mapping[str, Any]) -> bytes | None:
        """The frame that accepted ``play`` (by index), else the newest one, as JPEG."""
        frames = play.get("frames") or {}
        wanted = str(frames.get("stable", ""))
        with self._lock:
            if not self._frames:
                return None
            pick = next((f for f in self._frames if str(f[0]) == wanted), None)
            chosen = pick if pick is not None else self._frames[-1]
        ok, data = cv2.imencode(".jpg", chosen[2], [cv2.IMWRITE_JPEG_QUALITY, 80])
        return bytes(data) if ok else None


class CameraLoop:
    """Runs the pipeline over a source into a sink (see the module docstring)."""

    def __init__(
        self,
        config: TableConfig,
        spec: str,
        sink: CameraSink,
        detector: Any,
        contract: Mapping[str, Any],
    ) -> None:
        from chaodipi.table.pipeline import TablePipeline

        self.spec = spec
        self.sink = sink
        self.ring = FrameRing()
        sink.picture = self.ring.jpeg
        self.pipeline = TablePipeline(
            config, detector, contract=contract, on_event=sink.from_pipeline
        )
        self.error: str | None = None
        self._frames: deque[float] = deque(maxlen=600)
        self._last_frame: float | None = None
        self._frames_ended_t: float | None = None

    def _source(self) -> FrameSource:
        source = open_source(self.spec)
        if source.live:
            return ResilientSource(lambda: open_source(self.spec))
        return source

    def run(self, stop: threading.Event) -> None:
        health = threading.Thread(target=self._health, args=(stop,), daemon=True, name="health")
        health.start()
        source = self._source()
        last_t: float | None = None
        try:
            source.open()
            while not stop.is_set():
                frame = source.read()
                if frame is None:
                    log.info("source %s ended", self.spec)
                    if last_t is not None:
                        self._frames_ended_t = last_t + self.sink.clock_offset
                    break
                last_t = frame.t
                now = time.time()
                if not self.sink.clock_offset:
                    self.sink.clock_offset = now - frame.t
                self._last_frame = now
                self._frames.append(now)
                self.ring.add(frame)
                self.pipeline.process(frame)
        except Exception as e:  # the web stays up: the referee can still work without a camera
            self.error = f"camera stopped: {e}"
            log.error("%s", self.error)
        finally:
            try:
                self.pipeline.finish()
            finally:
                self.pipeline.close()
                source.close()

    def _health(self, stop: threading.Event) -> None:
        while not stop.wait(HEALTH_EVERY_S):
            now = time.time()
            recent = [t for t in self._frames if now - t <= HEALTH_EVERY_S]
            fps = round(len(recent) / HEALTH_EVERY_S, 2)
            age = None if self._last_frame is None else round(now - self._last_frame, 3)
            try:
                self.sink.health(fps, age, cpu_temp_c(), self._frames_ended_t)
            except Exception as e:  # the store is closing
                log.debug("health not logged: %s", e)
                return
