"""The one camera interface: ``Frame`` and the ``FrameSource`` every source implements.

This module owns the contract between capture and ``vision``. A source is opened, yields
``Frame`` objects (a BGR image, a monotonic timestamp in seconds, a running index and the
source's description) until a finite source runs out (``read()`` returns ``None``), and is
closed. Live sources (cameras, streams) never return ``None``: losing the camera raises
``SourceError``, which ``device.resilient.ResilientSource`` turns into a reconnect.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Self

import numpy as np


class SourceError(RuntimeError):
    """A camera source could not be opened or read; the message is one line for the operator."""


@dataclass(frozen=True, eq=False)
class Frame:
    """One captured image.

    ``image`` is an ``H×W×3`` ``uint8`` array in OpenCV's BGR order. ``t`` is in seconds on a
    monotonic clock: ``time.monotonic()`` for live sources, the position in the recording for
    files and folders (so replays are deterministic). ``index`` counts frames from 0 since the
    source was opened; ``source`` is the source's ``describe()``.
    """

    image: np.ndarray
    t: float
    index: int
    source: str


class FrameSource(ABC):
    """A camera or recording that yields ``Frame`` objects.

    Use it as a context manager and iterate it::

        with open_source("0") as source:
            for frame in source:
                ...

    ``open()`` is idempotent. Iterating stops when ``read()`` returns ``None``.
    """

    #: True for cameras and streams (no natural end), False for files and folders.
    live: bool = False

    @abstractmethod
    def open(self) -> None:
        """Acquire the device or file; raise ``SourceError`` if that is impossible."""

    @abstractmethod
    def read(self) -> Frame | None:
        """The next frame; ``None`` at the end of a finite source. Raises ``SourceError``."""

    @abstractmethod
    def close(self) -> None:
        """Release the device or file; safe to call twice or on a source never opened."""

    @abstractmethod
    def describe(self) -> str:
        """A short human-readable name, e.g. ``webcam 0 (1280×720)``."""

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"
