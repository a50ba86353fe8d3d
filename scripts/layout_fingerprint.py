"""Hash what the suite writes, so a layout change can show that behaviour stayed the same.

On 110 boards (all 14 of instances/small.txt, all 30 of instances/generated-unsolvable.txt and
the first 66 of instances/hexmatch-hard-100.txt) it hashes, through the ``sigmar`` console
script only (so it does not care where modules live):

- ``sigmar encode --to dimacs`` (and the variable map beside it), ``--to cpsat``, ``--to dzn``;
- the boards ``sigmar generate`` writes for fixed seeds (solvable and unsolvable);
- each JSON answer of ``sigmar solve --json -b search`` without its timing fields
  (every key ending in ``seconds``), and the search's node count per board.

    python scripts/layout_fingerprint.py --sigmar .venv/bin/sigmar --out fingerprint.json
    python scripts/layout_fingerprint.py --compare before.json after.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SLICES = (("small.txt", 14), ("generated-unsolvable.txt", 30), ("hexmatch-hard-100.txt", 66))
GENERATE = (
    ["--template", "ondrovo:3", "--seed", "1", "--count", "3"],
    ["--template", "random:6", "--dim", "7", "--seed", "2", "--count", "2"],
    ["--template", "ondrovo:7", "--seed", "3", "--count", "2", "--unsolvable"],
    ["--deal", "dense", "--seed", "4", "--count", "3"],
)


def board_blocks(text: str) -> list[str]:
    """The boards of a board file as text blocks (comment lines kept), in order."""
    blocks, current = [], []
    for line in text.splitlines():
        if not line.strip():
            if any(not row.startswith("#") for row in current):
                blocks.append("\n".join(current))
            current = [] if any(not row.startswith("#") for row in current) else current
            continue
        current.append(line)
    if any(not row.startswith("#") for row in current):
        blocks.append("\n".join(current))
    return blocks


def boards_file(folder: Path) -> Path:
    blocks = []
    for name, count in SLICES:
        found = board_blocks((ROOT / "instances" / name).read_text())
        assert len(found) >= count, (name, len(found))
        blocks += found[:count]
    path = folder / "boards.txt"
    path.write_text("\n\n".join(blocks) + "\n")
    return path


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run(sigmar: str, *args: str) -> str:
    done = subprocess.run([sigmar, *args], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        sys.exit(f"{sigmar} {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def hashed_files(folder: Path) -> dict[str, str]:
    return {p.name: sha(p.read_bytes()) for p in sorted(folder.iterdir())}


def untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if not k.endswith("seconds")}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def fingerprint(sigmar: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        boards = boards_file(Path(tmp))
        out["boards"] = sha(boards.read_bytes())
        for target, suffix in (("dimacs", "cnf"), ("cpsat", "pb"), ("dzn", "dzn")):
            folder = Path(tmp) / target
            folder.mkdir()
            run(sigmar, "encode", str(boards), "--to", target, "-o", str(folder / f"out.{suffix}"))
            out[target] = hashed_files(folder)
        out["generate"] = [sha(run(sigmar, "generate", *args).encode()) for args in GENERATE]
        answers = [
            json.loads(line) for line in run(sigmar, "solve", "--json", "-b", "search", str(boards)).splitlines()
        ]
        out["solve"] = [sha(json.dumps(untimed(a), sort_keys=True).encode()) for a in answers]
        out["nodes"] = [a.get("statistics", {}).get("nodes") for a in answers]
        out["statuses"] = [a["status"] for a in answers]
    return out


def compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    differ = [key for key in sorted(set(before) | set(after)) if before.get(key) != after.get(key)]
    for key in differ:
        print(f"DIFFERENT: {key}")
    print("identical" if not differ else f"{len(differ)} part(s) differ")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sigmar", default=str(ROOT / ".venv" / "bin" / "sigmar"))
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare(*(json.loads(p.read_text()) for p in args.compare))
    result = fingerprint(args.sigmar)
    text = json.dumps(result, indent=1, sort_keys=True)
    if args.out:
        args.out.write_text(text + "\n")
    counts = {k: len(v) for k, v in result.items() if isinstance(v, list | dict)}
    print(f"{len(result['solve'])} answers; parts: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
