"""Picking the backend (issue 52, item 6): a selector trained on half of a bench's boards, judged on the other half.

The boards: 600 dense side-6 deals and 300 dense side-8 deals (``sigmar generate --deal dense`` with seed 1).
Each is benched with every backend of ``--backend`` (``sigmar bench``, one run at a time, at ``--time-limit``);
the two benches' CSVs become one ASlib scenario (``runners/statistics/aslib.py``, as ``bench --aslib``
writes it), whose boards are split by their ASlib fold: folds 1-5 train, folds 6-10 test (half and half).
The selector (``runners/statistics/selector_training.py``) is trained on the first half; on the second it
is judged as the OASC judges one: the share of the PAR-2 gap between the single best backend (the best on
the training half) and the virtual best that it closes. Then the race (``sigmar solve``) runs on test
boards with and without ``--selector``, and both PAR-2s are reported (a race's answer counts when it is
solved and verified, or unsolvable with a checked certificate; else twice the time limit).

    python scripts/bench/selector.py [--side6 600] [--side8 300] [--time-limit 10] [--backend search,cnf]
                                     [--race 150] [--work DIR] [--docs]

The benches are the expensive part (about 20 minutes on a quiet 2-core machine at the defaults); their CSVs
in ``--work`` (default results/selector/) are reused when they exist for the same boards, backends and time
limit, so a second run only trains, judges and races. Writes results/selector.{md,json}, the selector
(results/selector/selector.json) and the scenario (results/selector/scenario/); with ``--docs`` also
docs/measured/selector.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from benchlib import RESULTS, ROOT, markdown_table, publish

from sigmar.models.board import Board
from sigmar.models.boardfile import format_board, parse_boards, read_boards
from sigmar.runners.bench import read_csv
from sigmar.runners.statistics.aslib import read_scenario, write_scenario
from sigmar.runners.statistics.features import features
from sigmar.runners.statistics.selector_training import evaluate, train

SEED = 1


def sigmar(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sigmar.runners.cli", *argv], capture_output=True, text=True, cwd=ROOT)


def deals(work: Path, side: int, count: int) -> Path:
    path = work / f"dense{side}-{count}.txt"
    if not path.exists():
        done = sigmar("generate", "--deal", "dense", "--dim", str(side), "--count", str(count), "--seed", str(SEED))
        done.check_returncode()
        path.write_text(done.stdout)
    return path


def benched(work: Path, boards: Path, backends: str, limit: float) -> Path:
    """The bench CSV of ``boards``: reused when one of the same boards, backends and limit is there."""
    csv = work / f"{boards.stem}-{backends.replace(',', '+')}-{limit:g}s.csv"
    if csv.exists():
        rows = read_csv(csv)
        names = {b.name for b in read_boards(boards)}
        if {r["board"] for r in rows} == names and {r["backend"] for r in rows} == set(backends.split(",")):
            print(f"reusing {csv}", file=sys.stderr)
            return csv
    print(f"benching {boards} ({backends}, {limit:g} s) ...", file=sys.stderr)
    done = sigmar("bench", str(boards), "-b", backends, "--time-limit", f"{limit:g}", "-o", str(csv), "--quiet")
    if done.returncode not in (0, 1):
        raise SystemExit(f"bench failed ({done.returncode}): {done.stderr.strip()}")
    return csv


def race_par2(answers: Path, limit: float) -> tuple[float, float, int]:
    """The race's PAR-2 over its answers file, its mean wall seconds, and the boards it answered correctly."""
    costs, seconds, good = [], [], 0
    for line in answers.read_text().splitlines():
        answer = json.loads(line)
        ok = (answer["status"] == "solved" and answer.get("verified")) or (
            answer["status"] == "unsolvable" and answer.get("checked")
        )
        costs.append(answer["seconds"] if ok and answer["seconds"] <= limit else 2 * limit)
        seconds.append(answer["seconds"])
        good += bool(ok)
    return sum(costs) / len(costs), sum(seconds) / len(seconds), good


