"""The ``sigmar`` console script: one subcommand per module, found by name.

Each subcommand module defines ``add_parser(subparsers)`` and
``run(args) -> int``.  Bad input anywhere becomes one line on standard error
and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from sigmar.encoders.registry import UnknownBackend
from sigmar.models.boardfile import BoardFileError
from sigmar.models.certificate_checker import CertificateError
from sigmar.runners.lifetime import Terminated, run_lifetime

from .options import UsageError

# In the order `sigmar --help` lists them (SPEC §3).
SUBCOMMANDS = (
    "solve",
    "verify",
    "crosscheck",
    "prove",
    "check",
    "bench",
    "generate",
    "survey",
    "encode",
    "decode",
    "show",
    "backends",
)


def _modules() -> list[ModuleType]:
    return [importlib.import_module(f"sigmar.runners.cli.{name}") for name in SUBCOMMANDS]


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments in one line on standard error, naming the option (exit 2), without the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
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
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or bad arguments (2, already said in one line)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        with run_lifetime():
            code: int = args.run(args)
        sys.stdout.flush()
        return code
    except (BoardFileError, CertificateError, UnknownBackend, UsageError) as exc:
        print(f"sigmar {args.command}: {exc}", file=sys.stderr)
        return 2
    except Terminated:
        print(f"sigmar {args.command}: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print(f"sigmar {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0


def _silence_stdout() -> None:
    """After a broken pipe (``sigmar show ... | head -1``): no second error when Python flushes at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
