"""Who may change a table, and what the browser is told: server-side referee sessions (signing
out or a new PIN ends them, a restart with the same PIN keeps them), table ids of any
characters, referee PINs too easy to guess refused by ``chaodipi run``, the security headers of
every page (only the overlay may be framed), ``Secure`` cookies over TLS, and one-line 400s for
numbers out of range."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from chaodipi.config import ConfigError, TableConfig, WebConfig, check_referee_pin, pin_weakness
from chaodipi.table.live import LiveTable
from tests.hub_helpers import ORGANISER_PIN, make_hub
from tests.table_helpers import hand, table
from tests.waiting import DEADLINE_S
from web_dashboard.app import create_app
from web_dashboard.hub_app import create_hub_app

ROOT = Path(__file__).resolve().parents[2]
PIN = "902741"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveTable]:
    t = table(tmp_path, hand())
    yield t
    t.store.close()


def app_for(live: LiveTable, table_id: str = "T1", pin: str = PIN) -> Flask:
    return create_app(live.store, TableConfig(table_id=table_id, web=WebConfig(referee_pin=pin)))


def sign_in(client: FlaskClient, pin: str = PIN) -> str:
    """Sign in; returns the console's CSRF token."""
    res = client.post("/referee/login", data={"pin": pin, "name": "王"})
    assert res.status_code == 303, res.get_data(as_text=True)
    page = client.get("/referee").get_data(as_text=True)
    match = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
    assert match, "the console page carries the CSRF token"
    return match.group(1)


def session_cookie(app: Flask, client: FlaskClient) -> str:
    cookie = client.get_cookie(app.config["SESSION_COOKIE_NAME"])
    assert cookie is not None
    return cookie.value


def with_cookie(app: Flask, value: str) -> FlaskClient:
    """A fresh browser holding a copy of a saved session cookie."""
    client = app.test_client()
    client.set_cookie(app.config["SESSION_COOKIE_NAME"], value)
    return client


def test_a_cookie_saved_before_signing_out_opens_nothing_after(live: LiveTable) -> None:
    app = app_for(live)
    client = app.test_client()
    token = sign_in(client)
    saved = session_cookie(app, client)
    assert with_cookie(app, saved).get("/api/referee/state").status_code == 200
    res = client.post("/referee/logout", headers={"X-CSRF-Token": token})
    assert res.status_code == 200
    replay = with_cookie(app, saved)
    assert replay.get("/api/referee/state").status_code == 401
    res = replay.post("/api/referee/undo", json={}, headers={"X-CSRF-Token": token})
    assert res.status_code == 401
    assert 'name="pin"' in replay.get("/referee").get_data(as_text=True)


def test_a_restart_with_another_pin_ends_every_session_the_same_pin_keeps_them(
    live: LiveTable,
) -> None:
    before = app_for(live)
    client = before.test_client()
    sign_in(client)
    saved = session_cookie(before, client)
    same_pin = app_for(live)  # the service restarted, config unchanged
    assert with_cookie(same_pin, saved).get("/api/referee/state").status_code == 200
    new_pin = app_for(live, pin="574019")  # restarted with another PIN
    assert with_cookie(new_pin, saved).get("/api/referee/state").status_code == 401
    back = app_for(live)  # and the old PIN does not bring the session back
    assert with_cookie(back, saved).get("/api/referee/state").status_code == 401


def test_the_sessions_file_is_private_and_holds_no_usable_token(live: LiveTable) -> None:
    app = app_for(live)
    client = app.test_client()
    sign_in(client)
    path = live.store.data_dir / "sessions.db"
    assert path.stat().st_mode & 0o077 == 0
    from flask.sessions import SecureCookieSessionInterface

    serializer = SecureCookieSessionInterface().get_signing_serializer(app)
    assert serializer is not None
    token = serializer.loads(session_cookie(app, client))["sid"]
    assert token.encode() not in path.read_bytes()


@pytest.mark.parametrize("table_id", ["七号桌", "Table 7", "T-1"])
def test_a_table_of_any_name_signs_in_and_its_referee_api_works(
    live: LiveTable, table_id: str
) -> None:
    app = app_for(live, table_id=table_id)
    name = app.config["SESSION_COOKIE_NAME"]
    assert re.fullmatch(r"[A-Za-z0-9_.-]+", name), name
    client = app.test_client()
    token = sign_in(client)
    assert table_id in client.get("/referee").get_data(as_text=True)
    assert table_id in client.get("/").get_data(as_text=True)
    assert client.get("/api/referee/state").get_json()["table"] == table_id
    res = client.post("/api/referee/next-hand", json={}, headers={"X-CSRF-Token": token})
    assert res.status_code == 200 and res.get_json()["ok"] is True


