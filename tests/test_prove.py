"""``sigmar prove``: the RUP checker rejects tampered proofs; every answer is checked or verified."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from pysat.examples.genhard import PHP
from pysat.solvers import Solver

from sigmar.models.board import Board, Tile
from sigmar.models.boardfile import parse_boards, read_boards
from sigmar.models.hexgrid import cells
from sigmar.models.result import CertificateKind, Reason, Result, Status
from sigmar.models.rules import count_problem, verify
from sigmar.models.stuck_sets import unsolvable_reason
from sigmar.runners.checking import rup_check
from sigmar.runners.checking.certify import proof_stem
from sigmar.runners.cli import main
from sigmar.runners.prove import prove
from sigmar.runners.render.answer_json import exit_code
from tests.bruteforce import solve_by_brute_force

ROOT = Path(__file__).resolve().parents[1]


def glucose_proof(clauses: list[list[int]]) -> list[rup_check.Step]:
    with Solver(name="glucose4", with_proof=True, bootstrap_with=clauses) as solver:
        assert solver.solve() is False
        return rup_check.proof_lines(solver.get_proof())


def naive_rup(formula: list[list[int]], steps: list[rup_check.Step]) -> bool:
    """A slow, obviously right forward RUP check in plain Python: the oracle for the tamper tests."""

    def conflict(clauses: list[list[int]], assumed: set[int]) -> bool:
        true = set(assumed)
        changed = True
        while changed:
            changed = False
            for clause in clauses:
                if any(lit in true for lit in clause):
                    continue
                open_lits = [lit for lit in clause if -lit not in true]
                if not open_lits:
                    return True
                if len(open_lits) == 1:
                    true.add(open_lits[0])
                    changed = True
        return False

    clauses = [list(c) for c in formula]
    for deletion, lemma in steps:
        if deletion:
            continue
        if not conflict(clauses, {-lit for lit in lemma}):
            return False
        if not lemma:
            return True
        clauses.append(lemma)
    return conflict(clauses, set())


# ----------------------------------------------------------------------------- the checker


def test_checker_accepts_a_real_proof_of_the_pigeonhole_principle() -> None:
    php = PHP(3).clauses  # 4 pigeons, 3 holes
    steps = glucose_proof(php)
    report = rup_check.check_rup(php, steps)
    assert report.valid, report.message
    assert 0 < report.checked <= report.lemmas


def test_checker_rejects_flipped_literals_and_dropped_lemmas_like_a_naive_checker() -> None:
    php = PHP(4).clauses
    steps = [s for s in glucose_proof(php) if not s[0]]
    assert naive_rup(php, steps)
    rejected = 0
    for index, (_, lemma) in enumerate(steps[:60]):
        tampers = [steps[:index] + steps[index + 1 :]]
        if lemma:
            tampers.append([*steps[:index], (False, [-lemma[0], *lemma[1:]]), *steps[index + 1 :]])
        for tampered in tampers:
            # The forward engine checks every lemma, as the oracle does (the C engine only those used).
            ours = rup_check.check_rup(php, tampered, engine="pysat").valid
            assert ours == naive_rup(php, tampered), f"tampered lemma {index}"
            assert rup_check.check_rup(php, tampered).valid or not ours
            rejected += not ours
    assert rejected > 10


def test_checker_rejects_a_dropped_lemma_that_is_needed() -> None:
    # x and not-x by pairs: the lemma (x) is needed, the formula does not refute itself by propagation.
    formula = [[1, 2], [1, -2], [-1, 3], [-1, -3]]
    assert rup_check.check_rup(formula, [(False, [1]), (False, [])]).valid
    report = rup_check.check_rup(formula, [(False, [])])
    assert not report.valid and "does not follow" in report.message


def test_checker_rejects_a_real_proof_cut_down_to_its_end() -> None:
    php = PHP(4).clauses
    steps = glucose_proof(php)
    assert not rup_check.check_rup(php, steps[-1:]).valid
    assert not rup_check.check_rup(php, []).valid  # no lemma, no conflict: not refuted


def test_checker_agrees_with_the_verified_checker_on_every_dropped_lemma() -> None:
    ok, why = rup_check.drup_available()
    if not ok:
        pytest.skip(why)
    php = PHP(3).clauses
    steps = [s for s in glucose_proof(php) if not s[0]]
    rejected = 0
    for index in range(len(steps) - 1):
        tampered = steps[:index] + steps[index + 1 :]
        ours = rup_check.check_rup(php, tampered, engine="pysat").valid
        theirs = rup_check.second_opinion(php, tampered)
        assert theirs == ("valid" if ours else "invalid"), index
        rejected += not ours
    assert rejected > 0


def test_checker_reads_files_and_rejects_malformed_ones(tmp_path: Path) -> None:
    php = PHP(3).clauses
    steps = glucose_proof(php)
    cnf = tmp_path / "php.cnf"
    cnf.write_text(f"c pigeons\np cnf 12 {len(php)}\n" + "".join(" ".join(map(str, c)) + " 0\n" for c in php))
    drup = tmp_path / "php.drup"
    drup.write_text("".join(("d " if d else "") + " ".join(map(str, [*c, 0])) + "\n" for d, c in steps))
    assert rup_check.check_files(cnf, drup).valid
    assert rup_check.main([str(cnf), str(drup)]) == 0
    text = cnf.read_text()
    assert not rup_check.check_text(text.replace(f"p cnf 12 {len(php)}", "p cnf 12 99"), drup.read_text()).valid
    assert not rup_check.check_text(text, "1 2 x 0\n").valid
    assert not rup_check.check_text(text, "1 2\n").valid
    assert not rup_check.check_text("1 2 0\n", drup.read_text()).valid


# ----------------------------------------------------------------------------- the engine


def test_proof_stems_are_file_names_that_tell_boards_apart() -> None:
    (first,) = parse_boards("# ../../etc/passwd [x]\n  a a\n . . .\n  . .\n")
    (second,) = parse_boards("# ../../etc/passwd [x]\n  e e\n . . .\n  . .\n")
    stem = proof_stem(first)
    assert stem.startswith("etc_passwd_x-") and "/" not in stem
    assert stem == proof_stem(first) != proof_stem(second)  # same name, other tiles: another file
    (nameless,) = parse_boards("# ...\n  a a\n . . .\n  . .\n")
    assert proof_stem(nameless).startswith("board-")


def unsolvable_without_static_reason(seed: int) -> Board:
    """A small random board that brute force shows unsolvable and no cheap argument explains."""
    rng = random.Random(seed)
    order = {cell: i for i, cell in enumerate(cells(3))}
    while True:
        symbols = ["1", "2", "q"]
        while len(symbols) < 12:
            symbols.extend(rng.choice(("aa", "ee", "ff", "sw", "vm")))
        places = rng.sample(cells(3), len(symbols))
        tiles = sorted((Tile(c, s) for c, s in zip(places, symbols, strict=True)), key=lambda t: order[t.cell])
        board = Board(3, tuple(tiles), f"random {seed}")
        if unsolvable_reason(board) is None and solve_by_brute_force(board) is None:
            return board


def test_the_drup_route_writes_a_checked_proof(tmp_path: Path) -> None:
    board = unsolvable_without_static_reason(5)
    proved = prove(board, 60, proof_dir=tmp_path, routes=("cnf",), corroborate_limit=None)
    result = proved.result
    assert result.status is Status.UNSOLVABLE and result.reason is Reason.PROOF, result
    stem = tmp_path / proof_stem(board)
    assert result.certificate is not None and result.certificate.kind is CertificateKind.DRUP
    assert proved.checked and result.certificate.file == f"{stem}.drup"
    for suffix in (".cnf", ".drup", ".vars.json"):
        assert Path(f"{stem}{suffix}").stat().st_size > 0
    # The files alone check, with no help from the engine.
    assert rup_check.check_files(f"{stem}.cnf", f"{stem}.drup").valid
    assert json.loads(Path(f"{stem}.vars.json").read_text())
    if rup_check.drup_available()[0]:
        assert proved.details["second_opinion"] == "valid"


def test_the_search_route_writes_checked_dead_states(tmp_path: Path) -> None:
    board = unsolvable_without_static_reason(5)
    proved = prove(board, 60, proof_dir=tmp_path, routes=("search",), corroborate_limit=None)
    result = proved.result
    assert result.status is Status.UNSOLVABLE and result.reason is Reason.EXHAUSTED, result
    assert result.certificate is not None and result.certificate.kind is CertificateKind.DEAD_STATES
    assert proved.checked and result.certificate.file == str(tmp_path / f"{proof_stem(board)}.dead.jsonl")
    lines = Path(result.certificate.file).read_text().splitlines()
    assert json.loads(lines[0])["format"] == "sigmar-dead-states" and len(lines) > 1


def test_every_unsolvable_bundled_board_gets_a_checked_proof_or_sound_reason() -> None:
    files = [ROOT / "instances" / "small.txt", *sorted((ROOT / "instances").glob("*unsolvable*.txt"))]
    seen = 0
    for path in files:
        for board in read_boards(path):
            if "[unsolvable" not in board.name:
                continue
            seen += 1
            proved = prove(board, 60, corroborate_limit=None, second_opinion=False)
            assert proved.result.status is Status.UNSOLVABLE, f"{path.name}: {board.name}: {proved.result}"
            assert proved.checked, board.name
            assert proved.result.explanation
    assert seen > 0


def test_solvable_boards_come_back_solved_and_verified() -> None:
    standard = read_boards(ROOT / "instances" / "real-game.txt")[:1]
    for board in [*read_boards(ROOT / "instances" / "small.txt"), *standard]:
        if "[unsolvable" in board.name:
            continue
        proved = prove(board, 60, corroborate_limit=None)
        assert proved.result.status is Status.SOLVED and proved.result.verified, board.name
        assert verify(board, proved.result.moves).valid


def test_counts_come_first() -> None:
    (board,) = parse_boards("  v v\n . m .\n  . .\n")
    proved = prove(board, 5)
    assert count_problem(board) is not None
    assert proved.result.reason is Reason.COUNTS and proved.checked
    certificate = proved.result.certificate
    assert certificate is not None and certificate.json() == {"kind": "counts", "file": None}


def test_cli_json_and_exit_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = unsolvable_without_static_reason(5)
    path = tmp_path / "boards.txt"
    from sigmar.models.boardfile import format_board

    solvable = "# a pair\n  a a\n . . .\n  . .\n"
    path.write_text(f"# a board/with odd: name\n{format_board(board, with_name=False)}\n\n{solvable}")
    out = tmp_path / "proofs"
    code = main(["prove", str(path), "--json", "--proof-dir", str(out), "--corroborate", "5"])
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert records[0]["status"] == "unsolvable" and records[0]["reason"] in ("proof", "exhausted")
    certificate = records[0]["certificate"]
    assert records[0]["checked"] is True and certificate["kind"] in ("drup", "dead-states")
    assert Path(certificate["file"]).name.startswith("a_board_with_odd_name-") and Path(certificate["file"]).is_file()
    for answer in records[0].get("corroboration", {}).values():
        assert answer in ("unsolvable", "unknown"), records[0]["corroboration"]
    if records[0].get("corroboration"):  # timed apart from the proof
        assert records[0]["corroboration_seconds"] > 0 and records[0]["seconds"] > 0
    assert records[1]["status"] == "solved" and records[1]["verified"] is True
    assert main(["prove", str(tmp_path / "missing.txt")]) == 2


def test_cli_table_keeps_square_brackets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Board names and proof paths hold brackets; the table must print them, not read them as markup."""
    path = tmp_path / "b.txt"
    path.write_text("# v [x]\n  v v\n . m .\n  . .\n")
    assert main(["prove", str(path), "--no-corroborate"]) == 0
    assert "v [x]" in capsys.readouterr().out


