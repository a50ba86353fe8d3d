"""How well ``sigmar explain`` explains unsolvable boards: deepest plays proved, one-change repairs, time a deal.

    python scripts/bench_explain.py [--count 300] [--seed 1] [--time-limit 60] [--out docs/measured/explain.md]

Deals ``--count`` dense side-6 boards (``sigmar generate --deal dense --seed S``), gives each the
verdict ``explain`` gives (the search and cnf race, every "no" certified), and for every
unsolvable one its deepest play and smallest repair, exactly as ``sigmar explain`` does.  Prints
and writes OUT (default docs/measured/explain.md; every deal's row goes to results/bench_explain.json):

- how many deals are unsolvable, and of those how many deepest plays are *proved* (the
  play-bound certificate checked); the target is at least 95%;
- how many get a repair of one change whose solution the rule engine replayed (target: at least
  90%), how many are shown to have none ("no repair with one change": every candidate refuted with
  a checked certificate), and how many are left unsettled;
- the median and maximum time per deal (verdict, deepest play and repair together), with the load
  average, since the machine may be shared;
- a second try (``--settle-limit``, default 600 s) for each deal whose repair was left unsettled, which
  says how many deals one change can repair at all (``--rows`` reuses an earlier run's deals).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

from benchlib import RESULTS, ROOT, markdown_table, median, percentile

from sigmar.models.deal import deal
from sigmar.models.result import Status
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.design.explain import VERDICT_BACKENDS, explain
from sigmar.runners.design.repair import smallest_repair
from sigmar.runners.race import Race


def measure(count: int, seed: int, time_limit: float) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with ProofStore() as proofs, Race(list(VERDICT_BACKENDS), proofs=proofs) as race:
        for index in range(count):
            board = deal("dense", 6, seed, index)
            start = time.perf_counter()
            verdict = race.solve(board, time_limit).result
            explanation = explain(board, verdict, time_limit, proofs)
            row: dict[str, Any] = {
                "board": board.name,
                "status": str(verdict.status),
                "reason": str(verdict.reason or ""),
                "seconds": round(time.perf_counter() - start, 4),
            }
            found, repair = explanation.deepest, explanation.repair
            if found is not None and repair is not None:
                row.update(
                    cleared=found.cleared,
                    proved=found.proved,
                    wrong=found.wrong,
                    states=found.play.states,
                    deepest_seconds=round(found.play.seconds, 4),
                    repaired=repair.found and repair.solution is not None and repair.solution.verified,
                    none_with_one=repair.none_with_one,
                    tried=repair.tried,
                    repair_seconds=round(repair.seconds, 4),
                )
            rows.append(row)
            print(_progress(index, count, row), flush=True)
    return rows


def settle(rows: list[dict[str, Any]], seed: int, seconds: float) -> None:
    """A second try of ``seconds`` for each deal whose repair was left unsettled: is there a one-change repair?

    Sets ``later`` on those rows: ``found``, ``none`` (shown) or ``unsettled``.  It says how many deals
    one change can repair at all, which bounds the rate any order of candidates can reach.
    """
    for row in rows:
        if row.get("cleared") is None or row["repaired"] or row["none_with_one"]:
            continue
        board = deal("dense", 6, seed, int(row["board"].rsplit("-", 1)[1]))
        repair = smallest_repair(board, seconds)
        row["later"] = "found" if repair.found else ("none" if repair.none_with_one else "unsettled")
        print(f"second try, {row['board']}: {row['later']} ({repair.seconds:.0f} s)", flush=True)


def _progress(index: int, count: int, row: dict[str, Any]) -> str:
    text = f"{index + 1}/{count} {row['board']}: {row['status']} {row['seconds']:.2f} s"
    if "cleared" in row:
        bound = "proved" if row["proved"] else "at least"
        fix = "repaired" if row["repaired"] else ("none with one change" if row["none_with_one"] else "unsettled")
        text += f"; deepest {row['cleared']} ({bound}, {row['states']} states); {fix} ({row['tried']} tried)"
    return text


def summary(rows: list[dict[str, Any]], args: argparse.Namespace, loads: tuple[float, float]) -> tuple[str, dict]:
    unsolvable = [r for r in rows if r["status"] == str(Status.UNSOLVABLE)]
    n = len(unsolvable) or 1
    proved = sum(r["proved"] for r in unsolvable)
    repaired = sum(r["repaired"] for r in unsolvable)
    none = sum(r["none_with_one"] for r in unsolvable)
    settled = repaired + none
    times = [r["seconds"] for r in rows]
    un_times = [r["seconds"] for r in unsolvable] or [0.0]
    figures = {
        "deals": len(rows),
        "solved": sum(r["status"] == str(Status.SOLVED) for r in rows),
        "unsolvable": len(unsolvable),
        "unknown": sum(r["status"] not in (str(Status.SOLVED), str(Status.UNSOLVABLE)) for r in rows),
        "deepest_proved": proved,
        "deepest_proved_pct": round(100 * proved / n, 1),
        "deepest_rejected": sum(r["wrong"] for r in unsolvable),
        "repaired_one_change": repaired,
        "repaired_pct": round(100 * repaired / n, 1),
        "none_with_one_change": none,
        "repair_unsettled": len(unsolvable) - settled,
        "median_seconds": round(median(times), 3),
        "p90_seconds": round(percentile(times, 90), 3),
        "max_seconds": round(max(times), 3),
        "median_seconds_unsolvable": round(median(un_times), 3),
        "max_seconds_unsolvable": round(max(un_times), 3),
    }
    f = figures
    of = f"of {len(unsolvable)}"
    later = Counter(r["later"] for r in unsolvable if "later" in r)
    repairable = repaired + later["found"] + later["unsettled"]  # at most this many have a one-change repair
    figures.update(
        repaired_pct_of_repairable=round(100 * repaired / (repairable or 1), 1),
        second_try_seconds=args.settle_limit,
        second_try=dict(later),
        one_change_repairable_at_most=repairable,
        one_change_repairable_pct_at_most=round(100 * repairable / n, 1),
    )
    table = markdown_table(
        ("what", "value", "target"),
        [
            ("dense side-6 deals", f["deals"], ""),
            ("solved / unsolvable / unknown", f"{f['solved']} / {f['unsolvable']} / {f['unknown']}", ""),
            ("deepest play proved (checked play-bound)", f"{proved} {of} ({f['deepest_proved_pct']}%)", ">= 95%"),
            ("play-bound files rejected", f["deepest_rejected"], "0"),
            ("repaired with one change, solution replayed", f"{repaired} {of} ({f['repaired_pct']}%)", ">= 90%"),
            ("shown: no repair with one change", none, ""),
            ("repair unsettled in the time", f["repair_unsettled"], ""),
            (
                f"second try ({args.settle_limit:g} s) of the unsettled: found / none shown / unsettled",
                f"{later['found']} / {later['none']} / {later['unsettled']}",
                "",
            ),
            (
                "deals one change can repair, at most",
                f"{repairable} {of} ({f['one_change_repairable_pct_at_most']}%)",
                "",
            ),
            (
                "repaired in the first run, of those",
                f"{repaired} of {repairable} ({f['repaired_pct_of_repairable']}%)",
                "",
            ),
            (
                "time a deal: median / p90 / max (s)",
                f"{f['median_seconds']} / {f['p90_seconds']} / {f['max_seconds']}",
                "",
            ),
            (
                "time an unsolvable deal: median / max (s)",
                f"{f['median_seconds_unsolvable']} / {f['max_seconds_unsolvable']}",
                "",
            ),
        ],
    )
    limit = f"--time-limit {args.time_limit:g} --settle-limit {args.settle_limit:g}"
    command = f"python scripts/bench_explain.py --count {args.count} --seed {args.seed} {limit}"
    if args.rows:
        command += f" --rows {args.rows}  (the deals of an earlier run, with their times)"
    machine = f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores"
    text = (
        f"# explain on dense side-6 deals\n\n"
        f"`{command}` on {date.today().isoformat()}, {machine}; load average {loads[0]:.1f} at the start, "
        f"{loads[1]:.1f} at the end (the machine is shared: times are inflated under load).\n\n{table}\n"
    )
    return text, {"figures": figures, "command": command, "machine": machine, "load": loads, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds for each part of each deal")
    parser.add_argument(
        "--settle-limit",
        type=float,
        default=600.0,
        help="seconds of a second try for each deal whose repair was left unsettled (0: no second try)",
    )
    parser.add_argument("--rows", type=Path, help="reuse the rows of an earlier run (its results/bench_explain.json)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "measured" / "explain.md"), help="the record (markdown)")
    args = parser.parse_args(argv)
    first = os.getloadavg()[0]
    if args.rows:
        earlier = json.loads(args.rows.read_text())
        rows, first = earlier["rows"], earlier["load"][0]
    else:
        rows = measure(args.count, args.seed, args.time_limit)
    if args.settle_limit > 0:
        settle(rows, args.seed, args.settle_limit)
    text, record = summary(rows, args, (first, os.getloadavg()[0]))
    print()
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "bench_explain.json").write_text(json.dumps(record, indent=1))  # every deal's row
    return 0


if __name__ == "__main__":
    sys.exit(main())
