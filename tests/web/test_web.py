"""The table's web app against web_dashboard/API.md: sign-in, 401/403/429, CSRF, referee actions
changing the public state, the events feed, hand records, evidence, and the live stream
through the server ``chaodipi run`` uses (web_dashboard.server)."""

from __future__ import annotations

import http.client
import json
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from flask import Flask
from flask.testing import FlaskClient

from chaodipi.config import TableConfig, WebConfig
from chaodipi.table.live import LiveTable
from tests.table_helpers import hand, table
from tests.waiting import DEADLINE_S
from web_dashboard.app import STREAM_PATH, create_app
from web_dashboard.server import WebServer

PIN = "2468"
CONFIG = TableConfig(table_id="T1", web=WebConfig(referee_pin=PIN))


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveTable]:
    t = table(tmp_path, hand())
    yield t
    t.store.close()


@pytest.fixture
def app(live: LiveTable) -> Flask:
    return create_app(live.store, CONFIG)


def sign_in(client: FlaskClient) -> str:
    """Sign in; returns the CSRF token of the console page."""
    res = client.post("/referee/login", data={"pin": PIN, "name": "王"})
    assert res.status_code == 303 and res.headers["Location"].endswith("/referee")
    page = client.get("/referee").get_data(as_text=True)
    match = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
    assert match, "the console page carries the CSRF token"
    return match.group(1)


def post(client: FlaskClient, path: str, token: str, body: dict[str, Any] | None = None) -> Any:
    return client.post(path, json=body or {}, headers={"X-CSRF-Token": token})


def test_the_session_cookie_is_http_only_and_same_site_strict(app: Flask) -> None:
    client = app.test_client()
    res = client.post("/referee/login", data={"pin": PIN})
    cookie = res.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie


def test_the_session_key_is_made_once_and_kept_private(app: Flask, live: LiveTable) -> None:
    key = live.store.data_dir / "secret_key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert create_app(live.store, CONFIG).secret_key == app.secret_key


