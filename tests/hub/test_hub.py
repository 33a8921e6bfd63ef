"""Tables → hub through a real Mosquitto broker: the outbox resends after a broker restart, the
hub applies every event exactly once (duplicates and reordering included), rejects unknown
tables, and works with per-table passwords, an ACL and TLS. Every table signs its events with
its key, as hub.toml's ``[table_keys]`` lists it."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chaodipi.hub.config import HubConfig, HubConfigError, load_hub_config, parse_hub_config
from chaodipi.hub.hub import Hub
from chaodipi.mqtt_link import MqttConfig, Topics, make_client, read_key, start
from chaodipi.table.outbox import Outbox, Signer, event_payload
from chaodipi.table.store import EventStore
from tests.hub_helpers import key_file
from tests.mqtt_broker import MOSQUITTO, SKIP_REASON, Broker
from tests.waiting import DEADLINE_S, wait_until

pytestmark = pytest.mark.skipif(MOSQUITTO is None, reason=SKIP_REASON)


def rows(db: Path) -> list[tuple[Any, ...]]:
    """Every row of a log, append time included."""
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT seq, t, kind, actor, data FROM events ORDER BY seq").fetchall()
    finally:
        con.close()


def hub_config(folder: Path, port: int, tables: tuple[str, ...], **mqtt: Any) -> HubConfig:
    return HubConfig(
        tables=tables,
        data_dir=str(folder / "hub"),
        mqtt=MqttConfig(host="127.0.0.1", port=port, tournament="cup", **mqtt),
        table_keys={t: str(key_file(folder, t)) for t in tables},
    )


def table_mqtt(folder: Path, port: int, table: str, **mqtt: Any) -> MqttConfig:
    """A table's [mqtt]: the broker and the table's signing key (the hub's copy of it)."""
    key = str(key_file(folder, table))
    return MqttConfig(host="127.0.0.1", port=port, tournament="cup", hmac_key_file=key, **mqtt)


def play(store: EventStore, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        store.append("play", {"seat": "NESW"[i % 4], "cards": [f"{2 + i % 9}H"]}, "camera")


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path / "broker")
    b.start()
    yield b
    b.stop()


def test_the_outbox_resends_after_a_broker_restart_and_the_hub_holds_every_event_once(
    tmp_path: Path, broker: Broker
) -> None:
    hub = Hub(hub_config(tmp_path, broker.port, ("T1",)))
    hub.start()
    store = EventStore(tmp_path / "table" / "T1.sqlite")
    cfg = table_mqtt(tmp_path, broker.port, "T1")
    outbox = Outbox(store, "T1", cfg, stall_s=1.0, status_every_s=0.5)
    outbox.start()
    try:
        play(store, 30)
        assert hub.wait_for("T1", 30, DEADLINE_S)
        assert outbox.wait_acked(30, DEADLINE_S)

        broker.stop()
        play(store, 40, start=30)  # the broker is down: they wait in the log
        time.sleep(1.5)  # the outage lasts a while: nothing may reach the hub meanwhile
        assert hub.replicas["T1"].last_seq == 30
        broker.start()
        assert hub.wait_for("T1", 70, DEADLINE_S)
        assert outbox.wait_acked(70, DEADLINE_S)
        assert rows(hub.replicas["T1"].store.path) == rows(store.path)
        assert hub.status["T1"]["online"] is True
    finally:
        outbox.stop()
        hub.stop()
        store.close()
    assert json.loads((tmp_path / "table" / "T1.outbox.json").read_text())["acked"] == 70


def test_duplicates_and_reordered_events_are_applied_once_in_order(
    tmp_path: Path, broker: Broker
) -> None:
    hub = Hub(hub_config(tmp_path, broker.port, ("T1",)))
    hub.start()
    store = EventStore(tmp_path / "src" / "T1.sqlite")
    play(store, 6)
    events = store.events()
    acks: list[dict[str, Any]] = []
    topics = Topics("cup")
    client = make_client(
        MqttConfig(host="127.0.0.1", port=broker.port, tournament="cup"),
        "raw-sender",
        on_connect=lambda: client.subscribe(topics.ack("T1"), 1),
        on_message=lambda topic, body: acks.append(json.loads(body)),
    )
    start(client, MqttConfig(host="127.0.0.1", port=broker.port))
    try:
        assert hub.connected.wait(DEADLINE_S)
        order = [events[0], events[0], events[2], events[1], events[1], events[3], events[2]]
        order += [events[5], events[4], events[5], events[0]]
        signer = Signer("cup", "T1", read_key(key_file(tmp_path, "T1")))
        for ev in order:
            client.publish(topics.events("T1"), event_payload(ev, signer), qos=1)
        assert hub.wait_for("T1", 6, DEADLINE_S)
        # every message sent has reached the hub: each one applied or counted as a duplicate
        assert wait_until(lambda: hub.stats.applied + hub.stats.duplicates >= len(order))
        assert rows(hub.replicas["T1"].store.path) == rows(store.path)
        assert hub.stats.applied == 6 and hub.stats.duplicates == 5
        assert hub.stats.conflicts == 0 and hub.stats.rejected == 0
        assert wait_until(lambda: any(a["seq"] == 6 for a in acks))
    finally:
        client.disconnect()
        client.loop_stop()
        hub.stop()
        store.close()


def test_events_of_a_table_not_in_hub_toml_are_rejected(tmp_path: Path, broker: Broker) -> None:
    hub = Hub(hub_config(tmp_path, broker.port, ("T1",)))
    hub.start()
    store = EventStore(tmp_path / "stranger" / "T9.sqlite")
    outbox = Outbox(store, "T9", table_mqtt(tmp_path, broker.port, "T9"))
    outbox.start()
    try:
        play(store, 3)
        assert wait_until(lambda: hub.stats.unknown_table >= 3)
        assert not (tmp_path / "hub" / "T9.sqlite").exists()
        assert hub.stats.applied == 0 and outbox.acked == 0
    finally:
        outbox.stop()
        hub.stop()
        store.close()


def test_a_bad_hub_toml_gets_one_line_naming_the_key(tmp_path: Path) -> None:
    example = load_hub_config(Path(__file__).resolve().parents[2] / "deploy" / "hub.example.toml")
    assert len(example.tables) == 8 and example.bracket is not None
    path = tmp_path / "hub.toml"
    with pytest.raises(HubConfigError, match=r"tables .*write tables = "):
        parse_hub_config({"tables": []}, path)
    with pytest.raises(HubConfigError, match=r"tables: table id 'T/1' cannot name a table"):
        parse_hub_config({"tables": ["T/1"]}, path)
    with pytest.raises(HubConfigError, match=r"tables lists a table twice"):
        parse_hub_config({"tables": ["七号桌", "七号桌"]}, path)
    assert parse_hub_config({"tables": ["七号桌", "Table 7"]}, path).tables == ("七号桌", "Table 7")
    with pytest.raises(HubConfigError, match=r"bracket.tables.*'T3', not in tables"):
        parse_hub_config(
            {"tables": ["T1"], "bracket": {"entrants": ["a", "b"], "tables": [["T3"]]}}, path
        )
    with pytest.raises(HubConfigError, match=r"mqtt.ca_file .* does not exist"):
        parse_hub_config({"tables": ["T1"], "mqtt": {"ca_file": "/nope.pem"}}, path)


def test_hub_toml_table_keys_name_listed_tables_and_real_keys(tmp_path: Path) -> None:
    path = tmp_path / "hub.toml"
    key = key_file(tmp_path, "七号桌")
    config = parse_hub_config(
        {"tables": ["七号桌", "T2"], "table_keys": {"七号桌": str(key)}}, path
    )
    assert config.table_keys == {"七号桌": str(key)}
    with pytest.raises(HubConfigError, match=r"table_keys.T3 names a table not in tables"):
        parse_hub_config({"tables": ["T1"], "table_keys": {"T3": str(key)}}, path)
    with pytest.raises(HubConfigError, match=r"table_keys.T1 '/nope.hmac' is not a file"):
        parse_hub_config({"tables": ["T1"], "table_keys": {"T1": "/nope.hmac"}}, path)
    short = tmp_path / "short.hmac"
    short.write_text("abc\n", encoding="utf-8")
    with pytest.raises(HubConfigError, match=r"table_keys.T1: .* too short: .*openssl rand"):
        parse_hub_config({"tables": ["T1"], "table_keys": {"T1": str(short)}}, path)
    with pytest.raises(HubConfigError, match=r"mqtt.hmac_key_file is a table's key"):
        parse_hub_config({"tables": ["T1"], "mqtt": {"hmac_key_file": str(key)}}, path)


# ------------------------------------------------------------------ authentication and TLS


def passwords(folder: Path, users: dict[str, str]) -> Path:
    path = folder / "passwd"
    path.write_text("", encoding="utf-8")
    for user, password in users.items():
        subprocess.run(["mosquitto_passwd", "-b", str(path), user, password], check=True)
        (folder / f"{user}.password").write_text(password + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path


ACL = (Path(__file__).resolve().parents[2] / "deploy" / "mosquitto" / "acl.example").read_text()


@pytest.mark.skipif(not Path("/usr/bin/mosquitto_passwd").exists(), reason=SKIP_REASON)
def test_per_table_passwords_and_the_acl_keep_a_table_to_its_own_topics(tmp_path: Path) -> None:
    folder = tmp_path / "auth"
    folder.mkdir()
    pw = passwords(folder, {"hub": "hub-secret", "T1": "t1-secret", "T2": "t2-secret"})
    (folder / "acl").write_text(ACL, encoding="utf-8")
    broker = Broker(folder, f"allow_anonymous false\npassword_file {pw}\nacl_file {folder / 'acl'}")
    broker.start()
    hub = Hub(
        hub_config(
            tmp_path,
            broker.port,
            ("T1", "T2"),
            username="hub",
            password_file=str(folder / "hub.password"),
        )
    )
    hub.start()
    t1 = EventStore(tmp_path / "t1" / "T1.sqlite")
    forged = EventStore(tmp_path / "forged" / "T2.sqlite")
    wrong = EventStore(tmp_path / "wrong" / "T2.sqlite")
    base = {"host": "127.0.0.1", "port": broker.port, "tournament": "cup"}
    t1_key, t2_key = str(key_file(tmp_path, "T1")), str(key_file(tmp_path, "T2"))
    good = Outbox(
        t1,
        "T1",
        MqttConfig(
            **base, username="T1", password_file=str(folder / "T1.password"), hmac_key_file=t1_key
        ),
    )
    # T1's credentials publishing as T2: the broker's ACL drops every message
    impostor = Outbox(
        forged,
        "T2",
        MqttConfig(
            **base,
            username="T1",
            password_file=str(folder / "T1.password"),
            client_id="impostor",
            hmac_key_file=t2_key,
        ),
    )
    (folder / "bad.password").write_text("guess\n", encoding="utf-8")
    locked_out = Outbox(
        wrong,
        "T2",
        MqttConfig(
            **base,
            username="T2",
            password_file=str(folder / "bad.password"),
            hmac_key_file=t2_key,
        ),
    )
    outboxes = [good, impostor, locked_out]
    try:
        for ob in outboxes:
            ob.start()
        play(t1, 5)
        play(forged, 5)
        play(wrong, 5)
        assert hub.wait_for("T1", 5, DEADLINE_S)
        # the impostor is let in and has sent its five forged events
        assert wait_until(lambda: impostor.connected and impostor.sent >= 5)
        time.sleep(1.5)  # time for them to arrive, were the ACL to let them through
        assert rows(hub.replicas["T1"].store.path) == rows(t1.path)
        assert hub.replicas["T2"].last_seq == 0
        assert good.connected and impostor.connected and not locked_out.connected
    finally:
        for ob in outboxes:
            ob.stop(timeout=1)
        hub.stop()
        broker.stop()
        for s in (t1, forged, wrong):
            s.close()


def make_ca(folder: Path) -> tuple[Path, Path, Path]:
    """A throwaway CA and a server certificate for 127.0.0.1 / localhost."""

    def ssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=folder)

    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test CA",
        "-keyout", "ca.key", "-out", "ca.crt")  # fmt: skip
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
        "-keyout", "server.key", "-out", "server.csr")  # fmt: skip
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    ssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "1", "-extfile", "san.ext", "-out", "server.crt")  # fmt: skip
    return folder / "ca.crt", folder / "server.crt", folder / "server.key"


