"""Checked "no"s: the race on random dense deals, every unsolvable answer with a checked certificate.

Targets (issues 12 and 30), on 300 dense deals of side 6 (the 55 standard
tiles on the cells nearest the centre, ties at random), for each of seeds 1-3:

- the race answers every board with a checked certificate, check included:
  median <= 10 ms, p99 <= 0.3 s, max <= 0.5 s;
- checking costs at most 2x the solve time at the median;
- a dead-states file of a side-6 board is at most 10 MB.

Each board is raced as ``sigmar solve`` races it (all available backends,
one worker each, reused across the boards of a seed); ``seconds`` is the
race's wall time from the start of the board to the accepted answer, the
check included.  The certificate files go to a folder under results/ so their
sizes can be read.

Each race runs in a child process of this script (``--serve``), so that
``--before PYTHON`` can race the same deals with another install (say the main
branch's virtual environment) in the same run, interleaved board by board
(which goes first alternates), so that the load of a shared machine falls on
both alike:

    python scripts/bench/checked_refutations.py --seeds 1 2 3
    python scripts/bench/checked_refutations.py --seeds 1 --before /work/main/.venv/bin/python
    python scripts/bench/checked_refutations.py --dim 8 --seeds 1 --first 444 --count 12   # side-8 deal 455 last

Prints a table and writes results/bench_certificates.json (per-seed summaries
and per-board rows) and .md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchlib import markdown_table, percentile, publish

HERE = Path(__file__).resolve()


def serve(seed: int, dim: int, backend: str, time_limit: float, folder: Path) -> int:
    """Race the deal indices read from standard input, one JSON line of answer per index."""
    from sigmar.encoders.registry import expand
    from sigmar.models.deal import deal
    from sigmar.runners.checking.certify import ProofStore
    from sigmar.runners.race import Race

    names = expand(backend)
    with ProofStore(folder) as proofs, Race(names, proofs=proofs) as race:
        print(json.dumps({"ready": names}), flush=True)
        for line in sys.stdin:
            board = deal("dense", dim, seed, int(line))
            start = time.perf_counter()
            result = race.solve(board, time_limit).result
            seconds = time.perf_counter() - start
            certificate = result.certificate
            size = 0
            if certificate is not None and certificate.file and Path(certificate.file).exists():
                size = Path(certificate.file).stat().st_size
            row = {
                "board": board.name,
                "status": str(result.status),
                "reason": str(result.reason) if result.reason else None,
                "backend": result.backend,
                "kind": str(certificate.kind) if certificate else None,
                "checked": result.checked,
                "seconds": seconds,
                "check_seconds": result.check_seconds or 0.0,
                "bytes": size,
            }
            print(json.dumps(row), flush=True)
    return 0


class Server:
    """One interpreter's race, in a child process, answering deal indices."""

    def __init__(self, label: str, python: str, args: argparse.Namespace, seed: int) -> None:
        self.label = label
        folder = Path(args.out).parent / f"bench_certificates_proofs/{label}-s{seed}"
        command = [python, str(HERE), "--serve", "--serve-seed", str(seed), "--dim", str(args.dim)]
        command += ["--backend", args.backend, "--time-limit", str(args.time_limit), "--folder", str(folder)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.names = json.loads(self.read())["ready"]
        self.rows: list[dict[str, Any]] = []

    def read(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"the {self.label} race ended early (exit {self.process.wait()})")
        return line

    def race(self, index: int) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{index}\n")
        self.process.stdin.flush()
        row = json.loads(self.read())
        self.rows.append(row)
        return row

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(60)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = [r["seconds"] for r in rows]
    refuted = [r for r in rows if r["status"] == "unsolvable"]
    ratios = [r["check_seconds"] / max(r["seconds"] - r["check_seconds"], 1e-6) for r in refuted]
    return {
        "boards": len(rows),
        "status": dict(Counter(r["status"] for r in rows)),
        "kinds": dict(Counter(r["kind"] for r in refuted)),
        "winners": dict(Counter(r["backend"] for r in rows)),
        "unchecked_unsolvable": sum(1 for r in refuted if not r["checked"]),
        "median_s": statistics.median(seconds),
        "p99_s": percentile(seconds, 99),
        "max_s": max(seconds),
        "median_check_over_solve": statistics.median(ratios) if ratios else None,
        "max_certificate_bytes": max((r["bytes"] for r in rows), default=0),
        "slowest": [
            f"{r['board']}: {r['status']} {r['kind'] or ''} by {r['backend']} in {r['seconds']:.3f} s"
            f" (check {r['check_seconds']:.3f} s)"
            for r in sorted(rows, key=lambda r: -r["seconds"])[:5]
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--first", type=int, default=0, help="index of the first deal (default 0)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--dim", type=int, default=6)
    parser.add_argument("--backend", default="all")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--before", help="another install's python: its race runs interleaved with this one's")
    parser.add_argument("--out", default="results/bench_certificates")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve-seed", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.serve_seed, args.dim, args.backend, args.time_limit, args.folder)

    command = " ".join(["python", *sys.argv])
    runs = {"now": sys.executable} if args.before is None else {"before": args.before, "now": sys.executable}
    summaries: dict[str, dict[str, Any]] = {}
    rows: dict[str, list[dict[str, Any]]] = {}
    load = [os.getloadavg()[0]]
    for seed in args.seeds:
        servers = [Server(label, python, args, seed) for label, python in runs.items()]
        for index in range(args.first, args.first + args.count):
            for server in servers if index % 2 == 0 else reversed(servers):
                server.race(index)
        for server in servers:
            server.close()
            key = f"{server.label} seed {seed}"
            summaries[key] = summarise(server.rows)
            rows[key] = server.rows
        load.append(os.getloadavg()[0])
    heading = (
        f"# {command}\n\n{args.count} dense deals of side {args.dim} per seed "
        f"(indices {args.first}-{args.first + args.count - 1}), race of {args.backend}; "
        f"load average {' -> '.join(f'{x:.1f}' for x in load)} (at the start and after each seed)"
    )
    table = markdown_table(
        ("run", "answered", "unchecked no", "median ms", "p99 s", "max s", "certificates", "winners"),
        [
            (
                key,
                f"{sum(n for s, n in summary['status'].items() if s in ('solved', 'unsolvable'))}/{summary['boards']}",
                summary["unchecked_unsolvable"],
                f"{1000 * summary['median_s']:.1f}",
                f"{summary['p99_s']:.3f}",
                f"{summary['max_s']:.3f}",
                ", ".join(f"{k} {n}" for k, n in sorted(summary["kinds"].items())),
                ", ".join(f"{k} {n}" for k, n in sorted(summary["winners"].items())),
            )
            for key, summary in summaries.items()
        ],
    )
    slowest = "\n".join(f"- {key}: " + "; ".join(s["slowest"][:3]) for key, s in summaries.items())
    record = {"command": command, "load": load, "summaries": summaries, "rows": rows}
    out = publish(args.out, f"{heading}\n\n{table}\n\nSlowest boards:\n\n{slowest}", record)
    print(f"wrote {out.with_suffix('.md')} and .json")
    bad = any(s["unchecked_unsolvable"] or s["status"].get("unknown") for s in summaries.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
