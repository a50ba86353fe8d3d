"""The ``sigmar`` console script: one module per subcommand (``solve.py``, ``prove.py``, ...), found by name.

:mod:`sigmar.runners.cli.entry` parses the command line and runs the chosen subcommand; the names below are
what the entry point, ``python -m sigmar.runners.cli`` and the tests use.
"""

from sigmar.runners.cli.entry import GROUPS, SUBCOMMANDS, build_parser, console, grouped_verbs, main

__all__ = ["GROUPS", "SUBCOMMANDS", "build_parser", "console", "grouped_verbs", "main"]
