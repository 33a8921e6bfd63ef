"""The dashboard pages in a real browser (headless Debian Chromium driven by Playwright).

Each test runs the real Flask app on 127.0.0.1 (waitress, in a thread) over a real SQLite event
log in ``tmp_path``, appends events the way the camera, the service and the referee do, and
looks at what a spectator or a referee sees. One browser serves the whole module.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import playwright.sync_api as playwright_api
import pytest
import waitress.server as waitress_server

from chaodipi.config import TableConfig, WebConfig
from chaodipi.table.store import EventStore
from tests.browser import CHROMIUM, CHROMIUM_ARGS, needs_chromium
from tests.engine.test_structured_messages import PROOF_CASES, SETTLEMENTS
from tests.waiting import DEADLINE_S
from web_dashboard.app import create_app

pytestmark = needs_chromium

Browser = Any  # playwright.sync_api.Browser
Page = Any  # playwright.sync_api.Page

PIN = "2468"
TABLE = "T07"
T0 = time.time() - 600  # the hand began ten minutes ago


@dataclass
class Table:
    """A running table service: its URL and its event log."""

    url: str
    store: EventStore

    def append(self, kind: str, data: dict[str, Any], actor: str = "camera") -> int:
        return self.store.append(kind, data, actor)

    def start_hand(
        self,
        *,
        declarer: str = "N",
        trump: str = "H",
        levels: dict[str, str] | None = None,
        before_play: list[dict[str, Any]] | None = None,
        draw: dict[str, Any] | None = None,
    ) -> None:
        data: dict[str, Any] = {
            "hand": 1,
            "rules": "XX",
            "rule_overrides": {},
            "levels": levels or {"NS": "5", "EW": "3"},
            "declarer": declarer,
            "trump": trump,
        }
        if before_play is not None:
            data["before_play"] = before_play
        if draw is not None:
            data["draw"] = draw
        self.append("hand_started", data, actor="system")

    def play(
        self,
        seat: str,
        cards: list[str],
        t: float,
        unsure: dict[str, float] | None = None,
        maybe: dict[str, str] | None = None,
    ) -> int:
        data: dict[str, Any] = {
            "seat": seat,
            "cards": cards,
            "t_landed": t,
            "t_stable": t + 0.3,
            "frames": {"landed": f"{t:.1f}", "stable": f"{t + 0.3:.1f}"},
        }
        if unsure:
            data["unsure"] = unsure
        if maybe:
            data["maybe"] = maybe
        return self.append("play", data)

    def clear_trick(self, t: float) -> int:
        return self.append("trick_cleared", {"t": t, "frame": f"{t:.1f}"})

    def first_trick_then_lead_out_of_turn(self) -> None:
        """Trick 1: N leads AS, W ruffs with the level card 5S (15 points to the defenders,
        who now lead); then N leads again — out of turn (10 points, against the declarers)."""
        self.start_hand()
        for i, (seat, card) in enumerate([("N", "AS"), ("E", "KS"), ("S", "3S"), ("W", "5S")]):
            self.play(seat, [card], T0 + 2 * i)
        self.clear_trick(T0 + 9)
        self.play("N", ["10D"], T0 + 10)

    def whole_simulated_hand(self, seed: int) -> None:
        """A legal simulated hand (rules XX), kitty shown, every trick played and cleared."""
        from engine.simulate import simulate_hand

        record, _truth = simulate_hand("XX", seed)
        self.start_hand(declarer=record["declarer"], trump=record["trump"], levels=record["levels"])
        self.append("kitty", {"cards": record["kitty"], "t": T0, "frame": ""})
        for trick in record["tricks"]:
            for p in trick["plays"]:
                self.play(p["seat"], p["cards"], T0 + p["t"])
            self.clear_trick(T0 + trick["plays"][-1]["t"] + 1)

    def state(self) -> dict[str, Any]:
        from urllib.request import urlopen

        with urlopen(f"{self.url}/api/state", timeout=DEADLINE_S) as res:
            state: dict[str, Any] = json.load(res)
        return state


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    store = EventStore(tmp_path / f"{TABLE}.sqlite")
    app = create_app(store, TableConfig(table_id=TABLE, web=WebConfig(referee_pin=PIN)))
    server = waitress_server.create_server(app, host="127.0.0.1", port=0, threads=16)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield Table(f"http://127.0.0.1:{server.effective_port}", store)
    finally:
        store.close()  # wakes the event streams
        server.close()
        thread.join(timeout=5)


NewContext = Callable[..., Any]  # (**context options) -> playwright.sync_api.BrowserContext


@pytest.fixture
def new_context(browser: Browser) -> Iterator[NewContext]:
    """Opens browser contexts (separate cookie jars: separate people) and closes them all, and
    fails the test on any JavaScript error in their pages."""
    opened: list[Any] = []
    errors: list[str] = []

    def open_context(**options: Any) -> Any:
        context = browser.new_context(**{"viewport": {"width": 1366, "height": 900}, **options})
        context.set_default_timeout(DEADLINE_S * 1000)
        context.on("page", lambda pg: pg.on("pageerror", lambda e: errors.append(str(e))))
        opened.append(context)
        return context

    yield open_context
    for context in opened:
        context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


@pytest.fixture
def page(new_context: NewContext) -> Page:
    return new_context().new_page()


def open_live(page: Page, url: str) -> None:
    """Open a page and wait until its event stream is connected."""
    page.goto(url)
    page.wait_for_selector("#conn[data-status=live]")


def sign_in(page: Page, table: Table) -> None:
    page.goto(f"{table.url}/referee")
    page.fill("#pin", PIN)
    page.click("form button[type=submit]")
    page.wait_for_selector("meta[name=csrf-token]", state="attached")


# ------------------------------------------------------------------ the scoreboard


def test_a_play_shows_on_the_scoreboard_within_one_second_of_its_event(
    table: Table, page: Page
) -> None:
    table.start_hand()
    open_live(page, table.url)
    page.wait_for_selector("#level-NS:text-is('5')")

    started = time.monotonic()
    table.play("N", ["AS", "AS"], time.time())
    page.wait_for_selector("#seat-N svg[data-card=AS] >> nth=1", timeout=1000)
    assert time.monotonic() - started < 1.0

    table.play("E", ["BJ"], time.time())
    joker = page.wait_for_selector("#seat-E svg[data-card=BJ]", timeout=1000)
    assert joker.get_attribute("aria-label") == "大王"
    assert "大" in (joker.text_content() or "")


def test_without_server_sent_events_the_scoreboard_polls_and_still_keeps_up(
    table: Table, new_context: NewContext
) -> None:
    context = new_context()
    context.add_init_script("delete window.EventSource;")
    pg = context.new_page()
    table.start_hand()
    pg.goto(table.url)
    pg.wait_for_selector("#conn[data-status=polling]")
    table.play("N", ["10H"], time.time())
    pg.wait_for_selector("#seat-N svg[data-card='10H']", timeout=1000)


def test_the_scoreboard_shows_contract_points_clock_history_and_chart(
    table: Table, page: Page
) -> None:
    table.first_trick_then_lead_out_of_turn()
    page.goto(table.url)
    page.wait_for_selector("#seat-N svg[data-card='10D']")

    assert page.inner_text("#level-NS") == "5" and page.inner_text("#level-EW") == "3"
    assert page.inner_text("#declarer") == "北"
    assert "红桃" in page.inner_text("#trump") and page.is_visible("#trump .suit-red")
    assert page.inner_text("#defender-points") == "15"
    assert [c.get_attribute("data-card") for c in page.query_selector_all("#point-cards svg")] == [
        "KS",
        "5S",
    ]
    assert "第 2 墩" in page.inner_text("#trick-no")
    # trick 1 in the history, won by 西 (W ruffed with the level card), 15 points
    history = page.inner_text("#history")
    assert "第 1 墩" in history and "西大" in history and "+15" in history
    # the chart has one bar (trick 1) and the running-total line
    assert len(page.query_selector_all("#chart svg rect.bar")) == 1
    assert page.query_selector("#chart svg path.cum-line") is not None
    # E is to play, and the last play landed long ago: the clock says 超时, not only in red
    clock = page.wait_for_selector("#seat-E .clock.clock-over")
    assert "超时" in clock.inner_text()
    # the open infraction is shown as under review, not as a confirmed one
    banner = page.inner_text("#infractions")
    assert "待裁定" in banner and "北" in banner and "未按顺序出牌" in banner
    assert page.query_selector("#infractions .inf-confirmed") is None


def test_the_scoreboard_shows_the_declarations_in_order_and_the_trump_they_gave(
    table: Table, page: Page
) -> None:
    table.start_hand(
        before_play=[
            {"seat": "S", "action": "declare", "cards": ["5C"], "face_down": True, "t": T0},
            {"seat": "W", "action": "declare", "cards": ["5D"], "face_down": True, "t": T0 + 2,
             "revealed_t": T0 + 5},
            {"seat": "N", "action": "chao", "cards": ["5H", "5H"], "t": T0 + 30},
            {"seat": "E", "action": "pass", "t": T0 + 35},
            {"seat": "N", "action": "take", "t": T0 + 40},
            {"seat": "N", "action": "bury", "cards": ["2S", "3S", "4S", "6S", "7S", "8S", "9S",
             "JS"], "t": T0 + 70},
        ]
    )  # fmt: skip
    open_live(page, table.url)
    line = page.wait_for_selector("#before-play:not([hidden])")
    text = line.inner_text()
    assert "叫主 / 炒底" in text
    said = [text.index(words) for words in ("南叫主", "暗放 1 张", "西叫主", "北炒")]
    assert said == sorted(said)
    assert "东不炒" not in text and "扣底" not in text  # the line shows the bids only
    shown = page.query_selector_all("#before-play-body svg")
    assert [c.get_attribute("data-card") for c in shown] == ["5D", "5H", "5H"]  # not 5C: face down
    assert "底牌在北" in text and "定主" in text and "红桃" in text

    sign_in(page, table)  # the referee's 牌前 panel lists every event, face-down cards too
    page.wait_for_selector("#bp-panel:not([hidden]) #bp-list li >> nth=5")
    steps = [li.inner_text() for li in page.query_selector_all("#bp-list li")]
    assert "东不炒" in steps[3] and "北拿底" in steps[4] and "北扣底" in steps[5]
    assert page.query_selector("#bp-list li:first-child svg[data-card='5C']") is not None
    assert "底牌在北" in page.inner_text("#bp-outcome")


def test_nobody_is_on_the_clock_before_the_first_play_and_a_stopped_clock_stays_put(
    table: Table, page: Page
) -> None:
    table.start_hand()  # ten minutes before anyone plays: N (the declarer) is not over time
    page.goto(table.url)
    page.wait_for_selector("#level-NS:text-is('5')")
    assert table.state()["hand"]["clock"] is None
    assert page.locator(".clock-over").count() == 0
    assert all(page.inner_text(f"#seat-{seat} .clock") == "" for seat in "NESW")

    table.play("N", ["AS"], T0)  # the feed's last play, ten minutes ago: the hand went idle
    clock = page.wait_for_selector("#seat-E .clock.clock-stopped")
    shown = clock.inner_text()
    assert "计时已停" in shown and "超时 +105 秒" in shown  # stopped 120 s after it, not +585
    state = table.state()["hand"]["clock"]
    assert state["seat"] == "E" and state["stopped"] is True and state["over"] is True


def test_a_finished_hand_keeps_its_last_trick_on_the_table_and_explains_the_result(
    table: Table, page: Page
) -> None:
    table.whole_simulated_hand(seed=2)  # the defenders take 90 + the kitty 35 × 2
    page.goto(table.url)
    result = page.wait_for_selector("#result-line:not([hidden])")
    assert "本副结果" in result.inner_text() and "台下方得分 160" in result.inner_text()
    assert "defenders" not in result.inner_text()
    assert page.inner_text("#felt-centre") == "本副结束"
    assert page.locator("#felt .seat-cards svg").count() >= 4
    assert "×2" in page.inner_text("#kitty-line")
    assert len(page.query_selector_all("#history > li")) == table.state()["hand"]["trick"]

    page.get_by_role("button", name="Switch to English").click()
    assert "defenders 160 = table 90 + kitty 35×2" in page.inner_text("#result-line")
    assert "台下方" not in page.inner_text("#result-line")


# ------------------------------------------------------------------ the referee


def test_a_referee_confirms_an_infraction_and_spectators_see_the_score_change(
    table: Table, new_context: NewContext
) -> None:
    table.first_trick_then_lead_out_of_turn()
    spectator = new_context().new_page()
    open_live(spectator, table.url)
    spectator.wait_for_selector("#defender-points:text-is('15')")

    referee = new_context().new_page()
    sign_in(referee, table)
    item = referee.locator("#queue .queue-item", has_text="未按顺序出牌").filter(has_text="北")
    item.wait_for()
    assert item.locator(".proof").count() == 1  # the engine's proof is shown to the referee
    item.get_by_role("button", name="确认违例").click()
    referee.wait_for_selector("#queue-msg.msg-ok")

    # against the declarers (N): +10 for the defenders, on the spectator's page within 1 s
    spectator.wait_for_selector("#defender-points:text-is('25')", timeout=1000)
    assert "罚分 +10" in spectator.inner_text("#points-extra")
    assert "违例" in spectator.inner_text("#infractions .inf-confirmed")


def test_decided_infractions_leave_the_queue_for_their_own_list_with_note_referee_and_time(
    table: Table, page: Page
) -> None:
    table.start_hand()
    for seat, card, t in [("N", "AS", 0), ("E", "KS", 2), ("S", "3S", 4), ("W", "5S", 40)]:
        table.play(seat, [card], T0 + t)  # W ruffs, 36 s after S: over time
    table.clear_trick(T0 + 41)
    table.play("N", ["10D"], T0 + 42)  # W won trick 1: N leads out of turn
    page.goto(f"{table.url}/referee")
    page.fill("#pin", PIN)
    page.fill("#name", "王裁判")
    page.click("form button[type=submit]")

    slow = page.locator("#queue .queue-item", has_text="出牌超时")
    slow.wait_for()
    proof = slow.locator(".proof").inner_text()
    assert "第1墩" in proof and "西" in proof and "用时 36 秒" in proof and "限时 15 秒" in proof
    assert not re.search(r"[A-Za-z]{3,}", proof), proof  # no English sentence
    assert not re.search(r"\d{6,}|e\+0\d", proof), proof  # no epoch stamp

    out_of_turn = page.locator("#queue .queue-item", has_text="未按顺序出牌")
    out_of_turn.locator("input[data-note-for]").fill("看见了，北抢先出牌")
    out_of_turn.get_by_role("button", name="确认违例").click()
    decided = page.locator("#decided .queue-item", has_text="未按顺序出牌")
    decided.wait_for()
    assert out_of_turn.count() == 0  # gone from the pending list
    assert "确认违例" in decided.locator(".decision").inner_text()
    assert "看见了，北抢先出牌" in decided.locator(".decided-note").inner_text()
    assert "王裁判" in decided.locator(".decided-by").inner_text()
    assert re.search(r"\d{1,2}:\d{2}:\d{2}", decided.locator(".decided-at").inner_text())
    assert "北" in decided.locator(".proof").inner_text()
    assert page.is_hidden("#queue-empty") and page.is_hidden("#decided-empty")

    slow.get_by_role("button", name="驳回").click()
    page.locator("#decided .queue-item", has_text="出牌超时").wait_for()
    assert page.locator("#queue .queue-item").count() == 0
    assert page.is_visible("#queue-empty")  # 没有待裁定的违例: now, and only now
    assert "驳回" in page.locator("#decided .decided-dismissed .decision").inner_text()

    page.get_by_role("button", name="Switch to English").click()
    english = page.locator("#decided .queue-item", has_text="over time").locator(".proof")
    assert "W played 5♠ 36 s after the previous card; the limit is 15 s" in english.inner_text()


def test_every_engine_message_kind_reads_whole_in_either_language(table: Table, page: Page) -> None:
    proofs = [inf.to_json()["proof_data"] for cases in PROOF_CASES.values() for case in cases
              for inf in case().infractions]  # fmt: skip
    steps = [step for make in SETTLEMENTS for step in make().steps]
    table.start_hand()
    sign_in(page, table)
    render = """async ([proofs, steps]) => {
      const { proofSentence } = await import("./static/referee.js");
      const { stepText } = await import("./static/score.js");
      return [...proofs.map(proofSentence), ...steps.map(stepText)];
    }"""
    chinese = page.evaluate(render, [proofs, steps])
    page.get_by_role("button", name="Switch to English").click()
    english = page.evaluate(render, [proofs, steps])
    for zh, en in zip(chinese, english, strict=True):
        assert zh and en and not re.search(r"[{}]|undefined|null|NaN", zh + en), (zh, en)
        assert re.search(r"[\u4e00-\u9fff]", zh) and not re.search(r"[A-Za-z]{3,}", zh), zh
        assert not re.search(r"[\u4e00-\u9fff]", en), en


def test_an_infraction_resting_on_an_unsure_read_asks_the_referee_to_look_at_the_cards(
    table: Table, new_context: NewContext
) -> None:
    table.start_hand()
    table.play("N", ["AS"], T0)
    table.play("E", ["3D"], T0 + 2, unsure={"3D": 0.6})  # a 3S, perhaps
    table.play("S", ["3S"], T0 + 4)
    table.play("W", ["2S"], T0 + 6)
    table.clear_trick(T0 + 9)
    for i, (seat, card) in enumerate([("N", "6S"), ("E", "KS"), ("S", "7S"), ("W", "4S")]):
        table.play(seat, [card], T0 + 10 + 2 * i)  # E plays a spade: "it held one in trick 1"

    referee = new_context().new_page()
    sign_in(referee, table)
    item = referee.locator("#queue .queue-item", has_text="该跟不跟").filter(has_text="东")
    item.wait_for()
    assert "识别存疑" in item.locator(".to-check").inner_text()
    assert "3D" in item.locator(".to-check").inner_text()
    assert table.state()["infractions"] == []  # not shown to spectators while it is a question
    item.get_by_role("button", name="确认违例").click()
    referee.wait_for_selector("#queue-msg.msg-ok")
    assert [i["kind"] for i in table.state()["infractions"]] == ["revoke"]


def test_a_third_copy_resting_on_a_kitty_card_read_in_doubt_offers_the_kitty_to_enter(
    table: Table, new_context: NewContext
) -> None:
    table.start_hand()
    kitty = ["AS", "2H", "3H", "4H", "6H", "7H", "8H", "9H"]  # its AS may be a 4S
    table.append("kitty", {"cards": kitty, "t": T0, "frame": "", "unsure": {"AS": 0.55},
                           "maybe": {"AS": "4S"}})  # fmt: skip
    for i, (seat, card) in enumerate([("N", "AS"), ("E", "3S"), ("S", "5S"), ("W", "6S")]):
        table.play(seat, [card], T0 + 10 + 2 * i)
    table.clear_trick(T0 + 19)
    for i, (seat, card) in enumerate([("N", "AS"), ("E", "7S"), ("S", "8S"), ("W", "9S")]):
        table.play(seat, [card], T0 + 20 + 2 * i)  # a third AS, if the kitty's is one

    referee = new_context().new_page()
    sign_in(referee, table)
    item = referee.locator("#queue .queue-item", has_text="重复牌")
    item.wait_for()
    assert "底牌" in item.locator(".to-check").inner_text()
    item.get_by_role("button", name="补录底牌…").click()
    assert referee.input_value("#kitty-cards") == " ".join(["4S", *kitty[1:]])
    referee.locator("#kitty-form button[type=submit]").click()
    referee.wait_for_selector("#kitty-msg.msg-ok")
    item.wait_for(state="detached")  # the kitty entered: no third AS, nothing to ask


def test_the_referee_settles_a_misread_with_the_cameras_runner_up_in_one_click(
    table: Table, new_context: NewContext
) -> None:
    table.start_hand()
    table.play("N", ["AS"], T0)
    table.play("E", ["3D"], T0 + 2, unsure={"3D": 0.6}, maybe={"3D": "3S"})
    table.play("S", ["3S"], T0 + 4)
    table.play("W", ["2S"], T0 + 6)
    table.clear_trick(T0 + 9)
    for i, (seat, card) in enumerate([("N", "6S"), ("E", "KS"), ("S", "7S"), ("W", "4S")]):
        table.play(seat, [card], T0 + 10 + 2 * i)

    referee = new_context().new_page()
    sign_in(referee, table)
    item = referee.locator("#queue .queue-item", has_text="该跟不跟").filter(has_text="东")
    item.wait_for()
    assert "可能是 3S" in item.locator(".to-check").inner_text()
    item.get_by_role("button", name="核对后更正：东 第 1 墩 3D → 3S").click()
    referee.wait_for_selector("#queue-msg.msg-ok")
    referee.wait_for_selector("#queue-empty:not([hidden])")  # the question is settled
    assert table.state()["infractions"] == []
    (play,) = [p for p in table.state()["hand"]["tricks"][0]["plays"] if p["seat"] == "E"]
    assert play["cards"] == ["3S"]


def test_a_doubtful_card_that_proves_nothing_is_still_offered_for_correction(
    table: Table, new_context: NewContext
) -> None:
    # a "QC" that may be 10C breaks no rule, but a 10 is worth 10 points: the referee looks
    table.start_hand()
    table.play("N", ["AC"], T0)
    table.play("E", ["QC"], T0 + 2, unsure={"QC": 0.63}, maybe={"QC": "10C"})

    referee = new_context().new_page()
    sign_in(referee, table)
    item = referee.locator("#conflicts .queue-item", has_text="识别存疑")
    item.wait_for()
    assert "QC 可能是 10C" in item.inner_text()
    # to write something else, the correction form is filled with the play as recorded
    item.get_by_role("button", name="改写 东 第 1 墩的出牌…").click()
    assert referee.input_value("#corr-trick") == "1" and referee.input_value("#corr-seat") == "E"
    assert referee.input_value("#corr-cards") == "QC"
    item.get_by_role("button", name="核对后更正：东 第 1 墩 QC → 10C").click()
    referee.wait_for_selector("#conflicts-msg.msg-ok")
    (play,) = [p for p in table.state()["hand"]["current_trick"]["plays"] if p["seat"] == "E"]
    assert play["cards"] == ["10C"]


def test_a_kitty_read_one_card_short_is_the_referees_to_finish(
    table: Table, new_context: NewContext
) -> None:
    table.start_hand()
    seven = ["10H", "10S", "2H", "7S", "9S", "KH", "QS"]  # 3H of the tight fan never read
    table.append("recognition_conflict", {"kind": "kitty_incomplete", "seat": None,
                 "cards": seven, "detail": "底牌只认出 7/8 张", "t": T0})  # fmt: skip
    referee = new_context().new_page()
    sign_in(referee, table)
    item = referee.locator("#conflicts .queue-item", has_text="底牌没认全")
    item.wait_for()
    item.get_by_role("button", name="补录底牌…").click()
    assert referee.input_value("#kitty-cards") == " ".join(seven)
    referee.fill("#kitty-cards", " ".join([*seven, "3H"]))
    referee.locator("#kitty-form button[type=submit]").click()
    referee.wait_for_selector("#kitty-msg.msg-ok")


def test_a_wrong_pin_is_refused_on_the_sign_in_page(table: Table, page: Page) -> None:
    page.goto(f"{table.url}/referee")
    page.get_by_label("PIN 码").fill("0000")
    page.get_by_role("button", name="登录").click()
    page.wait_for_selector("#login-error")
    assert page.query_selector("meta[name=csrf-token]") is None
    assert page.query_selector("#queue") is None


def test_a_referee_corrects_a_play_with_card_notation_checked_before_sending(
    table: Table, page: Page
) -> None:
    table.first_trick_then_lead_out_of_turn()
    sign_in(page, table)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)

    page.fill("#corr-trick", "1")
    page.select_option("#corr-seat", "E")
    page.fill("#corr-cards", "10H QX")
    page.get_by_role("button", name="更正", exact=True).click()
    assert "QX" in page.inner_text("#corr-msg")
    assert page.get_attribute("#corr-cards", "aria-invalid") == "true"
    assert posts == []

    # the server's one-line error for a trick that was never played is shown inline
    page.fill("#corr-trick", "9")
    page.fill("#corr-cards", "QS")
    page.get_by_role("button", name="更正", exact=True).click()
    error = page.wait_for_selector("#corr-msg.msg-error")
    assert "9" in error.inner_text()

    page.fill("#corr-trick", "1")
    page.fill("#corr-cards", "4s")  # lower case is read too
    assert page.query_selector("#corr-preview svg[data-card='4S']") is not None
    page.get_by_role("button", name="更正", exact=True).click()
    page.wait_for_selector("#corr-msg.msg-ok")
    page.locator("#corrections li", has_text="东").wait_for()
    assert table.store.events()[-1].kind == "play_corrected"


# ------------------------------------------------------------------ spectators' limits


def test_a_spectator_cannot_reach_referee_actions(table: Table, page: Page) -> None:
    table.first_trick_then_lead_out_of_turn()
    open_live(page, table.url)
    # the scoreboard offers nothing but the language switch
    assert page.locator("button").count() == 1
    assert page.locator("form, input, select").count() == 0
    assert page.query_selector("meta[name=csrf-token]") is None
    # and the referee API refuses a spectator's browser
    ident = table.state()["infractions"][0]["id"]
    refused = page.request.post(
        f"{table.url}/api/referee/infractions/{ident}", data={"decision": "confirm"}
    )
    assert refused.status == 401
    assert page.request.get(f"{table.url}/api/referee/state").status == 401
    assert page.request.post(f"{table.url}/api/referee/next-hand", data={}).status == 401
    # a spectator's state carries no proof
    assert "proof" not in json.dumps(table.state())


def test_a_referee_session_without_the_csrf_token_is_refused(table: Table, page: Page) -> None:
    table.first_trick_then_lead_out_of_turn()
    sign_in(page, table)
    ident = table.state()["infractions"][0]["id"]
    refused = page.request.post(
        f"{table.url}/api/referee/infractions/{ident}", data={"decision": "confirm"}
    )
    assert refused.status == 403


# ------------------------------------------------------------------ languages


def test_the_scoreboard_speaks_chinese_first_and_english_on_request(
    table: Table, page: Page
) -> None:
    table.first_trick_then_lead_out_of_turn()
    page.goto(table.url)
    page.wait_for_selector("#seat-N svg[data-card='10D']")
    assert page.get_attribute("html", "lang") == "zh-CN"
    assert page.inner_text("#points-h") == "台下得分"
    assert page.inner_text("#side-NS .side-name") == "南北"
    assert "待裁定" in page.inner_text("#infractions")

    page.goto(f"{table.url}/?lang=en")
    page.wait_for_selector("#seat-N svg[data-card='10D']")
    assert page.get_attribute("html", "lang") == "en"
    assert page.inner_text("#points-h") == "Defenders' points"
    assert page.inner_text("#side-NS .side-name") == "NS"
    assert page.inner_text("#declarer") == "N"
    assert "Under review" in page.inner_text("#infractions")
    assert "out of turn" in page.inner_text("#infractions")

    # the toggle switches back, and the choice is remembered without the query
    page.get_by_role("button", name="切换到中文").click()
    assert page.inner_text("#points-h") == "台下得分"
    page.goto(table.url)
    page.wait_for_selector("#seat-N svg[data-card='10D']")
    assert page.inner_text("#side-NS .side-name") == "南北"
    page.get_by_role("button", name="Switch to English").click()
    page.reload()
    assert page.inner_text("#points-h") == "Defenders' points"


def test_the_referee_console_speaks_both_languages(table: Table, page: Page) -> None:
    table.first_trick_then_lead_out_of_turn()
    sign_in(page, table)
    page.wait_for_selector("#queue .queue-item")
    assert page.inner_text("#queue-h") == "违例待裁定"
    assert page.get_by_role("button", name="确认违例").count() >= 1

    page.goto(f"{table.url}/referee?lang=en")
    page.wait_for_selector("#queue .queue-item")
    assert page.inner_text("#queue-h") == "Infractions to decide"
    assert page.get_by_role("button", name="Confirm").count() >= 1
    assert "out of turn" in page.inner_text("#queue")


def test_the_overlay_is_transparent_and_shows_the_essentials(table: Table, page: Page) -> None:
    table.first_trick_then_lead_out_of_turn()
    page.goto(f"{table.url}/overlay")
    page.wait_for_selector("#seat-N svg[data-card='10D']")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgba(0, 0, 0, 0)"
    assert page.inner_text("#defender-points") == "15"
    assert page.inner_text("#level-NS") == "5"
    assert page.locator("button, form").count() == 0


# ------------------------------------------------------------------ cards, layout, network


def test_card_notation_is_checked_and_drawn_in_the_page(table: Table, page: Page) -> None:
    page.goto(table.url)
    parsed = page.evaluate(
        """async () => {
          const m = await import("/static/cards.js");
          return ["10H QS", "10h, qs", "BJ SJ", "1H", "QS QS QS", " "].map((text) => {
            const r = m.parseCardList(text);
            return [r.cards, r.error && r.error.en];
          });
        }"""
    )
    assert parsed[0] == [["10H", "QS"], None]
    assert parsed[1] == [["10H", "QS"], None]
    assert parsed[2] == [["BJ", "SJ"], None]
    assert parsed[3][0] == [] and '"1H"' in parsed[3][1]
    assert "QS appears 3 times" in parsed[4][1]
    assert parsed[5][1] == "type at least one card"

    drawn = page.evaluate(
        """async () => {
          const m = await import("/static/cards.js");
          const svg = (c) => m.cardSVG(c);
          return Object.fromEntries(["10H", "QS", "BJ", "SJ"].map((c) => [c, {
            text: svg(c).textContent, label: svg(c).getAttribute("aria-label"),
            red: svg(c).classList.contains("card-red"),
          }]));
        }"""
    )
    assert "10" in drawn["10H"]["text"] and "♥" in drawn["10H"]["text"] and drawn["10H"]["red"]
    assert drawn["10H"]["label"] == "红桃10"
    assert "♠" in drawn["QS"]["text"] and not drawn["QS"]["red"]
    assert "大" in drawn["BJ"]["text"] and drawn["BJ"]["red"] and drawn["BJ"]["label"] == "大王"
    assert "小" in drawn["SJ"]["text"] and not drawn["SJ"]["red"] and drawn["SJ"]["label"] == "小王"


@pytest.mark.parametrize("path", ["/", "/referee"])
def test_pages_fit_a_phone_without_sideways_scrolling(
    table: Table, new_context: NewContext, path: str
) -> None:
    table.first_trick_then_lead_out_of_turn()
    phone = new_context(viewport={"width": 360, "height": 740}).new_page()
    if path == "/referee":
        sign_in(phone, table)
        phone.wait_for_selector("#queue .queue-item")
    else:
        phone.goto(table.url + path)
        phone.wait_for_selector("#seat-N svg[data-card='10D']")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360


def test_a_projector_gets_larger_type(table: Table, new_context: NewContext) -> None:
    sizes = {}
    for width in (1366, 1920):
        pg = new_context(viewport={"width": width, "height": 1080}).new_page()
        pg.goto(table.url)
        sizes[width] = pg.evaluate(
            "parseFloat(getComputedStyle(document.documentElement).fontSize)"
        )
    assert sizes[1920] >= 1.3 * sizes[1366]


def test_the_pages_fetch_nothing_from_anywhere_else(table: Table, page: Page) -> None:
    table.first_trick_then_lead_out_of_turn()
    urls: list[str] = []
    page.on("request", lambda r: urls.append(r.url))
    for path in ("/", "/overlay?lang=en"):
        page.goto(table.url + path)
        page.wait_for_selector("#seat-N svg[data-card='10D']")
    sign_in(page, table)
    page.wait_for_selector("#queue .queue-item")
    assert urls and all(u.startswith(table.url) or u.startswith("data:") for u in urls), urls


# ------------------------------------------------------------------ the referee's other tools


def test_an_expired_referee_session_points_to_the_sign_in_page(table: Table, page: Page) -> None:
    table.first_trick_then_lead_out_of_turn()
    sign_in(page, table)
    page.wait_for_selector("#queue .queue-item")
    page.context.clear_cookies()
    page.get_by_role("button", name="确认违例").first.click()
    notice = page.wait_for_selector("#auth-notice:not([hidden])")
    assert "重新登录" in notice.inner_text()
    assert page.get_attribute("#login-link", "href") == "/referee"
    assert "infraction_decided" not in [e.kind for e in table.store.events()]


def test_an_infraction_arriving_leaves_the_queued_items_under_the_pointer_alone(
    table: Table, page: Page
) -> None:
    """A referee about to confirm one infraction must not lose the click to another arriving:
    the items already queued stay the same elements, only the new one is added."""
    table.first_trick_then_lead_out_of_turn()
    sign_in(page, table)
    page.wait_for_selector("#queue .queue-item")
    queued = page.locator("#queue .queue-item").count()
    page.evaluate("document.querySelectorAll('#queue .queue-item').forEach((n) => n.kept = true)")
    page.fill("#queue input[data-note-for]", "看到了")
    table.play("S", ["4D"], T0 + 12)  # another seat out of turn
    page.wait_for_selector(f"#queue .queue-item:nth-child({queued + 1})")
    items = "[...document.querySelectorAll('#queue .queue-item')]"
    kept = page.evaluate(f"{items}.map((n) => !!n.kept)")
    assert kept.count(True) == queued
    assert page.input_value("#queue input[data-note-for]") == "看到了"


def test_a_late_answer_sent_before_the_session_expired_leaves_the_notice_up(
    table: Table, page: Page
) -> None:
    table.first_trick_then_lead_out_of_turn()
    sign_in(page, table)
    page.wait_for_selector("#queue .queue-item")
    signed_in_state = json.loads(
        page.evaluate("fetch('/api/referee/state').then((res) => res.text())")
    )
    held: list[playwright_api.Route] = []
    page.route("**/api/referee/state", lambda route: held.append(route))
    with page.expect_request("**/api/referee/state"):
        table.play("E", ["3D"], T0 + 12)  # the page reloads its state, still signed in
    page.context.clear_cookies()
    # (events arriving apart may have asked for the state more than once)
    sent_before_the_session_was_found_gone = list(held)
    assert sent_before_the_session_was_found_gone
    page.get_by_role("button", name="确认违例").first.click()
    page.wait_for_selector("#auth-notice:not([hidden])")

    # those requests are answered only now, signed in; any sent since is answered as the
    # server answers a request without the session
    for route in sent_before_the_session_was_found_gone:
        route.fulfill(status=200, json={**signed_in_state, "infractions": []})
    for route in held[len(sent_before_the_session_was_found_gone) :]:
        route.fulfill(status=401, json={"ok": False, "error": "sign in"})
    page.wait_for_selector("#queue-empty:not([hidden])")
    assert page.is_visible("#auth-notice")


def test_the_contract_and_the_next_hand_entered_by_the_referee_reach_spectators(
    table: Table, new_context: NewContext
) -> None:
    table.start_hand()
    spectator = new_context().new_page()
    open_live(spectator, table.url)
    spectator.wait_for_selector("#declarer:text-is('北')")
    referee = new_context().new_page()
    sign_in(referee, table)

    referee.select_option("#c-declarer", "E")
    referee.select_option("#c-trump", "S")
    referee.get_by_role("button", name="保存定约").click()
    referee.wait_for_selector("#contract-msg.msg-ok")
    spectator.wait_for_selector("#declarer:text-is('东')", timeout=1000)
    assert "黑桃" in spectator.inner_text("#trump")
    assert spectator.inner_text("#tag-EW").startswith("坐庄")

    # starting the next hand cannot be undone: the first click only arms the button
    next_hand = referee.locator("#next-hand")
    next_hand.click()
    assert "再点一次确认" in next_hand.inner_text()
    assert "next_hand" not in [e.kind for e in table.store.events()]
    next_hand.click()
    referee.wait_for_selector("#flow-msg.msg-ok")
    spectator.wait_for_selector("#hand-no:text-is('第 2 副')", timeout=1000)


def test_the_referee_enters_a_declaration_and_a_chao_and_spectators_see_them(
    table: Table, new_context: NewContext
) -> None:
    table.start_hand()  # N declares, hearts, levels 5 / 3; no bidding recorded yet
    spectator = new_context().new_page()
    open_live(spectator, table.url)
    spectator.wait_for_selector("#declarer:text-is('北')")
    referee = new_context().new_page()
    sign_in(referee, table)
    referee.wait_for_selector("#bp-list li:text-is('尚未录入牌前记录')")
    referee.click("#bp-editor summary")

    def add(action: str, seat: str, cards: str = "", face_down: bool = False) -> None:
        referee.select_option("#bp-action", action)
        referee.select_option("#bp-seat", seat)
        if cards:
            referee.fill("#bp-cards", cards)
        if face_down:
            referee.check("#bp-facedown")
        referee.get_by_role("button", name="添加一步").click()

    add("chao", "W", "5s 5s")
    add("declare", "N", "5H", face_down=True)
    add("pass", "E")
    assert "有未保存的修改" in referee.inner_text("#bp-msg")
    referee.get_by_role("button", name="删除这一步").nth(2).click()  # not E's pass after all
    referee.get_by_role("button", name="上移").nth(1).click()  # N declared before W's 炒
    steps = referee.locator("#bp-steps li")
    assert steps.count() == 2 and "北叫主" in steps.nth(0).inner_text()
    assert table.store.last_seq == 1  # nothing is sent before the referee saves
    referee.get_by_role("button", name="保存牌前记录").click()
    referee.wait_for_selector("#bp-msg.msg-ok")

    # the spectators' 叫主 / 炒底 line: N's face-down card a count, W's pair, the trump it gave
    line = spectator.wait_for_selector("#before-play:not([hidden])")
    spectator.wait_for_selector("#before-play-body svg[data-card='5S'] >> nth=1")
    text = line.inner_text()
    said = [text.index(words) for words in ("北叫主", "暗放 1 张", "西炒")]
    assert said == sorted(said)
    assert "定主" in text and "黑桃" in text
    assert spectator.query_selector("#before-play-body svg[data-card='5H']") is None
    spectator.wait_for_selector("#declarer:text-is('北')")
    [contract_set] = [e for e in table.store.events() if e.kind == "contract_set"]
    assert contract_set.data == {
        "before_play": [
            {"seat": "N", "action": "declare", "cards": ["5H"], "face_down": True},
            {"seat": "W", "action": "chao", "cards": ["5S", "5S"]},
        ],
        "trump": "S",  # the 炒 made spades the trump
    }
    # the console's list shows the referee the face-down card
    referee.wait_for_selector("#bp-list li:first-child svg[data-card='5H']")

    # a step the record cannot hold is refused with the server's one line; nothing is logged
    logged = table.store.last_seq
    add("declare", "S", "5C 5C 5D 5D 5S")
    referee.get_by_role("button", name="保存牌前记录").click()
    error = referee.wait_for_selector("#bp-msg.msg-error").inner_text()
    assert "牌前记录无效" in error and "before_play event 3: a declare shows 1 to 4 cards" in error
    assert table.store.last_seq == logged


def test_the_referee_corrects_the_draw_and_spectators_and_the_audit_follow(
    table: Table, new_context: NewContext
) -> None:
    drawn = {"first": "N", "direction": "clockwise", "shuffled_by": "W", "cut_by": "E"}
    table.start_hand(draw=drawn)  # the game's first hand, as the table recorded its draw
    spectator = new_context().new_page()
    open_live(spectator, table.url)
    line = spectator.wait_for_selector("#before-play:not([hidden])")
    assert "摸牌：北先摸 · 顺时针" in line.inner_text()
    referee = new_context().new_page()
    sign_in(referee, table)
    referee.wait_for_selector("#bp-draw:has-text('摸牌：北先摸 · 顺时针')")
    referee.wait_for_selector("#queue-empty:not([hidden])")
    referee.click("#bp-editor summary")
    assert referee.input_value("#bp-draw-first") == "N"
    assert referee.input_value("#bp-draw-direction") == "clockwise"

    referee.select_option("#bp-draw-first", "E")
    referee.select_option("#bp-draw-direction", "counterclockwise")
    assert "有未保存的修改" in referee.inner_text("#bp-msg")
    assert table.store.last_seq == 1  # nothing is sent before the referee saves
    referee.get_by_role("button", name="保存牌前记录").click()
    referee.wait_for_selector("#bp-draw:has-text('摸牌：东先摸 · 逆时针')")
    [contract_set] = [e for e in table.store.events() if e.kind == "contract_set"]
    assert contract_set.data == {  # the draw alone, its shuffle and cut as recorded
        "draw": {"first": "E", "direction": "counterclockwise", "shuffled_by": "W", "cut_by": "E"}
    }
    spectator.wait_for_selector("#before-play-body:has-text('摸牌：东先摸 · 逆时针')")
    item = referee.wait_for_selector("#queue .queue-item:has-text('洗牌/摸牌违例')")
    assert "应按顺时针方向摸牌" in item.inner_text()  # XX draws clockwise
    assert table.state()["hand"]["draw"] == contract_set.data["draw"]

    referee.goto(f"{table.url}/referee?lang=en")
    referee.wait_for_selector("#bp-draw:has-text('Draw: E draws first · counter-clockwise')")

    # neither given any more: the console says so, the scoreboard's line goes, shuffle and cut stay
    referee.click("#bp-editor summary")
    referee.select_option("#bp-draw-first", "")
    referee.select_option("#bp-draw-direction", "")
    referee.get_by_role("button", name="Save before play").click()
    referee.wait_for_selector("#bp-draw:has-text('Draw: not entered')")
    spectator.wait_for_selector("#before-play", state="hidden")
    assert table.state()["hand"]["draw"] == {"shuffled_by": "W", "cut_by": "E"}
    referee.wait_for_selector("#queue-empty:not([hidden])")


def test_a_card_check_asked_in_the_console_is_listed_and_audited(table: Table, page: Page) -> None:
    table.whole_simulated_hand(seed=5)  # legal: every check of it is unfounded
    sign_in(page, table)
    page.wait_for_selector("#queue-empty:not([hidden])")
    page.select_option("#cc-seat", "E")
    assert page.input_value("#cc-checked") in ("S", "N")  # an opponent, never the partner W
    page.select_option("#cc-checked", "N")
    page.fill("#cc-trick", "2")
    page.get_by_role("button", name="查牌", exact=True).click()
    page.wait_for_selector("#cc-msg.msg-ok")
    page.wait_for_selector("#cc-list li:text-is('东查北第 2 墩的出牌')")
    item = page.wait_for_selector("#queue .queue-item")
    text = item.inner_text()
    assert "查牌无误" in text and "第 2 墩" in text and "前 1 次不罚" in text
    page.select_option("#cc-seat", "S")
    assert page.input_value("#cc-checked") in ("E", "W")
    page.get_by_role("button", name="查牌", exact=True).click()  # the last gathered trick
    page.wait_for_selector("#cc-list li >> nth=1")
    checks = [e.data for e in table.store.events() if e.kind == "card_check"]
    last = len(table.state()["hand"]["tricks"])
    assert checks == [
        {"hand": 1, "seat": "E", "checked": "N", "trick": 2},
        {"hand": 1, "seat": "S", "checked": checks[1]["checked"], "trick": last},
    ]
