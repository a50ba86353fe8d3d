"""The targets of issue 13, measured: bench's own cost per run, the memory it reports, MiniZinc's CPU.

1. **Overhead per run** (target: median at most 5 ms over the backend's
   solve time).  ``search`` on every board of ``instances/small.txt``, many
   times, through the real ``bench`` path (worker process, CPU and memory
   meter, rule-engine check, certificate check, grading, CSV row written).
   With one job the runs are back to back, so a run's overhead is the time
   between two consecutive answers in the parent minus the backend's own
   ``seconds``.
2. **Memory** (target: a worker that allocates 200 MB is reported within
   10% of that).  The fake ``hog:worker`` (scripts/bench/memory_hogs.py) holds 200 MB in the
   worker, ``hog:child`` in a child process; the reported peak minus the same
   worker's idle peak (``hog:idle``) is compared with 200 MB.
3. **MiniZinc's CPU includes fzn-gecode's.**  While ``minizinc`` solves
   standard boards, this script (not bench) polls the ``fzn-gecode`` process
   under the worker and keeps the last CPU time it saw; bench's
   ``cpu_seconds`` must be at least that.

    nice python scripts/bench/bench_own_cost.py

Prints the numbers and writes results/bench_overhead.json.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import threading
import time

import psutil
from benchlib import ROOT, percentile
from memory_hogs import FAMILY as HOGS

from sigmar.encoders import registry
from sigmar.models.boardfile import read_boards
from sigmar.models.result import Result
from sigmar.runners.bench import CsvSink, bench, plan, run_local

OUT = ROOT / "results" / "bench_overhead.json"


def overhead(repeat: int = 15) -> dict[str, float]:
    boards = read_boards(str(ROOT / "instances" / "small.txt"))
    runs = plan([("small", boards)] * repeat, ["search"])
    stamps: list[float] = []
    seconds: list[float] = []

    def done(run: object, answer: Result) -> None:
        stamps.append(time.perf_counter())
        seconds.append(answer.seconds)

    sink = CsvSink(ROOT / "results" / "bench_overhead.csv", ["bench_own_cost.py"])
    start = time.perf_counter()
    bench(runs, ["search"], run_local(runs, 10), done, sink.write)
    sink.close()
    gaps = [b - a - s for a, b, s in zip([start, *stamps], stamps, seconds, strict=False)][1:]  # drop worker start
    gaps.sort()
    return {
        "runs": len(gaps),
        "median_ms": 1000 * statistics.median(gaps),
        "p90_ms": 1000 * percentile(gaps, 90),
        "solve_median_ms": 1000 * statistics.median(seconds),
    }


def memory(repeat: int = 5, mb: int = 200) -> dict[str, object]:
    os.environ["SIGMAR_FAKE_MB"] = str(mb)
    names = ["hog:idle", "hog:worker", "hog:child"]
    boards = read_boards(str(ROOT / "instances" / "small.txt"))[:1]
    got: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(repeat):
        runs = plan([("small", boards)], names)
        for row in bench(runs, names, run_local(runs, 10)).rows:
            got[row.backend].append(row.usage.memory_mb or 0.0)
    idle = statistics.median(got["hog:idle"])
    out: dict[str, object] = {"allocated_mb": mb, "idle_worker_mb": idle}
    for name in ("hog:worker", "hog:child"):
        peak = statistics.median(got[name])
        out[name] = {"reported_mb": peak, "above_idle_mb": peak - idle, "error_pct": 100 * (peak - idle - mb) / mb}
    return out


def watch(stop: threading.Event, gecode: dict[int, float], worker: dict[int, list[float]]) -> None:
    """Poll this process's descendants: the last CPU seen of each fzn-gecode, first and last of each worker."""
    me = psutil.Process()
    while not stop.is_set():
        for proc in me.children(recursive=True):
            try:
                t = proc.cpu_times()
                if "fzn-gecode" in proc.name():
                    gecode[proc.pid] = t.user + t.system
                elif proc.ppid() == me.pid:
                    worker.setdefault(proc.pid, []).append(t.user + t.system)
            except psutil.Error:
                pass
        time.sleep(0.02)


def minizinc_cpu(limit: float = 3.0, count: int = 4) -> dict[str, object]:
    boards = read_boards(str(ROOT / "instances" / "generated-standard.txt"))[:count]
    results = []
    for board in boards:
        runs = plan([("standard", [board])], ["minizinc"])
        gecode: dict[int, float] = {}
        worker: dict[int, list[float]] = {}
        stop = threading.Event()
        watcher = threading.Thread(target=watch, args=(stop, gecode, worker), daemon=True)
        watcher.start()
        (row,) = bench(runs, ["minizinc"], run_local(runs, limit)).rows
        stop.set()
        watcher.join()
        results.append(
            {
                "board": board.name,
                "status": str(row.result.status),
                "wall_s": row.result.seconds,
                "cpu_s": row.usage.cpu_seconds,
                "gecode_cpu_seen_s": sum(gecode.values()),
                "worker_own_cpu_seen_s": sum(v[-1] - v[0] for v in worker.values()),
                "includes_gecode": (row.usage.cpu_seconds or 0) >= sum(gecode.values()),
            }
        )
    return {"time_limit": limit, "runs": results}


def main() -> int:
    registry.FAMILIES = (*registry.FAMILIES, HOGS)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    report: dict[str, object] = {"command": "nice python scripts/bench/bench_own_cost.py"}
    t0 = time.perf_counter()
    report["overhead"] = ov = overhead()
    print(
        f"overhead per run: median {ov['median_ms']:.2f} ms, p90 {ov['p90_ms']:.2f} ms over {ov['runs']} runs "
        f"(search's own median {ov['solve_median_ms']:.2f} ms); target median <= 5 ms"
    )
    report["memory"] = mem = memory()
    print(f"idle worker {mem['idle_worker_mb']:.1f} MB")
    for name in ("hog:worker", "hog:child"):
        m = mem[name]
        assert isinstance(m, dict)
        print(
            f"{name}: reported {m['reported_mb']:.1f} MB, {m['above_idle_mb']:.1f} MB above idle for 200 MB "
            f"allocated ({m['error_pct']:+.1f}%); target within 10%"
        )
    if registry.info("minizinc").available:
        report["minizinc"] = mz = minizinc_cpu()
        for r in mz["runs"]:  # type: ignore[attr-defined]
            print(
                f"minizinc {r['board']}: {r['status']} wall {r['wall_s']:.2f} s, cpu {r['cpu_s']:.2f} s, "
                f"fzn-gecode seen using {r['gecode_cpu_seen_s']:.2f} s, the worker itself "
                f"{r['worker_own_cpu_seen_s']:.2f} s: gecode included {r['includes_gecode']}"
            )
    else:
        print("minizinc is not installed here: its CPU target not measured")
    report["seconds"] = time.perf_counter() - t0
    OUT.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {OUT} in {report['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
