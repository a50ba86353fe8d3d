"""Checked "no"s: the race on random dense deals, every unsolvable answer with a checked certificate.

Targets (issue 12), on 300 dense deals of side 6 (the 55 standard tiles on
the cells nearest the centre, ties at random):

- the race answers every board with a checked certificate, check included:
  median <= 10 ms, p99 <= 0.3 s, max <= 0.5 s;
- checking costs at most 2x the solve time at the median;
- a dead-states file of a side-6 board is at most 10 MB.

Each board is raced as ``sigmar solve`` races it (all available backends,
one worker each, reused across boards); ``seconds`` is the race's wall time
from the start of the board to the accepted answer, the check included.
``solve`` is that minus the check.  The certificate files go to a folder
under results/ so their sizes can be read.

    python scripts/bench_certificates.py --count 300 --seed 1 --time-limit 60

Prints a table and writes results/bench_certificates.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchlib import percentile

from sigmar.encoders.registry import expand
from sigmar.models.board import Board
from sigmar.models.deal import deal
from sigmar.models.result import Status
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.race import Race


def run(boards: list[Board], names: list[str], time_limit: float, folder: Path) -> list[dict[str, Any]]:
    rows = []
    with ProofStore(folder) as proofs, Race(names, proofs=proofs) as race:
        for board in boards:
            start = time.perf_counter()
            result = race.solve(board, time_limit).result
            seconds = time.perf_counter() - start
            certificate = result.certificate
            size = 0
            if certificate is not None and certificate.file:
                size = Path(certificate.file).stat().st_size
            rows.append(
                {
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
            )
    return rows


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
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dim", type=int, default=6)
    parser.add_argument("--backend", default="all")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=Path("results/bench_certificates.json"))
    args = parser.parse_args()
    boards = [deal("dense", args.dim, args.seed, i) for i in range(args.count)]
    names = expand(args.backend)
    folder = args.out.parent / "bench_certificates_proofs"
    rows = run(boards, names, args.time_limit, folder)
    summary = summarise(rows)
    command = " ".join(["python", *sys.argv])
    print(f"# {command}")
    for key, value in summary.items():
        print(f"{key:>26}: {value:.4f}" if isinstance(value, float) else f"{key:>26}: {value}")
    slowest = sorted(rows, key=lambda r: -r["seconds"])[:5]
    for r in slowest:
        print(f"  slow: {r['board']}: {r['status']} {r['kind']} by {r['backend']} in {r['seconds']:.3f} s")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"command": command, "summary": summary, "rows": rows}, indent=1))
    return 0 if summary["unchecked_unsolvable"] == 0 and all(r["status"] != str(Status.UNKNOWN) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