@pytest.mark.skipif(not Path("/usr/bin/openssl").exists(), reason="openssl makes the test CA")
def test_tables_and_hub_talk_over_tls(tmp_path: Path) -> None:
    folder = tmp_path / "tls"
    folder.mkdir()
    ca, cert, key = make_ca(folder)
    broker = Broker(folder, f"allow_anonymous true\ncafile {ca}\ncertfile {cert}\nkeyfile {key}")
    broker.start()
    hub = Hub(hub_config(tmp_path, broker.port, ("T1",), ca_file=str(ca)))
    hub.start()
    store = EventStore(tmp_path / "t" / "T1.sqlite")
    outbox = Outbox(store, "T1", table_mqtt(tmp_path, broker.port, "T1", ca_file=str(ca)))
    outbox.start()
    try:
        play(store, 8)
        assert hub.wait_for("T1", 8, DEADLINE_S)
        assert rows(hub.replicas["T1"].store.path) == rows(store.path)
    finally:
        outbox.stop()
        hub.stop()
        broker.stop()
        store.close()


def test_a_table_config_with_mqtt_parses_and_bad_values_name_the_key(tmp_path: Path) -> None:
    from chaodipi.config import ConfigError, dumps_config, parse_config

    path = tmp_path / "table.toml"
    cfg = parse_config({"table_id": "T07", "mqtt": {"host": "hub.local", "port": 8883}}, path)
    assert cfg.mqtt is not None and (cfg.mqtt.host, cfg.mqtt.port) == ("hub.local", 8883)
    assert "[mqtt]" in dumps_config(cfg)
    assert parse_config({}, path).mqtt is None
    with pytest.raises(ConfigError, match=r"table.toml: mqtt.hots is not a known key"):
        parse_config({"mqtt": {"hots": "x"}}, path)
    assert parse_config({"table_id": "七号桌", "mqtt": {}}, path).table_id == "七号桌"
    assert parse_config({"table_id": "Table 7", "mqtt": {}}, path).table_id == "Table 7"
    with pytest.raises(ConfigError, match=r"table_id 'T/7' cannot name a table: use 1–64"):
        parse_config({"table_id": "T/7", "mqtt": {}}, path)
    with pytest.raises(ConfigError, match=r"table.toml: mqtt.hmac_key_file /nope does not exist"):
        parse_config({"mqtt": {"hmac_key_file": "/nope"}}, path)
    key = key_file(tmp_path, "T07")
    signed = parse_config({"table_id": "T07", "mqtt": {"hmac_key_file": str(key)}}, path)
    assert signed.mqtt is not None and signed.mqtt.hmac_key_file == str(key)
