"""``sigmar encode FILE --to TARGET``: write an encoding for other tools.

Each backend declares the targets it writes (``Backend.encode_targets``) and
the variants it takes (``Backend.encode_variants``); this command finds the one
that writes the target asked for, and refuses a variant it does not take.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sigmar.encoders.backend import Backend
from sigmar.encoders.registry import family_names, info, load
from sigmar.models.boardfile import read_boards
from sigmar.models.output_files import write_file

from .options import ENCODINGS as VARIANTS
from .options import UsageError, add_board_file, writable_file

TARGETS = ("dimacs", "cpsat", "mzn", "dzn", "drcp-model")


def _variants_help() -> str:
    named = "; ".join(f"{target}: {', '.join(names)}" for target, names in VARIANTS.items())
    return f"encoding variant ({named}); the first of each target is its default"


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "encode",
        help="write an encoding (DIMACS, CP-SAT model, MiniZinc model/data, DRCP model)",
        description="Write the encoding of each board for other tools. With several boards, "
        "OUT gets the board's index before its suffix (out.0.cnf, out.1.cnf, ...). "
        "Side files (a DIMACS variable map, say) are written next to OUT.",
    )
    add_board_file(parser)
    parser.add_argument("--to", required=True, choices=TARGETS, help="what to write")
    parser.add_argument("--variant", default=None, metavar="V", help=_variants_help())
    parser.add_argument("-o", "--out", type=writable_file, metavar="OUT", help="output file (default: standard output)")
    parser.set_defaults(run=run)


def _writer(target: str, variant: str | None) -> Backend:
    for family in family_names():
        if not _writes(family, target):
            continue  # not asked whether it is available: that can import its solver or run it
        found = info(family, with_version=False)
        if found.cls is not None and target in found.cls.encode_targets:
            valid = found.cls.encode_variants
            if variant is not None and variant not in valid:
                choices = f"choose from {', '.join(valid)}" if valid else "it has none"
                raise UsageError(f"--variant '{variant}' is not a variant of {target} ({choices})")
            if not found.available:
                raise UsageError(f"'{target}' needs backend {family}, not available here: {found.why_not}")
            return found.cls(variant) if variant else found.cls()
    raise UsageError(f"no backend here writes '{target}' yet; see 'sigmar backends'")


def _writes(family: str, target: str) -> bool:
    """Whether ``family``'s backend class may write ``target`` (its module loaded, its solver not).

    A family whose module cannot load may: ``info`` then says why it is not available.
    """
    try:
        return target in load(family).encode_targets
    except Exception:
        return True


def run(args: argparse.Namespace) -> int:
    boards = read_boards(args.file)
    backend = _writer(args.to, args.variant)
    for index, board in enumerate(boards):
        files = backend.encode(board, args.to)
        main_suffix = next(iter(files))
        if args.out is None:
            print(files[main_suffix], end="")
            continue
        out = Path(args.out)
        stem = out.with_suffix("") if len(boards) == 1 else out.with_suffix(f".{index}")
        for suffix, text in files.items():
            path = out if (suffix == main_suffix and len(boards) == 1) else Path(f"{stem}{suffix}")
            write_file(path, text)
    return 0
