"""The venue's hub: every table's events in, two views of every table out.

This module owns :class:`Hub` (``chaodipi hub`` runs it: :mod:`chaodipi.hub.command`). It
subscribes (QoS 1, a persistent session) to
``chaodipi/<tournament>/+/events`` and ``…/+/status`` on the broker (``+`` a table's topic
slug, :func:`chaodipi.mqtt_link.topic_slug`), and:

* **checks** every message of a table whose key hub.toml lists (``[table_keys]``): without the
  table's signature (:func:`chaodipi.mqtt_link.signature_problem`) it is refused — counted in
  :attr:`Hub.stats`, kept aside (:mod:`chaodipi.hub.set_aside`) and shown to the organisers —
  and never stored as an event nor taken as the table's status;
* **stores** each table's events in its replica (:mod:`chaodipi.hub.store`, one SQLite log per
  table under the hub's data dir, exactly the table's rows). Messages go from paho's thread
  through a queue to one writer thread, which commits each table's share of a batch in one
  transaction and then publishes, retained, the table's ack (the highest seq held with no
  gap; ``resend`` when events wait behind a gap, at most every 2 s). On every (re)connection
  it says ``online`` on ``…/_hub/status`` (its last will says offline) and publishes every
  table's ack with ``resend``, so the tables send again whatever the broker or the hub lost.
  An event whose seq is held with other content is a conflict: the held copy stays, the other
  is kept aside and shown to the organisers;
* **rejects** events of a table not listed in hub.toml (logged once a minute per name, counted
  in :attr:`Hub.stats`) and messages that are not an event;
* **keeps** each table's retained status (online/offline, its last seq, health) and camera
  health, whether its own link to the broker is up (:attr:`Hub.link_down_since`: while it is
  down, every table's state is unknown since then), and two views of each table:
  :attr:`Hub.live` (the organisers') and :attr:`Hub.public`, the spectators',
  ``broadcast_delay_s`` behind (:class:`~chaodipi.hub.store.DelayedLog`);
* **answers** the overview and the bracket that its pages (:mod:`web_dashboard.hub_app`) show.
  Nothing on the hub changes a table.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chaodipi.hub.bracket_view import TableMatches, bracket_json
from chaodipi.hub.config import HubConfig
from chaodipi.hub.set_aside import SetAside
from chaodipi.hub.store import DelayedLog, Health, TableReplica
from chaodipi.mqtt_link import (
    HUB_SEGMENT,
    Topics,
    dumps,
    make_client,
    read_key,
    signature_problem,
    start,
    topic_slug,
)
from chaodipi.table.live import LiveTable
from chaodipi.table.store import StoredEvent, StoreError

log = logging.getLogger("chaodipi.hub.hub")

Listener = Callable[[str, list[StoredEvent], float], None]
GAP_ACK_EVERY_S = 2.0
BATCH_MAX = 5000


@dataclass
class HubStats:
    received: int = 0
    applied: int = 0
    duplicates: int = 0
    unknown_table: int = 0
    malformed: int = 0
    conflicts: int = 0  # events offered at a held seq with other content
    rejected: int = 0  # messages refused for want of the table's signature


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is too large")
    return value


def load_body(payload: bytes) -> dict[str, Any] | None:
    """A message's JSON object (strict JSON: finite numbers only), or None."""
    try:
        body = json.loads(payload, parse_constant=_no_constant, parse_float=_finite)
    except (ValueError, UnicodeDecodeError):
        return None
    return body if isinstance(body, dict) else None


def parse_event(body: Mapping[str, Any]) -> StoredEvent | None:
    """The event of an events message, or None when it is not one."""
    try:
        seq, t, kind, actor, data = (
            body["seq"],
            body["t"],
            body["kind"],
            body.get("actor"),
            body["data"],
        )
    except (KeyError, TypeError):
        return None
    ok = isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1
    ok = ok and isinstance(t, int | float) and isinstance(kind, str) and isinstance(data, dict)
    if not ok or not (actor is None or isinstance(actor, str)):
        return None
    return StoredEvent(seq, float(t), kind, actor, data)


