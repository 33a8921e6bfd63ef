"""Web dashboard: the Flask app players, referees and organisers look at, and its server.

This package owns the HTTP side of one table and of the hub (``web_dashboard/API.md`` is the
contract, ``openapi.json`` its machine form, ``README.md`` the serving design): ``app``
(``create_app``, pages, referee sign-in), ``auth`` (session key, PIN rate limit, CSRF, cookie
flags, security headers), ``sessions`` (server-side sign-in sessions), ``api`` (spectator JSON,
the live event stream, hand records), ``referee_api`` (decisions, corrections, contract, kitty,
炒底, next hand and match), ``hub_app`` (the hub's pages), ``server`` (uvicorn in front, live
streams without a thread each, Flask in thread pools), and the pages in ``templates/`` and
``static/``. It reads the table through ``chaodipi.table.store`` /
``chaodipi.table.table_state`` and holds no rules of its own.
"""
