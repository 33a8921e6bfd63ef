"""The hub's web app without a browser: overview, per-table pages and API under /t/<table>/,
the bracket from the tables' results, the broadcast delay and the organisers' live view."""

from __future__ import annotations

import time
from pathlib import Path

from chaodipi.hub.store import DelayedLog
from chaodipi.table.store import EventStore
from tests.hub_helpers import ORGANISER_PIN, deliver, make_hub, table_events
from web_dashboard.hub_app import create_hub_app


def test_overview_scoreboards_and_bracket_come_from_the_tables_logs(tmp_path: Path) -> None:
    hub = make_hub(tmp_path)
    deliver(hub, "T2", table_events(tmp_path / "t2"), cpu_temp_c=71.5)
    deliver(hub, "T1", table_events(tmp_path / "t1", seed=4, upto=10))
    client = create_hub_app(hub).test_client()
    try:
        assert "全部赛桌" in client.get("/").get_data(as_text=True)
        rows = {r["table"]: r for r in client.get("/api/overview").get_json()["tables"]}
        assert rows["T2"]["hand"]["finished"] is True
        assert rows["T2"]["camera"]["cpu_temp_c"] == 71.5
        assert rows["T2"]["infractions"]["open"] >= 1  # seed 3 plants a revoke
        assert rows["T1"]["hand"]["trick"] >= 2 and rows["T1"]["hand"]["finished"] is False

        page = client.get("/t/T2/")
        assert page.status_code == 200 and "/t/T2/static/scoreboard.js" in page.get_data(True)
        assert client.get("/t/T2").status_code == 308
        state = client.get("/t/T2/api/state").get_json()
        assert state["table"] == "T2" and state["hand"]["finished"] is True
        assert client.get("/t/T2/api/records").get_json() == [{"hand": 1, "finished": True}]
        assert client.get("/t/T9/api/state").status_code == 404
        # no referee action on the hub
        assert client.get("/t/T2/referee").status_code == 404
        assert client.post("/t/T2/api/referee/next-hand").status_code in (404, 405)

        bracket = client.get("/api/bracket").get_json()
        first, final = bracket["rounds"]
        assert [r["stage"] for r in bracket["rounds"]] == ["semi", "final"]
        assert first["matches"][0]["status"] == "bye" and first["matches"][0]["winner"] == "红队"
        played = first["matches"][1]
        assert (played["top"], played["bottom"], played["table"]) == ("蓝队", "绿队", "T2")
        assert played["status"] == "done" and played["games"][0]["by_limit"] is True
        assert final["matches"][0]["top"] == "红队"
        assert final["matches"][0]["bottom"] == played["winner"]
        assert final["matches"][0]["status"] == "playing"
        assert len(bracket["standings"]) == 3
    finally:
        hub.stop()


def test_spectators_see_the_table_as_it_was_the_delay_ago_organisers_see_it_live(
    tmp_path: Path,
) -> None:
    hub = make_hub(tmp_path, delay_s=30.0)
    events = table_events(tmp_path / "t1", seed=4, upto=12)
    deliver(hub, "T1", events)
    client = create_hub_app(hub).test_client()
    try:
        assert client.get("/t/T1/api/state").get_json()["seq"] == 0
        assert client.get("/api/overview").get_json()["tables"][0]["seq"] == 0
        assert client.get("/api/organiser/overview").status_code == 401
        assert client.post("/organiser/login", data={"pin": "0000"}).status_code == 401
        assert client.post("/organiser/login", data={"pin": ORGANISER_PIN}).status_code == 303
        live = client.get("/api/organiser/overview").get_json()
        assert live["delay_s"] == 0 and live["tables"][0]["seq"] == len(events)
        assert "组织者总览" in client.get("/organiser").get_data(as_text=True)

        hub.delayed["T1"].advance(time.time() + 31)
        assert client.get("/t/T1/api/state").get_json()["seq"] == len(events)
    finally:
        hub.stop()


def test_the_delayed_view_shows_events_in_order_once_their_delay_passed(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "T1.sqlite")
    view = DelayedLog(store, delay_s=10.0)
    now = time.time()
    seqs = [store.append("trick_cleared", {"t": now, "frame": ""}, "camera") for _ in range(3)]
    events = store.events()
    view.arrived(events[:2], received_t=now)
    view.arrived(events[2:], received_t=now + 5)  # a late arrival waits its own delay
    assert view.last_seq == 0 and view.events() == []
    view.advance(now + 10.5)
    assert view.last_seq == 2 and [e.seq for e in view.events()] == seqs[:2]
    assert view.wait(2, 0.05) == 2
    view.advance(now + 15.5)
    assert view.last_seq == 3
    store.close()
