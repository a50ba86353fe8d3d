"""The bench's tables in the terminal: answers and scores, times, families, pairs.

Every cell is a rich ``Text`` (styled, never markup: a board or backend name
may hold square brackets), so the tables read the same with ``NO_COLOR``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from sigmar.models.result import Status
from sigmar.runners.checking.grading import Grade
from sigmar.runners.statistics.paired import PairedComparison, Ratio
from sigmar.runners.statistics.scores import Vbs, par2, representatives

if TYPE_CHECKING:
    from sigmar.runners.statistics.runs import Row, Summary


def fmt(seconds: float, digits: int = 3) -> str:
    if math.isnan(seconds):
        return "-"
    return "disq." if math.isinf(seconds) else f"{seconds:.{digits}f}"


def percent(fraction: float) -> str:
    return "-" if math.isnan(fraction) else f"{100 * fraction:.1f}%"


def _right(table: Table, *names: str) -> None:
    for name in names:
        table.add_column(name, justify="right", no_wrap=True)


def answers_table(
    summaries: Sequence[Summary], best: Vbs, speedups: dict[str, Ratio] | None, *, by_cpu: bool = False
) -> Table:
    """Ranked, best first: counts (a checked "no" apart from a claimed one) and the PAR-2 scores."""
    order = "ranked by CPU-time PAR-2 (the machine was busy)" if by_cpu else "ranked"
    table = Table(
        title=f"sigmar bench: answers and scores, {order} (a claimed 'no' is not an answer: "
        "PAR-2 charges it twice the limit)"
    )
    _right(table, "rank")
    table.add_column("backend", no_wrap=True)
    _right(table, "boards", "solved", "unsolvable\ncertified", "unsolvable\nclaimed", "unknown", "error", "wrong")
    _right(table, "PAR-2", "PAR-2\ncpu", "PAR-2\nsolvable", "PAR-2\nunsolvable")
    if speedups is not None:
        _right(table, "speedup")
    for s in summaries:
        error = f"{s.error} ({s.out_of_memory} mem)" if s.out_of_memory else str(s.error)
        cells = [
            Text(str(s.rank)),
            Text(s.backend),
            *(Text(str(v)) for v in (s.runs, s.solved, s.certified)),
            Text(str(s.claimed), style="yellow" if s.claimed else ""),
            Text(str(s.unknown)),
            Text(error),
            Text(str(s.wrong), style="bold red" if s.wrong else ""),
            *(Text(fmt(v)) for v in (s.par2, s.par2_cpu, s.par2_solvable, s.par2_unsolvable)),
        ]
        if speedups is not None:
            cells.append(Text(speedups[s.backend].text() if s.backend in speedups else "-"))
        table.add_row(*cells)
    vbs_cells = ["", "VBS", str(best.boards), str(best.solved - best.refuted), str(best.refuted), "", "", "", ""]
    vbs_cells.append(fmt(best.par2))
    table.add_row(*(Text(c) for c in vbs_cells), *[Text("")] * (len(table.columns) - len(vbs_cells)), style="italic")
    return table


def times_table(summaries: Sequence[Summary], best: Vbs, repeated: bool) -> Table:
    """Seconds over answered runs (each board's median run), the repetitions' spread, CPU/wall and memory."""
    title = "seconds over answered runs" + (", each board's median run" if repeated else "")
    caption = "spread: the median over boards of (max - min) / median of a board's runs; " if repeated else ""
    caption += "memory: peak RSS in MB"
    table = Table(title=title, caption=caption, min_width=min(len(caption) + 2, 120))
    table.add_column("backend", no_wrap=True)
    _right(table, "median", "p90", "p99", "max")
    if repeated:
        _right(table, "spread")
    _right(table, "cpu/wall", "mem med", "mem max")
    for s in summaries:
        cells = [s.backend, fmt(s.median), fmt(s.p90), fmt(s.p99), fmt(s.max)]
        if repeated:
            cells.append(percent(s.spread))
        cells += [fmt(s.cpu_ratio, 2), fmt(s.memory_median, 1), fmt(s.memory_max, 1)]
        table.add_row(*(Text(c) for c in cells))
    times = sorted(best.times)
    median = times[len(times) // 2] if times else math.nan
    vbs_cells = ["VBS", fmt(median)]
    table.add_row(*(Text(c) for c in vbs_cells), *[Text("")] * (len(table.columns) - 2), style="italic")
    return table


def family_rows(rows: list[Row], names: list[str], time_limit: float | None) -> list[tuple[str, str, list[str]]]:
    """(family, backend, cells) per family and backend: boards, solved, certified, claimed, no answer, wrong, PAR-2."""
    medians = representatives(rows)
    out = []
    for family in dict.fromkeys(r.family for r in rows):
        for name in names:
            mine = [r for r in medians if r.family == family and r.backend == name]
            every = [r for r in rows if r.family == family and r.backend == name]
            counts = [
                len(mine),
                sum(r.grade is Grade.CORRECT and r.result.status is Status.SOLVED for r in mine),
                sum(r.grade is Grade.CORRECT and r.result.status is Status.UNSOLVABLE for r in mine),
                sum(r.grade is Grade.UNCONFIRMED for r in mine),
                sum(r.result.status in (Status.UNKNOWN, Status.ERROR) for r in mine),
                sum(r.grade is Grade.WRONG for r in every),
            ]
            out.append((family, name, [*map(str, counts), fmt(par2(mine, time_limit, disqualify=every))]))
    return out


FAMILY_HEADS = ("boards", "solved", "unsolvable\ncertified", "unsolvable\nclaimed", "no answer", "wrong", "PAR-2")


def family_table(rows: list[Row], names: list[str], time_limit: float | None) -> Table:
    """One line per family (each input file, or a ``--family`` name) and backend."""
    table = Table(title="per family (median runs)")
    table.add_column("family", no_wrap=True)
    table.add_column("backend", no_wrap=True)
    _right(table, *FAMILY_HEADS)
    last = None
    for family, name, cells in family_rows(rows, names, time_limit):
        table.add_row(Text(family if family != last else ""), Text(name), *(Text(c) for c in cells))
        last = family
    return table


def pairwise_table(scores: dict[str, dict[str, float]], boards: int) -> Table:
    """The MiniZinc Challenge's pairwise score: the points each backend (row) took from each other (column)."""
    names = list(scores)
    caption = f"points the row took from the column, of {boards} boards"
    table = Table(title="pairwise score (MiniZinc Challenge)", caption=caption, min_width=len(caption) + 2)
    table.add_column("backend", no_wrap=True)
    _right(table, *names, "total")
    for a in names:
        cells = [fmt(scores[a][b], 1) if b != a else "" for b in names]
        table.add_row(Text(a), *(Text(c) for c in cells), Text(fmt(sum(scores[a].values()), 1)))
    return table


def paired_lines(comparisons: Sequence[PairedComparison]) -> list[Text]:
    """One sentence per pair of backends."""
    return [Text(c.sentence(), style="" if c.ratio.clear else "dim") for c in comparisons]
