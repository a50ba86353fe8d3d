"""The minizinc backend: agreement with a brute force, the Gecode configuration, time limits and clean-up."""

from __future__ import annotations

import itertools
import random
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from sigmar.models.board import Board
from sigmar.models.boardfile import parse_boards, read_boards
from sigmar.models.generator import deadlocked, tin_ringed
from sigmar.models.result import Reason, Status
from sigmar.models.rules import count_problem, verify
from tests.bruteforce import is_solvable
from tests.conftest import small_boards, wait_for

if shutil.which("minizinc") is None or shutil.which("fzn-gecode") is None:
    pytest.skip("the minizinc executable or fzn-gecode is not on PATH", allow_module_level=True)
pytest.importorskip("minizinc", reason="the minizinc Python package is not installed")

from sigmar.encoders.minizinc import GECODE_CONFIG, MODELS, MinizincBackend, default_plan
from tests.conftest import random_board

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances"


solvable_by_dfs = is_solvable  # the shared brute force over the rule engine

# The time limit of a test that asserts an answer: far beyond what any of these boards needs, so that the
# answer, and not the machine's load, decides the test (the suite runs beside other work); it only keeps
# a solver that never answers from hanging the suite.
PATIENT = 600.0


def check_answer(board: Board, backend: MinizincBackend, expected: bool) -> None:
    result = backend.solve(board, PATIENT)
    where = f"{backend.name} on {board.name}"
    assert result.status is (Status.SOLVED if expected else Status.UNSOLVABLE), f"{where}: {result}"
    if expected:
        verdict = verify(board, result.moves)
        assert verdict.valid, f"{where}: {verdict}"
    else:
        assert result.reason in (Reason.COUNTS, Reason.PROOF), where
        assert result.explanation, where


def board_of_kind(seed: int, kind: str) -> tuple[Board, bool]:
    """The first random board from ``seed`` that is ``solvable`` or ``stuck`` (unsolvable, counts fine)."""
    rng = random.Random(seed)
    for attempt in range(500):
        dim = 2 + (seed + attempt) % 3
        board = random_board(rng, dim, 11, miscount=0.15, name=f"random dim {dim} #{seed * 1000 + attempt}")
        if count_problem(board) is not None:
            continue
        solvable = solvable_by_dfs(board)
        if solvable == (kind == "solvable"):
            return board, solvable
    raise AssertionError(f"no {kind} board from seed {seed}")


CASES = [(seed, kind) for seed in range(6) for kind in ("solvable", "stuck")]


@pytest.mark.parametrize(("seed", "kind"), CASES)
def test_order_model_agrees_with_brute_force_on_random_boards(seed: int, kind: str) -> None:
    board, solvable = board_of_kind(seed, kind)
    check_answer(board, MinizincBackend(), solvable)


@pytest.mark.parametrize(("seed", "kind"), CASES[:4])
def test_steps_model_agrees_with_brute_force_on_random_boards(seed: int, kind: str) -> None:
    board, solvable = board_of_kind(seed + 50, kind)
    check_answer(board, MinizincBackend("gecode:steps"), solvable)


@pytest.mark.parametrize("seed", range(3))
def test_count_problems_are_answered_without_the_solver(seed: int) -> None:
    rng = random.Random(seed)
    while True:
        board = random_board(rng, 3, 11, miscount=0.15, name=f"random #{seed}")
        if count_problem(board) is not None:
            break
    result = MinizincBackend().solve(board, PATIENT)
    assert result.status is Status.UNSOLVABLE and result.reason is Reason.COUNTS
    assert not solvable_by_dfs(board)


def test_hand_checked_small_boards() -> None:
    path = INSTANCES / "small.txt"
    backend = MinizincBackend()
    for board in read_boards(path):
        check_answer(board, backend, solvable_by_dfs(board))


def test_real_game_boards_are_solved_and_verified() -> None:
    path = INSTANCES / "real-game.txt"
    backend = MinizincBackend()
    for board in read_boards(path):
        result = backend.solve(board, PATIENT)
        assert result.status is Status.SOLVED, f"{backend.name} on {board.name}: {result.status} {result.message}"
        assert verify(board, result.moves).valid
        assert result.statistics["nodes"] >= 0 and "flatTime" in result.statistics


