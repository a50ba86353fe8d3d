"""The targets of issue 28 for ``sigmar fuzz``, measured.

1. **Mutants** (target: each caught and shrunk to at most 6 tiles within
   60 s).  Each of the four mutant plugins in tests/mutants is registered
   through its entry points (the dist-info ``pip install`` would write) and
   fuzzed alone; the time to catch is the wall time from the start of
   ``sigmar fuzz`` to the first failure record whose shrunk board has at most
   6 tiles (the run is then stopped).  ``mutant-count`` is fuzzed with
   ``--compare-counts`` (only counts catch it), and also without, on the same
   seed and boards, where the target is that nothing is found.
2. **Clean backends** (target: ``sigmar fuzz -b search,cnf,cpsat,minizinc
   --count 2000 --seed 1`` finds nothing, in at most 5 minutes on 2 cores;
   nothing either with ``--variant quintessence``).

    python scripts/bench/fuzz_mutants.py [--count 2000] [--seed 1] [--mutant-count 400]

Prints the numbers and writes results/bench_fuzz.json and results/bench_fuzz.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import markdown_table, plugin_environment

ROOT = Path(__file__).resolve().parents[2]
MUTANTS_DIR = ROOT / "tests" / "mutants"
OUT = ROOT / "results"
MUTANTS = ("mutant-vitae", "mutant-order", "mutant-cnf", "mutant-count")
# The options each mutant is fuzzed with: only a comparison of counts sees the counting mutant.
MUTANT_OPTIONS = {"mutant-count": ["--compare-counts"]}
CLEAN = "search,cnf,cpsat,minizinc"
CATCH_TARGET_S, SHRINK_TARGET, CLEAN_TARGET_S = 60.0, 6, 300.0
SIGMAR = [sys.executable, "-m", "sigmar.runners.cli"]


def mutant_environment(folder: Path) -> dict[str, str]:
    """An environment in which the mutants (tests/mutants) are installed plugins."""
    return plugin_environment(folder, MUTANTS_DIR)


def catch(mutant: str, seed: int, count: int, env: dict[str, str], out: Path) -> dict[str, Any]:
    """Fuzz one mutant until a failure shrunk to at most SHRINK_TARGET tiles arrives (or the run ends)."""
    command = [*SIGMAR, "fuzz", "-b", mutant, "--seed", str(seed), "--count", str(count), "--out", str(out), "--json"]
    command += MUTANT_OPTIONS.get(mutant, [])
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    found: dict[str, Any] | None = None
    boards = 0
    assert process.stdout is not None
    for line in process.stdout:
        boards += 1
        small = [f for f in json.loads(line)["failures"] if f["shrunk_tiles"] <= SHRINK_TARGET]
        if small:
            found = small[0]
            break
    seconds = time.perf_counter() - start
    process.terminate()
    process.wait()
    row: dict[str, Any] = {
        "mutant": mutant,
        "caught": found is not None,
        "boards": boards,
        "seconds": round(seconds, 2),
    }
    if found is not None:
        row |= {"failure": found["failure"], "shrunk_tiles": found["shrunk_tiles"], "shrunk": found["shrunk"]}
    row["met"] = found is not None and seconds <= CATCH_TARGET_S
    return row


def unseen(mutant: str, seed: int, count: int, env: dict[str, str], out: Path) -> dict[str, Any]:
    """Plain ``fuzz`` (without the mutant's options) on the same seed and boards: the target is no failure."""
    command = [*SIGMAR, "fuzz", "-b", mutant, "--seed", str(seed), "--count", str(count), "--out", str(out), "--json"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    failures = [f for line in done.stdout.splitlines() for f in json.loads(line)["failures"]]
    row = {"mutant": f"{mutant} (plain fuzz)", "caught": bool(failures), "boards": len(done.stdout.splitlines())}
    return row | {"seconds": round(time.perf_counter() - start, 2), "met": done.returncode == 0 and not failures}


def clean(variant: str, seed: int, count: int, out: Path) -> dict[str, Any]:
    command = [*SIGMAR, "fuzz", "-b", CLEAN, "--seed", str(seed), "--count", str(count), "--variant", variant]
    command += ["--out", str(out), "--json"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    records = [json.loads(line) for line in done.stdout.splitlines()]
    failures = [f | {"board": r["board"]} for r in records for f in r["failures"]]
    truths = [r["truth"] for r in records]
    return {
        "variant": variant,
        "boards": len(records),
        "solvable": truths.count("solvable"),
        "unsolvable": truths.count("unsolvable"),
        "failures": len(failures),
        "failure_list": [{k: f[k] for k in ("board", "backend", "failure", "message")} for f in failures],
        "exit": done.returncode,
        "seconds": round(seconds, 1),
        "met": done.returncode == 0 and not failures and (count < 2000 or seconds <= CLEAN_TARGET_S),
        "command": "sigmar " + " ".join(command[len(SIGMAR) :]),
    }


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# sigmar fuzz benchmark",
        "",
        f"{report['machine']}; {report['note']}",
        "",
        f"## Mutants (seed {report['seed']}, at most {report['mutant_count']} boards each)",
        "",
        markdown_table(
            ["mutant", "caught", "failure", "shrunk tiles", "boards", "seconds", "target met"],
            [
                [r["mutant"], r["caught"], r.get("failure", "-"), r.get("shrunk_tiles", "-")]
                + [r["boards"], r["seconds"], r["met"]]
                for r in report["mutants"]
            ],
            align="lllrrrl",
        ),
        "",
        f"## {CLEAN} (seed {report['seed']}, {report['count']} boards)",
        "",
        markdown_table(
            ["variant", "boards", "solvable", "unsolvable", "failures", "seconds", "target met"],
            [
                [r["variant"], r["boards"], r["solvable"], r["unsolvable"], r["failures"], r["seconds"], r["met"]]
                for r in report["clean"]
            ],
            align="lrrrrrl",
        ),
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=2000, help="boards for the clean backends (2000)")
    parser.add_argument("--mutant-count", type=int, default=400, help="most boards per mutant (400)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--note", default="", help="a line for the report, such as how loaded the machine was")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    report: dict[str, Any] = {
        "seed": args.seed,
        "count": args.count,
        "mutant_count": args.mutant_count,
        "machine": f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start",
        "note": args.note or "no note",
        "mutants": [],
        "clean": [],
    }
    with tempfile.TemporaryDirectory(prefix="bench-fuzz-") as scratch:
        env = mutant_environment(Path(scratch) / "site")
        for mutant in MUTANTS:
            row = catch(mutant, args.seed, args.mutant_count, env, Path(scratch) / mutant)
            report["mutants"].append(row)
            print(
                f"{mutant}: caught={row['caught']} {row.get('failure', '')} "
                f"tiles={row.get('shrunk_tiles', '-')} after {row['boards']} boards, {row['seconds']} s"
            )
            if mutant in MUTANT_OPTIONS:
                row = unseen(mutant, args.seed, args.mutant_count, env, Path(scratch) / f"{mutant}-plain")
                report["mutants"].append(row)
                print(f"{row['mutant']}: caught={row['caught']} on {row['boards']} boards, {row['seconds']} s")
        for variant in ("both", "quintessence"):
            row = clean(variant, args.seed, args.count, Path(scratch) / f"clean-{variant}")
            report["clean"].append(row)
            print(
                f"{CLEAN} --variant {variant}: {row['boards']} boards, {row['failures']} failures, "
                f"exit {row['exit']}, {row['seconds']} s"
            )
    (OUT / "bench_fuzz.json").write_text(json.dumps(report, indent=2) + "\n")
    (OUT / "bench_fuzz.md").write_text(markdown(report))
    print(f"wrote {OUT / 'bench_fuzz.json'} and {OUT / 'bench_fuzz.md'}")
    return 0 if all(r["met"] for r in report["mutants"] + report["clean"]) else 1


if __name__ == "__main__":
    sys.exit(main())
