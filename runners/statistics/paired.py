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
  and ranks, so a few boards with huge ratios cannot make it.

Written as ``15.5× [9.9, 23.3]`` (docs/formats.md#the-benchmark-csv).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

from sigmar.runners.checking.grading import Grade
from sigmar.runners.statistics.scores import FLOOR, percentile, representatives

if TYPE_CHECKING:
    from sigmar.runners.statistics.runs import Row

SEED = 20260525  # the bootstrap's seed: the same rows give the same interval
RESAMPLES = 10_000
LEVEL = 0.95
ALPHA = 1 - LEVEL  # the Wilcoxon p-value below which a difference counts as clear
BLOCK = 1_000  # resamples drawn at a time (memory: BLOCK x boards indices)


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


def decimals(value: float) -> int:
    """Decimals for a ratio of this size and its interval: 2 below 10 (1.04), 1 below 100 (15.5), else 0."""
    return 2 if value < 10 else 1 if value < 100 else 0


@dataclass(frozen=True)
class Ratio:
    """A geometric-mean ratio over paired boards, its bootstrap interval and the Wilcoxon p-value."""

    value: float
    low: float
    high: float
    p_value: float
    boards: int

    def text(self) -> str:
        """``15.5× [9.9, 23.3]``: the interval with as many decimals as the ratio."""
        if math.isnan(self.value):
            return "-"
        d = decimals(self.value)
        return f"{self.value:.{d}f}× [{self.low:.{d}f}, {self.high:.{d}f}]"

    def inverted(self) -> Ratio:
        return Ratio(1 / self.value, 1 / self.high, 1 / self.low, self.p_value, self.boards)

    @property
    def clear(self) -> bool:
        """One side is faster on boards drawn like these: the interval leaves 1 out and the Wilcoxon test agrees
        (p below ``ALPHA``; with fewer than six boards it never can be, however wide the ratio)."""
        return (self.low > 1 or self.high < 1) and self.p_value < ALPHA


def ratio_of(logs: Sequence[float], *, seed: int = SEED, resamples: int = RESAMPLES) -> Ratio:
    """The ratio whose per-board natural logs are ``logs``."""
    if not logs:
        return Ratio(math.nan, math.nan, math.nan, math.nan, 0)
    low, high = bootstrap_interval(logs, seed=seed, resamples=resamples)
    mean = sum(logs) / len(logs)
    return Ratio(math.exp(mean), math.exp(low), math.exp(high), wilcoxon_p(logs), len(logs))


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
        test = f"Wilcoxon p = {r.p_value:.2g} over {r.boards} board{'s' if r.boards != 1 else ''}"
        if r.clear:
            return f"{self.faster} is faster than {self.slower} {where}: {r.text()}, {test}"
        why = "the interval includes 1" if r.low <= 1 <= r.high else f"p is not below {ALPHA:g}"
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
    """Every two backends, in the order they were named."""
    return [compare_pair(rows, a, b) for i, a in enumerate(names) for b in names[i + 1 :]]


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
    speedups = {name: ratio_of(v) for name, v in logs.items() if v}
    return speedups, changes, common


def speedup_sentence(backend: str, speedup: Ratio) -> str:
    """``cnf is faster than in the baseline: 1.2× [1.05, 1.38], Wilcoxon p = 0.01 over 30 boards``."""
    test = f"Wilcoxon p = {speedup.p_value:.2g} over {speedup.boards} board{'s' if speedup.boards != 1 else ''}"
    if not speedup.clear:
        return f"{backend} against the baseline: no clear difference: {speedup.text()} (old/new), {test}"
    if speedup.value > 1:
        return f"{backend} is faster than in the baseline: {speedup.text()}, {test}"
    return f"{backend} is slower than in the baseline: {speedup.inverted().text()}, {test}"
