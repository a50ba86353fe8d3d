"""The cnf backend: both encodings against the rule engine, assignment by assignment on tiny boards."""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pysat.formula import CNF
from pysat.solvers import Solver

from sigmar.encoders.cnf import DEFAULT_SOLVER, PROOF_SOLVERS, CnfBackend, build_formula, split_sub
from sigmar.encoders.cnf.formula import Formula, parse_assignment
from sigmar.encoders.registry import make
from sigmar.models.board import Board
from sigmar.models.boardfile import format_board, parse_boards, read_boards
from sigmar.models.result import Status
from sigmar.models.rules import Position, verify
from sigmar.runners.cli import main
from tests.bruteforce import count_move_sequences, solve_by_brute_force
from tests.conftest import REAL_GAME, random_board, real_game_board

INSTANCES = Path(__file__).resolve().parents[1] / "instances"


# -- boards


def tiny_boards(seed: int, count: int, max_pairs: int = 3) -> list[Board]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        dim = rng.choice([2, 3])
        pairs = rng.randint(1, max_pairs)
        out.append(random_board(rng, dim, 2 * pairs + 1, miscount=0.2))
    return out


def board_from(text: str) -> Board:
    return parse_boards(text, "<test>")[0]


# -- the rule engine's own counts


def count_parallel_plans(board: Board, steps: int) -> int:
    """Sequences of ``steps`` sets of disjoint moves, each move legal at the start of its step, clearing the board."""

    @cache
    def count(occupied: frozenset, left: int) -> int:
        if left == 0:
            return 1 if not occupied else 0
        moves = Position(board, occupied).legal_moves()
        total = 0

        def subsets(index: int, used: frozenset) -> None:
            nonlocal total
            if index == len(moves):
                total += count(occupied - used, left - 1)
                return
            subsets(index + 1, used)
            cells_ = set(moves[index].cells)
            if not cells_ & used:
                subsets(index + 1, used | cells_)

        subsets(0, frozenset())
        return total

    return count(frozenset(t.cell for t in board.tiles), steps)


def projected_models(formula: Formula, limit: int = 20000) -> int:
    """Every assignment of the formula projected on its move variables (pysat's exhaustive style)."""
    found = 0
    with Solver(name="minisat22", bootstrap_with=formula.clauses) as sat:
        while sat.solve():
            true = {lit for lit in sat.get_model() if lit > 0}
            sat.add_clause([-v if v in true else v for v in formula.projection])
            found += 1
            assert found <= limit, "too many assignments for a tiny board"
    return found


def sat(formula: Formula) -> bool:
    with Solver(name="glucose4", bootstrap_with=formula.clauses) as s:
        answer = s.solve()
        if answer:
            verdict = verify(formula.board, formula.decode(s.get_model()))
            assert verdict.valid, (
                f"{formula.variant} decoded a rejected solution: {verdict}\n{format_board(formula.board)}"
            )
        return bool(answer)


# -- exactness


@pytest.mark.parametrize("board", tiny_boards(1, 40), ids=lambda b: "")
def test_default_models_are_the_parallel_plans(board: Board) -> None:
    formula = build_formula(board, "default")
    expected = count_parallel_plans(board, formula.horizon)
    assert projected_models(formula) == expected, format_board(board)


@pytest.mark.parametrize(
    "options",
    [{"free": "clear"}, {"sync": "bits"}, {"prune": False}, {"card": "ladder"}, {"card": "totalizer"}],
    ids=str,
)
def test_default_options_stay_exact(options: dict) -> None:
    from sigmar.encoders.cnf.default import build

    for board in tiny_boards(8, 12):
        formula = build(board, **options)
        assert projected_models(formula) == count_parallel_plans(board, formula.horizon), format_board(board)


@pytest.mark.parametrize("board", tiny_boards(2, 25, max_pairs=2), ids=lambda b: "")
def test_thesis_models_are_the_move_sequences(board: Board) -> None:
    formula = build_formula(board, "thesis")
    assert projected_models(formula) == count_move_sequences(board), format_board(board)


