"""The Flask app of one table: pages, referee sign-in, and the JSON API blueprints.

This module owns :func:`create_app` (``create_app(store, config) -> Flask``) and the page
routes: ``/`` (scoreboard), ``/overlay`` (live-stream overlay), ``/referee`` (the console with
its CSRF token, or the sign-in form), ``POST /referee/login`` (form field ``pin``, optional
``name``; 303 to ``/referee`` on success, the form again with 401 on a wrong PIN, 429 after five
wrong PINs a minute from one address) and ``POST /referee/logout`` (ends the server-side
session: the cookie opens nothing after it). Templates get ``table`` (the table id),
``csrf_token`` (console) and ``error`` (sign-in). Every app here carries the protections of
:func:`web_dashboard.auth.protect` (cookie flags, CSP and framing headers).
:func:`create_spectator_app` is the spectator half alone (pages ``/`` and ``/overlay`` and the
public API), which the hub mounts for each table at ``/t/<table>/``. The JSON routes are in
:mod:`web_dashboard.api` and :mod:`web_dashboard.referee_api`; ``API.md`` is the contract.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import Flask, redirect, render_template, request

from chaodipi.config import TableConfig
from chaodipi.table.evidence import Evidence
from chaodipi.table.live import LiveTable
from chaodipi.table.store import EventStore
from web_dashboard import api, referee_api
from web_dashboard.auth import (
    LoginLimiter,
    cookie_name,
    csrf_ok,
    csrf_token,
    error,
    protect,
    referee_name,
    refuse_pin,
    secret_key,
    sign_in,
    sign_out,
)
from web_dashboard.context import TableContext, ctx
from web_dashboard.sessions import SessionGate, SessionStore

NAME_MAX = 40
STREAM_PATH = "/api/stream"  # answered by web_dashboard.server without a thread


def create_app(
    store: EventStore,
    config: TableConfig,
    *,
    live: LiveTable | None = None,
    heartbeat_s: float = 15.0,
) -> Flask:
    """The web app of the table whose log is ``store`` (``live`` shares an existing view)."""
    key = secret_key(store.data_dir)
    app = table_app(
        live or LiveTable(store, config.table_id, config.rules),
        config,
        key,
        heartbeat_s=heartbeat_s,
    )
    sessions = SessionStore(store.data_dir, key)
    gate = SessionGate(sessions, f"table:{config.table_id}", config.web.referee_pin)
    app.extensions["chaodipi_sessions"] = gate
    app.register_blueprint(referee_api.bp)
    add_pages(app)
    return app


def create_spectator_app(
    live: LiveTable, config: TableConfig, key: bytes, *, heartbeat_s: float = 15.0
) -> Flask:
    """A table's spectator side only (scoreboard, overlay, public API): what the hub serves
    for each table at ``/t/<table>/``, over its delayed copy of the table's log."""
    app = table_app(live, config, key, heartbeat_s=heartbeat_s)
    add_spectator_pages(app)
    return app


def table_app(live: LiveTable, config: TableConfig, key: bytes, *, heartbeat_s: float) -> Flask:
    """A Flask app for one table with its context and the public API, without pages."""
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=key,
        SESSION_COOKIE_NAME=cookie_name("chaodipi", config.table_id),
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
        JSON_AS_ASCII=False,
    )
    protect(app)
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    data_dir = live.store.data_dir
    app.extensions["chaodipi"] = TableContext(
        live=live,
        config=config,
        evidence=Evidence(data_dir, config.service.evidence_cap_mb * 1024 * 1024),
        limiter=LoginLimiter(),
        heartbeat_s=heartbeat_s,
    )
    app.register_blueprint(api.bp)
    return app


def add_spectator_pages(app: Flask) -> None:
    @app.get("/")
    def scoreboard() -> Any:
        return render_template("scoreboard.html", table=ctx().config.table_id)

    @app.get("/overlay")
    def overlay() -> Any:
        return render_template("overlay.html", table=ctx().config.table_id)


def add_pages(app: Flask) -> None:
    add_spectator_pages(app)

    @app.get("/referee")
    def referee() -> Any:
        table = ctx().config.table_id
        if referee_name() is None:
            return render_template("login.html", table=table, error=None)
        return render_template("referee.html", table=table, csrf_token=csrf_token())

    @app.post("/referee/login")
    def login() -> Any:
        context = ctx()
        no_pin = "本桌未设置裁判 PIN（[web] referee_pin）/ no referee PIN: set [web] referee_pin"
        refusal = refuse_pin(
            context.limiter,
            "login.html",
            context.config.table_id,
            context.config.web.referee_pin,
            no_pin,
        )
        if refusal is not None:
            return refusal
        raw = request.form.get("name", "").strip()[:NAME_MAX]
        name = "".join(ch for ch in raw if ch.isprintable() and ch not in ":/")
        sign_in(name or "referee")
        return redirect(request.script_root + "/referee", code=303)

    @app.post("/referee/logout")
    def logout() -> Any:
        if referee_name() is None:
            return error("未登录 / not signed in", 401)
        if not csrf_ok():
            return error("CSRF 令牌无效，请刷新页面 / bad CSRF token: reload the page", 403)
        sign_out()
        return {"ok": True}
