"""Headless Chromium for the page tests: Debian's browser, started so that it reaches nothing
outside localhost; the page tests skip, with the install line, where it is not installed."""

from __future__ import annotations

from pathlib import Path

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
