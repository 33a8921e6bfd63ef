"""The venue's hub: every table's event log replicated over MQTT into its own SQLite copy
(:mod:`~chaodipi.hub.store`), what it refused or found conflicting kept aside for the
organisers (:mod:`~chaodipi.hub.set_aside`), the organisers' live view and the spectators'
delayed one (:mod:`~chaodipi.hub.hub`), the bracket and standings
(:mod:`~chaodipi.hub.bracket_view`), and ``chaodipi hub`` (:mod:`~chaodipi.hub.command`), the
only module here that knows the pages.
"""
