"""The hub's web app: the venue overview, each table's scoreboard, the bracket.

This module owns :func:`create_hub_app` (``create_hub_app(hub) -> WSGI app``):

* ``/`` — every table at a glance (``overview.html``, polling ``/api/overview``: levels, hand,
  points, open infractions, camera health), as spectators may see it, ``broadcast_delay_s``
  behind; ``/organiser`` the same without the delay, behind ``[web] organiser_pin``
  (``POST /organiser/login``; five wrong PINs a minute → 429), its data ``/api/organiser/overview``.
* ``/bracket`` — the draw, results and standings (``bracket.html``, ``/api/bracket``).
* ``/t/<table>/`` — the table's own spectator pages and public API (scoreboard, ``overlay``,
  ``api/state``, ``api/stream``, ``api/events``, ``api/records``: the same code as the table
  service, :func:`web_dashboard.app.create_spectator_app`) over the hub's delayed copy.

No route changes a table: the referee console lives on the table's own service.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from flask import Flask, jsonify, redirect, render_template, request, session
from werkzeug.middleware.dispatcher import DispatcherMiddleware

from chaodipi.config import TableConfig
from web_dashboard.app import create_spectator_app
from web_dashboard.auth import LoginLimiter, error, refuse_pin, secret_key

if TYPE_CHECKING:
    from chaodipi.hub.hub import Hub


def create_hub_app(hub: Hub) -> Any:
    """The hub's WSGI app: its own pages at ``/``, each table's below ``/t/<table>``."""
    key = secret_key(hub.data_dir)
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=key,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_NAME="chaodipi_hub",
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
    )
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    limiter = LoginLimiter()
    name = hub.config.mqtt.tournament

    @app.get("/")
    def overview() -> Any:
        return render_template("overview.html", table=name, api="/api/overview", live=False)

    @app.get("/organiser")
    def organiser() -> Any:
        if not session.get("organiser"):
            return render_template("organiser_login.html", table=name, error=None)
        return render_template(
            "overview.html", table=name, api="/api/organiser/overview", live=True
        )

    @app.post("/organiser/login")
    def organiser_login() -> Any:
        no_pin = "未设置组织者 PIN（[web] organiser_pin）/ no organiser PIN: set it in hub.toml"
        refusal = refuse_pin(
            limiter, "organiser_login.html", name, hub.config.web.organiser_pin, no_pin
        )
        if refusal is not None:
            return refusal
        session.clear()
        session["organiser"] = True
        session.permanent = True
        return redirect(request.script_root + "/organiser", code=303)

    @app.get("/bracket")
    def bracket() -> Any:
        return render_template("bracket.html", table=name)

    @app.get("/api/overview")
    def api_overview() -> Any:
        return jsonify(hub.overview())

    @app.get("/api/organiser/overview")
    def api_organiser_overview() -> Any:
        if not session.get("organiser"):
            return error("请先以组织者身份登录 / sign in as organiser first", 401)
        return jsonify(hub.overview(live=True))

    @app.get("/api/bracket")
    def api_bracket() -> Any:
        return jsonify(hub.bracket())

    @app.get("/t/<table>")
    def table_root(table: str) -> Any:
        return redirect(f"{request.script_root}/t/{table}/", code=308)

    mounts: dict[str, Any] = {
        f"/t/{table}": create_spectator_app(
            hub.public[table], TableConfig(table_id=table, rules=hub.config.rules), key
        )
        for table in hub.config.tables
    }
    app.wsgi_app = DispatcherMiddleware(app.wsgi_app, mounts)  # type: ignore[method-assign]
    return app
