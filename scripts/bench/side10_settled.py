"""Side 10 settled (issue 49, item 2): dense side-10 deals through the race at a 60 s limit, every answer checked.

Runs ``nice sigmar survey --deal dense --dim 10 --seed 1 --count N --time-limit 60`` as a user runs it
(the race of every backend; with ``--cubes K`` a board the race leaves unknown is then split), keeping
each certificate in ``--proof-dir``, then re-checks the whole results file with ``sigmar check`` (every
"no" a certificate checked again by code that shares nothing with the race, every "yes" replayed).  The
boards are those of ``sigmar generate --deal dense --dim 10 --seed 1 --count N``.

The results file is appended to as boards are answered, so a run cut off is continued by running the
same command again (``--fresh`` starts over).  ``--count`` below 100 is a subset (the first N deals),
and the report says so.

    python scripts/bench/side10_settled.py                  # the 100 deals of the target
    python scripts/bench/side10_settled.py --count 40       # a subset: the first 40
    python scripts/bench/side10_settled.py --count 300 --out results/bench_side10_300 \
        --doc docs/measured/side10-300.md                   # the survey of 300 (about an hour on 2 cores)

Prints the table and writes results/bench_side10.json and .md (and docs/measured/side10.md).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchlib import RESULTS, ROOT, markdown_table, median, percentile, publish

from sigmar.models.boardfile import format_board
from sigmar.models.deal import deal

SIGMAR = [sys.executable, "-m", "sigmar.runners.cli"]
TARGET = 100


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=TARGET, help=f"the first N deals (default {TARGET})")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--cubes", type=int, help="pass --cubes K to survey (a board the race leaves unknown is split)")
    parser.add_argument("--backend", default="all")
    parser.add_argument(
        "--work", default=str(RESULTS / "side10"), help="results file and certificates (kept; default results/side10)"
    )
    parser.add_argument("--fresh", action="store_true", help="start over instead of continuing the results file")
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="no survey: report (and re-check) the boards the results file holds, a subset if a run was cut off",
    )
    parser.add_argument("--out", default=str(RESULTS / "bench_side10"))
    parser.add_argument("--doc", default=str(ROOT / "docs" / "measured" / "side10.md"))
    args = parser.parse_args(argv)
    work = Path(args.work)
    tag = f"dense-10-s{args.seed}-{args.count}-{args.time_limit:g}s{'-cubes' + str(args.cubes) if args.cubes else ''}"
    results, proofs, boards = work / f"{tag}.jsonl", work / f"{tag}-proofs", work / f"{tag}-boards.txt"
    if args.fresh:
        results.unlink(missing_ok=True)
        shutil.rmtree(proofs, ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    loads = [os.getloadavg()]
    command = [*SIGMAR, "survey", "--deal", "dense", "--dim", "10", "--seed", str(args.seed)]
    command += ["--count", str(args.count), "--time-limit", f"{args.time_limit:g}", "-b", args.backend]
    command += ["--results", str(results), "--proof-dir", str(proofs), "--quiet"]
    if args.cubes:
        command += ["--cubes", str(args.cubes)]
    wall = 0.0
    if not args.report_only:
        start = time.perf_counter()
        done = subprocess.run(["nice", *command], capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        if done.returncode not in (0, 1):
            raise SystemExit(f"survey failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    else:  # the wall time and the starting load of the run that wrote the results, when its record is there
        earlier = Path(args.out).with_suffix(".json")
        if earlier.exists():
            wall, loads = json.loads(earlier.read_text())["survey_wall"], json.loads(earlier.read_text())["loads"][:1]
    loads.append(os.getloadavg())
    answers = [json.loads(line) for line in results.read_text().splitlines() if line.strip()]
    answers.sort(key=lambda a: int(a["index"]))
    # the boards answered (all N, or those a run cut off reached): check wants an answer for every board given
    boards.write_text("".join(format_board(deal("dense", 10, args.seed, int(a["index"]))) for a in answers))
    start = time.perf_counter()
    check = subprocess.run(
        ["nice", *SIGMAR, "check", str(boards), str(results)], capture_output=True, text=True, check=False
    )
    check_wall = time.perf_counter() - start
    lines = check.stdout.strip().splitlines()
    record = {
        "command": command,
        "survey_wall": wall,
        "answers": [
            {k: a.get(k) for k in ("index", "board", "status", "backend", "seconds", "reason")}
            | {"certificate": (a.get("certificate") or {}).get("kind"), "checked": a.get("checked")}
            for a in answers
        ],
        "recheck_exit": check.returncode,
        "recheck_tail": lines[-3:],
        "recheck_wall": check_wall,
        "loads": loads,
    }
    text = report(args, answers, record, sys.argv[1:] if argv is None else argv)
    publish(args.out, text, record)
    Path(args.doc).write_text(text + "\n")
    return 0


def survey_row(answers: list[dict[str, Any]], record: dict[str, Any]) -> str:
    """The solvable fraction with its 95% Wilson interval, as a row of docs/measured/survey.md's table
    (sides 6-9), to be pasted there beside them."""
    from sigmar.runners.survey import wilson

    n = len(answers)
    solved = sum(a["status"] == "solved" for a in answers)
    refuted = sum(a["status"] == "unsolvable" and bool(a.get("checked")) for a in answers)
    low, high = wilson(solved, n)
    seconds = [float(a["seconds"]) for a in answers]
    times = f"{median(seconds):.3f} / {percentile(seconds, 99):.2f} / {max(seconds):.1f}"
    wall = f"{record['survey_wall'] / 60:.1f} min" if record["survey_wall"] else "-"
    return (
        f"Solvable: {solved} of {n} ({100 * solved / n:.1f}%, 95% Wilson interval {100 * low:.1f}-{100 * high:.1f}%). "
        f"As a row of the survey table (docs/measured/survey.md):\n\n"
        f"| dense | 10 | {n:,} | {solved} ({100 * solved / n:.1f}%) | {100 * low:.1f}–{100 * high:.1f}% | {refuted} "
        f"| {n - solved - refuted} | {times} | {wall} |"
    )


def answered_by(answer: dict[str, Any]) -> str:
    """The backend that answered: the answer's own name, which says the solver (``cnf:cadical153``); in a
    results file written before answers were so named (``cnf:glucose42`` whatever settled the board), the
    solver its statistics name (``answered_by``) instead."""
    backend = str(answer.get("backend") or "-")
    by = (answer.get("statistics") or {}).get("answered_by")
    family, _, _ = backend.partition(":")
    return f"{family}:{by}" if by and family == "cnf" else backend


def settled_by(answer: dict[str, Any]) -> str:
    """How a board was settled: the backend (the solver that answered), and for a "no" its certificate kind."""
    backend = answered_by(answer)
    if answer["status"] == "unsolvable":
        kind = (answer.get("certificate") or {}).get("kind") or "no certificate"
        return f"unsolvable: {kind} ({backend})"
    return f"{answer['status']} ({backend})"


def report(args: argparse.Namespace, answers: list[dict[str, Any]], record: dict[str, Any], argv: Any) -> str:
    statuses = Counter(a["status"] for a in answers)
    seconds = [float(a["seconds"]) for a in answers]
    ways = Counter(settled_by(a) for a in answers)
    slow = sorted(answers, key=lambda a: -float(a["seconds"]))[:10]
    unchecked = [a["board"] for a in answers if a["status"] == "unsolvable" and not a.get("checked")]
    unknown = [a["board"] for a in answers if a["status"] not in ("solved", "unsolvable")]
    subset = "" if len(answers) >= TARGET else f" (a SUBSET: {len(answers)} of the target's {TARGET} deals)"
    loads = record["loads"]
    cubes = f", then --cubes {args.cubes}" if args.cubes else ""
    proofs = [
        [
            a["board"],
            f"{a['seconds']:.1f}",
            answered_by(a),
            *(f"{float((a.get('statistics') or {}).get(k) or 0):.1f}" for k in ("encode_seconds", "solve_seconds")),
            f"{float(a.get('check_seconds') or 0):.1f}",
            *(f"{int((a.get('statistics') or {}).get(k) or 0):,}" for k in ("conflicts", "clauses")),
        ]
        for a in answers
        if str(a.get("backend", "")).startswith("cnf")
    ]
    claims = [
        [
            a["board"],
            "; ".join(f"{c['backend']} {c['status']} at {c['seconds']:.0f} s" for c in a.get("claims", []))
            or "no backend answered",
        ]
        for a in answers
        if a["status"] not in ("solved", "unsolvable")
    ]
    wall_said = (
        f"survey wall {record['survey_wall'] / 60:.1f} min (of the last run: a rerun continues a results file)"
        if record["survey_wall"]
        else "reported from the results file of a run cut off (--report-only), its wall time not measured"
        # (a report again of a whole run takes that run's wall time and starting load from its record)
    )
    slowest = [[a["board"], settled_by(a), f"{a['seconds']:.1f}"] for a in slow]
    command = "python scripts/bench/side10_settled.py" + ("" if not argv else " " + " ".join(argv))
    out = [
        "# Side 10 settled: dense side-10 deals through the race",
        "",
        f"Measured {datetime.date.today().isoformat()} on a {os.cpu_count()}-core machine shared with other "
        f"work; load average {', '.join(f'{x:.1f}' for x in loads[0])} at the start, "
        f"{', '.join(f'{x:.1f}' for x in loads[-1])} at the end.",
        "",
        f"`{command}`: {len(answers)} dense side-10 deals, seed {args.seed}{subset}, "
        f"`sigmar survey` (the race of `{args.backend}` backends{cubes}) "
        f"at {args.time_limit:g} s a board, under `nice`; {wall_said}.",
        "",
        f"Answers: {statuses.get('solved', 0)} solved, {statuses.get('unsolvable', 0)} unsolvable, "
        f"{len(unknown)} unknown or error{(': ' + ', '.join(unknown)) if unknown else ''}. "
        f"Seconds a board (to the checked answer): median {median(seconds):.2f}, p99 {percentile(seconds, 99):.2f}, "
        f"max {max(seconds):.2f}.",
        "",
        survey_row(answers, record),
        "",
        markdown_table(["settled by", "boards"], sorted(ways.items(), key=lambda kv: -kv[1])),
        "",
        "The slowest boards:",
        "",
        markdown_table(["board", "answer", "seconds"], slowest),
        "",
        "Where a CNF answer's time goes (the answer's own statistics: the CNF encoding, the solve by the "
        "solver that answered, the check of a refutation):",
        "",
        markdown_table(
            ["board", "seconds", "answered by", "encode s", "solve s", "check s", "conflicts", "clauses"], proofs
        ),
        "",
        "What the race heard on the boards it left unknown:",
        "",
        markdown_table(["board", "claims"], claims) if claims else "(none)",
        "",
        f"Every 'no' checked by the race: {'yes' if not unchecked else 'NO: ' + ', '.join(unchecked)}. "
        f"Re-checked whole by `sigmar check BOARDS RESULTS` ({record['recheck_wall']:.0f} s): exit "
        f"{record['recheck_exit']} ({'every answer valid' if record['recheck_exit'] in (0, 1) else 'NOT all valid'}"
        f"{'; unknown answers listed' if record['recheck_exit'] == 1 else ''}).",
        "",
        f"- 0 unknown at {args.time_limit:g} s: {'met' if not unknown else 'NOT met'}{subset}",
        f"- every 'no' checked: {'met' if not unchecked and record['recheck_exit'] in (0, 1) else 'NOT met'}",
    ]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