def test_a_certificate_that_does_not_check_is_a_wrong_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    from sigmar.runners.checking import certificates  # certify imports its check_certificate when it checks
    from sigmar.runners.checking.verdict import Verdict

    board = unsolvable_without_static_reason(5)
    monkeypatch.setattr(
        certificates, "check_certificate", lambda board, certificate, **held: Verdict(False, "tampered")
    )
    proved = prove(board, 60, corroborate_limit=None)
    assert not proved.checked and proved.result.wrong and "tampered" in proved.result.message
    assert exit_code([proved.result]) == 3


def test_a_corroborating_solution_against_a_refuted_cnf_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    import sigmar.runners.prove as engine

    board = unsolvable_without_static_reason(5)
    fake = Result(Status.SOLVED, "fake", 0.0, verified=True)
    monkeypatch.setattr(engine, "ask_corroborators", lambda b, limit: ({"fake": "solved"}, fake))
    proved = prove(board, 60, corroborate_limit=1.0)
    assert proved.result.wrong and "checker is wrong" in proved.result.message
    assert proved.corroboration == {"fake": "solved"} and exit_code([proved.result]) == 3


def test_a_drup_proof_gives_way_to_the_dead_states_the_search_finds(tmp_path: Path, monkeypatch) -> None:
    """A DRUP proof that won the race is kept only when the search does not find the dead states in about as long."""
    from sigmar.runners.checking.certify import ProofStore
    from sigmar.runners.prove import READABLE_WAIT, Prover
    from sigmar.runners.race import RaceOutcome

    board = unsolvable_without_static_reason(5)
    drup = prove(board, 60, proof_dir=tmp_path / "drup", routes=("cnf",), corroborate_limit=None).result
    assert drup.checked and drup.certificate is not None and drup.certificate.kind is CertificateKind.DRUP
    with ProofStore(tmp_path / "proofs") as proofs, Prover(proofs, corroborate_limit=None) as engine:
        # the proof took READABLE_WAIT (2 s): the search gets as long, which a busy machine's pause does not end
        won = RaceOutcome(drup.with_(seconds=READABLE_WAIT))
        monkeypatch.setattr(engine.race, "solve", lambda b, limit: won)
        proved = engine.prove(board, 60)
    result = proved.result
    assert result.checked and result.certificate is not None, result
    assert result.certificate.kind is CertificateKind.DEAD_STATES and result.reason is Reason.EXHAUSTED
    assert proved.details["preferred"].startswith("dead-states over drup") and result.seconds >= READABLE_WAIT


def test_prove_prints_each_board_as_it_is_done(tmp_path: Path, capsys, monkeypatch) -> None:
    from sigmar.runners.prove import Prover

    path = tmp_path / "b.txt"
    path.write_text("# one\n  v v\n . m .\n  . .\n\n# two\n  a a\n . . .\n  . .\n\n# three\n  e e\n . . .\n  . .\n")
    printed_before: list[str] = []
    real = Prover.prove

    def prove_and_look(self, board, time_limit):
        printed_before.append(capsys.readouterr().out)
        return real(self, board, time_limit)

    monkeypatch.setattr(Prover, "prove", prove_and_look)
    assert main(["prove", str(path), "--no-corroborate"]) == 0
    rest = capsys.readouterr().out
    header = printed_before[0]
    assert header.startswith("board ") and "proof s" in header and "corrob. s" in header
    # each board's row is out before the next board starts
    assert printed_before[1].startswith("one ") and printed_before[2].startswith("two ")
    assert rest.startswith("three ")
