"""``--sat-cmd`` joining the race: every "no" certified, and no slower on solvable boards.

Two measurements, with Debian's ``cadical`` as the outside solver (``cadical -q {cnf} {proof}``):

1. **Certificates.** ``sigmar solve instances/small.txt`` with the default race and
   ``--sat-cmd``, and with ``-b cnf:external`` alone: how many unsolvable boards come back
   with a checked certificate, and of which kind (with cnf:external alone, CaDiCaL's own
   DRAT proofs, checked by the suite's RUP checker).
2. **Speed on solvable boards.** ``sigmar solve --json`` on the solvable boards of
   instances/small.txt and the first N of instances/hexmatch-hard-100.txt, without and with
   ``--sat-cmd``, alternating, ``--repeat`` times each; per board the median seconds of each
   arm, then the paired comparison of the bench (runners/statistics/paired.py): the geometric
   mean of with/without, its 95% paired-bootstrap interval and the Wilcoxon p-value.  The
   target is met when the race with the external solver is not clearly slower.

    python scripts/bench/sat_cmd_race.py [--boards 60] [--repeat 3] [--docs]

Prints the numbers and writes results/bench_sat_cmd_race.{md,json}; with ``--docs`` the record
also goes to docs/measured/sat-cmd-race.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime

from benchlib import RESULTS, ROOT, boards, publish

from sigmar.models.boardfile import format_boards, read_boards
from sigmar.runners.statistics.paired import ratio_of

SAT_CMD = "cadical -q {cnf} {proof}"
SMALL = ROOT / "instances" / "small.txt"
OUT = RESULTS / "sat-cmd-race"


def solve(files: list[str], *extra: str) -> list[dict]:
    command = [sys.executable, "-m", "sigmar.runners.cli", "solve", *files, "--json", *extra]
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}: {done.stderr[-2000:]}")
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def certificates(records: list[dict]) -> dict[str, object]:
    refuted = [r for r in records if r["status"] == "unsolvable"]
    return {
        "unsolvable": len(refuted),
        "checked": sum(bool(r.get("checked")) for r in refuted),
        "kinds": dict(Counter((r.get("certificate") or {}).get("kind", "none") for r in refuted)),
        "unknown": sum(r["status"] == "unknown" for r in records),
    }


def solvable_file(count: int) -> str:
    OUT.mkdir(parents=True, exist_ok=True)
    chosen = [b for b in read_boards(SMALL) if "[solvable]" in b.name] + boards("hexmatch-hard-100", count)
    path = OUT / "solvable.txt"
    path.write_text(format_boards(chosen))
    return str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=60, help="boards of hexmatch-hard-100 (besides small.txt's)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--docs", action="store_true", help="also write docs/measured/sat-cmd-race.md")
    args = parser.parse_args()
    if shutil.which("cadical") is None:
        raise SystemExit("no 'cadical' on PATH: install.sh installs Debian's package")
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    joined = certificates(solve([str(SMALL)], "--sat-cmd", SAT_CMD))
    alone = certificates(solve([str(SMALL)], "-b", "cnf:external", "--sat-cmd", SAT_CMD))
    claims = certificates(solve([str(SMALL)], "-b", "cnf:external", "--sat-cmd", "cadical -q", "--time-limit", "10"))
    file = solvable_file(args.boards)
    arms: dict[str, dict[str, list[float]]] = {"without": {}, "with": {}}
    for _ in range(args.repeat):
        for arm, extra in (("without", ()), ("with", ("--sat-cmd", SAT_CMD))):
            for record in solve([file], *extra):
                if record["status"] == "solved" and record["verified"]:
                    arms[arm].setdefault(record["board"], []).append(record["seconds"])
    common = [b for b in arms["without"] if b in arms["with"]]
    medians = {arm: {b: statistics.median(arms[arm][b]) for b in common} for arm in arms}
    logs = [math.log(max(medians["with"][b], 1e-3) / max(medians["without"][b], 1e-3)) for b in common]
    ratio = ratio_of(logs)
    not_slower = not (ratio.clear and ratio.value > 1)
    load_after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    total = {arm: sum(medians[arm].values()) for arm in arms}
    lines = [
        "# --sat-cmd joins the race (scripts/bench/sat_cmd_race.py)",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d} on {platform.system()} {platform.machine()}, {os.cpu_count()} cores; "
        f"load average {load_before} before, {load_after} after (1, 5, 15 minutes).",
        "",
        f"Command: `python scripts/bench/sat_cmd_race.py --boards {args.boards} --repeat {args.repeat}`, "
        f'`--sat-cmd "{SAT_CMD}"` (CaDiCaL from Debian).',
        "",
        "Certificates on instances/small.txt (6 unsolvable boards):",
        "",
        f"- the default race with --sat-cmd: {joined['checked']} of {joined['unsolvable']} unsolvable answers "
        f"checked, kinds {joined['kinds']}, {joined['unknown']} unknown;",
        f"- -b cnf:external alone: {alone['checked']} of {alone['unsolvable']} checked, kinds {alone['kinds']}, "
        f"{alone['unknown']} unknown;",
        f"- -b cnf:external with `cadical -q` (no {{proof}}: claim-only): {claims['checked']} of "
        f"{claims['unsolvable']} unsolvable answers (the count precheck's), {claims['unknown']} unknown (claims).",
        "",
        f"Speed on {len(common)} solvable boards (the 8 of small.txt and {args.boards} of hexmatch-hard-100), "
        f"median of {args.repeat} whole `sigmar solve` runs per arm, alternating:",
        "",
        f"- seconds per board, summed over the boards: {total['without']:.3f} without, {total['with']:.3f} with;",
        f"- with / without, geometric mean: {ratio.text()}, "
        f"Wilcoxon p = {ratio.p_value:.2g} over {ratio.boards} boards;",
        f"- target (the race with the outside solver is not clearly slower): {'met' if not_slower else 'NOT met'}.",
    ]
    text = "\n".join(lines)
    record = {
        "joined": joined,
        "alone": alone,
        "claims": claims,
        "boards": len(common),
        "ratio": ratio.value,
        "low": ratio.low,
        "high": ratio.high,
        "p_value": ratio.p_value,
        "not_slower": not_slower,
        "load_before": load_before,
        "load_after": load_after,
    }
    publish(RESULTS / "bench_sat_cmd_race", text, record)
    if args.docs:
        (ROOT / "docs" / "measured").mkdir(parents=True, exist_ok=True)
        (ROOT / "docs" / "measured" / "sat-cmd-race.md").write_text(text + "\n")
    ok = joined["checked"] == joined["unsolvable"] == alone["checked"] == alone["unsolvable"] == 6
    return 0 if ok and not_slower else 1


if __name__ == "__main__":
    sys.exit(main())
