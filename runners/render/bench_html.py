"""``sigmar bench --html REPORT``: one self-contained page to send around.

Everything is inside the file (styles, a few lines of script to sort the
table, the plots as PNG data URLs), so it opens offline and survives being
mailed.  Sections: a warning when the machine was busy; the backends ranked,
with certified and claimed refutations apart, the scores by wall and CPU
time and on solvable and unsolvable boards, the VBS and each backend's
marginal contribution; the paired comparisons and the pairwise score; a
table per family; the changes against a baseline; the cactus plot
(Kaplan–Meier, unknown runs censored) and a scatter per pair of backends;
the hardest boards; and a per-board table sortable by any column, where a
claimed "no" reads ``claimed``.
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
from sigmar.models.result import Status
from sigmar.runners.checking.grading import BoardVerdict, Grade
from sigmar.runners.render.bench_tables import FAMILY_HEADS, family_rows
from sigmar.runners.statistics.paired import MIN_BOARDS, Change, PairedComparison, Ratio, speedup_sentence
from sigmar.runners.statistics.record import Record
from sigmar.runners.statistics.scores import Vbs, representatives

if TYPE_CHECKING:
    from sigmar.runners.statistics.runs import Row, Summary

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
    speedups: dict[str, Ratio] | None = None
    changes: list[Change] = field(default_factory=list)
    comparisons: list[PairedComparison] = field(default_factory=list)
    pairwise: dict[str, dict[str, float]] = field(default_factory=dict)
    warning: str | None = None  # the machine was busy (bench.busy_warning)
    repeat: int = 1
    record: Record | None = None  # what ran (runners/statistics/record.py)
    baseline_notes: list[str] = field(default_factory=list)  # where the baseline is not like this bench

    @property
    def by_cpu(self) -> bool:
        """Ranked by CPU-time PAR-2: the machine was busy (the warning says so)."""
        return self.warning is not None

    @property
    def families(self) -> list[str]:
        return list(dict.fromkeys(r.family for r in self.rows))

    @property
    def board_count(self) -> int:
        return len(board_keys(self.rows))


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
    from sigmar.runners.render.svg import board_svg

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


ANSWER_HEADS = (
    "rank",
    "backend",
    "boards",
    "solved",
    "unsolvable certified",
    "unsolvable claimed",
    "unknown",
    "error",
    "wrong",
    "PAR-2 (s)",
    "PAR-2 CPU (s)",
    "PAR-2 solvable",
    "PAR-2 unsolvable",
)
TIME_HEADS = ("backend", "median", "p90", "p99", "max", "CPU/wall", "memory median (MB)", "memory max (MB)")


def _row(cells: list[str]) -> str:
    return "<tr>" + "".join(cells) + "</tr>"


def _head(heads: list[str]) -> str:
    return "<table class='summary'><thead><tr>" + "".join(f"<th>{h}</th>" for h in heads) + "</tr></thead><tbody>"


def answers_rows(report: Report) -> list[str]:
    """The ranked table: counts (certified and claimed apart), the PAR-2 scores, the VBS."""
    rows = []
    for s in report.summaries:
        wrong = f"<td class='bad'>{s.wrong}</td>" if s.wrong else "<td>0</td>"
        claimed = f"<td class='g-unconfirmed'>{s.claimed}</td>" if s.claimed else "<td>0</td>"
        cells = [
            f"<td>{s.rank}</td>",
            f"<td class='name'>{escape(s.backend)}</td>",
            *(f"<td>{v}</td>" for v in (s.runs, s.solved)),
            f"<td class='g-correct'>{s.certified}</td>",
            claimed,
            f"<td>{s.unknown}</td>",
            f"<td>{s.error}{f' <small>({s.out_of_memory} mem)</small>' if s.out_of_memory else ''}</td>",
            wrong,
            *(f"<td>{num(v)}</td>" for v in (s.par2, s.par2_cpu, s.par2_solvable, s.par2_unsolvable)),
        ]
        if report.speedups is not None:
            speed = report.speedups.get(s.backend)
            cells.append(f"<td>{'–' if speed is None else escape(speed.text())}</td>")
        rows.append(_row(cells))
    v = report.vbs
    extra = 1 if report.speedups is not None else 0
    rows.append(
        f"<tr class='vbs'><td></td><td class='name'>VBS</td><td>{v.boards}</td><td>{v.solved - v.refuted}</td>"
        f"<td>{v.refuted}</td><td colspan='4'>{v.solved} boards answered correctly by some backend</td>"
        f"<td>{num(v.par2)}</td><td colspan='{3 + extra}'></td></tr>"
    )
    return rows


def times_rows(report: Report) -> list[str]:
    """Seconds over answered runs (each board's median run), the repetitions' spread, CPU/wall, memory."""
    rows = []
    for s in report.summaries:
        cells = [
            f"<td class='name'>{escape(s.backend)}</td>",
            *(f"<td>{num(v)}</td>" for v in (s.median, s.p90, s.p99, s.max)),
        ]
        if report.repeat > 1:
            cells.append(f"<td>{'–' if math.isnan(s.spread) else f'{100 * s.spread:.1f}%'}</td>")
        cells += [
            f"<td>{num(s.cpu_ratio, 2)}</td>",
            f"<td>{num(s.memory_median, 1)}</td>",
            f"<td>{num(s.memory_max, 1)}</td>",
        ]
        rows.append(_row(cells))
    times = sorted(report.vbs.times)
    median = times[len(times) // 2] if times else math.nan
    rest = 6 + (report.repeat > 1)
    rows.append(f"<tr class='vbs'><td class='name'>VBS</td><td>{num(median)}</td><td colspan='{rest}'></td></tr>")
    return rows


def summary_table(report: Report) -> str:
    answer_heads = [*ANSWER_HEADS, *(["speedup vs baseline"] if report.speedups is not None else [])]
    time_heads = list(TIME_HEADS)
    if report.repeat > 1:
        time_heads.insert(time_heads.index("CPU/wall"), "spread")
    out = [_head(answer_heads), *answers_rows(report), "</tbody></table>"]
    out += ["<h3>Times and resources</h3>", _head(time_heads), *times_rows(report), "</tbody></table>"]
    v = report.vbs
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


def comparisons_html(report: Report) -> str:
    """Every pair of backends: the ratio, its interval and p-value, and a sentence; then the pairwise score."""
    if not report.comparisons:
        return ""
    rows = "".join(
        f"<tr><td class='name'>{escape(c.faster)}</td><td class='name'>{escape(c.slower)}</td>"
        f"<td>{c.ratio.boards}</td><td>{escape(c.ratio.text()) if c.ratio.boards else '–'}</td>"
        f"<td>{'–' if math.isnan(c.ratio.p_value) else f'{c.ratio.p_value:.2g}'}</td>"
        f"<td>{'–' if c.ratio.adjusted is None or math.isnan(c.ratio.adjusted) else f'{c.ratio.adjusted:.2g}'}</td>"
        f"<td class='sentence'>{escape(c.sentence())}</td></tr>"
        for c in report.comparisons
    )
    names = list(report.pairwise)
    score_rows = "".join(
        f"<tr><td class='name'>{escape(a)}</td>"
        + "".join(f"<td>{'' if a == b else f'{report.pairwise[a][b]:.1f}'}</td>" for b in names)
        + f"<td><b>{sum(report.pairwise[a].values()):.1f}</b></td></tr>"
        for a in names
    )
    return (
        "<h2>Backend against backend</h2><p>Over the boards both answered correctly (each board's median run): "
        "the geometric mean of the slower's seconds over the faster's, its 95% paired-bootstrap interval "
        "(boards resampled, 10,000 times, fixed seed) and the Wilcoxon signed-rank p-value, then adjusted for "
        "the other pairs tested (Holm): a difference is clear when the adjusted p is below 0.05 and the interval "
        f"leaves 1 out. Below {MIN_BOARDS} boards a pair gets no interval and no claim, only its counts.</p>"
        "<table class='pairs'><thead><tr><th>faster</th><th>slower</th><th>boards</th><th>ratio [95%]</th>"
        f"<th>Wilcoxon p</th><th>Holm-adjusted p</th><th></th></tr></thead><tbody>{rows}</tbody></table>"
        f"<h3>Pairwise score (MiniZinc Challenge): points the row took from the column, of {report.board_count} "
        "boards</h3><p>On each board each pair shares one point: a correct answer beats a claim, which beats no "
        "answer, which beats a wrong one; two equal answers split it by time.</p>"
        "<table class='summary'><thead><tr><th>backend</th>"
        + "".join(f"<th>{escape(b)}</th>" for b in names)
        + f"<th>total</th></tr></thead><tbody>{score_rows}</tbody></table>"
    )


def families_html(report: Report) -> str:
    if len(report.families) < 2:
        return ""
    body = "".join(
        f"<tr><td class='name'>{escape(family)}</td><td class='name'>{escape(name)}</td>"
        + "".join(f"<td>{escape(c)}</td>" for c in cells)
        + "</tr>"
        for family, name, cells in family_rows(report.rows, report.names, report.time_limit)
    )
    heads = "".join(f"<th>{h.replace(chr(10), ' ')}</th>" for h in ("family", "backend", *FAMILY_HEADS))
    return f"<h2>Per family</h2><table class='summary'><thead><tr>{heads}</tr></thead><tbody>{body}</tbody></table>"


def changes_html(report: Report) -> str:
    if report.speedups is None:
        return ""
    sentences = "".join(f"<p>{escape(speedup_sentence(n, r))}</p>" for n, r in report.speedups.items())
    if not report.changes:
        return f"<h2>Against the baseline</h2>{sentences}<p>No board changed its answer or got more than 2× slower.</p>"
    items = "".join(
        f"<tr><td>{escape(c.board)}</td><td>{escape(c.backend)}</td><td>{escape(c.why)}</td>"
        f"<td>{escape(c.old)}</td><td>{escape(c.new)}</td></tr>"
        for c in report.changes
    )
    return (
        f"<h2>Against the baseline</h2>{sentences}<table class='changes'><thead><tr><th>board</th><th>backend</th>"
        f"<th>what</th><th>before</th><th>now</th></tr></thead><tbody>{items}</tbody></table>"
    )


def plots_html(report: Report) -> str:
    from sigmar.runners.render.bench_plots import cactus_figure, save_png, scatter_figure

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


def answer_text(verdict: BoardVerdict) -> str:
    """The board's answer, saying whether its "no" was certified or only claimed."""
    result = verdict.result
    if result.status is not Status.UNSOLVABLE:
        return str(result.status)
    if verdict.settled:
        kind = result.certificate.kind if result.certificate else result.reason
        return f"unsolvable, certified ({kind})"
    return f"unsolvable, claimed ({result.reason})"


def run_cell(row: Row, runs: list[Row]) -> str:
    """One backend on one board: its median run's seconds and what it said; a "no" says certified or claimed."""
    answered = row.grade in (Grade.CORRECT, Grade.UNCONFIRMED)
    sort = row.result.seconds if answered else 1e9 + row.result.seconds
    tip = (
        f"{row.result.status} {row.reason}".strip() + f"; CPU {num(row.usage.cpu_seconds)} s; "
        f"memory {num(row.usage.memory_mb, 1)} MB"
    )
    if answered:  # which solver answered: cnf:cadical153 where cnf handed a large formula to CaDiCaL
        tip += f"; answered by {row.result.backend}"
    if len(runs) > 1:
        tip += "; runs: " + ", ".join(f"{r.result.seconds:.3f} s ({r.grade})" for r in runs)
    text = f"{row.result.seconds:.3f}" if answered else ("memory" if row.out_of_memory else str(row.grade))
    if row.certified == "yes" and row.result.certificate is not None:
        text += f" {row.result.certificate.kind}"
    elif row.certified == "no":
        text += " claimed"
    certified = f" data-certified='{row.certified}'" if row.certified else ""
    return f"<td class='g-{row.grade}' data-v='{sort:.6f}'{certified} title='{escape(tip)}'>{escape(text)}</td>"


def board_table(report: Report) -> str:
    """One row per board: its answer, then per backend its (median run's) seconds coloured by grade; sortable."""
    by = {(r.file, r.board, r.backend): r for r in representatives(report.rows)}
    runs: dict[tuple[str, str, str], list[Row]] = {}
    for r in report.rows:
        runs.setdefault((r.file, r.board, r.backend), []).append(r)
    heads = ["board", "answer", *report.names]
    out = [
        "<table id='boards' class='boards'><thead><tr>",
        *(f"<th data-col='{i}'>{escape(h)}</th>" for i, h in enumerate(heads)),
        "</tr></thead><tbody>",
    ]
    for (file, board), (_, verdict) in zip(board_keys(report.rows), report.verdicts, strict=False):
        cells = [f"<td title='{escape(file)}'>{escape(board)}</td>", f"<td>{escape(answer_text(verdict))}</td>"]
        for name in report.names:
            row = by.get((file, board, name))
            if row is None:
                cells.append("<td data-v='1e99'>–</td>")
                continue
            cells.append(run_cell(row, runs[(file, board, name)]))
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
.warning{background:#fff4d6;border:1px solid #e0b84a;padding:8px 12px;font-weight:600}
.pairs td.sentence{text-align:left;white-space:normal;color:#444}
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


def record_html(record: Record | None) -> str:
    """How the bench was run: its command line and each backend's exact name, version and options (an
    external solver's command and own version among them), then the record itself for ``--rerun``."""
    if record is None:
        return ""
    rows = "".join(
        f"<tr><td>{escape(b.name)}</td><td>{escape(b.exact)}</td><td>{escape(b.version_text())}</td>"
        f"<td><code>{escape(b.options_text())}</code></td></tr>"
        for b in record.backends
    )
    files = "".join(
        f"<li><code>{escape(f.argument)}</code>: {len(f.boards)} boards, SHA-256 <code>{escape(f.sha256)}</code></li>"
        for f in record.files
    )
    return (
        "<h2>How this was run</h2>"
        f"<p>Command (in <code>{escape(record.cwd)}</code>, sigmar {escape(record.sigmar)}, started "
        f"{escape(record.started)}):</p><pre class='command'>{escape(record.command)}</pre>"
        f"<ul>{files}</ul><table class='record'><thead><tr><th>backend</th><th>exact name</th><th>version</th>"
        f"<th>options</th></tr></thead><tbody>{rows}</tbody></table>"
        "<p>Run it again: <code>sigmar bench --rerun THIS_REPORT.html</code>.</p>"
        f"{record.html_script()}"
    )


def render(report: Report, boards: Sequence[Board]) -> str:
    lookup = {b.name: b for b in boards}
    meta = "".join(f"<p class='meta'>{escape(line)}</p>" for line in report.header if not line.startswith("record: "))
    legend = (
        "<p class='legend'><span class='g-correct'>correct (a verified solution, or a certified 'no': its "
        "certificate kind is shown)</span><span class='g-unconfirmed'>unconfirmed (a claimed 'no')"
        "</span><span class='g-wrong'>wrong</span><span class='g-unknown'>unknown</span><span class='g-error'>"
        "error</span> (seconds shown for answered runs"
        + (", each board's median run" if report.repeat > 1 else "")
        + "; hover a cell for CPU and memory; click a heading to sort)</p>"
    )
    warning = "".join(f"<p class='warning'>{escape(w)}</p>" for w in [report.warning, *report.baseline_notes] if w)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(report.title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(report.title)}</h1>{meta}{warning}"
        "<h2>Summary</h2><p>Ranked: most correct answers first, then the lowest PAR-2"
        + (" by CPU time (the machine was busy: see the warning)" if report.by_cpu else "")
        + ". A 'no' is certified when "
        "its certificate was checked by code independent of the backend, and claimed otherwise; a claim is not a "
        "correct answer (BenchExec's correct-unconfirmed). PAR-2: mean seconds per board, an unanswered, claimed "
        "or unconfirmed run costing twice the time limit; one wrong answer disqualifies; by wall time, by CPU "
        "time, and over the boards a verified solution (solvable) or a checked certificate (unsolvable) settled. "
        "Times in seconds over answered runs"
        + (
            f", each board's median of {report.repeat} runs; spread: the median over boards of (max - min) / "
            "median of its runs."
            if report.repeat > 1
            else "."
        )
        + "</p>"
        f"{summary_table(report)}{comparisons_html(report)}{families_html(report)}"
        f"<h2>Plots</h2>{plots_html(report)}{changes_html(report)}"
        f"<h2>The hardest boards</h2>{hardest_boards_html(hardest(report), lookup)}"
        f"<h2>Every board</h2>{legend}{board_table(report)}{record_html(report.record)}"
        f"<script>{SCRIPT}</script></body></html>"
    )


def write_html(path: str | Path, report: Report, boards: Sequence[Board]) -> None:
    write_file(path, render(report, boards))
