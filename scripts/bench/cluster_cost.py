"""What a loopback Dask cluster costs against this machine alone: ``bench`` and ``survey`` on the same boards.

Target (issue 48): a loopback cluster of 2 single-threaded stock workers (``tests/loopback.py``) runs
``sigmar bench`` and ``sigmar survey`` on the same boards within 1.2x the local wall time, on a quiet
machine and at load 4 (two ``sigmar survey`` running beside it), with CPU time per run in the bench's
CSV.  Each command runs as a user runs it (a fresh process); the cluster is started once, before any
timing, and the local and cluster runs of a pair alternate which goes first.  Single runs moved 0.69x-1.29x
at one load, so each pair runs ``--rounds`` times (default 5) and the verdict is the median of the rounds'
ratios, each round's cluster run against the local run beside it (the same load).

    python scripts/bench/cluster_cost.py                       # 60 dense side-6 deals, quiet and at load 4
    python scripts/bench/cluster_cost.py --count 10 --loads quiet

Prints a table and writes results/bench_cluster_cost.md and .json (load averages included), and the table
as this script's own section of docs/measured/cluster.md (between its marks: the records written by hand
there are kept; ``--no-record``: not).
"""

from __future__ import annotations

import argparse
import csv
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import RESULTS, ROOT, markdown_table, publish, with_section

from sigmar.models.boardfile import format_boards
from sigmar.runners.survey import Deals
from tests.loopback import loopback_cluster

TARGET = 1.2
MEASURED = "docs/measured/cluster.md"  # the record: this script writes its own section of it
TITLE = "# What a loopback cluster costs (issue 48)"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def sigmar(args: list[str]) -> float:
    """``sigmar ARGS`` as a fresh process: its wall seconds (exit 0 or 1; anything else stops the benchmark)."""
    command = [str(Path(sys.executable).with_name("sigmar")), *args]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return wall


def measured_cpu(path: Path) -> tuple[int, int]:
    """Of the CSV's answered runs, how many carry their CPU time; and how many there are."""
    with path.open() as handle:
        rows = [r for r in csv.DictReader(line for line in handle if not line.startswith("#"))]
    answered = [r for r in rows if r["status"] in ("solved", "unsolvable")]
    return sum(1 for r in answered if r["cpu_seconds"] not in ("", None)), len(answered)


