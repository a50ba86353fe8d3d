"""Chuffed through MiniZinc: ``minizinc:chuffed`` and the ``minizinc:gecode+chuffed`` plan.

Debian packages no Chuffed, so on this machine it comes from the WebAssembly
MiniZinc (npm's "minizinc", run by ``encoders/minizinc/minizinc_wasm.cjs``);
``install.sh`` installs it.  Every test here says why when it skips.  That MiniZinc is kept warm
(``encoders/minizinc/wasm.py``): one server per process runs every Chuffed run of it, so the tests
here also hold it to answering right run after run, to stopping a run at once, and to dying with
the process that started it.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from sigmar.models.boardfile import read_boards
from sigmar.models.deal import deal
from sigmar.models.result import Reason, Status
from sigmar.models.rules import verify
from tests.bruteforce import is_solvable
from tests.conftest import wait_for

if shutil.which("minizinc") is None or shutil.which("fzn-gecode") is None:
    pytest.skip("the minizinc executable or fzn-gecode is not on PATH", allow_module_level=True)
pytest.importorskip("minizinc", reason="the minizinc Python package is not installed")

from sigmar.encoders.minizinc.backend import MinizincBackend
from sigmar.encoders.minizinc.solvers import PLANS, WASM_RUNNER, from_wasm, installed_solvers
from tests.conftest import random_board
from tests.test_minizinc import PATIENT, _children

if "chuffed" not in installed_solvers():
    pytest.skip(
        "no Chuffed: neither the system's MiniZinc nor the WebAssembly one (run install.sh; needs node)",
        allow_module_level=True,
    )

# A dense side-6 deal that Gecode does not refute in 60 s (760,000 nodes) and Chuffed refutes in
# about 100 failures; the search backend needs 7,800 states.
GECODE_LOST = deal("dense", 6, 15, 51)


def test_the_webassembly_runner_behaves_as_a_minizinc_command_line(tmp_path) -> None:
    if "chuffed" not in from_wasm():
        pytest.skip("Chuffed comes from the system's MiniZinc here, not the WebAssembly one")
    version = subprocess.run([str(WASM_RUNNER), "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and "MiniZinc to FlatZinc converter" in version.stdout
    model = tmp_path / "tiny.mzn"
    model.write_text("var 1..3: x; constraint x * x = 4; solve satisfy;\n")
    solved = subprocess.run(
        [str(WASM_RUNNER), "--solver", "chuffed", str(model)], capture_output=True, text=True, timeout=60
    )
    assert solved.returncode == 0 and "x = 2;" in solved.stdout, solved
    missing = subprocess.run(
        [str(WASM_RUNNER), "--solver", "chuffed", str(tmp_path / "absent.mzn")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode != 0 and "absent.mzn" in missing.stdout + missing.stderr


@pytest.mark.parametrize("seed", [0, 2])  # 0 solvable, 2 unsolvable (each Chuffed run pays ~2 s of WebAssembly)
def test_chuffed_agrees_with_brute_force_on_random_boards(seed: int) -> None:
    rng = random.Random(900 + seed)
    board = random_board(rng, 3, 11, miscount=0.15, name=f"random #{seed}")
    expected = is_solvable(board)
    result = MinizincBackend("chuffed").solve(board, PATIENT)
    if expected:
        assert result.status is Status.SOLVED, result
        assert verify(board, result.moves).valid
    else:
        assert result.status is Status.UNSOLVABLE and result.reason in (Reason.COUNTS, Reason.PROOF), result


def test_gecode_then_chuffed_refutes_what_gecode_alone_cannot() -> None:
    result = MinizincBackend("gecode+chuffed").solve(GECODE_LOST, PATIENT)
    assert result.status is Status.UNSOLVABLE and result.reason is Reason.PROOF, result
    assert result.explanation.startswith("Chuffed exhausted"), result.explanation
    solvers = [run["solver"] for run in result.statistics["runs"]]
    assert solvers == [stage[0] for stage in PLANS["gecode+chuffed"]], solvers  # every Gecode search ran out first
    assert solvers[0] == "gecode" and solvers[-1] == "chuffed"
    gecode = MinizincBackend("gecode").solve(GECODE_LOST, 3)
    assert gecode.status is Status.UNKNOWN, gecode


def _warm() -> set[int]:
    """The processes of this process's warm servers (a guard and its Node each)."""
    from sigmar.encoders.minizinc.wasm import POOL

    return POOL.processes()


