"""Cube-and-conquer against the single proof on the hardest refutations: CPU, the largest cube, wall on workers.

For each dense deal (side:index of ``sigmar generate --deal dense --dim SIDE --seed 1``):

- **single**: the board's default CNF refuted by the prover with a DRUP proof, the proof's
  text and its check (as scripts/bench/sat_provers.py counts it), wall and CPU;
- **split, one worker**: ``prove --cubes N``'s split (runners/cubes.py) on one local worker, so
  each node is timed alone: the CPU summed over every node (solve, proof, check, the
  choice of split), the largest node's wall time;
- **split, 2 Dask workers**: the same split on a loopback Dask cluster of two stock
  ``dask worker`` processes (tests/loopback.py), its wall time as measured;
- **on P workers**: the wall time the measured node times give on P workers, by list scheduling
  (a node can start once its parent is done; among the nodes ready, the longest first), plus the
  runner's end (the cover and the files), as measured.

Every certificate is checked again by ``sigmar check``'s code (its time shown).  The ratios are
to the single proof in the same run; the load averages are printed beside them.  Writes
docs/measured/cubes.md and results/bench_cubes.json.

    python scripts/bench/cubes_vs_single_proof.py      # the 13 slowest refutations of sat_provers.py
    python scripts/bench/cubes_vs_single_proof.py --deals 8:455,8:212 --cubes 16 --no-dask
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import heapq
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from bench_provers import DEFAULT_DEALS, deal_list
from benchlib import ROOT, markdown_table, publish
from pysat.solvers import Solver

from sigmar.encoders.cnf import DEFAULT_SOLVER, build_formula, proof_text
from sigmar.models.deal import deal
from sigmar.models.result import Status
from sigmar.runners.checking.certificates import check_certificate
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.checking.rup_check import check_proof
from sigmar.runners.cubes import CUBE_CONFLICTS, DEFAULT_CUBES, PROBE_CONFLICTS, CubeProver
from sigmar.runners.cubes.pools import DaskPool, LocalPool
from tests.loopback import loopback_cluster

WORKERS = (2, 8, 16)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", default=DEFAULT_DEALS, type=deal_list, help="SIDE:INDEX,... of dense deals")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cubes", type=int, default=DEFAULT_CUBES, help=f"N (default {DEFAULT_CUBES})")
    parser.add_argument("--probe", type=int, default=PROBE_CONFLICTS, help="conflicts of a node above depth log2 N")
    parser.add_argument("--budget", type=int, default=CUBE_CONFLICTS, help="conflicts of a deeper node")
    parser.add_argument("--prover", default=DEFAULT_SOLVER)
    parser.add_argument("--no-dask", action="store_true", help="skip the loopback Dask cluster")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_cubes"))
    parser.add_argument("--doc", default=str(ROOT / "docs" / "measured" / "cubes.md"))
    parser.add_argument("--report-only", action="store_true", help="write the report again from OUT.json")
    args = parser.parse_args(argv)
    settings = f"N={args.cubes}, probe {args.probe:,} conflicts, budget {args.budget:,} conflicts, {args.prover}"
    if args.report_only:
        kept = json.loads(Path(args.out).with_suffix(".json").read_text())
        text = report(kept["rows"], kept["settings"], kept["loads"], kept.get("command"), kept.get("date"))
        Path(args.doc).write_text(text + "\n")
        print(text)
        return 0
    loads = [os.getloadavg()]
    print(f"cube-and-conquer ({settings}); load {loads[0][0]:.1f}", flush=True)
    rows = []
    with contextlib.ExitStack() as stack:
        proofs = stack.enter_context(ProofStore())
        alone = stack.enter_context(LocalPool(1))
        dask = None
        if not args.no_dask:
            from distributed import Client

            cluster = stack.enter_context(loopback_cluster(workers=2, nthreads=1))
            client = stack.enter_context(Client(cluster.address, timeout="30s"))
            dask = stack.enter_context(DaskPool(client))
            warm_up(client)
        for side, index in args.deals:
            board = deal("dense", side, args.seed, index)
            row = measure(board, f"{side}:{index}", args, proofs, alone, dask)
            if row is not None:
                rows.append(row)
                print("  " + line_of(row), flush=True)
            loads.append(os.getloadavg())
    if not rows:
        print("no refutation measured", file=sys.stderr)
        return 1
    command = "python scripts/bench/cubes_vs_single_proof.py" + ("" if not argv else " " + " ".join(argv))
    date = datetime.date.today().isoformat()
    text = report(rows, settings, loads, command, date)
    publish(args.out, text, {"settings": settings, "loads": loads, "command": command, "date": date, "rows": rows})
    Path(args.doc).parent.mkdir(parents=True, exist_ok=True)
    Path(args.doc).write_text(text + "\n")
    return 0


def warm_up(client: Any) -> None:
    """Start each worker's host before the clock runs (a user's cluster has them up after its first board)."""
    from sigmar.runners.host import hosted

    futures = [client.submit(hosted, os.getpid, pure=False, workers=[w]) for w in client.scheduler_info()["workers"]]
    client.gather(futures)


def single(board: Any, prover: str) -> dict[str, float] | None:
    """The one proof: solve, text, check; wall and CPU seconds (None: the board is solvable)."""
    formula = build_formula(board)
    cpu, start = time.process_time(), time.perf_counter()
    with Solver(name=prover, bootstrap_with=formula.clauses, with_proof=True) as solver:
        if solver.solve():
            return None
        solve = time.perf_counter() - start
        proof = proof_text(solver.get_proof()).encode()
    report = check_proof(formula.clauses, proof, formula.nv)
    assert report.valid, report.message
    return {
        "wall": time.perf_counter() - start,
        "cpu": time.process_time() - cpu,
        "solve": solve,
        "check": report.seconds,
    }


def measure(board: Any, spec: str, args: argparse.Namespace, proofs: ProofStore, alone: Any, dask: Any) -> dict | None:
    one = single(board, args.prover)
    if one is None:
        print(f"  {spec}: solvable, skipped", flush=True)
        return None
    splitter = CubeProver(alone, proofs, cubes=args.cubes, prover=args.prover, probe=args.probe, budget=args.budget)
    result = splitter.prove(board, None)
    assert result.status is Status.UNSOLVABLE and result.checked, (spec, result.status, result.message)
    nodes = splitter.nodes
    last = max(n["finished"] for n in nodes)
    end = max(0.0, result.seconds - last)  # after the last node: the cover, the formula, the files
    assert result.certificate is not None
    start = time.perf_counter()
    verdict = check_certificate(board, {**result.certificate.json(), "file": result.certificate.file})
    recheck = time.perf_counter() - start
    assert verdict.valid, verdict.reason
    row: dict[str, Any] = {
        "deal": spec,
        "single": one,
        "cubes": sum(1 for n in nodes if n["outcome"] == "refuted"),
        "nodes": len(nodes),
        "conflicts": sum(n["conflicts"] for n in nodes),
        "cpu": sum(n["cpu_seconds"] for n in nodes),
        "node_walls": [n["solve_seconds"] + n["check_seconds"] for n in nodes],
        "largest": max(n["solve_seconds"] + n["check_seconds"] for n in nodes),
        "end": end,
        "recheck": recheck,
        "simulated": {str(p): schedule(nodes, p) + end for p in WORKERS},  # str: the keys JSON keeps
        "tree": nodes,
    }
    if dask is not None:
        on_two = CubeProver(dask, proofs, cubes=args.cubes, prover=args.prover, probe=args.probe, budget=args.budget)
        result = on_two.prove(board, None)
        assert result.status is Status.UNSOLVABLE and result.checked and result.certificate, (spec, result.message)
        row["dask2"] = result.seconds
        verdict = check_certificate(board, {**result.certificate.json(), "file": result.certificate.file})
        assert verdict.valid, verdict.reason
    return row


def schedule(nodes: list[dict[str, Any]], workers: int) -> float:
    """The makespan of the tree's measured node times on ``workers``: list scheduling, longest ready node first."""
    duration = {n["node"]: n["solve_seconds"] + n["check_seconds"] for n in nodes}
    children: dict[int | None, list[int]] = {}
    for n in nodes:
        children.setdefault(n["parent"], []).append(n["node"])
    ready: dict[int, float] = {root: 0.0 for root in children.get(None, [])}
    free = [0.0] * workers
    finish = 0.0
    while ready:
        at = heapq.heappop(free)
        start = max(at, min(ready.values()))
        chosen = max((n for n, r in ready.items() if r <= start), key=lambda n: duration[n])
        del ready[chosen]
        end = start + duration[chosen]
        heapq.heappush(free, end)
        finish = max(finish, end)
        for child in children.get(chosen, []):
            ready[child] = end
    return finish


