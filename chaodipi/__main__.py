"""``python -m chaodipi``: the console command from a checkout, without an installed entry
point."""

import sys

from chaodipi.cli.main import main

sys.exit(main())
