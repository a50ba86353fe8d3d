"""The cubes bomb of issue 47 (S7) against the bounded check: refused within 10 s and 500 MB.

A genuine ``cubes`` certificate of side-8 dense deal 212 (``sigmar prove --cubes 8``) is made,
checked by ``sigmar check`` (it must still be valid), then forged into the bomb: a chain of 300
splits, each the parent of one leaf and of the next split, whose ``.lemmas`` files are one
6 MB file hard-linked 300 times (each node is checked against every clause its ancestors pass
on, so the unbounded check costs depth x 6 MB).  Each check runs in a fresh process tree whose
peak resident size is read with ``getrusage(RUSAGE_CHILDREN)``.

Targets: the bomb refused (exit 2, one line, no traceback) within 10 s and 500 MB; the genuine
certificate valid (exit 0).

    python scripts/bench/cubes_bomb.py [--deal 8:212] [--depth 300] [--lemma-mb 6]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchlib import RESULTS, ROOT, markdown_table, publish
from hostile_inputs import sigmar

from sigmar.models.boardfile import format_board
from sigmar.models.deal import deal


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deal", default="8:212", help="SIDE:INDEX of a dense deal of seed 1 (unsolvable)")
    parser.add_argument("--depth", type=int, default=300, help="splits in the forged chain")
    parser.add_argument("--lemma-mb", type=float, default=6.0, help="size of the one shared .lemmas file")
    parser.add_argument("--out", default=str(RESULTS / "bench_cubes_bomb"))
    parser.add_argument("--doc", default=str(ROOT / "docs" / "measured" / "cubes-bomb.md"))
    args = parser.parse_args(argv)
    side, index = map(int, args.deal.split(":"))
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="sigmar-bomb-") as tmp:
        folder = Path(tmp)
        boards = folder / "board.txt"
        boards.write_text(format_board(deal("dense", side, 1, index)))
        made = subprocess.run(
            [
                sys.executable,
                "-m",
                "sigmar.runners.cli",
                "prove",
                str(boards),
                "--cubes",
                "8",
                "--no-corroborate",
                "--proof-dir",
                str(folder / "genuine"),
                "--json",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        cubes = Path(json.loads(made.stdout)["certificate"]["file"])
        genuine = sigmar("check", boards, cubes)
        genuine["bytes"] = sum(p.stat().st_size for p in cubes.parent.iterdir())
        bomb_cubes = forge(cubes, folder / "bomb", args.depth, int(args.lemma_mb * 2**20))
        bomb = sigmar("check", boards, bomb_cubes)
        bomb["bytes"] = sum(
            p.stat().st_size for p in {p.stat().st_ino: p for p in bomb_cubes.parent.iterdir()}.values()
        )
    load_after = os.getloadavg()
    rows = [["genuine", genuine], ["bomb", bomb]]
    met = {
        "the bomb refused (exit 2, one line, no traceback)": bomb["exit"] == 2 and not bomb["traceback"],
        "the bomb refused within 10 s": bomb["seconds"] <= 10,
        "the bomb refused within 500 MB": bomb["peak_mb"] <= 500,
        "the genuine certificate valid": genuine["exit"] == 0,
    }
    command = "python scripts/bench/cubes_bomb.py" + ("" if not argv else " " + " ".join(argv))
    table = markdown_table(
        ["certificate", "bytes (files once)", "exit", "seconds", "peak MB", "said"],
        [
            [name, f"{r['bytes']:,}", r["exit"], r["seconds"], r["peak_mb"], r["message"] or r["stdout"]]
            for name, r in rows
        ],
    )
    text = "\n".join(
        [
            "# The cubes bomb: a check bounded by the certificate's size",
            "",
            f"Measured {datetime.date.today().isoformat()} on a {os.cpu_count()}-core machine; load average "
            f"{', '.join(f'{x:.1f}' for x in load_before)} at the start, "
            f"{', '.join(f'{x:.1f}' for x in load_after)} at the end.",
            "",
            f"`{command}`: deal {args.deal} split into 8 cubes, then a chain of {args.depth} splits sharing one "
            f"{args.lemma_mb:g} MB `.lemmas` file (hard links). Peak: the largest resident size of the check's "
            "process tree.",
            "",
            table,
            "",
            *[f"- {what}: {'met' if ok else 'NOT met'}" for what, ok in met.items()],
        ]
    )
    publish(args.out, text, {"command": command, "rows": dict(rows), "met": met, "load": [load_before, load_after]})
    Path(args.doc).write_text(text + "\n")
    return 0 if all(met.values()) else 1


def forge(cubes: Path, folder: Path, depth: int, lemma_bytes: int) -> Path:
    """The bomb beside a copy of the genuine formula: ``depth`` splits, one shared lemmas file."""
    folder.mkdir()
    stem = cubes.name.removesuffix(".cubes")
    for suffix in (".cnf", ".vars.json"):
        shutil.copy(cubes.with_name(stem + suffix), folder / (stem + suffix))
    header = json.loads(cubes.read_text().splitlines()[0])
    shared = folder / "shared.lemmas"
    line, lines = 0, []
    size = 0
    while size < lemma_bytes:  # clauses over the formula's first variables, as a prover's lemmas look
        v = 1 + line % 5000
        text = f"{v} -{v + 1} {v + 2} -{v + 3} {v + 4} 0\n"
        lines.append(text)
        size += len(text)
        line += 1
    shared.write_text("".join(lines))
    records: list[dict[str, Any]] = [header]
    cube: list[int] = []
    for k in range(depth):
        records.append({"node": 2 * k, "cube": list(cube), "split": k + 1})
        records.append({"node": 2 * k + 1, "cube": [*cube, -(k + 1)]})
        cube.append(k + 1)
    records.append({"node": 2 * depth, "cube": cube})
    target = folder / cubes.name
    target.write_text("".join(json.dumps(r) + "\n" for r in records))
    for record in records[1:]:
        (folder / f"{stem}.node-{record['node']}.drup").write_text("0\n")
        if "split" in record:
            os.link(shared, folder / f"{stem}.node-{record['node']}.lemmas")
    return target


if __name__ == "__main__":
    sys.exit(main())
