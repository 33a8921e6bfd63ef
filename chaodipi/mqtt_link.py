"""The MQTT link between the tables and the hub: settings, topic names, signed messages and a
connected paho client.

This module owns :class:`MqttConfig` (the ``[mqtt]`` section of a table's ``table.toml`` and of
the hub's ``hub.toml``, parsed by :func:`parse_mqtt` with one-line errors), the topic names
(:class:`Topics`, :func:`topic_slug`), the signature of a table's messages (:func:`sign`,
:func:`signature_problem`) and :func:`make_client`, which builds a paho-mqtt 2.x client with the
configured credentials (user name and a password read from a file), TLS (paho's ``tls_set``:
the venue CA, a client certificate and key), a last will and reconnection with backoff.

Topics, all under ``chaodipi/<tournament>/``, where ``<slug>`` is the table's topic slug:

* ``<slug>/events`` — the table's events, one JSON object a message (``seq t kind actor
  data``, the event log's row, and ``sig`` when the table signs), QoS 1, published by the
  table's outbox.
* ``<slug>/status`` — retained: ``{"online": true, "t", "last_seq", "acked", "health"}`` (and
  ``sig``); the last will (retained) is ``{"online": false}`` (signed too).
* ``<slug>/ack`` — retained, published by the hub after each commit: ``{"seq": n, "t",
  "resend": bool}``, ``n`` the highest seq the hub holds with no gap before it; ``resend``
  asks the table to send again everything after ``n`` (the hub came back, or saw a gap).
* ``_hub/status`` — retained: ``{"online": true|false, "t"}`` (the hub's last will is
  offline). No slug starts with ``_``.

**Table ids and topic slugs.** A table id is any name of 1–64 characters (``七号桌``,
``Table 7``) without control characters, ``/`` or ``\\``, or white space at either end; pages
show it as it is. A topic level, a broker user name and a URL want plain ASCII, so each id
maps to a *slug* (:func:`topic_slug`), stable across versions and machines:

* an id of 1–64 letters, digits, ``_ . -`` starting with a letter or digit (``T01``,
  ``table-7``) is its own slug — unless it ends like a hashed slug (below);
* any other id becomes ``<readable>--<hash>``: ``<readable>`` its ASCII letters and digits
  (accents dropped after NFKD; every other run of characters one ``-``; at most 40; ``t`` when
  nothing is left) and ``<hash>`` the first 10 hex digits of the SHA-256 of the id's UTF-8 in
  NFC: ``Table 7`` → ``Table-7--…``, ``七号桌`` → ``t--…``.

Every hashed slug ends with ``--`` and 10 hex digits and no own-slug does, so two ids share a
slug only if their hashes do; the hub refuses such a pair in hub.toml. Print a slug with
``python3 -c 'from chaodipi.mqtt_link import topic_slug; print(topic_slug("七号桌"))'``.

**Signing.** A table with ``[mqtt] hmac_key_file`` adds ``"sig"`` to every events and status
message: the HMAC-SHA256, in hex, with the key (the file's first line, as UTF-8), of the
canonical bytes of :func:`signed_bytes` — the JSON (keys sorted, no spaces, UTF-8, no ASCII
escapes) of ``{"v": 1, "tournament", "table": the id in NFC, "topic": "events" or "status",
"body": the message without "sig"}``. So a signature binds the table id, the seq and the
event's content, and a message cannot be replayed under another table, tournament or topic.
The hub checks it with the same key from its ``[table_keys]``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import ssl
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

log = logging.getLogger("chaodipi.mqtt_link")

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")
HASHED = re.compile(r".*--[0-9a-f]{10}")
HUB_SEGMENT = "_hub"
TABLE_ID_MAX = 64
MIN_KEY_CHARS = 16


class LinkError(ValueError):
    """A bad ``[mqtt]`` setting or topic name; the message is one line naming the fix."""


def check_name(what: str, value: str) -> str:
    """A tournament name usable as one topic level as it is (letters, digits, ``_ . -``)."""
    if not isinstance(value, str) or not NAME.fullmatch(value) or value == HUB_SEGMENT:
        raise LinkError(
            f"{what} {value!r} cannot name an MQTT topic level: use 1–64 letters, digits, "
            "'_', '.' or '-' (starting with a letter or digit)"
        )
    return value


def check_table_id(what: str, value: object) -> str:
    """A table id: any name of 1–64 characters without control characters, ``/`` or ``\\``,
    or white space at either end (its topic level is :func:`topic_slug`)."""
    ok = isinstance(value, str) and 1 <= len(value) <= TABLE_ID_MAX and value == value.strip()
    if ok and isinstance(value, str):
        ok = not any(c in "/\\" or unicodedata.category(c).startswith("C") for c in value)
    if not ok or not isinstance(value, str):
        raise LinkError(
            f"{what} {value!r} cannot name a table: use 1–{TABLE_ID_MAX} characters without "
            "'/', '\\', control characters or spaces at either end (e.g. \"T07\" or \"七号桌\")"
        )
    return value


def topic_slug(table_id: str) -> str:
    """The ASCII topic level (and broker user name) of a table id (see the module docstring)."""
    if NAME.fullmatch(table_id) and not HASHED.fullmatch(table_id):
        return table_id
    name = unicodedata.normalize("NFC", table_id)
    decomposed = unicodedata.normalize("NFKD", name)
    folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    readable = re.sub(r"[^A-Za-z0-9]+", "-", folded).strip("-")[:40].strip("-") or "t"
    return f"{readable}--{hashlib.sha256(name.encode('utf-8')).hexdigest()[:10]}"


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
    hmac_key_file: str = ""  # a table's signing key (the hub's are in its [table_keys])

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


def read_key(path: str | Path) -> bytes:
    """A signing key: the first line of ``path`` (at least 16 characters), as UTF-8."""
    fix = f"write a key of {MIN_KEY_CHARS}+ characters on its first line (openssl rand -hex 32)"
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        raise LinkError(f"cannot read the signing key {path}: {fix}") from None
    key = lines[0].strip() if lines else ""
    if len(key) < MIN_KEY_CHARS:
        raise LinkError(f"the signing key {path} is too short: {fix}")
    return key.encode("utf-8")


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
    for key in ("password_file", "ca_file", "cert_file", "key_file", "hmac_key_file"):
        if out[key] and not Path(out[key]).is_file():
            raise LinkError(f"{path}: mqtt.{key} {out[key]} does not exist: fix the path")
    if out["hmac_key_file"]:
        try:
            read_key(out["hmac_key_file"])
        except LinkError as e:
            raise LinkError(f"{path}: mqtt.hmac_key_file: {e}") from None
    if bool(out["cert_file"]) != bool(out["key_file"]):
        raise LinkError(f"{path}: mqtt.cert_file and mqtt.key_file go together: give both")
    if out["cert_file"] and not out["ca_file"]:
        raise LinkError(f"{path}: a client certificate needs TLS: set mqtt.ca_file too")
    if out["password_file"] and not out["username"]:
        raise LinkError(f"{path}: mqtt.password_file needs mqtt.username: set the user name")
    return MqttConfig(**out)


@dataclass(frozen=True)
class Topics:
    """The topic names of one tournament; ``table`` is a table id (its slug is the level)."""

    tournament: str

    @property
    def base(self) -> str:
        return f"chaodipi/{self.tournament}"

    def events(self, table: str) -> str:
        return f"{self.base}/{topic_slug(table)}/events"

    def status(self, table: str) -> str:
        return f"{self.base}/{topic_slug(table)}/status"

    def ack(self, table: str) -> str:
        return f"{self.base}/{topic_slug(table)}/ack"

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
        """``(slug, leaf)`` of a topic under this tournament, else None."""
        parts = topic.split("/")
        if len(parts) != 4 or parts[0] != "chaodipi" or parts[1] != self.tournament:
            return None
        return parts[2], parts[3]


def dumps(obj: Mapping[str, Any]) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def signed_bytes(tournament: str, table: str, topic: str, body: Mapping[str, Any]) -> bytes:
    """The canonical bytes a table signs for one message (see the module docstring)."""
    doc = {
        "v": 1,
        "tournament": tournament,
        "table": unicodedata.normalize("NFC", table),
        "topic": topic,
        "body": {k: v for k, v in body.items() if k != "sig"},
    }
    text = json.dumps(
        doc, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False
    )
    return text.encode("utf-8")


def sign(
    key: bytes, tournament: str, table: str, topic: str, body: Mapping[str, Any]
) -> dict[str, Any]:
    """``body`` with its ``sig``: HMAC-SHA256 of :func:`signed_bytes`, in hex."""
    mac = hmac.new(key, signed_bytes(tournament, table, topic, body), hashlib.sha256)
    return {**body, "sig": mac.hexdigest()}


def signature_problem(
    key: bytes, tournament: str, table: str, topic: str, body: Mapping[str, Any]
) -> str | None:
    """None when ``body`` carries the right signature, else why not (``unsigned`` or
    ``bad signature``)."""
    sig = body.get("sig")
    if not isinstance(sig, str) or not sig:
        return "unsigned"
    try:
        expected = sign(key, tournament, table, topic, body)["sig"]
    except (TypeError, ValueError):
        return "bad signature"
    same = hmac.compare_digest(expected.encode("ascii"), sig.encode("utf-8"))
    return None if same else "bad signature"


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

    refusals: set[str] = set()

    def connected(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            if str(reason) not in refusals:  # once per reason: paho retries every few seconds
                refusals.add(str(reason))
                log.warning(
                    "the broker %s:%s refused %s: %s (check [mqtt] username and password_file)",
                    cfg.host,
                    cfg.port,
                    client_id,
                    reason,
                )
        elif on_connect is not None:
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
