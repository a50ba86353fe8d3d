"""Arguments that several subcommands share, defined once."""

from __future__ import annotations

import argparse


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
