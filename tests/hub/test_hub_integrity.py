"""What the hub trusts, through a real Mosquitto broker: an event offered again at a held seq
with other content is kept aside and shown to the organisers (never dropped unseen, never
written over the log), a table whose key hub.toml lists gets nothing stored without its
signature, the overview says "unknown since" while the hub has lost the broker, and tables
named in any script reach the hub under their ASCII topic slug and show their own name."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chaodipi.hub.config import HubConfig
from chaodipi.hub.hub import Hub
from chaodipi.mqtt_link import NAME, MqttConfig, Topics, make_client, read_key, start, topic_slug
from chaodipi.table.outbox import Outbox, Signer, event_payload
from chaodipi.table.store import EventStore, StoredEvent
from tests.hub_helpers import key_file
from tests.mqtt_broker import MOSQUITTO, SKIP_REASON, Broker
from tests.waiting import DEADLINE_S, wait_until
from web_dashboard.hub_app import create_hub_app

pytestmark = pytest.mark.skipif(MOSQUITTO is None, reason=SKIP_REASON)

TOPICS = Topics("cup")


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path / "broker")
    b.start()
    yield b
    b.stop()


def make_hub(folder: Path, port: int, tables: tuple[str, ...], *, signed: bool = True) -> Hub:
    keys = {t: str(key_file(folder, t)) for t in tables} if signed else {}
    return Hub(
        HubConfig(
            tables=tables,
            data_dir=str(folder / "hub"),
            mqtt=MqttConfig(host="127.0.0.1", port=port, tournament="cup"),
            table_keys=keys,
        )
    )


def outbox(folder: Path, port: int, table: str) -> tuple[Outbox, EventStore]:
    """A table streaming its own log, signed with its key."""
    store = EventStore(folder / "tables" / topic_slug(table) / f"{table}.sqlite")
    cfg = MqttConfig(
        host="127.0.0.1",
        port=port,
        tournament="cup",
        hmac_key_file=str(key_file(folder, table)),
    )
    return Outbox(store, table, cfg, stall_s=1.0, status_every_s=0.3), store


class Sender:
    """Anyone on the broker publishing on a table's topics (the ACL is off in these tests)."""

    def __init__(self, port: int) -> None:
        self.client = make_client(
            MqttConfig(host="127.0.0.1", port=port, tournament="cup"), "someone-else"
        )
        start(self.client, MqttConfig(host="127.0.0.1", port=port))
        assert wait_until(self.client.is_connected)

    def event(self, table: str, ev: StoredEvent, signer: Signer | None = None) -> None:
        self.client.publish(
            TOPICS.events(table), event_payload(ev, signer), qos=1
        ).wait_for_publish(DEADLINE_S)

    def raw(self, topic: str, body: dict[str, Any]) -> None:
        self.client.publish(topic, json.dumps(body).encode(), qos=1).wait_for_publish(DEADLINE_S)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def play(store: EventStore, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        store.append("play", {"seat": "NESW"[i % 4], "cards": [f"{2 + i % 9}H"]}, "camera")


def held_rows(hub: Hub, table: str) -> list[tuple[int, str, dict[str, Any]]]:
    return [(e.seq, e.kind, e.data) for e in hub.replicas[table].store.events()]


def test_an_event_at_a_held_seq_with_other_content_is_kept_aside_and_shown_as_a_conflict(
    tmp_path: Path, broker: Broker
) -> None:
    # No key for T1 in hub.toml: only the broker's password and ACL guard its topic.
    hub = make_hub(tmp_path, broker.port, ("T1",), signed=False)
    hub.start()
    store = EventStore(tmp_path / "t1" / "T1.sqlite")
    play(store, 3)
    real = store.events()
    sender = Sender(broker.port)
    try:
        for ev in real:
            sender.event("T1", ev)
        assert hub.wait_for("T1", 3, DEADLINE_S)

        forged = StoredEvent(2, real[1].t, "play", "camera", {"seat": "E", "cards": ["BJ"]})
        sender.event("T1", forged)
        assert wait_until(lambda: hub.stats.conflicts == 1)
        sender.event("T1", real[1])  # the same event again: idempotent
        sender.event("T1", forged)  # the same forgery again: counted, kept once
        assert wait_until(lambda: hub.stats.duplicates == 1 and hub.stats.conflicts == 2)

        # A forgery that comes first is held (nothing tells it apart without a key); the
        # table's own event at that seq is then kept aside, not dropped.
        first = StoredEvent(4, time.time(), "play", "camera", {"seat": "S", "cards": ["SJ"]})
        sender.event("T1", first)
        assert hub.wait_for("T1", 4, DEADLINE_S)
        play(store, 1, start=3)
        sender.event("T1", store.events()[3])
        assert wait_until(lambda: hub.stats.conflicts == 3)

        assert held_rows(hub, "T1") == [
            *[(e.seq, e.kind, e.data) for e in real],
            (4, "play", {"seat": "S", "cards": ["SJ"]}),
        ]
        client = create_hub_app(hub).test_client()
        public = client.get("/api/overview").get_json()["tables"][0]
        assert "set_aside" not in public  # the spectators' view: no evidence, no alarm
        row = hub.overview(live=True)["tables"][0]
        aside = row["set_aside"]
        assert (aside["conflicts"], aside["rejected"], aside["signed"]) == (2, 0, False)
        by_seq = {c["seq"]: c for c in aside["recent_conflicts"]}
        assert by_seq[2]["offered"]["data"] == {"seat": "E", "cards": ["BJ"]}
        assert by_seq[2]["held"]["data"] == real[1].data and by_seq[2]["times"] == 2
        assert by_seq[4]["held"]["data"] == {"seat": "S", "cards": ["SJ"]}
        assert by_seq[4]["offered"]["data"] == store.events()[3].data
    finally:
        sender.close()
        hub.stop()
        store.close()

    # Kept aside on disk: a restarted hub still shows them.
    again = make_hub(tmp_path, broker.port, ("T1",), signed=False)
    try:
        assert again.overview(live=True)["tables"][0]["set_aside"]["conflicts"] == 2
    finally:
        again.stop()


def test_with_the_tables_key_the_hub_stores_only_signed_events_and_refuses_the_rest(
    tmp_path: Path, broker: Broker
) -> None:
    hub = make_hub(tmp_path, broker.port, ("T1",))
    hub.start()
    table, store = outbox(tmp_path, broker.port, "T1")
    sender = Sender(broker.port)
    try:
        assert wait_until(hub.connected.is_set)
        now = time.time()
        wrong_key = Signer("cup", "T1", b"not the table's key at all")
        sender.event(
            "T1", StoredEvent(1, now, "play", "camera", {"seat": "N", "cards": ["BJ"]}), wrong_key
        )
        sender.event("T1", StoredEvent(2, now, "play", "camera", {"seat": "E", "cards": ["SJ"]}))
        sender.raw(TOPICS.status("T1"), {"online": True, "t": now, "last_seq": 999})
        # the table's own signature over another table's event does not pass either
        other = Signer("cup", "T2", read_key(key_file(tmp_path, "T1")))
        sender.event(
            "T1", StoredEvent(1, now, "play", "camera", {"seat": "W", "cards": ["2H"]}), other
        )
        assert wait_until(lambda: hub.stats.rejected == 4)
        assert hub.replicas["T1"].last_seq == 0 and "T1" not in hub.status

        table.start()
        play(store, 5)
        assert hub.wait_for("T1", 5, DEADLINE_S)
        assert held_rows(hub, "T1") == [(e.seq, e.kind, e.data) for e in store.events()]
        assert wait_until(lambda: hub.status.get("T1", {}).get("last_seq") == 5)
        assert hub.stats.conflicts == 0 and hub.stats.rejected == 4

        aside = hub.overview(live=True)["tables"][0]["set_aside"]
        assert (aside["conflicts"], aside["rejected"], aside["signed"]) == (0, 4, True)
        reasons = sorted((r["topic"], r["reason"]) for r in aside["recent_rejected"])
        assert reasons == [
            ("events", "bad signature"),
            ("events", "bad signature"),
            ("events", "unsigned"),
            ("status", "unsigned"),
        ]
        assert any('"BJ"' in r["message"] for r in aside["recent_rejected"])
    finally:
        sender.close()
        table.stop(timeout=1)
        hub.stop()
        store.close()


def test_while_the_hub_has_lost_the_broker_every_table_is_unknown_since_then(
    tmp_path: Path, broker: Broker
) -> None:
    hub = make_hub(tmp_path, broker.port, ("T1",))
    table, store = outbox(tmp_path, broker.port, "T1")
    client = create_hub_app(hub).test_client()
    hub.start()
    table.start()
    try:
        play(store, 3)
        assert hub.wait_for("T1", 3, DEADLINE_S)

        def row() -> dict[str, Any]:
            rows: list[dict[str, Any]] = client.get("/api/overview").get_json()["tables"]
            return rows[0]

        assert wait_until(lambda: row()["state"] == "online" and row()["behind"] == 0)
        assert row()["unknown_since"] is None

        lost = time.time()
        broker.stop()
        assert wait_until(lambda: row()["state"] == "unknown")
        overview = client.get("/api/overview").get_json()
        assert overview["broker"]["connected"] is False and overview["connected"] is False
        since = overview["broker"]["down_since"]
        assert lost - 1 <= since <= time.time()
        assert row()["unknown_since"] == since
        assert row()["online"] is None and row()["behind"] is None
        assert hub.overview(live=True)["tables"][0]["state"] == "unknown"

        broker.start()
        assert wait_until(lambda: row()["state"] == "online")
        assert row()["unknown_since"] is None
        assert client.get("/api/overview").get_json()["broker"]["down_since"] is None
    finally:
        table.stop(timeout=1)
        hub.stop()
        store.close()


def test_topic_slugs_keep_plain_ids_and_give_any_other_name_readable_ascii_and_a_hash() -> None:
    def digest(name: str) -> str:
        return hashlib.sha256(name.encode("utf-8")).hexdigest()[:10]

    assert topic_slug("T01") == "T01" and topic_slug("table-7") == "table-7"
    assert topic_slug("Table 7") == f"Table-7--{digest('Table 7')}"
    assert topic_slug("七号桌") == f"t--{digest('七号桌')}" == "t--b107a17e48"  # stable
    assert topic_slug("Café") == topic_slug("Cafe\u0301") == f"Cafe--{digest('Café')}"
    # an id that looks like a hashed slug is hashed itself, so it cannot take another's slug
    lookalike = f"t--{digest('七号桌')}"
    assert topic_slug(lookalike) != lookalike and topic_slug(lookalike) != topic_slug("七号桌")
    for name in ("Table 7", "七号桌", "Café", "x" * 64 + "桌", "_hub", "a·b"):
        assert NAME.fullmatch(topic_slug(name)) and not topic_slug(name).startswith("_")


def test_tables_named_in_any_script_reach_the_hub_under_their_slug_and_show_their_name(
    tmp_path: Path, broker: Broker
) -> None:
    names = ("七号桌", "Table 7")
    hub = make_hub(tmp_path, broker.port, names)
    topics: list[str] = []
    watcher = make_client(
        MqttConfig(host="127.0.0.1", port=broker.port, tournament="cup"),
        "watcher",
        on_connect=lambda: watcher.subscribe(TOPICS.all_events, 1),
        on_message=lambda topic, body: topics.append(topic),
    )
    start(watcher, MqttConfig(host="127.0.0.1", port=broker.port))
    assert wait_until(watcher.is_connected)
    hub.start()
    tables = [outbox(tmp_path, broker.port, name) for name in names]
    try:
        for table, store in tables:
            table.start()
            play(store, 4)
        for name, (_, store) in zip(names, tables, strict=True):
            assert hub.wait_for(name, 4, DEADLINE_S)
            assert held_rows(hub, name) == [(e.seq, e.kind, e.data) for e in store.events()]
        slugs = {topic_slug(name) for name in names}
        assert wait_until(lambda: {t.split("/")[2] for t in topics} == slugs)
        assert all(t.isascii() for t in topics)
        assert sorted(p.name for p in (tmp_path / "hub").glob("*.sqlite")) == sorted(
            ["_set_aside.sqlite", *(f"{s}.sqlite" for s in slugs)]
        )

        client = create_hub_app(hub).test_client()
        rows = client.get("/api/overview").get_json()["tables"]
        assert [(r["table"], r["slug"], r["held_seq"]) for r in rows] == [
            (name, topic_slug(name), 4) for name in names
        ]
        assert wait_until(
            lambda: (
                [r["state"] for r in client.get("/api/overview").get_json()["tables"]]
                == ["online", "online"]
            )
        )
        slug = topic_slug("七号桌")
        moved = client.get("/t/七号桌/api/state")
        assert moved.status_code == 308 and moved.headers["Location"].endswith(
            f"/t/{slug}/api/state"
        )
        state = client.get(f"/t/{slug}/api/state").get_json()
        assert state["table"] == "七号桌" and state["seq"] == 4
        assert client.get(f"/t/{slug}/").status_code == 200
    finally:
        for table, store in tables:
            table.stop(timeout=1)
            store.close()
        watcher.disconnect()
        watcher.loop_stop()
        hub.stop()
