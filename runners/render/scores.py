"""The field's scores over bench rows: PAR-2, the virtual best solver, marginal contributions, a baseline.

- **PAR-2** (SAT competition): per board, the wall seconds of a *correct*
  answer, else twice the time limit (unknown, error, and BenchExec's
  correct-unconfirmed alike); reported as the mean per board.  One wrong
  answer disqualifies the backend: its PAR-2 is infinite.
- **VBS**: per board, the fastest correct answer of any backend that is not
  disqualified.  A backend's **marginal contribution** is how much the VBS's
  PAR-2 worsens when that backend is left out (0: the others cover it).
- **Baseline**: a CSV of an earlier bench; a backend's speedup is the
  geometric mean, over the runs answered correctly in both, of old seconds /
  new seconds (each floored at 1 ms so an instant answer does not dominate).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

from ..checking.grading import Grade

if TYPE_CHECKING:
    from ..bench import Row

FLOOR = 1e-3  # seconds: the floor of a time in a ratio
SLOWER = 2.0  # a run this many times slower than its baseline is listed
SLOWER_MIN_SECONDS = 0.01  # ... and only when it lost at least this much (timer noise)


def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of an ascending list."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def key(row: Row) -> tuple[str, str]:
    return (row.file, row.board)


def par2_cost(row: Row, time_limit: float) -> float:
    return row.result.seconds if row.grade is Grade.CORRECT else 2 * time_limit


def par2(rows: list[Row], time_limit: float | None) -> float:
    """Mean PAR-2 seconds per board of one backend's rows; inf if any is wrong, nan without a limit."""
    if not time_limit or not rows:
        return math.nan
    if any(r.grade is Grade.WRONG for r in rows):
        return math.inf
    return sum(par2_cost(r, time_limit) for r in rows) / len(rows)


def disqualified(rows: list[Row]) -> set[str]:
    return {r.backend for r in rows if r.grade is Grade.WRONG}


def best_per_board(rows: list[Row], names: Iterable[str]) -> dict[tuple[str, str], Row | None]:
    """Per board, the fastest correct row among ``names`` (None when none of them answered correctly)."""
    allowed = set(names)
    best: dict[tuple[str, str], Row | None] = {}
    for row in rows:
        k = key(row)
        best.setdefault(k, None)
        if row.backend not in allowed or row.grade is not Grade.CORRECT:
            continue
        current = best[k]
        if current is None or row.result.seconds < current.result.seconds:
            best[k] = row
    return best


def vbs_par2(rows: list[Row], names: Iterable[str], time_limit: float | None) -> float:
    best = best_per_board(rows, names)
    if not time_limit or not best:
        return math.nan
    return sum(r.result.seconds if r is not None else 2 * time_limit for r in best.values()) / len(best)


@dataclass(frozen=True)
class Vbs:
    """The virtual best solver over the backends that were not disqualified."""

    members: tuple[str, ...]
    solved: int  # boards with a correct answer from some member
    boards: int
    par2: float
    times: tuple[float, ...]  # the winning seconds, ascending
    winners: dict[str, int]  # backend -> boards on which it was the fastest correct
    marginal: dict[str, float]  # backend -> VBS PAR-2 without it minus with it


def vbs(rows: list[Row], names: list[str], time_limit: float | None) -> Vbs:
    members = tuple(n for n in names if n not in disqualified(rows))
    best = best_per_board(rows, members)
    answered = [r for r in best.values() if r is not None]
    winners = {n: sum(r.backend == n for r in answered) for n in members}
    whole = vbs_par2(rows, members, time_limit)
    marginal = {n: vbs_par2(rows, [m for m in members if m != n], time_limit) - whole for n in members}
    times = tuple(sorted(r.result.seconds for r in answered))
    return Vbs(members, len(answered), len(best), whole, times, winners, marginal)


# -- against a baseline CSV -----------------------------------------------------------


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


def _correct(grade: str) -> bool:
    return grade == Grade.CORRECT.value


def run_key(file: str, board: str, backend: str) -> tuple[str, str, str]:
    """A run across two benches: the board file by its name only, so ``./x.txt`` and ``/abs/x.txt`` meet."""
    return (PurePath(file).name, board, backend)


def compare(rows: list[Row], old: list[dict[str, str]]) -> tuple[dict[str, float], list[Change], int]:
    """Speedup per backend (geometric mean of old/new over runs correct in both), the changed boards,
    and how many runs the two benches have in common."""
    before = {run_key(o["file"], o["board"], o["backend"]): o for o in old}
    logs: dict[str, list[float]] = {}
    changes: list[Change] = []
    common = 0
    for row in rows:
        o = before.get(run_key(row.file, row.board, row.backend))
        if o is None:
            continue
        common += 1
        new_s, old_s = row.result.seconds, float(o["seconds"])
        new_text = described(str(row.result.status), row.reason, str(row.grade), new_s)
        old_text = described(o["status"], o.get("reason") or "", o["grade"], old_s)
        if o["status"] != str(row.result.status):
            changes.append(Change(row.board, row.backend, old_text, new_text, "answer"))
        if _correct(o["grade"]) and row.grade is Grade.CORRECT:
            logs.setdefault(row.backend, []).append(math.log(max(old_s, FLOOR) / max(new_s, FLOOR)))
            if new_s > SLOWER * max(old_s, FLOOR) and new_s - old_s >= SLOWER_MIN_SECONDS:
                changes.append(Change(row.board, row.backend, old_text, new_text, "slower"))
    speedups = {name: math.exp(sum(v) / len(v)) for name, v in logs.items() if v}
    return speedups, changes, common
