"""``--cluster`` on a cluster as users have one: a scheduler and two stock ``dask worker`` processes.

Each worker has its nanny, so its worker process is daemonic and may not start
``multiprocessing`` children; the race's workers and the cnf backend's solver
are such children, so every task runs in the worker thread's host process
(:class:`sigmar.encoders.processes.parent.Host`).  The module's cluster is stopped as a user
would stop it (SIGTERM), and nothing the tasks started may outlive it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sigmar.encoders.processes.guard import descendants
from sigmar.models.boardfile import read_boards
from sigmar.runners import cli
from sigmar.runners.bench import read_csv, this_machine
from sigmar.runners.statistics.record import read_record
from sigmar.runners.survey import verdict
from tests import loopback
from tests.conftest import alive, wait_for
from tests.loopback import loopback_cluster

pytest.importorskip("distributed", reason="--cluster needs dask.distributed")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def stock() -> Iterator[tuple[Any, set[int]]]:
    """The cluster, and the set into which the tests put every process their tasks started."""
    started: set[int] = set()
    with loopback_cluster(workers=2, nthreads=1) as cluster:
        yield cluster, started
        for worker in cluster.workers:  # nanny -> worker process -> guard -> host -> race workers
            started.update(descendants(worker.pid))
    deadline = time.monotonic() + 60
    while any(alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = sorted(pid for pid in started if alive(pid))
    assert not left, f"processes left behind by the cluster's tasks: {left}"


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_survey_on_stock_nanny_workers_answers_as_here_with_every_no_checked(
    stock: tuple[Any, set[int]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cluster, started = stock
    survey = ["survey", "--seed", "3", "--count", "10", "--time-limit", "30", "--json"]
    code = cli.main([*survey, "--results", str(tmp_path / "there.jsonl"), "--cluster", cluster.address])
    said = capsys.readouterr()
    assert code in (0, 1), said.err
    for worker in cluster.workers:
        started.update(descendants(worker.pid))
    assert any(len(descendants(worker.pid)) > 2 for worker in cluster.workers)  # hosts with race workers ran
    there = lines_of(tmp_path / "there.jsonl")
    assert sorted(r["index"] for r in there) == list(range(10))
    assert json.loads(said.out)["unknown"] == 0
    for record in there:
        if record["status"] == "unsolvable":
            assert record["checked"], record
    cli.main([*survey, "--results", str(tmp_path / "here.jsonl")])
    here = {r["index"]: verdict(r) for r in lines_of(tmp_path / "here.jsonl")}
    assert {r["index"]: verdict(r) for r in there} == here


def test_bench_on_stock_nanny_workers_runs_backends_that_start_processes(
    stock: tuple[Any, set[int]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sigmar.runners import bench

    def asked_here(name: str, sat_cmd: str | None) -> Any:
        raise AssertionError(f"{name}'s record made in the client: its solver's version is the workers' to say")

    monkeypatch.setattr(bench, "backend_record", asked_here)
    cluster, started = stock
    out = tmp_path / "bench.csv"
    boards = ROOT / "instances" / "small.txt"
    code = cli.main(
        ["bench", str(boards), "-b", "search,cnf:cadical195", "--time-limit", "30"]
        + ["--cluster", cluster.address, "--out", str(out)]
    )
    for worker in cluster.workers:
        started.update(descendants(worker.pid))
    assert code == 0
    header = [line for line in out.read_text().splitlines() if line.startswith("# ")]
    workers = [line for line in header if line.startswith("# workers: ")]
    assert workers == [f"# workers: 2 on {socket.gethostname()} ({this_machine()})"], header  # where it ran
    assert any(line.startswith("# client machine: ") for line in header), header
    recorded = {b.name: b for b in read_record(out).backends}  # made by a worker, with its solvers' versions
    assert set(recorded) == {"search", "cnf:cadical195"} and recorded["cnf:cadical195"].version, recorded
    rows = read_csv(out)
    assert {r["backend"] for r in rows} == {"search", "cnf:cadical195"}
    # every answer right: a solution or a certified "no" is correct; cnf:cadical195 logs no proof: its "no" is a claim
    right = [r["grade"] == "correct" or (r["certified"], r["grade"]) == ("no", "unconfirmed") for r in rows]
    assert rows and all(right), [(r["board"], r["backend"], r["grade"], r["message"]) for r in rows]
    assert {r["certified"] for r in rows if r["backend"] == "search" and r["status"] == "unsolvable"} == {"yes"}
    assert all(r["cpu_seconds"] and float(r["cpu_seconds"]) >= 0 for r in rows), "CPU time per run, as here"


def test_a_host_that_misses_its_timeout_is_stopped_with_its_tree() -> None:
    from sigmar.encoders.processes.parent import ChildTimeout, Host

    host = Host()
    try:
        assert host.call(os.getpid) == host.call(os.getpid)  # one process, kept across calls
        pid = host.call(os.getpid)
        with pytest.raises(ChildTimeout):
            host.call(time.sleep, 60, timeout=1)
        assert not host.alive()
        host.proc.wait(30)
        deadline = time.monotonic() + 30
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(pid)
    finally:
        host.close(kill=True)


def listening_addresses(pids: set[int]) -> list[str]:
    """The local addresses of the TCP sockets these processes listen on (from /proc: no psutil here)."""
    inodes = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    if target.startswith("socket:["):
                        inodes.add(target[8:-1])
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                    found.append(_address(fields[1].split(":")[0]))
    return found


def _address(hex_ip: str) -> str:
    raw = bytes.fromhex(hex_ip)
    if len(raw) == 4:
        return ".".join(str(b) for b in reversed(raw))
    words = [raw[i : i + 4][::-1] for i in range(0, 16, 4)]
    return ipaddress.IPv6Address(b"".join(words)).compressed


def test_the_documented_one_machine_cluster_listens_on_loopback_only(stock: tuple[Any, set[int]]) -> None:
    """docs/runners.md's commands (tests/loopback.py runs them): the scheduler, the workers, their nannies and
    dashboards listen on 127.0.0.1 and nowhere else."""
    cluster, _ = stock
    pids = {cluster.scheduler.pid} | {p for w in cluster.workers for p in {w.pid, *descendants(w.pid)}}
    addresses = listening_addresses(pids)
    assert addresses and set(addresses) <= {"127.0.0.1", "::1"}, addresses
    page = (ROOT / "docs" / "runners.md").read_text()
    starts = ("dask scheduler --host", "dask worker tcp://127", "dask worker --scheduler-file")
    commands = [line for line in page.splitlines() if line.startswith(starts)]
    # The one-machine pair, and the shared machine's pair (a free port, said in a scheduler file).
    assert len(commands) == 4 and all(" ".join(loopback.LOOPBACK) in line for line in commands), commands
    assert sum("--port 0 --scheduler-file" in line for line in commands) == 1, commands


def test_two_benches_at_once_on_one_cluster_each_get_their_own_answers(
    stock: tuple[Any, set[int]], tmp_path: Path
) -> None:
    """Task keys carry a token of their run: two clients submitting run 0, 1, ... never share a result."""
    from tests.broken_backend import BOARDS_TEXT

    cluster, started = stock
    tiny = tmp_path / "tiny.txt"
    tiny.write_text(BOARDS_TEXT)
    files = {"small": ROOT / "instances" / "small.txt", "tiny": tiny}
    command = [sys.executable, "-m", "sigmar.runners.cli", "bench", "-b", "search", "--time-limit", "30"]
    running = {
        name: subprocess.Popen(
            [*command, str(path), "--cluster", cluster.address, "--out", str(tmp_path / f"{name}.csv")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, path in files.items()
    }
    for name, proc in running.items():
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, (name, err)
    for worker in cluster.workers:
        started.update(descendants(worker.pid))
    for name, path in files.items():
        rows = read_csv(tmp_path / f"{name}.csv")
        assert sorted(r["board"] for r in rows) == sorted(b.name for b in read_boards(path))
        assert all(r["grade"] == "correct" for r in rows), (name, rows)


def test_a_survey_that_loses_its_scheduler_ends_in_one_line_and_keeps_its_answers(tmp_path: Path) -> None:
    """R11: the scheduler killed mid-survey: exit 2 with one line (no FutureCancelledError traceback)."""
    results = tmp_path / "survey.jsonl"
    with loopback_cluster(workers=1) as cluster:
        command = [sys.executable, "-m", "sigmar.runners.cli", "survey", "--count", "500", "-b", "search"]
        proc = subprocess.Popen(
            [*command, "--results", str(results), "--cluster", cluster.address, "--json"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert wait_for(lambda: results.exists() and results.stat().st_size > 0, 120)
            cluster.scheduler.kill()
            _, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    said = [line for line in err.splitlines() if line.startswith("sigmar ")]
    assert proc.returncode == 2 and "Traceback" not in err and len(said) == 1, err[-2000:]
    lines = results.read_text().splitlines(keepends=True)
    assert lines and all(line.endswith("\n") and json.loads(line)["index"] >= 0 for line in lines)


@pytest.mark.parametrize("verb", ["survey", "bench"])
def test_a_worker_killed_mid_board_loses_no_board_and_answers_none_twice(
    verb: str, stock: tuple[Any, set[int]], tmp_path: Path
) -> None:
    """Issue 48: a Dask worker process killed (SIGKILL) while it answers a board: its nanny starts a new one,
    the scheduler gives the board to a worker again, and the survey writes every board exactly once; the
    bench (its own tasks, one a board with the board's runs) has every run of every board once, none lost."""
    from distributed import Client

    from sigmar.models.boardfile import format_boards
    from sigmar.runners.survey import Deals

    cluster, started = stock
    results = tmp_path / f"killed.{'jsonl' if verb == 'survey' else 'csv'}"
    command = [sys.executable, "-m", "sigmar.runners.cli", verb]
    if verb == "survey":
        command += ["--dim", "8", "--count", "6", "--seed", "2", "--results", str(results), "--json"]
    else:  # the same six deals, in a file
        deals = Deals("dense", 8, 2, 6)
        boards = tmp_path / "deals.txt"
        boards.write_text(format_boards([deals.board(i) for i in range(6)]))
        command += [str(boards), "-o", str(results), "--quiet"]
    command += ["-b", "cnf", "--time-limit", "60", "--cluster", cluster.address]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = None
    try:
        with Client(cluster.address, timeout="30s") as client:
            deadline = time.monotonic() + 300
            mark = f"sigmar-{verb}"
            while killed is None and time.monotonic() < deadline and run.poll() is None:
                busy = [w for w, keys in client.processing().items() if any(mark in str(k) for k in keys)]
                if not busy:
                    time.sleep(0.05)
                    continue
                time.sleep(0.3)  # well into its board (a side-8 deal takes cnf a second or more)
                if busy[0] not in [w for w, keys in client.processing().items() if keys]:
                    continue
                pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                started.update(descendants(pid))
                os.kill(pid, signal.SIGKILL)
                killed = pid
        out, err = run.communicate(timeout=900)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert killed is not None, "no board was seen at work on a worker"
    assert run.returncode in (0, 1), err
    if verb == "survey":
        indices = [json.loads(line)["index"] for line in results.read_text().splitlines()]
        assert sorted(indices) == list(range(6)), indices  # every board, and none twice
        assert json.loads(out)["boards"] == 6, out
    else:
        rows = read_csv(results)
        assert sorted(r["board"] for r in rows) == sorted(b.name for b in read_boards(boards)), rows  # once each
        # none lost: a run whose task died with the worker would be an error ("cluster task failed", a crash)
        assert all(r["status"] != "error" for r in rows), [(r["board"], r["status"], r["message"]) for r in rows]


def test_an_answer_lost_with_its_worker_before_it_was_fetched_is_computed_again(stock: tuple[Any, set[int]]) -> None:
    """A worker killed after its board's task ended, before the client fetched the answer it held: Dask marks the
    future lost and runs the task again for the client that holds it.  The bench takes the answer then, once each,
    where it ended in "cluster task lost" (exit 2: a kill test of the bench caught it, in a gate at load 8)."""
    from distributed import Client

    from sigmar.runners.bench import plan
    from sigmar.runners.cluster import run_cluster
    from sigmar.runners.survey import Deals

    cluster, started = stock
    deals = Deals("dense", 8, 2, 4)  # cnf takes a second or more on each: a task run again is lost that long
    runs = plan([("deals", [deals.board(i) for i in range(4)])], ["cnf"])
    with Client(cluster.address, timeout="30s") as client:
        answers = run_cluster(runs, 60.0, client)
        taken = [next(answers)]  # every board's task is submitted, one answer taken
        deadline = time.monotonic() + 300
        held: dict[str, list[str]] = {}
        while time.monotonic() < deadline:  # every task ended, its answer in its worker's memory
            held = {w: [k for k in keys if "sigmar-bench" in str(k)] for w, keys in client.has_what().items()}
            if sum(map(len, held.values())) == len(runs):
                break
            time.sleep(0.05)
        first = f"-{taken[0][0].board_index}"  # the task whose answer was taken: its key's end
        victim = next(w for w in held if any(not k.endswith(first) for k in held[w]))
        pid = client.run(os.getpid, workers=[victim])[victim]
        started.update(descendants(pid))
        os.kill(pid, signal.SIGKILL)

        def lost() -> bool:  # an answer not taken yet, lost with the worker (a second or more, till run again)
            return any(f.status == "lost" for k, f in client.futures.items() if not str(k).endswith(first))

        while time.monotonic() < deadline and not lost():
            time.sleep(0.01)
        assert lost(), "no answer was lost"
        taken += list(answers)
    assert sorted(run.index for run, _, _ in taken) == [run.index for run in runs]  # each once, none lost
    assert all(answer.status.value in ("solved", "unsolvable") for _, answer, _ in taken), taken


def test_a_survey_on_the_cluster_leaves_which_backends_all_races_to_the_workers(
    stock: tuple[Any, set[int]], tmp_path: Path
) -> None:
    """Issue 48: asked in the client, ``all``'s built-ins each import their solver (OR-Tools, python-sat, MiniZinc
    with its solver list: 0.4 s of CPU, a fifth of a 60-board survey on the cluster) for a race that runs on the
    workers; there they are optional, the unavailable ones dropped where they are not installed."""
    cluster, started = stock
    report = (
        "import sys\nfrom sigmar.runners.cli import main\ncode = main(sys.argv[1:])\n"
        "print('MODULES=' + ' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    command = [sys.executable, "-c", report, "survey", "--count", "4", "--seed", "5", "--time-limit", "60", "--json"]
    run = subprocess.run([*command, "--cluster", cluster.address], capture_output=True, text=True, timeout=600)
    for worker in cluster.workers:
        started.update(descendants(worker.pid))
    assert run.returncode in (0, 1), run.stderr
    assert json.loads(run.stdout)["boards"] == 4, run.stdout
    imported = next(x for x in run.stderr.splitlines() if x.startswith("MODULES=")).split("=", 1)[1].split()
    assert not {"ortools", "pysat", "minizinc"} & set(imported), imported


def test_fuzz_of_all_on_the_cluster_leaves_which_backends_to_the_workers(
    stock: tuple[Any, set[int]], tmp_path: Path
) -> None:
    """As survey's: ``fuzz --cluster -b all`` asks no built-in here whether it is available (each would import
    its solver in the client); the hosts grade those their machine has."""
    cluster, started = stock
    report = (
        "import sys\nfrom sigmar.runners.cli import main\ncode = main(sys.argv[1:])\n"
        "print('MODULES=' + ' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    command = [sys.executable, "-c", report, "fuzz", "-b", "all", "--count", "2", "--seed", "1", "--json", "-q"]
    command += ["--out", str(tmp_path / "failures")]
    run = subprocess.run([*command, "--cluster", cluster.address], capture_output=True, text=True, timeout=600)
    for worker in cluster.workers:
        started.update(descendants(worker.pid))
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(records) == 2 and all("search" in r["answers"] and not r["failures"] for r in records), records
    imported = next(x for x in run.stderr.splitlines() if x.startswith("MODULES=")).split("=", 1)[1].split()
    assert not {"ortools", "pysat", "minizinc"} & set(imported), imported


def test_bench_of_all_on_the_cluster_leaves_which_backends_to_the_workers(
    stock: tuple[Any, set[int]], tmp_path: Path
) -> None:
    """As survey's and fuzz's: ``bench --cluster -b all`` asks no built-in here whether it is available (each would
    import its solver in the client); a worker says which it has, and those are the runs, rows and record."""
    from sigmar.encoders import registry

    cluster, started = stock
    boards = tmp_path / "pair.txt"
    boards.write_text("# pair\na . .\n . . . .\n  . . a . .\n   . . . .\n    . . .\n")
    report = (
        "import sys\nfrom sigmar.runners.cli import main\ncode = main(sys.argv[1:])\n"
        "print('MODULES=' + ' '.join(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    out = tmp_path / "bench.csv"
    command = [sys.executable, "-c", report, "bench", str(boards), "-b", "all", "--time-limit", "30", "-q"]
    run = subprocess.run(
        [*command, "--out", str(out), "--cluster", cluster.address], capture_output=True, text=True, timeout=600
    )
    for worker in cluster.workers:
        started.update(descendants(worker.pid))
    assert run.returncode == 0, run.stderr
    imported = next(x for x in run.stderr.splitlines() if x.startswith("MODULES=")).split("=", 1)[1].split()
    assert not {"ortools", "pysat", "minizinc"} & set(imported), imported
    here = registry.expand("all")  # the loopback workers are this machine: they have what it has
    assert [b.name for b in read_record(out).backends] == here
    rows = read_csv(out)
    assert sorted(r["backend"] for r in rows) == sorted(here) and all(r["status"] == "solved" for r in rows), rows


def test_cluster_takes_the_scheduler_file_of_a_free_port(stock: tuple[Any, set[int]], tmp_path: Path) -> None:
    """On a shared machine the scheduler takes a free port (``--port 0``) and writes where in its
    ``--scheduler-file``: ``--cluster FILE`` reads it there; a file that is not one is exit 2, in one line."""
    from sigmar.runners.cli.options import UsageError, dask_client

    cluster, _ = stock
    assert cluster.scheduler_file is not None
    client = dask_client(str(cluster.scheduler_file))
    try:
        assert client.scheduler.address == cluster.address
    finally:
        client.close()
    broken = tmp_path / "scheduler.json"
    broken.write_text("{}")
    with pytest.raises(UsageError, match="without an address"):
        dask_client(str(broken))