def line_of(row: dict[str, Any]) -> str:
    one = row["single"]
    out = (
        f"{row['deal']}: single {one['wall']:.2f} s ({one['cpu']:.2f} CPU); {row['cubes']} cubes of "
        f"{row['nodes']} nodes: CPU {row['cpu']:.2f} s ({row['cpu'] / one['cpu']:.2f}x), largest "
        f"{row['largest']:.2f} s ({row['largest'] / one['wall']:.2f}x)"
    )
    if "dask2" in row:
        out += f", 2 Dask workers {row['dask2']:.2f} s ({row['dask2'] / one['wall']:.2f}x)"
    return out


def report(rows: list[dict], settings: str, loads: list, command: str | None, date: str | None) -> str:
    command = command or "python scripts/bench/cubes_vs_single_proof.py"
    header = [
        "deal",
        "single s (CPU)",
        "cubes/nodes",
        "CPU x",
        "largest x (CPU x)",
        "2 Dask x",
        "2 / 8 / 16 workers x",
    ]
    table = []
    for row in rows:
        one = row["single"]
        sim = " / ".join(f"{row['simulated'][str(p)] / one['wall']:.2f}" for p in WORKERS)
        dask = f"{row['dask2'] / one['wall']:.2f}" if "dask2" in row else "-"
        table.append(
            [
                row["deal"],
                f"{one['wall']:.2f} ({one['cpu']:.2f})",
                f"{row['cubes']}/{row['nodes']}",
                f"{row['cpu'] / one['cpu']:.2f}",
                f"{row['largest'] / one['wall']:.2f} ({largest_cpu(row) / one['cpu']:.2f})",
                dask,
                sim,
            ]
        )
    meets = {
        "every certificate checked (again by sigmar check's code)": True,
        "at least 8 cubes": all(r["cubes"] >= 8 for r in rows),
        "CPU summed <= 1.5x": all(r["cpu"] <= 1.5 * r["single"]["cpu"] for r in rows),
        "largest node <= 0.25x": all(r["largest"] <= 0.25 * r["single"]["wall"] for r in rows),
    }
    if all("dask2" in r for r in rows):
        meets["2 Dask workers <= 0.6x"] = all(r["dask2"] <= 0.6 * r["single"]["wall"] for r in rows)
    ratio = statistics.median
    summary = [
        f"medians over the deals: CPU {ratio(r['cpu'] / r['single']['cpu'] for r in rows):.2f}x, largest node "
        f"{ratio(r['largest'] / r['single']['wall'] for r in rows):.2f}x, on 8 workers "
        f"{ratio(r['simulated']['8'] / r['single']['wall'] for r in rows):.2f}x, on 16 "
        f"{ratio(r['simulated']['16'] / r['single']['wall'] for r in rows):.2f}x"
    ]
    if all("dask2" in r for r in rows):
        summary.append(f"2 Dask workers, measured: {ratio(r['dask2'] / r['single']['wall'] for r in rows):.2f}x")
    lines = [
        "# Cube-and-conquer against the single proof",
        "",
        f"Measured {date or datetime.date.today().isoformat()} on a {os.cpu_count()}-core machine, Python "
        f"{platform.python_version()}; load average (1, 5, 15 min) "
        f"{fmt_load(loads[0])} at the start, {fmt_load(loads[-1])} at the end.",
        "",
        f"`{command}` ({settings})",
        "",
        "Ratios are to the single proof of the same deal in the same run (solve, proof text and check, "
        "wall seconds; CPU against CPU). *largest*: the longest node, solve and check, timed on one "
        "worker alone (in brackets, the node with the most CPU, against the single proof's CPU: on a "
        "loaded machine the steadier of the two). *2 Dask workers*: measured on a loopback cluster of two "
        "stock `dask worker` "
        "processes. *2 / 8 / 16 workers*: the wall time the measured node times give there, by list "
        "scheduling (a node starts once its parent is done; of the nodes ready, the longest first) plus "
        "the runner's end (the cover and the files), as measured.",
        "",
        markdown_table(header, table),
        "",
        *summary,
        "",
        *[f"- {what}: {'met' if ok else 'NOT met'}" for what, ok in meets.items()],
    ]
    return "\n".join(lines)


def largest_cpu(row: dict[str, Any]) -> float:
    return max(n["cpu_seconds"] for n in row["tree"])


def fmt_load(load: Any) -> str:
    return ", ".join(f"{x:.1f}" for x in load)


if __name__ == "__main__":
    sys.exit(main())
