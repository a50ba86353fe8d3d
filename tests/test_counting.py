"""Counts: the rule engine's reference against a brute force, every backend's count against the reference,
``sigmar count``, ``crosscheck --compare-counts`` and ``fuzz --compare-counts`` (with the mutant only they catch)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sigmar.encoders import registry
from sigmar.encoders.backend import Backend, counts
from sigmar.models.board import Board
from sigmar.models.boardfile import parse_boards, read_boards
from sigmar.models.counting import JSON_EXACT, Count, Notion, json_number, reference_count
from sigmar.models.fuzz_deal import fuzz_board
from sigmar.models.result import Result, Status
from sigmar.models.rules import Position
from sigmar.runners.checking.count_grade import CountGrade, grade_count
from sigmar.runners.checking.intake import count_taken_in, counted
from sigmar.runners.race import Race, count_board
from tests.conftest import small_boards, wait_for

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "instances" / "small.txt"
SIGMAR = [sys.executable, "-m", "sigmar.runners.cli"]
SEQUENCES, PAIRINGS = Notion.SEQUENCES, Notion.PAIRINGS


def every_way(board: Board) -> tuple[int, int]:
    """(sequences, pairings) by listing every clearing sequence: obviously right, tiny boards only."""
    pairings: set[frozenset[frozenset[tuple[int, int]]]] = set()
    sequences = 0

    def play(occupied: frozenset[tuple[int, int]], played: tuple[frozenset[tuple[int, int]], ...]) -> None:
        nonlocal sequences
        if not occupied:
            sequences += 1
            pairings.add(frozenset(played))
            return
        for move in Position(board, occupied).legal_moves():
            play(occupied - set(move.cells), (*played, frozenset(move.cells)))

    play(Position.start(board).occupied, ())
    return sequences, len(pairings)


def dealt(seed: int, index: int, variant: str, max_tiles: int = 9) -> Board:
    """A fuzz deal of at most ``max_tiles`` tiles on a side of at most 3 (``assume`` drops the others)."""
    board = fuzz_board(seed, index, max_tiles, variant)
    assume(board.dim <= 3)
    return board


deals = st.builds(dealt, st.integers(0, 10**6), st.integers(0, 10**4), st.sampled_from(["standard", "quintessence"]))


# -- the reference ------------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(small_boards().filter(lambda b: b.dim <= 3 and len(b) <= 9))
def test_the_reference_counts_what_a_listing_of_every_sequence_finds(board: Board) -> None:
    sequences, pairings = every_way(board)
    assert reference_count(board, SEQUENCES) == Count(SEQUENCES, sequences, True)
    assert reference_count(board, PAIRINGS) == Count(PAIRINGS, pairings, True)


@settings(max_examples=120, deadline=None)
@given(deals)
def test_the_reference_counts_both_variants_as_the_listing_does(board: Board) -> None:
    sequences, pairings = every_way(board)
    assert (reference_count(board, SEQUENCES).value, reference_count(board, PAIRINGS).value) == (sequences, pairings)


def test_the_two_notions_differ_where_moves_commute() -> None:
    (board,) = parse_boards("a a\n. . .\n e e\n", "two free pairs")
    assert every_way(board) == (2, 1)  # either pair first, one pairing
    assert reference_count(board, SEQUENCES).value == 2 and reference_count(board, PAIRINGS).value == 1


def test_a_stopped_count_is_a_lower_bound_never_exact() -> None:
    board = read_boards(str(ROOT / "instances" / "real-game.txt"))[0]
    for notion in Notion:
        capped = reference_count(board, notion, max_states=500)
        assert not capped.exact and str(capped).startswith("at least")
        timed = reference_count(board, notion, time_limit=0.2)
        assert not timed.exact
    (small,) = [b for b in read_boards(str(SMALL)) if b.name.startswith("side 4: gold walled")]
    truth = reference_count(small, SEQUENCES)
    part = reference_count(small, SEQUENCES, max_states=50)
    assert truth.exact and not part.exact and part.value <= truth.value


def test_counts_pass_to_json_exactly() -> None:
    assert json_number(2**53) == 2**53
    assert json_number(2**53 + 1) == str(2**53 + 1)
    assert json.loads(json.dumps(json_number(10**30))) == str(10**30)
    assert JSON_EXACT == 2**53


# -- every backend against the reference ---------------------------------------

COUNTERS = ("search", "cnf", "cnf:steps", "cnf:thesis", "cpsat", "minizinc")
EXAMPLES = {"search": 60, "cnf": 25, "cnf:steps": 25, "cnf:thesis": 12, "cpsat": 25, "minizinc": 8}


def counter(name: str) -> Backend:
    found = registry.info(registry.split_name(name)[0], with_version=False)
    if not found.available:
        pytest.skip(f"{name} is not available here: {found.why_not}")
    return registry.make(name)


@pytest.mark.parametrize("name", COUNTERS)
def test_every_exact_count_equals_the_rule_engines(name: str) -> None:
    """On boards of side <= 3 of both variants: each backend's exact count of each notion is the reference's."""
    backend = counter(name)
    assert counts(type(backend), "sequences") and counts(type(backend), "pairings")

    @settings(max_examples=EXAMPLES[name], deadline=None)
    @given(deals)
    def agrees(board: Board) -> None:
        if backend.refusal(board) is not None:  # the thesis's encoding does not play quintessence
            assert "x" in board.counts
            return
        for notion in Notion:
            value, exact = backend.count(board, notion, 30.0)
            truth = reference_count(board, notion)
            assert exact, f"{name} did not finish counting {notion} on a board of {len(board)} tiles"
            assert value == truth.value, f"{name} counted {value} {notion}, the rule engine {truth}\n{board}"

    agrees()


# -- cnf's two ways to count: the listing of few models and Ganak ------------------


def brute_projected(clauses: list[list[int]], projection: list[int], variables: int) -> int:
    """The projected models by trying every assignment: the truth both ways are held to."""
    seen = set()
    for bits in range(1 << variables):
        value = {v: bool(bits >> (v - 1) & 1) for v in range(1, variables + 1)}
        if all(any(value[abs(lit)] == (lit > 0) for lit in clause) for clause in clauses):
            seen.add(tuple(value[v] for v in projection))
    return len(seen)


small_cnfs = st.integers(1, 8).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(
            st.lists(st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v])), min_size=1, max_size=3), max_size=12
        ),
        st.lists(st.integers(1, n), min_size=1, unique=True),
    )
)


@settings(max_examples=150, deadline=None)
@given(small_cnfs)
def test_the_listed_count_and_ganaks_are_the_projected_models(cnf: tuple[int, list[list[int]], list[int]]) -> None:
    """Both ways of counting equal a brute force, a projected variable in no clause included (the listing
    hands that case to Ganak, which counts it free)."""
    from sigmar.encoders.cnf import counting

    variables, clauses, projection = cnf
    truth = brute_projected(clauses, projection, variables)
    listed = counting.listed_count(clauses, projection)
    in_clauses = {abs(lit) for clause in clauses for lit in clause}
    if max(projection) <= max(in_clauses, default=0):
        assert listed == truth
    else:
        assert listed is None or listed == truth  # unsatisfiable: 0 found before any model is read
    assert counting.ganak_count(clauses, projection, variables) == truth
    try:
        counting.ENUMERATE_MODELS = 0  # Ganak's own count, past the listing
        assert counting.ganak_count(clauses, projection, variables) == truth
    finally:
        counting.ENUMERATE_MODELS = 1000


def test_the_listing_gives_way_to_ganak_past_its_bound() -> None:
    """Past ENUMERATE_MODELS the listing stops (None) and ganak_count still gives the exact count."""
    from sigmar.encoders.cnf import counting

    free = [[v, -v] for v in range(1, 12)]  # 11 free variables: 2,048 models
    assert counting.listed_count(free, list(range(1, 12))) is None
    assert counting.ganak_count(free, list(range(1, 12)), 11) == 2048
    assert counting.listed_count(free, [1, 2, 3]) == 8


def test_a_plugin_without_count_is_not_a_counter() -> None:
    class Solver(Backend):
        family = "solver-only"

        def solve(self, board: Board, time_limit: float | None = None) -> Result:
            return Result(Status.UNKNOWN, self.name)

    assert not counts(Solver, "sequences")
    with pytest.raises(NotImplementedError):
        Solver().count(parse_boards("a a\n. . .\n . .\n")[0], "sequences")


# -- grading ------------------------------------------------------------------


def test_grades_tell_right_wrong_bound_and_unconfirmed_apart() -> None:
    def answer(value: int, exact: bool) -> Result:
        return counted((value, exact), "x", "sequences")

    exact, bound = Count(SEQUENCES, 10, True), Count(SEQUENCES, 4, False)
    cases = [
        ((10, True), exact, CountGrade.CORRECT),
        ((9, True), exact, CountGrade.WRONG),
        ((11, True), exact, CountGrade.WRONG),
        ((12, False), exact, CountGrade.WRONG),  # at least 12 of 10: more than there are
        ((3, False), exact, CountGrade.BOUND),
        ((7, True), bound, CountGrade.UNCONFIRMED),
        ((3, True), bound, CountGrade.WRONG),  # fewer than certainly exist
    ]
    for (value, is_exact), reference, grade in cases:
        given_answer = answer(value, is_exact)
        count = Count(SEQUENCES, value, is_exact)
        assert grade_count(count, given_answer, reference) is grade, (value, is_exact, reference)
    nonsense = counted(("many", True), "x", "sequences")
    assert nonsense.status is Status.ERROR and grade_count(None, nonsense, exact) is CountGrade.ERROR


def test_a_counting_answer_is_read_again_where_the_runner_receives_it() -> None:
    good = counted((5, True), "x", "sequences")
    taken = count_taken_in(good.with_(checked=True, verified=True, wrong=True), "x", "sequences")
    assert (taken.status, taken.checked, taken.verified, taken.wrong) == (Status.SOLVED, False, False, False)
    assert taken.statistics == {"notion": "sequences", "count": 5, "exact": True}
    bound = count_taken_in(counted((5, False), "x", "pairings").with_(status=Status.SOLVED), "x", "pairings")
    assert bound.status is Status.UNKNOWN  # the status follows "exact", whatever the answer said
    for raw, said in [
        (good, "a count of pairings without one"),  # another notion than was asked
        (Result(Status.SOLVED, "x"), "a count of pairings without one"),  # a solve's answer
        (good.with_(statistics={**good.statistics, "notion": "pairings", "count": "5"}), "a value of str"),
        ({"count": 5}, "not a Result"),
    ]:
        answer = count_taken_in(raw, "x", "pairings")
        assert answer.status is Status.ERROR and answer.message.startswith("x ") and said in answer.message, answer


# -- through the workers: crashes, hangs, no process left ----------------------


def descendants() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


def test_a_counter_that_crashes_or_hangs_is_an_answer_and_leaves_no_process(fakes: None) -> None:
    (board,) = parse_boards("a a\n. . .\n e e\n", "two free pairs")
    before = descendants()
    with Race(["search", "broken:crash", "broken:exit", "broken:hang", "broken:wrong"], slack=0.2) as race:
        # 4 s: on a loaded machine a fresh worker may take a second to start; only the hung one waits it out
        verdict = count_board(race, board, SEQUENCES, 4.0)
        again = count_board(race, board, PAIRINGS, 4.0)  # the dead and hung workers were replaced
    grades = verdict.grades
    assert grades["search"] is CountGrade.CORRECT and again.grades["search"] is CountGrade.CORRECT
    assert grades["broken:crash"] is CountGrade.ERROR and "deliberate crash" in verdict.answers["broken:crash"].message
    assert grades["broken:exit"] is CountGrade.ERROR
    assert verdict.answers["broken:exit"].message.endswith("while counting")
    assert grades["broken:hang"] is CountGrade.UNKNOWN
    assert grades["broken:wrong"] is CountGrade.WRONG and verdict.any_wrong
    assert any("broken:wrong counted 3 sequences, the rule engine 2" in note for note in verdict.notes)
    assert wait_for(lambda: descendants() <= before), "worker processes left behind"


def test_a_cnf_count_stopped_at_its_limit_leaves_no_process() -> None:
    board = read_boards(str(ROOT / "instances" / "real-game.txt"))[0]
    before = descendants()
    start = time.perf_counter()
    value, exact = counter("cnf").count(board, "pairings", 0.5)
    assert not exact and value == 0
    assert time.perf_counter() - start < 30, "the count ignored its time limit"
    assert wait_for(lambda: descendants() <= before), "the counting child was left behind"


# -- sigmar count ---------------------------------------------------------------


def run_sigmar(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SIGMAR, *args], capture_output=True, text=True, env=env, timeout=600)


def test_count_on_the_small_boards_is_exact_and_agrees() -> None:
    for notion in Notion:
        done = run_sigmar("count", str(SMALL), "--of", notion, "--json")
        assert done.returncode == 0, done.stderr
        records = [json.loads(line) for line in done.stdout.splitlines()]
        assert len(records) == len(read_boards(str(SMALL)))
        for record in records:
            assert record["notion"] == notion and record["agree"]
            assert record["reference"]["exact"] and record["counts"]["search"]["exact"]
            assert record["counts"]["search"]["count"] == record["reference"]["count"]
            solvable = "[solvable]" in record["board"]
            assert (record["reference"]["count"] > 0) == solvable, record


def test_count_board_picks_one_board(capsys: pytest.CaptureFixture[str]) -> None:
    from sigmar.runners.cli import main

    assert main(["count", str(SMALL), "--board", "one pair of air [solvable]", "--json"]) == 0
    (record,) = map(json.loads, capsys.readouterr().out.splitlines())
    assert record["board"] == "one pair of air [solvable]" and record["reference"]["count"] == 1


def test_count_prints_a_table_and_says_at_least_for_a_bound() -> None:
    done = run_sigmar("count", str(ROOT / "instances" / "real-game.txt"), "--of", "pairings", "--time-limit", "0.5")
    assert done.returncode == 1, done.stderr  # only bounds: not every count is exact
    assert "at least" in done.stdout and "pairings (rule engine)" in done.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--of", "orders"], "invalid choice: 'orders'"),
        (["-b", "honest"], "cannot count sequences"),
        (["-b", "nosuch"], "unknown backend 'nosuch'"),
        (["--board", "no such board"], "no board named 'no such board'"),
    ],
)
def test_bad_count_arguments_exit_2_in_one_line(
    args: list[str], says: str, fakes: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from sigmar.runners.cli import main

    assert main(["count", str(SMALL), *args]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and says in err and "Traceback" not in err


def test_count_exit_3_names_the_board_both_counts_and_the_notion(
    fakes: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sigmar.runners.cli import main

    path = tmp_path / "two.txt"
    path.write_text("# two free pairs\na a\n. . .\n e e\n")
    assert main(["count", str(path), "-b", "search,broken:wrong"]) == 3
    out = capsys.readouterr().out
    assert "WRONG: two free pairs: broken:wrong counted 3 sequences, the rule engine 2" in out


# -- the mutant that only counts catch -----------------------------------------


def test_only_compare_counts_catches_the_counting_mutant(mutant_env: dict[str, str], tmp_path: Path) -> None:
    common = ["fuzz", "-b", "mutant-count", "--count", "40", "--seed", "1", "--json"]
    plain = run_sigmar(*common, "--out", str(tmp_path / "plain"), env=mutant_env)
    assert plain.returncode == 0, plain.stderr
    assert all(json.loads(line)["failures"] == [] for line in plain.stdout.splitlines())
    counted = run_sigmar(*common, "--compare-counts", "--out", str(tmp_path / "counted"), env=mutant_env)
    assert counted.returncode == 3, counted.stderr
    failures = [f for line in counted.stdout.splitlines() for f in json.loads(line)["failures"]]
    assert failures and {(f["failure"], f["notion"]) for f in failures} == {("wrong-count", "sequences")}
    smallest = min(failures, key=lambda f: f["shrunk_tiles"])
    assert smallest["shrunk_tiles"] <= 6
    assert "mutant-count counted" in smallest["message"] and "sequences" in smallest["message"]
    report = json.loads(Path(smallest["files"][1]).read_text())
    again = run_sigmar(*report["command"].split()[1:], "--json", env=mutant_env)
    assert again.returncode == 3
    assert [f["failure"] for f in json.loads(again.stdout)["failures"]] == ["wrong-count"]


def test_crosscheck_compare_counts_grades_a_wrong_count_as_wrong(mutant_env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "two.txt"
    path.write_text("# two free pairs\na a\n. . .\n e e\n")
    plain = run_sigmar("crosscheck", str(path), "-b", "search,mutant-count", "--json", env=mutant_env)
    assert plain.returncode == 0, plain.stderr
    done = run_sigmar(
        "crosscheck", str(path), "-b", "search,mutant-count", "--compare-counts", "--json", env=mutant_env
    )
    assert done.returncode == 3, done.stderr
    record = json.loads(done.stdout)
    sequences = record["counts"]["sequences"]
    assert sequences["reference"]["count"] == 2 and sequences["counts"]["mutant-count"]["grade"] == "wrong"
    assert sequences["notes"] == ["two free pairs: mutant-count counted 1 sequences, the rule engine 2"]
    assert record["counts"]["pairings"]["agree"]
