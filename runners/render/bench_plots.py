"""The bench's pictures: the cactus plot (boards answered against time) and a log-log scatter of two backends.

Figures are returned, not shown, and turned into PNG bytes, so the same
picture goes to a file (``--plot``) or into the HTML report as a data URL.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..bench import Row

FLOOR = 1e-4  # seconds: where a 0 s answer sits on a log axis


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_png(fig: Any, dpi: int = 110) -> bytes:
    plt = _pyplot()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    plt.close(fig)
    return buffer.getvalue()


def cactus_figure(
    rows: list[Row],
    names: list[str],
    time_limit: float | None,
    title: str,
    vbs_times: Sequence[float] | None = None,
) -> Any:
    """One step line per backend (and the VBS, dashed, when given): the field's usual picture."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    lines = [
        (name, sorted(max(r.result.seconds, FLOOR) for r in rows if r.backend == name and r.answered), "-")
        for name in names
    ]
    if vbs_times is not None:
        lines.append(("VBS", sorted(max(t, FLOOR) for t in vbs_times), "--"))  # drawn last, on top
    for name, times, style in lines:
        if not times:
            ax.plot([], [], label=f"{name} (0)")
            continue
        ax.step(
            [FLOOR, *times],
            [0, *range(1, len(times) + 1)],
            where="post",
            linestyle=style,
            color="black" if name == "VBS" else None,
            label=f"{name} ({len(times)})",
        )
    if time_limit:
        ax.axvline(time_limit, color="grey", linestyle=":", linewidth=1, label=f"time limit {time_limit:g} s")
    boards = len({(r.file, r.board) for r in rows})
    ax.set_xscale("log")
    ax.set_xlabel("time per board (s, log scale)")
    ax.set_ylabel(f"boards answered (of {boards})")
    ax.set_ylim(0, max(boards, 1) * 1.02)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    return fig


def scatter_figure(rows: list[Row], x: str, y: str, time_limit: float | None) -> Any:
    """Each board a point: ``x``'s seconds against ``y``'s, log-log; an unanswered run sits on the limit line."""
    from ..checking.grading import Grade

    plt = _pyplot()
    ceiling = time_limit or max((r.result.seconds for r in rows), default=1.0)
    by: dict[tuple[str, str], dict[str, float]] = {}
    for r in rows:
        if r.backend in (x, y):
            seconds = r.result.seconds if r.grade is Grade.CORRECT else ceiling
            by.setdefault((r.file, r.board), {})[r.backend] = max(min(seconds, ceiling), FLOOR)
    pairs = [(v[x], v[y]) for v in by.values() if x in v and y in v]
    fig, ax = plt.subplots(figsize=(3.3, 3.3))
    if pairs:
        xs, ys = zip(*pairs, strict=True)
        faster_x = sum(a < b for a, b in pairs)
        ax.scatter(xs, ys, s=14, alpha=0.6, edgecolors="none")
        ax.set_title(f"{x} faster on {faster_x}, {y} on {sum(b < a for a, b in pairs)}", fontsize="small")
    low = max(FLOOR, min((min(pair) for pair in pairs), default=FLOOR) / 3)
    ax.plot([low, ceiling], [low, ceiling], color="grey", linewidth=0.8)
    for factor in (10, 0.1):
        ax.plot([low, ceiling], [low * factor, ceiling * factor], color="grey", linewidth=0.5, linestyle=":")
    ax.axvline(ceiling, color="red", linewidth=0.6, linestyle="--")
    ax.axhline(ceiling, color="red", linewidth=0.6, linestyle="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(low, ceiling * 1.5)
    ax.set_ylim(low, ceiling * 1.5)
    ax.set_xlabel(f"{x} (s)")
    ax.set_ylabel(f"{y} (s)")
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    return fig
