"""``python -m chaodipi``: the console command without an installed entry point (a lent GPU
machine runs the checkout as it travels, see ``vision/gpu_round/``)."""

import sys

from chaodipi.cli import main

sys.exit(main())
