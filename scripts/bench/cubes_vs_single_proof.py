"""Cube-and-conquer against the single proof on the hardest refutations: CPU, wall on 2 cores, Dask, more workers.

For each dense deal (side:index of ``sigmar generate --deal dense --dim SIDE --seed 1``):

- **single**: the board refuted as ``sigmar prove`` does it by its cnf route, from the board to
  the checked answer: the cnf backend's encoding, solve with a DRUP proof and proof text, then the
  runner's files and check (:func:`certify`), wall and CPU (the runner's own encoding for the check
  is made beside the solving, as the race makes it: in the CPU, not the wall);
- **split, measured alone**: ``prove --cubes N``'s split (runners/cubes) with every node and every
  check run in this process one after another, so each is timed alone: all of the CPU of the split
  (the encodings, solve, proof, the choice of split, the checks, the cover and the files), the
  checks' own CPU against the single proof's check, the largest node (solve and check);
- **2 local workers**: the same split by ``prove --cubes``'s own pool on this machine's 2 cores,
  its wall time as measured (the workers' encoding, the checks, the cover and the files included);
- **2 Dask workers**: the same on a loopback Dask cluster of two stock ``dask worker`` processes
  (tests/loopback.py), its wall time as measured;
- **on P workers**: the wall time the measured node and check times give on P workers: list
  scheduling, a node ready once its parent is solved, a leaf's check once the leaf is, a split's once
  every node below it is checked (where it was checked in two parts, the first once one child's subtree
  is); of the tasks
  ready, the solving first (as the pools do), then the oldest; plus the rest of the split's wall
  measured alone (the encoding, the cover and the files).

Each repetition measures the single proof and the split back to back, and the ratios of a deal
are the medians of its repetitions (``--rounds``); the load averages are printed beside them.

``--splits`` also measures other choices of the split variable, in the alone mode only (CPU and
the simulated workers): ``learnt`` (ours: of the 50 variables the node's proof used most, the one
whose two values propagate most), ``activity`` (the free variable of highest VSIDS activity,
the solver's own choice), ``lookahead`` (textbook lookahead: every free variable weighed by
propagation, as a cube-and-conquer solver such as march does).

Every certificate is checked again by ``sigmar check``'s code.  Writes docs/measured/cubes.md and
results/bench_cubes.json.

    python scripts/bench/cubes_vs_single_proof.py      # the 13 slowest refutations of sat_provers.py
    python scripts/bench/cubes_vs_single_proof.py --deals 8:455,8:212 --rounds 3 --splits learnt,activity
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
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from benchlib import ROOT, markdown_table, publish
from sat_provers import DEFAULT_DEALS, deal_list

import sigmar.runners.cubes.node as node
from sigmar.encoders.cnf import DEFAULT_SOLVER
from sigmar.encoders.registry import make
from sigmar.models.deal import deal
from sigmar.models.result import Status
from sigmar.runners.checking import fresh_formula
from sigmar.runners.checking.certificates import check_certificate
from sigmar.runners.checking.certify import ProofStore, certify
from sigmar.runners.checking.replay import replayed
from sigmar.runners.cubes.pools import DaskPool, LocalPool
from sigmar.runners.cubes.split import CUBE_CONFLICTS, DEFAULT_CUBES, PROBE_CONFLICTS, SIDE_CONFLICTS, CubeProver
from tests.loopback import loopback_cluster

WORKERS = (2, 8, 16)
SPLITS = ("learnt", "activity", "lookahead")


class Alone:
    """A pool that runs each call here at once: every node and check is timed alone, in this process."""

    def submit(self, fn: Any, *args: Any, key: str = "", prefer: Any = None, priority: int = 0) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_result(fn(*args))
        return future

    def where(self, future: Any) -> Any:
        return 0

    def cancel(self) -> None:
        pass

    def describe(self) -> str:
        return "this process, one call at a time"


def activity_split(solver: Any, cube: tuple[int, ...], used: Any, variables: int) -> tuple[int, int]:
    """The free variable of highest VSIDS activity (the solver's own next decision, as near as can be read);
    scored as never a weak split (node.WEAK_SPLIT)."""
    fixed = {abs(x) for x in cube}
    free = [v for v in range(1, variables + 1) if v not in fixed]
    activities = solver.get_activities(free)
    return max(free, key=lambda v: (activities.get(v, 0.0), -v)), variables**2


def lookahead_split(solver: Any, cube: tuple[int, ...], used: Any, variables: int) -> tuple[int, int]:
    """Textbook lookahead: every free variable weighed by what its two values propagate (and the best's score)."""
    fixed = {abs(x) for x in cube}
    _, implied = solver.propagate(assumptions=list(cube))
    fixed |= {abs(x) for x in implied or []}
    candidates = [v for v in range(1, variables + 1) if v not in fixed]
    best, best_score = candidates[0], -1
    for v in candidates:
        free_true, with_true = solver.propagate(assumptions=[*cube, v])
        free_false, with_false = solver.propagate(assumptions=[*cube, -v])
        if not (free_true and free_false):
            continue
        score = len(with_true) * len(with_false) + len(with_true) + len(with_false)
        if score > best_score:
            best, best_score = v, score
    return best, best_score


CHOOSERS = {"learnt": node.choose_split, "activity": activity_split, "lookahead": lookahead_split}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", default=DEFAULT_DEALS, type=deal_list, help="SIDE:INDEX,... of dense deals")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cubes", type=int, default=DEFAULT_CUBES, help=f"N (default {DEFAULT_CUBES})")
    parser.add_argument("--probe", type=int, default=PROBE_CONFLICTS, help="conflicts of a node above depth log2 N")
    parser.add_argument("--budget", type=int, default=CUBE_CONFLICTS, help="conflicts of a deeper node")
    parser.add_argument(
        "--sides",
        type=int,
        default=SIDE_CONFLICTS,
        help="conflicts for each side of a split before it is made (0: none)",
    )
    parser.add_argument("--prover", default=DEFAULT_SOLVER)
    parser.add_argument("--rounds", type=int, default=1, help="repetitions of each deal (medians reported)")
    parser.add_argument("--splits", default="learnt", help=f"choices of the split variable ({', '.join(SPLITS)})")
    parser.add_argument("--no-dask", action="store_true", help="skip the loopback Dask cluster")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench_cubes"))
    parser.add_argument("--doc", default=str(ROOT / "docs" / "measured" / "cubes.md"))
    parser.add_argument("--report-only", action="store_true", help="write the report again from OUT.json")
    args = parser.parse_args(argv)
    splits = args.splits.split(",")
    if any(s not in SPLITS for s in splits) or splits[0] != "learnt":
        parser.error(f"--splits: 'learnt' first, then any of {', '.join(SPLITS)}")
    settings = (
        f"N={args.cubes}, probe {args.probe:,} conflicts, budget {args.budget:,} conflicts, "
        f"sides {args.sides:,} conflicts, {args.prover}"
    )
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
        two = stack.enter_context(LocalPool(2))
        warm_up(two)
        dask = None
        if not args.no_dask:
            from distributed import Client

            cluster = stack.enter_context(loopback_cluster(workers=2, nthreads=1))
            client = stack.enter_context(Client(cluster.address, timeout="30s"))
            dask = stack.enter_context(DaskPool(client))
            warm_up_dask(client)
        for side, index in args.deals:
            board = deal("dense", side, args.seed, index)
            runs = []
            for _ in range(args.rounds):
                run = measure(board, args, proofs, two, dask, splits)
                if run is None:
                    break
                runs.append(run)
            if not runs:
                print(f"  {side}:{index}: solvable, skipped", flush=True)
                continue
            row = {"deal": f"{side}:{index}", "runs": runs, **medians(runs, splits)}
            rows.append(row)
            print("  " + line_of(row), flush=True)
            loads.append(os.getloadavg())
    if not rows:
        print("no refutation measured", file=sys.stderr)
        return 1
    given = sys.argv[1:] if argv is None else argv
    command = "python scripts/bench/cubes_vs_single_proof.py" + ("" if not given else " " + " ".join(given))
    date = datetime.date.today().isoformat()
    text = report(rows, settings, loads, command, date)
    publish(args.out, text, {"settings": settings, "loads": loads, "command": command, "date": date, "rows": rows})
    Path(args.doc).parent.mkdir(parents=True, exist_ok=True)
    Path(args.doc).write_text(text + "\n")
    return 0


def warm_up(pool: LocalPool) -> None:
    """Start each host before the clock runs (``prove`` starts them once, for all its boards)."""
    futures = [pool.submit(os.getpid, prefer=slot) for slot in range(pool.workers)]
    for future in futures:
        future.result()


def warm_up_dask(client: Any) -> None:
    from sigmar.encoders.processes.parent import hosted

    futures = [client.submit(hosted, os.getpid, pure=False, workers=[w]) for w in client.scheduler_info()["workers"]]
    client.gather(futures)


def single(board: Any, prover: str, proofs: ProofStore) -> dict[str, float] | None:
    """The one proof as ``sigmar prove`` makes it by its cnf route (None: the board is solvable).

    From the board to the checked answer: the cnf backend's encoding, solve and proof text, then the
    runner's files and its check (:func:`certify`), what a user waits for.  The runner's own encoding
    of the board for the check is made first and left out of the wall (the race makes it while the
    prover works, as ``prove --cubes`` makes it while the nodes are solved) but counted in the CPU.
    """
    cpu = time.process_time()
    fresh_formula.fresh(board)  # the runner's encoding, ready when the answer comes
    backend = make(f"cnf:{prover}")
    start = time.perf_counter()
    result = replayed(board, backend.solve(board, None))
    if result.status is not Status.UNSOLVABLE:
        fresh_formula.release(board)
        return None
    solve, checking = time.perf_counter() - start, time.process_time()
    result = certify(board, result, proofs)
    assert result.checked, result.message
    check_cpu = time.process_time() - checking
    wall, spent = time.perf_counter() - start, time.process_time() - cpu
    stats = result.statistics
    return {
        "wall": wall,
        "cpu": spent,
        "solve": solve,
        "encode": float(stats.get("encode_seconds", 0.0)),
        "check": float(result.check_seconds or 0.0),
        "check_cpu": check_cpu,  # the files written and the check
        "conflicts": int(stats.get("conflicts", 0)),
    }


def split_alone(board: Any, args: argparse.Namespace, proofs: ProofStore, split: str) -> dict[str, Any]:
    """The split in this process, each node and check timed alone."""
    real = node.choose_split
    node.choose_split = CHOOSERS[split]  # type: ignore[assignment]
    node._encoded = node._flat = node._base = None  # the board encoded in the split's time, as a worker does
    cpu = time.process_time()
    # The runner's own encoding for the certificate's files, made in a thread beside the nodes by prove: made here
    # first, so that process_time (every thread's) does not charge it to the root node; counted in the CPU.
    fresh_formula.fresh(board)
    try:
        prover = CubeProver(
            Alone(),
            proofs,
            cubes=args.cubes,
            prover=args.prover,
            probe=args.probe,
            budget=args.budget,
            sides=args.sides,
        )
        result = prover.prove(board, None)
        spent = time.process_time() - cpu
    finally:
        node.choose_split = real  # type: ignore[assignment]
    assert result.status is Status.UNSOLVABLE and result.checked, (board.name, result.status, result.message)
    nodes = prover.nodes
    end = max(0.0, result.seconds - sum(n["solve_seconds"] + (n["check_seconds"] or 0) for n in nodes))
    return {
        "cubes": sum(1 for n in nodes if n["outcome"] == "refuted"),
        "nodes": len(nodes),
        "conflicts": sum(n["conflicts"] for n in nodes),
        "cpu": spent,  # all of it: the encodings, every node and check, the cover and the files
        "nodes_cpu": sum(n["cpu_seconds"] for n in nodes),
        "checks_cpu": sum(n["check_cpu_seconds"] or 0 for n in nodes),
        "checks": sum(n["check_seconds"] or 0 for n in nodes),
        "largest": max(n["solve_seconds"] + (n["check_seconds"] or 0) for n in nodes),
        "largest_cpu": max(n["cpu_seconds"] + (n["check_cpu_seconds"] or 0) for n in nodes),
        "end": end,
        "simulated": {str(p): schedule(nodes, p) for p in WORKERS},  # str: the keys JSON keeps
        "tree": nodes,
        "certificate": result.certificate,
    }


def measure(
    board: Any, args: argparse.Namespace, proofs: ProofStore, two: LocalPool, dask: Any, splits: list[str]
) -> dict[str, Any] | None:
    one = single(board, args.prover, proofs)
    if one is None:
        return None
    run: dict[str, Any] = {"single": one, "splits": {}}
    for split in splits:
        alone = split_alone(board, args, proofs, split)
        certificate = alone.pop("certificate")
        if split == "learnt":  # every certificate is checked again, as sigmar check does
            verdict = check_certificate(board, {**certificate.json(), "file": certificate.file})
            assert verdict.valid, verdict.reason
        alone["simulated"] = {p: s + alone["end"] for p, s in alone["simulated"].items()}
        run["splits"][split] = alone
    on_two = CubeProver(
        two, proofs, cubes=args.cubes, prover=args.prover, probe=args.probe, budget=args.budget, sides=args.sides
    )
    result = on_two.prove(board, None)
    assert result.status is Status.UNSOLVABLE and result.checked and result.certificate, (board.name, result.message)
    run["local2"] = result.seconds
    run["local2_nodes"] = len(on_two.nodes)
    if dask is not None:
        on_dask = CubeProver(
            dask, proofs, cubes=args.cubes, prover=args.prover, probe=args.probe, budget=args.budget, sides=args.sides
        )
        result = on_dask.prove(board, None)
        assert result.status is Status.UNSOLVABLE and result.checked and result.certificate, (
            board.name,
            result.message,
        )
        run["dask2"] = result.seconds
    return run


def medians(runs: list[dict[str, Any]], splits: list[str]) -> dict[str, Any]:
    """Each ratio to the single proof of the same repetition, the median over the repetitions."""
    m = statistics.median

    def ratio(get: Any, against: str = "wall") -> float:
        return m(get(run) / run["single"][against] for run in runs)

    out: dict[str, Any] = {
        "single_wall": m(r["single"]["wall"] for r in runs),
        "single_cpu": m(r["single"]["cpu"] for r in runs),
        "local2_x": ratio(lambda r: r["local2"]),
    }
    if all("dask2" in r for r in runs):
        out["dask2_x"] = ratio(lambda r: r["dask2"])
    for split in splits:
        out[split] = {
            "cubes": runs[0]["splits"][split]["cubes"],
            "nodes": runs[0]["splits"][split]["nodes"],
            "conflicts_x": ratio(lambda r, s=split: r["splits"][s]["conflicts"], "conflicts"),
            "cpu_x": ratio(lambda r, s=split: r["splits"][s]["cpu"], "cpu"),
            "checks_x": ratio(lambda r, s=split: r["splits"][s]["checks_cpu"], "check_cpu"),
            "largest_x": ratio(lambda r, s=split: r["splits"][s]["largest"]),
            "largest_cpu_x": ratio(lambda r, s=split: r["splits"][s]["largest_cpu"], "cpu"),
            "simulated_x": {
                str(p): ratio(lambda r, s=split, p=p: r["splits"][s]["simulated"][str(p)]) for p in WORKERS
            },
        }
    return out


def schedule(nodes: list[dict[str, Any]], workers: int) -> float:
    """The makespan of the measured node and check times on ``workers``, as the pools run them.

    A node is ready once its parent is solved; a leaf's check once the leaf is solved, a split's once
    every node below it is checked, or in two parts where it had two (runners/cubes/split.py _Checks):
    the first once one child's subtree is checked, the rest once both are and the first is done.  A
    free worker takes a ready node first (the oldest), else a ready check (the deepest node's, the
    oldest among those, as split.check_priority has the pools do).  A split none of whose clauses was
    used below it has no check (0 s).
    """
    solve = {n["node"]: n["solve_seconds"] for n in nodes}
    first = {n["node"]: n.get("first_check_seconds") for n in nodes}
    check = {n["node"]: (n["check_seconds"] or 0.0) - (first[n["node"]] or 0.0) for n in nodes}
    depth = {n["node"]: n["depth"] for n in nodes}
    parent = {n["node"]: n["parent"] for n in nodes}
    children: dict[int | None, list[int]] = {}
    for n in nodes:
        children.setdefault(n["parent"], []).append(n["node"])
    ready: list[tuple[float, int, int, str]] = [(0.0, 0, r, "solve") for r in children.get(None, [])]
    free = [0.0] * workers
    closed: dict[int, float] = {}
    parted: dict[int, float] = {}  # a split's first part, when done
    finish = 0.0

    def close(number: int, at: float) -> None:
        """A node checked with all below it: its parent's check (or first part) may be ready."""
        closed[number] = at
        up = parent[number]
        if up is None:
            return
        shut = [c for c in children[up] if c in closed]
        if first[up] is not None and len(shut) == 1:
            ready.append((at, 1, up, "part"))
        elif len(shut) == len(children[up]) and (first[up] is None or up in parted):
            ready.append((max(closed[c] for c in children[up]), 1, up, "check"))

    while ready:
        at = heapq.heappop(free)
        start = max(at, min(t for t, *_ in ready))
        now = [task for task in ready if task[0] <= start]
        chosen = min(
            now, key=lambda task: (task[3] != "solve", -depth[task[2]] if task[3] != "solve" else 0, *task[::2])
        )
        ready.remove(chosen)
        _, _, number, kind = chosen
        spent = {"solve": solve, "check": check, "part": first}[kind][number] or 0.0
        end = start + spent
        heapq.heappush(free, end if spent > 0 else at)
        finish = max(finish, end)
        if kind == "solve":
            below = children.get(number, [])
            ready.extend((end, 0, child, "solve") for child in below)
            if not below:
                ready.append((end, 1, number, "check"))
        elif kind == "part":
            parted[number] = end
            if all(c in closed for c in children[number]):
                ready.append((end, 1, number, "check"))
        else:
            close(number, end)
    return finish


def line_of(row: dict[str, Any]) -> str:
    ours = row["learnt"]
    out = (
        f"{row['deal']}: single {row['single_wall']:.2f} s ({row['single_cpu']:.2f} CPU); {ours['cubes']} cubes of "
        f"{ours['nodes']} nodes: conflicts {ours['conflicts_x']:.2f}x, CPU {ours['cpu_x']:.2f}x, checks "
        f"{ours['checks_x']:.2f}x, largest "
        f"{ours['largest_x']:.2f}x, 2 local workers {row['local2_x']:.2f}x"
    )
    if "dask2_x" in row:
        out += f", 2 Dask workers {row['dask2_x']:.2f}x"
    return out


def report(rows: list[dict], settings: str, loads: list, command: str | None, date: str | None) -> str:
    command = command or "python scripts/bench/cubes_vs_single_proof.py"
    splits = [s for s in SPLITS if s in rows[0]]
    header = ["deal", "single s (CPU)", "cubes/nodes", "conflicts x", "CPU x", "checks x", "largest x", "2 cores x"]
    header.append("2 Dask x")
    header.append("2 / 8 / 16 workers x")
    table = []
    for row in rows:
        ours = row["learnt"]
        sim = " / ".join(f"{ours['simulated_x'][str(p)]:.2f}" for p in WORKERS)
        table.append(
            [
                row["deal"],
                f"{row['single_wall']:.2f} ({row['single_cpu']:.2f})",
                f"{ours['cubes']}/{ours['nodes']}",
                f"{ours['conflicts_x']:.2f}",
                f"{ours['cpu_x']:.2f}",
                f"{ours['checks_x']:.2f}" if "checks_x" in ours else "-",
                f"{ours['largest_x']:.2f}",
                f"{row['local2_x']:.2f}",
                f"{row['dask2_x']:.2f}" if "dask2_x" in row else "-",
                sim,
            ]
        )
    m = statistics.median
    summary = [
        f"medians over the deals: CPU {m(r['learnt']['cpu_x'] for r in rows):.2f}x, 2 cores "
        f"{m(r['local2_x'] for r in rows):.2f}x, on 8 workers "
        f"{m(r['learnt']['simulated_x']['8'] for r in rows):.2f}x, on 16 "
        f"{m(r['learnt']['simulated_x']['16'] for r in rows):.2f}x"
    ]
    if all("dask2_x" in r for r in rows):
        summary.append(f"2 Dask workers, measured: {m(r['dask2_x'] for r in rows):.2f}x")
    named = {r["deal"]: r for r in rows}
    meets = {"every certificate checked (again by sigmar check's code)": True}
    meets["CPU summed over the cubes <= 1.2x the single proof's, every deal"] = all(
        r["learnt"]["cpu_x"] <= 1.2 for r in rows
    )
    for spec in ("8:455", "8:212"):
        if spec in named:
            meets[f"{spec}: wall on 2 cores <= 0.6x"] = named[spec]["local2_x"] <= 0.6
            if "dask2_x" in named[spec]:
                meets[f"{spec}: wall on 2 Dask workers <= 0.7x"] = named[spec]["dask2_x"] <= 0.7
    lines = [
        "# Cube-and-conquer against the single proof",
        "",
        f"Measured {date or datetime.date.today().isoformat()} on a {os.cpu_count()}-core machine, Python "
        f"{platform.python_version()}; load average (1, 5, 15 min) "
        f"{fmt_load(loads[0])} at the start, {fmt_load(loads[-1])} at the end.",
        "",
        f"`{command}` ({settings})",
        "",
        "Ratios are to the single proof of the same deal measured just before, the median over the repetitions. "
        "Both sides are timed from the board to the checked answer with its files written, what a user waits "
        "for: the single proof as `sigmar prove` makes it by its cnf route (the backend's encoding, solve and "
        "proof text, then the runner's files and check), the split as `sigmar prove --cubes N` makes it (the "
        "workers' encoding, the nodes and their checks, the cover and the files); the runner's own encoding "
        "for the check is made beside the solving on both sides, out of the wall and in the CPU. Wall against "
        "wall, CPU against CPU, conflicts against its conflicts. "
        "*CPU*: the split with every node and every check run alone in one process, all of its CPU (the "
        "encodings, the cover and the files too). *checks*: the CPU of the nodes' checks, each alone, against "
        "the single proof's check (its files written and its check). *largest*: the longest node, solve and "
        "check. *2 cores*: `prove --cubes`'s own pool of 2 worker processes, wall as measured. "
        "*2 Dask*: a loopback cluster of two stock `dask worker` processes. *2 / 8 / 16 workers*: the wall "
        "time the measured node and check times give there, computed by list scheduling: a node is ready "
        "once its parent is solved, a leaf's check once the leaf is, a split's once every node below it is "
        "checked (in two parts where it had two, the first once one child's subtree is); a free worker takes "
        "the oldest ready node, else the deepest node's ready check (as the pools do); "
        "plus the rest of the split's wall measured alone (the encoding, the cover and the files).",
        "",
        markdown_table(header, table),
        "",
        *summary,
        "",
        *[f"- {what}: {'met' if ok else 'NOT met'}" for what, ok in meets.items()],
    ]
    if len(splits) > 1:
        lines += ["", "## The split variable", "", split_table(rows, splits)]
    return "\n".join(lines)


def split_table(rows: list[dict], splits: list[str]) -> str:
    header = ["deal", *(f"{s}: conflicts x / CPU x / largest x / 2 / 8 workers x" for s in splits)]
    table = []
    for row in rows:
        cells = [row["deal"]]
        for s in splits:
            r = row[s]
            cells.append(
                f"{r['conflicts_x']:.2f} / {r['cpu_x']:.2f} / {r['largest_x']:.2f} / "
                f"{r['simulated_x']['2']:.2f} / {r['simulated_x']['8']:.2f}"
            )
        table.append(cells)
    m = statistics.median
    table.append(
        [
            "median",
            *(
                f"{m(r[s]['conflicts_x'] for r in rows):.2f} / {m(r[s]['cpu_x'] for r in rows):.2f} / "
                f"{m(r[s]['largest_x'] for r in rows):.2f} / {m(r[s]['simulated_x']['2'] for r in rows):.2f} / "
                f"{m(r[s]['simulated_x']['8'] for r in rows):.2f}"
                for s in splits
            ),
        ]
    )
    return markdown_table(header, table)


def fmt_load(load: Any) -> str:
    return ", ".join(f"{x:.1f}" for x in load)


if __name__ == "__main__":
    sys.exit(main())