def clock_offset(status: dict[str, Any]) -> float | None:
    """How far a table's clock is behind the hub's, from its last status (network delay
    included; None without one)."""
    sent, got = status.get("t"), status.get("received_t")
    if not isinstance(sent, int | float) or not isinstance(got, int | float):
        return None
    return round(got - sent, 2)


class Hub:
    """Every table's events in, acks out, views for the web (see the module docstring)."""

    def __init__(self, config: HubConfig) -> None:
        self.config = config
        self.topics = Topics(config.mqtt.tournament)
        self.data_dir = Path(config.data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.stats = HubStats()
        self.replicas: dict[str, TableReplica] = {}
        self.delayed: dict[str, DelayedLog] = {}
        self.live: dict[str, LiveTable] = {}
        self.public: dict[str, LiveTable] = {}
        self.health: dict[str, Health] = {}
        self.status: dict[str, dict[str, Any]] = {}
        self.matches: dict[str, TableMatches] = {}
        self.by_slug = {topic_slug(table): table for table in config.tables}
        self.keys = {table: read_key(path) for table, path in config.table_keys.items()}
        self.set_aside = SetAside(self.data_dir / "_set_aside.sqlite")
        for table in config.tables:
            replica = TableReplica(table, self.data_dir / f"{topic_slug(table)}.sqlite")
            self.replicas[table] = replica
            health = Health()
            for ev in replica.store.events():
                health.apply(ev)
            self.health[table] = health
            self.delayed[table] = DelayedLog(replica.store, config.broadcast_delay_s)
            self.live[table] = LiveTable(replica.store, table, config.rules)
            self.public[table] = LiveTable(self.delayed[table], table, config.rules)
            self.matches[table] = TableMatches(self.public[table])
        self.listeners: list[Listener] = []
        self._queue: queue.Queue[tuple[str, StoredEvent, float]] = queue.Queue()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._gap_acked: dict[str, float] = {}
        self._unknown_logged: dict[str, float] = {}
        self._refused_logged: dict[str, float] = {}
        self.connected = threading.Event()
        self.link_down_since: float | None = time.time()  # None while the broker link is up
        self.client = make_client(
            config.mqtt,
            config.mqtt.client_id or f"chaodipi-hub-{config.mqtt.tournament}",
            will=(self.topics.hub_status, dumps({"online": False})),
            clean_session=False,
            on_connect=self._on_connect,
            on_disconnect=self._on_disconnect,
            on_message=self._on_message,
        )

    # ----- running -----------------------------------------------------------------------------
    def start(self) -> None:
        for target, name in ((self._write_loop, "hub-writer"), (self._tick_loop, "hub-delay")):
            th = threading.Thread(target=target, daemon=True, name=name)
            th.start()
            self._threads.append(th)
        self._log_topics()
        start(self.client, self.config.mqtt)

    def alive(self) -> bool:
        """Whether the writer and delay threads run (the systemd watchdog is pinged only then)."""
        return bool(self._threads) and all(th.is_alive() for th in self._threads)

    def stop(self) -> None:
        """Say offline, disconnect, finish the queue and close every replica."""
        if self.connected.is_set():
            info = self.client.publish(
                self.topics.hub_status, dumps({"online": False, "t": time.time()}), 1, True
            )
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(2.0)
        self.client.disconnect()
        self.client.loop_stop()
        self._stop.set()
        for th in self._threads:
            th.join(timeout=10)
        for replica in self.replicas.values():
            replica.close()
        for view in self.delayed.values():
            view.wake()
        self.set_aside.close()

    def _log_topics(self) -> None:
        unsigned = [t for t in self.config.tables if t not in self.keys]
        if unsigned:
            log.warning(
                "tables %s may send unsigned events: list their keys in hub.toml [table_keys]",
                ", ".join(unsigned),
            )
        for table in self.config.tables:
            if topic_slug(table) != table:
                log.info("table %s uses the topic level and MQTT user %s", table, topic_slug(table))

    # ----- paho callbacks (paho's thread) ------------------------------------------------------
    def _on_connect(self) -> None:
        self.client.subscribe([(self.topics.all_events, 1), (self.topics.all_status, 1)])
        body = {"online": True, "t": time.time()}
        self.client.publish(self.topics.hub_status, dumps(body), qos=1, retain=True)
        for table in self.replicas:
            self._ack(table, resend=True)
        self.link_down_since = None
        self.connected.set()
        log.info("hub connected to %s:%s", self.config.mqtt.host, self.config.mqtt.port)

    def _on_disconnect(self) -> None:
        if self.connected.is_set():
            log.warning("hub lost the broker; reconnecting")
        if self.link_down_since is None:
            self.link_down_since = time.time()
        self.connected.clear()

    def _on_message(self, topic: str, payload: bytes) -> None:
        where = self.topics.table_of(topic)
        if where is None:
            return
        slug, leaf = where
        if leaf not in ("events", "status") or slug == HUB_SEGMENT:
            return
        table = self.by_slug.get(slug)
        if table is None:
            self._reject(slug, topic)
            return
        body = load_body(payload)
        key = self.keys.get(table)
        if key is not None:
            tournament = self.config.mqtt.tournament
            problem = (
                "unsigned"
                if body is None
                else signature_problem(key, tournament, table, leaf, body)
            )
            if problem is not None:
                self._refuse(table, leaf, problem, payload)
                return
        if leaf == "events":
            event = None if body is None else parse_event(body)
            if event is None:
                self.stats.malformed += 1
                log.warning("table %s sent a message that is not an event; ignored", table)
                return
            self._queue.put((table, event, time.time()))
        elif body is not None:
            body.pop("sig", None)
            self.status[table] = {**body, "received_t": time.time()}

    def _refuse(self, table: str, leaf: str, reason: str, payload: bytes) -> None:
        self.stats.rejected += 1
        try:
            self.set_aside.reject(table, leaf, reason, payload)
        except StoreError as e:
            log.error("%s", e)
        now = time.monotonic()
        if now - self._refused_logged.get(table, -1e9) >= 60:
            self._refused_logged[table] = now
            log.warning(
                "refused a %s message on table %s's topic: %s (kept aside; is [table_keys] "
                "the table's hmac_key_file, or is someone else publishing there?)",
                leaf,
                table,
                reason,
            )

    def _reject(self, table: str, topic: str) -> None:
        self.stats.unknown_table += 1
        now = time.monotonic()
        if now - self._unknown_logged.get(table, -1e9) >= 60:
            self._unknown_logged[table] = now
            log.warning(
                "rejected %s: table %r is not in hub.toml's tables (add it there if it plays)",
                topic,
                table,
            )

    # ----- the writer --------------------------------------------------------------------------
    def _write_loop(self) -> None:
        while not self._stop.is_set() or not self._queue.empty():
            try:
                first = self._queue.get(timeout=0.2)
            except queue.Empty:
                self._retry_gaps()
                continue
            batch = [first]
            while len(batch) < BATCH_MAX:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                self._commit(batch)
            except StoreError as e:  # a closed store while stopping
                log.error("hub could not store a batch: %s", e)

    def _commit(self, batch: list[tuple[str, StoredEvent, float]]) -> None:
        by_table: dict[str, list[StoredEvent]] = {}
        received: dict[str, float] = {}
        for table, event, t in batch:
            by_table.setdefault(table, []).append(event)
            received[table] = max(received.get(table, 0.0), t)
        self.stats.received += len(batch)
        for table, events in by_table.items():
            done = self.replicas[table].offer(events)
            self.stats.duplicates += done.duplicates
            for ev in done.conflicts:
                self.stats.conflicts += 1
                try:
                    new = self.set_aside.conflict(table, ev, signed=table in self.keys)
                except StoreError as e:
                    log.error("table %s: event %d conflicts and %s", table, ev.seq, e)
                    continue
                if new:
                    log.warning(
                        "table %s: event %d differs from the one held; kept aside as a conflict",
                        table,
                        ev.seq,
                    )
            if done.applied:
                committed = time.time()
                self.stats.applied += len(done.applied)
                health = self.health[table]
                for ev in done.applied:
                    health.apply(ev)
                self.delayed[table].arrived(done.applied, received[table])
                for listener in self.listeners:
                    listener(table, done.applied, committed)
            self._ack(table, resend=done.gap and self._gap_due(table))

    def _gap_due(self, table: str) -> bool:
        now = time.monotonic()
        if now - self._gap_acked.get(table, -1e9) < GAP_ACK_EVERY_S:
            return False
        self._gap_acked[table] = now
        return True

    def _retry_gaps(self) -> None:
        for table, replica in self.replicas.items():
            if replica.pending and self._gap_due(table):
                self._ack(table, resend=True)

    def _ack(self, table: str, *, resend: bool = False) -> None:
        body = {"seq": self.replicas[table].last_seq, "t": time.time(), "resend": resend}
        self.client.publish(self.topics.ack(table), dumps(body), qos=1, retain=True)

    def _tick_loop(self) -> None:
        while not self._stop.wait(0.2):
            for view in self.delayed.values():
                view.advance()

    # ----- what the pages show -----------------------------------------------------------------
    def overview(self, *, live: bool = False, now: float | None = None) -> dict[str, Any]:
        """Every table at a glance (the spectators' delayed view unless ``live``; the
        organisers' live view adds what was kept aside). While the hub's own link to the
        broker is down, every table's ``state`` is ``unknown`` since it went down: its last
        status says nothing about now."""
        now = time.time() if now is None else now
        down_since = self.link_down_since
        views = self.live if live else self.public
        rows = []
        for table in self.config.tables:
            state = views[table].public_json(now)
            hand = state["hand"]
            status = self.status.get(table, {})
            table_seq = status.get("last_seq")
            held = self.replicas[table].last_seq
            online = None if down_since is not None else status.get("online")
            row = {
                "table": table,
                "slug": topic_slug(table),
                "online": online,
                "state": "online"
                if online is True
                else "offline"
                if online is False
                else "unknown",
                "unknown_since": down_since,
                "seen_s": None
                if "received_t" not in status
                else round(now - status["received_t"], 1),
                "seq": state["seq"],
                "held_seq": held,
                "behind": max(0, table_seq - held)
                if isinstance(table_seq, int) and down_since is None
                else None,
                "clock_offset_s": clock_offset(status),
                "match": state["match"],
                "hand": {
                    k: hand.get(k)
                    for k in (
                        "declarer",
                        "declarer_side",
                        "level",
                        "trump",
                        "trick",
                        "finished",
                        "defender_points",
                    )
                },
                "infractions": {
                    "open": sum(1 for i in state["infractions"] if i["status"] == "open"),
                    "confirmed": sum(1 for i in state["infractions"] if i["status"] == "confirmed"),
                },
                "camera": self.health[table].to_json(now),
            }
            if live:
                row["set_aside"] = self.set_aside_of(table)
            rows.append(row)
        return {
            "tournament": self.config.mqtt.tournament,
            "server_time": now,
            "delay_s": 0.0 if live else self.config.broadcast_delay_s,
            "connected": down_since is None,
            "broker": {"connected": down_since is None, "down_since": down_since},
            "tables": rows,
        }

    def set_aside_of(self, table: str, limit: int = 20) -> dict[str, Any]:
        """What was kept aside for one table: counts, and the newest conflicts (each with the
        copy the hub holds) and rejected messages."""
        recent = self.set_aside.recent(table, limit)
        for conflict in recent["conflicts"]:
            held = self.replicas[table].held(conflict["seq"]) if conflict["seq"] else None
            conflict["held"] = None if held is None else held.to_json()
        return {
            **self.set_aside.counts(table),
            "signed": table in self.keys,
            "recent_conflicts": recent["conflicts"],
            "recent_rejected": recent["rejected"],
        }

    def bracket(self) -> dict[str, Any]:
        return bracket_json(self.config.bracket, self.matches)

    def wait_for(self, table: str, seq: int, timeout: float) -> bool:
        """Wait until the replica of ``table`` holds ``seq`` (tests, benches)."""
        store = self.replicas[table].store
        deadline = time.monotonic() + timeout
        while store.last_seq < seq:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            store.wait(store.last_seq, left)
        return True