@pytest.mark.parametrize("board", tiny_boards(7, 20, max_pairs=2), ids=lambda b: "")
def test_steps_models_are_the_move_sequences(board: Board) -> None:
    formula = build_formula(board, "steps")
    assert projected_models(formula) == count_move_sequences(board), format_board(board)


def test_variants_agree_with_brute_force_on_random_boards() -> None:
    boards = tiny_boards(3, 120, max_pairs=4)
    solvable = 0
    for board in boards:
        truth = solve_by_brute_force(board) is not None
        solvable += truth
        for variant in ("default", "steps", "thesis"):
            assert sat(build_formula(board, variant)) == truth, f"{variant}\n{format_board(board)}"
    assert 0 < solvable < len(boards), "the sample should hold both answers"


def test_literal_thesis_is_unsatisfiable_with_gold() -> None:
    """The printed horizon leaves the hidden key no tile step: the reason for the repair."""
    board = board_from("  1 q\n . 2 .\n  . .\n")
    assert solve_by_brute_force(board) is not None
    assert not sat(build_formula(board, "thesis-literal"))
    assert sat(build_formula(board, "thesis"))


def test_strict_metal_order_keeps_quicksilver_with_its_metal() -> None:
    # Lead and tin both free with two quicksilver: both q-moves may not share a step.
    board = board_from("  1 q\n . 3 .\n  q 2\n")
    formula = build_formula(board, "default")
    assert projected_models(formula) == count_parallel_plans(board, formula.horizon) > 0


# -- the backend


def test_backend_solutions_are_verified() -> None:
    boards = [b for b in tiny_boards(4, 30) if solve_by_brute_force(b) is not None][:8]
    for name in ("cnf", "cnf:thesis", "cnf:cadical195", "cnf:thesis+glucose42"):
        backend = make(name)
        for board in boards:
            result = backend.solve(board, time_limit=30)
            assert result.status is Status.SOLVED, f"{name}: {result}"
            assert verify(board, result.moves).valid, name
            assert result.statistics["clauses"] > 0


def test_unsolvable_boards_are_proved() -> None:
    board = board_from("  s m\n w . f\n  . .\n")  # counts fine, each waits for another
    assert solve_by_brute_force(board) is None
    for name in ("cnf", "cnf:thesis", "cnf:cadical195"):
        result = make(name).solve(board, time_limit=30)
        assert result.status is Status.UNSOLVABLE and result.reason is not None, name


def standard_boards(count: int) -> list[Board]:
    path = INSTANCES / "hexmatch-hard-100.txt"
    return read_boards(str(path))[:count]


def test_default_is_a_tenth_of_the_thesis_on_standard_boards() -> None:
    for board in standard_boards(3):
        default = build_formula(board, "default")
        assert len(default.clauses) <= 24_500, board.name
        result = CnfBackend().solve(board, time_limit=60)
        assert result.status is Status.SOLVED and verify(board, result.moves).valid
    thesis = build_formula(board, "thesis")
    assert len(thesis.clauses) >= 10 * len(default.clauses)


@pytest.mark.parametrize("name", ["cnf:thesis", "cnf:thesis+cadical195"])
def test_time_limit_gives_unknown(name: str) -> None:
    board = standard_boards(1)[0]
    backend = make(name)
    start = time.perf_counter()
    result = backend.solve(board, time_limit=0.05)
    elapsed = time.perf_counter() - start
    encode = result.statistics.get("encode_seconds", 0.0)
    # The encoding alone takes longer than 0.05 s; the solver must not run on after it.
    assert result.status is Status.UNKNOWN, f"{name}: {result.status}"
    assert elapsed < encode + 5.0, f"{name} ran {elapsed - encode:.1f} s past its limit"


@pytest.mark.parametrize("sub", ["thesis-literal", "thesis-literal+cadical195"])
def test_stop_from_another_thread(sub: str) -> None:
    """The race stops losers: the literal thesis takes minutes to refute a standard board, so only stop() ends it."""
    import threading

    board = standard_boards(1)[0]
    backend = CnfBackend(sub)
    threading.Timer(2.5, backend.stop).start()
    start = time.perf_counter()
    result = backend.solve(board, time_limit=120)
    assert result.status is Status.UNKNOWN, sub
    # Ignoring stop() runs to the 120 s limit (or minutes): 60 s tells that apart at load 20, where the
    # build alone can take 10 s (a 10 s bound failed a full run at 14:58, load 20).
    assert time.perf_counter() - start < 60, f"{sub} ignored stop()"


