"""Paired comparisons of two backends' times, over the boards both answered: a ratio with its uncertainty.

Why paired, and why these statistics: on a shared machine a run's time is
noisy by a few percent (``bench --repeat`` measures it), but the real
uncertainty in "X is N times faster than Y" is which boards were drawn.  So:

- the **ratio** is the geometric mean, over the boards, of one backend's
  seconds over the other's (each floored at 1 ms, so instant answers do not
  dominate): the mean of the per-board log ratios, exponentiated;
- its **95% interval** is a paired bootstrap: the boards are resampled with
  replacement (a board keeps both of its times), the mean log ratio taken
  each time, and the 2.5th and 97.5th percentiles (nearest rank) of those
  means exponentiated.  :func:`bootstrap_interval` is ours, seeded, so a
  report is reproducible and a test can redo it by brute force;
- the **Wilcoxon signed-rank test** (``scipy.stats.wilcoxon``) over the same
  log ratios gives the p-value of "neither is faster": it uses only the signs
  and ranks, so a few boards with huge ratios cannot make it;
- a bench compares every two backends, so its p-values are **corrected for
  multiplicity** (Holm's step-down, :func:`holm`: 8 backends make 28 tests, and
  at 5% each about 1.4 false "faster" would be expected uncorrected); a
  difference is called clear when its *adjusted* p is below 5% and its interval
  leaves 1 out;
- below :data:`MIN_BOARDS` boards that both answered, **no interval and no
  claim** are given, only the counts (which was faster on how many boards).

Written as ``15.5× [9.9, 23.3]`` (docs/formats.md#the-benchmark-csv).
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import TYPE_CHECKING

from sigmar.runners.checking.grading import Grade
from sigmar.runners.statistics.scores import FLOOR, percentile, representatives

if TYPE_CHECKING:
    from sigmar.runners.statistics.record import Record
    from sigmar.runners.statistics.runs import Row

SEED = 20260525  # the bootstrap's seed: the same rows give the same interval
RESAMPLES = 10_000
LEVEL = 0.95
ALPHA = 1 - LEVEL  # the Wilcoxon p-value below which a difference counts as clear
BLOCK = 1_000  # resamples drawn at a time (memory: BLOCK x boards indices)
# The floor: fewer boards than this, and a comparison gives only its counts.  Why 6: with 5 boards or fewer
# the exact two-sided Wilcoxon signed-rank test cannot reach p < 0.05 (5 of 5 one way: p = 2/32 = 0.0625),
# so no claim could be made whatever the times, and a bootstrap of 5 values has at most 126 distinct
# resamples: an "interval" from it describes those 5 boards, not boards drawn like them.
MIN_BOARDS = 6


def bootstrap_interval(
    values: Sequence[float], *, seed: int = SEED, resamples: int = RESAMPLES, level: float = LEVEL
) -> tuple[float, float]:
    """The percentile interval of the mean of ``values`` over ``resamples`` bootstrap resamples.

    Each resample draws ``len(values)`` indices with ``numpy.random.default_rng(seed).integers``,
    one resample after another; its mean is taken, and the interval's ends are the nearest-rank
    percentiles ``(1 - level) / 2`` and ``(1 + level) / 2`` of the sorted means.
    """
    import numpy as np

    if not values:
        return math.nan, math.nan
    sample = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means: list[float] = []
    for start in range(0, resamples, BLOCK):
        count = min(BLOCK, resamples - start)
        means.extend(sample[rng.integers(0, len(sample), size=(count, len(sample)))].mean(axis=1).tolist())
    means.sort()
    tail = 100 * (1 - level) / 2
    return percentile(means, tail), percentile(means, 100 - tail)


def wilcoxon_p(differences: Sequence[float]) -> float:
    """Two-sided Wilcoxon signed-rank p-value of ``differences`` (zeros dropped; 1 when all are zero)."""
    nonzero = [d for d in differences if d != 0]
    if not nonzero:
        return 1.0
    from scipy.stats import wilcoxon

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small samples: scipy warns that the test has little power
        return float(wilcoxon(nonzero).pvalue)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given: the i-th smallest of m is multiplied by
    ``m - i`` (i from 0), made non-decreasing in that order, and capped at 1.  A NaN (no test) stays NaN and
    is not counted among the m tests.  (tests/test_bench_statistics.py holds it to statsmodels' own.)"""
    tested = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    adjusted = [math.nan] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(tested):
        running = max(running, min(1.0, (len(tested) - rank) * p))
        adjusted[i] = running
    return adjusted


