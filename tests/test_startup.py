"""Start-up follows the work: a command imports only what it uses (issue 26, part 3).

Deterministic, not timed: each command runs in a fresh interpreter, which reports the
modules it ended up with.  The timings are in ``scripts/bench_startup.py``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Solver and plotting packages: each costs 15-300 ms to import (ortools pulls in pandas; cpmpy 0.4-0.9 s);
# rich's tables cost about 35 ms, a third of a one-board solve, so solve prints plain columns
# (render/columns.py).  pumpkin_solver costs about 1 ms, but a command that does not use it has no reason to.
HEAVY = (
    "numpy",
    "ortools",
    "pandas",
    "pysat",
    "minizinc",
    "dask",
    "distributed",
    "matplotlib",
    "rich",
    "cpmpy",
    "pumpkin_solver",
    "pychoco",
    "z3",
    "exact",
)
# The workbench's server library (`sigmar serve`) and the browser driver of its tests: never at start-up.
SERVER = ("starlette", "uvicorn", "anyio", "h11", "playwright")

REPORT = (
    "import json, sys\n"
    "from sigmar.runners.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "print('MODULES=' + json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def modules_after(*argv: str) -> tuple[int, set[str]]:
    """The exit status of ``sigmar ARGV`` and the top-level packages it imported."""
    run = subprocess.run([sys.executable, "-c", REPORT, *argv], capture_output=True, text=True, timeout=120)
    line = next((x for x in run.stderr.splitlines() if x.startswith("MODULES=")), None)
    assert line is not None, run.stderr
    return run.returncode, {name.split(".")[0] for name in json.loads(line.removeprefix("MODULES="))}


@pytest.fixture(scope="module")
def one_board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first board of hexmatch-hard-100: search answers it in milliseconds."""
    text = (ROOT / "instances" / "hexmatch-hard-100.txt").read_text()
    path = tmp_path_factory.mktemp("startup") / "one.txt"
    path.write_text(text.split("\n\n")[0] + "\n")
    return path


@pytest.mark.parametrize(
    "argv",
    [("--help",), ("solve", "--help"), ("solve", "-b", "search"), ("solve",)],
    ids=["help", "solve-help", "solve-search", "solve-race"],
)
def test_a_command_imports_no_solver_it_does_not_use(argv: tuple[str, ...], one_board: Path) -> None:
    args = [*argv[:1], str(one_board), *argv[1:]] if argv[0] == "solve" and "--help" not in argv else list(argv)
    code, imported = modules_after(*args)
    assert code == 0
    assert imported.isdisjoint(HEAVY + SERVER), f"imported {sorted(imported & set(HEAVY + SERVER))}"
    assert "sigmar" in imported


def test_backends_named_with_b_are_checked_at_the_start(tmp_path: Path) -> None:
    """The check above can fail: backends named with ``-b`` are made at the start (a bad name is exit 2),
    which imports their solvers."""
    path = tmp_path / "one.txt"
    path.write_text((ROOT / "instances" / "hexmatch-hard-100.txt").read_text().split("\n\n")[0] + "\n")
    code, imported = modules_after("solve", str(path), "-b", "search,cpsat,cnf")
    assert code == 0
    assert {"ortools", "pysat"} <= imported


def test_the_listing_of_help_is_each_subcommands_own_summary() -> None:
    """``sigmar --help`` lists the subcommands without importing them: the table must match the modules."""
    from sigmar.runners import cli

    parser = cli.build_parser()  # every module's own parser
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert {action.dest: action.help for action in sub._choices_actions} == cli.SUBCOMMANDS
    assert list(sub.choices) == list(cli.SUBCOMMANDS)
