"""OpenCV ``VideoCapture`` sources: USB webcams, RTSP/HTTP streams and video files.

This module owns everything that goes through ``cv2.VideoCapture``. Live sources (a webcam
index or a stream URL) stamp frames with ``time.monotonic()`` when they arrive and raise
``SourceError`` when the camera stops delivering. Video files are finite and stamp frames with
their own presentation times (``CAP_PROP_POS_MSEC``, else ``index / fps``), so replaying the
same file always gives the same timestamps.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import cv2

from device.source import Frame, FrameSource, SourceError

log = logging.getLogger(__name__)

#: URL schemes handed to OpenCV's FFmpeg backend as network streams.
STREAM_SCHEMES = ("rtsp://", "rtsps://", "rtmp://", "http://", "https://")
#: Frame rate assumed for a file that reports neither frame times nor a frame rate.
FALLBACK_FPS = 30.0


def is_stream_url(spec: str) -> bool:
    """Whether ``spec`` names a network stream OpenCV can open."""
    return spec.lower().startswith(STREAM_SCHEMES)


class OpenCVSource(FrameSource):
    """A webcam index (``0``), a stream URL (``rtsp://…``, ``http(s)://…``) or a video file.

    ``width``, ``height``, ``fps`` and ``fourcc`` (e.g. ``"MJPG"``, which lets most USB 2.0
    webcams deliver 1080p at full rate) are requested from live sources after opening; the
    camera may pick the nearest mode it supports, and ``describe()`` reports what it chose.
    ``timeout_s`` bounds opening and each read of a network stream. ``clock`` stamps live
    frames (``time.monotonic`` unless a test injects another).
    """

    def __init__(
        self,
        spec: int | str | Path,
        *,
        width: int | None = None,
        height: int | None = None,
        fps: float | None = None,
        fourcc: str | None = None,
        timeout_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if isinstance(spec, str) and spec.isdigit():
            spec = int(spec)
        self.spec: int | str | Path = spec
        if isinstance(spec, int):
            self.kind = "webcam"
        elif isinstance(spec, str) and is_stream_url(spec):
            self.kind = "stream"
        else:
            self.kind = "file"
        self.live = self.kind != "file"
        self.width = width
        self.height = height
        self.fps = fps
        self.fourcc = fourcc
        self.timeout_s = timeout_s
        self._clock = clock
        self._cap: cv2.VideoCapture | None = None
        self._index = 0
        self._last_t = -1.0
        self._file_fps = 0.0
        self._size: tuple[int, int] | None = None

    def describe(self) -> str:
        size = f" ({self._size[0]}×{self._size[1]})" if self._size else ""
        if self.kind == "webcam":
            return f"webcam {self.spec}{size}"
        if self.kind == "stream":
            return f"stream {self.spec}{size}"
        return f"video file {self.spec}{size}"

    def open(self) -> None:
        if self._cap is not None:
            return
        if self.kind == "file" and not Path(str(self.spec)).is_file():
            raise SourceError(f"video file not found: {self.spec}")
        cap = self._capture()
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cannot open {self.describe()}")
        if self.live:
            self._configure(cap)
        else:
            self._file_fps = float(cap.get(cv2.CAP_PROP_FPS)) or 0.0
        width = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH))
        height = int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
        self._size = (width, height) if width > 0 and height > 0 else None
        self._cap = cap
        self._index = 0
        self._last_t = -1.0
        log.info("opened %s", self.describe())

    def _capture(self) -> cv2.VideoCapture:
        if isinstance(self.spec, int):
            return cv2.VideoCapture(self.spec)
        if self.kind == "stream":
            ms = int(self.timeout_s * 1000)
            params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]
            return cv2.VideoCapture(str(self.spec), cv2.CAP_FFMPEG, params)
        return cv2.VideoCapture(str(self.spec))

    def _configure(self, cap: cv2.VideoCapture) -> None:
        if self.fourcc:
            cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter.fourcc(*self.fourcc[:4]))
        if self.width:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
        if self.height:
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        if self.fps:
            cap.set(cv2.CAP_PROP_FPS, self.fps)

    def read(self) -> Frame | None:
        if self._cap is None:
            raise SourceError(f"{self.describe()} is not open")
        ok, image = self._cap.read()
        if not ok or image is None:
            if self.live:
                raise SourceError(f"no frame from {self.describe()}")
            return None
        t = self._clock() if self.live else self._file_time()
        frame = Frame(image=image, t=t, index=self._index, source=self.describe())
        self._index += 1
        return frame

    def _file_time(self) -> float:
        """The frame's presentation time in seconds, rounded to the microsecond."""
        assert self._cap is not None
        t = float(self._cap.get(cv2.CAP_PROP_POS_MSEC)) / 1000.0
        if not (t > self._last_t or (self._index == 0 and t >= 0.0)):
            t = self._index / (self._file_fps if self._file_fps > 0 else FALLBACK_FPS)
        t = round(t, 6)
        self._last_t = t
        return t

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
