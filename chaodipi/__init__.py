"""chaodipi: the wiring between the rules engine, the camera pipeline and the dashboard.

This package owns the application around ``engine``: the ``chaodipi`` command line (audit,
simulate, profiles, demo), loading configuration (rule profile, overrides from TOML, camera and
seat setup), and the service loop that on the Pi takes frames from ``device``, plays from
``vision``, audits them with ``engine`` and publishes results to ``web_dashboard``.
"""

__version__ = "0.1.0"
