"""``chaodipi hub``: the hub's process — its replicas (:mod:`chaodipi.hub.hub`) and its pages
(:mod:`web_dashboard.hub_app`) served by :class:`web_dashboard.server.WebServer` (each table's
live stream at ``/t/<slug>/api/stream`` without a thread per spectator; the organisers' pages
in threads of their own) until SIGTERM/SIGINT, with systemd's readiness and watchdog. A bad
config, an organiser PIN too easy to guess or a port already in use: one line, exit status 2.
"""

from __future__ import annotations

import argparse
import errno
import logging
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from types import FrameType

from chaodipi import sdnotify
from chaodipi.config import pin_weakness, port_number
from chaodipi.hub.config import HubConfigError, load_hub_config
from chaodipi.hub.hub import Hub
from chaodipi.mqtt_link import LinkError
from chaodipi.table.store import StoreError
from web_dashboard.hub_app import ORGANISER_PREFIXES, create_hub_app, hub_streams
from web_dashboard.server import WebServer, bind_socket


def cmd_hub(args: argparse.Namespace) -> int:
    """Run ``chaodipi hub`` until SIGTERM/SIGINT."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        config = load_hub_config(args.config)
        if args.data_dir:
            config = replace(config, data_dir=str(args.data_dir))
        weak = pin_weakness(config.web.organiser_pin) if config.web.organiser_pin else None
        if weak is not None:
            raise HubConfigError(
                f"{args.config}: web.organiser_pin {weak}: choose 6–12 digits only the "
                "organisers know"
            )
    except (HubConfigError, LinkError, StoreError) as e:
        print(f"chaodipi hub: {e}", file=sys.stderr)
        return 2
    bind, port = args.bind or config.web.bind, config.web.port if args.port is None else args.port
    try:
        bind_socket(bind, port).close()  # a port in use fails here, before the hub starts
    except OSError as e:
        print(f"chaodipi hub: {port_problem(bind, port, e)}", file=sys.stderr)
        return 2
    try:
        hub = Hub(config)
    except (HubConfigError, LinkError, StoreError) as e:
        print(f"chaodipi hub: {e}", file=sys.stderr)
        return 2
    server = WebServer(
        create_hub_app(hub),
        hub_streams(hub),
        threads=config.web.threads,
        reserved_prefixes=ORGANISER_PREFIXES,
    )
    try:
        host, bound = server.start(bind, port)
    except OSError as e:
        hub.stop()
        print(f"chaodipi hub: {port_problem(bind, port, e)}", file=sys.stderr)
        return 2
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    hub.start()
    where = f"http://{host}:{bound}"
    print(
        f"chaodipi hub: {len(config.tables)} tables, broker {config.mqtt.host}:"
        f"{config.mqtt.port}, delay {config.broadcast_delay_s:g} s; serving {where}",
        flush=True,
    )
    watchdog = sdnotify.Watchdog()  # systemd's WatchdogSec=; a no-op outside systemd
    sdnotify.ready(f"serving {where}")
    while not stopping.wait(0.5):
        watchdog.tick(hub.alive())
    sdnotify.stopping("closing the hub's copies")
    hub.stop()
    server.stop()
    print("chaodipi hub: stopped", flush=True)
    return 0


def port_problem(bind: str, port: int, error: OSError) -> str:
    """One line for a port the hub cannot listen on, naming the fix."""
    if error.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {bind} is already in use (another chaodipi hub?): stop what serves "
            "there, or give another --port (or [web] port in hub.toml)"
        )
    why = error.strerror or str(error)
    return f"cannot listen on {bind}:{port} ({why}): check [web] bind / --bind and --port"


def add_hub_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``hub`` to the CLI."""
    p: argparse.ArgumentParser = sub.add_parser(
        "hub", help="the venue hub: every table's events via MQTT, spectator pages, bracket"
    )
    p.add_argument("--config", type=Path, default=Path("hub.toml"), metavar="hub.toml")
    p.add_argument("--data-dir", type=Path, help="override data_dir")
    p.add_argument("--bind", help="override [web] bind")
    p.add_argument("--port", type=port_number, help="override [web] port (0: any free port)")
    p.set_defaults(func=cmd_hub)
    return p
