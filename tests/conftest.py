"""Shared fixtures: where the bundled instances live, and the public boards read once."""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from sigmar.models.board import Board, Tile
from sigmar.models.boardfile import parse_boards, read_boards
from sigmar.models.hexgrid import cells

# A suite started in the background by a non-interactive shell (`nohup ... &`, some CI runners) inherits
# SIGINT ignored, and so would every `sigmar` the tests start: the tests that press Ctrl-C on a run would
# wait for an exit that never comes.  Python's own handler here makes the children start with the default.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances"
PUBLIC_SETS = ("hexmatch-easy.txt.xz", "hexmatch-hard.txt.xz", "ondrovo-2048.txt.xz")  # in instances/


@cache
def public_boards(name: str) -> list[Board]:
    """One of the public board sets that ship in instances/ (read once per test process: 10,000 boards take 2 s)."""
    return read_boards(INSTANCES / name)


# -- the mutants (tests/mutants), installed as a plugin package


@pytest.fixture(scope="module")
def mutant_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a sigmar that has the mutants installed as a plugin package (entry points)."""
    import sys

    mutants = Path(__file__).parent / "mutants"
    sys.path.insert(0, str(mutants))
    try:
        from register import register
    finally:
        sys.path.remove(str(mutants))
    paths = register(tmp_path_factory.mktemp("site"))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([*paths, os.environ.get("PYTHONPATH", "")])}


# -- the runner tests' tiny boards and fake backends (tests/broken_backend.py)


@pytest.fixture(autouse=True)
def no_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``COLUMNS`` from outside (pytest-xdist's workers had 80): every table a test reads is as into a pipe,
    whole lines; a test of a width sets it (tests/test_table_widths.py)."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake families, registered for one test."""
    from tests.broken_backend import register

    register(monkeypatch)


@pytest.fixture
def boards() -> dict[str, Board]:
    from tests.broken_backend import BOARDS_TEXT

    return {b.name: b for b in parse_boards(BOARDS_TEXT, "tiny")}


@pytest.fixture
def board_file(tmp_path: Path) -> Path:
    from tests.broken_backend import BOARDS_TEXT

    path = tmp_path / "tiny.txt"
    path.write_text(BOARDS_TEXT)
    return path


# -- Hypothesis: no deadline on an example

# Hypothesis fails an example that takes over 200 ms on the clock (its default deadline) as "unreliable test
# timings" when it reruns fast: a busy machine that pauses a test process mid-example fails a 1 ms example so
# (shown by pausing pytest 0.4 s every 0.5 s: test_benchlib's and test_search's given tests failed).  What the
# tests assert is their answers, not a speed; most set deadline=None already, this profile covers every one.
settings.register_profile("sigmar", deadline=None)
settings.load_profile("sigmar")


# -- the one Hypothesis board strategy


@st.composite
def small_boards(draw: st.DrawFn) -> Board:
    """The one Hypothesis board strategy: up to 12 tiles on a side of 2-4, metals and quicksilver included."""
    dim = draw(st.integers(2, 4))
    all_cells = list(cells(dim))
    rng = random.Random(draw(st.integers(0, 2**32)))
    rng.shuffle(all_cells)
    count = draw(st.integers(1, min(len(all_cells), 12)))
    pool = list("aaeeffwwssvvmm") + ["q", "q", "1", "2", "3"]
    rng.shuffle(pool)
    symbols = pool[:count]
    tiles = [Tile(c, s) for c, s in zip(all_cells, symbols, strict=False)]
    tiles.sort(key=lambda t: (t.cell[1], t.cell[0]))
    return Board(dim, tuple(tiles), "hypothesis")


# -- the one real-game board and the one random board of the tests

REAL_GAME = INSTANCES / "real-game.txt"  # boards read off screenshots of the game
# The first of them as text, for a test that writes its own board file.
REAL_GAME_TEXT = REAL_GAME.read_text(encoding="utf-8").split("\n\n")[0].partition("\n")[2].rstrip("\n") + "\n"
# The pairs a random board is made of: two of an element, salt with an element or with salt, vitae with mors.
PAIRS = ("aa", "ee", "ff", "ww", "sa", "se", "sf", "sw", "ss", "vm")


def real_game_board() -> Board:
    """The first board of instances/real-game.txt (55 tiles, side 6, solvable)."""
    return read_boards(REAL_GAME)[0]


def random_board(
    rng: random.Random, dim: int, tiles: int, *, metals: int = 3, miscount: float = 0.0, name: str = "random"
) -> Board:
    """The one random board of the tests: about ``tiles`` tiles (at most the side-``dim`` board's cells) whose
    counts pair up, of up to ``metals`` metals with one quicksilver fewer and random :data:`PAIRS`, at random
    cells; with probability ``miscount`` one tile is taken away, so the counts do not pair up."""
    spots = list(cells(dim))
    tiles = min(tiles, len(spots))
    chosen = sorted(rng.sample("123456789", rng.randint(0, min(metals, (tiles + 1) // 2))))
    symbols = [*chosen, *["q"] * max(len(chosen) - 1, 0)]
    while len(symbols) + 2 <= tiles:
        symbols += rng.choice(PAIRS)
    if len(symbols) > 1 and rng.random() < miscount:  # never the empty board
        symbols.pop(rng.randrange(len(symbols)))
    places = sorted(rng.sample(range(len(spots)), len(symbols)))
    rng.shuffle(symbols)
    return Board(dim, tuple(Tile(spots[i], s) for i, s in zip(places, symbols, strict=True)), name)


# -- waiting for an event, not for a fixed time


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :][:1] != b"Z"


def wait_for(condition: Callable[[], object], seconds: float = 10.0) -> bool:
    """True as soon as ``condition()`` holds; False if it still fails after ``seconds`` (a loaded machine is slow)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return bool(condition())


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one pytest-xdist worker more than cores.  Much of the suite waits on solver processes,
    signals and Node's start-up rather than computing, so a third worker keeps two cores busy (measured on
    2 cores: 135 s with 3 workers, 141-156 s with 2, 144 s with 4)."""
    return (os.cpu_count() or 1) + 1


# -- no skip on the suite's own import error

OWN_PACKAGES = ("sigmar", "tests")


def own_import_error(exc: BaseException | None) -> ImportError | None:
    """The ImportError of the suite's own code behind ``exc`` (a skip), if one is there.

    A missing solver package may skip a test (the skip says why); a module of ``sigmar`` or ``tests``
    that fails to import is a broken suite, and a skip would hide it.  An ImportError names the module
    it could not import (``exc.name``): one of ours, or one of ours that lacks a name it imports.
    """
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, ImportError) and (exc.name or "").split(".")[0] in OWN_PACKAGES:
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A test skipped because the suite's own code failed to import is reported as failed."""
    outcome = yield
    report = outcome.get_result()
    own = own_import_error(call.excinfo.value) if report.skipped and call.excinfo is not None else None
    if own is not None:
        report.outcome = "failed"
        report.longrepr = f"skipped on the suite's own import error, which is a failure: {type(own).__name__}: {own}"
