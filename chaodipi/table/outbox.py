"""The table's outbox: its own event log, streamed to the hub through the MQTT broker.

This module owns :class:`Outbox`, which ``chaodipi run`` starts when the table config has an
``[mqtt]`` section. The log (:mod:`chaodipi.table.store`) is the outbox: nothing is copied into a
queue that a crash could lose. A thread of its own reads the log after the last event sent and
publishes each event on ``chaodipi/<tournament>/<slug>/events`` (QoS 1, the row as JSON; the
slug is the table id's topic level, :func:`chaodipi.mqtt_link.topic_slug`), at most ``window``
events ahead of the hub's acknowledgement. With ``[mqtt] hmac_key_file`` every events and
status message carries ``sig``, its HMAC-SHA256 (:func:`chaodipi.mqtt_link.sign`): a hub that
holds the table's key stores nothing from this table without it. It never blocks the camera: it only
reads the log (its own SQLite connection) and paho's network loop runs in paho's thread.

**Where to resume.** The hub publishes, retained, on ``…/<table>/ack`` the highest seq it
holds with no gap before it. The outbox keeps that number (also on disk, in
``<data_dir>/<table>.outbox.json``, written at most once a second: a stale number only means
events sent twice, which the hub ignores) and sends again from it:

* after every (re)connection to the broker (a broker restart loses what was in flight);
* when the ack says ``resend`` (the hub came back, or saw a gap) or the hub's retained status
  turns from offline to online;
* when acks stop advancing while events are outstanding (``stall_s``, doubling up to a minute,
  so a missing hub is not flooded).

So an outage of any length loses nothing, and the hub applies each event once (it appends only
``seq`` = its last + 1). A retained ``…/<table>/status`` says ``online`` with the table's last
seq, the acked seq and its camera health (every ``status_every_s``); the broker publishes the
last will ``{"online": false}`` if the table vanishes, and :meth:`Outbox.stop` says so itself.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chaodipi.mqtt_link import (
    MqttConfig,
    Topics,
    check_table_id,
    dumps,
    make_client,
    read_key,
    sign,
    start,
    topic_slug,
)
from chaodipi.table.store import EventStore, StoredEvent

log = logging.getLogger("chaodipi.table.outbox")

Health = Callable[[], dict[str, Any]]


@dataclass(frozen=True)
class Signer:
    """Signs one table's messages with its key (no key: messages go unsigned)."""

    tournament: str
    table: str
    key: bytes | None = None

    def body(self, topic: str, body: dict[str, Any]) -> dict[str, Any]:
        if self.key is None:
            return body
        return sign(self.key, self.tournament, self.table, topic, body)


def event_payload(event: StoredEvent, signer: Signer | None = None) -> bytes:
    """The message of one event: the log's row as JSON (with ``sig`` when ``signer`` has a key)."""
    body = event.to_json()
    return dumps(body if signer is None else signer.body("events", body))


