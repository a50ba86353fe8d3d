"""Statistics with a floor (issue 52, item 2): what a bench claims, against what the corrected test gives.

- On 1 to 4 boards (and 5, the last below the floor of 6): no interval and no "faster" in any sentence.
- On 8 backends over 40 boards (synthetic times: a shared per-board hardness, each backend its own speed and
  noise, fixed seeds): the number of "faster" claims equals the number of pairs that statsmodels' Holm
  correction of scipy's Wilcoxon p-values rejects at 5%, and is compared with what the uncorrected tests
  would have claimed; over many seeds, the false claims among pairs of equal speed, with and without the
  correction.

    python scripts/bench/statistics_floor.py [--seeds 200] [--docs]

Writes results/statistics_floor.{md,json}; with ``--docs`` also docs/measured/statistics-floor.md.
Exit 1 when a check fails.
"""

from __future__ import annotations

import argparse
import math
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from benchlib import RESULTS, ROOT, markdown_table, publish
from scipy.stats import wilcoxon
from statsmodels.stats.multitest import multipletests

from sigmar.models.result import Result, Status
from sigmar.runners.checking.grading import Grade
from sigmar.runners.statistics.cost import Usage
from sigmar.runners.statistics.paired import ALPHA, MIN_BOARDS, paired_comparisons
from sigmar.runners.statistics.runs import Row

SPEED = [1.0, 1.05, 1.1, 1.3, 1.35, 2.0, 2.1, 4.0]
EQUAL = [1.0] * 8  # every pair alike: any claim is false


def rows(speeds: list[float], boards: int, seed: int) -> list[Row]:
    rng = np.random.default_rng(seed)
    hardness = rng.lognormal(0.0, 1.5, size=boards)
    return [
        Row(
            "f",
            f"b{i}",
            f"x{k}",
            Result(Status.SOLVED, f"x{k}", t := float(0.01 * hardness[i] * s * rng.lognormal(0.0, 0.35))),
            Grade.CORRECT,
            Usage(t),
        )
        for i in range(boards)
        for k, s in enumerate(speeds)
    ]


def claims(found: list[Row], names: list[str]) -> tuple[int, int, int]:
    """(claims made, Holm rejections by statsmodels over scipy, uncorrected rejections) on these rows."""
    made = sum(c.ratio.clear for c in paired_comparisons(found, names))
    times = {(r.board, r.backend): r.result.seconds for r in found}
    boards = sorted({r.board for r in found})
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    raw = [float(wilcoxon([math.log(times[x, b] / times[x, a]) for x in boards]).pvalue) for a, b in pairs]
    holm = int(multipletests(raw, alpha=ALPHA, method="holm")[0].sum())
    return made, holm, sum(p < ALPHA for p in raw)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=200, help="seeds of the all-alike runs (false claims)")
    parser.add_argument("--docs", action="store_true")
    args = parser.parse_args()
    load = Path("/proc/loadavg").read_text().split()[:3]
    names = [f"x{k}" for k in range(8)]
    checks = []
    for boards in range(1, MIN_BOARDS):
        sentences = [c.sentence() for c in paired_comparisons(rows(SPEED, boards, 1), names)]
        ok = all("×" not in s and "faster than" not in s and "too few" in s for s in sentences)
        checks.append((f"{boards} board{'s' * (boards > 1)}: counts only, no interval, no 'faster'", ok, sentences[0]))
    made, holm, raw = claims(rows(SPEED, 40, 52), names)
    checks.append(("8 backends x 40 boards: claims == Holm-corrected rejections", made == holm, f"{made} == {holm}"))
    checks.append(("... fewer than the uncorrected tests would claim", made <= raw, f"{made} <= {raw} uncorrected"))
    false_made = false_raw = 0
    for seed in range(args.seeds):
        m, _, r = claims(rows(EQUAL, 40, 1000 + seed), names)
        false_made += m > 0
        false_raw += r > 0
    familywise = false_made / args.seeds
    checks.append(
        (
            f"all 8 alike, {args.seeds} seeds: runs with any false claim (Holm; 5% target)",
            familywise <= 0.1,
            f"{100 * familywise:.1f}% corrected, {100 * false_raw / args.seeds:.1f}% uncorrected",
        )
    )
    table = markdown_table(("check", "met", "detail"), [(n, "yes" if ok else "NO", d) for n, ok, d in checks])
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = (
        f"# Statistics with a floor (issue 52, item 2)\n\n*Recorded {stamp}; load average {' '.join(load)}; "
        f"`python scripts/bench/statistics_floor.py --seeds {args.seeds}`.*\n\nThe floor: {MIN_BOARDS} boards "
        "both answered correctly. The claims: Holm-adjusted Wilcoxon p below 0.05 and the bootstrap interval "
        "leaving 1 out.\n\n" + table
    )
    publish(
        RESULTS / "statistics_floor",
        text,
        {"checks": checks, "load": load},
        also=ROOT / "docs" / "measured" / "statistics-floor.md" if args.docs else None,
    )
    return 0 if all(ok for _, ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
