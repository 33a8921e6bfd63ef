"""The hub's pages in headless Chromium: the venue overview and the bracket, 简体中文 first and
English on request, and a table's scoreboard served by the hub."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser import chromium_page, needs_chromium, served
from tests.hub_helpers import deliver, make_hub, table_events
from tests.waiting import DEADLINE_S
from web_dashboard.hub_app import create_hub_app

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def hub_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("hub")
    hub = make_hub(folder)
    deliver(hub, "T2", table_events(folder / "t2"), cpu_temp_c=82.0)
    deliver(hub, "T1", table_events(folder / "t1", seed=4, upto=10))
    try:
        with served(create_hub_app(hub)) as url:
            yield url
    finally:
        hub.stop()


@pytest.fixture(scope="module")
def page(hub_url: str) -> Iterator[Any]:
    with chromium_page(DEADLINE_S) as pg:
        yield pg


def test_the_overview_shows_every_table_in_chinese_then_english(hub_url: str, page: Any) -> None:
    page.goto(f"{hub_url}/?lang=zh")
    page.wait_for_selector("#tc-T2")
    assert page.get_attribute("html", "lang") == "zh-CN"
    assert page.inner_text("h1 [data-i18n='hub.overview']") == "全部赛桌"
    t2 = page.inner_text("#tc-T2")
    assert "已结束" in t2 and "待裁定" in t2 and "82°C" in t2 and "南北" in t2
    assert "第 1 副 · 第" in page.inner_text("#tc-T1")
    assert page.get_attribute("#tc-T1", "href") == "/t/T1/"

    page.get_by_role("button", name="Switch to English").click()
    page.wait_for_function("document.documentElement.lang === 'en'")
    t2 = page.inner_text("#tc-T2")
    assert "finished" in t2 and "under review" in t2 and "NS" in t2
    assert page.inner_text("h1 [data-i18n='hub.overview']") == "All tables"

    page.click("#tc-T1")  # the table's own scoreboard, served by the hub
    page.wait_for_selector("#conn[data-status=live]")
    assert page.url.endswith("/t/T1/")
    assert page.inner_text(".table-name") == "T1"


def test_the_bracket_and_standings_in_both_languages(hub_url: str, page: Any) -> None:
    page.goto(f"{hub_url}/bracket?lang=zh")
    page.wait_for_selector("#m-1-2 .bm-winner")
    names = page.locator(".bround-name").all_inner_texts()
    assert names == ["半决赛", "决赛"]
    assert "轮空" in page.inner_text("#m-1-1")
    played = page.inner_text("#m-1-2")
    assert "蓝队" in played and "绿队" in played and "T2 桌" in played and "已结束" in played
    assert "限时/限副判胜" in played
    assert "红队" in page.inner_text("#m-2-1")
    assert page.locator("#standings tbody tr").count() == 3
    assert "第 1 轮出局" in page.inner_text("#standings")

    page.goto(f"{hub_url}/bracket?lang=en")
    page.wait_for_selector("#m-1-2 .bm-winner")
    assert page.locator(".bround-name").all_inner_texts() == ["Semi-finals", "Final"]
    assert "bye" in page.inner_text("#m-1-1")
    assert "table T2" in page.inner_text("#m-1-2")
    assert page.inner_text("#standings-h") == "Standings"
    assert "out in round 1" in page.inner_text("#standings")
