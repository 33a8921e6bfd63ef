"""Headless Chromium for the page tests: Debian's browser, started so that it reaches nothing
outside localhost; the page tests skip, with the install line, where it is not installed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="the page tests need Debian's Chromium at /usr/bin/chromium "
    "(apt-get install chromium fonts-wqy-microhei)",
)


@contextmanager
def served(app: Any, threads: int = 8) -> Iterator[str]:
    """A WSGI app served on a free local port by waitress; yields its base URL."""
    from waitress import server as waitress_server

    server = waitress_server.create_server(app, host="127.0.0.1", port=0, threads=threads)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        server.close()
        thread.join(timeout=5)


@contextmanager
def chromium_page(timeout_s: float, timezone_id: str | None = None) -> Iterator[Any]:
    """One page of headless Chromium (1366 × 900); on leaving, no JavaScript error may have
    happened on it."""
    from playwright import sync_api as playwright_api

    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        options: dict[str, Any] = {"viewport": {"width": 1366, "height": 900}}
        if timezone_id is not None:
            options["timezone_id"] = timezone_id
        context = browser.new_context(**options)
        context.set_default_timeout(timeout_s * 1000)
        errors: list[str] = []
        pg = context.new_page()
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        browser.close()
        assert errors == [], f"JavaScript errors on the page: {errors}"
