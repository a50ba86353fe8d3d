"""scripts/bench/side10_settled.py's report says which solver settled each board: CaDiCaL's answers under
``cnf`` read ``cnf:cadical153``, in results files written before answers were so named too."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from tests.script_loader import load_script

ROOT = Path(__file__).resolve().parents[1]


def _answer(index: int, status: str, backend: str, by: str | None, kind: str | None = None) -> dict[str, Any]:
    statistics = {"solver": "glucose42", "encode_seconds": 0.5, "solve_seconds": 2.0, "conflicts": 9000}
    if by:
        statistics["answered_by"] = by
    answer: dict[str, Any] = {
        "index": index,
        "board": f"dense-10-s1-{index}",
        "status": status,
        "backend": backend,
        "seconds": 3.0 + index,
        "statistics": statistics,
    }
    if status == "unsolvable":
        answer |= {"certificate": {"kind": kind}, "checked": True, "check_seconds": 1.0, "reason": "proof"}
    return answer


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.syspath_prepend(str(ROOT / "scripts" / "bench"))  # the scripts' shared helper, benchlib
    return load_script("side10_settled")


def test_the_settled_by_label_names_the_solver_that_answered(script) -> None:  # type: ignore[no-untyped-def]
    old_cadical = _answer(206, "unsolvable", "cnf:glucose42", "cadical153", "drup")  # written before the names
    new_cadical = _answer(257, "solved", "cnf:cadical153", "cadical153")
    glucose = _answer(9, "unsolvable", "cnf:glucose42", "glucose42", "drup")
    small = _answer(1, "unsolvable", "cnf:glucose42", None, "drup")  # a small formula: Glucose alone
    search = _answer(2, "unsolvable", "search", None, "stuck")
    assert script.settled_by(old_cadical) == "unsolvable: drup (cnf:cadical153)"
    assert script.settled_by(new_cadical) == "solved (cnf:cadical153)"
    assert script.settled_by(glucose) == "unsolvable: drup (cnf:glucose42)"
    assert script.settled_by(small) == "unsolvable: drup (cnf:glucose42)"
    assert script.settled_by(search) == "unsolvable: stuck (search)"


def test_the_report_tables_name_the_solver_that_answered(script) -> None:  # type: ignore[no-untyped-def]
    answers = [
        _answer(206, "unsolvable", "cnf:glucose42", "cadical153", "drup"),
        _answer(9, "unsolvable", "cnf:glucose42", "glucose42", "drup"),
        _answer(257, "solved", "cnf:cadical153", "cadical153"),
    ]
    args = argparse.Namespace(seed=1, time_limit=60.0, backend="all", cubes=None)
    record = {"survey_wall": 60.0, "loads": [(1.0, 1.0, 1.0)], "recheck_wall": 1.0, "recheck_exit": 0}
    text = script.report(args, answers, record, [])
    lines = text.splitlines()
    assert "| unsolvable: drup (cnf:cadical153) | 1 |" in lines
    assert "| solved (cnf:cadical153) | 1 |" in lines
    assert "| unsolvable: drup (cnf:glucose42) | 1 |" in lines
    proof_rows = [line for line in lines if line.startswith("| dense-10-s1-206 | 209.0 |")]
    assert proof_rows and proof_rows[0].split(" | ")[2] == "cnf:cadical153"
