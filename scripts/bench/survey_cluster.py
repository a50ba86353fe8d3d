"""``sigmar survey --cluster`` on stock Dask workers: the issue-31 target, measured.

A loopback scheduler and two stock ``dask worker`` processes (each with its
nanny, so daemonic worker processes; ``tests/loopback.py``) answer N random
deals; the same survey then runs on this machine alone.  Each survey runs
``sigmar survey`` as a command with a fresh results file, and the counts
come from that file: every "unsolvable" must carry a checked certificate,
and both runs must give the same verdicts.

    python scripts/bench/survey_cluster.py                  # 100 dense side-6 deals
    python scripts/bench/survey_cluster.py --count 10       # the small variant

Prints a table and writes results/bench_cluster.json (and .md).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchlib import RESULTS, markdown_table, publish

from sigmar.runners.survey import verdict
from tests.loopback import loopback_cluster


def survey(args: argparse.Namespace, results: Path, cluster: str | None) -> dict[str, Any]:
    command = [sys.executable, "-m", "sigmar.runners.cli", "survey", "--count", str(args.count)]
    command += ["--seed", str(args.seed), "--time-limit", f"{args.time_limit:g}", "--results", str(results), "--json"]
    command += ["--cluster", cluster] if cluster else []
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"survey failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    records = [json.loads(line) for line in results.read_text().splitlines()]
    noes = [r for r in records if r.get("status") == "unsolvable"]
    return {
        "where": f"cluster {cluster}" if cluster else "this machine",
        "exit": done.returncode,
        "wall_s": round(wall, 2),
        "boards": len(records),
        "verdicts": {str(r["index"]): verdict(r) for r in records},
        "unsolvable": len(noes),
        "unsolvable_checked": sum(1 for r in noes if r.get("checked")),
        "unknown": sum(1 for r in records if verdict(r) == "unknown"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100, help="deals to answer (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="deal seed (default 0)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per board (default 60)")
    parser.add_argument("--out", default=str(RESULTS / "bench_cluster"), help="OUT.json and OUT.md")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="sigmar-bench-cluster-") as folder:
        start = time.perf_counter()
        with loopback_cluster(workers=2, nthreads=1) as cluster:
            up = time.perf_counter() - start
            rows.append(survey(args, Path(folder) / "cluster.jsonl", cluster.address))
        rows.append(survey(args, Path(folder) / "local.jsonl", None))
    same = rows[0]["verdicts"] == rows[1]["verdicts"]
    header = ("where", "exit", "boards", "unsolvable", "of them checked", "unknown", "wall s")
    table = [
        (r["where"], r["exit"], r["boards"], r["unsolvable"], r["unsolvable_checked"], r["unknown"], r["wall_s"])
        for r in rows
    ]
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.node()}, {platform.machine()}, Python {platform.python_version()}"
    text = (
        f"`sigmar survey --count {args.count} --seed {args.seed} --time-limit {args.time_limit:g}`, "
        f"on a loopback scheduler with two stock `dask worker` processes (nanny, 1 thread each; "
        f"up in {up:.1f} s), then on this machine alone. {when}, {machine}.\n\n"
        + markdown_table(header, table)
        + f"\n\nSame verdicts on both: {'yes' if same else 'NO'}."
    )
    record = {"when": when, "machine": machine, "args": vars(args), "cluster_up_s": round(up, 2), "same": same}
    record["runs"] = rows
    publish(args.out, text, record)
    if not same or any(r["unsolvable"] != r["unsolvable_checked"] for r in rows):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