def test_a_wrong_pin_is_refused_and_five_a_minute_lock_the_address_out(app: Flask) -> None:
    client = app.test_client()
    page = client.get("/referee")
    assert page.status_code == 200 and 'name="pin"' in page.get_data(as_text=True)
    for _ in range(5):
        res = client.post("/referee/login", data={"pin": "0000"})
        assert res.status_code == 401 and "PIN" in res.get_data(as_text=True)
    res = client.post("/referee/login", data={"pin": PIN})
    assert res.status_code == 429 and int(res.headers["Retry-After"]) > 0
    other = app.test_client()  # another address is not locked out
    res = other.post("/referee/login", data={"pin": PIN}, environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert res.status_code == 303


def test_referee_calls_need_a_session_then_the_csrf_token(app: Flask) -> None:
    client = app.test_client()
    assert client.get("/api/referee/state").status_code == 401
    res = client.post("/api/referee/undo", json={})
    assert res.status_code == 401 and res.get_json()["ok"] is False
    token = sign_in(client)
    assert client.post("/api/referee/undo", json={}).status_code == 403
    assert post(client, "/api/referee/undo", "wrong").status_code == 403
    res = post(client, "/api/referee/undo", token)
    assert res.status_code == 400 and "no correction to undo" in res.get_json()["error"]
    assert post(client, "/referee/logout", token).status_code == 200
    assert client.get("/api/referee/state").status_code == 401


def test_confirming_an_infraction_changes_the_public_score(app: Flask) -> None:
    client = app.test_client()
    token = sign_in(client)
    before = client.get("/api/state").get_json()
    assert before["infractions"][0] == {"id": "1-revoke-N-2-0", "kind": "revoke", "seat": "N",
                                        "trick": 2, "penalty": 10, "status": "open"}  # fmt: skip
    res = post(client, "/api/referee/infractions/1-revoke-N-2-0", token,
               {"decision": "confirm", "note": "N 承认"})  # fmt: skip
    assert res.status_code == 200 and res.get_json() == {"ok": True, "seq": before["seq"] + 1}
    after = client.get("/api/state").get_json()
    assert after["infractions"][0]["status"] == "confirmed"
    assert (
        after["hand"]["result"]["defender_total"] == before["hand"]["result"]["defender_total"] - 10
    )
    referee = client.get("/api/referee/state").get_json()
    assert (
        referee["infractions"][0]["note"] == "N 承认"
        and "trick 2" in referee["infractions"][0]["proof"]
    )
    bad = post(client, "/api/referee/infractions/1-revoke-N-2-0", token, {"decision": "maybe"})
    assert bad.status_code == 400
    unknown = post(
        client, "/api/referee/infractions/9-revoke-N-7-0", token, {"decision": "confirm"}
    )
    assert unknown.status_code == 400 and "no infraction" in unknown.get_json()["error"]


def test_a_correction_can_be_undone_and_bad_cards_are_named(app: Flask, live: LiveTable) -> None:
    client = app.test_client()
    token = sign_in(client)
    res = post(client, "/api/referee/correction", token,
               {"trick": 2, "seat": "E", "cards": ["10x"]})  # fmt: skip
    error = res.get_json()["error"]
    assert res.status_code == 400 and "'10x'" in error and "\n" not in error and "10H" in error
    first = client.get("/api/state").get_json()["hand"]["tricks"][1]
    was = next(p["cards"] for p in first["plays"] if p["seat"] == "E")
    res = post(client, "/api/referee/correction", token, {"trick": 2, "seat": "E", "cards": "ks"})
    assert res.status_code == 200
    plays = client.get("/api/state").get_json()["hand"]["tricks"][1]["plays"]
    assert next(p["cards"] for p in plays if p["seat"] == "E") == ["KS"]
    corrections = client.get("/api/referee/state").get_json()["corrections"]
    assert corrections[-1]["was"] == was and corrections[-1]["cards"] == ["KS"]
    labels = list((live.store.data_dir / "corrections/labels").glob("h0001-t02-E-*.json"))
    assert len(labels) == 1 and json.loads(labels[0].read_text())["cards"] == ["KS"]
    assert post(client, "/api/referee/undo", token).status_code == 200
    plays = client.get("/api/state").get_json()["hand"]["tricks"][1]["plays"]
    assert next(p["cards"] for p in plays if p["seat"] == "E") == was
    too_far = post(client, "/api/referee/correction", token, {"trick": 99, "seat": "E",
                                                               "cards": ["KS"]})  # fmt: skip
    assert too_far.status_code == 400


def test_contract_kitty_chao_di_and_next_hand(app: Flask) -> None:
    client = app.test_client()
    token = sign_in(client)
    assert post(client, "/api/referee/contract", token, {"trump": "X"}).status_code == 400
    assert post(client, "/api/referee/contract", token, {}).status_code == 400
    res = post(client, "/api/referee/contract", token, {"levels": {"NS": "6", "EW": "K"}})
    assert res.status_code == 200
    assert client.get("/api/state").get_json()["match"]["levels"] == {"NS": "6", "EW": "K"}
    assert post(client, "/api/referee/kitty", token, {"cards": []}).status_code == 400
    assert post(client, "/api/referee/kitty", token, {"cards": ["3S"] * 8}).status_code == 200
    assert post(client, "/api/referee/chao-di", token,
                {"seat": "W", "cards": ["3H", "3H"]}).status_code == 400  # fmt: skip
    assert post(client, "/api/referee/chao-di", token,
                {"seat": "W", "cards": ["BJ", "BJ"]}).status_code == 200  # fmt: skip
    assert client.get("/api/state").get_json()["hand"]["trump"] == "NT"
    res = post(client, "/api/referee/next-hand", token)
    assert res.status_code == 200
    state = client.get("/api/state").get_json()
    assert state["match"]["hand"] == 2 and state["seq"] == res.get_json()["seq"]
    assert post(client, "/api/referee/next-match", token).status_code == 200
    assert client.get("/api/state").get_json()["match"]["levels"] == {"NS": "2", "EW": "2"}


def test_events_leave_out_referee_only_kinds_and_fields(app: Flask, live: LiveTable) -> None:
    live.store.append("snapshot", {"hand": 1, "trick": 1, "path": "evidence/x.jpg"}, "system")
    live.store.append("infraction_decided", {"id": "1-revoke-N-2-0", "decision": "confirm",
                      "note": "秘密"}, "referee:王")  # fmt: skip
    client = app.test_client()
    body = client.get("/api/events?since=0").get_json()
    assert body["last"] == live.store.last_seq
    kinds = {e["kind"] for e in body["events"]}
    assert "snapshot" not in kinds and "infraction_decided" in kinds
    text = json.dumps(body, ensure_ascii=False)
    assert "秘密" not in text and "referee:" not in text
    assert set(body["events"][0]) == {"seq", "t", "kind", "data"}
    tail = client.get(f"/api/events?since={body['last']}").get_json()
    assert tail == {"events": [], "last": body["last"]}
    assert client.get("/api/events?since=x").status_code == 400


def test_records_list_and_export_in_the_engine_schema(app: Flask) -> None:
    client = app.test_client()
    assert client.get("/api/records").get_json() == [{"hand": 1, "finished": True}]
    record = client.get("/api/records/1.json").get_json()
    schema = json.loads(Path("engine/schema/hand-record.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(record, schema)
    assert record["kitty"] == hand()["kitty"]
    assert client.get("/api/records/7.json").status_code == 404


def test_evidence_pictures_are_for_referees_only(app: Flask, live: LiveTable) -> None:
    folder = live.store.data_dir / "evidence"
    folder.mkdir()
    (folder / "h0001-t02-1.jpg").write_bytes(b"\xff\xd8\xff\xe0jpeg")
    live.store.append("snapshot", {"hand": 1, "trick": 2, "path": "evidence/h0001-t02-1.jpg"},
                      "system")  # fmt: skip
    client = app.test_client()
    url = "/api/referee/evidence/h0001-t02-1.jpg"
    assert client.get(url).status_code == 401
    sign_in(client)
    inf = client.get("/api/referee/state").get_json()["infractions"][0]
    assert inf["evidence"] == [url]
    res = client.get(url)
    assert res.status_code == 200 and res.mimetype == "image/jpeg"
    assert client.get("/api/referee/evidence/..%2Fsecret_key").status_code == 404


def test_pages_render_with_the_table_name(app: Flask) -> None:
    client = app.test_client()
    for path in ("/", "/overlay", "/referee"):
        res = client.get(path)
        assert res.status_code == 200 and "T1" in res.get_data(as_text=True)


def test_openapi_lists_every_route(app: Flask) -> None:
    doc = app.test_client().get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.1")
    routes = {
        re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static"
    }
    assert routes == set(doc["paths"])


def read_event(conn: http.client.HTTPResponse) -> dict[str, str]:
    """One server-sent event (comments skipped)."""
    fields: dict[str, str] = {}
    while True:
        line = conn.readline().decode("utf-8").rstrip("\n")
        if not line:
            if fields:
                return fields
            continue
        if line.startswith(":"):
            fields.setdefault("comment", line)
            if "event" not in fields:
                return fields
            continue
        key, _, value = line.partition(": ")
        fields[key] = value


def test_the_stream_pushes_each_new_state_as_it_is_logged(live: LiveTable) -> None:
    app = create_app(live.store, CONFIG, live=live)
    server = WebServer(app, {STREAM_PATH: live}, threads=4, heartbeat_s=0.5)
    _, port = server.start("127.0.0.1", 0)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=DEADLINE_S)
        conn.request("GET", "/api/stream")
        res = conn.getresponse()
        assert res.status == 200 and res.getheader("Content-Type").startswith("text/event-stream")
        first = read_event(res)
        assert first["event"] == "state" and int(first["id"]) == live.store.last_seq
        assert json.loads(first["data"])["table"] == "T1"
        assert read_event(res)["comment"].startswith(": heartbeat")
        seq = live.store.append("camera_health", {"fps": 7.5, "last_frame_age_s": 0.2}, "camera")
        event = read_event(res)
        while "event" not in event:
            event = read_event(res)
        assert int(event["id"]) == seq and json.loads(event["data"])["camera"]["fps"] == 7.5
        conn.close()
    finally:
        server.stop()


def test_the_flask_stream_route_sends_the_same_messages_under_a_plain_wsgi_server(
    app: Flask, live: LiveTable
) -> None:
    res = app.test_client().get("/api/stream", buffered=False)
    assert res.status_code == 200 and res.mimetype == "text/event-stream"
    chunk = next(iter(res.response))
    first = chunk.decode() if isinstance(chunk, bytes) else str(chunk)
    assert first.startswith(f"event: state\nid: {live.store.last_seq}\n")
    res.close()
