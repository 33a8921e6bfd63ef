"""Camera sources: where the frames for ``vision`` come from.

This package owns frame capture behind one interface, ``FrameSource``, which yields ``Frame``
objects (a BGR image and a monotonic timestamp): the Raspberry Pi camera through Picamera2
(imported lazily, only on the Pi, via the ``pi`` extra; ``picamera_source``), OpenCV sources
for USB webcams, RTSP/HTTP streams and video files (``opencv_source``), folders of images
with their recorded times and the writer for them (``folder_source``), and ``resilient``,
which reconnects a stalled or disconnected camera with backoff and reports it instead of
crashing. ``open_source`` turns a command-line or config spec into a source. Data flows
device → vision → engine: this package imports neither of them, nor Flask.
"""

from __future__ import annotations

import re
from pathlib import Path

from device.folder_source import FolderSource, write_frame_folder
from device.opencv_source import OpenCVSource, is_stream_url
from device.picamera_source import PicameraSource
from device.resilient import ResilientSource, SourceEvent
from device.source import Frame, FrameSource, SourceError

__all__ = [
    "FolderSource",
    "Frame",
    "FrameSource",
    "OpenCVSource",
    "PicameraSource",
    "ResilientSource",
    "SourceError",
    "SourceEvent",
    "open_source",
    "write_frame_folder",
]

SPEC_FORMS = (
    "'picamera', 'picamera:WxH', a webcam index such as '0', an rtsp:// or http(s):// URL, "
    "an image folder or a video file"
)


def open_source(spec: str) -> FrameSource:
    """The (not yet opened) source a spec names; see ``SPEC_FORMS``.

    ``picamera`` (its full sensor, 4608 × 2592) or ``picamera:2304x1296`` is the Pi camera,
    digits a webcam index, an ``rtsp://``/``http(s)://`` URL a network stream, an existing
    directory a frame folder and an existing file a video file. Anything else raises a
    one-line ``SourceError``.
    """
    text = spec.strip()
    lowered = text.lower()
    if lowered == "picamera":
        return PicameraSource()
    if lowered.startswith("picamera:"):
        match = re.fullmatch(r"(\d+)[x×](\d+)", lowered.removeprefix("picamera:"))
        if match is None or 0 in (int(match[1]), int(match[2])):
            raise SourceError(f"bad camera size in {spec!r}: expected picamera:WxH")
        return PicameraSource(int(match[1]), int(match[2]))
    if text.isdigit():
        return OpenCVSource(int(text))
    if is_stream_url(text):
        return OpenCVSource(text)
    path = Path(text).expanduser()
    if text and path.is_dir():
        return FolderSource(path)
    if text and path.is_file():
        return OpenCVSource(path)
    raise SourceError(f"unknown camera source {spec!r}: expected {SPEC_FORMS}")
