"""Against the public solver (MarvynBailly/sigmars-garden): per board in a batch, and one board as a whole process.

Issue 48's targets, in one run, ours and the public solver's side by side:

- **Per board** (``per-board``): 300 boards of its ``random_solvable_board`` and 300 of its
  ``random_board`` (fixed seeds), made by ITS generator from a checkout given with ``--peer``
  (never copied here).  Ours: ``sigmar solve FILE --json`` (the default race), each board's
  ``seconds`` and, where search won, its ``statistics.search_seconds``; every "solved" replayed by
  the rule engine, every "unsolvable" with a checked certificate (the script counts any answer
  without one).  Its: ``solve(board)`` timed per board in one process, each solution replayed by
  its own ``verify``; where the two disagree on solvability the script says so.  Targets: ours
  ahead on the median, p99, max and total of both sets; our median at most 1.3x our search's median.
- **One board** (``one-board``): whole processes, paired back to back on the same board (its first
  solvable board), under ``env -i PATH=/usr/bin:/bin``, ``--runs`` pairs (the order alternating):
  ``sigmar solve FILE``, ``sigmar solve FILE -b search`` and ``sigmar --help`` against its
  ``python -m sigmar solve FILE`` (Debian's python3, the checkout as working folder), CPU (user +
  system, from ``wait4``) and wall time.  Targets: each of ours at most 0.8x its solve.

    python scripts/bench/public_solver.py --peer /work/scratch/peer            # both parts
    python scripts/bench/public_solver.py --peer ../peer --only one-board --runs 41
    python scripts/bench/public_solver.py --peer ../peer --only per-board --no-prestart   # workers started lazily

``--sigmar`` names the install measured (default: the ``sigmar`` beside this Python: the README's
install when run with ``.venv/bin/python``).  Prints the tables and writes results/public_solver.md
and .json (with the load average at the start and the end).  Standard library only.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import publish

ROOT = Path(__file__).resolve().parents[2]
SETS = {"solvable": ("random_solvable_board", 48), "dense": ("random_board", 777)}  # generator, seed
CLEAN = {"PATH": "/usr/bin:/bin"}  # `env -i PATH=/usr/bin:/bin`: what both commands run under
PEER_PYTHON = "/usr/bin/python3"

# Run by the public solver's own Python with its checkout first on the path (its package is also named
# `sigmar`, so it never shares a process with ours): writes the boards, then solves each, timed.
PEER_BATCH = r"""
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from sigmar import generator
from sigmar.solver import solve, verify
make = getattr(generator, sys.argv[2])
rng = random.Random(int(sys.argv[3]))
boards = [make(rng) for _ in range(int(sys.argv[4]))]
with open(sys.argv[5], "w") as out:
    for k, board in enumerate(boards):
        out.write(f"# {sys.argv[2]} seed {sys.argv[3]} #{k}\n{board.render()}\n\n")
if sys.argv[6] == "solve":
    for k, board in enumerate(boards):
        start = time.perf_counter()
        result = solve(board)
        seconds = time.perf_counter() - start
        replayed = None
        if result.solved:
            try:
                verify(board, result.moves)
                replayed = True
            except ValueError:
                replayed = False
        status = "solved" if result.solved else "unsolvable" if result.exhausted else "unknown"
        print(json.dumps({"board": k, "status": status, "seconds": seconds, "replayed": replayed}), flush=True)
"""


def load() -> str:
    """The load averages (1, 5, 15 minutes) now."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def nearest_rank(values: list[float], p: float) -> float:
    """The nearest-rank percentile, as the suite's (runners/statistics/scores.py)."""
    ordered = sorted(values)
    return ordered[min(max(1, math.ceil(p / 100 * len(ordered))), len(ordered)) - 1]


def figures(seconds: list[float]) -> dict[str, float]:
    return {
        "median": statistics.median(seconds),
        "p99": nearest_rank(seconds, 99),
        "max": max(seconds),
        "total": sum(seconds),
    }


def peer_batch(peer: Path, generator: str, seed: int, count: int, path: Path, solve: bool) -> list[dict[str, Any]]:
    """The public solver's boards written to ``path``, and (``solve``) its answer and time on each."""
    argv = [PEER_PYTHON, "-c", PEER_BATCH, str(peer), generator, str(seed), str(count), str(path)]
    run = subprocess.run([*argv, "solve" if solve else "write"], capture_output=True, text=True, env=CLEAN)
    if run.returncode != 0:
        raise SystemExit(f"the public solver failed: {run.stderr.strip()[-800:]}")
    return [json.loads(line) for line in run.stdout.splitlines()]


# ``--no-prestart``: the same command with the workers started only when a board needs them (the race told
# nothing of the file's size), to weigh what starting them ahead (in turn) costs the boards search settles.
LAZY = "from sigmar.runners.race import Race; Race.expect = lambda self, boards: None; "
LAZY += "from sigmar.runners.cli import main; import sys; sys.exit(main(sys.argv[1:]))"


