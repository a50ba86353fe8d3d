"""Start-up follows the work: a command imports only what it uses (issue 26, part 3).

Deterministic, not timed: each command runs in a fresh interpreter, which reports the
modules it ended up with.  The timings are in ``scripts/bench/startup_time.py``.
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

REPORT = (  # json is imported after the list is taken: it imports re, which a plain solve does not
    "import sys\n"
    "from sigmar.runners.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "imported = sorted(sys.modules)\n"
    "import json\n"
    "print('MODULES=' + json.dumps(imported), file=sys.stderr)\n"
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


# What a one-board solve may import of sigmar (issue 48): the command line, the parser, the rules, the
# search, the replay and the output, and the race that runs them.  A module that joins this path is a cost
# every `sigmar solve` pays: add it here only when a solvable board needs it, else import it where it is
# used (the certificates and their checkers, for instance, only for an "unsolvable").
ONE_BOARD = frozenset(
    {
        "sigmar",
        # the command line
        "sigmar.runners",
        "sigmar.runners.cli",
        "sigmar.runners.cli.entry",
        "sigmar.runners.cli.solve",
        "sigmar.runners.cli.conventions",
        "sigmar.runners.cli.options",
        "sigmar.runners.cli.board_args",
        "sigmar.runners.cli.quick",  # the command line, read without argparse
        "sigmar.runners.cli.verbs",
        "sigmar.encoders.processes.lifetime",
        "sigmar.encoders.processes",
        "sigmar.encoders.processes.guard",
        # the parser and the rules
        "sigmar.models",
        "sigmar.models.board",
        "sigmar.models.boardfile",
        "sigmar.models.cached",
        "sigmar.models.counting",
        "sigmar.models.errors",
        "sigmar.models.hexgrid",
        "sigmar.models.input_limits",
        "sigmar.models.output_files",
        "sigmar.models.records",  # the hand-written records' bases, in place of dataclasses
        "sigmar.models.word_enums",  # the StrEnums made the quick way
        "sigmar.models.result",
        "sigmar.models.rules",
        "sigmar.models.stopped",  # the one "stopped" exception of the counts (a dozen lines)
        "sigmar.models.tiles",
        # the search
        "sigmar.encoders",
        "sigmar.encoders.backend",
        "sigmar.encoders.exports",
        "sigmar.encoders.registry",  # not plugins: a race of all looks for them when a board needs the others
        "sigmar.encoders.search",
        "sigmar.encoders.search.backend",
        "sigmar.encoders.search.engine",
        "sigmar.encoders.search.moves",
        "sigmar.encoders.search.pruning",
        "sigmar.encoders.search.state",
        "sigmar.models.bits",
        "sigmar.models.facts",
        "sigmar.models.stuck_sets",
        # the race, the replay and the grading of an answer
        "sigmar.runners.race",
        "sigmar.runners.checking",
        "sigmar.runners.checking.certify",
        "sigmar.runners.checking.count_grade",
        "sigmar.runners.checking.grading",
        "sigmar.runners.checking.intake",
        "sigmar.runners.checking.replay",
        "sigmar.runners.checking.trust",
        "sigmar.runners.statistics",
        "sigmar.runners.statistics.scores",
        # the output
        "sigmar.models.solution",
        "sigmar.runners.render",
        "sigmar.runners.render.answer_json",
        "sigmar.runners.render.columns",
    }
)
# Of the standard library, what a one-board solve has no use for and once imported: platform (for a version
# string), hashlib (a proof's file name), logging (Dask's loggers), shlex (--sat-cmd), traceback (a crash);
# subprocess, tempfile, shutil and ctypes (the run's janitor was a Python started by subprocess), pathlib (a
# path is made only where a file is written), textwrap (only a cell too wide for its column): 17-28 M
# instructions each, against the public solver's whole one-board solve of 142 M (docs/measured/public-solver.md);
# dataclasses (51 M with inspect, ast, dis and tokenize, and some 2.9 M for each class it makes: the records on
# the path are written by hand, models/records.py).
NOT_FOR_ONE_BOARD = (
    "dataclasses",
    "inspect",
    "ast",
    "dis",
    "tokenize",
    "platform",
    "hashlib",
    "logging",
    "shlex",
    "traceback",
    "subprocess",
    "tempfile",
    "shutil",
    "ctypes",
    "pathlib",
    "textwrap",
    # argparse, with the gettext it imports and the locale its first message imports: the command line of a
    # plain solve is read without it (runners/cli/quick.py); re too, but where JSON is written (json uses it)
    "argparse",
    "gettext",
    "locale",
)


# The race lets search lead alone on a first board: its partner joins after RacePolicy.PARTNER_DELAY (10 ms)
# of search's clock, the others after FIRST_HEAD_START (0.1 s), and the clock is never more than
# SEARCH_CLOCK_LAG (1 s) behind the wall clock.  On a busy machine (CI's) search may not get its few
# milliseconds of CPU in those times, and the run takes the workers' path, with its own imports: a fact of the
# load, not of the code.  A solve whose path is pinned here runs with delays no load outlasts (all three: with
# the head start alone pinned, the partner still joined at load 10), so the lists hold on any machine.
PATIENT = (
    "import sigmar.runners.race as race\n"
    "race.RacePolicy.FIRST_HEAD_START = race.RacePolicy.PARTNER_DELAY = race.SEARCH_CLOCK_LAG = 600.0\n"
)


def sigmar_modules_after(*argv: str, cwd: Path | None = None) -> tuple[int, set[str]]:
    """The exit status of ``sigmar ARGV`` (run in ``cwd``, search given a head start no load outlasts when it
    solves) and every module it imported."""
    report = PATIENT + REPORT if argv[:1] == ("solve",) else REPORT
    run = subprocess.run([sys.executable, "-c", report, *argv], capture_output=True, text=True, timeout=120, cwd=cwd)
    line = next((x for x in run.stderr.splitlines() if x.startswith("MODULES=")), None)
    assert line is not None, run.stderr
    return run.returncode, set(json.loads(line.removeprefix("MODULES=")))


@pytest.mark.parametrize("argv", [(), ("-b", "search"), ("--json",)], ids=["race", "search", "json"])
def test_a_one_board_solve_imports_only_what_it_uses(argv: tuple[str, ...], one_board: Path) -> None:
    # Run outside the checkout, as a user runs it: in it, `python -c` finds the checkout's own sigmar/ folder
    # first, whose __init__ then joins the installed subpackages to it with pkgutil (which imports re).
    code, imported = sigmar_modules_after("solve", str(one_board), *argv, cwd=one_board.parent)
    assert code == 0
    ours = {name for name in imported if name.split(".")[0] == "sigmar"}
    assert ours <= ONE_BOARD, f"a one-board solve imported {sorted(ours - ONE_BOARD)}"
    assert imported.isdisjoint(NOT_FOR_ONE_BOARD), f"imported {sorted(imported & set(NOT_FOR_ONE_BOARD))}"
    assert "--json" in argv or "re" not in imported


def test_sigmar_help_imports_no_module_of_sigmar_but_its_command_line() -> None:
    """``sigmar --help`` lists the commands from a table: the plugin API (``sigmar``'s own names) is
    imported on first use, so it costs the help nothing."""
    code, imported = sigmar_modules_after("--help")
    assert code == 0
    ours = {name for name in imported if name.split(".")[0] == "sigmar"}
    assert ours == {
        "sigmar",
        "sigmar.runners",
        "sigmar.runners.cli",
        "sigmar.runners.cli.entry",
        "sigmar.runners.cli.parsers",  # argparse's parsers: the help is argparse's
        "sigmar.runners.cli.verbs",
    }


def test_an_unsolvable_board_imports_the_certificate_checks(tmp_path: Path) -> None:
    """The list above can fail: a board the search refutes brings its certificate and the checkers in."""
    blocks = (ROOT / "instances" / "small.txt").read_text().split("\n\n")
    refuted = next(b for b in blocks if "[unsolvable: search]" in b)
    path = tmp_path / "refuted.txt"
    path.write_text(refuted.strip() + "\n")
    code, imported = sigmar_modules_after("solve", str(path), "-b", "search")
    assert code == 0
    assert {"sigmar.encoders.search.certificates", "sigmar.runners.checking.certificates"} <= imported
    assert not {name for name in imported if name.startswith("sigmar.")} <= ONE_BOARD


# The console script's run, reporting what the collector did: whether it collected before the verb ran (the
# command line read, the verb's modules imported), and whether it was on, with the start-up frozen out of its
# sight, while the verb ran.
COLLECTOR = (
    "import gc, sys\n"
    "from sigmar.runners.cli import entry\n"
    "seen = {}\n"
    "parse = entry.parse\n"
    "def parse_and_watch(argv):\n"
    "    args = parse(argv)\n"
    "    verb = args.run\n"
    "    def run(args):\n"
    "        seen.update(on=gc.isenabled(), frozen=gc.get_freeze_count(), before=gc.get_stats()[0]['collections'])\n"
    "        return verb(args)\n"
    "    args.run = run\n"
    "    return args\n"
    "entry.parse = parse_and_watch\n"
    "start = gc.get_stats()[0]['collections']\n"
    "code = entry.console()\n"
    "held = seen['before'] == start\n"
    "print('SEEN', seen['on'], seen['frozen'], held, gc.get_freeze_count() >= seen['frozen'], file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def test_the_console_script_keeps_the_collector_to_the_verbs_own_work(one_board: Path) -> None:
    """Issue 48: collections set off by the imports of a command's start, and the exit's look through every object,
    were some 10% of a one-board solve's instructions: the script holds the collector off until the verb runs, with
    what lives then frozen out of its sight (thousands of objects: the modules, classes and functions), and the
    collector on for the verb's own work, which a batch of boards needs."""
    run = subprocess.run(
        [sys.executable, "-c", COLLECTOR, "solve", str(one_board)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=one_board.parent,
    )
    assert run.returncode == 0, run.stderr
    line = next(x for x in run.stderr.splitlines() if x.startswith("SEEN "))
    on, frozen, held, kept = line.split()[1:]
    assert on == "True" and int(frozen) > 5000 and held == "True" and kept == "True", line
