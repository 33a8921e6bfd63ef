"""``chaodipi run``: one table in one process — camera → pipeline → event log → web.

This module owns the table service's life. :class:`TableService` opens the table's log
(``<data_dir>/<table_id>.sqlite``), starts it with a ``hand_started`` when it is empty — or,
when it is not, *resumes*: the fold of the log is the state, the hand in play goes on — then
serves the web app (:class:`web_dashboard.server.WebServer`: uvicorn in front, live spectator
streams without a thread each, pages and the API in ``[service] web_threads`` threads, the
referee console in threads of its own) and runs the source in a thread: the camera pipeline
(:mod:`chaodipi.table.camera_loop`) or, with ``--feed``, recorded hands
(:mod:`chaodipi.table.feed`).

**No event twice after a restart.** Every camera event enters the log through
:class:`chaodipi.table.sink.CameraSink`. A restarted camera pipeline starts with an empty tracker
and
reports again the cards still on the table: the sink drops a play whose seat already shows the
same cards in the uncleared trick of the log (and a kitty equal to the logged one). The feed
resumes at the hand's count of logged camera events. Groups of events (next hand) are one
transaction. So a crash loses at most what was not yet appended — a play held in the
pipeline's 1.5 s reordering buffer, which the camera reports again if the cards still lie there —
and doubles nothing. ``tests/table/test_service.py`` kills the service at random points to show it.

**Stopping.** SIGTERM or SIGINT stops the source (the pipeline releases its held plays), then
the web server, then closes the log (checkpointed), and the process exits 0.

**Refusing to start.** A bad config, feed or log, a referee PIN that is too easy to guess
(:func:`chaodipi.config.check_referee_pin`: under six digits, one digit repeated, a run such
as 123456, the demo's) or a port already in use: one line naming the fix, exit status 2.
"""

from __future__ import annotations

import argparse
import errno
import logging
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

from chaodipi import sdnotify
from chaodipi.config import (
    ConfigError,
    TableConfig,
    check_referee_pin,
    default_config,
    load_config,
    port_number,
)
from chaodipi.table.actions import start_table
from chaodipi.table.evidence import Evidence
from chaodipi.table.feed import FeedError, FeedSource, contract_of, read_record
from chaodipi.table.live import LiveTable
from chaodipi.table.sink import CameraSink
from chaodipi.table.store import EventStore, StoreError
from chaodipi.table.table_state import default_contract
from vision.enrolment.deck_model import DECK_HELP, detector_for

log = logging.getLogger("chaodipi.table.service")


class ServiceError(ValueError):
    """The service cannot start; the message is one line naming the fix."""


class TableService:
    """One table: its log, its web server and its source (see the module docstring)."""

    def __init__(
        self,
        config: TableConfig,
        *,
        source: str | None = None,
        model: Path | None = None,
        feed: FeedSource | None = None,
        threads: int | None = None,
    ) -> None:
        self.config = config
        self.data_dir = Path(config.service.data_dir)
        self.store = EventStore(self.data_dir / f"{config.table_id}.sqlite")
        self.live = LiveTable(self.store, config.table_id, config.rules)
        self.evidence = Evidence(self.data_dir, config.service.evidence_cap_mb * 1024 * 1024)
        self.sink = CameraSink(self.live, evidence=self.evidence)
        self.feed = feed
        self.source = source if source is not None else config.source
        self.model = model
        self.threads = threads or config.service.web_threads
        self.stop_event = threading.Event()
        self._threads: list[threading.Thread] = []
        self._server: Any = None
        self._runner: Callable[[threading.Event], None] | None = None
        self.outbox: Any = None  # chaodipi.table.outbox.Outbox when the config has [mqtt]
        self._camera_loop: Any = None

    # ----- starting ----------------------------------------------------------------------
    def prepare(self) -> str:
        """Start or resume the log and build the source (its errors are raised here)."""
        if self.feed is not None:
            first = contract_of(self.feed.records[0])
        else:
            first = default_contract(self.config.rules)
        resumed = start_table(self.live, first) is None
        with self.live.locked() as state:
            hand, seq, contract = state.hand.number, state.seq, dict(state.hand.contract)
        if self.feed is not None:
            feed = self.feed
            self._runner = lambda stop: feed.run(self.live, self.sink, stop)
        else:
            self._camera_loop = self._camera(contract)
            self._runner = self._camera_loop.run
        what = "resumed" if resumed else "started"
        return f"{what} {self.store.path} at seq {seq}, hand {hand}"

    def _camera(self, contract: dict[str, Any]) -> Any:
        from chaodipi.table.camera_loop import CameraLoop
        from device import SourceError, open_source
        from vision.detector import CardDetector

        try:
            open_source(self.source)  # a bad spec fails before the model loads
        except SourceError as e:
            raise ServiceError(str(e)) from None
        model = self.model or Path(self.config.model)
        if not model.is_file():
            raise ServiceError(f"no detector model at {model}: give --model or set model =")
        return CameraLoop(self.config, self.source, self.sink, CardDetector(model), contract)

    def serve(self, bind: str, port: int) -> tuple[str, int]:
        """Start the web server and the source; returns the address served (``OSError`` when
        the port is taken, before anything starts)."""
        from web_dashboard.app import STREAM_PATH, create_app
        from web_dashboard.server import WebServer

        app = create_app(self.store, self.config, live=self.live)
        server = WebServer(
            app,
            {STREAM_PATH: self.live},
            threads=self.threads,
            trusted_proxies=self.config.web.trusted_proxies,
        )
        host, bound = server.start(bind, port)
        self._server = server
        assert self._runner is not None
        source = threading.Thread(target=self._runner, args=(self.stop_event,), name="source")
        source.start()
        self._threads = [source]
        if self.config.mqtt is not None:
            from chaodipi.table.outbox import Outbox

            health = lambda: self.live.public_json()["camera"]  # noqa: E731
            self.outbox = Outbox(self.store, self.config.table_id, self.config.mqtt, health=health)
            self.outbox.start()
        return host, bound

    def source_alive(self) -> bool:
        """Whether the source works: its thread runs, or it ended without a camera error (a
        finished file or feed). The systemd watchdog is pinged only then."""
        if not self._threads:
            return False
        loop_error = getattr(self._camera_loop, "error", None)
        return self._threads[0].is_alive() or loop_error is None

    # ----- stopping ----------------------------------------------------------------------
    def stop(self) -> None:
        """Stop the source, the web server and close the log (idempotent)."""
        self.stop_event.set()
        for th in self._threads[:1]:
            th.join(timeout=10)
        if self.outbox is not None:
            self.outbox.stop()
        self.store.close()  # live streams see it closed and end
        if self._server is not None:
            self._server.stop()


