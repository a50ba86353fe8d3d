"""Chuffed through MiniZinc: ``minizinc:chuffed`` and the ``minizinc:gecode+chuffed`` plan.

Debian packages no Chuffed, so on this machine it comes from the WebAssembly
MiniZinc (npm's "minizinc", run by ``encoders/minizinc/minizinc_wasm.cjs``);
``install.sh`` installs it.  Every test here says why when it skips.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import threading
import time

import pytest

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
from tests.test_minizinc import _children

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
    result = MinizincBackend("chuffed").solve(board, 60)
    if expected:
        assert result.status is Status.SOLVED, result
        assert verify(board, result.moves).valid
    else:
        assert result.status is Status.UNSOLVABLE and result.reason in (Reason.COUNTS, Reason.PROOF), result


def test_gecode_then_chuffed_refutes_what_gecode_alone_cannot() -> None:
    result = MinizincBackend("gecode+chuffed").solve(GECODE_LOST, 60)
    assert result.status is Status.UNSOLVABLE and result.reason is Reason.PROOF, result
    assert result.explanation.startswith("Chuffed exhausted"), result.explanation
    solvers = [run["solver"] for run in result.statistics["runs"]]
    assert solvers == [stage[0] for stage in PLANS["gecode+chuffed"]], solvers  # every Gecode search ran out first
    assert solvers[0] == "gecode" and solvers[-1] == "chuffed"
    gecode = MinizincBackend("gecode").solve(GECODE_LOST, 3)
    assert gecode.status is Status.UNKNOWN, gecode


def test_stop_ends_a_chuffed_run_and_leaves_no_process_behind() -> None:
    backend = MinizincBackend("chuffed")
    board = deal("dense", 8, 1, 455)  # the hardest side-8 deal: no answer from Chuffed within seconds
    timer = threading.Timer(3.0, backend.stop)
    timer.start()
    start = time.perf_counter()
    result = backend.solve(board, 120)
    timer.join()
    assert result.status is Status.UNKNOWN and time.perf_counter() - start < 10, result
    assert wait_for(lambda: _children() == []), _children()


def test_subs_name_chuffed_and_the_plan() -> None:
    subs = MinizincBackend.subs()
    assert subs[0] == "gecode" and "chuffed" in subs and "gecode+chuffed" in subs
    if "chuffed" in from_wasm():
        assert "Chuffed" in MinizincBackend.version()