def decimals(value: float) -> int:
    """Decimals for a ratio of this size and its interval: 2 below 10 (1.04), 1 below 100 (15.5), else 0."""
    return 2 if value < 10 else 1 if value < 100 else 0


@dataclass(frozen=True)
class Ratio:
    """A geometric-mean ratio over paired boards, its bootstrap interval and the Wilcoxon p-value (``adjusted``:
    the p-value after the correction for the other tests made beside it; the raw one when alone).  ``ahead``
    and ``behind``: on how many boards the ratio's numerator took longer, and shorter (ties in neither)."""

    value: float
    low: float
    high: float
    p_value: float
    boards: int
    adjusted: float | None = None
    ahead: int = 0
    behind: int = 0

    @property
    def p(self) -> float:
        """The p-value a claim is judged by: the adjusted one when there is one."""
        return self.p_value if self.adjusted is None else self.adjusted

    @property
    def enough(self) -> bool:
        """Boards enough for an interval and a claim (:data:`MIN_BOARDS`)."""
        return self.boards >= MIN_BOARDS

    def text(self) -> str:
        """``15.5× [9.9, 23.3]``: the interval with as many decimals as the ratio; below the floor, the
        counts only (``4 boards, too few``)."""
        if math.isnan(self.value):
            return "-"
        if not self.enough:
            return f"{self.boards} board{'s' if self.boards != 1 else ''}, too few"
        d = decimals(self.value)
        return f"{self.value:.{d}f}× [{self.low:.{d}f}, {self.high:.{d}f}]"

    def inverted(self) -> Ratio:
        return Ratio(
            1 / self.value,
            1 / self.high,
            1 / self.low,
            self.p_value,
            self.boards,
            self.adjusted,
            self.behind,
            self.ahead,
        )

    def with_adjusted(self, adjusted: float) -> Ratio:
        return replace(self, adjusted=adjusted)

    @property
    def clear(self) -> bool:
        """One side is faster on boards drawn like these: enough boards, the interval leaves 1 out and the
        Wilcoxon test agrees (its p, adjusted for the other tests, below ``ALPHA``)."""
        return self.enough and (self.low > 1 or self.high < 1) and self.p < ALPHA

    def test_text(self) -> str:
        """``Wilcoxon p = 0.01 (Holm-adjusted 0.08) over 30 boards``."""
        adjusted = "" if self.adjusted is None else f" (Holm-adjusted {self.adjusted:.2g})"
        return f"Wilcoxon p = {self.p_value:.2g}{adjusted} over {self.boards} board{'s' if self.boards != 1 else ''}"


def ratio_of(logs: Sequence[float], *, seed: int = SEED, resamples: int = RESAMPLES) -> Ratio:
    """The ratio whose per-board natural logs are ``logs``; below :data:`MIN_BOARDS` boards no interval and
    no test (NaN), only the ratio and the counts."""
    if not logs:
        return Ratio(math.nan, math.nan, math.nan, math.nan, 0)
    mean = sum(logs) / len(logs)
    ahead, behind = sum(x > 0 for x in logs), sum(x < 0 for x in logs)
    if len(logs) < MIN_BOARDS:
        return Ratio(math.exp(mean), math.nan, math.nan, math.nan, len(logs), ahead=ahead, behind=behind)
    low, high = bootstrap_interval(logs, seed=seed, resamples=resamples)
    return Ratio(math.exp(mean), math.exp(low), math.exp(high), wilcoxon_p(logs), len(logs), None, ahead, behind)


def adjusted(ratios: Sequence[Ratio]) -> list[Ratio]:
    """The ratios with their p-values Holm-adjusted over those tested (the ones with enough boards)."""
    return [
        r.with_adjusted(a) if r.enough else r for r, a in zip(ratios, holm([r.p_value for r in ratios]), strict=True)
    ]


@dataclass(frozen=True)
class PairedComparison:
    """Two backends on the boards both answered correctly; ``faster`` has the smaller geometric mean."""

    faster: str
    slower: str
    ratio: Ratio  # slower's seconds over faster's: at least 1

    def sentence(self, where: str = "on these boards") -> str:
        r = self.ratio
        if r.boards == 0:
            return f"{self.faster} and {self.slower}: no board that both answered correctly"
        if not r.enough:
            return (
                f"{self.faster} and {self.slower}: {r.boards} board{'s' if r.boards != 1 else ''} both answered "
                f"correctly, too few for an interval or a claim (at least {MIN_BOARDS}): {self.faster} took less "
                f"time on {r.ahead}, {self.slower} on {r.behind}"
            )
        test = r.test_text()
        if r.clear:
            return f"{self.faster} is faster than {self.slower} {where}: {r.text()}, {test}"
        which = "adjusted p" if r.adjusted is not None else "p"
        why = "the interval includes 1" if r.low <= 1 <= r.high else f"{which} is not below {ALPHA:g}"
        return (
            f"{self.faster} and {self.slower}: no clear difference {where}: {r.text()} "
            f"({self.faster} the faster in geometric mean; {why}), {test}"
        )


