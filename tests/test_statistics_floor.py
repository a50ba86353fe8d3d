"""Statistics with a floor (issue 52, item 2): below MIN_BOARDS boards only counts; the pairwise claims of a
bench corrected for multiplicity (Holm), cross-tested against scipy's Wilcoxon and statsmodels' Holm on the
same data; --baseline says when it is not like this bench (loads, time limit); a busy machine ranks by CPU
PAR-2 and says so; the --plot PNG draws the VBS line."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.models.result import Result, Status
from sigmar.runners import cli
from sigmar.runners.bench import busy_warning, read_csv, summarise
from sigmar.runners.checking.grading import Grade
from sigmar.runners.render.bench_tables import answers_table
from sigmar.runners.statistics.cost import Usage
from sigmar.runners.statistics.paired import (
    ALPHA,
    MIN_BOARDS,
    baseline_notes,
    holm,
    paired_comparisons,
    ratio_of,
)
from sigmar.runners.statistics.runs import Row
from sigmar.runners.statistics.scores import vbs

multitest = pytest.importorskip("statsmodels.stats.multitest", reason="statsmodels (dev extra) cross-tests Holm")


def row(board: int, backend: str, seconds: float, *, cpu: float | None = None, load: float = 0.5) -> Row:
    result = Result(Status.SOLVED, backend, seconds)
    return Row("f", f"b{board}", backend, result, Grade.CORRECT, Usage(cpu if cpu is not None else seconds), load=load)


@settings(deadline=None)  # statsmodels' first call took 263 ms in a gate at load 11 (the default is 200)
@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=30))
def test_holm_is_statsmodels_holm(p_values: list[float]) -> None:
    expected = multitest.multipletests(p_values, method="holm")[1]
    assert holm(p_values) == pytest.approx(list(expected), abs=1e-12)


def test_holm_leaves_the_untested_out() -> None:
    adjusted = holm([0.01, math.nan, 0.04])
    assert adjusted[0] == pytest.approx(0.02) and math.isnan(adjusted[1]) and adjusted[2] == pytest.approx(0.04)


def eight_backends(boards: int = 40, seed: int = 52) -> tuple[list[Row], list[str]]:
    """Eight backends on 40 boards: a per-board difficulty shared by all, each backend its own speed (some close
    to each other, some far apart) and noise, so some pairs differ clearly, some barely, some not at all."""
    rng = np.random.default_rng(seed)
    names = [f"b{k}" for k in range(8)]
    speed = [1.0, 1.05, 1.1, 1.3, 1.35, 2.0, 2.1, 4.0]
    hardness = rng.lognormal(0.0, 1.5, size=boards)
    rows = [
        row(i, name, float(0.01 * hardness[i] * speed[k] * rng.lognormal(0.0, 0.35)))
        for i in range(boards)
        for k, name in enumerate(names)
    ]
    return rows, names


def test_the_claims_over_8_backends_and_40_boards_are_the_corrected_tests(tmp_path: Path) -> None:
    """The target: the number of 'faster' claims at 5% equals what Holm's correction of scipy's Wilcoxon gives,
    and the uncorrected tests would have claimed more."""
    from scipy.stats import wilcoxon

    rows, names = eight_backends()
    comparisons = paired_comparisons(rows, names)
    assert len(comparisons) == 28
    times = {(r.board, r.backend): r.result.seconds for r in rows}
    boards = sorted({r.board for r in rows})
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    raw = [float(wilcoxon([math.log(times[x, b] / times[x, a]) for x in boards]).pvalue) for a, b in pairs]
    rejected = multitest.multipletests(raw, alpha=ALPHA, method="holm")[0]
    corrected = {frozenset(pair) for pair, yes in zip(pairs, rejected, strict=True) if yes}
    claimed = {frozenset((c.faster, c.slower)) for c in comparisons if c.ratio.clear}
    assert claimed == corrected, (sorted(map(sorted, claimed)), sorted(map(sorted, corrected)))
    uncorrected = sum(p < ALPHA for p in raw)
    assert 0 < len(claimed) < uncorrected, (len(claimed), uncorrected)  # the correction mattered here
    for c in comparisons:
        assert c.ratio.adjusted is not None and c.ratio.adjusted >= c.ratio.p_value
        assert ("is faster than" in c.sentence()) is c.ratio.clear


@pytest.mark.parametrize("boards", [1, 2, 3, 4, MIN_BOARDS - 1])
def test_below_the_floor_only_counts(boards: int) -> None:
    rows, names = eight_backends(boards)
    for c in paired_comparisons(rows, names[:3]):
        sentence = c.sentence()
        assert "too few for an interval or a claim" in sentence and "×" not in sentence, sentence
        assert "faster than" not in sentence and "[" not in sentence and not c.ratio.clear
        assert c.ratio.ahead + c.ratio.behind == boards
    assert "×" not in ratio_of([0.5] * boards).text()


def test_at_the_floor_an_interval_and_a_claim() -> None:
    assert MIN_BOARDS == 6  # the smallest n at which the exact two-sided Wilcoxon test can reach p < 0.05
    from scipy.stats import wilcoxon

    assert wilcoxon([0.1, 0.2, 0.3, 0.4, 0.5]).pvalue > 0.05 and wilcoxon([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]).pvalue < 0.05
    ratio = ratio_of([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    assert ratio.enough and ratio.clear and "× [" in ratio.text()


def test_on_four_boards_bench_prints_no_interval_and_no_faster(fakes, tmp_path: Path, capsys) -> None:
    from tests.broken_backend import BOARDS_TEXT

    path = tmp_path / "four.txt"
    first = BOARDS_TEXT.split("\n\n")[0]
    path.write_text("\n\n".join(first.replace("# pair", f"# pair {k}") for k in range(4)) + "\n")
    assert (
        cli.main(
            ["bench", str(path), "-b", "honest,honest:proof", "--time-limit", "10", "--html", str(tmp_path / "r.html")]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "4 boards both answered correctly, too few for an interval or a claim" in out, out
    assert "× [" not in out and "is faster than" not in out
    html = (tmp_path / "r.html").read_text()
    assert "too few for an interval or a claim" in html and "× [" not in html


# -- a busy machine: ranked by CPU-time PAR-2, and said so


def test_a_busy_machine_ranks_by_cpu_time_and_says_so() -> None:
    # fast on the wall but burning CPU (a parallel solver), against slow on the wall and frugal
    rows = [row(i, "wall", 1.0, cpu=8.0, load=9.0) for i in range(6)] + [
        row(i, "frugal", 2.0, cpu=1.5, load=9.0) for i in range(6)
    ]
    warning = busy_warning(rows, cpus=2)
    assert warning and "ranked by CPU-time PAR-2" in warning
    by_wall = summarise(rows, ["wall", "frugal"], 10)
    by_cpu = summarise(rows, ["wall", "frugal"], 10, by_cpu=True)
    assert [s.backend for s in by_wall] == ["wall", "frugal"] and [s.backend for s in by_cpu] == ["frugal", "wall"]
    table = answers_table(by_cpu, vbs(rows, ["wall", "frugal"], 10), None, by_cpu=True)
    assert "ranked by CPU-time PAR-2 (the machine was busy)" in str(table.title)


# -- --baseline: like with like


def old_rows(load: float, cpu: float = 1.0) -> list[dict[str, str]]:
    return [
        {"file": "f", "board": f"b{i}", "backend": "x", "status": "solved", "seconds": "1.0", "grade": "correct",
         "load1": str(load), "cpu_seconds": str(cpu)}
        for i in range(8)
    ]  # fmt: skip


def test_the_baseline_says_when_the_loads_differ_and_gives_the_cpu_time() -> None:
    now = [row(i, "x", 2.0, cpu=1.0, load=12.0) for i in range(8)]
    (note,) = baseline_notes(now, old_rows(load=1.0), 10)
    assert "the loads differ" in note and "1.0" in note and "12.0" in note and "x 1.00×" in note, note
    assert baseline_notes(now, old_rows(load=11.5), 10) == []  # alike: nothing to say


def test_bench_baseline_with_another_load_warns(fakes, board_file: Path, tmp_path: Path, capsys) -> None:
    old = tmp_path / "old.csv"
    argv = ["bench", str(board_file), "-b", "honest", "--time-limit", "10"]
    assert cli.main([*argv, "-o", str(old), "--quiet"]) == 0
    text = old.read_text()
    rows = read_csv(old)
    header = "".join(line + "\n" for line in text.splitlines() if line.startswith("#"))
    import csv
    import io

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    import os

    other = 0.0 if os.getloadavg()[0] > 10 else 40.0  # far from this machine's load now, whichever it is
    for r in rows:
        writer.writerow({**r, "load1": str(other)})  # as if the baseline had run on a machine at that load
    old.write_text(header + out.getvalue())
    assert cli.main([*argv, "--baseline", str(old)]) == 0
    printed = capsys.readouterr().out
    assert f"warning: the loads differ: the baseline ran at a median load average of {other:.1f}" in printed, printed


def test_bench_baseline_with_another_time_limit_warns(fakes, board_file: Path, tmp_path: Path, capsys) -> None:
    old = tmp_path / "old.csv"
    assert cli.main(["bench", str(board_file), "-b", "honest", "--time-limit", "10", "-o", str(old), "--quiet"]) == 0
    assert cli.main(["bench", str(board_file), "-b", "honest", "--time-limit", "20", "--baseline", str(old)]) == 0
    assert "the baseline ran with a time limit of 10 s, this bench 20 s" in capsys.readouterr().out


# -- the cactus plot of --plot


def test_the_plot_png_draws_the_vbs_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from sigmar.runners import bench
    from sigmar.runners.render import bench_plots

    drawn: list[object] = []
    real = bench_plots.save_png

    def keep(figure: object) -> bytes:
        drawn.append(figure)
        return real(figure)

    monkeypatch.setattr(bench_plots, "save_png", keep)
    rows, names = eight_backends(6)
    bench.cactus_plot(tmp_path / "c.png", rows, names[:2], 10, "t")
    (figure,) = drawn
    labels = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]  # type: ignore[attr-defined]
    assert any(label.startswith("VBS") for label in labels), labels
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"
