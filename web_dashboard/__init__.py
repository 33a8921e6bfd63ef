"""Web dashboard: the Flask app players, referees and organisers look at.

This package owns the HTTP side of one table (``web_dashboard/API.md`` is the contract,
``openapi.json`` its machine form): ``app`` (``create_app``, pages, referee sign-in), ``auth``
(session key, PIN rate limit, CSRF), ``api`` (spectator JSON, the live event stream, hand
records), ``referee_api`` (decisions, corrections, contract, kitty, 炒底, next hand and match),
and the pages in ``templates/`` and ``static/``. It reads the table through
``chaodipi.table.store`` / ``chaodipi.table.table_state`` and holds no rules of its own. The
tournament hub
(many tables) is a later issue.
"""
