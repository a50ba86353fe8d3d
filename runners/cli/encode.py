"""``sigmar encode FILE --to TARGET``: write an encoding for other tools.

Each backend declares the targets it writes (``Backend.encode_targets``) and
the variants it takes (``Backend.encode_variants``); this command finds the one
that writes the target asked for, and refuses a variant it does not take.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from sigmar.encoders.backend import Backend
from sigmar.encoders.registry import family_names, info, load
from sigmar.models.board import Board
from sigmar.models.output_files import write_file
from sigmar.runners.cli.board_args import read_selected
from sigmar.runners.cli.conventions import add_output, add_output_dir, file_stems, follow
from sigmar.runners.cli.options import ENCODINGS as VARIANTS
from sigmar.runners.cli.options import UsageError, add_board_file

TARGETS = ("dimacs", "cpsat", "mzn", "dzn", "drcp-model")


def _variants_help() -> str:
    named = "; ".join(f"{target}: {', '.join(names)}" for target, names in VARIANTS.items())
    return f"encoding variant ({named}); the first of each target is its default"


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "encode",
        help="write an encoding (DIMACS, CP-SAT model, MiniZinc model/data, DRCP model)",
        description="Write the encoding of each board for other tools. With several boards, "
        "OUT gets the board's index before its suffix (out.0.cnf, out.1.cnf, ...); --output-dir DIR names "
        "each board's files after the board (DIR/NAME.cnf). "
        "Side files (a DIMACS variable map, say) are written next to OUT.",
    )
    add_board_file(parser)
    parser.add_argument("--to", required=True, choices=TARGETS, help="what to write")
    parser.add_argument("--variant", default=None, metavar="V", help=_variants_help())
    add_output(parser, "output file (default: standard output)", metavar="OUT")
    add_output_dir(parser, "write each board's files in DIR, named after the board (NAME.cnf, NAME.vars.json, ...)")
    follow(
        parser,
        boards=True,
        json_help="print one JSON object per board: its name, target, variant and the files written "
        "(or, without -o and --output-dir, their texts)",
    )
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
    if args.output is not None and args.output_dir is not None:
        raise UsageError("give -o/--output or --output-dir, not both")
    boards = read_selected([args.file], args.board)
    backend = _writer(args.to, args.variant)
    variant = args.variant or VARIANTS[args.to][0]
    stems = file_stems([b.name for b in boards]) if args.output_dir is not None else []
    for index, board in enumerate(boards):
        files = backend.encode(board, args.to)
        record: dict[str, object] = {"board": board.name, "target": args.to, "variant": variant}
        if args.output is None and args.output_dir is None:
            if args.json:
                print(json.dumps(record | {"texts": files}))
            else:
                print(files[next(iter(files))], end="")
            continue
        written = []
        for path, text in _paths(args, boards, index, stems, files).items():
            write_file(path, text)
            written.append(str(path))
        if args.json:
            print(json.dumps(record | {"files": written}))
    return 0


def _paths(
    args: argparse.Namespace, boards: list[Board], index: int, stems: list[str], files: dict[str, str]
) -> dict[Path, str]:
    """Where each of a board's files goes: DIR/NAME.SUFFIX, or OUT (OUT.INDEX.SUFFIX with several boards)."""
    if args.output_dir is not None:
        return {Path(args.output_dir) / f"{stems[index]}{suffix}": text for suffix, text in files.items()}
    out = Path(args.output)
    main_suffix = next(iter(files))
    stem = out.with_suffix("") if len(boards) == 1 else out.with_suffix(f".{index}")
    return {
        out if (suffix == main_suffix and len(boards) == 1) else Path(f"{stem}{suffix}"): text
        for suffix, text in files.items()
    }
