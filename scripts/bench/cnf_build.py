"""What the default CNF encoding costs to make (issue 49, side 10): the build, its DIMACS text, the check's load.

A side-10 DRUP refutation pays the encoding twice (the backend's, and the runner's own for the check)
and the DIMACS text once (the certificate's ``NAME.cnf``); at load 18 that was 15-43 s of the 60 s a
board gets (docs/measured/side10.md).  This times each part, in CPU seconds of this process, on dense
deals of sides 6, 8 and 10 (seed 1), the best of ``--repeat`` runs each:

    python scripts/bench/cnf_build.py                 # 10 deals a side, 3 runs each

Prints the table and writes results/bench_cnf_build.json and .md (and docs/measured/cnf-build.md).
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from benchlib import RESULTS, ROOT, markdown_table, median, publish

from sigmar.encoders.cnf import build_formula
from sigmar.models.deal import deal
from sigmar.runners.checking.rup_check import check_proof


def best(repeat: int, work: Callable[[], Any]) -> tuple[float, Any]:
    """The least CPU seconds of ``repeat`` runs of ``work``, and its last value."""
    times, value = [], None
    for _ in range(repeat):
        start = time.process_time()
        value = work()
        times.append(time.process_time() - start)
    return min(times), value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10, help="deals a side (default 10)")
    parser.add_argument("--sides", default="6,8,10")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(RESULTS / "bench_cnf_build"))
    parser.add_argument("--doc", default=str(ROOT / "docs" / "measured" / "cnf-build.md"))
    args = parser.parse_args(argv)
    loads = [os.getloadavg()]
    rows, record = [], {"sides": {}}
    for side in (int(s) for s in args.sides.split(",")):
        per: dict[str, list[float]] = {"build": [], "dimacs": [], "check load": [], "clauses": []}
        for index in range(args.count):
            board = deal("dense", side, 1, index)
            seconds, formula = best(args.repeat, lambda board=board: build_formula(board))
            per["build"].append(seconds)
            per["dimacs"].append(best(args.repeat, formula.to_dimacs)[0])
            # The checker given a proof of one empty line: what loading the formula costs it.
            per["check load"].append(best(1, lambda f=formula: check_proof(f.clauses, b"0\n", f.nv))[0])
            per["clauses"].append(len(formula.clauses))
        record["sides"][side] = per
        rows.append(
            [
                side,
                args.count,
                f"{median(per['clauses']):,.0f}",
                *(f"{median(per[k]):.3f} / {max(per[k]):.3f}" for k in ("build", "dimacs", "check load")),
            ]
        )
    loads.append(os.getloadavg())
    record["loads"] = loads
    given = sys.argv[1:] if argv is None else argv
    command = "python scripts/bench/cnf_build.py" + (" " + " ".join(given) if given else "")
    text = "\n".join(
        [
            "# The default CNF encoding: what it costs to make",
            "",
            f"Measured {datetime.date.today().isoformat()} on a {os.cpu_count()}-core machine; load average "
            f"{', '.join(f'{x:.1f}' for x in loads[0])} at the start, {', '.join(f'{x:.1f}' for x in loads[-1])} "
            "at the end.",
            "",
            f"`{command}`: dense deals of seed 1, CPU seconds of one process (median / max over the deals, each "
            f"the best of {args.repeat} runs): the build (`build_formula`), its DIMACS text (`to_dimacs`, the "
            "certificate's NAME.cnf) and the C checker's load of the clauses (a proof of one empty line).",
            "",
            markdown_table(["side", "deals", "clauses (median)", "build s", "DIMACS s", "check load s"], rows),
        ]
    )
    publish(args.out, text, record)
    with open(args.doc, "w") as doc:
        doc.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
