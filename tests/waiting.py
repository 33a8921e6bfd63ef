"""Waiting in tests: on the condition itself, with a generous deadline, never a fixed sleep. The
wait ends as soon as the condition holds, so a long deadline costs nothing when the machine is
fast, and a busy machine (a CPU-heavy job beside the tests) does not fail a test that is right."""

from __future__ import annotations

import time
from collections.abc import Callable

DEADLINE_S = 60.0  # how long any test waits for something that should happen


def wait_until(
    condition: Callable[[], object], timeout: float = DEADLINE_S, step: float = 0.05
) -> bool:
    """Poll ``condition`` every ``step`` s until it is true (True) or ``timeout`` s passed
    (False: the caller asserts, with its own message)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(step)
    return True
