"""Follow one board through ``Race.solve`` and print the path of modules it passes through.

The race runs ``search`` alone, in this process, so every call can be traced (``sys.setprofile``).
Each call into a module of the suite appends that module to the path (a call within the same
module appends nothing).  The layers, highest first: the command line, the engines, render,
statistics, checking, the backends, the puzzle (``models``).  A *climb* is a step of the path
from a module of a lower layer to one of a higher layer: the board going back up the house.
It prints the modules the path enters and its distinct climbs (a pair of modules counted once,
however often the path takes it), for the first three boards of generated-unsolvable.txt
(each refuted by a stuck set, whose certificate the race checks) or a board named.

    python scripts/board_path.py
    python scripts/board_path.py --file instances/small.txt --board NAME --out path.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("runners.cli", "runners", "runners.render", "runners.statistics", "runners.checking", "encoders", "models")


def layer(module: str) -> int:
    """The layer of ``sigmar.X.Y`` (0 the highest), by the longest prefix in :data:`LAYERS`."""
    name = module.removeprefix("sigmar.")
    best, depth = len(LAYERS), -1
    for index, prefix in enumerate(LAYERS):
        if (name == prefix or name.startswith(prefix + ".")) and prefix.count(".") > depth:
            best, depth = index, prefix.count(".")
    return best


def board_path(board: Any, time_limit: float) -> list[str]:
    from sigmar.runners.race import Race

    path: list[str] = []

    def profile(frame: Any, event: str, arg: object) -> None:
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if module.startswith("sigmar.") and (not path or path[-1] != module):
            path.append(module)

    with Race(["search"]) as race:
        sys.setprofile(profile)
        try:
            outcome = race.solve(board, time_limit)
        finally:
            sys.setprofile(None)
    print(f"{board.name}: {outcome.result.status} ({outcome.result.reason})", file=sys.stderr)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=ROOT / "instances" / "generated-unsolvable.txt")
    parser.add_argument("--board", help="the board's name (default: the first)")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from sigmar.models.boardfile import read_boards

    boards = read_boards(args.file)
    chosen = [b for b in boards if b.name == args.board] if args.board else boards[:3]
    if not chosen:
        parser.error(f"no board named {args.board!r} in {args.file}")
    report = []
    for board in chosen:
        path = board_path(board, args.time_limit)
        climbs = sorted({(a, b) for a, b in zip(path, path[1:], strict=False) if layer(b) < layer(a)})
        modules = sorted(set(path))
        print(f"{board.name}: {len(path)} steps, {len(modules)} modules, {len(climbs)} distinct climbs")
        for module in modules:
            print(f"  {module}  (entered {path.count(module)} times)")
        print("  climbs:")
        for a, b in climbs:
            print(f"    {a} -> {b}")
        report.append({"board": board.name, "path": path, "modules": modules, "climbs": climbs})
    if args.out:
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
