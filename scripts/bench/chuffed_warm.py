"""How fast ``minizinc:chuffed`` answers: wall and CPU time per board, the first board included.

Chuffed comes from the WebAssembly MiniZinc (``encoders/minizinc/minizinc_wasm.cjs``), which used to
be started and compiled for every run.  This script measures what a board costs, in one process
that solves the boards one after the other, as a worker of the runner does:

- ``instances/small.txt``: each board's wall time (the target: every one under 2 s on a quiet
  machine, the first, which pays for starting, included);
- N dense side-6 deals (``models.deal``, seed 1): CPU per board and how many are left unknown;
- the command ``sigmar solve instances/small.txt:0 -b minizinc:chuffed`` (one tile of gold), its
  wall and CPU time as a user sees them.

CPU is that of the whole process tree: this process, the children it has waited for, and every
live descendant (the warm server), read from ``/proc``.  Every answer is replayed by the rule
engine (a wrong one is counted).  The load average is recorded beside the numbers: on a busy
machine the wall times grow, the CPU times hardly.

    python scripts/bench/chuffed_warm.py --before      # small.txt and 50 deals, cold then warm: the targets
    python scripts/bench/chuffed_warm.py --dense 0     # small.txt alone, warm
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchlib import INSTANCES, ROOT, markdown_table, median, percentile, publish

from sigmar.encoders.processes.guard import descendants
from sigmar.encoders.registry import make
from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards
from sigmar.models.deal import deal
from sigmar.runners.checking.replay import run_replayed

TICK = os.sysconf("SC_CLK_TCK")


def tree_cpu() -> float:
    """CPU seconds of this process, of the children it waited for, and of every live descendant."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    waited = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime
    for pid in descendants(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in fields[11:15]) / TICK  # utime, stime, cutime, cstime
    return total


def solve_all(name: str, boards: list[Board], time_limit: float) -> list[dict[str, Any]]:
    backend = make(name)
    rows = []
    for board in boards:
        wall, cpu = time.perf_counter(), tree_cpu()
        result = run_replayed(backend, board, time_limit)
        wall, cpu = time.perf_counter() - wall, tree_cpu() - cpu
        status = "wrong" if result.wrong else result.status.value
        rows.append({"board": board.name, "status": status, "wall": round(wall, 3), "cpu": round(cpu, 3)})
        print(f"  {board.name[:40]:40} {status:10} {wall:7.2f} s wall {cpu:6.2f} s CPU", flush=True)
    return rows


def command_cost(name: str) -> dict[str, float]:
    """``sigmar solve instances/small.txt:0 -b NAME``: wall and CPU (its whole tree, waited for)."""
    sigmar = Path(sys.executable).with_name("sigmar")
    start = time.perf_counter()
    proc = subprocess.Popen(
        [str(sigmar), "solve", f"{INSTANCES / 'small.txt'}:0", "-b", name], stdout=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"wall": round(time.perf_counter() - start, 3), "cpu": round(usage.ru_utime + usage.ru_stime, 3)}


def summary(label: str, rows: list[dict[str, Any]]) -> list[object]:
    walls, cpus = [r["wall"] for r in rows], [r["cpu"] for r in rows]
    counts = {s: sum(r["status"] == s for r in rows) for s in ("solved", "unsolvable", "unknown", "error", "wrong")}
    return [
        label,
        len(rows),
        counts["solved"],
        counts["unsolvable"],
        counts["unknown"],
        counts["error"] + counts["wrong"],
        f"{rows[0]['wall']:.2f}",
        f"{max(walls):.2f}",
        f"{median(walls):.2f}",
        f"{percentile(walls, 95):.2f}",
        f"{sum(cpus) / len(cpus):.2f}",
        f"{median(cpus):.2f}",
    ]


def cold() -> contextlib.AbstractContextManager[None]:
    """The WebAssembly MiniZinc as it ran before it was kept warm: a Node process started for every run."""
    from sigmar.encoders.minizinc import runs, wasm
    from sigmar.encoders.minizinc.driver import guarded_driver
    from sigmar.encoders.minizinc.solvers import WASM_RUNNER

    @contextlib.contextmanager
    def patched() -> Iterator[None]:
        warm = wasm.WasmDriver
        runs.base_instance.cache_clear()
        wasm.WasmDriver = lambda: guarded_driver(str(WASM_RUNNER))  # type: ignore[assignment,misc,return-value]
        try:
            yield
        finally:
            wasm.WasmDriver = warm  # type: ignore[misc]
            runs.base_instance.cache_clear()

    return patched()


