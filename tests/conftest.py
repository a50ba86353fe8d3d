"""Shared fixtures: where the bundled instances and the optional ../shared data live."""

from __future__ import annotations

from pathlib import Path

import pytest

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
