"""One table at the venue: camera frames through the card pipeline into an append-only SQLite
event log, folded into the table's state that the web pages show, and streamed to the hub.
:mod:`~chaodipi.table.service` (``chaodipi run``) wires the camera loop, the log, the outbox
and the web app; the log (:mod:`~chaodipi.table.store`) is the single source of a table's
state, and :mod:`~chaodipi.table.table_state` and :mod:`~chaodipi.table.hand_fold` fold it.
"""
