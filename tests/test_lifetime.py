"""Killing a run, or one of its workers, leaves no solver process and no temporary file (issue 18).

Each case starts ``sigmar solve`` with a tag in its environment (every process
it starts inherits it), waits until the solver binary runs, sends one signal to
the parent or to the worker, and then counts the tagged processes left and the
files left in the run's TMPDIR: both must be 0.  The waits are liveness bounds, not
timings: generous, since CI runs on a busy machine (at load 22 the KILL-worker-minizinc
case took 8.6 to 64 s alone, and failed in a full run at 14:58 with the old 60/15/5 s).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from sigmar.encoders.processes.lifetime import JANITOR
from tests.conftest import REAL_GAME_TEXT, wait_for

DATA = Path(__file__).parent / "data"
SIDE10 = DATA / "side10.txt"  # a solvable side-10 board that minizinc's steps model does not answer in 20 s
ONE_BOARD = REAL_GAME_TEXT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc, which only Linux has")


def tagged(tag: str) -> dict[int, tuple[int, str]]:
    """Live processes whose environment holds SIGMAR_TEST_TAG=tag: pid -> (ppid, command line)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            env = Path(f"/proc/{entry}/environ").read_bytes()
            if f"SIGMAR_TEST_TAG={tag}".encode() not in env.split(b"\0"):
                continue
            stat = Path(f"/proc/{entry}/stat").read_bytes()
            state, ppid = stat[stat.rfind(b")") + 2 :].split()[:2]
            if state == b"Z":
                continue
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        found[int(entry)] = (int(ppid), cmd)
    return found


def start(tmp_path: Path, args: list[str]) -> tuple[subprocess.Popen[bytes], str, Path]:
    tag = uuid.uuid4().hex
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "SIGMAR_TEST_TAG": tag, "TMPDIR": str(tmpdir)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sigmar.runners.cli", "solve", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return proc, tag, tmpdir


def workload(kind: str, tmp_path: Path) -> tuple[list[str], str]:
    """The solve arguments and a word of the solver's command line to wait for."""
    if kind == "minizinc":
        pytest.importorskip("minizinc", reason="the MiniZinc case needs the minizinc package")
        if not Path("/usr/bin/fzn-gecode").exists() and not any(
            (Path(d) / "fzn-gecode").exists() for d in os.environ.get("PATH", "").split(":")
        ):
            pytest.skip("the MiniZinc case needs fzn-gecode")
        # the run is killed once fzn-gecode runs; its limit only has to outlast MiniZinc's flattening of a
        # side-10 model, which took more than 60 s of clock at load 24 (the run ended before the solver started)
        return [str(SIDE10), "-b", "minizinc:gecode:steps", "--time-limit", "900"], "fzn-gecode"
    script = tmp_path / "hang.sh"
    script.write_text("#!/bin/sh\nsleep 100\n")
    script.chmod(0o755)
    board = tmp_path / "one.txt"
    board.write_text(ONE_BOARD)  # one board: the run ends with its worker
    return [str(board), "-b", "cnf:external", "--sat-cmd", str(script), "--time-limit", "60"], "sleep 100"


@pytest.mark.parametrize("kind", ["minizinc", "sat-cmd"])
@pytest.mark.parametrize("target", ["parent", "worker"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["INT", "TERM", "KILL"])
def test_killed_run_leaves_nothing(tmp_path: Path, kind: str, target: str, sig: signal.Signals) -> None:
    args, word = workload(kind, tmp_path)
    proc, tag, tmpdir = start(tmp_path, args)
    try:
        started = wait_for(lambda: proc.poll() is not None or any(word in cmd for _, cmd in tagged(tag).values()), 600)
        assert started and proc.poll() is None, f"{word} never started (the run's exit status: {proc.poll()})"
        if target == "parent":
            victim = proc.pid
        else:
            others = ("guard.py", JANITOR)  # an outside solver's guard, the run's janitor
            workers = [
                pid
                for pid, (ppid, cmd) in tagged(tag).items()
                if ppid == proc.pid and not any(other in cmd for other in others)
            ]
            assert len(workers) == 1, f"expected one worker, found {workers}"
            victim = workers[0]
        os.kill(victim, sig)
        proc.wait(60)
        assert wait_for(lambda: not tagged(tag), 30), f"left after {sig.name} to the {target}: {tagged(tag)}"
        assert wait_for(lambda: not any(tmpdir.rglob("*")), 30), f"files left: {sorted(tmpdir.rglob('*'))}"
        if target == "parent":
            expected = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGKILL: -9}[sig]
            assert proc.returncode == expected
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in tagged(tag):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("kind", ["minizinc", "sat-cmd", "sat-cmd-flood"])
def test_a_finished_run_leaves_no_temporary_file(tmp_path: Path, kind: str) -> None:
    """Every MiniZinc solve used to leave mzn_fragment*.mzn behind, and a killed external solver its folder."""
    board = tmp_path / "one.txt"
    board.write_text(ONE_BOARD)
    if kind == "minizinc":
        workload("minizinc", tmp_path)  # skips, with the reason, where MiniZinc is missing
        args = [str(board), "-b", "minizinc", "--time-limit", "30"]
    else:
        script = tmp_path / "solver.sh"
        body = "yes" if kind == "sat-cmd-flood" else "echo 's UNKNOWN'"
        script.write_text(f"#!/bin/sh\n{body}\n")
        script.chmod(0o755)
        args = [str(board), "-b", "cnf:external", "--sat-cmd", str(script), "--time-limit", "30"]
    proc, tag, tmpdir = start(tmp_path, args)
    assert proc.wait(60) in (0, 1)
    assert wait_for(lambda: not tagged(tag), 5), tagged(tag)
    assert not any(tmpdir.rglob("*")), sorted(tmpdir.rglob("*"))