def feature_costs(boards: list[Board]) -> dict[str, float]:
    """Milliseconds of CPU per board to compute the features, each board read afresh (no cached facts)."""
    if not boards:
        return {}
    spent = []
    for board in boards:
        (fresh,) = parse_boards(format_board(board), "board")
        start = time.process_time()
        features(fresh)
        spent.append((time.process_time() - start) * 1000)
    spent.sort()
    return {
        "median_ms": round(statistics.median(spent), 3),
        "p99_ms": round(spent[min(len(spent) - 1, int(0.99 * len(spent)))], 3),
        "max_ms": round(spent[-1], 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--side6", type=int, default=600, help="dense side-6 deals (default 600)")
    parser.add_argument("--side8", type=int, default=300, help="dense side-8 deals (default 300)")
    parser.add_argument("--time-limit", type=float, default=10.0, help="seconds per run and per race (default 10)")
    parser.add_argument("--backend", default="search,cnf", help="the backends benched, raced and picked among")
    parser.add_argument("--race", type=int, default=150, help="test boards of each side raced both ways (default 150)")
    parser.add_argument("--work", type=Path, default=RESULTS / "selector", help="where the benches and deals go")
    parser.add_argument("--docs", action="store_true", help="also write docs/measured/selector.md")
    args = parser.parse_args()
    load = Path("/proc/loadavg").read_text().split()[:3]
    args.work.mkdir(parents=True, exist_ok=True)
    files = [deals(args.work, side, count) for side, count in ((6, args.side6), (8, args.side8)) if count]
    csvs = [benched(args.work, f, args.backend, args.time_limit) for f in files]

    rows = [row for csv in csvs for row in read_csv(csv)]
    boards = {(str(f), b.name): b for f in files for b in read_boards(f)}
    file_of = {name: file for file, name in boards}
    for row in rows:  # the CSV names the file as bench was given it; key the boards by this run's paths
        row["file"] = file_of[row["board"]]
    folder = write_scenario(args.work / "scenario", rows, boards, args.time_limit, name="sigmar-dense-6-8")
    scenario = read_scenario(folder)
    train_on = [i for i in scenario.instances if scenario.folds[i] <= 5]
    test_on = [i for i in scenario.instances if scenario.folds[i] > 5]
    selector = train(scenario, train_on)
    (args.work / "selector.json").write_text(json.dumps(selector.to_json(), indent=1) + "\n")
    judged = evaluate(scenario, selector, test_on, train_on)
    features_only = train(scenario, train_on, presolve=None)  # the tree alone, without a presolver
    judged_alone = evaluate(scenario, features_only, test_on, train_on)
    sides = {side: [i for i in test_on if f"dense-{side}-" in i] for side in (6, 8)}
    by_side = {side: evaluate(scenario, selector, these, train_on) for side, these in sides.items() if these}
    costs = {side: feature_costs([b for b in boards.values() if b.dim == side]) for side in (6, 8)}
    costs = {side: c for side, c in costs.items() if c}

    race: dict[str, dict[str, float]] = {}
    if args.race:
        picked = [i for side in (6, 8) for i in [t for t in test_on if f"dense-{side}-" in t][: args.race]]
        by_name = {b.name: b for b in boards.values()}
        test_file = args.work / "race-boards.txt"
        test_file.write_text("\n".join(format_board(by_name[i]) for i in picked))
        for label, extra in (
            ("without --selector", []),
            ("with --selector", ["--selector", str(args.work / "selector.json")]),
        ):
            out = args.work / f"race-{'with' if extra else 'without'}.jsonl"
            start = time.perf_counter()
            done = sigmar(
                "solve",
                str(test_file),
                "-b",
                args.backend,
                "--time-limit",
                f"{args.time_limit:g}",
                "-o",
                str(out),
                "--quiet",
                *extra,
            )
            wall = time.perf_counter() - start
            if done.returncode not in (0, 1):
                raise SystemExit(f"solve failed ({done.returncode}): {done.stderr.strip()}")
            par2, mean, good = race_par2(out, args.time_limit)
            race[label] = {"boards": len(picked), "par2": par2, "mean_seconds": mean, "correct": good, "wall": wall}

    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = (
        f"python scripts/bench/selector.py --side6 {args.side6} --side8 {args.side8} --time-limit {args.time_limit:g} "
        f"--backend {args.backend} --race {args.race}"
    )
    judged_rows = [
        (
            name,
            r["boards"],
            r["sbs"],
            f"{r['par2_sbs']:.3f}",
            f"{r['par2_vbs']:.3f}",
            f"{r['par2_selector']:.3f}",
            f"{100 * r['gap_closed']:.0f}%" if r["gap_closed"] == r["gap_closed"] else "no gap",
            ", ".join(f"{a} {n}" for a, n in r["picked"].items()),
        )
        for name, r in (
            ("all test boards", judged),
            *((f"side {side}", r) for side, r in by_side.items()),
            ("all, the tree alone (no presolver)", judged_alone),
        )
    ]
    text = "\n".join(
        [
            "# Picking the backend: a selector on dense deals (issue 52, item 6)",
            "",
            f"*Recorded {stamp}; load average {' '.join(load)} at the start (a shared 2-core machine); `{command}`.*",
            "",
            f"Boards: {args.side6} dense side-6 and {args.side8} dense side-8 deals (seed {SEED}), benched with "
            f"`{args.backend}` at {args.time_limit:g} s a run; {len(train_on)} boards (ASlib folds 1-5) train the "
            f"selector, {len(test_on)} (folds 6-10) test it. PAR-2 in seconds per board; the single best backend "
            "(SBS) is the best on the training boards; *gap closed* is (SBS - selector) / (SBS - VBS).",
            "",
            markdown_table(
                ("test boards", "boards", "SBS", "PAR-2 SBS", "PAR-2 VBS", "PAR-2 selector", "gap closed", "picked"),
                judged_rows,
            ),
            "",
            f"The selector: presolver `{json.dumps(selector.presolve)}` (chosen with the depth, "
            f"{selector.trained['depth']}, by 5-fold cross-validation on the training half, among "
            f"{selector.trained['schedules_tried']} schedules), then the tree `{json.dumps(selector.tree)}`; "
            f"{judged['presolved']} of the {judged['boards']} test boards settled by the presolver. The tree "
            f"alone (no presolver, depth {features_only.trained['depth']}): `{json.dumps(features_only.tree)}`.",
            "",
            "Features (`runners/statistics/features.py`), CPU per board read afresh: "
            + "; ".join(
                f"side {side}: median {c['median_ms']} ms, p99 {c['p99_ms']} ms, max {c['max_ms']} ms"
                for side, c in costs.items()
            )
            + ".",
        ]
    )
    if race:
        text += "\n\n" + "The race (`sigmar solve -b " + args.backend + "`) on the first " + str(args.race)
        text += " test boards of each side, without and with `--selector`:\n\n" + markdown_table(
            ("race", "boards", "PAR-2", "mean s", "correct", "wall s"),
            [
                (k, v["boards"], f"{v['par2']:.3f}", f"{v['mean_seconds']:.3f}", v["correct"], f"{v['wall']:.1f}")
                for k, v in race.items()
            ],
        )
    record = {
        "load": load,
        "command": command,
        "judged": judged,
        "by_side": by_side,
        "tree_alone": judged_alone,
        "race": race,
        "features": costs,
    }
    record["selector"] = selector.to_json()
    publish(RESULTS / "selector", text, record)
    if args.docs:
        (ROOT / "docs" / "measured" / "selector.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
