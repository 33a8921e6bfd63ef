"""Keeping a live camera running: reconnect with backoff, stall watchdog, event reports.

This module owns failure handling for frame sources. ``ResilientSource`` wraps a factory of
sources; when a read fails, a live source ends, or no frame arrives for ``stall_timeout_s``,
it drops the source, waits 1, 2, 4 … ``max_backoff_s`` seconds, builds a fresh source and
carries on. Every step is reported as a ``SourceEvent`` (in ``events`` and to ``on_event``)
and logged; the caller never sees an exception unless ``max_retries`` is set and exhausted.

Reads run on a helper thread when ``stall_timeout_s`` is set, so a camera that hangs inside
its driver cannot hang the caller. A hung read is abandoned, never interrupted: its source is
closed by the helper thread if the read ever returns.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from device.source import Frame, FrameSource, SourceError

log = logging.getLogger(__name__)

EventKind = Literal["disconnected", "reconnected", "stalled", "gave_up"]
#: How many events ``ResilientSource.events`` keeps (the oldest are dropped).
MAX_EVENTS = 1000


@dataclass(frozen=True)
class SourceEvent:
    """Something that happened to a source: when (``t``, on the source's clock) and what.

    ``attempt`` counts consecutive failures (1 for the first); ``wait_s`` is the backoff
    before the next attempt (0 for ``reconnected`` and ``gave_up``).
    """

    kind: EventKind
    t: float
    detail: str
    attempt: int = 0
    wait_s: float = 0.0


class _Stalled(Exception):
    """A read did not return within the stall timeout."""


class _Reader:
    """Runs one source's reads on a daemon thread so a hung read can be abandoned."""

    def __init__(self, source: FrameSource) -> None:
        self.source = source
        self._requests: queue.Queue[bool] = queue.Queue()
        self._results: queue.Queue[tuple[Frame | None, Exception | None]] = queue.Queue()
        self._lock = threading.Lock()
        self._busy = False
        self._abandoned = False
        name = f"frame-reader {source.describe()}"
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def _run(self) -> None:
        while self._requests.get():
            result: tuple[Frame | None, Exception | None]
            try:
                result = (self.source.read(), None)
            except Exception as exc:
                result = (None, exc)
            with self._lock:
                self._busy = False
                abandoned = self._abandoned
                if not abandoned:
                    self._results.put(result)
            if abandoned:
                _close_quietly(self.source)
                return

    def read(self, timeout_s: float) -> Frame | None:
        with self._lock:
            self._busy = True
        self._requests.put(True)
        try:
            frame, exc = self._results.get(timeout=timeout_s)
        except queue.Empty:
            with self._lock:
                if self._busy:
                    self._abandoned = True
                    raise _Stalled from None
            frame, exc = self._results.get_nowait()  # it finished right at the deadline
        if exc is not None:
            raise exc
        return frame

    def release(self) -> bool:
        """End the thread; True if a read is still in flight and the thread closes the source."""
        with self._lock:
            if self._busy:
                self._abandoned = True
                return True
        self._requests.put(False)
        return False


def _close_quietly(source: FrameSource) -> None:
    try:
        source.close()
    except Exception as exc:  # a broken camera may fail to close too; nothing more to do
        log.debug("closing %s failed: %s", source.describe(), exc)


class ResilientSource(FrameSource):
    """A live source that survives disconnects and stalls by reopening with backoff.

    ``factory`` builds a fresh, unopened source (e.g. ``lambda: open_source("0")``); it is
    called once by ``open()``, whose failure is raised (a wrong spec fails fast), and again
    for every reconnect attempt. Frames keep counting across reconnects. A finite source that
    ends normally ends this one too. ``clock`` stamps events and ``sleep`` waits out the
    backoff; tests inject fakes. ``close()`` from another thread interrupts a backoff wait.
    """

    def __init__(
        self,
        factory: Callable[[], FrameSource],
        *,
        initial_backoff_s: float = 1.0,
        max_backoff_s: float = 30.0,
        stall_timeout_s: float | None = 10.0,
        max_retries: int | None = None,
        on_event: Callable[[SourceEvent], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], object] | None = None,
    ) -> None:
        self._factory = factory
        self.initial_backoff_s = initial_backoff_s
        self.max_backoff_s = max_backoff_s
        self.stall_timeout_s = stall_timeout_s
        self.max_retries = max_retries
        self.on_event = on_event
        self.events: list[SourceEvent] = []
        self._clock = clock
        self._wake = threading.Event()
        self._sleep: Callable[[float], object] = sleep or self._wake.wait
        self._source: FrameSource | None = None
        self._reader: _Reader | None = None
        self._name = "camera source"
        self._failures = 0
        self._down_since: float | None = None
        self._count = 0
        self._opened = False
        self._closed = False

    def describe(self) -> str:
        return f"resilient {self._name}"

    def open(self) -> None:
        if self._opened:
            return
        self._closed = False
        self._wake.clear()
        self._connect(self._factory())
        self._opened = True

    def _connect(self, source: FrameSource) -> None:
        try:
            source.open()
        except Exception:
            _close_quietly(source)
            raise
        self._source = source
        self._name = source.describe()
        self.live = source.live
        if self.stall_timeout_s is not None:
            self._reader = _Reader(source)

    def _drop(self) -> None:
        source, reader = self._source, self._reader
        self._source = self._reader = None
        if reader is not None and reader.release():
            return  # a hung read: the reader thread closes the source if it ever returns
        if source is not None:
            _close_quietly(source)

    def _emit(self, kind: EventKind, detail: str, *, wait_s: float = 0.0) -> None:
        event = SourceEvent(kind, self._clock(), detail, self._failures, wait_s)
        self.events.append(event)
        del self.events[:-MAX_EVENTS]
        level = logging.INFO if kind == "reconnected" else logging.WARNING
        log.log(level, "%s %s: %s", self._name, kind, detail)
        if self.on_event is not None:
            self.on_event(event)

    def _fail(self, kind: EventKind, detail: str) -> None:
        """Record a failure, give up or wait out the backoff; the caller then reconnects."""
        self._failures += 1
        if self._down_since is None:
            self._down_since = self._clock()
        if self.max_retries is not None and self._failures > self.max_retries:
            self._emit(kind, detail)
            self._emit("gave_up", f"{self.max_retries} reconnect attempts failed")
            raise SourceError(
                f"{self._name}: gave up after {self.max_retries} reconnect attempts ({detail})"
            )
        wait_s = min(self.initial_backoff_s * 2 ** (self._failures - 1), self.max_backoff_s)
        self._emit(kind, f"{detail}; retrying in {wait_s:g} s", wait_s=wait_s)
        self._sleep(wait_s)

    def _read_once(self) -> Frame | None:
        if self._reader is not None and self.stall_timeout_s is not None:
            return self._reader.read(self.stall_timeout_s)
        assert self._source is not None
        return self._source.read()

    def read(self) -> Frame | None:
        if not self._opened and not self._closed:
            raise SourceError(f"{self.describe()} is not open")
        while not self._closed:
            if self._source is None:
                try:
                    self._connect(self._factory())
                except Exception as exc:
                    self._fail("disconnected", f"reopen failed: {exc}")
                    continue
            try:
                frame = self._read_once()
            except _Stalled:
                self._drop()
                if not self._closed:
                    self._fail("stalled", f"no frame for {self.stall_timeout_s:g} s")
                continue
            except Exception as exc:
                self._drop()
                if not self._closed:
                    self._fail("disconnected", str(exc) or type(exc).__name__)
                continue
            if frame is None:
                if not self.live:
                    return None
                self._drop()
                self._fail("disconnected", "the source ended")
                continue
            if self._failures:
                down_s = self._clock() - (self._down_since or 0.0)
                self._emit("reconnected", f"frames again after {down_s:.1f} s")
                self._failures = 0
                self._down_since = None
            frame = dataclasses.replace(frame, index=self._count)
            self._count += 1
            return frame
        return None

    def close(self) -> None:
        self._closed = True
        self._opened = False
        self._wake.set()
        self._drop()
