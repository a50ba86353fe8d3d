"""``sigmar survey``: counts, the Wilson interval, resumable results (a real SIGKILL) and a Dask LocalCluster
(tests/test_cluster.py has the stock ``dask worker`` processes)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from sigmar.runners import cli
from sigmar.runners.survey import Deals, ResultsError, Tally, read_results, verdict, wilson

SURVEY = [sys.executable, "-m", "sigmar.runners.cli", "survey", "-b", "search", "--time-limit", "20"]


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_wilson_matches_the_closed_form_values() -> None:
    low, high = wilson(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    low, high = wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    low, high = wilson(68, 300)
    assert (round(low, 4), round(high, 4)) == (0.1829, 0.2773)  # by hand: centre 0.2301, half-width 0.0472
    assert wilson(0, 0) == (0.0, 1.0)  # nothing answered: nothing known


def test_only_checked_answers_count() -> None:
    assert verdict({"status": "solved", "verified": True}) == "solved"
    assert verdict({"status": "solved", "verified": False}) == "unknown"
    assert verdict({"status": "unsolvable", "checked": True}) == "unsolvable"
    assert verdict({"status": "unsolvable", "reason": "corroborated", "checked": False}) == "unknown"
    assert verdict({"status": "error"}) == "unknown"
    tally = Tally()
    for record in (
        {"status": "solved", "verified": True},
        {"status": "unsolvable", "checked": True},
        {"status": "unknown"},
    ):
        tally.add(record)
    assert (tally.solved, tally.unsolvable, tally.unknown, tally.answered) == (1, 1, 1, 2)
    assert tally.fraction() == 0.5  # over the answered boards only: too narrow when some are unknown


def test_the_solvable_fraction_is_bounded_over_every_board_unknown_ones_included() -> None:
    tally = Tally(solved=20, unsolvable=70, unknown=10)
    (low, low_a, low_b), (high, high_a, high_b) = tally.bounds() or ((), ())
    assert (low, high) == (0.2, 0.3)  # every unknown board unsolvable, or every one solvable
    assert (low_a, low_b) == wilson(20, 100) and (high_a, high_b) == wilson(30, 100)
    assert low_a < low < low_b and high_a < high < high_b
    summary = tally.summary()
    assert summary["solvable_at_least"] == 0.2 and summary["solvable_at_most"] == 0.3
    assert summary["solvable_at_most_wilson95"] == list(wilson(30, 100))
    from sigmar.runners.cli.survey import fraction_text

    assert fraction_text(tally) == "solvable 20.0% [13.3, 28.9] to 30.0% [21.9, 39.6], 10 unknown"
    assert fraction_text(Tally(solved=2, unsolvable=3)) == "solvable 40.0% [11.8, 76.9]"
    assert Tally().bounds() is None and fraction_text(Tally()) == "solvable -"


DEALS = Deals("dense", 6, 1, 10)


def test_a_torn_last_line_is_cut_and_that_board_dealt_again(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    whole = json.dumps(DEALS.tags(0) | {"status": "solved", "verified": True}) + "\n"
    path.write_text(whole + '{"index": 1, "deal": "den')
    assert set(read_results(path, DEALS)) == {0}
    assert path.read_text() == whole


def test_a_damaged_line_before_the_end_or_another_survey_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("not json\n" + json.dumps(DEALS.tags(1)) + "\n")
    with pytest.raises(ResultsError, match="line 1"):
        read_results(path, DEALS)
    path.write_text(json.dumps(Deals("dense", 7, 1, 10).tags(0)) + "\n")
    with pytest.raises(ResultsError, match="side 7"):
        read_results(path, DEALS)


def test_survey_counts_every_board_once_and_a_rerun_adds_only_the_rest(tmp_path: Path, capsys) -> None:
    results = tmp_path / "r.jsonl"
    args = ["survey", "-b", "search", "--seed", "3", "--results", str(results), "--json"]
    code = cli.main([*args, "--count", "6"])
    first = json.loads(capsys.readouterr().out)
    assert first["boards"] == 6 == first["solved"] + first["unsolvable"] + first["unknown"]
    assert code == (1 if first["unknown"] else 0)
    before = results.read_text()
    cli.main([*args, "--count", "9"])
    second = json.loads(capsys.readouterr().out)
    assert second["boards"] == 9
    assert results.read_text().startswith(before)  # nothing answered again
    records = lines_of(results)
    assert [r["index"] for r in records] == list(range(9))
    assert all(r["board"] == f"dense-6-s3-{r['index']}" for r in records)


def test_survey_refuses_a_results_file_of_another_survey(tmp_path: Path, capsys) -> None:
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps(Deals("uniform", 6, 3, 1).tags(0) | {"status": "unknown"}) + "\n")
    assert cli.main(["survey", "-b", "search", "--seed", "3", "--count", "2", "--results", str(results)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "uniform" in err[0] and str(results) in err[0]


def test_a_survey_killed_by_sigkill_resumes_without_losing_or_repeating_a_board(tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    env = os.environ | {"PYTHONUNBUFFERED": "1"}
    child = subprocess.Popen(
        [*SURVEY, "--seed", "4", "--count", "400", "--results", str(results)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not results.exists() or results.read_text().count("\n") < 4):
            time.sleep(0.05)
        assert child.poll() is None, "the survey ended before it could be killed"
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    written = results.read_text()
    kept = written[: written.rfind("\n") + 1]
    answered = len(kept.splitlines())
    assert 4 <= answered < 400
    with results.open("a") as out:  # as if the kill had come in the middle of a line
        out.write('{"index": 99999, "deal": "dense", "dim"')
    total = answered + 3
    rerun = subprocess.run(
        [*SURVEY, "--seed", "4", "--count", str(total), "--results", str(results)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert rerun.returncode in (0, 1), rerun.stderr
    assert results.read_text().startswith(kept)
    indices = [r["index"] for r in lines_of(results)]
    assert sorted(indices) == list(range(total)), "a board was lost or answered twice"
    assert f"{total}/{total}" in rerun.stderr  # the bar counts the boards of the first run too


def test_survey_on_a_local_cluster_of_nanny_workers_gives_the_local_answers(tmp_path: Path, capsys) -> None:
    distributed = pytest.importorskip("distributed", reason="--cluster needs dask.distributed")
    results = tmp_path / "cluster.jsonl"
    with distributed.LocalCluster(  # Dask's defaults: a nanny per worker, daemonic worker processes
        processes=True, n_workers=1, threads_per_worker=2, dashboard_address=":0", silence_logs=50
    ) as cluster:
        code = cli.main(
            ["survey", "-b", "search,cnf", "--seed", "5", "--count", "8", "--results", str(results), "--json"]
            + ["--cluster", cluster.scheduler_address]
        )
    on_cluster = json.loads(capsys.readouterr().out)
    assert code in (0, 1) and on_cluster["boards"] == 8
    records = lines_of(results)
    assert sorted(r["index"] for r in records) == list(range(8))
    local = tmp_path / "local.jsonl"
    cli.main(["survey", "-b", "search,cnf", "--seed", "5", "--count", "8", "--results", str(local), "--json"])
    capsys.readouterr()
    here = {r["index"]: verdict(r) for r in lines_of(local)}
    there = {r["index"]: verdict(r) for r in records}
    assert all(here[i] == there[i] for i in here if "unknown" not in (here[i], there[i])), (here, there)


def test_survey_help_names_the_spec_options(capsys) -> None:
    assert cli.main(["survey", "--help"]) == 0
    shown = capsys.readouterr().out
    for option in ("--deal", "--dim", "--count", "--seed", "--results", "--cluster", "Wilson"):
        assert option in shown, option
    assert "%%" not in shown


@pytest.mark.parametrize(
    ("extra", "says"),
    [(["--count", "-1"], "negative"), (["--cluster", "tcp://x:1", "--proof-dir", "pp"], "--proof-dir")],
)
def test_survey_bad_arguments_are_one_line_exit_2(
    extra: list[str], says: str, capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # --proof-dir makes its folder while the arguments are parsed
    assert cli.main(["survey", "-b", "search", *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0]