def build_service(args: argparse.Namespace) -> TableService:
    """The service the command line asks for."""
    config = load_config(args.config) if args.config else default_config()
    check_referee_pin(config.web.referee_pin, args.config)  # before the log is opened
    if args.data_dir:
        config = replace(config, service=replace(config.service, data_dir=str(args.data_dir)))
    feed = None
    if args.feed:
        records = [read_record(p) for p in args.feed]
        feed = FeedSource(records, speed=args.speed, epoch=args.epoch)
    model = detector_for(args.model, args.deck, "run")
    return TableService(config, source=args.source, model=model, feed=feed, threads=args.threads)


def cmd_run(args: argparse.Namespace) -> int:
    """Run ``chaodipi run`` until SIGTERM/SIGINT."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        service = build_service(args)
        message = service.prepare()
    except (ConfigError, FeedError, StoreError, ServiceError) as e:
        print(f"chaodipi run: {e}", file=sys.stderr)
        return 2
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    cfg = service.config.web
    bind, wanted = args.bind or cfg.bind, cfg.port if args.port is None else args.port
    try:
        host, port = service.serve(bind, wanted)
    except OSError as e:
        service.stop()
        print(f"chaodipi run: {port_problem(bind, wanted, e)}", file=sys.stderr)
        return 2
    if not service.config.web.referee_pin:
        warning = "no referee PIN set ([web] referee_pin): the console is locked"
        print(f"chaodipi run: {warning}", file=sys.stderr)
    print(f"chaodipi run: {message}; serving http://{host}:{port}", flush=True)
    watchdog = sdnotify.Watchdog()  # systemd's WatchdogSec=; a no-op outside systemd
    sdnotify.ready(f"serving http://{host}:{port}")
    while not stopping.wait(0.5):
        watchdog.tick(service.source_alive())
    sdnotify.stopping("closing the event log")
    service.stop()
    print("chaodipi run: stopped, log closed", flush=True)
    return 0


def port_problem(bind: str, port: int, error: OSError) -> str:
    """One line for a port the service cannot listen on, naming the fix."""
    if error.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {bind} is already in use (another chaodipi run?): stop what serves "
            "there, or give another --port (or [web] port)"
        )
    why = error.strerror or str(error)
    return f"cannot listen on {bind}:{port} ({why}): check [web] bind / --bind and --port"


def add_run_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``run`` to the CLI."""
    p: argparse.ArgumentParser = sub.add_parser(
        "run", help="run one table: camera → pipeline → event log → web (resumes its log)"
    )
    p.add_argument("--config", type=Path, metavar="table.toml", help="table config")
    p.add_argument("--source", help="camera override: picamera, webcam index, URL, video, folder")
    p.add_argument("--model", type=Path, help="detector ONNX (default: the config's)")
    p.add_argument("--deck", type=Path, metavar="DIR", help=DECK_HELP)
    p.add_argument(
        "--feed",
        type=Path,
        nargs="+",
        metavar="RECORD.json",
        help="play hand records as the camera instead (demos, tests)",
    )
    p.add_argument("--speed", type=float, default=1.0, help="feed pace × (default 1)")
    p.add_argument("--epoch", type=float, help="feed times from this Unix time (default: start)")
    p.add_argument("--data-dir", type=Path, help="override [service] data_dir")
    p.add_argument("--bind", help="override [web] bind")
    p.add_argument("--port", type=port_number, help="override [web] port (0: any free port)")
    p.add_argument("--threads", type=int, help="override [service] web_threads")
    p.set_defaults(func=cmd_run)
    return p
