"""The ``cpmpy:SOLVER`` family: one CPMpy model (the order model) on every solver installed, the others listed
as missing with why.  (Every installed solver against the small and real-game boards: test_backends_agree.)"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sigmar.encoders import cpmpy as family
from sigmar.encoders import registry
from sigmar.encoders.backend import counts
from sigmar.encoders.order_model import build
from sigmar.encoders.processes.forked import Outcome
from sigmar.models.board import Board
from sigmar.models.boardfile import format_board, read_boards
from sigmar.models.counting import reference_count
from sigmar.models.fuzz_deal import fuzz_board
from sigmar.models.result import Status
from sigmar.runners.checking.replay import replayed
from sigmar.runners.cli import main
from tests.conftest import INSTANCES

SMALL = read_boards(INSTANCES / "small.txt")


def test_a_solver_whose_package_is_missing_is_listed_with_why(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = family.find_spec
    monkeypatch.setattr(family, "find_spec", lambda name: None if name == "pychoco" else real(name))
    if not family.installed():
        pytest.skip("no CPMpy solver is installed here")
    assert "choco" not in family.CpmpyBackend.subs()
    assert family.CpmpyBackend.missing_subs()["choco"] == "needs the Python package 'pychoco'"
    assert main(["backends", "--json"]) == 0
    (row,) = [r for r in map(json.loads, capsys.readouterr().out.splitlines()) if r["backend"] == "cpmpy"]
    assert row["missing"]["choco"] == "needs the Python package 'pychoco'"
    with pytest.raises(registry.UnknownBackend, match="no 'choco' here"):
        registry.make("cpmpy:choco")


def test_without_cpmpy_the_family_says_which_extra_installs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(family, "find_spec", lambda name: None)
    ok, why = family.CpmpyBackend.available()
    assert not ok and "sigmar[cpmpy]" in why
    assert family.CpmpyBackend.default() is None


def test_all_leaves_the_comparison_family_out_and_a_name_brings_it_in() -> None:
    assert "cpmpy" not in registry.expand("all", check=False)
    assert registry.expand("search,cpmpy:exact") == ["search", "cpmpy:exact"]


cpmpy = pytest.importorskip("cpmpy", reason="CPMpy is not installed (pip install 'sigmar[cpmpy]')")


def test_the_cpmpy_model_is_the_order_model() -> None:
    board = SMALL[11]
    model = build(board)
    cp_model, variables = family.cpmpy_model(model)
    assert [v.name for v in variables] == [v.name for v in model.variables]
    assert len(cp_model.constraints) == len(model.constraints)


@pytest.mark.parametrize("solver", family.installed())
def test_every_installed_solver_refutes_and_solves(solver: str) -> None:
    backend = registry.make(f"cpmpy:{solver}")
    refuted = backend.solve(SMALL[11], 60)
    assert refuted.status is Status.UNSOLVABLE and refuted.certificate is None, refuted  # a claim
    solved = replayed(SMALL[4], backend.solve(SMALL[4], 60))
    assert solved.status is Status.SOLVED and solved.verified, solved


def test_a_time_limit_ends_a_search_that_would_go_on(tmp_path: Path) -> None:
    if "choco" not in family.installed():
        pytest.skip("Choco (pychoco) is not installed: its default search is the one that runs long here")
    board = read_boards(INSTANCES / "real-game.txt")[0]
    answer = registry.make("cpmpy:choco").solve(board, 0.5)
    assert answer.status in (Status.UNKNOWN, Status.SOLVED), answer


def test_crosscheck_settles_a_board_by_pumpkin_and_leaves_the_cpmpy_claim_unconfirmed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    solver = family.installed()[0]
    file = tmp_path / "board.txt"
    file.write_text(format_board(SMALL[11]))
    assert main(["crosscheck", str(file), "-b", f"pumpkin,cpmpy:{solver}", "--json"]) == 0
    (record,) = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert record["status"] == "unsolvable" and record["checked"] is True, record
    assert record["grades"] == {"pumpkin": "correct", f"cpmpy:{solver}": "unconfirmed"}, record
    assert main(["crosscheck", str(file), "-b", f"cpmpy:{solver}", "--json"]) == 1  # a lone claim: no answer
    (alone,) = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert alone["grades"] == {f"cpmpy:{solver}": "unconfirmed"}, alone


def test_the_time_limit_counts_from_the_start_of_the_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    """What comes before the fork (the model's building here) is spent out of the limit: the child gets the rest."""
    solver = family.installed()[0]
    backend = registry.make(f"cpmpy:{solver}")
    from sigmar.encoders import order_backend as base  # the one solve both order-model families run

    slow_build = base.build

    def build_slowly(board: object) -> object:
        time.sleep(0.3)
        return slow_build(board)  # type: ignore[arg-type]

    given: list[float | None] = []

    def record(self: object, function: object, args: tuple, limit: float | None) -> Outcome:
        given.append(limit)
        return Outcome(timed_out=True)

    monkeypatch.setattr(base, "build", build_slowly)
    monkeypatch.setattr(base.Forked, "call", record)
    answer = backend.solve(SMALL[4], 5.0)
    assert answer.status is Status.UNKNOWN and answer.message == "time limit", answer
    (limit,) = given
    assert limit is not None and limit <= 5.0 - 0.3, limit


def test_making_the_backend_imports_cpmpy_so_that_its_workers_start_with_it() -> None:
    """The race makes each backend before it forks the workers: a fresh worker then pays no import."""
    solver = family.installed()[0]
    code = (
        "import sys; from sigmar.encoders import registry; assert 'cpmpy' not in sys.modules; "
        f"registry.make('cpmpy:{solver}'); print('cpmpy.solvers.utils' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr


# -- counts ---------------------------------------------------------------------


def small_deal(seed: int, index: int, variant: str) -> Board:
    """A fuzz deal of at most 8 tiles on a side of at most 3, either variant (``assume`` drops the others)."""
    board = fuzz_board(seed, index, 8, variant)
    assume(board.dim <= 3)
    return board


small_deals = st.builds(
    small_deal, st.integers(0, 10**6), st.integers(0, 10**4), st.sampled_from(["standard", "quintessence"])
)


@pytest.mark.parametrize("solver", family.installed())
def test_every_solver_counts_pairings_as_the_rule_engine_does(solver: str) -> None:
    """Each solver enumerates (Choco made afresh for each solution: its interface does not solve again)."""
    backend = registry.make(f"cpmpy:{solver}")
    assert counts(type(backend), "pairings") and not counts(type(backend), "sequences")

    @settings(max_examples=6, deadline=None)
    @given(small_deals)
    def agrees(board: Board) -> None:
        value, exact = backend.count(board, "pairings", 120.0)
        assert exact and value == reference_count(board, "pairings").value, board

    agrees()
    several = SMALL[3]  # salt with fire, salt with salt, vitae with mors: three pairings
    assert backend.count(several, "pairings", 120.0) == (reference_count(several, "pairings").value, True) == (3, True)