def _needs_the_server() -> None:
    if "chuffed" not in from_wasm():
        pytest.skip("Chuffed comes from the system's MiniZinc here, not the WebAssembly one")


# The hardest side-8 deal: no answer from Chuffed within minutes.
ENDLESS = deal("dense", 8, 1, 455)
ROOT = Path(__file__).resolve().parents[1]
SMALL = read_boards(ROOT / "instances" / "small.txt")


def small_boards() -> list:
    return list(SMALL)


def test_one_server_answers_board_after_board_right() -> None:
    """A solver leaves state behind it in the WebAssembly runtime (Chuffed once answered a third board
    without its solution): every board, in any order, gets the answer it gets alone, from one server."""
    _needs_the_server()
    backend = MinizincBackend("chuffed")
    boards = small_boards()
    for board in [*boards, *reversed(boards)]:
        expected = Status.SOLVED if board.name.endswith("[solvable]") else Status.UNSOLVABLE
        result = backend.solve(board, PATIENT)
        assert result.status is expected, f"{board.name}: {result}"
        if expected is Status.SOLVED:
            assert verify(board, result.moves).valid, board.name
    assert len(_warm()) == 2, "one server (a guard and its Node) served every run"


def test_stop_ends_a_chuffed_run_and_the_server_answers_the_next_board() -> None:
    _needs_the_server()
    backend = MinizincBackend("chuffed")
    backend.solve(small_boards()[0], PATIENT)  # the server is up
    server = _warm()
    stopper = threading.Thread(target=lambda: wait_for(_running, 300) and backend.stop())
    stopper.start()
    result = backend.solve(ENDLESS, PATIENT)
    stopper.join()
    assert result.status is Status.UNKNOWN and result.message == "stopped", result
    board = small_boards()[1]
    assert backend.solve(board, PATIENT).status is Status.SOLVED, board.name
    assert _warm() == server, "the stop ended the run, not the server"
    assert wait_for(lambda: _children() == [], 60), _children()


def test_a_time_limit_ends_a_chuffed_run_and_the_server_answers_the_next_board() -> None:
    _needs_the_server()
    backend = MinizincBackend("chuffed")
    backend.solve(small_boards()[0], PATIENT)  # the server is up
    server = _warm()
    result = backend.solve(ENDLESS, 2.0)
    assert result.status is Status.UNKNOWN and result.message == "time limit", result
    assert backend.solve(small_boards()[1], PATIENT).status is Status.SOLVED
    assert _warm() == server, "the time limit ended the run, not the server"


def test_the_server_dies_with_the_process_that_started_it() -> None:
    """However the owner ends (here SIGKILL, which runs no clean-up), no server outlives it."""
    _needs_the_server()
    import os
    import signal
    import sys

    script = (
        "import os, sys\n"
        "from sigmar.encoders.minizinc.backend import MinizincBackend\n"
        "from sigmar.encoders.minizinc.wasm import POOL\n"
        "from sigmar.models.boardfile import read_boards\n"
        f"board = read_boards({str(ROOT / 'instances' / 'small.txt')!r})[0]\n"
        "MinizincBackend('chuffed').solve(board, 600)\n"
        "print(' '.join(map(str, sorted(POOL.processes()))), flush=True)\n"
        "sys.stdin.read()\n"
    )
    owner = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert owner.stdout is not None
    served = [int(pid) for pid in owner.stdout.readline().split()]
    assert len(served) == 2, served
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait()
    assert wait_for(lambda: not any(_alive(pid) for pid in served), 60), "a server outlived its owner"


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _running() -> bool:
    """Whether a run of this process is on a server now."""
    from sigmar.encoders.minizinc.wasm import POOL

    return POOL.running()


def test_subs_name_chuffed_and_the_plan() -> None:
    subs = MinizincBackend.subs()
    assert subs[0] == "gecode" and "chuffed" in subs and "gecode+chuffed" in subs
    if "chuffed" in from_wasm():
        assert "Chuffed" in MinizincBackend.version()
