"""Tables for any width (issue 52, item 3): every table of bench, crosscheck, count, prove and solve at 80 and
120 columns, checked for every board name, every backend name and every score column.

Each command runs on boards of instances/small.txt with ``COLUMNS`` set, as a terminal of that width would
give it; a name counts as shown when all its words appear in order (a long name wraps inside its column),
a backend name and a column heading when they appear whole, and no table line may be wider than the width
nor hold a cut cell ('…').

    python scripts/bench/table_widths.py [--docs]

Writes results/table_widths.{md,json}; with ``--docs`` also docs/measured/table-widths.md.  Exit 1 when a
check fails.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from benchlib import RESULTS, ROOT, markdown_table, publish

from sigmar.models.boardfile import read_boards

BOARDS = "instances/small.txt:9-12"
BACKENDS = "search,cnf,cpsat,pumpkin,minizinc:gecode"
COMMANDS = {
    "solve": ["solve", BOARDS, "-b", BACKENDS],
    "crosscheck": ["crosscheck", BOARDS, "-b", BACKENDS],
    "count": ["count", BOARDS, "-b", "search,cnf,pumpkin", "--of", "pairings"],
    "prove": ["prove", BOARDS, "--no-second-opinion"],
    "bench": ["bench", BOARDS, "-b", BACKENDS],
}
HEADINGS = {
    "bench": ["rank", "boards", "solved", "certified", "claimed", "unknown", "error", "wrong", "PAR-2", "solvable"],
    "crosscheck": ["board", "answer", "agree", "correct", "unconfirmed"],
    "count": ["rule engine"],
    "prove": ["status", "reason", "checked", "proof s", "corrob. s", "detail"],
    "solve": ["status", "backend", "seconds", "detail"],
}


def in_order(name: str, text: str) -> bool:
    words = iter(text.split())
    return all(any(word == found for found in words) for word in name.split())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", action="store_true")
    args = parser.parse_args()
    load = Path("/proc/loadavg").read_text().split()[:3]
    names = [b.name for b in read_boards(ROOT / "instances" / "small.txt")[9:13]]
    rows = []
    for width in (80, 120):
        for verb, argv in COMMANDS.items():
            env = {**os.environ, "COLUMNS": str(width)}
            done = subprocess.run(
                [sys.executable, "-m", "sigmar.runners.cli", *argv, "--time-limit", "20"],
                capture_output=True,
                text=True,
                cwd=ROOT,
                env=env,
            )
            out = done.stdout
            tables = [line for line in out.splitlines() if line[:1] in "┏┃┡│└" or verb in ("solve", "count", "prove")]
            tables = [line for line in tables if not line.startswith(("#", "VBS without", "rerun"))]
            widest = max((len(line) for line in tables), default=0)
            # the tables by board show every board; those by backend every backend (solve names the winner)
            missing = [] if verb == "bench" else [n for n in names if not in_order(n, out)]
            chosen = {"bench": BACKENDS, "crosscheck": BACKENDS, "count": "search,cnf,pumpkin"}.get(verb, "")
            backends = [b for b in chosen.split(",") if b and b not in out]
            heads = [h for h in HEADINGS[verb] if h not in " ".join(out.split())]
            ok = done.returncode in (0, 1) and widest <= width and "…" not in out and not missing + backends + heads
            detail = f"widest {widest}; missing {missing + backends + heads or 'none'}; exit {done.returncode}"
            rows.append((f"{verb} at {width}", ok, detail))
    table = markdown_table(
        ("table", "every name and score shown", "detail"), [(n, "yes" if o else "NO", d) for n, o, d in rows]
    )
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = (
        f"# Tables for any width (issue 52, item 3)\n\n*Recorded {stamp}; load average {' '.join(load)}; "
        f"`python scripts/bench/table_widths.py`.*\n\nBoards `{BOARDS}`, backends `{BACKENDS}`, `COLUMNS` set as a "
        "terminal of that width gives it.\n\n" + table
    )
    publish(
        RESULTS / "table_widths",
        text,
        {"rows": rows, "load": load},
        also=ROOT / "docs" / "measured" / "table-widths.md" if args.docs else None,
    )
    return 0 if all(ok for _, ok, _ in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