class Outbox:
    """Streams one table's log to the hub (see the module docstring)."""

    def __init__(
        self,
        store: EventStore,
        table: str,
        cfg: MqttConfig,
        *,
        health: Health | None = None,
        window: int = 500,
        stall_s: float = 5.0,
        status_every_s: float = 5.0,
    ) -> None:
        self.store = store
        self.table = check_table_id("table_id", table)
        self.cfg = cfg
        self.topics = Topics(cfg.tournament)
        key = read_key(cfg.hmac_key_file) if cfg.hmac_key_file else None
        self.signer = Signer(cfg.tournament, table, key)
        self.health = health
        self.window = window
        self.stall_s = stall_s
        self.status_every_s = status_every_s
        self.state_path = store.data_dir / f"{table}.outbox.json"
        self.acked = self._load_acked()
        self.sent = self.acked
        self.connected = False
        self.hub_online = True  # until its retained status says otherwise
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._progress_t = time.monotonic()
        self._stall_wait = stall_s
        self._saved_acked = self.acked
        self._saved_t = 0.0
        self._status_t = 0.0
        self.client = make_client(
            cfg,
            cfg.client_id or f"chaodipi-table-{cfg.tournament}-{topic_slug(table)}",
            will=(self.topics.status(table), self._status_payload({"online": False})),
            on_connect=self._on_connect,
            on_disconnect=self._on_disconnect,
            on_message=self._on_message,
        )

    # ----- the acked seq on disk -------------------------------------------------------------
    def _load_acked(self) -> int:
        try:
            acked = int(json.loads(self.state_path.read_text(encoding="utf-8"))["acked"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0
        return max(0, min(acked, self.store.last_seq))

    def _save_acked(self, force: bool = False) -> None:
        with self._lock:
            acked = self.acked
        now = time.monotonic()
        if acked == self._saved_acked or (not force and now - self._saved_t < 1.0):
            return
        tmp = self.state_path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps({"acked": acked}), encoding="utf-8")
            os.replace(tmp, self.state_path)
        except OSError as e:  # a full disk must not stop the stream
            log.warning("cannot keep the acked seq in %s: %s", self.state_path, e)
            return
        self._saved_acked, self._saved_t = acked, now

    # ----- paho callbacks (paho's thread) ------------------------------------------------------
    def _on_connect(self) -> None:
        self.client.subscribe([(self.topics.ack(self.table), 1), (self.topics.hub_status, 1)])
        with self._lock:
            self.connected = True
            self.sent = self.acked  # what was in flight may be lost: send it again
            self._progress_t = time.monotonic()
        self._status_t = 0.0
        log.info("connected to the broker %s:%s", self.cfg.host, self.cfg.port)
        self._wake.set()

    def _on_disconnect(self) -> None:
        with self._lock:
            was, self.connected = self.connected, False
        if was:
            log.warning("lost the broker; events wait in the log (acked seq %d)", self.acked)

    def _on_message(self, topic: str, payload: bytes) -> None:
        try:
            body = json.loads(payload)
        except ValueError:
            return
        if not isinstance(body, dict):
            return
        if topic == self.topics.hub_status:
            online = bool(body.get("online"))
            with self._lock:
                if online and not self.hub_online:
                    self.sent = self.acked
                self.hub_online = online
        elif topic == self.topics.ack(self.table):
            try:
                seq = int(body["seq"])
            except (KeyError, TypeError, ValueError):
                return
            seq = max(0, min(seq, self.store.last_seq))
            with self._lock:
                if seq > self.acked:
                    self._progress_t = time.monotonic()
                    self._stall_wait = self.stall_s
                self.acked = seq
                if body.get("resend") or seq > self.sent:
                    self.sent = seq
        self._wake.set()

    # ----- the sending thread ------------------------------------------------------------------
    def start(self) -> None:
        start(self.client, self.cfg)
        self._thread = threading.Thread(target=self._run, daemon=True, name="outbox")
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._step()
            except Exception:  # the stream must outlive any one bad moment
                log.exception("outbox step failed; retrying")
                self._stop.wait(1.0)

    def _step(self) -> None:
        self._save_acked()
        with self._lock:
            ready = self.connected and self.hub_online
            sent, acked = self.sent, self.acked
        if not ready:
            self._wake.clear()
            self._wake.wait(0.5)
            return
        now = time.monotonic()
        if now - self._status_t >= self.status_every_s:
            self._status_t = now
            self.publish_status()
        last = self.store.last_seq
        room = self.window - (sent - acked)
        if sent < last and room > 0:
            for event in self.store.events(since=sent, limit=min(room, 200)):
                with self._lock:
                    if not self.connected or self.sent != sent:
                        return  # reconnected or rewound meanwhile: start over from there
                    payload = event_payload(event, self.signer)
                    self.client.publish(self.topics.events(self.table), payload, qos=1)
                    self.sent = sent = event.seq
            return
        if acked < sent and now - self._progress_t > self._stall_wait:
            log.warning("no ack for %.0f s: sending again from seq %d", self._stall_wait, acked + 1)
            with self._lock:
                self.sent = self.acked
                self._progress_t = now
                self._stall_wait = min(self._stall_wait * 2, 60.0)
            return
        if acked >= sent:
            self._progress_t = now
        self._wake.clear()
        if sent >= last:
            self.store.wait(sent, 0.25)
        else:
            self._wake.wait(0.25)

    def publish_status(self) -> None:
        """The retained ``online`` status with the log's position and the camera's health."""
        health: dict[str, Any] = {}
        if self.health is not None:
            with contextlib.suppress(Exception):
                reported = self.health()
                json.dumps(reported, allow_nan=False)  # a signature needs plain JSON
                health = reported if isinstance(reported, dict) else {}
        body = {
            "online": True,
            "t": time.time(),
            "last_seq": self.store.last_seq,
            "acked": self.acked,
            "health": health,
        }
        payload = self._status_payload(body)
        self.client.publish(self.topics.status(self.table), payload, qos=1, retain=True)

    def _status_payload(self, body: dict[str, Any]) -> bytes:
        return dumps(self.signer.body("status", body))

    def stop(self, timeout: float = 3.0) -> None:
        """Stop sending, say ``offline`` (retained) and disconnect; keeps the acked seq."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=timeout)
        if self.connected:
            offline = self._status_payload({"online": False})
            info = self.client.publish(self.topics.status(self.table), offline, qos=1, retain=True)
            with contextlib.suppress(Exception):
                info.wait_for_publish(timeout)
        self.client.disconnect()
        self.client.loop_stop()
        self._save_acked(force=True)

    def wait_acked(self, seq: int, timeout: float) -> bool:
        """Wait until the hub acknowledged ``seq`` (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.acked >= seq:
                return True
            time.sleep(0.05)
        return self.acked >= seq
