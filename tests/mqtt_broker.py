"""A real Mosquitto broker for tests: started on a free port with a config in a temp folder,
stoppable and restartable on the same port (an outage), optionally with password file, ACL and
TLS, or with a whole config of the caller's (``config=``, e.g. the shipped one with its paths
and ports replaced). Tests that need it skip with the reason when ``mosquitto`` is not
installed."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

from tests.waiting import DEADLINE_S

MOSQUITTO = shutil.which("mosquitto") or (
    "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
)
SKIP_REASON = "the hub tests need Mosquitto (apt-get install mosquitto; .ci/run installs it)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    """One mosquitto process; ``extra`` lines go into its config after the listener, or
    ``config`` is the whole config (listening on ``port``, which the caller then gives)."""

    def __init__(
        self, folder: Path, extra: str = "", port: int | None = None, config: str | None = None
    ) -> None:
        assert MOSQUITTO is not None
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.conf = folder / "mosquitto.conf"
        user = "user root\n" if os.geteuid() == 0 else ""
        logging = (
            f"log_dest file {folder / 'mosquitto.log'}\n"
            "log_type error\nlog_type warning\nlog_type notice\n"
        )
        if config is None:
            config = (
                f"listener {self.port} 127.0.0.1\n"
                f"{extra or 'allow_anonymous true'}\n"
                "persistence false\n"
                "max_queued_messages 100000\n"
                "max_inflight_messages 100\n"
            )
        self.conf.write_text(user + logging + config, encoding="utf-8")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = DEADLINE_S) -> None:
        self.proc = subprocess.Popen(
            [str(MOSQUITTO), "-c", str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                log = (self.folder / "mosquitto.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"mosquitto exited {self.proc.returncode}: {log}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on {self.port}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
