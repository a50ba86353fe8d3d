"""``sigmar bench --html REPORT``: one self-contained page to send around.

Everything is inside the file (styles, a few lines of script to sort the
table, the plots as PNG data URLs), so it opens offline and survives being
mailed.  Sections: the summary with the VBS and each backend's marginal
contribution, the changes against a baseline, the cactus plot and a scatter
per pair of backends, the hardest boards, and a per-board table sortable by
any column.
"""

from __future__ import annotations

import base64
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from sigmar.models.board import Board
from sigmar.models.output_files import write_file

from ..checking.grading import BoardVerdict, Grade
from .scores import Change, Vbs

if TYPE_CHECKING:
    from ..bench import Row, Summary

MAX_SCATTERS = 15  # pairs drawn; past that the report would be mostly scatter plots
HARDEST = 6  # boards in "the hardest boards"


@dataclass
class Report:
    """What the page shows; built by ``sigmar bench`` (runners/cli/bench.py) from the bench's result."""

    title: str
    header: list[str]
    names: list[str]
    rows: list[Row]
    verdicts: list[tuple[Board, BoardVerdict]]
    summaries: list[Summary]
    vbs: Vbs
    time_limit: float | None
    speedups: dict[str, float] | None = None
    changes: list[Change] = field(default_factory=list)


def num(value: float | None, digits: int = 3) -> str:
    if value is None or math.isnan(value):
        return "–"
    if math.isinf(value):
        return "disqualified"
    return f"{value:.{digits}f}"