def our_batch(sigmar: str, path: Path, time_limit: float, lazy: bool = False) -> list[dict[str, Any]]:
    """``sigmar solve FILE --json`` (the default race): one answer per board."""
    command = [sigmar] if not lazy else [str(Path(sigmar).with_name("python")), "-c", LAZY]
    run = subprocess.run(
        [*command, "solve", str(path), "--json", "--time-limit", str(time_limit)],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    )
    answers = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    if not answers:
        raise SystemExit(f"sigmar solve gave no answers: {run.stderr.strip()[-800:]}")
    return answers


def settled(answer: dict[str, Any]) -> bool:
    """A solved answer replayed, or an unsolvable one whose certificate was checked."""
    if answer["status"] == "solved":
        return bool(answer.get("verified"))
    return answer["status"] == "unsolvable" and bool(answer.get("checked"))


def per_board(args: argparse.Namespace, folder: Path, record: dict[str, Any]) -> list[str]:
    lines = [
        f"Per board: {args.count} boards of each of the public solver's generators (seeded); ours the "
        "default race (`sigmar solve FILE --json`, each board's `seconds`), its `solve(board)` timed in "
        f"one process; {args.rounds} round(s), each figure the median over the rounds.",
        "",
        "| set | solver | boards answered | median ms | p99 ms | max ms | total s |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    verdicts = []
    for label, (generator, seed) in SETS.items():
        if label not in args.sets:
            continue
        path = folder / f"{label}.txt"
        peer_generator = generator
        rounds: dict[str, list[dict[str, float]]] = {"ours": [], "public": [], "search": []}
        mismatched: set[int] = set()
        unsettled: set[int] = set()
        for _ in range(args.rounds):
            theirs = peer_batch(args.peer, peer_generator, seed, args.count, path, solve=True)
            ours = our_batch(args.sigmar, path, args.time_limit, args.no_prestart)
            if len(ours) != len(theirs):
                raise SystemExit(f"{label}: {len(ours)} answers of ours against {len(theirs)} boards")
            rounds["public"].append(figures([a["seconds"] for a in theirs]))
            rounds["ours"].append(figures([a["seconds"] for a in ours]))
            searched = [a["statistics"]["search_seconds"] for a in ours if "search_seconds" in a.get("statistics", {})]
            rounds["search"].append(figures(searched))
            for k, (mine, its) in enumerate(zip(ours, theirs, strict=True)):
                if not settled(mine):
                    unsettled.add(k)
                decided = its["status"] in ("solved", "unsolvable")
                if its["replayed"] is False or (decided and its["status"] != mine["status"]):
                    mismatched.add(k)
            answered = {
                "ours": sum(settled(a) for a in ours),
                "public": sum(a["status"] == "unsolvable" or bool(a["replayed"]) for a in theirs),
                "search": len(searched),
            }
        median_of = {who: {k: statistics.median(r[k] for r in runs) for k in runs[0]} for who, runs in rounds.items()}
        names = {"ours": "sigmar (race)", "public": "public solver", "search": "sigmar's search (search_seconds)"}
        for who in ("ours", "public", "search"):
            f = median_of[who]
            lines.append(
                f"| {label} | {names[who]} | {answered[who]}/{args.count} | {1000 * f['median']:.2f} | "
                f"{1000 * f['p99']:.2f} | {1000 * f['max']:.1f} | {f['total']:.3f} |"
            )
        ahead = all(median_of["ours"][k] < median_of["public"][k] for k in ("median", "p99", "max", "total"))
        ratio = median_of["ours"]["median"] / median_of["search"]["median"]
        verdicts.append(
            f"{label}: ahead on every statistic: {'yes' if ahead else 'NO'}; our median / our search's median "
            f"{ratio:.2f} (target <= 1.3); answers without a check: {len(unsettled)}; "
            f"disagreements with the public solver: {len(mismatched)}"
        )
        record.setdefault("per_board", {})[label] = {
            "generator": generator,
            "seed": seed,
            "count": args.count,
            "figures": median_of,
            "rounds": rounds,
            "ahead": ahead,
            "median_over_search": ratio,
            "unsettled": sorted(unsettled),
            "mismatched": sorted(mismatched),
        }
    return [*lines, "", *verdicts]


def timed(argv: list[str], cwd: str | None = None) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, exit status) of one whole process, its output thrown away."""
    start = time.perf_counter()
    with open(os.devnull, "w") as null:
        child = subprocess.Popen(argv, stdout=null, stderr=null, cwd=cwd, env=CLEAN)
        _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - start, child.returncode


def one_board(args: argparse.Namespace, folder: Path, record: dict[str, Any]) -> list[str]:
    path = folder / "one.txt"
    peer_batch(args.peer, SETS["solvable"][0], SETS["solvable"][1], 1, path, solve=False)
    commands = {
        "public solver: python -m sigmar solve FILE": (
            [PEER_PYTHON, "-m", "sigmar", "solve", str(path)],
            str(args.peer),
        ),
        "sigmar solve FILE": ([args.sigmar, "solve", str(path)], None),
        "sigmar solve FILE -b search": ([args.sigmar, "solve", str(path), "-b", "search"], None),
        "sigmar --help": ([args.sigmar, "--help"], None),
    }
    for argv, cwd in commands.values():  # once each, untimed: the bytecode caches are written
        code = timed(argv, cwd)[2]
        if code != 0:
            raise SystemExit(f"{' '.join(argv)} exited {code}")
    cpu: dict[str, list[float]] = {label: [] for label in commands}
    wall: dict[str, list[float]] = {label: [] for label in commands}
    peer_label = next(iter(commands))
    for run in range(args.runs):
        for label in list(commands)[1:]:
            pair = [peer_label, label] if run % 2 == 0 else [label, peer_label]
            for who in pair:  # back to back, the order alternating from run to run
                c, w, _ = timed(*commands[who])
                cpu[who].append(c)
                wall[who].append(w)
    lines = [
        f"One board, whole process, {args.runs} runs paired back to back, both under `env -i PATH=/usr/bin:/bin`: "
        "medians, and the median over the pairs of ours / its (CPU: user + system).",
        "",
        "| command | CPU s | wall s | CPU / its (paired) | wall / its (paired) | target |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    verdicts = []
    ratios: dict[str, dict[str, float]] = {}
    for k, label in enumerate(commands):
        c, w = statistics.median(cpu[label]), statistics.median(wall[label])
        if label == peer_label:
            lines.append(f"| `{label}` | {c:.4f} | {w:.4f} | 1 | 1 | |")
            continue
        # The peer's runs of this command's pairs: runs k-1, k-1 + 3, ... of its list (one per pair, in order).
        theirs_cpu = cpu[peer_label][k - 1 :: len(commands) - 1]
        theirs_wall = wall[peer_label][k - 1 :: len(commands) - 1]
        r_cpu = statistics.median(a / b for a, b in zip(cpu[label], theirs_cpu, strict=True))
        r_wall = statistics.median(a / b for a, b in zip(wall[label], theirs_wall, strict=True))
        ratios[label] = {"cpu": r_cpu, "wall": r_wall}
        lines.append(f"| `{label}` | {c:.4f} | {w:.4f} | {r_cpu:.2f} | {r_wall:.2f} | <= 0.80 |")
        verdicts.append(f"`{label}` <= 0.8x the public solver's solve (CPU): {'yes' if r_cpu <= 0.8 else 'NO'}")
    record["one_board"] = {
        "runs": args.runs,
        "cpu": cpu,
        "wall": wall,
        "paired_ratios": ratios,
        "argv": {k: v[0] for k, v in commands.items()},
    }
    return [*lines, "", *verdicts]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", type=Path, default=Path("/work/scratch/peer"), help="the public solver's checkout")
    parser.add_argument("--sigmar", default=str(Path(sys.executable).parent / "sigmar"), help="our install's script")
    parser.add_argument("--only", choices=("per-board", "one-board"), help="one part only (default: both)")
    parser.add_argument("--count", type=int, default=300, help="boards per set (default 300)")
    parser.add_argument(
        "--sets", nargs="+", choices=tuple(SETS), default=list(SETS), help="per board: these sets (default both)"
    )
    parser.add_argument("--rounds", type=int, default=1, help="rounds of the per-board part (default 1)")
    parser.add_argument("--runs", type=int, default=21, help="paired runs of each one-board command (default 21)")
    parser.add_argument("--time-limit", type=float, default=60.0, help="our time limit per board (default 60 s)")
    parser.add_argument(
        "--no-prestart", action="store_true", help="per board: the race starts its workers only when a board needs them"
    )
    parser.add_argument("--out", default=str(ROOT / "results" / "public_solver"))
    args = parser.parse_args(argv)
    if not (args.peer / "sigmar" / "solver.py").is_file():
        raise SystemExit(f"no checkout of the public solver at {args.peer} (give --peer)")
    args.peer = args.peer.resolve()
    record: dict[str, Any] = {"load_start": load(), "sigmar": args.sigmar, "peer": str(args.peer)}
    record["prestart"] = not args.no_prestart
    lazy = " (`--no-prestart`: workers started only when a board needs them)" if args.no_prestart else ""
    head = [
        f"Load average at the start: {record['load_start']}; `{args.sigmar}`{lazy}; public solver at `{args.peer}`."
    ]
    body: list[str] = []
    with tempfile.TemporaryDirectory(prefix="public-solver-") as tmp:
        if args.only in (None, "per-board"):
            body += ["", *per_board(args, Path(tmp), record)]
        if args.only in (None, "one-board"):
            body += ["", *one_board(args, Path(tmp), record)]
    record["load_end"] = load()
    text = "\n".join([*head, *body, "", f"Load average at the end: {record['load_end']}."])
    publish(args.out, text, record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