class Beside:
    """Two ``sigmar survey`` commands running beside the measurement (load about 4 on 2 cores)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.procs: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Beside:
        for k in range(2):
            command = [str(Path(sys.executable).with_name("sigmar")), "survey", "--count", "1000000"]
            command += ["--seed", str(1000 + k), "--results", str(self.folder / f"beside-{k}.jsonl"), "--quiet"]
            self.procs.append(
                subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            )
        time.sleep(20)  # the load average rises
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(30)
            except (OSError, subprocess.TimeoutExpired):
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def measure(args: argparse.Namespace, folder: Path, boards: Path, address: str, scheduler: str, label: str) -> dict:
    row: dict[str, Any] = {"condition": label, "load_start": load()}
    bench = ["bench", str(boards), "-b", args.backend, "--time-limit", f"{args.time_limit:g}", "--quiet"]
    survey = ["survey", "--count", str(args.count), "--seed", str(args.seed), "--time-limit", f"{args.time_limit:g}"]
    survey += ["-b", args.survey_backend, "--quiet"]
    for round_ in range(args.rounds):
        for kind, base in (("bench", bench), ("survey", survey)):
            order = ("local", "cluster") if round_ % 2 == 0 else ("cluster", "local")
            for where in order:
                tag = f"{label}-{kind}-{where}-{round_}".replace(" ", "_")
                extra = (
                    ["-o", str(folder / f"{tag}.csv")]
                    if kind == "bench"
                    else ["--results", str(folder / f"{tag}.jsonl")]
                )
                if where == "cluster":
                    extra += ["--cluster", scheduler if kind == "survey" else address]
                row.setdefault(f"{kind}_{where}_s", []).append(sigmar([*base, *extra]))
                if kind == "bench" and where == "cluster":
                    row["cluster_cpu_measured"] = measured_cpu(folder / f"{tag}.csv")
    row["load_end"] = load()
    for kind in ("bench", "survey"):
        # the median over the rounds of each round's cluster / local: a pair shares its round's load
        pairs = zip(row[f"{kind}_cluster_s"], row[f"{kind}_local_s"], strict=True)
        row[f"{kind}_ratios"] = [there / local for there, local in pairs]
        row[f"{kind}_ratio"] = statistics.median(row[f"{kind}_ratios"])
    return row


def spread(ratios: list[float]) -> str:
    """The median of the rounds' ratios, with their range: ``1.05 (0.98-1.12)``."""
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=60, help="dense side-6 deals (default 60)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backend", default="search,cnf", help="bench's backends (default search,cnf)")
    parser.add_argument("--survey-backend", default="all", help="survey's race (default all)")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument(
        "--rounds", type=int, default=5, help="each pair this many times; the median of the pairs' ratios (default 5)"
    )
    parser.add_argument(
        "--loads", default="quiet,load 4", help="a comma list of conditions, 'quiet' and 'load 4' (default: both)"
    )
    parser.add_argument("--out", default=str(RESULTS / "bench_cluster_cost"))
    parser.add_argument("--no-record", action="store_true", help=f"do not rewrite {MEASURED}")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="sigmar-cluster-cost-") as tmp:
        folder = Path(tmp)
        loads = [part.strip() for part in args.loads.split(",") if part.strip()]
        unknown = sorted(set(loads) - {"quiet", "load 4"})
        if unknown or not loads:  # any other label ran as 'load 4' under that name
            parser.error(f"--loads: {', '.join(unknown) or 'empty'}: the conditions are 'quiet' and 'load 4'")
        deals = Deals("dense", 6, args.seed, args.count)
        boards = folder / "deals.txt"
        boards.write_text(format_boards([deals.board(i) for i in range(args.count)]))
        with loopback_cluster(workers=2, nthreads=1) as cluster:
            scheduler = str(cluster.scheduler_file)  # survey reads its address there, as on a shared machine
            for label in loads:
                if label == "quiet":
                    rows.append(measure(args, folder, boards, cluster.address, scheduler, label))
                else:
                    with Beside(folder):
                        rows.append(measure(args, folder, boards, cluster.address, scheduler, label))
    header = ("condition", "load (start / end)", "bench local s", "bench cluster s", "ratio", "survey local s")
    header += ("survey cluster s", "ratio", "cluster runs with CPU time")
    table = []
    verdicts = []
    for r in rows:
        cpu, answered = r.get("cluster_cpu_measured", (0, 0))
        table.append(
            (
                r["condition"],
                f"{r['load_start'].split()[0]} / {r['load_end'].split()[0]}",
                f"{statistics.median(r['bench_local_s']):.2f}",
                f"{statistics.median(r['bench_cluster_s']):.2f}",
                spread(r["bench_ratios"]),
                f"{statistics.median(r['survey_local_s']):.2f}",
                f"{statistics.median(r['survey_cluster_s']):.2f}",
                spread(r["survey_ratios"]),
                f"{cpu} of {answered}",
            )
        )
        for kind in ("bench", "survey"):
            verdicts.append(f"{r['condition']} {kind} {r[f'{kind}_ratio']:.2f}x (target <= {TARGET})")
    text = (
        f"Loopback cluster (2 stock workers, 1 thread each) against this machine alone, {args.count} dense "
        f"side-6 deals (seed {args.seed}); bench -b {args.backend}, survey -b {args.survey_backend}; medians of "
        f"{args.rounds} rounds, each ratio cluster / local of one round, their range in brackets "
        f"({time.strftime('%Y-%m-%d %H:%M')}, `{' '.join(sys.argv)}`)\n\n"
        + markdown_table(header, table)
        + "\n\nTargets: "
        + "; ".join(verdicts)
        + "."
    )
    publish(args.out, text, {"command": " ".join(sys.argv), "rows": rows, "verdicts": verdicts})
    if not args.no_record:
        path = ROOT / MEASURED
        section = "## The last run of scripts/bench/cluster_cost.py (its loads in the table)\n\n"
        old = path.read_text() if path.exists() else None
        path.write_text(with_section(old, section + text, "scripts/bench/cluster_cost.py", TITLE))
        print(f"wrote its section of {MEASURED}")


if __name__ == "__main__":
    main()