def test_deadlock_board_is_refuted_by_the_model() -> None:
    path = INSTANCES / "real-game.txt"
    board = deadlocked(read_boards(path)[0], random.Random(1), "deadlocked real game")
    assert board is not None
    result = MinizincBackend().solve(board, PATIENT)
    assert result.status is Status.UNSOLVABLE and result.reason is Reason.PROOF, result
    assert "exhausted" in result.explanation
    # The implied constraints refute it without search (no nodes: the compiler already finds it inconsistent).
    assert result.statistics.get("nodes", 0) <= 1, result.statistics


GLOBALS_MODEL = """
include "globals.mzn";
array[1..4] of var 1..4: x;
constraint alldifferent(x);
constraint inverse(x, x);
constraint count(x, 2) = 1;
solve satisfy;
"""


def test_shipped_gecode_configuration_compiles_globals(tmp_path: Path) -> None:
    """Debian's stock 'gecode' configuration cannot compile globals.mzn (2.6.4 + Gecode 6.2.0); ours can."""
    model = tmp_path / "globals_check.mzn"
    model.write_text(GLOBALS_MODEL)
    run = subprocess.run(
        ["minizinc", "--solver", str(GECODE_CONFIG), str(model)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert "----------" in run.stdout and "overrides a global" not in run.stderr


def test_shipped_gecode_configuration_through_the_python_package() -> None:
    import minizinc

    instance = minizinc.Instance(minizinc.Solver.load(GECODE_CONFIG), minizinc.Model())
    instance.add_string(GLOBALS_MODEL)
    result = instance.solve()
    values = result["x"]
    assert sorted(values) == [1, 2, 3, 4] and all(values[values[i] - 1] == i + 1 for i in range(4))


# Python's own per-interpreter helpers (started by an earlier test in this pytest-xdist worker, e.g. Dask's
# LocalCluster): they live as long as this process does, and are no solver left behind.
_INTERPRETER_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")


def _children() -> list:
    """This process's children and their descendants, but for the warm WebAssembly MiniZinc's servers,
    which serve every later Chuffed run of this process (tests/test_minizinc_chuffed.py checks them)."""
    psutil = pytest.importorskip("psutil", reason="psutil counts the child processes")
    from sigmar.encoders.minizinc.wasm import POOL

    warm = POOL.processes()
    found = []
    for child in psutil.Process().children(recursive=True):
        if child.pid in warm:
            continue
        try:
            command = " ".join(child.cmdline())
        except psutil.Error:  # it ended while we looked
            continue
        if not any(helper in command for helper in _INTERPRETER_HELPERS):
            found.append(child)
    return found


def _command_line(process: object) -> str:
    """A process's command line, or "" once it has ended."""
    import psutil

    try:
        return " ".join(process.cmdline())  # type: ignore[attr-defined]
    except psutil.Error:
        return ""


def _named(name: str) -> list:
    """The child processes called ``name`` (one that ends while it is read is left out)."""
    import psutil

    found = []
    for process in _children():
        try:
            if process.name() == name:
                found.append(process)
        except psutil.Error:
            continue
    return found


def _hard_board() -> Board:
    path = INSTANCES / "hexmatch-hard-100.txt"
    return read_boards(path)[0]


def test_time_limit_gives_unknown_and_leaves_no_solver_behind() -> None:
    board = _hard_board()
    backend = MinizincBackend("gecode:steps")  # the step model does not finish this board in a second
    result = backend.solve(board, 1.0)
    assert result.status is Status.UNKNOWN and result.message == "time limit", result
    assert wait_for(lambda: _children() == [], 60), _children()


def test_stop_from_another_thread_kills_the_solver() -> None:
    board = _hard_board()
    backend = MinizincBackend("gecode:steps")
    timer = threading.Timer(1.0, backend.stop)
    timer.start()
    result = backend.solve(board, PATIENT)
    timer.join()
    assert result.status is Status.UNKNOWN and result.message == "stopped", result
    assert wait_for(lambda: _children() == [], 60), _children()


def test_subs_and_variants() -> None:
    subs = MinizincBackend.subs()
    assert subs[0] == "gecode" and "gecode:steps" in subs
    assert MinizincBackend("steps").variant == "steps"
    assert MinizincBackend().variant == "order" and MinizincBackend().name == f"minizinc:{default_plan()}"
    with pytest.raises(ValueError):
        MinizincBackend("gecode:nonsense")


def test_encoded_model_and_data_run_by_hand(tmp_path: Path) -> None:
    """``sigmar encode --to mzn`` writes a model that runs alone; ``--to dzn`` data for the shipped model."""
    board = parse_boards(" a a\n1 2 q\n v m\n", "side2")[0]
    for variant in ("order", "steps"):
        files = MinizincBackend(variant).encode(board, "mzn")
        model = tmp_path / f"{variant}.mzn"
        model.write_text(files[".mzn"])
        run = subprocess.run(
            ["minizinc", "--solver", str(GECODE_CONFIG), str(model)], capture_output=True, text=True, timeout=60
        )
        assert run.returncode == 0 and "----------" in run.stdout, run.stderr
        assert "alone" in run.stdout  # gold leaves alone
    data = MinizincBackend().encode(board, "dzn")[".dzn"]
    (tmp_path / "board.dzn").write_text(data)
    model_path = MODELS["order"]
    run = subprocess.run(
        ["minizinc", "--solver", str(GECODE_CONFIG), str(model_path), str(tmp_path / "board.dzn")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0 and "round 1:" in run.stdout, run.stderr


@pytest.mark.parametrize("strategy", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
def test_every_search_strategy_alone_is_exact(strategy: int) -> None:
    """The search annotation must change only the speed, never the answer (a data slip once made 2 refute all)."""
    for kind in ("solvable", "stuck"):
        board, solvable = board_of_kind(7, kind)
        check_answer(board, MinizincBackend("gecode", strategy=strategy), solvable)


def test_agrees_with_search_on_instance_samples() -> None:
    """Standard boards from each bundled sample, and deadlocks built from them: same answers as ``search``."""
    from sigmar.encoders.search import SearchBackend

    files = [INSTANCES / f for f in ("hexmatch-easy-100.txt", "hexmatch-hard-100.txt", "ondrovo-100.txt")]
    rng = random.Random(5)
    boards = []
    for path in files:
        first = read_boards(path)[:2]
        boards += first
        boards += [d for d in (deadlocked(b, rng, f"deadlocked {b.name}") for b in first[:1]) if d is not None]
    ours, theirs = MinizincBackend(), SearchBackend()
    compared = 0
    for board in boards:
        mine, other = ours.solve(board, PATIENT), theirs.solve(board, PATIENT)
        if Status.UNKNOWN in (mine.status, other.status):
            continue  # a time limit is not a disagreement
        assert mine.status is other.status, (
            f"{ours.name} says {mine.status}, search says {other.status} on {board.name}"
        )
        if mine.status is Status.SOLVED:
            assert verify(board, mine.moves).valid, board.name
        compared += 1
    assert compared >= len(boards) - 1, f"only {compared} of {len(boards)} boards answered by both"


def test_two_threads_solve_side_by_side() -> None:
    """A solve in one thread never waits for another's (the minizinc package locks a shared instance for the
    length of a solve, so each thread has its own): while one thread's long solve runs, another thread
    answers a board; then the long one is stopped.  Answers, not timings, decide."""
    long_backend, long_answer = MinizincBackend("gecode:steps"), []
    earlier = {p.pid for p in _named("minizinc")}
    runner = threading.Thread(target=lambda: long_answer.append(long_backend.solve(_hard_board(), PATIENT)))
    runner.start()
    # The long solve is the minizinc process that writes JSON; the package's short look-ups
    # (--config-dirs, --model-interface-only) are minizinc processes too, and do not count.
    assert wait_for(
        lambda: any("--output-mode" in _command_line(p) for p in _named("minizinc") if p.pid not in earlier), 300
    ), "the long solve never started"
    board, solvable = board_of_kind(3, "solvable")
    check_answer(board, MinizincBackend("gecode"), solvable)
    assert runner.is_alive() and not long_answer, "the long solve ended first: nothing ran side by side"
    long_backend.stop()
    runner.join()
    assert long_answer[0].status is Status.UNKNOWN and long_answer[0].message == "stopped", long_answer
    assert wait_for(lambda: _children() == [], 60), _children()


def test_the_backend_runs_the_shipped_configuration_when_the_library_is_there() -> None:
    """Where gecode_presolver is missing the backend falls back to the stock Gecode configuration."""
    from sigmar.encoders.minizinc.runs import base_instance
    from sigmar.encoders.minizinc.solvers import has_presolver_library

    assert '"-Ggecode_presolver"' in GECODE_CONFIG.read_text()
    if not has_presolver_library():
        pytest.skip("this MiniZinc has no gecode_presolver library; the stock gecode configuration is used")
    base = base_instance("gecode", str(MODELS["order"]), threading.get_ident())
    assert base._solver.id == "org.sigmar.gecode"


# ---------------------------------------------------------------- the quintessence variant ----


@pytest.mark.parametrize("sub", ["gecode", "gecode:steps"])
def test_both_models_agree_with_brute_force_on_quintessence_boards(sub: str) -> None:
    """Small variant boards (docs/formats.md#the-rules, symbol x), solvable and not: same answer as the brute force."""
    from tests.bruteforce import solve_by_brute_force
    from tests.test_quintessence import variant_board

    rng = random.Random(41)
    backend = MinizincBackend(sub)
    seen = {True: 0, False: 0}
    fives = 0
    for _ in range(14):
        board = variant_board(rng, rng.choice((8, 10, 12)))
        truth = solve_by_brute_force(board) is not None
        seen[truth] += 1
        check_answer(board, backend, truth)
        if truth:
            fives += sum(len(m.cells) == 5 for m in backend.solve(board, PATIENT).moves)
    assert seen[True] >= 4 and seen[False] >= 4, seen
    assert fives >= 4, "too few five-tile moves were decoded"


def test_two_quintessences_each_take_their_own_four() -> None:
    board = parse_boards("x a e\nf w . x\na e . f w\n. . . .\n. . .\n", "two")[0]
    for sub in ("gecode", "gecode:steps"):
        result = MinizincBackend(sub).solve(board, PATIENT)
        assert result.status is Status.SOLVED, f"minizinc:{sub}: {result}"
        assert [len(m.cells) for m in result.moves] == [5, 5] and verify(board, result.moves).valid


QUINT_BLOCK = re.compile(r"% \[quintessence.*?% quintessence\]\n", re.S)


def _flat(model: str, data: str, tmp_path: Path) -> list[str]:
    """The FlatZinc of model + data; the order inside conjunctions and clauses and empty output arrays normalised."""
    (tmp_path / "m.mzn").write_text(model)
    (tmp_path / "d.dzn").write_text(data)
    fzn = tmp_path / "m.fzn"
    subprocess.run(
        ["minizinc", "--solver", str(GECODE_CONFIG), "-c", str(tmp_path / "m.mzn"), str(tmp_path / "d.dzn")]
        + ["--fzn", str(fzn), "--ozn", str(tmp_path / "m.ozn")],
        check=True,
        capture_output=True,
        timeout=120,
    )
    lines = []
    for line in fzn.read_text().splitlines():
        if "output_array([1..0" in line:
            continue
        if line.startswith(("constraint array_bool_and", "constraint array_bool_or", "constraint bool_clause")):
            line = re.sub(r"\[([^\]]*)\]", lambda m: "[" + ",".join(sorted(m[1].split(","))) + "]", line)
        lines.append(line)
    return lines


@pytest.mark.parametrize("variant", ["order", "steps"])
def test_the_quintessence_constraints_add_nothing_to_a_standard_board(variant: str, tmp_path: Path) -> None:
    """Cutting the quintessence sections out of a model leaves a standard board's FlatZinc unchanged."""
    from sigmar.encoders.minizinc import data_text

    text = MODELS[variant].read_text()
    cut = QUINT_BLOCK.sub("", text)
    assert cut != text, "the model has no marked quintessence section"
    standard = read_boards(INSTANCES / "real-game.txt")[0]
    data = data_text(standard, variant)
    assert _flat(text, data, tmp_path) == _flat(cut, data, tmp_path)
    five = parse_boards("x a\ne . w\nf .\n", "five")[0]
    data = data_text(five, variant)
    assert _flat(text, data, tmp_path) != _flat(cut, data, tmp_path)


# ---------------------------------------------------------------- implied constraints ----


def test_hitting_sets_are_exactly_the_minimal_sets_meeting_every_opening() -> None:
    from sigmar.encoders.minizinc import hitting_sets

    rng = random.Random(3)
    for _ in range(200):
        pool = list(range(6))
        blockers = [sorted(rng.sample(pool, rng.randint(1, 3))) for _ in range(rng.randint(1, 6))]
        found = {frozenset(h) for h in hitting_sets(blockers)}
        every = [
            frozenset(c)
            for k in range(1, 7)
            for c in itertools.combinations(pool, k)
            if all(set(c) & set(b) for b in blockers)
        ]
        minimal = {s for s in every if not any(o < s for o in every)}
        assert found == minimal, blockers
    assert hitting_sets([[1, 2], []]) == []  # a free opening: nothing has to leave first


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_boards())
def test_order_model_with_every_implied_constraint_agrees_with_brute_force(board: Board) -> None:
    """The implied constraints must never cut a solution: on any small board the answer is the brute force's."""
    check_answer(board, MinizincBackend(), solvable_by_dfs(board))


def test_quintessence_boards_with_every_implied_constraint() -> None:
    from tests.bruteforce import solve_by_brute_force
    from tests.test_quintessence import variant_board

    rng = random.Random(43)
    backend = MinizincBackend("gecode", strategy=2)
    for _ in range(8):
        board = variant_board(rng, rng.choice((10, 12)))
        check_answer(board, backend, solve_by_brute_force(board) is not None)


def test_a_tin_ringed_by_quicksilver_and_later_metals_fails_before_any_search() -> None:
    """Every window of tin holds a later metal or three quicksilver: the metal openings leave it none."""
    board = tin_ringed(read_boards(INSTANCES / "real-game.txt")[0])
    assert board is not None and count_problem(board) is None
    result = MinizincBackend().solve(board, PATIENT)
    assert result.status is Status.UNSOLVABLE and result.reason is Reason.PROOF, result
    assert result.statistics.get("nodes", 0) == 0, result.statistics
    off = MinizincBackend("gecode", off="metal-openings,hitting-sets,qcount", strategy=2).solve(board, PATIENT)
    assert off.status is Status.UNSOLVABLE  # without them the search itself has to find it


def test_switching_off_an_implied_constraint_that_does_not_exist_names_the_ones_that_do() -> None:
    with pytest.raises(ValueError, match="no implied constraint colour .*valid: qcount"):
        MinizincBackend(off="parity,colour")
    assert MinizincBackend(off=" parity , symmetry").options.switched_off() == {"parity", "symmetry"}


def test_asyncio_notes_on_a_late_solver_exit_stay_off_stderr() -> None:
    """The notes asyncio logs when a stopped solver ends after its loop closed are dropped; others are kept."""
    import logging

    from sigmar.encoders.minizinc.driver import quiet_late_exits

    quiet_late_exits()
    quiet_late_exits()  # once per process: a second call adds no second filter
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("asyncio")
    logger.addHandler(handler)
    try:
        logger.warning("Unknown child process pid %d, will report returncode 255", 7)
        logger.warning("Loop %r that handles pid %r is closed", None, 7)
        logger.warning("Task was destroyed but it is pending!")
    finally:
        logger.removeHandler(handler)
    assert [record.getMessage() for record in records] == ["Task was destroyed but it is pending!"]
    assert len(logger.filters) == 1


def test_a_model_the_compiler_refutes_prints_no_warning(tmp_path: Path) -> None:
    """MiniZinc's "model inconsistency detected" is in the answer's statistics, not a Python warning on stderr."""
    import sys
    import warnings

    from sigmar.models.boardfile import format_boards

    (ringed,) = [b for b in read_boards(INSTANCES / "small.txt") if b.name.startswith("lead ringed")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # every warning raised is caught, whatever filters are set elsewhere
        result = MinizincBackend().solve(ringed, PATIENT)
    assert not caught, [str(w.message) for w in caught]
    assert result.status is Status.UNSOLVABLE, result
    assert result.statistics["runs"][0]["notes"] == ["model inconsistency detected"], result.statistics
    path = tmp_path / "ringed.txt"
    path.write_text(format_boards([ringed]))
    main = "import sys; from sigmar.runners.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", main, "solve", "-b", "minizinc", "--json", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done  # alone, MiniZinc's refutation is a claim (unknown)
    # nothing on stderr but the closing summary line (beside --json it goes there); crosscheck: test_crosscheck.py
    assert "unsolvable" in done.stdout and done.stderr.startswith("1 board: ") and done.stderr.count("\n") == 1, done


def test_only_minizincs_warning_lines_are_taken_out_of_its_stream() -> None:
    from sigmar.encoders.minizinc.driver import warning_of

    assert warning_of(b'{"type": "warning", "message": "model inconsistency detected\\n"}') == (
        "model inconsistency detected"
    )
    assert warning_of(b'{"type": "error", "what": "warning", "message": "x"}') == "x"
    assert warning_of(b'{"type": "solution", "output": {"json": {"note": "warning"}}}') is None
    assert warning_of(b'{"type": "status", "status": "UNSATISFIABLE"}') is None
    assert warning_of(b'not json "warning"') is None
