"""Every available backend against the hand-worked small boards and the real-game boards.

Parametrised over the registry (after CPMpy's solver-parametrised tests): an
unavailable backend is skipped with the registry's reason; every solution is
replayed by the rule engine; the failure message names the backend.
"""

from __future__ import annotations

import pytest

from sigmar.encoders.registry import family_names, info, make
from sigmar.models.boardfile import read_boards
from sigmar.models.result import Status
from sigmar.runners.checking.replay import run_replayed
from tests.conftest import INSTANCES, REAL_GAME

SMALL = read_boards(INSTANCES / "small.txt")
REAL = read_boards(REAL_GAME)


# The time limit of a solve whose answer a test asserts: far beyond what any backend needs on these boards
# (seconds on a quiet machine), so that the answer and not the machine's load decides (CI runs beside other
# work: at load 20 Chuffed's plan took 61 s on the real game); it only keeps a hung solve from hanging the suite.
PATIENT = 600.0


def backend_names() -> list[str]:
    """Every family's default, plus every sub-name it lists, so variants are covered too."""
    names = []
    for family in family_names():
        found = info(family)
        names.append(family)
        names.extend(f"{family}:{sub}" for sub in found.subs if sub != (found.cls.default_sub if found.cls else None))
    return names


def require(name: str) -> None:
    found = info(name.partition(":")[0])
    if not found.available:
        pytest.skip(f"backend {name} is not available here: {found.why_not}")


# One case per backend and board, so that pytest-xdist can share a slow backend's boards (Chuffed through
# WebAssembly takes 2-4 s a board) between its workers instead of running them one after another.
@pytest.mark.parametrize("index", range(len(SMALL)))
@pytest.mark.parametrize("name", backend_names())
def test_small_boards(name: str, index: int) -> None:
    require(name)
    backend = make(name)
    board = SMALL[index]
    expected = Status.SOLVED if board.name.endswith("[solvable]") else Status.UNSOLVABLE
    result = run_replayed(backend, board, PATIENT)
    assert result.status is expected, f"{name} on {board.name!r}: {result.status} {result.message}"
    if expected is Status.SOLVED:
        assert result.verified, f"{name} on {board.name!r}: solution not verified"
    else:
        assert result.reason is not None, f"{name} on {board.name!r}: unsolvable without a reason"


@pytest.mark.parametrize("name", [f for f in family_names()])
def test_real_game_boards(name: str) -> None:
    require(name)
    backend = make(name)
    for board in REAL:
        result = run_replayed(backend, board, PATIENT)
        assert result.status is Status.SOLVED and result.verified, f"{name} on {board.name!r}: {result}"


@pytest.mark.parametrize("name", [f for f in family_names()])
def test_stop_ends_one_solve_and_the_backend_answers_the_next_board(name: str) -> None:
    """The stop() contract: a stop during a solve ends it long before its 60 s limit; the instance stays usable."""
    import threading
    import time

    require(name)
    backend = make(name)
    big = read_boards(INSTANCES / "generated-dim8.txt")[0]
    stopped_at: list[float] = []

    def stop_soon() -> None:
        time.sleep(0.05)
        stopped_at.append(time.perf_counter())
        backend.stop()

    stopper = threading.Thread(target=stop_soon)
    stopper.start()
    first = backend.solve(big, PATIENT)
    ended = time.perf_counter()
    stopper.join()
    assert first.status in (Status.UNKNOWN, Status.SOLVED), f"{name}: {first}"
    assert ended - stopped_at[0] < 60.0, f"{name} took {ended - stopped_at[0]:.2f} s to stop"
    for board in REAL[:2]:  # then the same instance answers as if never stopped
        result = run_replayed(backend, board, PATIENT)
        assert result.status is Status.SOLVED and result.verified, f"{name} after a stop, on {board.name!r}: {result}"


@pytest.mark.parametrize("name", [f for f in family_names()])
def test_an_unknown_option_names_the_valid_ones(name: str) -> None:
    require(name)
    with pytest.raises(ValueError, match="has no option colour"):
        make(name, colour="blue")
