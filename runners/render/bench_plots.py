"""The bench's pictures: the cactus plot (boards answered against time) and a log-log scatter of two backends.

Figures are returned, not shown, and turned into PNG bytes, so the same
picture goes to a file (``--plot``) or into the HTML report as a data URL.

The cactus plot is censoring-correct: a run that ended without an answer
(unknown, or an error) at some time says only that the answer, if any, would
have come later, as a patient lost to follow-up says in a survival study.
So each backend's curve is ``boards x (1 - S(t))`` with S the Kaplan–Meier
estimate (:func:`kaplan_meier`): the events are the correct answers, the
unknown and error runs are right-censored at their own time, and a claimed
"no" or a wrong answer (which will never become an answer) is censored at
the time limit.  When every unanswered run ran to the limit this is exactly
the usual count of boards answered.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sigmar.runners.statistics.runs import Row

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


def kaplan_meier(observations: Sequence[tuple[float, bool]]) -> list[tuple[float, float]]:
    """The Kaplan–Meier estimate of the fraction answered, ``1 - S(t)``, at each answer's time.

    ``observations``: (time, answered) per board; ``answered`` False is right-censored at
    that time.  At a time with both, the answers count first (the usual convention: a run
    censored at t was still at risk at t).
    """
    survival = 1.0
    at_risk = len(observations)
    steps: list[tuple[float, float]] = []
    ordered = sorted(observations, key=lambda o: (o[0], not o[1]))
    i = 0
    while i < len(ordered):
        t = ordered[i][0]
        events = censored = 0
        while i < len(ordered) and ordered[i][0] == t:
            events += ordered[i][1]
            censored += not ordered[i][1]
            i += 1
        if events:
            survival *= 1 - events / at_risk
            steps.append((t, 1 - survival))
        at_risk -= events + censored
    return steps


def observations(rows: Sequence[Row], name: str, time_limit: float | None) -> list[tuple[float, bool]]:
    """(time, answered) of one backend's median run on each board, censored as the module says."""
    from sigmar.runners.checking.grading import Grade
    from sigmar.runners.statistics.scores import representatives

    out = []
    for r in representatives(list(rows)):
        if r.backend != name:
            continue
        if r.grade is Grade.CORRECT:
            out.append((max(r.result.seconds, FLOOR), True))
        elif r.grade in (Grade.UNKNOWN, Grade.ERROR) or not time_limit:
            out.append((max(r.result.seconds, FLOOR), False))
        else:  # a claim or a wrong answer: no answer is coming
            out.append((time_limit, False))
    return out


def cactus_figure(
    rows: list[Row],
    names: list[str],
    time_limit: float | None,
    title: str,
    vbs_times: Sequence[float] | None = None,
) -> Any:
    """One step line per backend (and the VBS, dashed, when given): boards answered correctly against time,
    Kaplan–Meier corrected for runs that stopped early without an answer."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    boards = len({(r.file, r.board) for r in rows})
    lines = []
    for name in names:
        seen = observations(rows, name, time_limit)
        answered = sum(done for _, done in seen)
        lines.append((name, [(t, boards * f) for t, f in kaplan_meier(seen)], answered, "-"))
    if vbs_times is not None:  # drawn last, on top
        vbs = sorted(max(t, FLOOR) for t in vbs_times)
        lines.append(("VBS", [(t, float(k)) for k, t in enumerate(vbs, start=1)], len(vbs), "--"))
    for name, steps, answered, style in lines:
        if not steps:
            ax.plot([], [], label=f"{name} (0)")
            continue
        ax.step(
            [FLOOR, *(t for t, _ in steps)],
            [0, *(y for _, y in steps)],
            where="post",
            linestyle=style,
            color="black" if name == "VBS" else None,
            label=f"{name} ({answered})",
        )
    if time_limit:
        ax.axvline(time_limit, color="grey", linestyle=":", linewidth=1, label=f"time limit {time_limit:g} s")
    ax.set_xscale("log")
    ax.set_xlabel("time per board (s, log scale)")
    ax.set_ylabel(f"boards answered correctly (of {boards})")
    ax.text(
        0.01,
        0.98,
        "runs that stopped without an answer are censored (Kaplan–Meier)",
        transform=ax.transAxes,
        fontsize="x-small",
        color="grey",
        va="top",
    )
    ax.set_ylim(0, max(boards, 1) * 1.02)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    return fig


def scatter_figure(rows: list[Row], x: str, y: str, time_limit: float | None) -> Any:
    """Each board a point: ``x``'s seconds against ``y``'s, log-log; an unanswered run sits on the limit line."""
    from sigmar.runners.checking.grading import Grade
    from sigmar.runners.statistics.scores import representatives

    plt = _pyplot()
    ceiling = time_limit or max((r.result.seconds for r in rows), default=1.0)
    by: dict[tuple[str, str], dict[str, float]] = {}
    for r in representatives(rows):
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
