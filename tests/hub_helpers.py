"""A hub for web tests: real replicas filled through the hub's own commit path (no broker), a
three-entrant bracket whose first match is decided at T2 after one hand (hand limit 1), and a
signing key for every table (as hub.toml's ``[table_keys]``)."""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Any

from chaodipi.hub.config import BracketConfig, HubConfig, HubWeb
from chaodipi.hub.hub import Hub
from chaodipi.mqtt_link import MqttConfig, topic_slug
from chaodipi.table.store import StoredEvent
from tests.table_helpers import hand, table

ORGANISER_PIN = "1357"


def key_file(folder: Path, table_id: str) -> Path:
    """A table's signing key, made once (``openssl rand -hex 32`` makes the real ones)."""
    path = folder / "keys" / f"{topic_slug(table_id)}.hmac"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32) + "\n", encoding="utf-8")
    return path


def make_hub(folder: Path, delay_s: float = 0.0, tables: tuple[str, ...] = ("T1", "T2")) -> Hub:
    bracket = BracketConfig(
        rules="XX",
        entrants=("红队", "蓝队", "绿队"),
        tables=(("T2",), ("T1",)),
        hand_limit=(1, 1),
    )
    config = HubConfig(
        tables=tables,
        data_dir=str(folder / "hub"),
        broadcast_delay_s=delay_s,
        mqtt=MqttConfig(host="127.0.0.1", port=1, tournament="spring"),
        web=HubWeb(organiser_pin=ORGANISER_PIN),
        bracket=bracket if {"T1", "T2"} <= set(tables) else None,
        table_keys={t: str(key_file(folder, t)) for t in tables},
    )
    return Hub(config)


def table_events(folder: Path, seed: int = 3, upto: int | None = None) -> list[StoredEvent]:
    """The log of a table that played (part of) a simulated hand."""
    live = table(folder, hand(seed), upto)
    events = live.store.events()
    live.store.close()
    return events


def deliver(hub: Hub, name: str, events: list[StoredEvent], **health: Any) -> None:
    """Hand events to the hub as if they came from the broker, and a camera report."""
    batch = [(name, ev, time.time()) for ev in events]
    if health:
        last = events[-1].seq if events else 0
        data = {"fps": 8.0, "last_frame_age_s": 0.1, "cpu_temp_c": 61.0, **health}
        batch.append((name, StoredEvent(last + 1, time.time(), "camera_health", "camera", data), 0))
    hub._commit([(t, ev, r or time.time()) for t, ev, r in batch])
