"""The ``chaodipi`` command on top of everything: :mod:`chaodipi.cli.main` builds the parser and
dispatches; the other modules add one command family each (``vision …``, ``render``,
``markers``/``calibrate``, ``doctor``) and print their results. Nothing below imports the CLI.
"""