def test_sub_name_grammar() -> None:
    assert split_sub(None) == ("default", DEFAULT_SOLVER)
    assert split_sub("cadical195") == ("default", "cadical195")
    assert split_sub("thesis") == ("thesis", "glucose4")
    assert split_sub("steps") == ("steps", "glucose4")
    assert split_sub("glucose4") == ("default", "glucose4")
    assert split_sub("thesis+cadical195") == ("thesis", "cadical195")
    assert "thesis+cadical195" in CnfBackend.subs()
    assert CnfBackend("thesis").variant == "thesis"
    with pytest.raises(ValueError):
        CnfBackend("nonsense+glucose4")


def test_the_default_is_a_proof_logging_solver_and_named_so() -> None:
    """``cnf`` alone certifies its refutations (the race and prove rely on it), under its full name."""
    backend = CnfBackend()
    assert DEFAULT_SOLVER in PROOF_SOLVERS and backend.solver == DEFAULT_SOLVER and backend.certifies
    assert backend.name == f"cnf:{DEFAULT_SOLVER}" == make("cnf").name
    assert CnfBackend("glucose4").solver == "glucose4" and CnfBackend("glucose42").solver == "glucose42"


# -- DIMACS, sidecar and external solvers


def test_dimacs_round_trip() -> None:
    for board in tiny_boards(5, 5):
        for variant in ("default", "thesis"):
            formula = build_formula(board, variant)
            text = formula.to_dimacs()
            assert text.startswith("c sigmar cnf encoding")
            read = CNF(from_string=text)  # pysat's own DIMACS reader
            assert read.nv == formula.nv
            assert read.clauses == formula.clauses
            assert len(formula.names) == formula.nv


SOLVER_SCRIPT = """
import sys
from pysat.formula import CNF
from pysat.solvers import Solver
with Solver(name="minisat22", bootstrap_with=CNF(from_file=sys.argv[-1]).clauses) as s:
    if s.solve():
        print("c a test solver"); print("s SATISFIABLE")
        assignment = s.get_model()
        for k in range(0, len(assignment), 10):
            print("v " + " ".join(map(str, assignment[k:k + 10])))
        print("v 0")
    else:
        print("s UNSATISFIABLE")
"""


def test_decode_an_external_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board_file = tmp_path / "b.txt"
    board_file.write_text("# three pairs\n  f s\n v s s\n  m .\n")
    script = tmp_path / "solver.py"
    script.write_text(SOLVER_SCRIPT)
    for variant in ("default", "thesis"):
        out = tmp_path / f"{variant}.cnf"
        assert main(["encode", str(board_file), "--to", "dimacs", "--variant", variant, "-o", str(out)]) == 0
        sidecar = tmp_path / f"{variant}.vars.json"
        assert sidecar.exists()
        import subprocess

        answer = subprocess.run([sys.executable, str(script), str(out)], capture_output=True, text=True, check=True)
        model_file = tmp_path / f"{variant}.out"
        model_file.write_text(answer.stdout)
        capsys.readouterr()
        assert main(["decode", str(board_file), str(model_file), "--sidecar", str(sidecar)]) == 0
        assert "valid" in capsys.readouterr().out
        # An assignment with its move variables negated no longer decodes to a solution.
        status, assignment = parse_assignment(answer.stdout)
        broken = tmp_path / f"{variant}.broken"
        broken.write_text("s SATISFIABLE\nv " + " ".join(str(-lit) for lit in assignment) + " 0\n")
        assert main(["decode", str(board_file), str(broken), "--sidecar", str(sidecar)]) == 1
    unsat = tmp_path / "unsat.out"
    unsat.write_text("s UNSATISFIABLE\n")
    capsys.readouterr()
    # A bare "s UNSATISFIABLE" is the solver's word: a claim, not a result (exit 1, as for no answer).
    assert main(["decode", str(board_file), str(unsat), "--json"]) == 1
    record = json.loads(capsys.readouterr().out)
    assert record["status"] == "unknown" and record["claims"][0]["status"] == "unsolvable"
    assert "a claim, not a result" in record["message"] and "sigmar check" in record["message"]
    assert main(["decode", str(board_file), str(unsat)]) == 1
    assert "claimed unsolvable: a claim, not a result" in capsys.readouterr().out