def png_tag(png: bytes, alt: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'


def hardest_boards_html(names: list[str], boards: Mapping[str, Board]) -> str:
    """The hardest boards drawn (``runners/render/svg.py``), each with its name."""
    from .svg import board_svg

    items = []
    for name in names:
        if name in boards:
            svg = board_svg(boards[name]).split("?>", 1)[-1]  # inline: no XML declaration
            items.append(f'<figure class="board">{svg}<figcaption>{escape(name)}</figcaption></figure>')
    return f'<div class="hardest">{"".join(items)}</div>'


def board_keys(rows: Sequence[Row]) -> list[tuple[str, str]]:
    """(file, board) of every board in the rows, in order: two files may hold boards of the same name."""
    return list(dict.fromkeys((r.file, r.board) for r in rows))


def hardest(report: Report) -> list[str]:
    """Boards hardest for the field: the largest total PAR-2 cost over every backend (unanswered: 2x the limit)."""
    limit = report.time_limit or max((r.result.seconds for r in report.rows), default=1.0)
    cost: dict[str, float] = {}
    for r in report.rows:
        cost[r.board] = cost.get(r.board, 0.0) + (r.result.seconds if r.grade is Grade.CORRECT else 2 * limit)
    return sorted(cost, key=lambda name: cost[name], reverse=True)[:HARDEST]


def summary_table(report: Report) -> str:
    heads = [
        "backend",
        "runs",
        "solved",
        "unsolvable",
        "unknown",
        "error",
        "wrong",
        "PAR-2 (s)",
        "median",
        "p90",
        "p99",
        "max",
        "CPU/wall",
        "memory median (MB)",
        "memory max (MB)",
    ]
    if report.speedups is not None:
        heads.append("speedup vs baseline")
    out = ["<table class='summary'><thead><tr>", *(f"<th>{h}</th>" for h in heads), "</tr></thead><tbody>"]
    for s in report.summaries:
        wrong = f"<td class='bad'>{s.wrong}</td>" if s.wrong else "<td>0</td>"
        cells = [
            f"<td class='name'>{escape(s.backend)}</td>",
            *(f"<td>{v}</td>" for v in (s.runs, s.solved, s.unsolvable, s.unknown)),
            f"<td>{s.error}{f' <small>({s.out_of_memory} mem)</small>' if s.out_of_memory else ''}</td>",
            wrong,
            *(f"<td>{num(v)}</td>" for v in (s.par2, s.median, s.p90, s.p99, s.max)),
            f"<td>{num(s.cpu_ratio, 2)}</td>",
            f"<td>{num(s.memory_median, 1)}</td>",
            f"<td>{num(s.memory_max, 1)}</td>",
        ]
        if report.speedups is not None:
            speed = report.speedups.get(s.backend)
            cells.append(f"<td>{'–' if speed is None else f'{speed:.2f}×'}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    v = report.vbs
    times = sorted(v.times)
    median = times[len(times) // 2] if times else math.nan
    out.append(
        f"<tr class='vbs'><td class='name'>VBS</td><td>{v.boards}</td><td colspan='5'>{v.solved} boards "
        f"answered correctly by some backend</td><td>{num(v.par2)}</td><td>{num(median)}</td>"
        f"<td colspan='{len(heads) - 9}'></td></tr>"
    )
    out.append("</tbody></table>")
    marginal = "".join(
        f"<tr><td class='name'>{escape(n)}</td><td>{v.winners.get(n, 0)}</td><td>{num(v.marginal.get(n))}</td></tr>"
        for n in v.members
    )
    out.append(
        "<h3>Virtual best solver: who contributes</h3><table class='summary'><thead><tr><th>backend</th>"
        "<th>boards where fastest</th><th>VBS PAR-2 worsens by (s) without it</th></tr></thead>"
        f"<tbody>{marginal}</tbody></table>"
    )
    left_out = [n for n in report.names if n not in v.members]
    if left_out:
        out.append(f"<p class='bad'>Left out of the VBS for a wrong answer: {escape(', '.join(left_out))}</p>")
    return "".join(out)


def changes_html(report: Report) -> str:
    if report.speedups is None:
        return ""
    if not report.changes:
        return "<h2>Against the baseline</h2><p>No board changed its answer or got more than 2× slower.</p>"
    items = "".join(
        f"<tr><td>{escape(c.board)}</td><td>{escape(c.backend)}</td><td>{escape(c.why)}</td>"
        f"<td>{escape(c.old)}</td><td>{escape(c.new)}</td></tr>"
        for c in report.changes
    )
    return (
        "<h2>Against the baseline</h2><table class='changes'><thead><tr><th>board</th><th>backend</th>"
        f"<th>what</th><th>before</th><th>now</th></tr></thead><tbody>{items}</tbody></table>"
    )


def plots_html(report: Report) -> str:
    from .bench_plots import cactus_figure, save_png, scatter_figure

    cactus = save_png(
        cactus_figure(report.rows, report.names, report.time_limit, "boards answered against time", report.vbs.times)
    )
    parts = [f"<div class='plots'>{png_tag(cactus, 'cactus plot')}</div>"]
    pairs = list(itertools.combinations(report.names, 2))
    scatters = [
        png_tag(save_png(scatter_figure(report.rows, x, y, report.time_limit)), f"{x} against {y}")
        for x, y in pairs[:MAX_SCATTERS]
    ]
    if scatters:
        note = f"<p>First {MAX_SCATTERS} of {len(pairs)} pairs.</p>" if len(pairs) > MAX_SCATTERS else ""
        parts.append(
            f"<h3>Backend against backend (log-log; unanswered runs on the limit line)</h3>{note}"
            f"<div class='plots'>{''.join(scatters)}</div>"
        )
    return "".join(parts)


def board_table(report: Report) -> str:
    """One row per board: its answer, then per backend its seconds coloured by grade; sortable."""
    by = {(r.file, r.board, r.backend): r for r in report.rows}
    heads = ["board", "answer", *report.names]
    out = [
        "<table id='boards' class='boards'><thead><tr>",
        *(f"<th data-col='{i}'>{escape(h)}</th>" for i, h in enumerate(heads)),
        "</tr></thead><tbody>",
    ]
    for (file, board), (_, verdict) in zip(board_keys(report.rows), report.verdicts, strict=False):
        cells = [f"<td title='{escape(file)}'>{escape(board)}</td>", f"<td>{escape(str(verdict.result.status))}</td>"]
        for name in report.names:
            row = by.get((file, board, name))
            if row is None:
                cells.append("<td data-v='1e99'>–</td>")
                continue
            answered = row.grade in (Grade.CORRECT, Grade.UNCONFIRMED)
            sort = row.result.seconds if answered else 1e9 + row.result.seconds
            tip = (
                f"{row.result.status} {row.reason}".strip() + f"; CPU {num(row.usage.cpu_seconds)} s; "
                f"memory {num(row.usage.memory_mb, 1)} MB"
            )
            text = f"{row.result.seconds:.3f}" if answered else ("memory" if row.out_of_memory else str(row.grade))
            cells.append(f"<td class='g-{row.grade}' data-v='{sort:.6f}' title='{escape(tip)}'>{escape(text)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


STYLE = """
.hardest{display:flex;flex-wrap:wrap;gap:12px}.hardest figure{margin:0;width:260px}
.hardest svg{width:260px;height:auto}.hardest figcaption{font-size:12px}
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
h3{font-size:15px;margin:18px 0 6px}.meta{color:#666;font-size:12px;margin:0}
table{border-collapse:collapse;margin:6px 0}th,td{padding:3px 7px;border-bottom:1px solid #eee;text-align:right}
td{white-space:nowrap}
th{background:#f4f4f4;position:sticky;top:0}
td.name,.boards td:first-child,.boards th:first-child{text-align:left;font-weight:600}
tr.vbs td{background:#eef5ff;font-style:italic}.bad{color:#b00020;font-weight:600}
.boards th{cursor:pointer;user-select:none}.boards th:hover{background:#e6e6e6}
.g-correct{color:#1b5e20}.g-unconfirmed{color:#8a6d00}.g-wrong{background:#ffd7dc;color:#b00020;font-weight:700}
.g-unknown{color:#888}.g-error{background:#fff0d9;color:#8a4b00}
.plots{display:flex;flex-wrap:wrap;gap:12px}.plots img{border:1px solid #eee;max-width:100%}
.legend span{margin-right:14px}.changes td,.changes th{text-align:left}
"""

SCRIPT = """
document.querySelectorAll('#boards th').forEach(function(th){th.addEventListener('click',function(){
 var col=+th.dataset.col,body=document.querySelector('#boards tbody'),rows=Array.from(body.rows);
 var up=th.dataset.dir!=='up';document.querySelectorAll('#boards th').forEach(function(h){delete h.dataset.dir});
 th.dataset.dir=up?'up':'down';
 rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col];var u=x.dataset.v,v=y.dataset.v;
  var c=(u!==undefined&&v!==undefined)?(+u)-(+v):x.textContent.localeCompare(y.textContent,undefined,{numeric:true});
  return up?c:-c;});
 rows.forEach(function(r){body.appendChild(r)});});});
"""


def render(report: Report, boards: Sequence[Board]) -> str:
    lookup = {b.name: b for b in boards}
    meta = "".join(f"<p class='meta'>{escape(line)}</p>" for line in report.header)
    legend = (
        "<p class='legend'><span class='g-correct'>correct</span><span class='g-unconfirmed'>unconfirmed"
        "</span><span class='g-wrong'>wrong</span><span class='g-unknown'>unknown</span><span class='g-error'>"
        "error</span> (seconds shown for answered runs; hover a cell for CPU and memory; click a heading "
        "to sort)</p>"
    )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(report.title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(report.title)}</h1>{meta}"
        "<h2>Summary</h2><p>PAR-2: mean seconds per board, an unanswered or unconfirmed run costing twice the "
        "time limit; one wrong answer disqualifies. Times in seconds over answered runs.</p>"
        f"{summary_table(report)}"
        f"<h2>Plots</h2>{plots_html(report)}{changes_html(report)}"
        f"<h2>The hardest boards</h2>{hardest_boards_html(hardest(report), lookup)}"
        f"<h2>Every board</h2>{legend}{board_table(report)}"
        f"<script>{SCRIPT}</script></body></html>"
    )


def write_html(path: str | Path, report: Report, boards: Sequence[Board]) -> None:
    write_file(path, render(report, boards))
