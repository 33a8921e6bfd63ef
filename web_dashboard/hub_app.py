"""The hub's web app: the venue overview, each table's scoreboard, the bracket.

This module owns :func:`create_hub_app` (``create_hub_app(hub) -> WSGI app``):

* ``/`` — every table at a glance (``overview.html``, polling ``/api/overview``: levels, hand,
  points, open infractions, camera health), as spectators may see it, ``broadcast_delay_s``
  behind; ``/organiser`` the same without the delay, behind ``[web] organiser_pin``
  (``POST /organiser/login``; five wrong PINs a minute → 429), its data ``/api/organiser/overview``.
* ``/bracket`` — the draw, results and standings (``bracket.html``, ``/api/bracket``).
* ``/t/<slug>/`` — the table's own spectator pages and public API (scoreboard, ``overlay``,
  ``api/state``, ``api/stream``, ``api/events``, ``api/records``: the same code as the table
  service, :func:`web_dashboard.app.create_spectator_app`) over the hub's delayed copy;
  ``<slug>`` is the table id's ASCII topic slug (:func:`chaodipi.mqtt_link.topic_slug`, the id
  itself for ``T01``), and ``/t/<table id>/…`` (``/t/七号桌/``) redirects there. The organisers'
  overview data also lists, per table, what the hub kept aside: conflicting events and
  refused (unsigned or forged) messages (:mod:`chaodipi.hub.set_aside`).

No route changes a table: the referee console lives on the table's own service. Organiser
sessions are server-side (:mod:`web_dashboard.sessions`, scope ``hub``: a restart with another
PIN ends them); every response has the headers of :func:`web_dashboard.auth.protect`.
:func:`hub_streams` names the live streams :class:`web_dashboard.server.WebServer` answers
natively; :data:`ORGANISER_PREFIXES` the paths served by its reserved threads.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from flask import Flask, jsonify, redirect, render_template, request
from werkzeug.middleware.dispatcher import DispatcherMiddleware

from chaodipi.config import TableConfig
from chaodipi.mqtt_link import topic_slug
from chaodipi.table.live import LiveTable
from web_dashboard.app import STREAM_PATH, create_spectator_app
from web_dashboard.auth import LoginLimiter, error, protect, refuse_pin, secret_key
from web_dashboard.sessions import SessionGate, SessionStore

if TYPE_CHECKING:
    from chaodipi.hub.hub import Hub

ORGANISER_PREFIXES = ("/organiser", "/api/organiser")


def hub_streams(hub: Hub) -> dict[str, LiveTable]:
    """Each table's live stream path below ``/t/<table>/`` and the delayed view it shows."""
    return {
        f"/t/{topic_slug(table)}{STREAM_PATH}": hub.public[table] for table in hub.config.tables
    }


def create_hub_app(hub: Hub) -> Any:
    """The hub's WSGI app: its own pages at ``/``, each table's below ``/t/<table>``."""
    key = secret_key(hub.data_dir)
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=key,
        SESSION_COOKIE_NAME="chaodipi_hub",
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
    )
    protect(app)
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    organisers = SessionGate(SessionStore(hub.data_dir, key), "hub", hub.config.web.organiser_pin)
    app.extensions["chaodipi_sessions"] = organisers
    limiter = LoginLimiter()
    name = hub.config.mqtt.tournament

    @app.get("/")
    def overview() -> Any:
        return render_template("overview.html", table=name, api="/api/overview", live=False)

    @app.get("/organiser")
    def organiser() -> Any:
        if organisers.current() is None:
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
        organisers.sign_in("organiser")
        return redirect(request.script_root + "/organiser", code=303)

    @app.get("/bracket")
    def bracket() -> Any:
        return render_template("bracket.html", table=name)

    @app.get("/api/overview")
    def api_overview() -> Any:
        return jsonify(hub.overview())

    @app.get("/api/organiser/overview")
    def api_organiser_overview() -> Any:
        if organisers.current() is None:
            return error("请先以组织者身份登录 / sign in as organiser first", 401)
        return jsonify(hub.overview(live=True))

    @app.get("/api/bracket")
    def api_bracket() -> Any:
        return jsonify(hub.bracket())

    @app.get("/t/<table>")
    @app.get("/t/<table>/")
    @app.get("/t/<table>/<path:rest>")
    def table_root(table: str, rest: str = "") -> Any:
        # a slug's own pages are mounted below; here come /t/<slug> and /t/<table id>/…
        slugs = {topic_slug(t) for t in hub.config.tables}
        if table not in hub.config.tables and table not in slugs:
            return error("没有这张赛桌 / no such table", 404)
        slug = table if table in slugs else topic_slug(table)
        return redirect(f"{request.script_root}/t/{slug}/{rest}", code=308)

    mounts: dict[str, Any] = {
        f"/t/{topic_slug(table)}": create_spectator_app(
            hub.public[table], TableConfig(table_id=table, rules=hub.config.rules), key
        )
        for table in hub.config.tables
    }
    app.wsgi_app = DispatcherMiddleware(app.wsgi_app, mounts)  # type: ignore[method-assign]
    return app
