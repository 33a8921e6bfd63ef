"""The Raspberry Pi camera through Picamera2 (imported lazily, only when opened).

This module owns the Pi camera: its default resolution, its configuration and frame capture.
``picamera2`` comes with Raspberry Pi OS (``sudo apt install python3-picamera2``) or the ``pi``
extra; it is imported inside ``open()``, so the rest of ``device`` works anywhere.

Default resolution: 4608×2592, the Camera Module 3's full sensor (the 2×2-binned 2304×1296
mode is the alternative, with the trade-off below).

The Camera Module 3 (Sony IMX708, standard lens) has a 4608×2592 sensor (1.4 µm pixels) and
a field of view of 66° horizontally and 41° vertically. Looking straight down from a height
``h`` onto a table parallel to the sensor, the scale is the same everywhere in the image::

    footprint width  = 2·h·tan(33°)   = 1.2988·h   → 1.948 m at h = 1.5 m
    footprint height = 2·h·tan(20.5°) = 0.7478·h   → 1.122 m at h = 1.5 m

    at 2304×1296:  2304 / 1948 mm = 1.18 px/mm,  1296 / 1122 mm = 1.155 px/mm (the smaller)
    at 4608×2592:  twice that, 2.31 px/mm

A card index (rank and suit in the corner) is 18–20 mm tall, so at h = 1.5 m it is
18 × 1.155 = 20.8 px to 20 × 1.155 = 23.1 px high at 2304×1296 and 41.6–46.2 px at full
resolution. The binned mode keeps an 18 mm index at ≥ 20 px up to h = 18 × 1296 / (20 ×
0.7478) mm = 1.56 m, but the *rank* is then about 12 px tall and a "10" is two strokes 5 px
wide: a condensed "10" reads as Q, a small ♠ as ♣. Rendered hands of the held-out deck read
better at full resolution (``models/README.md``, "Metrics": the binned mode misreads condensed
"10"s that the full sensor reads), with the full sensor's own noise and softness drawn (no 2×2 sum:
``vision.synth.render_scene.Photometric``). So the service asks for the full sensor. It costs 42.3
ms of work a decision here where the binned mode costs 39.7 (68 % and 64 % of the Pi 5's
budget, ``bench/pipeline_bench.py --tricks 2``: warping from a bigger frame, the motion gate's
first shrink), 36 MB a frame instead of 9 MB (one copy a frame out of Picamera2's buffer), and a
read-out of at most 14 fps (the service decides 4 times a second). The binned mode,
``picamera:2304x1296``, is still there for a Pi that cannot keep up, with a deck whose indices
are large and plain.

Frames come from a continuous video stream (``create_video_configuration``) in the
``RGB888`` format, which Picamera2 delivers as ``[B, G, R]`` bytes: OpenCV's order. Each is
stamped with the request's ``SensorTimestamp`` (nanoseconds on ``CLOCK_MONOTONIC``, the clock
behind ``time.monotonic()``) when the camera reports one, else with ``time.monotonic()``.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from device.source import Frame, FrameSource, SourceError

DEFAULT_SIZE = (4608, 2592)
MISSING_MESSAGE = (
    "picamera2 is not installed: on the Pi run `pip install -e '.[pi]'` "
    "(or `sudo apt install python3-picamera2`)"
)


class PicameraSource(FrameSource):
    """A Raspberry Pi camera (``camera_num`` 0 by default) at ``width``×``height``.

    ``fps`` caps the frame rate (and with it the longest exposure); ``focus_m``, for cameras
    with a focus motor such as the Camera Module 3, fixes the focus at that distance in metres
    (a fixed overhead mount needs no autofocus hunting while hands move); ``controls`` are
    passed to Picamera2 as they are, e.g. ``{"AfMode": 2}`` for continuous autofocus.
    """

    live = True

    def __init__(
        self,
        width: int = DEFAULT_SIZE[0],
        height: int = DEFAULT_SIZE[1],
        *,
        fps: float | None = 15.0,
        focus_m: float | None = None,
        camera_num: int = 0,
        controls: Mapping[str, Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if width <= 0 or height <= 0:
            raise ValueError(f"bad camera size {width}x{height}")
        self.size = (width, height)
        self.fps = fps
        self.focus_m = focus_m
        self.camera_num = camera_num
        self.controls = dict(controls or {})
        self._clock = clock
        self._camera: Any = None
        self._index = 0

    def describe(self) -> str:
        return f"Pi camera {self.camera_num} ({self.size[0]}×{self.size[1]})"

    def _camera_controls(self, camera: Any) -> dict[str, Any]:
        controls: dict[str, Any] = {}
        if self.fps:
            frame_us = round(1_000_000 / self.fps)
            controls["FrameDurationLimits"] = (frame_us, frame_us)
        supported = getattr(camera, "camera_controls", None) or {}
        if self.focus_m and "LensPosition" in supported:
            controls["AfMode"] = 0  # manual
            controls["LensPosition"] = 1.0 / self.focus_m  # dioptres
        controls.update(self.controls)
        return controls

    def open(self) -> None:
        if self._camera is not None:
            return
        try:
            module = importlib.import_module("picamera2")
        except ImportError:
            raise SourceError(MISSING_MESSAGE) from None
        try:
            camera = module.Picamera2(self.camera_num)
        except Exception as exc:
            raise SourceError(f"cannot open {self.describe()}: {exc}") from exc
        try:
            config = camera.create_video_configuration(
                main={"size": self.size, "format": "RGB888"},
                controls=self._camera_controls(camera),
            )
            camera.configure(config)
            camera.start()
        except Exception as exc:
            camera.close()
            raise SourceError(f"cannot start {self.describe()}: {exc}") from exc
        self._camera = camera
        self._index = 0

    def _capture(self) -> tuple[np.ndarray, float]:
        camera = self._camera
        if hasattr(camera, "capture_request"):
            request = camera.capture_request()
            try:
                image = request.make_array("main")
                metadata = request.get_metadata() or {}
            finally:
                request.release()
            stamp = metadata.get("SensorTimestamp")
            t = stamp / 1e9 if isinstance(stamp, int) and stamp > 0 else self._clock()
            return image, t
        image = camera.capture_array("main")
        return image, self._clock()

    def read(self) -> Frame | None:
        if self._camera is None:
            raise SourceError(f"{self.describe()} is not open")
        try:
            image, t = self._capture()
        except Exception as exc:
            raise SourceError(f"no frame from {self.describe()}: {exc}") from exc
        if image.ndim == 3 and image.shape[2] == 4:  # a 4-channel (XRGB8888) buffer
            image = np.ascontiguousarray(image[:, :, :3])
        frame = Frame(image=image, t=t, index=self._index, source=self.describe())
        self._index += 1
        return frame

    def close(self) -> None:
        camera, self._camera = self._camera, None
        if camera is None:
            return
        try:
            camera.stop()
        finally:
            camera.close()
