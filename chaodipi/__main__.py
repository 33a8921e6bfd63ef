"""``python -m chaodipi``: the console command from a checkout, without an installed entry
point."""

from chaodipi.cli.main import entry

entry()
