"""The venue's broker as deploy/ ships it: ``deploy/make-certs.sh`` makes the CA, certificates,
passwords and signing keys, and a real Mosquitto runs ``deploy/mosquitto/chaodipi.conf`` (its
paths and ports moved into a temp folder) under a Debian-style main config. A table's signed
events reach the hub over TLS; a client without the password, without the venue CA, without a
certificate of its own or trusting another CA is refused, and the plain listener is local and
still wants a password."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from chaodipi.hub.config import HubConfig
from chaodipi.hub.hub import Hub
from chaodipi.mqtt_link import MqttConfig, make_client, topic_slug
from chaodipi.table.outbox import Outbox
from chaodipi.table.store import EventStore
from tests.mqtt_broker import MOSQUITTO, SKIP_REASON, Broker, free_port
from tests.waiting import DEADLINE_S, wait_until

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
TABLES = ("T1", "七号桌")

pytestmark = [
    pytest.mark.skipif(MOSQUITTO is None, reason=SKIP_REASON),
    pytest.mark.skipif(
        not (shutil.which("openssl") and shutil.which("mosquitto_passwd")),
        reason="the TLS test needs openssl and mosquitto_passwd (apt-get install mosquitto)",
    ),
]


class Venue:
    """The shipped broker config running with make-certs.sh's files."""

    def __init__(self, folder: Path) -> None:
        self.certs = folder / "certs"
        slugs = [topic_slug(t) for t in TABLES]
        subprocess.run(
            [str(DEPLOY / "make-certs.sh"), "--out", str(self.certs),
             "--broker", "127.0.0.1,localhost", *slugs],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        self.tls_port, self.plain_port = free_port(), free_port()
        shipped = (DEPLOY / "mosquitto" / "chaodipi.conf").read_text(encoding="utf-8")
        for line in ("listener 1883 127.0.0.1\n", "listener 8883\n", "allow_anonymous false\n"):
            assert line in shipped, line
        conf = (
            shipped.replace("/etc/mosquitto/certs/", f"{self.certs}/")
            .replace("/etc/mosquitto/chaodipi.passwd", str(self.certs / "passwd"))
            .replace("/etc/mosquitto/chaodipi.acl", str(DEPLOY / "mosquitto" / "acl.example"))
            .replace("listener 1883 127.0.0.1\n", f"listener {self.plain_port} 127.0.0.1\n")
            .replace("listener 8883\n", f"listener {self.tls_port} 127.0.0.1\n")
        )
        conf_d = folder / "conf.d"
        conf_d.mkdir()
        (conf_d / "chaodipi.conf").write_text(conf, encoding="utf-8")
        # what Debian's /etc/mosquitto/mosquitto.conf says around conf.d
        main = f"persistence true\npersistence_location {folder}/\ninclude_dir {conf_d}\n"
        self.broker = Broker(folder, port=self.tls_port, config=main)

    def client(self, user: str, **overrides: Any) -> MqttConfig:
        """The [mqtt] of ``user`` (the hub, or a table's slug) as make-certs.sh's files say."""
        c = self.certs
        cfg = MqttConfig(
            host="127.0.0.1",
            port=self.tls_port,
            tournament="cup",
            username=user,
            password_file=str(c / f"{user}.password"),
            ca_file=str(c / "ca.crt"),
            cert_file=str(c / f"{user}.crt"),
            key_file=str(c / f"{user}.key"),
            hmac_key_file="" if user == "hub" else str(c / f"{user}.hmac"),
        )
        return replace(cfg, **overrides)


@pytest.fixture
def venue(tmp_path: Path) -> Iterator[Venue]:
    v = Venue(tmp_path / "venue")
    v.broker.start()
    yield v
    v.broker.stop()


def attempt(cfg: MqttConfig) -> str:
    """How the broker answers one connection: ``connected``, ``refused: …`` (CONNACK),
    ``failed: …`` (TLS on connecting) or ``dropped: …`` (closed without a CONNACK)."""
    outcome: list[str] = []
    client = make_client(cfg, f"probe-{uuid.uuid4().hex[:8]}")

    def on_connect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        outcome.append(f"refused: {reason}" if reason.is_failure else "connected")

    def on_disconnect(c: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        outcome.append(f"dropped: {reason}")

    client.on_connect = on_connect
    client.on_disconnect = on_disconnect
    try:
        client.connect(cfg.host, cfg.port, keepalive=10)
    except OSError as e:  # ssl.SSLError included
        return f"failed: {e}"
    client.loop_start()
    try:
        wait_until(lambda: outcome)
    finally:
        client.disconnect()
        client.loop_stop()
    return outcome[0] if outcome else "no answer"


def test_tables_reach_the_hub_over_the_shipped_tls_broker_and_strangers_are_refused(
    tmp_path: Path, venue: Venue
) -> None:
    hub = Hub(
        HubConfig(
            tables=TABLES,
            data_dir=str(tmp_path / "hub"),
            mqtt=venue.client("hub"),
            table_keys={t: str(venue.certs / f"{topic_slug(t)}.hmac") for t in TABLES},
        )
    )
    hub.start()
    stores = {t: EventStore(tmp_path / "tables" / topic_slug(t) / f"{t}.sqlite") for t in TABLES}
    outboxes = [Outbox(stores[t], t, venue.client(topic_slug(t))) for t in TABLES]
    try:
        for ob in outboxes:
            ob.start()
        for i, store in enumerate(stores.values()):
            for k in range(6 + i):
                store.append("play", {"seat": "NESW"[k % 4], "cards": ["2H"]}, "camera")
        for table, store in stores.items():
            assert hub.wait_for(table, store.last_seq, DEADLINE_S)
            mine = [(e.seq, e.t, e.kind, e.data) for e in store.events()]
            assert [
                (e.seq, e.t, e.kind, e.data) for e in hub.replicas[table].store.events()
            ] == mine
        assert hub.stats.rejected == 0 and hub.stats.conflicts == 0

        t1 = venue.client("T1")
        assert attempt(t1) == "connected"
        (venue.certs / "guess.password").write_text("guess\n", encoding="utf-8")
        wrong = attempt(replace(t1, password_file=str(venue.certs / "guess.password")))
        assert wrong.startswith("refused:"), wrong
        anonymous = attempt(replace(t1, username="", password_file=""))
        assert anonymous.startswith("refused:"), anonymous
        # no venue CA: plain MQTT to the TLS port
        plain = attempt(replace(t1, ca_file="", cert_file="", key_file=""))
        assert plain.startswith(("failed:", "dropped:")), plain
        # the venue CA but no certificate of its own
        no_cert = attempt(replace(t1, cert_file="", key_file=""))
        assert no_cert.startswith(("failed:", "dropped:")), no_cert
        # a client that trusts another CA does not trust this broker
        other = tmp_path / "other"
        subprocess.run(
            [str(DEPLOY / "make-certs.sh"), "--out", str(other), "--broker", "127.0.0.1", "T1"],
            check=True, capture_output=True,
        )  # fmt: skip
        stranger = attempt(
            replace(
                t1,
                ca_file=str(other / "ca.crt"),
                cert_file=str(other / "T1.crt"),
                key_file=str(other / "T1.key"),
            )
        )
        assert stranger.startswith("failed:") and "certificate verify failed" in stranger

        # the plain listener: this machine only, and a password all the same
        local = replace(
            venue.client("hub"), port=venue.plain_port, ca_file="", cert_file="", key_file=""
        )
        assert attempt(local) == "connected"
        assert attempt(replace(local, username="", password_file="")).startswith("refused:")
    finally:
        for ob in outboxes:
            ob.stop(timeout=1)
        hub.stop()
        for store in stores.values():
            store.close()
