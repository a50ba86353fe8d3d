"""``sigmar backends``: it names each family's default, reads at 80 columns, and says when a default falls back.

The fallback is simulated by making Chuffed's availability checks fail (no WebAssembly
MiniZinc, no Chuffed in the system's MiniZinc), both in process and, through
``$SIGMAR_MINIZINC_JS``, in a fresh ``sigmar`` process.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest

from sigmar.encoders.cnf import DEFAULT_SOLVER
from sigmar.encoders.minizinc import solvers as mzn
from sigmar.encoders.minizinc.backend import MinizincBackend
from sigmar.encoders.registry import FamilyInfo, listing
from sigmar.runners.cli import main
from sigmar.runners.cli.backends import block

MINIZINC_READY = MinizincBackend.available()[0]


@pytest.fixture(scope="module")
def rows() -> list[FamilyInfo]:
    return listing()


def json_rows(capsys: pytest.CaptureFixture[str]) -> dict[str, dict]:
    assert main(["backends", "--json"]) == 0
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return {row["backend"]: row for row in found}


def test_json_names_each_family_default(capsys: pytest.CaptureFixture[str]) -> None:
    found = json_rows(capsys)
    assert found["cnf"]["default"] == f"cnf:{DEFAULT_SOLVER}"
    assert found["cpsat"]["available"] is False or found["cpsat"]["default"] == "cpsat:order"
    for row in found.values():
        if row["available"]:
            family, _, sub = row["default"].partition(":")
            assert family == row["backend"] and (not sub or sub in row["subs"]), row
        else:
            assert row["default"] == "" and row["why_not"], row


@pytest.mark.skipif(not MINIZINC_READY, reason="MiniZinc with a usable solver is not installed here")
def test_minizinc_default_is_the_portfolio_where_chuffed_runs(capsys: pytest.CaptureFixture[str]) -> None:
    row = json_rows(capsys)["minizinc"]
    if "chuffed" in mzn.installed_solvers():
        assert row["default"] == "minizinc:gecode+chuffed" and row["default_note"] == ""
    else:
        assert row["default"] == "minizinc:gecode" and "needs Chuffed, not installed here" in row["default_note"]


@pytest.mark.parametrize("width", [40, 80, 132])
def test_the_listing_fits_the_width_and_cuts_no_name(rows: list[FamilyInfo], width: int) -> None:
    for row in rows:
        text = block(row, width)
        assert "…" not in text
        for line in text.splitlines():
            # A line is longer only when one name alone is longer than the room beside the labels.
            assert len(line) <= width or " " not in line.strip().split("  ", 1)[-1].strip(), (width, line)
        words = set(re.split(r"[\s,]+", text))
        for sub in row.subs:
            assert f"{row.family}:{sub}" in words, (width, sub)
        if row.available:
            default_line = next(line for line in text.splitlines() if line.strip().startswith("default"))
            assert row.default in default_line.split()


def test_sigmar_backends_at_80_columns(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    found = json_rows(capsys)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["backends"]) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80 and "…" not in text
    words = set(re.split(r"[\s,()]+", text))
    for row in found.values():
        assert row["backend"] in words
        assert all(f"{row['backend']}:{sub}" in words for sub in row["subs"]), row
        if row["available"]:
            assert re.search(rf"^  default +{re.escape(row['default'])}(\s|$)", text, re.MULTILINE), row


def test_backends_help_speaks_of_families_not_boards() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sigmar.runners.cli", "backends", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "per backend family" in done.stdout and "per board" not in done.stdout


@pytest.fixture
def no_chuffed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Chuffed's availability checks fail: no WebAssembly MiniZinc, and none in the system's MiniZinc."""
    system = mzn._system_solvers
    monkeypatch.setattr(mzn, "wasm_version", lambda: None)
    monkeypatch.setattr(mzn, "_system_solvers", lambda: {k: v for k, v in system().items() if k != "chuffed"})
    mzn.from_wasm.cache_clear()
    yield
    mzn.from_wasm.cache_clear()


@pytest.mark.skipif(not MINIZINC_READY, reason="MiniZinc with a usable solver is not installed here")
def test_without_chuffed_the_default_falls_back_to_gecode_and_says_so(
    no_chuffed: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "chuffed" not in mzn.installed_solvers()
    assert mzn.default_plan() == "gecode"
    assert MinizincBackend().name == "minizinc:gecode"
    row = json_rows(capsys)["minizinc"]
    assert row["default"] == "minizinc:gecode" and "gecode+chuffed" not in row["subs"]
    assert "needs Chuffed, not installed here" in row["default_note"]
    assert main(["backends"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # the note wraps at the width
    assert "default minizinc:gecode (the best, gecode+chuffed, needs Chuffed, not installed here;" in text


@pytest.mark.skipif(not MINIZINC_READY, reason="MiniZinc with a usable solver is not installed here")
def test_a_fresh_sigmar_without_the_webassembly_minizinc_falls_back(tmp_path) -> None:
    if "chuffed" in mzn._system_solvers():
        pytest.skip("the system's MiniZinc has its own Chuffed: moving the WebAssembly one away changes nothing")
    env = {**os.environ, "SIGMAR_MINIZINC_JS": str(tmp_path / "absent"), "COLUMNS": "80"}
    done = subprocess.run(
        [sys.executable, "-m", "sigmar.runners.cli", "backends"], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("minizinc")
    default = next(line for line in lines[start:] if line.strip().startswith("default"))
    assert default.split()[1] == "minizinc:gecode"
    assert "needs Chuffed, not installed here" in " ".join(done.stdout.split())
    assert max(len(line) for line in lines) <= 80