def measure(args: argparse.Namespace, label: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    print(f"{args.backend} ({label}) on instances/small.txt", flush=True)
    small = solve_all(args.backend, read_boards(INSTANCES / "small.txt"), args.time_limit)
    dense: list[dict[str, Any]] = []
    if args.dense:
        print(f"{args.backend} ({label}) on {args.dense} dense side-6 deals (seed {args.seed})", flush=True)
        deals = [deal("dense", 6, args.seed, k) for k in range(args.dense)]
        dense = solve_all(args.backend, deals, args.time_limit)
    return small, dense


def mean_cpu(rows: list[dict[str, Any]]) -> float:
    return sum(r["cpu"] for r in rows) / max(len(rows), 1)


def unknowns(rows: list[dict[str, Any]]) -> int:
    return sum(r["status"] in ("unknown", "error", "wrong") for r in rows)


def targets(small: list[dict[str, Any]], dense: list[dict[str, Any]], before: list[dict[str, Any]] | None) -> list[str]:
    """The issue's targets, each with its number and whether it is met."""
    walls = [r["wall"] for r in small]
    lines = [
        f"- every board of instances/small.txt under 2 s wall, the first included: "
        f"{'MET' if max(walls) < 2 else 'NOT MET'} (first {walls[0]:.2f} s, slowest {max(walls):.2f} s)"
    ]
    if dense and before:
        ratio = mean_cpu(before) / max(mean_cpu(dense), 1e-9)
        lines.append(
            f"- CPU per dense side-6 board at least 5x lower than before: {'MET' if ratio >= 5 else 'NOT MET'} "
            f"({mean_cpu(before):.2f} s before, {mean_cpu(dense):.2f} s now: {ratio:.1f}x)"
        )
        pairs = zip(before, dense, strict=True)
        both = [(old, new) for old, new in pairs if "unknown" not in (old["status"], new["status"])]
        if both:
            old_cpu, new_cpu = mean_cpu([o for o, _ in both]), mean_cpu([n for _, n in both])
            lines.append(
                f"  (on the {len(both)} boards both answered: {old_cpu:.2f} s before, {new_cpu:.2f} s now: "
                f"{old_cpu / max(new_cpu, 1e-9):.1f}x; a board left unknown costs its whole time limit either way)"
            )
        lines.append(
            f"- unknowns no more than before: {'MET' if unknowns(dense) <= unknowns(before) else 'NOT MET'} "
            f"({unknowns(before)} before, {unknowns(dense)} now, of {len(dense)}; errors and wrong answers count)"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="minizinc:chuffed")
    parser.add_argument("--dense", type=int, default=50, help="how many dense side-6 deals (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=20.0)
    parser.add_argument("--out", default=str(ROOT / "results" / "chuffed_warm"))
    parser.add_argument(
        "--before",
        action="store_true",
        help="also measure the cold WebAssembly MiniZinc (a Node started for every run, as before) on the same boards",
    )
    args = parser.parse_args()
    load_before = os.getloadavg()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    old_small: list[dict[str, Any]] = []
    old_dense: list[dict[str, Any]] = []
    if args.before:
        with cold():
            old_small, old_dense = measure(args, "cold, as before")
    small, dense = measure(args, "warm")
    command = command_cost(args.backend)
    load_after = os.getloadavg()
    header = ["boards", "n", "solved", "unsolvable", "unknown", "error/wrong", "first wall s", "max wall s"]
    header += ["median wall s", "p95 wall s", "mean CPU s", "median CPU s"]
    table = []
    if args.before:
        table.append(summary("small.txt, cold (before)", old_small))
        table += [summary("dense side 6, cold (before)", old_dense)] if old_dense else []
    table.append(summary("instances/small.txt", small))
    table += [summary("dense side 6", dense)] if dense else []
    loads = f"{load_before[0]:.1f} before, {load_after[0]:.1f} after (1-minute load average, {os.cpu_count()} cores)"
    goals = targets(small, dense, old_dense if args.before else None)
    text = "\n".join(
        [
            f"`{args.backend}`, one process solving the boards in turn, time limit {args.time_limit:g} s; {started}",
            f"command: `python scripts/bench/chuffed_warm.py {' '.join(sys.argv[1:])}`",
            f"load: {loads}",
            "",
            markdown_table(header, table),
            "",
            f"`sigmar solve instances/small.txt:0 -b {args.backend}`: {command['wall']:.2f} s wall, "
            f"{command['cpu']:.2f} s CPU",
            "",
            "Targets:",
            *goals,
        ]
    )
    record = {
        "backend": args.backend,
        "time_limit": args.time_limit,
        "started": started,
        "load": [load_before[0], load_after[0]],
        "small": small,
        "dense": dense,
        "before": {"small": old_small, "dense": old_dense} if args.before else None,
        "command": command,
        "targets": goals,
    }
    publish(args.out, text, record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
