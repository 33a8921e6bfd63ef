"""What every request handler of one table needs: the live table, its config and folders.

This module owns :class:`TableContext`, kept in ``app.extensions["chaodipi"]`` by
:func:`web_dashboard.app.create_app` and read with :func:`ctx`.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app

from chaodipi.config import TableConfig
from chaodipi.table.evidence import Evidence
from chaodipi.table.live import LiveTable
from web_dashboard.auth import LoginLimiter


@dataclass
class TableContext:
    live: LiveTable
    config: TableConfig
    evidence: Evidence
    limiter: LoginLimiter
    heartbeat_s: float = 15.0


def ctx() -> TableContext:
    """The table of the app handling this request."""
    context: TableContext = current_app.extensions["chaodipi"]
    return context
