"""The MQTT link between the tables and the hub: settings, topics and a connected paho client.

This module owns :class:`MqttConfig` (the ``[mqtt]`` section of a table's ``table.toml`` and of
the hub's ``hub.toml``, parsed by :func:`parse_mqtt` with one-line errors), the topic names
(:class:`Topics`) and :func:`make_client`, which builds a paho-mqtt 2.x client with the
configured credentials (user name and a password read from a file), TLS (a CA, optionally a
client certificate and key), a last will and reconnection with backoff.

Topics, all under ``chaodipi/<tournament>/``:

* ``<table>/events`` — the table's events, one JSON object a message (``seq t kind actor
  data``, the event log's row), QoS 1, published by the table's outbox.
* ``<table>/status`` — retained: ``{"online": true, "t", "last_seq", "acked", "health"}``; the
  last will (retained) is ``{"online": false}``.
* ``<table>/ack`` — retained, published by the hub after each commit: ``{"seq": n, "t",
  "resend": bool}``, ``n`` the highest seq the hub holds with no gap before it; ``resend``
  asks the table to send again everything after ``n`` (the hub came back, or saw a gap).
* ``_hub/status`` — retained: ``{"online": true|false, "t"}`` (the hub's last will is
  offline). ``_hub`` cannot be a table id.
"""

from __future__ import annotations

import json
import re
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")
HUB_SEGMENT = "_hub"


class LinkError(ValueError):
    """A bad ``[mqtt]`` setting or topic name; the message is one line naming the fix."""


def check_name(what: str, value: str) -> str:
    """A tournament or table id usable as one topic level (letters, digits, ``_ . -``)."""
    if not isinstance(value, str) or not NAME.fullmatch(value) or value == HUB_SEGMENT:
        raise LinkError(
            f"{what} {value!r} cannot name an MQTT topic level: use 1–64 letters, digits, "
            "'_', '.' or '-' (starting with a letter or digit)"
        )
    return value


@dataclass(frozen=True)
class MqttConfig:
    """How to reach the broker. Empty strings mean "not used"."""

    host: str = "127.0.0.1"
    port: int = 1883
    tournament: str = "cup"
    username: str = ""
    password_file: str = ""
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""
    client_id: str = ""
    keepalive_s: int = 20

    @property
    def tls(self) -> bool:
        return bool(self.ca_file)

    def password(self) -> str | None:
        """The password (first line of ``password_file``), or None without one."""
        if not self.password_file:
            return None
        try:
            return Path(self.password_file).read_text(encoding="utf-8").splitlines()[0].strip()
        except (OSError, IndexError):
            raise LinkError(
                f"cannot read the MQTT password from {self.password_file}: "
                "write the password on its first line"
            ) from None


def parse_mqtt(path: Path, data: Mapping[str, Any]) -> MqttConfig:
    """A validated :class:`MqttConfig` from a parsed ``[mqtt]`` table (``path`` in errors)."""
    names = tuple(f.name for f in fields(MqttConfig))
    for key in data:
        if key not in names:
            raise LinkError(f"{path}: mqtt.{key} is not a known key: use one of {', '.join(names)}")
    d = MqttConfig()
    out: dict[str, Any] = {}
    for f in fields(MqttConfig):
        value = data.get(f.name, getattr(d, f.name))
        if isinstance(getattr(d, f.name), int):
            low, high = (1, 65535) if f.name == "port" else (5, 600)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise LinkError(
                    f"{path}: mqtt.{f.name} must be a whole number {low}–{high} (got {value!r}): "
                    f"write e.g. {f.name} = {getattr(d, f.name)}"
                )
        elif not isinstance(value, str):
            raise LinkError(f'{path}: mqtt.{f.name} must be a string: quote it, "…"')
        out[f.name] = value
    if not out["host"].strip():
        raise LinkError(f'{path}: mqtt.host is empty: write host = "hub.local" (the broker)')
    try:
        check_name("mqtt.tournament", out["tournament"])
    except LinkError as e:
        raise LinkError(f"{path}: {e}") from None
    for key in ("password_file", "ca_file", "cert_file", "key_file"):
        if out[key] and not Path(out[key]).is_file():
            raise LinkError(f"{path}: mqtt.{key} {out[key]} does not exist: fix the path")
    if bool(out["cert_file"]) != bool(out["key_file"]):
        raise LinkError(f"{path}: mqtt.cert_file and mqtt.key_file go together: give both")
    if out["cert_file"] and not out["ca_file"]:
        raise LinkError(f"{path}: a client certificate needs TLS: set mqtt.ca_file too")
    if out["password_file"] and not out["username"]:
        raise LinkError(f"{path}: mqtt.password_file needs mqtt.username: set the user name")
    return MqttConfig(**out)


@dataclass(frozen=True)
class Topics:
    """The topic names of one tournament."""

    tournament: str

    @property
    def base(self) -> str:
        return f"chaodipi/{self.tournament}"

    def events(self, table: str) -> str:
        return f"{self.base}/{table}/events"

    def status(self, table: str) -> str:
        return f"{self.base}/{table}/status"

    def ack(self, table: str) -> str:
        return f"{self.base}/{table}/ack"

    @property
    def hub_status(self) -> str:
        return f"{self.base}/{HUB_SEGMENT}/status"

    @property
    def all_events(self) -> str:
        return f"{self.base}/+/events"

    @property
    def all_status(self) -> str:
        return f"{self.base}/+/status"

    def table_of(self, topic: str) -> tuple[str, str] | None:
        """``(table, leaf)`` of a topic under this tournament, else None."""
        parts = topic.split("/")
        if len(parts) != 4 or parts[0] != "chaodipi" or parts[1] != self.tournament:
            return None
        return parts[2], parts[3]


def dumps(obj: Mapping[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def make_client(
    cfg: MqttConfig,
    client_id: str,
    *,
    will: tuple[str, bytes] | None = None,
    clean_session: bool = True,
    on_connect: Callable[[], None] | None = None,
    on_disconnect: Callable[[], None] | None = None,
    on_message: Callable[[str, bytes], None] | None = None,
) -> Any:
    """A paho-mqtt client set up from ``cfg`` (not yet connected; call ``connect_async`` and
    ``loop_start``). Reconnects by itself with a 1 → 10 s backoff; the callbacks are plain."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        clean_session=clean_session,
        protocol=mqtt.MQTTv311,
    )
    if cfg.username:
        client.username_pw_set(cfg.username, cfg.password())
    if cfg.tls:
        client.tls_set(
            ca_certs=cfg.ca_file,
            certfile=cfg.cert_file or None,
            keyfile=cfg.key_file or None,
            cert_reqs=ssl.CERT_REQUIRED,
            tls_version=ssl.PROTOCOL_TLS_CLIENT,
        )
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)
    client.reconnect_delay_set(min_delay=1, max_delay=10)
    client.max_inflight_messages_set(100)
    client.max_queued_messages_set(0)

    def connected(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if not reason.is_failure and on_connect is not None:
            on_connect()

    def disconnected(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if on_disconnect is not None:
            on_disconnect()

    def message(c: Any, userdata: Any, msg: Any) -> None:
        if on_message is not None:
            on_message(str(msg.topic), bytes(msg.payload))

    client.on_connect = connected
    client.on_disconnect = disconnected
    client.on_message = message
    return client


def start(client: Any, cfg: MqttConfig) -> None:
    """Connect in the background (retrying until the broker answers) and run the network loop
    in paho's own thread."""
    client.connect_async(cfg.host, cfg.port, keepalive=cfg.keepalive_s)
    client.loop_start()
