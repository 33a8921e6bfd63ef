"""Web dashboard: the Flask app players, referees and organisers look at.

This package owns the HTTP side: the public scoreboard, the referee console (review and correct
plays, confirm violations the engine reports), the tournament hub (tables, rounds, standings),
a JSON API over hand records and audit results, and a live stream of the camera view. It reads
from the engine and from ``vision``'s output and holds no rules of its own. Not built yet: this
folder holds the layout for a later issue.
"""
