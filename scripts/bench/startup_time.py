"""Start-up: whole-process wall time of ``sigmar`` on one board (issue 26, part 3).

Times the four target commands as whole processes, each the median of ``--runs``
runs, the commands (and, with ``--before``, the two installs) interleaved so that
the shared machine's load falls on all of them alike:

- ``sigmar solve FILE`` (the race) on a solvable side-6 board (target <= 0.15 s);
- ``sigmar solve FILE -b search`` on the same board (target <= 0.10 s);
- ``sigmar solve FILE`` on a board refuted by a stuck set (target <= 0.20 s);
- ``sigmar --help`` (target <= 0.10 s).

``--before PYTHON`` also times another install (for example a virtual environment of
an older commit); ``--batch`` adds the race over whole files (one process per file,
per-board seconds from ``--json``: median, p99 and the process's wall time).

    python scripts/bench/startup_time.py --runs 15 --before /tmp/base/.venv/bin/python --batch

Prints a table and writes results/bench_startup.md and .json.  Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import publish, table_header, table_row

ROOT = Path(__file__).resolve().parents[2]
TARGETS = {"race, solvable": 0.15, "search, solvable": 0.10, "race, stuck set": 0.20, "--help": 0.10}


def nth_board(path: Path, n: int) -> str:
    """The ``n``-th board (from 0) of a board file, as text: boards are separated by blank lines."""
    return [b for b in path.read_text().split("\n\n") if b.strip()][n].strip() + "\n"


def commands(folder: Path) -> dict[str, list[str]]:
    """The four target commands (arguments after ``sigmar``), their boards written to ``folder``."""
    solvable = folder / "solvable.txt"
    solvable.write_text(nth_board(ROOT / "instances" / "hexmatch-hard-100.txt", 0))
    stuck = folder / "stuck.txt"  # board 1 of the file: search refutes it with a stuck set
    stuck.write_text(nth_board(ROOT / "instances" / "generated-unsolvable.txt", 1))
    return {
        "race, solvable": ["solve", str(solvable)],
        "search, solvable": ["solve", str(solvable), "-b", "search"],
        "race, stuck set": ["solve", str(stuck)],
        "--help": ["--help"],
    }


def script_of(python: str) -> str:
    """The ``sigmar`` console script installed beside ``python`` (what a user runs)."""
    return str(Path(python).parent / "sigmar")


# As a user runs it: with the bytecode cache (an agent's shell may set PYTHONDONTWRITEBYTECODE,
# and then every run compiles every module again: ~60 ms here).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=ENV)
    return time.perf_counter() - start


def answer_of(sigmar: str, args: list[str]) -> str:
    """How the command answered its board (status, backend, certificate kind), to show what was timed."""
    out = subprocess.run([sigmar, *args, "--json"], capture_output=True, text=True, env=ENV).stdout
    answer = json.loads(out.splitlines()[0])
    kind = (answer.get("certificate") or {}).get("kind", "")
    return f"{answer['status']} by {answer['backend']}" + (f" ({kind})" if kind else "")


def batch(sigmar: str, path: Path, time_limit: float) -> dict[str, float]:
    """The race over a whole file in one process: per-board median and p99, and the process's wall time."""
    start = time.perf_counter()
    run = subprocess.run(
        [sigmar, "solve", str(path), "--json", "--time-limit", str(time_limit)], capture_output=True, text=True, env=ENV
    )
    seconds = sorted(json.loads(line)["seconds"] for line in run.stdout.splitlines() if line.startswith("{"))
    p99 = seconds[min(len(seconds) - 1, round(0.99 * (len(seconds) - 1)))]
    return {
        "boards": len(seconds),
        "median": statistics.median(seconds),
        "p99": p99,
        "wall": time.perf_counter() - start,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each command (median; default 15)")
    parser.add_argument("--python", default=sys.executable, help="the install measured (default: this one)")
    parser.add_argument("--before", help="another install's python, timed interleaved with --python")
    parser.add_argument("--batch", action="store_true", help="also race hexmatch-hard-100 and 300 dense deals")
    parser.add_argument("--batch-runs", type=int, default=2, help="runs of each batch file per install")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_startup"))
    args = parser.parse_args(argv)

    installs = {"after": script_of(args.python)}
    if args.before:
        installs = {"before": script_of(args.before), **installs}
    record: dict[str, object] = {"runs": args.runs, "installs": installs}
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        cmds = commands(Path(tmp))
        answers = {label: answer_of(installs["after"], c) for label, c in cmds.items() if c[0] == "solve"}
        for c in cmds.values():  # a first run of each, not timed: writes the bytecode cache
            for sigmar in installs.values():
                wall([sigmar, *c])
        times: dict[tuple[str, str], list[float]] = {(label, side): [] for label in cmds for side in installs}
        for _ in range(args.runs):
            for label, c in cmds.items():
                for side, sigmar in installs.items():
                    times[(label, side)].append(wall([sigmar, *c]))
        medians = {key: statistics.median(values) for key, values in times.items()}
        sides = list(installs)
        lines = [
            f"Whole-process wall time, median of {args.runs} runs, interleaved; one standard side-6 board.",
            "",
            table_header(
                ["command", "answer", *(f"{s} s" for s in sides), "target s"], align="ll" + "r" * len(sides) + "r"
            ),
        ]
        for label, c in cmds.items():
            cells = [f"`sigmar {' '.join(c[:1] + c[2:])}` ({label})", answers.get(label, "")]
            lines.append(table_row([*cells, *(f"{medians[(label, s)]:.3f}" for s in sides), f"{TARGETS[label]:.2f}"]))
        record["commands"] = {label: {"argv": c, "answer": answers.get(label, "")} for label, c in cmds.items()}
        record["seconds"] = {f"{label} | {side}": values for (label, side), values in times.items()}
        record["medians"] = {f"{label} | {side}": value for (label, side), value in medians.items()}

        if args.batch:
            dense = Path(tmp) / "dense-300.txt"
            subprocess.run(
                [installs["after"], "generate", "--deal", "dense", "--count", "300", "--seed", "1", "-o", str(dense)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            files = {"hexmatch-hard-100": ROOT / "instances" / "hexmatch-hard-100.txt", "dense-300 (seed 1)": dense}
            runs: dict[tuple[str, str], list[dict[str, float]]] = {(f, s): [] for f in files for s in installs}
            for _ in range(args.batch_runs):
                for name, path in files.items():
                    for side, sigmar in installs.items():
                        runs[(name, side)].append(batch(sigmar, path, 60.0))
            lines += [
                "",
                f"The race over a whole file, one process, time limit 60 s; median of {args.batch_runs} runs "
                "of each figure, interleaved.",
                "",
                table_header(
                    ["file", "install", "boards", "median ms/board", "p99 ms/board", "process wall s"], align="llrrrr"
                ),
            ]
            for (name, side), values in runs.items():
                figure = {k: statistics.median(v[k] for v in values) for k in ("median", "p99", "wall")}
                cells = [name, side, f"{values[0]['boards']:.0f}", f"{figure['median'] * 1000:.1f}"]
                lines.append(table_row([*cells, f"{figure['p99'] * 1000:.1f}", f"{figure['wall']:.2f}"]))
            record["batch"] = {f"{name} | {side}": values for (name, side), values in runs.items()}

    text = "\n".join(lines)
    publish(args.out, text, record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
