"""Shared fixtures: where the bundled instances and the optional ../shared data live."""

from __future__ import annotations

from pathlib import Path

import pytest

from sigmar.models.board import Board
from sigmar.models.boardfile import parse_boards

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances"
SHARED = ROOT.parent / "shared"


@pytest.fixture
def shared_data() -> Path:
    """../shared/data, or a skip that says why."""
    data = SHARED / "data"
    if not data.is_dir():
        pytest.skip(f"{data} is absent: the public board set ships beside the project, not in it")
    return data


# -- the runner tests' tiny boards and fake backends (tests/broken_backend.py)


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
