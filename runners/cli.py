"""The ``sigmar`` console script: one subcommand per module, found by name.

Each subcommand module defines ``add_parser(subparsers)`` and
``run(args) -> int``.  Bad input anywhere becomes one line on standard error
and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from sigmar.encoders.registry import UnknownBackend
from sigmar.models.boardfile import BoardFileError

# In the order `sigmar --help` lists them (SPEC §3).
SUBCOMMANDS = (
    "solve",
    "verify",
    "crosscheck",
    "prove",
    "bench",
    "generate",
    "survey",
    "encode",
    "decode",
    "show",
    "backends",
)


class UsageError(Exception):
    """Bad arguments discovered after parsing; exit status 2."""


def _modules() -> list[ModuleType]:
    found = []
    for name in SUBCOMMANDS:
        try:
            found.append(importlib.import_module(f"sigmar.runners.cmd_{name}"))
        except ModuleNotFoundError as exc:
            if exc.name != f"sigmar.runners.cmd_{name}":
                raise
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sigmar",
        description="Solve, verify, prove and benchmark Sigmar's Garden boards with four backends.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in _modules():
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
        return code
    except (BoardFileError, UnknownBackend, UsageError) as exc:
        print(f"sigmar {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"sigmar {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
