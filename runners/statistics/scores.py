"""The field's scores over bench rows: PAR-2 (wall and CPU), the virtual best solver, marginal contributions,
the MiniZinc Challenge's pairwise score.  (Against a baseline, and backend against backend: ``paired``.)

- **Repetitions** (``bench --repeat N``): each board and backend counts once,
  through its median run (:func:`representatives`); the spread of its
  repetitions' seconds is the timing noise.
- **PAR-2** (SAT competition): per board, the wall seconds of a *correct*
  answer, else twice the time limit (unknown, error, and BenchExec's
  correct-unconfirmed alike: a claimed "no" scores as no answer, as in the SAT
  competition, which has required certified UNSAT since 2016); reported as
  the mean per board.  One wrong answer disqualifies the backend: its PAR-2
  is infinite.  The same by CPU seconds (``cpu_par2``) holds up better on a
  busy machine, where a run waits for a core.
- **Pairwise score** (the MiniZinc Challenge's, for satisfaction problems):
  on each board, each pair of backends shares one point.  The better answer
  takes it (a correct answer beats a claim, which beats no answer, which
  beats a wrong one); two correct answers (or two claims) split it by time,
  the faster taking ``t_other / (t_self + t_other)``; two without an answer
  share nothing.
- **VBS**: per board, the fastest correct answer of any backend that is not
  disqualified.  A backend's **marginal contribution** is how much the VBS's
  PAR-2 worsens when that backend is left out (0: the others cover it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from sigmar.models.records import Frozen
from sigmar.models.result import Status
from sigmar.runners.checking.grading import Grade

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import Any

    from sigmar.runners.statistics.runs import Row

FLOOR = 1e-3  # seconds: the floor of a time in a ratio


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


def cpu_cost(row: Row, time_limit: float) -> float:
    """PAR-2's cost by CPU seconds (nan for a correct run whose CPU was not measured, as on a cluster)."""
    if row.grade is not Grade.CORRECT:
        return 2 * time_limit
    return math.nan if row.usage.cpu_seconds is None else row.usage.cpu_seconds


def par2(
    rows: list[Row], time_limit: float | None, *, disqualify: list[Row] | None = None, cost: Any = par2_cost
) -> float:
    """Mean PAR-2 seconds per board of one backend's rows; inf if any of ``disqualify`` (default: the rows)
    is wrong, nan without a limit or a row."""
    if not time_limit or not rows:
        return math.nan
    if any(r.grade is Grade.WRONG for r in (rows if disqualify is None else disqualify)):
        return math.inf
    return sum(cost(r, time_limit) for r in rows) / len(rows)


def cpu_par2(rows: list[Row], time_limit: float | None, *, disqualify: list[Row] | None = None) -> float:
    """PAR-2 by CPU seconds."""
    return par2(rows, time_limit, disqualify=disqualify, cost=cpu_cost)


# -- repetitions ------------------------------------------------------------------


def _run_cost(row: Row) -> tuple[int, float]:
    """How good a run is, for choosing the median one: a correct answer first, then by seconds."""
    order = {Grade.CORRECT: 0, Grade.UNCONFIRMED: 1, Grade.UNKNOWN: 2, Grade.ERROR: 2, Grade.WRONG: 3}
    return (order[row.grade], row.result.seconds)