def test_cadicals_child_process_dies_with_the_run(tmp_path: Path) -> None:
    """cnf:cadical195 solves in a forked child of the worker; a SIGKILL of the parent used to leave it running."""
    pytest.importorskip("pysat", reason="the CaDiCaL case needs python-sat")
    proc, tag, _ = start(tmp_path, [str(SIDE10), "-b", "cnf:cadical195", "--time-limit", "60"])
    try:

        def solver_children() -> list[int]:
            found = tagged(tag)
            workers = {pid for pid, (ppid, cmd) in found.items() if ppid == proc.pid and "guard.py" not in cmd}
            return [pid for pid, (ppid, _) in found.items() if ppid in workers]

        assert wait_for(solver_children, 60), "CaDiCaL's child never started"
        # Frozen, the child cannot finish its solve and exit by itself: if it is gone, the run's death ended it.
        for pid in solver_children():
            os.kill(pid, signal.SIGSTOP)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert wait_for(lambda: not tagged(tag), 10), f"left after SIGKILL to the parent: {tagged(tag)}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in tagged(tag):
            os.kill(pid, signal.SIGKILL)


def test_the_janitor_removes_the_folder_of_a_run_killed_outright(tmp_path: Path) -> None:
    """SIGKILL to a run that forked nothing: the kernel closes its end of the janitor's pipe, and the janitor
    (a shell, not the guard: every command pays for it) removes the folder, a file in it and all."""
    code = (
        "import os, sys, time\n"
        "from sigmar.encoders.processes.lifetime import run_lifetime\n"
        "with run_lifetime() as folder:\n"
        "    assert folder is not None and os.environ['TMPDIR'] == folder\n"
        "    os.mkdir(os.path.join(folder, 'inner'))\n"
        "    open(os.path.join(folder, 'inner', 'proof.drup'), 'w').close()\n"
        "    print(folder, flush=True)\n"
        "    time.sleep(60)\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        folder = Path(proc.stdout.readline().strip())
        assert folder.parent == tmp_path and (folder / "inner" / "proof.drup").exists()
        proc.kill()
        proc.wait(15)
        assert wait_for(lambda: not folder.exists(), 10), sorted(folder.rglob("*"))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_run_that_ends_leaves_no_janitor_and_no_folder(tmp_path: Path) -> None:
    code = (
        "import os\n"
        "from sigmar.encoders.processes.lifetime import run_lifetime\n"
        "with run_lifetime() as folder:\n"
        "    open(os.path.join(folder, 'a.cnf'), 'w').close()\n"
        "print(open(f'/proc/self/task/{os.getpid()}/children').read().strip() or 'none', flush=True)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "TMPDIR": str(tmp_path)}, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "none"  # the janitor was killed and reaped
    assert not any(tmp_path.iterdir())


LAZY_RUN = (
    "import os, sys, time\n"
    "from sigmar.encoders.processes.lifetime import guard_folder, run_lifetime\n"
    "def children():\n"
    "    return open(f'/proc/self/task/{os.getpid()}/children').read().split()\n"
    "with run_lifetime(lazy=True) as folder:\n"
    "    print(folder, len(children()), flush=True)\n"
    "    if sys.argv[1] == 'fork':\n"
    "        pid = os.fork()\n"
    "        if pid == 0:\n"
    "            time.sleep(60)\n"
    "            os._exit(0)\n"
    "        print(pid, flush=True)\n"
    "    else:\n"
    "        guard_folder()\n"
    "    open(os.path.join(folder, 'proof.drup'), 'w').close()\n"
    "    print(len(children()), flush=True)\n"
    "    time.sleep(60)\n"
)


@pytest.mark.parametrize("how", ["fork", "guard"])
def test_a_lazy_run_starts_its_janitor_before_it_forks_or_keeps_a_file(tmp_path: Path, how: str) -> None:
    """``run_lifetime(lazy=True)`` (a solve's): no janitor while the run only computes; one before its first fork
    (os.register_at_fork) or when it says it keeps a file (guard_folder), which then removes the folder of a
    run killed outright."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-c", LAZY_RUN, how], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        folder, before = proc.stdout.readline().split()
        assert before == "0"  # no janitor yet
        after = int(proc.stdout.readline())
        forked = int(after) if how == "fork" else None
        if forked is not None:
            after = int(proc.stdout.readline())
        assert after == (2 if how == "fork" else 1)  # the janitor (and the forked child)
        assert (Path(folder) / "proof.drup").exists()
        proc.kill()
        proc.wait(15)
        if forked is not None:  # a worker of the race dies with the run (its guard); this one is told to
            os.kill(forked, signal.SIGKILL)
        assert wait_for(lambda: not Path(folder).exists(), 10), sorted(Path(folder).rglob("*"))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_lazy_run_that_needed_no_janitor_leaves_no_folder(tmp_path: Path) -> None:
    code = (
        "import os\n"
        "from sigmar.encoders.processes.lifetime import run_lifetime\n"
        "with run_lifetime(lazy=True) as folder:\n"
        "    assert folder is not None and os.path.isdir(folder)\n"
        "print(open(f'/proc/self/task/{os.getpid()}/children').read().strip() or 'none', flush=True)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "TMPDIR": str(tmp_path)}, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "none"
    assert not any(tmp_path.iterdir())
