"""Faults are not answers (issue 47, S4): a board lost with the cluster is never written as its answer, and the
resume answers it, as an undisturbed run does."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.loopback import loopback_cluster

pytest.importorskip("distributed", reason="--cluster needs dask.distributed")

# cpsat's "no" is only a claim, so the race leaves each unsolvable deal unknown and a split into cubes settles it.
SURVEY = ["survey", "--seed", "1", "--count", "6", "-b", "cpsat", "--time-limit", "60", "--cubes", "4", "--json"]


def survey(results: Path, address: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "sigmar.runners.cli", *SURVEY, "--results", str(results), "--cluster", address]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def answers(results: Path) -> dict[int, dict[str, Any]]:
    lines = results.read_text().splitlines() if results.exists() else []
    return {record["index"]: record for record in map(json.loads, lines)}


def cube_tasks(address: str) -> bool:
    """Whether the scheduler holds a node of a split now."""
    from distributed import Client

    with Client(address, timeout="30s") as client:
        keys = client.run_on_scheduler(lambda dask_scheduler: [str(key) for key in dask_scheduler.tasks])
    return any("sigmar-cubes-" in key for key in keys)


def test_a_scheduler_killed_during_a_split_loses_the_board_and_the_resume_answers_it(tmp_path: Path) -> None:
    results, undisturbed = tmp_path / "survey.jsonl", tmp_path / "undisturbed.jsonl"
    argv = [sys.executable, "-m", "sigmar.runners.cli", *SURVEY, "--results", str(results)]
    with loopback_cluster(workers=2) as cluster:
        proc = subprocess.Popen([*argv, "--cluster", cluster.address], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 300
            while proc.poll() is None and time.monotonic() < deadline and not cube_tasks(cluster.address):
                time.sleep(0.05)
            assert proc.poll() is None, "the survey ended before any split reached the cluster"
            cluster.scheduler.kill()
            _, err_bytes = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    err = err_bytes.decode()
    said = [line for line in err.splitlines() if line.startswith("sigmar ")]
    assert proc.returncode == 2 and "Traceback" not in err and len(said) == 1, err[-2000:]
    before = answers(results)
    # on main, the board whose split was in flight was written as "error" ("the cluster task was cancelled")
    assert all(r["status"] in ("solved", "unsolvable") for r in before.values()), before
    with loopback_cluster(workers=2) as cluster:
        resumed = survey(results, cluster.address)
        assert resumed.returncode == 0, resumed.stderr[-2000:]
        assert survey(undisturbed, cluster.address).returncode == 0
    after, truth = answers(results), answers(undisturbed)
    assert sorted(after) == list(range(6)) and len(results.read_text().splitlines()) == 6
    assert {i: r["status"] for i, r in after.items()} == {i: r["status"] for i, r in truth.items()}
    assert all(r["status"] != "unsolvable" or r["checked"] for r in after.values())
    assert {i: before[i]["status"] for i in before} == {i: after[i]["status"] for i in before}  # kept, not redone


@pytest.mark.parametrize("verb", [["survey", "--count", "1"], ["prove", "-", "--cubes", "2"], ["fuzz", "--count", "1"]])
@pytest.mark.parametrize("address", ["", "  ", "tcp://"])
def test_an_empty_cluster_address_is_refused_never_run_here(
    verb: list[str], address: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 47: ``--cluster ''`` ran on this machine without a word; it is bad input (exit 2, one line)."""
    from sigmar.runners.cli import main

    code = main([*verb, "--cluster", address])
    err = capsys.readouterr().err
    assert code == 2 and "is not an address" in err and len(err.strip().splitlines()) == 1, err
