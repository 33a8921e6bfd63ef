"""chaodipi: the application on top of ``engine``, ``vision`` and ``device``.

Sub-packages, in the order data flows: :mod:`chaodipi.table` (one table's service: camera loop,
event log, live state, outbox to the hub), :mod:`chaodipi.hub` (the venue's hub),
:mod:`chaodipi.replay` (the table pipeline on footage, scored against the truth),
:mod:`chaodipi.demo` (the bundled demo clip) and, on top, :mod:`chaodipi.cli` (the ``chaodipi``
command). Beside them: :mod:`chaodipi.config` (the table config file), :mod:`chaodipi.mqtt_link`
(the MQTT link tables and hub share) and :mod:`chaodipi.sdnotify` (systemd's notify protocol).
"""

__version__ = "0.1.0"