def common_times(rows: list[Row], first: str, second: str) -> list[tuple[float, float]]:
    """(first's, second's) seconds, floored, on each board both answered correctly (median runs)."""
    by = {(r.file, r.board, r.backend): r for r in representatives(rows) if r.grade is Grade.CORRECT}
    boards = dict.fromkeys((r.file, r.board) for r in rows)
    out = []
    for file, board in boards:
        a, b = by.get((file, board, first)), by.get((file, board, second))
        if a is not None and b is not None:
            out.append((max(a.result.seconds, FLOOR), max(b.result.seconds, FLOOR)))
    return out


def compare_pair(rows: list[Row], first: str, second: str) -> PairedComparison:
    times = common_times(rows, first, second)
    ratio = ratio_of([math.log(b / a) for a, b in times])  # second over first
    if ratio.boards and ratio.value < 1:
        return PairedComparison(second, first, ratio.inverted())
    return PairedComparison(first, second, ratio)


def paired_comparisons(rows: list[Row], names: list[str]) -> list[PairedComparison]:
    """Every two backends, in the order they were named, their p-values Holm-adjusted over all the pairs
    tested (with a single pair, the adjusted p is the raw one)."""
    pairs = [compare_pair(rows, a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    return [replace(c, ratio=r) for c, r in zip(pairs, adjusted([c.ratio for c in pairs]), strict=True)]


# -- against a baseline CSV (``bench --baseline``) ----------------------------------

SLOWER = 2.0  # a run this many times slower than its baseline is listed
SLOWER_MIN_SECONDS = 0.01  # ... and only when it lost at least this much (timer noise)


@dataclass(frozen=True)
class Change:
    """A board whose answer changed, or that got much slower, against the baseline."""

    board: str
    backend: str
    old: str  # "status grade seconds"
    new: str
    why: str  # "answer" or "slower"


def described(status: str, reason: str, grade: str, seconds: float) -> str:
    """One run in a few words: "solved (correct) 0.120s", "error/memory (error) 0.300s"."""
    return f"{status}{'/' + reason if reason else ''} ({grade}) {seconds:.3f}s"


def run_key(file: str, board: str, backend: str) -> tuple[str, str, str]:
    """A run across two benches: the board file by its name only, so ``./x.txt`` and ``/abs/x.txt`` meet."""
    return (PurePath(file).name, board, backend)


def _median_old(group: list[dict[str, str]]) -> dict[str, str]:
    """The baseline's median run of a board and backend (its CSV may hold ``--repeat`` runs)."""
    order = {"correct": 0, "unconfirmed": 1, "unknown": 2, "error": 2, "wrong": 3}
    ranked = sorted(group, key=lambda o: (order.get(o["grade"], 2), float(o["seconds"])))
    return ranked[len(ranked) // 2]


def compare(rows: list[Row], old: list[dict[str, str]]) -> tuple[dict[str, Ratio], list[Change], int]:
    """Speedup per backend (old seconds over new, as a :class:`Ratio` over the boards correct in both), the
    changed boards, and how many runs (boards and backends) the two benches have in common."""
    groups: dict[tuple[str, str, str], list[dict[str, str]]] = {}
    for o in old:
        groups.setdefault(run_key(o["file"], o["board"], o["backend"]), []).append(o)
    before = {key: _median_old(group) for key, group in groups.items()}
    logs: dict[str, list[float]] = {}
    changes: list[Change] = []
    common = 0
    for row in representatives(rows):
        key = run_key(row.file, row.board, row.backend)
        if key not in before:
            continue
        o = before[key]
        common += 1
        new_s, old_s = row.result.seconds, float(o["seconds"])
        new_text = described(str(row.result.status), row.reason, str(row.grade), new_s)
        old_text = described(o["status"], o.get("reason") or "", o["grade"], old_s)
        if o["status"] != str(row.result.status):
            changes.append(Change(row.board, row.backend, old_text, new_text, "answer"))
        if o["grade"] == Grade.CORRECT.value and row.grade is Grade.CORRECT:
            logs.setdefault(row.backend, []).append(math.log(max(old_s, FLOOR) / max(new_s, FLOOR)))
            if new_s > SLOWER * max(old_s, FLOOR) and new_s - old_s >= SLOWER_MIN_SECONDS:
                changes.append(Change(row.board, row.backend, old_text, new_text, "slower"))
    ratios = {name: ratio_of(v) for name, v in logs.items() if v}
    speedups = dict(zip(ratios, adjusted(list(ratios.values())), strict=True))  # one test per backend
    return speedups, changes, common


def speedup_sentence(backend: str, speedup: Ratio) -> str:
    """``cnf is faster than in the baseline: 1.2× [1.05, 1.38], Wilcoxon p = 0.01 over 30 boards``."""
    if not speedup.enough:
        return (
            f"{backend} against the baseline: {speedup.boards} board{'s' if speedup.boards != 1 else ''} correct in "
            f"both, too few for an interval or a claim (at least {MIN_BOARDS}): faster now on {speedup.ahead}, "
            f"slower on {speedup.behind}"
        )
    test = speedup.test_text()
    if not speedup.clear:
        return f"{backend} against the baseline: no clear difference: {speedup.text()} (old/new), {test}"
    if speedup.value > 1:
        return f"{backend} is faster than in the baseline: {speedup.text()}, {test}"
    return f"{backend} is slower than in the baseline: {speedup.inverted().text()}, {test}"


# -- like with like: what differs between a bench and its baseline ---------------------------

LOAD_APART = 1.5  # median loads this many times apart (and a core's worth or more) are said to differ


def median_load(loads: Sequence[float]) -> float:
    ordered = sorted(x for x in loads if not math.isnan(x))
    return percentile(ordered, 50) if ordered else math.nan


def cpu_speedups(rows: list[Row], old: list[dict[str, str]]) -> dict[str, Ratio]:
    """Per backend, old CPU seconds over new, on the boards correct in both runs with CPU measured (Holm-adjusted
    over the backends): what the wall-time speedups mean when the two machines were loaded differently."""
    before = {run_key(o["file"], o["board"], o["backend"]): o for o in old if o.get("grade") == Grade.CORRECT.value}
    logs: dict[str, list[float]] = {}
    for row in representatives(rows):
        o = before.get(run_key(row.file, row.board, row.backend))
        if o is None or row.grade is not Grade.CORRECT or row.usage.cpu_seconds is None:
            continue
        try:
            old_cpu = float(o.get("cpu_seconds") or "nan")
        except ValueError:
            continue
        if not math.isnan(old_cpu):
            logs.setdefault(row.backend, []).append(math.log(max(old_cpu, FLOOR) / max(row.usage.cpu_seconds, FLOOR)))
    ratios = {name: ratio_of(v) for name, v in logs.items() if v}
    return dict(zip(ratios, adjusted(list(ratios.values())), strict=True))


def baseline_notes(
    rows: list[Row],
    old: list[dict[str, str]],
    time_limit: float | None,
    record: Record | None = None,
    old_record: Record | None = None,
) -> list[str]:
    """Where the baseline is not like this bench: a different time limit, other versions or options of a
    backend (from the two runs' records), and loads apart (the 1-minute load average each run recorded), with
    the CPU-time speedups, which the load moves much less than the wall-time ones."""
    notes = []
    if old_record is not None:
        old_limit = old_record.options.get("time_limit")
        if old_limit is not None and time_limit is not None and float(old_limit) != float(time_limit):
            notes.append(
                f"warning: the baseline ran with a time limit of {float(old_limit):g} s, this bench {time_limit:g} s: "
                "its unknowns and PAR-2 differ for that alone; the speedups compare the boards correct in both"
            )
        if record is not None:
            for now in record.backends:
                then = old_record.backend(now.name)
                if then is not None and (then.version_text(), then.options) != (now.version_text(), now.options):
                    notes.append(
                        f"note: {now.name} is not the baseline's: {now.version_text()} {now.options} here, "
                        f"{then.version_text()} {then.options} in the baseline"
                    )
    loads = []
    for o in old:
        with contextlib.suppress(ValueError):
            loads.append(float(o.get("load1") or "nan"))
    before, now_load = median_load(loads), median_load([r.load for r in rows])
    if math.isnan(before) or math.isnan(now_load):
        return notes
    low, high = sorted((before, now_load))
    if high - low >= 1 and high >= LOAD_APART * max(low, 0.01):
        speeds = cpu_speedups(rows, old)
        cpu = "; ".join(f"{name} {ratio.text()}" for name, ratio in speeds.items()) or "none measured in both"
        notes.append(
            f"warning: the loads differ: the baseline ran at a median load average of {before:.1f}, this bench at "
            f"{now_load:.1f}: the wall-time speedups mix the machine's load with the backends' speed; CPU time, "
            f"old over new: {cpu}"
        )
    return notes
