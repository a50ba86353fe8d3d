"""The bench's statistics: the paired bootstrap, Wilcoxon, ratios, Kaplan–Meier, the pairwise score, repetitions,
the ranking of certified over claimed answers, and the busy-machine warning."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.models.result import Certificate, CertificateKind, Reason, Result, Status
from sigmar.runners import cli
from sigmar.runners.bench import Row, busy_warning, read_csv, summarise
from sigmar.runners.checking.grading import Grade
from sigmar.runners.render.bench_plots import kaplan_meier, observations
from sigmar.runners.statistics.cost import Usage
from sigmar.runners.statistics.paired import Ratio, bootstrap_interval, compare_pair, ratio_of, wilcoxon_p
from sigmar.runners.statistics.scores import pairwise_scores, percentile, representatives, spread

SAMPLE = [0.3, -0.1, 1.2, 0.8, 0.05, 2.4, -0.6, 0.9]  # per-board log ratios, made up


def brute_force_interval(values: list[float], seed: int, resamples: int) -> tuple[float, float]:
    """The same bootstrap written the slow, obvious way: one resample after another, means by hand."""
    rng = np.random.default_rng(seed)
    means = []
    for _ in range(resamples):
        drawn = [values[int(i)] for i in rng.integers(0, len(values), size=len(values))]
        means.append(sum(drawn) / len(drawn))
    means.sort()
    return percentile(means, 2.5), percentile(means, 97.5)


def test_the_bootstrap_is_the_brute_force_resampling_with_the_same_seed() -> None:
    # 2,500 resamples: the fast version draws them in blocks of 1,000, the slow one by one.
    for seed in (0, 7, 20260525):
        fast = bootstrap_interval(SAMPLE, seed=seed, resamples=2_500)
        slow = brute_force_interval(SAMPLE, seed, 2_500)
        assert fast == pytest.approx(slow, abs=1e-12), seed


def test_the_bootstrap_interval_is_near_the_exact_one_of_every_resample() -> None:
    """On five values every one of the 5**5 resamples can be listed: the exact bootstrap distribution."""
    values = [0.0, 0.1, 0.5, 1.0, 3.0]
    means = sorted(sum(values[i] for i in pick) / 5 for pick in itertools.product(range(5), repeat=5))
    exact = (percentile(means, 2.5), percentile(means, 97.5))
    low, high = bootstrap_interval(values, seed=3, resamples=20_000)
    assert low == pytest.approx(exact[0], abs=0.03) and high == pytest.approx(exact[1], abs=0.03)
    assert bootstrap_interval(values, seed=3, resamples=20_000) == (low, high)  # seeded: reproducible


def test_wilcoxon_p_values() -> None:
    assert wilcoxon_p([0.0, 0.0]) == 1.0  # no board differs: nothing to test
    # ten boards all faster one way: the exact two-sided p is 2 / 2**10
    assert wilcoxon_p([0.1 * k for k in range(1, 11)]) == pytest.approx(2 / 1024)
    assert wilcoxon_p([-0.1 * k for k in range(1, 11)]) == pytest.approx(2 / 1024)
    assert wilcoxon_p([0.3, -0.2, 0.1, -0.4, 0.25, -0.15]) > 0.5


def test_a_ratio_is_written_as_in_the_spec() -> None:
    assert Ratio(15.5, 9.9, 23.3, 0.001, 40).text() == "15.5× [9.9, 23.3]"
    assert Ratio(2.634, 1.9, 3.18, 0.01, 10).text() == "2.63× [1.90, 3.18]"
    assert Ratio(250.0, 120.4, 999.0, 0.01, 10).text() == "250× [120, 999]"
    assert not Ratio(1.04, 0.97, 1.12, 0.4, 40).clear and Ratio(1.5, 1.1, 2.0, 0.01, 40).clear
    assert not Ratio(23.0, 11.4, 46.3, 0.5, 2).clear  # two boards: the interval alone says little


def run(board: str, backend: str, seconds: float, grade: Grade = Grade.CORRECT, **kw: object) -> Row:
    status = Status.UNSOLVABLE if kw.pop("unsolvable", False) else Status.SOLVED
    if grade is Grade.UNKNOWN:
        status = Status.UNKNOWN
    checked = status is Status.UNSOLVABLE and grade is Grade.CORRECT
    certificate = Certificate(CertificateKind.STUCK) if checked else None
    result = Result(
        status,
        backend,
        seconds,
        reason=Reason.PROOF if status is Status.UNSOLVABLE else None,
        checked=checked,
        certificate=certificate,
        verified=status is Status.SOLVED,
    )
    return Row("f", board, backend, result, grade, **kw)  # type: ignore[arg-type]


def test_compare_pair_orders_the_faster_first_and_says_so() -> None:
    rows = []
    for k in range(12):
        rows += [run(f"b{k}", "slow", 0.5 * (k + 1)), run(f"b{k}", "fast", 0.05 * (k + 1))]
    rows.append(run("b99", "fast", 1.0, Grade.UNKNOWN))  # not answered by both: left out
    c = compare_pair(rows, "slow", "fast")
    assert (c.faster, c.slower, c.ratio.boards) == ("fast", "slow", 12)
    assert c.ratio.value == pytest.approx(10) and c.ratio.low == pytest.approx(10) == c.ratio.high
    assert c.sentence().startswith("fast is faster than slow on these boards: 10.0× [10.0, 10.0], Wilcoxon p = ")
    assert "over 12 boards" in c.sentence()
    assert compare_pair(rows[:1], "slow", "fast").ratio.boards == 0


def test_kaplan_meier_censors_runs_that_stopped_early() -> None:
    # no censoring: the empirical distribution, the usual cactus plot
    assert kaplan_meier([(1.0, True), (2.0, True), (3.0, True), (4.0, False)]) == [(1, 0.25), (2, 0.5), (3, 0.75)]
    # a run that gave up at 2 s leaves the risk set: the later answers count for more (by hand: 1/4, then 1 - 3/4 * 1/2)
    steps = kaplan_meier([(1.0, True), (2.0, False), (3.0, True), (4.0, True)])
    assert steps == [(1.0, 0.25), (3.0, pytest.approx(0.625)), (4.0, pytest.approx(1.0))]


def test_a_claim_is_censored_at_the_limit_and_an_early_unknown_at_its_time() -> None:
    rows = [
        run("b1", "x", 0.2),
        run("b2", "x", 0.3, Grade.UNCONFIRMED, unsolvable=True),
        run("b3", "x", 0.1, Grade.UNKNOWN),
    ]
    assert sorted(observations(rows, "x", 10.0)) == [(0.1, False), (0.2, True), (10.0, False)]


def test_pairwise_score_as_the_minizinc_challenge_counts_it() -> None:
    rows = [
        run("b1", "a", 1.0),
        run("b1", "b", 3.0),  # both correct: split by time, a takes 3/4
        run("b2", "a", 1.0),
        run("b2", "b", 0.1, Grade.UNCONFIRMED, unsolvable=True),  # correct beats a claim
        run("b3", "a", 1.0, Grade.UNKNOWN),
        run("b3", "b", 1.0, Grade.UNKNOWN),  # nothing to share
    ]
    scores = pairwise_scores(rows, ["a", "b"])
    assert scores["a"]["b"] == pytest.approx(0.75 + 1.0) and scores["b"]["a"] == pytest.approx(0.25)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(list(Grade)), st.floats(0, 5), st.sampled_from(list(Grade)), st.floats(0, 5)),
        min_size=1,
        max_size=8,
    )
)
def test_pairwise_points_of_a_board_add_up_to_one_or_nothing(boards: list[tuple[Grade, float, Grade, float]]) -> None:
    rows = []
    for k, (ga, ta, gb, tb) in enumerate(boards):
        rows += [run(f"b{k}", "a", ta, ga), run(f"b{k}", "b", tb, gb)]
    scores = pairwise_scores(rows, ["a", "b"])
    quality = {Grade.CORRECT: 2, Grade.UNCONFIRMED: 1, Grade.UNKNOWN: 0, Grade.ERROR: 0, Grade.WRONG: -1}
    shared = sum(quality[ga] != quality[gb] or quality[ga] > 0 for ga, _, gb, _ in boards)
    assert scores["a"]["b"] + scores["b"]["a"] == pytest.approx(shared)


def test_the_median_run_and_the_spread_of_repetitions() -> None:
    rows = [run("b1", "x", s, repeat=k) for k, s in enumerate((1.0, 10.0, 2.0), start=1)]
    rows.append(run("b2", "x", 5.0))
    (median, single) = representatives(rows)
    assert median.result.seconds == 2.0 and single.board == "b2"
    assert spread(rows) == pytest.approx((10 - 1) / 2)  # b2 has one run: no spread of its own
    assert math.isnan(spread(rows[-1:]))
    # an unknown among three runs: the median is the slower of the two answers
    mixed = [run("b1", "x", 1.0), run("b1", "x", 3.0), run("b1", "x", 9.0, Grade.UNKNOWN)]
    assert representatives(mixed)[0].result.seconds == 3.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0.001, 5), st.booleans()), min_size=1, max_size=10), st.floats(0, 1))
def test_a_backend_that_only_claims_is_never_ranked_above_one_that_certifies_in_the_same_time(
    boards: list[tuple[float, bool]], order: float
) -> None:
    """Two backends with the same times on the same boards; one certifies its "no" answers, the other claims them."""
    rows = []
    for k, (seconds, unsolvable) in enumerate(boards):
        claim = Grade.UNCONFIRMED if unsolvable else Grade.CORRECT
        rows.append(run(f"b{k}", "certifies", seconds, unsolvable=unsolvable, truth="unsolvable"))
        rows.append(run(f"b{k}", "claims", seconds, claim, unsolvable=unsolvable, truth="unsolvable"))
    names = ["claims", "certifies"] if order < 0.5 else ["certifies", "claims"]
    summaries = summarise(rows, names, time_limit=10)
    rank = {s.backend: s.rank for s in summaries}
    if any(unsolvable for _, unsolvable in boards):  # else the two are the same backend
        assert rank["certifies"] < rank["claims"]
    by = {s.backend: s for s in summaries}
    assert by["certifies"].claimed == 0 and by["claims"].certified == 0
    assert by["claims"].claimed == by["certifies"].certified == sum(u for _, u in boards)


def test_busy_warning_from_the_load_average_or_the_cpu_wall_ratio() -> None:
    usage = Usage(cpu_seconds=1.0)
    quiet = [Row("f", "b", "x", Result(Status.SOLVED, "x", 1.0), Grade.CORRECT, usage, load=0.5)]
    assert busy_warning(quiet, cpus=2) is None
    loaded = [Row("f", "b", "x", Result(Status.SOLVED, "x", 1.0), Grade.CORRECT, usage, load=3.2)]
    assert "load average up to 3.2 on 2 cores" in (busy_warning(loaded, cpus=2) or "")
    starved = [Row("f", "b", "x", Result(Status.SOLVED, "x", 2.0), Grade.CORRECT, usage, load=1.0)]
    assert "median CPU/wall 0.50" in (busy_warning(starved, cpus=2) or "")


def test_ratio_of_nothing_is_empty() -> None:
    empty = ratio_of([])
    assert empty.boards == 0 and math.isnan(empty.value) and empty.text() == "-"
    assert ratio_of([math.log(4)] * 6).text() == "4.00× [4.00, 4.00]"
    few = ratio_of([math.log(4)] * 3)  # below the floor: the counts, no interval, no test
    assert few.text() == "3 boards, too few" and math.isnan(few.low) and math.isnan(few.p_value) and not few.clear


# -- the command line ---------------------------------------------------------


def test_repeat_zero_and_a_family_per_file_are_checked_up_front(fakes, board_file: Path, capsys) -> None:
    assert cli.main(["bench", str(board_file), "-b", "honest", "--repeat", "0"]) == 2
    assert "--repeat" in capsys.readouterr().err
    assert cli.main(["bench", str(board_file), "-b", "honest", "--family", "a", "--family", "b"]) == 2
    assert "1 files but 2 names" in capsys.readouterr().err


def test_bench_repeat_writes_every_run_and_compares_every_pair(fakes, board_file: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "b.csv"
    second = tmp_path / "more.txt"
    second.write_text(board_file.read_text())
    argv = ["bench", str(board_file), str(second), "-b", "honest,honest:proof", "--repeat", "2", "--time-limit", "5"]
    assert cli.main([*argv, "--family", "first", "--family", "second", "--out", str(out)]) == 0
    rows = read_csv(out)
    assert len(rows) == 2 * 3 * 2 * 2  # files x boards x backends x repeats
    assert sorted({r["repeat"] for r in rows}) == ["1", "2"] and {r["family"] for r in rows} == {"first", "second"}
    assert all(r["load1"] for r in rows)
    printed = capsys.readouterr().out
    # 2 boards both answered correctly: below the floor, so the counts and no interval (issue 52)
    assert "2 boards both answered correctly, too few for an interval or a claim (at least 6)" in printed, printed
    assert "× [" not in printed and "Wilcoxon p = " not in printed, printed
    assert "pairwise score (MiniZinc Challenge)" in printed and "per family" in printed
    assert "repeat 2" in printed and "spread" in printed


def test_random_seeds_do_not_matter_for_the_report(fakes) -> None:
    """The bootstrap draws from its own seeded generator: Python's global random state changes nothing."""
    logs = [0.1, 0.4, -0.2, 0.9, 0.3]
    random.seed(1)
    first = ratio_of(logs)
    random.seed(2)
    np.random.seed(2)
    assert ratio_of(logs) == first