def test_two_tables_of_similar_names_get_different_cookies(live: LiveTable) -> None:
    names = {app_for(live, table_id=t).config["SESSION_COOKIE_NAME"] for t in ("七号桌", "八号桌")}
    assert len(names) == 2


def test_every_page_has_a_csp_and_only_the_overlay_may_be_framed(live: LiveTable) -> None:
    client = app_for(live).test_client()
    for path in ("/", "/referee", "/api/state", "/api/events", "/static/style.css"):
        headers = client.get(path).headers
        csp = headers["Content-Security-Policy"]
        assert "default-src 'self'" in csp and "script-src 'self'" in csp, path
        assert "frame-ancestors 'none'" in csp and headers["X-Frame-Options"] == "DENY", path
        assert headers["X-Content-Type-Options"] == "nosniff", path
    overlay = client.get("/overlay").headers
    assert "frame-ancestors *" in overlay["Content-Security-Policy"]
    assert "X-Frame-Options" not in overlay


def test_the_hub_pages_carry_the_same_headers(tmp_path: Path) -> None:
    hub = make_hub(tmp_path)
    try:
        client = create_hub_app(hub).test_client()
        for path in ("/", "/bracket", "/organiser", "/t/T1/", "/api/overview"):
            csp = client.get(path).headers["Content-Security-Policy"]
            assert "frame-ancestors 'none'" in csp, path
        assert "frame-ancestors *" in client.get("/t/T1/overlay").headers["Content-Security-Policy"]
    finally:
        hub.stop()


def test_organiser_sessions_end_when_the_hub_restarts_with_another_pin(tmp_path: Path) -> None:
    hub = make_hub(tmp_path)
    try:
        app = create_hub_app(hub)
        client = app.test_client()
        assert client.post("/organiser/login", data={"pin": ORGANISER_PIN}).status_code == 303
        assert client.get("/api/organiser/overview").status_code == 200
        saved = session_cookie(app, client)
        from dataclasses import replace

        hub.config = replace(hub.config, web=replace(hub.config.web, organiser_pin="574019"))
        again = create_hub_app(hub)
        assert with_cookie(again, saved).get("/api/organiser/overview").status_code == 401
    finally:
        hub.stop()


def test_the_session_cookie_is_secure_when_the_request_came_over_tls(live: LiveTable) -> None:
    client = app_for(live).test_client()
    res = client.post("/referee/login", data={"pin": PIN}, base_url="https://localhost")
    cookie = res.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    plain = app_for(live).test_client().post("/referee/login", data={"pin": PIN})
    assert "Secure" not in plain.headers["Set-Cookie"]


@pytest.mark.parametrize("since", ["9" * 30, "-1", str(2**63), "1e9"])
def test_events_since_out_of_range_is_a_400_with_one_line(live: LiveTable, since: str) -> None:
    res = app_for(live).test_client().get(f"/api/events?since={since}")
    body = res.get_json()
    assert res.status_code == 400 and body["ok"] is False and "\n" not in body["error"]
    assert "since" in body["error"]


@pytest.mark.parametrize(
    "pin",
    ["8888", "0000", "1234", "13579", "888888", "123456", "987654", "121212", "123123", "0123456"],
)
def test_pins_too_easy_to_guess_are_refused_for_a_real_table(pin: str) -> None:
    assert pin_weakness(pin) is not None
    with pytest.raises(ConfigError) as refused:
        check_referee_pin(pin, "table.toml")
    assert "referee_pin" in str(refused.value) and "\n" not in str(refused.value)


def test_a_pin_of_six_unpatterned_digits_and_no_pin_at_all_are_accepted() -> None:
    for pin in ("902741", "574019", "31415926", ""):
        check_referee_pin(pin, "table.toml")


def test_run_refuses_the_demo_pin_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text(
        f'[web]\nreferee_pin = "8888"\n[service]\ndata_dir = "{tmp_path / "data"}"\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.cli.main", "run", "--config", str(config)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=2 * DEADLINE_S,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr
    assert "referee_pin" in done.stderr and "demo" in done.stderr
    assert not (tmp_path / "data" / "table-1.sqlite").exists()  # refused before anything starts


def test_hub_refuses_an_organiser_pin_easy_to_guess_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "hub.toml"
    config.write_text(
        f'tables = ["T1"]\ndata_dir = "{tmp_path / "hub"}"\n'
        '[mqtt]\nhost = "127.0.0.1"\nport = 1\ntournament = "cup"\n'
        '[web]\norganiser_pin = "123456"\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.cli.main", "hub", "--config", str(config)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=2 * DEADLINE_S,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "organiser_pin" in done.stderr