def test_sat_cmd_runs_an_external_solver(tmp_path: Path) -> None:
    script = tmp_path / "solver.py"
    script.write_text(SOLVER_SCRIPT)
    backend = CnfBackend(None, sat_cmd=f"{sys.executable} {script}")
    for board in tiny_boards(6, 6):
        truth = solve_by_brute_force(board) is not None
        result = backend.solve(board, time_limit=30)
        assert result.status is (Status.SOLVED if truth else Status.UNSOLVABLE), format_board(board)
        if truth:
            assert verify(board, result.moves).valid


def test_solve_sat_cmd_option_runs_the_external_solver(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sigmar solve -b cnf:external --sat-cmd CMD` runs that command."""
    from sigmar.encoders.cnf import SAT_CMD_ENV

    monkeypatch.setenv(SAT_CMD_ENV, "")  # restored after the test: --sat-cmd sets it for the workers

    script = tmp_path / "solver.py"
    script.write_text(SOLVER_SCRIPT)
    board_file = REAL_GAME
    code = main(["solve", str(board_file), "-b", "cnf:external", "--sat-cmd", f"{sys.executable} {script}", "--json"])
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert [r["backend"] for r in records] == ["cnf:external", "cnf:external"]
    assert all(r["status"] == "solved" and r["verified"] for r in records)


def test_a_stop_asked_during_the_build_ends_it_and_an_unasked_build_is_unchanged() -> None:
    """cnf's stop() is honoured before the solver starts: the builder asks between groups."""
    from sigmar.models.stopped import Stopped

    board = read_boards(INSTANCES / "generated-dim8.txt")[0]
    asked: list[int] = []

    def stop_on_third_question() -> bool:
        asked.append(1)
        return len(asked) >= 3

    with pytest.raises(Stopped):
        build_formula(board, "default", stop_on_third_question)
    assert len(asked) == 3
    for variant in ("default", "steps"):
        never = build_formula(board, variant, lambda: False)
        assert never.clauses == build_formula(board, variant).clauses, variant
    backend = CnfBackend()
    backend.stop()  # a stop before solve() is forgotten: solve() starts afresh
    assert backend.solve(real_game_board(), 60).status is Status.SOLVED


# The DIMACS text and variable map (sha256, first 16 hex digits) of the default encoding, as written by the
# builder before it was made fast: a certificate's NAME.cnf must equal the board's encoding made afresh, so
# a certificate written earlier stays checkable only while the same board gives the same text.
FROZEN_ENCODINGS = [
    ("real-game.txt", 0, {}, "33a90328a95096f5"),
    ("real-game.txt", 0, {"card": "totalizer"}, "14458a9d4f2d69f2"),
    ("real-game.txt", 0, {"one_move_per_step": True}, "327104d748650a3b"),
    ("real-game.txt", 0, {"sync": "bits"}, "b86cec37bd9917da"),
    ("real-game.txt", 0, {"free": "clear"}, "38a0f5cd7bdb1ba6"),
    ("real-game.txt", 0, {"prune": False}, "bcc67bc4b72b0786"),
    ("generated-dim8.txt", 0, {}, "07e792dee2104565"),
    ("generated-dim8.txt", 0, {"one_move_per_step": True}, "f9a1a7ca2eac0fdb"),
    ("generated-dim8.txt", 0, {"free": "clear"}, "315240830e450ae0"),
    ("generated-dim8.txt", 0, {"prune": False}, "4347bd90a292b5cb"),
    ("generated-unsolvable.txt", 0, {}, "954677959234713b"),
    ("hexmatch-hard-quintessence.txt.xz", 0, {}, "edda40a77bb3bc4a"),
    ("hexmatch-hard-quintessence.txt.xz", 0, {"one_move_per_step": True}, "e3a1f69d0ae0e93b"),
    ("hexmatch-hard-quintessence.txt.xz", 0, {"prune": False}, "f1381dfda578a5a9"),
    ("side10.txt", 0, {}, "9c784afe5c301bbe"),
]


@pytest.mark.parametrize(("name", "index", "options", "digest"), FROZEN_ENCODINGS)
def test_the_encoding_is_the_one_earlier_certificates_hold(name: str, index: int, options: dict, digest: str) -> None:
    import hashlib
    import lzma

    from sigmar.encoders.cnf.default import build

    path = Path(__file__).parent / "data" / name if name == "side10.txt" else INSTANCES / name
    text = lzma.decompress(path.read_bytes()).decode() if name.endswith(".xz") else path.read_text()
    formula = build(parse_boards(text, name)[index], **options)
    made = hashlib.sha256((formula.to_dimacs() + formula.sidecar()).encode()).hexdigest()[:16]
    assert made == digest


def test_the_build_gives_the_cycle_collector_back() -> None:
    """The builder holds Python's cycle collector off while it makes its lists, and turns it back on
    after, stopped or not; a collector that was off stays off."""
    import gc

    from sigmar.models.stopped import Stopped

    board = read_boards(INSTANCES / "generated-dim8.txt")[0]
    assert gc.isenabled()
    seen: list[bool] = []

    def stop_at_once() -> bool:
        seen.append(gc.isenabled())
        return True

    with pytest.raises(Stopped):
        build_formula(board, "default", stop_at_once)
    assert seen == [False] and gc.isenabled()
    build_formula(board)
    assert gc.isenabled()
    gc.disable()
    try:
        build_formula(board)
        assert not gc.isenabled()
    finally:
        gc.enable()


@given(
    limit=st.floats(min_value=0.0, max_value=1e4, allow_nan=False),
    encode=st.floats(min_value=0.0, max_value=1e4, allow_nan=False),
)
def test_a_refutation_leaves_its_check_time_inside_the_limit(limit: float, encode: float) -> None:
    """The solver of a proof-logging backend stops where the runner's check still ends by the time limit
    (its cost estimated from the encoding and the solve), and never gets a negative budget."""
    from sigmar.encoders.cnf.backend import CHECK_PER_ENCODE, CHECK_PER_SOLVE, solve_budget

    proving = solve_budget(limit, encode, certifies=True)
    claiming = solve_budget(limit, encode, certifies=False)
    assert 0.0 <= proving <= claiming == max(limit - encode, 0.0)
    if proving > 0:
        checked_by = encode + proving + CHECK_PER_ENCODE * encode + CHECK_PER_SOLVE * proving
        assert checked_by == pytest.approx(limit)


def test_the_solver_is_given_the_budget_that_leaves_the_check_its_time() -> None:
    board = read_boards(INSTANCES / "generated-dim8.txt")[0]
    answer = CnfBackend().solve(board, 30)
    stats = answer.statistics
    assert stats["solve_limit"] < 30 - stats["encode_seconds"]
    assert answer.status in (Status.SOLVED, Status.UNSOLVABLE)


def test_the_partner_solver_refutes_with_a_proof_that_checks() -> None:
    """CaDiCaL in its forked child: its "no" comes with a DRUP proof of the formula, and it stops Glucose."""
    from sigmar.encoders.cnf.backend import Partner
    from sigmar.encoders.processes.forked import Forked
    from sigmar.runners.checking.rup_check import check_proof

    board = read_boards(INSTANCES / "generated-unsolvable.txt")[6]  # not refuted by unit propagation alone
    formula = build_formula(board)
    interrupted: list[int] = []
    partner = Partner(Forked(), formula.clauses, 60)
    partner.start(lambda: interrupted.append(1))
    partner._thread.join(90)
    heard = partner.answer()
    partner.finish()
    assert heard is not None and interrupted == [1]
    ok, model, _, proof = heard
    assert ok is False and model is None and proof is not None
    assert check_proof(formula.clauses, proof.encode(), formula.nv).valid
    assert not check_proof(formula.clauses, b"0\n", formula.nv).valid  # the proof is what makes it valid


@pytest.mark.parametrize("mode", ["beside", "alone", "glucose first"])
@pytest.mark.parametrize("which", ["unsolvable", "solvable"])
def test_a_large_formula_is_solved_by_the_partner(monkeypatch: pytest.MonkeyPatch, which: str, mode: str) -> None:
    """From PARTNER_FROM_CLAUSES clauses up (here every formula) the partner answers beside Glucose (the first
    of the two), alone, or after Glucose's few conflicts, which settle these small boards: a "no" with a proof
    of the board's own formula, a "yes" with moves the rules accept; no child is left behind."""
    import multiprocessing

    from sigmar.encoders.cnf import backend as cnf_backend
    from sigmar.runners.checking.rup_check import check_proof

    monkeypatch.setattr(cnf_backend, "PARTNER_FROM_CLAUSES", 0)
    monkeypatch.setattr(cnf_backend, "GLUCOSE_BESIDE", mode == "beside")
    if mode == "alone":
        monkeypatch.setattr(cnf_backend, "GLUCOSE_FIRST_CONFLICTS", 0)
    board = read_boards(INSTANCES / "generated-unsolvable.txt")[6] if which == "unsolvable" else real_game_board()
    answer = CnfBackend().solve(board, 60)
    by = {"beside": ("glucose42", "cadical153"), "alone": ("cadical153",), "glucose first": ("glucose42",)}
    assert answer.statistics["answered_by"] in by[mode]
    assert answer.backend == f"cnf:{answer.statistics['answered_by']}"  # the name says who answered
    if which == "solvable":
        assert answer.status is Status.SOLVED and verify(board, list(answer.moves)).valid
    else:
        assert answer.status is Status.UNSOLVABLE and answer.certificate is not None
        formula = build_formula(board)
        assert check_proof(formula.clauses, answer.certificate.texts[".drup"].encode(), formula.nv).valid
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("beside", [True, False])
@pytest.mark.parametrize("which", ["unsolvable", "solvable"])
def test_past_the_proving_budget_only_the_partners_yes_counts(
    monkeypatch: pytest.MonkeyPatch, which: str, beside: bool
) -> None:
    """With no time left for a refutation's check (a budget of 0 here) Glucose does not solve and the partner
    goes on to the time limit: its "yes" is the answer, its "no" is not taken (its check would end past the
    limit); no child is left behind."""
    import multiprocessing

    from sigmar.encoders.cnf import backend as cnf_backend

    monkeypatch.setattr(cnf_backend, "PARTNER_FROM_CLAUSES", 0)
    monkeypatch.setattr(cnf_backend, "GLUCOSE_BESIDE", beside)
    monkeypatch.setattr(cnf_backend, "CHECK_PER_ENCODE", 1e6)  # every proving budget 0
    board = read_boards(INSTANCES / "generated-unsolvable.txt")[6] if which == "unsolvable" else real_game_board()
    answer = CnfBackend().solve(board, 60)
    assert answer.statistics["solve_limit"] == 0
    if which == "solvable":
        assert answer.status is Status.SOLVED and answer.statistics["answered_by"] == "cadical153"
        assert answer.backend == "cnf:cadical153"
        assert verify(board, list(answer.moves)).valid
    else:
        assert answer.status is Status.UNKNOWN and answer.certificate is None
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("which", ["unsolvable", "solvable"])
def test_the_race_names_the_solver_that_answered(monkeypatch: pytest.MonkeyPatch, which: str) -> None:
    """CaDiCaL's answer on a large formula (here every formula, CaDiCaL alone) is named ``cnf:cadical153``
    through the race that solve, survey and prove run, in the answer and its JSON line,
    checked or replayed as any other; the lane asked for is still ``cnf`` (the same family)."""
    from sigmar.encoders.cnf import backend as cnf_backend
    from sigmar.runners.checking.trust import family_of
    from sigmar.runners.race import Race
    from sigmar.runners.render.answer_json import result_json

    monkeypatch.setattr(cnf_backend, "PARTNER_FROM_CLAUSES", 0)
    monkeypatch.setattr(cnf_backend, "GLUCOSE_BESIDE", False)
    monkeypatch.setattr(cnf_backend, "GLUCOSE_FIRST_CONFLICTS", 0)
    board = read_boards(INSTANCES / "generated-unsolvable.txt")[6] if which == "unsolvable" else real_game_board()
    with Race(["cnf"]) as race:
        result = race.solve(board, 60).result
    assert result.backend == "cnf:cadical153" and family_of(result.backend) == "cnf"
    assert result.checked if which == "unsolvable" else result.verified
    assert result_json(board, result)["backend"] == "cnf:cadical153"


def test_the_solve_table_shows_the_solver_that_answered(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """``sigmar solve -b cnf`` on a large formula: the table's backend column and the JSON say cnf:cadical153."""
    from sigmar.encoders.cnf import backend as cnf_backend

    monkeypatch.setattr(cnf_backend, "PARTNER_FROM_CLAUSES", 0)
    monkeypatch.setattr(cnf_backend, "GLUCOSE_BESIDE", False)
    monkeypatch.setattr(cnf_backend, "GLUCOSE_FIRST_CONFLICTS", 0)
    path = INSTANCES / "generated-unsolvable.txt"
    assert main(["solve", f"{path}:6", "-b", "cnf"]) == 0
    table = capsys.readouterr().out
    assert "cnf:cadical153" in table and "cnf:glucose42" not in table


def test_bench_keeps_the_backend_asked_and_says_which_solver_answered(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``bench -b cnf`` on a large formula: the row, its grade and its run set stay under ``cnf`` (the name
    asked: scores, families and baselines key on it), and the CSV's ``answered_by``, the BenchExec run's
    ``answered by`` column and the HTML report's cell say ``cnf:cadical153``."""
    from xml.etree import ElementTree as ET

    from sigmar.encoders.cnf import backend as cnf_backend
    from sigmar.runners.bench import read_csv

    monkeypatch.setattr(cnf_backend, "PARTNER_FROM_CLAUSES", 0)
    monkeypatch.setattr(cnf_backend, "GLUCOSE_BESIDE", False)
    monkeypatch.setattr(cnf_backend, "GLUCOSE_FIRST_CONFLICTS", 0)
    out, xml, html = tmp_path / "bench.csv", tmp_path / "xml", tmp_path / "report.html"
    path = INSTANCES / "generated-unsolvable.txt"
    argv = ["bench", f"{path}:6", "-b", "cnf", "--time-limit", "60", "-o", str(out), "--xml", str(xml)]
    assert main([*argv, "--html", str(html)]) == 0
    (row,) = read_csv(out)
    assert (row["backend"], row["answered_by"], row["grade"], row["certified"]) == (
        "cnf",
        "cnf:cadical153",
        "correct",
        "yes",
    )
    (run,) = ET.parse(next(xml.glob("*.xml"))).getroot().iter("run")
    assert {c.get("title"): c.get("value") for c in run.iter("column")}["answered by"] == "cnf:cadical153"
    assert "answered by cnf:cadical153" in html.read_text()  # the board table's cell says it too


@given(st.lists(st.lists(st.integers(min_value=-(2**31) + 1, max_value=2**31 - 1).filter(bool), max_size=6)))
def test_dimacs_clause_lines_are_those_of_a_join_per_clause(clauses: list[list[int]]) -> None:
    """The fast DIMACS text (compiled, ``_clauses.c``, and the list's repr, edited, where it is not built) is the
    text a join per clause writes, empty clauses too; so is the flat array the checker reads (each clause ended
    by a 0) the one a loop over the clauses makes."""
    from array import array

    from sigmar.encoders.cnf import formula

    expected = "".join(" ".join(map(str, c)) + " 0\n" for c in clauses)
    flat = array("i", [x for c in clauses for x in (*c, 0)])
    assert formula._compiled() is not None  # built by install.sh: else this would only test the fallback
    assert formula.dimacs_clauses(clauses) == expected
    assert formula.flat_clauses(clauses) == flat
    compiled = formula._compiled
    try:
        formula._compiled = lambda: None  # type: ignore[assignment]  # the Python writers, as without a compiler
        assert formula.dimacs_clauses(clauses) == expected
        assert formula.flat_clauses(clauses) == flat
    finally:
        formula._compiled = compiled  # type: ignore[assignment]


@pytest.mark.parametrize("bad", [[[1, 0]], [[2**31]], [[-(2**31)]], [[1.0]], [(1, 2)], [[True]]])
def test_the_compiled_writers_refuse_what_is_not_a_clause(bad: list) -> None:
    """A 0 inside a clause, a literal past 32 bits or not an int, a clause not a list: refused, not written wrong
    (a 0 would end a clause early in the checker's array)."""
    from sigmar.encoders.cnf import formula

    compiled = formula._compiled()
    assert compiled is not None
    for write in (compiled.flat, compiled.dimacs):
        with pytest.raises((TypeError, ValueError)):
            write(bad)


def test_the_partner_alone_ends_at_a_stop_from_another_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Alone on a large formula (no Glucose to interrupt), the partner's child is what stop() must end: dense
    side-10 deal 257 is solvable and takes CaDiCaL 3-9 s of CPU, so a stop 0.2 s after the child starts comes
    first; the answer is unknown at once and no child is left behind."""
    import multiprocessing
    import threading

    from sigmar.encoders.cnf import backend as cnf_backend
    from sigmar.models.deal import deal

    monkeypatch.setattr(cnf_backend, "GLUCOSE_BESIDE", False)
    backend = CnfBackend()
    started = threading.Event()
    start_partner = cnf_backend.Partner.start

    def start(partner: cnf_backend.Partner, interrupt: Callable[[], None]) -> None:
        start_partner(partner, interrupt)
        started.set()

    monkeypatch.setattr(cnf_backend.Partner, "start", start)

    def stop_once_started() -> None:
        if started.wait(120):
            time.sleep(0.2)
        backend.stop()

    threading.Thread(target=stop_once_started, daemon=True).start()
    answer = backend.solve(deal("dense", 10, 1, 257), 300)
    assert started.is_set() and answer.status is Status.UNKNOWN
    assert answer.statistics["solve_seconds"] < 60, "the partner ran on after stop()"
    assert multiprocessing.active_children() == []


def test_a_stop_before_glucose_starts_leaves_no_partner_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stop that comes while the formula is loaded: the answer is unknown, and the partner that was
    never started is not waited for (joining a thread never started raised)."""
    from pysat.solvers import Solver as RealSolver

    from sigmar.encoders.cnf import backend as cnf_backend

    monkeypatch.setattr(cnf_backend, "PARTNER_FROM_CLAUSES", 0)
    monkeypatch.setattr(cnf_backend, "GLUCOSE_BESIDE", True)  # the stop comes while Glucose loads
    backend = CnfBackend()

    def stopping_solver(*args: object, **kwargs: object) -> RealSolver:
        backend._stop.set()  # as the race's stop() does from another thread, here while the solver loads
        return RealSolver(*args, **kwargs)

    monkeypatch.setattr("pysat.solvers.Solver", stopping_solver)
    answer = backend.solve(read_boards(INSTANCES / "generated-unsolvable.txt")[6], 30)
    assert answer.status is Status.UNKNOWN


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_variable_map_is_json_with_an_indent_of_one(seed: int) -> None:
    """The variable map (written by json's C encoder, its separators the indent's line breaks) is the text
    ``json.dumps(indent=1)`` writes, for a board's formula and for one with no variable at all."""
    from pysat.formula import IDPool

    def plain(formula: Formula) -> str:
        record = json.loads(formula.sidecar(with_names=False))
        record["names"] = {str(var): name for var, name in formula.names.items()}
        return json.dumps(record, indent=1) + "\n"

    board = random_board(random.Random(seed), 4, 20 + 6 * seed)
    formula = build_formula(board)
    assert formula.nv > 0 and formula.sidecar() == plain(formula)
    empty = Formula(board, "default", [[]], IDPool(), lambda _: [], 0)
    assert empty.sidecar() == plain(empty)