def representatives(rows: list[Row]) -> list[Row]:
    """Each (board, backend)'s median run, in the rows' order: with an even number, the worse of the middle two.

    Runs are ordered by outcome, then seconds (:func:`_run_cost`), so of three runs with
    one unknown the median is the slower of the two answers.
    """
    groups: dict[tuple[str, str, str], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.file, row.board, row.backend), []).append(row)
    chosen = {k: sorted(g, key=_run_cost)[len(g) // 2] for k, g in groups.items()}
    return [row for row in rows if chosen[(row.file, row.board, row.backend)] is row]


def spread(rows: list[Row]) -> float:
    """The timing noise of repetitions: per (board, backend) with two or more answered runs, (max - min) /
    median of their seconds; the median of that over the boards.  nan without repetitions."""
    groups: dict[tuple[str, str, str], list[float]] = {}
    for row in rows:
        if row.grade in (Grade.CORRECT, Grade.UNCONFIRMED):
            groups.setdefault((row.file, row.board, row.backend), []).append(max(row.result.seconds, FLOOR))
    ratios = sorted((max(g) - min(g)) / sorted(g)[len(g) // 2] for g in groups.values() if len(g) >= 2)
    return percentile(ratios, 50)


# -- the MiniZinc Challenge's pairwise score ----------------------------------------

ANSWER_QUALITY = {Grade.CORRECT: 2, Grade.UNCONFIRMED: 1, Grade.UNKNOWN: 0, Grade.ERROR: 0, Grade.WRONG: -1}


def pair_points(mine: Row, theirs: Row) -> float:
    """The share of one board's point that ``mine`` takes against ``theirs``."""
    a, b = ANSWER_QUALITY[mine.grade], ANSWER_QUALITY[theirs.grade]
    if a != b:
        return 1.0 if a > b else 0.0
    if a <= 0:
        return 0.0
    t_mine, t_theirs = max(mine.result.seconds, FLOOR), max(theirs.result.seconds, FLOOR)
    return t_theirs / (t_mine + t_theirs)


def pairwise_scores(rows: list[Row], names: list[str]) -> dict[str, dict[str, float]]:
    """score[A][B]: the points A took from B over the boards both ran (median runs); score[A][A] is absent."""
    by = {(r.file, r.board, r.backend): r for r in representatives(rows)}
    boards = list(dict.fromkeys((r.file, r.board) for r in rows))
    score: dict[str, dict[str, float]] = {a: {} for a in names}
    for a in names:
        for b in names:
            if a == b:
                continue
            total = 0.0
            for file, board in boards:
                mine, theirs = by.get((file, board, a)), by.get((file, board, b))
                if mine is not None and theirs is not None:
                    total += pair_points(mine, theirs)
            score[a][b] = total
    return score


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


class Vbs(Frozen):
    """The virtual best solver over the backends that were not disqualified."""

    __slots__ = __match_args__ = ("members", "solved", "boards", "par2", "times", "winners", "marginal", "refuted")
    members: tuple[str, ...]
    solved: int  # boards with a correct answer from some member
    boards: int
    par2: float
    times: tuple[float, ...]  # the winning seconds, ascending
    winners: dict[str, int]  # backend -> boards on which it was the fastest correct
    marginal: dict[str, float]  # backend -> VBS PAR-2 without it minus with it
    refuted: int  # of ``solved``, the boards answered unsolvable (with a checked certificate)

    def __init__(
        self,
        members: tuple[str, ...],
        solved: int,
        boards: int,
        par2: float,
        times: tuple[float, ...],
        winners: dict[str, int],
        marginal: dict[str, float],
        refuted: int = 0,
    ) -> None:
        values = (members, solved, boards, par2, times, winners, marginal, refuted)
        for name, value in zip(self.__match_args__, values, strict=True):
            object.__setattr__(self, name, value)


def vbs(rows: list[Row], names: list[str], time_limit: float | None) -> Vbs:
    """The VBS over each board and backend's median run (``--repeat``)."""
    members = tuple(n for n in names if n not in disqualified(rows))
    rows = representatives(rows)
    best = best_per_board(rows, members)
    answered = [r for r in best.values() if r is not None]
    winners = {n: sum(r.backend == n for r in answered) for n in members}
    whole = vbs_par2(rows, members, time_limit)
    marginal = {n: vbs_par2(rows, [m for m in members if m != n], time_limit) - whole for n in members}
    times = tuple(sorted(r.result.seconds for r in answered))
    refuted = sum(r.result.status is Status.UNSOLVABLE for r in answered)
    return Vbs(members, len(answered), len(best), whole, times, winners, marginal, refuted)
