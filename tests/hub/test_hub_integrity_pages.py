"""The overview in headless Chromium when the hub cannot vouch for what it shows: every table
"unknown since" while it has no broker, a conflicting event and a forged message listed for
the organisers (and only for them), and a table named 七号桌 shown by its name."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from chaodipi.hub.hub import Hub
from chaodipi.mqtt_link import Topics, topic_slug
from chaodipi.table.outbox import Signer, event_payload
from chaodipi.table.store import StoredEvent
from tests.browser import chromium_page, needs_chromium, served
from tests.hub_helpers import ORGANISER_PIN, deliver, make_hub, table_events
from tests.waiting import DEADLINE_S
from web_dashboard.hub_app import create_hub_app

pytestmark = needs_chromium

ZONE = "Asia/Shanghai"
SEVENTH = "七号桌"


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    """A hub that never reached its broker, holding two tables' hands, one conflict at T1's
    seq 2 and one forged event on 七号桌's topic."""
    folder = tmp_path_factory.mktemp("hub")
    hub = make_hub(folder, tables=("T1", SEVENTH))
    t1 = table_events(folder / "t1", seed=4, upto=10)
    deliver(hub, "T1", t1)
    deliver(hub, SEVENTH, table_events(folder / "t7", seed=3, upto=6))
    forged = StoredEvent(2, t1[1].t, t1[1].kind, t1[1].actor, {**t1[1].data, "forged": True})
    deliver(hub, "T1", [forged])
    wrong_key = Signer("spring", SEVENTH, b"a key that is not the table's own")
    bad = StoredEvent(7, t1[1].t, "play", "camera", {"seat": "N", "cards": ["BJ"]})
    hub._on_message(Topics("spring").events(SEVENTH), event_payload(bad, wrong_key))
    yield hub
    hub.stop()


@pytest.fixture(scope="module")
def hub_url(hub: Hub) -> Iterator[str]:
    with served(create_hub_app(hub)) as url:
        yield url


@pytest.fixture(scope="module")
def page(hub_url: str) -> Iterator[Any]:
    with chromium_page(DEADLINE_S, timezone_id=ZONE) as pg:
        yield pg


def hms(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, ZoneInfo(ZONE)).strftime("%H:%M:%S")


def test_without_the_broker_every_table_is_unknown_since_the_link_went(
    hub: Hub, hub_url: str, page: Any
) -> None:
    assert hub.link_down_since is not None
    since = hms(hub.link_down_since)
    page.goto(f"{hub_url}/?lang=zh")
    page.wait_for_selector("#tc-T1")
    assert page.inner_text("#tc-T1 .tcard-conn") == f"状态未知，自 {since}"
    assert page.get_attribute("#tc-T1 .tcard-conn", "data-state") == "unknown"
    assert since in page.inner_text("#link-note") and page.is_visible("#link-note")
    # the spectators' page neither alarms nor shows what was kept aside
    assert page.locator(".tcard-conflicts, .tcard-rejected, #set-aside").count() == 0

    page.get_by_role("button", name="Switch to English").click()
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert page.inner_text("#tc-T1 .tcard-conn") == f"unknown since {since}"


def test_a_table_named_in_chinese_shows_its_name_and_opens_its_scoreboard(
    hub_url: str, page: Any
) -> None:
    slug = topic_slug(SEVENTH)
    page.goto(f"{hub_url}/?lang=zh")
    card = page.locator(f'.tcard[data-table="{SEVENTH}"]')
    card.wait_for()
    assert card.locator(".tcard-name").inner_text() == SEVENTH
    assert card.get_attribute("href") == f"/t/{slug}/"
    card.click()
    page.wait_for_selector("#conn[data-status=live]")
    assert page.url.endswith(f"/t/{slug}/")
    assert page.inner_text(".table-name") == SEVENTH


def test_organisers_see_the_conflict_and_the_forged_message(hub_url: str, page: Any) -> None:
    page.goto(f"{hub_url}/organiser?lang=zh")
    page.fill("#pin", ORGANISER_PIN)
    page.click("button[type=submit]")
    page.wait_for_selector("#set-aside:not([hidden]) .set-aside-conflict")
    assert "数据冲突 1" in page.inner_text("#tc-T1")
    assert "已拒收 1 条" in page.inner_text(f'.tcard[data-table="{SEVENTH}"]')
    conflict = page.locator('.set-aside-conflict[data-table="T1"][data-seq="2"]')
    text = conflict.inner_text()
    assert "T1 · 第 2 条事件冲突" in text and '"forged":true' in text and "已存" in text
    rejected = page.locator(f'.set-aside-rejected[data-table="{SEVENTH}"]').inner_text()
    assert f"{SEVENTH} · 拒收的事件消息：签名不符" in rejected

    page.get_by_role("button", name="Switch to English").click()
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert "T1 · event 2 conflicts" in conflict.inner_text()
    assert "1 conflicting" in page.inner_text("#tc-T1")
