"""systemd's notify protocol, in the standard library: ``READY=1``, ``WATCHDOG=1``, ``STATUS=…``.

This module owns the services' side of ``Type=notify`` and ``WatchdogSec=`` (see
``deploy/chaodipi-table.service``). :func:`notify` sends one datagram to the socket systemd
names in ``$NOTIFY_SOCKET`` (a path, or ``@name`` for an abstract socket) and does nothing
when it is unset — so the services run the same by hand, in tests and under systemd.

:class:`Watchdog` paces the ``WATCHDOG=1`` pings: systemd sets ``$WATCHDOG_USEC`` (and
``$WATCHDOG_PID``) from ``WatchdogSec=`` and kills and restarts a service that stays silent
that long; we ping at a third of it. A service calls :meth:`Watchdog.tick` from its main loop
with whether its work is alive (the table service: its camera loop), or, when its main loop
blocks elsewhere (the hub's network loop), starts :meth:`Watchdog.start_thread` with a
callable that says so. A dead worker means no pings, and systemd restarts the process.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping

log = logging.getLogger(__name__)


def _address(env: Mapping[str, str]) -> str | None:
    path = env.get("NOTIFY_SOCKET", "")
    if not path or not (path.startswith("/") or path.startswith("@")):
        return None  # unset, or a vsock address we do not speak
    return "\0" + path[1:] if path.startswith("@") else path


def notify(*states: str, env: Mapping[str, str] | None = None) -> bool:
    """Send ``KEY=value`` lines to systemd; True when sent, False when there is no socket."""
    address = _address(os.environ if env is None else env)
    if address is None or not states:
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall("\n".join(states).encode())
    except OSError as e:  # systemd gone or the socket not ours: never fatal
        log.warning("sd_notify to %s failed: %s", address.lstrip("\0"), e)
        return False
    return True


def ready(status: str = "") -> bool:
    """Tell systemd the service is up (``Type=notify`` units start only then)."""
    return notify("READY=1", *([f"STATUS={status}"] if status else []))


def stopping(status: str = "") -> bool:
    """Tell systemd the service is shutting down."""
    return notify("STOPPING=1", *([f"STATUS={status}"] if status else []))


def watchdog_interval(env: Mapping[str, str] | None = None) -> float | None:
    """Seconds between pings (a third of ``WatchdogSec=``), or None without a watchdog."""
    env = os.environ if env is None else env
    try:
        usec = int(env.get("WATCHDOG_USEC", "0"))
    except ValueError:
        return None
    pid = env.get("WATCHDOG_PID", "")
    if usec <= 0 or (pid and pid != str(os.getpid())):
        return None
    return usec / 1e6 / 3


class Watchdog:
    """Paced ``WATCHDOG=1`` pings (see the module docstring); a no-op without a watchdog."""

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.env = dict(os.environ if env is None else env)
        self.interval = watchdog_interval(self.env)
        self.clock = clock
        self.pings = 0
        self._last: float | None = None

    @property
    def enabled(self) -> bool:
        return self.interval is not None

    def tick(self, alive: bool = True) -> bool:
        """Ping if ``alive`` and a ping is due; True when one was sent."""
        if self.interval is None or not alive:
            return False
        now = self.clock()
        if self._last is not None and now - self._last < self.interval:
            return False
        if not notify("WATCHDOG=1", env=self.env):
            return False
        self._last = now
        self.pings += 1
        return True

    def start_thread(
        self, alive: Callable[[], bool], stop: threading.Event
    ) -> threading.Thread | None:
        """Ping from a daemon thread while ``alive()`` and until ``stop`` is set."""
        if self.interval is None:
            return None
        step = min(1.0, self.interval / 2)

        def run() -> None:
            while not stop.wait(step):
                self.tick(alive())

        thread = threading.Thread(target=run, daemon=True, name="sd-watchdog")
        thread.start()
        return thread
