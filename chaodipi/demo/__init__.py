"""``chaodipi demo``: the table service on the bundled one-minute clip (the data files beside
this module; README.md says how they were made). :mod:`~chaodipi.demo.run` runs it and
:mod:`~chaodipi.demo.clip` finds the clip or makes it again (``python -m chaodipi.demo.clip``).
"""
