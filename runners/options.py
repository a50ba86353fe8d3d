"""Arguments that several subcommands share, defined once."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

from sigmar.encoders.registry import expand
from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be positive")
    return value


def add_board_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="board file (one or many boards; '-' reads standard input)")


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object per board (JSON Lines)")


def add_time_limit(parser: argparse.ArgumentParser, default: float = 60.0) -> None:
    parser.add_argument(
        "--time-limit",
        type=positive_float,
        default=default,
        metavar="S",
        help=f"seconds per board (default {default:g})",
    )


def add_backend(parser: argparse.ArgumentParser, default: str = "all") -> None:
    parser.add_argument(
        "--backend",
        "-b",
        default=default,
        metavar="B",
        help=f"backend name, comma list, or 'all' (default {default}); see 'sigmar backends'",
    )


def add_sat_cmd(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sat-cmd",
        metavar="CMD",
        help="an external SAT solver that reads DIMACS and prints SAT-competition output (e.g. 'kissat -q'); "
        "runs as backend cnf:external, which it selects when --backend is left at its default",
    )


def apply_sat_cmd(args: argparse.Namespace) -> None:
    """Hand --sat-cmd to the cnf backend (through its environment variable, which worker processes inherit)."""
    if getattr(args, "sat_cmd", None):
        from sigmar.encoders.cnf import SAT_CMD_ENV

        os.environ[SAT_CMD_ENV] = args.sat_cmd
        if args.backend == "all":
            args.backend = "cnf:external"


def writable_folder(text: str) -> Path:
    """A folder that exists (made if missing) and takes a new file; checked before any work is done."""
    path = Path(text)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except FileExistsError:
        raise argparse.ArgumentTypeError(f"'{text}' is a file, not a folder") from None
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot write in '{text}': {exc.strerror or exc}") from None
    return path


def add_proof_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--proof-dir",
        type=writable_folder,
        metavar="D",
        help="keep the certificate files (NAME.dead.jsonl, NAME.drup with NAME.cnf and NAME.vars.json) in D; "
        "without it they go in a temporary folder that is removed",
    )


def add_board_files(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", metavar="FILE", nargs="+", help="board files (each one or many boards)")


def read_board_files(paths: list[str]) -> list[Board]:
    """The boards of several files, in order; a name shared by two files gets its file as a prefix."""
    per_file = [(path, read_boards(path)) for path in paths]
    boards = [board for _, found in per_file for board in found]
    counts = Counter(board.name for board in boards)
    if all(n == 1 for n in counts.values()):
        return boards
    return [replace(b, name=f"{path}:{b.name}") if counts[b.name] > 1 else b for path, found in per_file for b in found]


class UsageError(Exception):
    """Bad arguments discovered after parsing; exit status 2."""


def chosen_backends(spec: str) -> list[str]:
    """The backends a ``--backend`` value names, at least one available here."""
    names = expand(spec)
    if not names:
        raise UsageError("no backend is available here; see 'sigmar backends'")
    return names
