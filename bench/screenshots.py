"""Screenshots of the dashboard for the README: the real app, a real event log, real Chromium.

    .venv/bin/python bench/screenshots.py [--out docs/screenshots]

Plays a simulated hand (rules XX, seed 4: a revoke by 西 in trick 4 and a lead out of turn by
北 in trick 6) into a fresh event log up to the middle of trick 10 — 西's revoking card read
unsurely (0.62, the camera's runner-up read the same rank in the suit of the same colour), so
the console shows the revoke as 识别存疑 with 可能是 … — has the referee confirm the
revoke, and photographs the scoreboard (简体中文, laptop width, cards on the table, the
infraction banner) and the referee console. Needs Debian's Chromium at /usr/bin/chromium and a
CJK font (fonts-wqy-microhei); nothing is fetched from the network.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from chaodipi.config import TableConfig, WebConfig
from chaodipi.table.store import EventStore
from engine.simulate import simulate_hand
from web_dashboard.app import create_app

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PIN = "2468"
SEED = 4
TRICKS_DONE = 9
PLAYS_ON_TABLE = 3


@contextmanager
def serve(store: EventStore, config: TableConfig) -> Iterator[str]:
    """The app on 127.0.0.1 (waitress in a thread); yields its URL."""
    from waitress.server import create_server

    server = create_server(create_app(store, config), host="127.0.0.1", port=0, threads=16)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        store.close()
        server.close()
        thread.join(timeout=5)


def play_mid_hand(store: EventStore) -> None:
    """The simulated hand's first tricks as camera events, timed so that the last play landed
    six seconds ago, and the referee's confirmation of the revoke."""
    record, _truth = simulate_hand("XX", SEED, ["revoke", "out_of_turn"])
    tricks: list[dict[str, Any]] = record["tricks"]
    on_table = tricks[TRICKS_DONE]["plays"][:PLAYS_ON_TABLE]
    shift = time.time() - 6 - float(on_table[-1]["t"])
    store.append(
        "hand_started",
        {
            "hand": 4,
            "rules": record["rules"],
            "rule_overrides": {},
            "levels": record["levels"],
            "declarer": record["declarer"],
            "trump": record["trump"],
        },
        "system",
    )

    def play(p: dict[str, Any], doubt: str | None = None) -> None:
        t = shift + float(p["t"])
        frames = {"landed": "", "stable": ""}
        data = {"seat": p["seat"], "cards": p["cards"], "t_landed": t, "t_stable": t + 0.3}
        if doubt:
            data["unsure"] = {doubt: 0.62}
            data["maybe"] = {doubt: _look_alike(doubt)}
        store.append("play", {**data, "frames": frames}, "camera")

    for number, trick in enumerate(tricks[:TRICKS_DONE], start=1):
        for p in trick["plays"]:
            revoking = number == 4 and p["seat"] == "W"
            play(p, p["cards"][0] if revoking else None)
        store.append("trick_cleared", {"t": shift + trick["plays"][-1]["t"] + 2, "frame": ""})
    for p in on_table:
        play(p)
    store.append(
        "infraction_decided", {"id": "4-revoke-W-4-0", "decision": "confirm"}, "referee:demo"
    )


def _look_alike(card: str) -> str:
    """The card a camera most often takes ``card`` for: its rank in the other suit of its
    colour (♠/♣, ♥/♦), the other joker."""
    if card in ("BJ", "SJ"):
        return "SJ" if card == "BJ" else "BJ"
    other = {"S": "C", "C": "S", "H": "D", "D": "H"}
    return card[:-1] + other[card[-1]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        store = EventStore(Path(tmp) / "T07.sqlite")
        config = TableConfig(
            table_id="T07",
            web=WebConfig(referee_pin=PIN),
        )
        play_mid_hand(store)
        with serve(store, config) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 1366, "height": 900})
            page = context.new_page()
            page.goto(f"{url}/?lang=zh")
            page.wait_for_selector("#infractions .inf-confirmed")
            page.wait_for_selector("#conn[data-status=live]")
            page.screenshot(path=str(args.out / "scoreboard-zh.png"), full_page=True)

            page.goto(f"{url}/referee")
            page.get_by_label("PIN 码").fill(PIN)
            page.get_by_role("button", name="登录").click()
            page.wait_for_selector("#queue .queue-item")
            page.fill("#corr-cards", "10H QS")
            page.fill("#kitty-cards", "5H 10S KX")  # shows the inline notation check
            page.screenshot(path=str(args.out / "referee-zh.png"), full_page=True)

            phone = browser.new_context(viewport={"width": 360, "height": 740})
            mobile = phone.new_page()
            mobile.goto(f"{url}/?lang=en")
            mobile.wait_for_selector("#infractions .inf-confirmed")
            mobile.screenshot(path=str(args.out / "scoreboard-phone-en.png"))
            browser.close()
    for shot in sorted(args.out.glob("*.png")):
        print(f"{shot}  {shot.stat().st_size / 1024:.0f} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
