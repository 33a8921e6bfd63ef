"""``chaodipi hub``: the hub's process — its replicas (:mod:`chaodipi.hub.hub`) and its pages
(:mod:`web_dashboard.hub_app`) served by waitress until SIGTERM/SIGINT, with systemd's
readiness and watchdog.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from types import FrameType

from waitress.server import create_server

from chaodipi import sdnotify
from chaodipi.hub.config import HubConfigError, load_hub_config
from chaodipi.hub.hub import Hub
from chaodipi.mqtt_link import LinkError
from chaodipi.table.store import StoreError
from web_dashboard.hub_app import create_hub_app


def cmd_hub(args: argparse.Namespace) -> int:
    """Run ``chaodipi hub`` until SIGTERM/SIGINT."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    try:
        config = load_hub_config(args.config)
        if args.data_dir:
            config = replace(config, data_dir=str(args.data_dir))
        hub = Hub(config)
    except (HubConfigError, LinkError, StoreError) as e:
        print(f"chaodipi hub: {e}", file=sys.stderr)
        return 2
    web = config.web
    server = create_server(
        create_hub_app(hub),
        host=args.bind or web.bind,
        port=web.port if args.port is None else args.port,
        threads=web.threads,
        connection_limit=web.threads + 64,
        channel_timeout=60,
        ident="chaodipi-hub",
    )
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    hub.start()
    threading.Thread(target=server.run, daemon=True, name="hub-web").start()
    where = f"http://{server.effective_host}:{server.effective_port}"
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
    server.task_dispatcher.shutdown(timeout=3)
    server.close()
    print("chaodipi hub: stopped", flush=True)
    return 0


def add_hub_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``hub`` to the CLI."""
    p: argparse.ArgumentParser = sub.add_parser(
        "hub", help="the venue hub: every table's events via MQTT, spectator pages, bracket"
    )
    p.add_argument("--config", type=Path, default=Path("hub.toml"), metavar="hub.toml")
    p.add_argument("--data-dir", type=Path, help="override data_dir")
    p.add_argument("--bind", help="override [web] bind")
    p.add_argument("--port", type=int, help="override [web] port (0: any free port)")
    p.set_defaults(func=cmd_hub)
    return p
