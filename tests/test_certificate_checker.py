"""The independent certificate checker (docs/formats.md#certificates) against brute force and tampering."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sigmar.encoders.registry import make
from sigmar.models.board import Board, Tile
from sigmar.models.boardfile import format_board, read_boards
from sigmar.models.hexgrid import cells
from sigmar.models.result import Status
from sigmar.models.rules import Position
from sigmar.runners.checking.certificates import check_certificate, check_counts
from sigmar.runners.checking.certify import with_formula
from sigmar.runners.checking.dead_states_check import check_dead_states
from sigmar.runners.checking.stuck_check import Masks, check_stuck, holding, stuck_verdict
from sigmar.runners.checking.verdict import CertificateError
from sigmar.runners.cli import main
from tests.bruteforce import dead_states_text, is_solvable
from tests.conftest import small_boards

ROOT = Path(__file__).resolve().parents[1]
UNSOLVABLE = ROOT / "instances" / "generated-unsolvable.txt"


def small_board(rng: random.Random, dim: int = 3, size: int = 9) -> Board:
    """A few tiles on a small hexagon, rich in metals and quicksilver so that every rule gets a chance."""
    spots = list(cells(dim))
    rng.shuffle(spots)
    metals = rng.sample("123", rng.randint(1, 3))
    symbols = metals + rng.choices("aaffwsvmqq", k=size - len(metals))
    tiles = tuple(Tile(cell, symbol) for cell, symbol in zip(spots, symbols, strict=False))
    ordered = tuple(sorted(tiles, key=lambda t: (t.cell[1], t.cell[0])))
    return Board(dim, ordered, f"small-{rng.random():.6f}")


def first_escape(board: Board, stuck: frozenset) -> tuple | None:
    """A move that takes a tile of K while all of K is present, reachable from the start; None if none.

    This is what a stuck set claims never happens (docs/formats.md#stuck-sets), checked by playing every line.
    """
    seen: set[frozenset] = set()
    stack = [Position.start(board).occupied]
    while stack:
        occupied = stack.pop()
        if occupied in seen:
            continue
        seen.add(occupied)
        for move in Position(board, occupied).legal_moves():
            if set(move.cells) & stuck:
                return move.cells
            stack.append(occupied - set(move.cells))
    return None


def test_every_stuck_set_the_checker_accepts_is_stuck_under_play_and_every_rule_is_used() -> None:
    """All subsets K of 70 small boards: an accepted K never loses a tile in any line of play."""
    rng = random.Random(7)
    first_rules: Counter[str] = Counter()
    accepted = 0
    for _ in range(70):
        board = small_board(rng)
        m = Masks(board)
        full = (1 << m.size) - 1
        for stuck in range(1, full + 1):
            if not stuck_verdict(m, full, stuck).valid:
                continue
            accepted += 1
            first_rules.update(holding(m, full, stuck).values())
            k_cells = frozenset(m.order[i] for i in range(m.size) if stuck >> i & 1)
            escape = first_escape(board, k_cells)
            assert escape is None, f"K={sorted(k_cells)} loses {escape} on\n{format_board(board)}"
            assert not is_solvable(board)
    assert accepted > 100
    assert set(first_rules) == set("abcde"), first_rules


def test_rule_c_counts_quicksilver_against_the_lower_metals() -> None:
    """Tin (2) whose every window holds quicksilver: held by (c) while lead is gone, not while lead is present."""
    # Quicksilver north-west, east and south-east of tin: each window of tin holds at least one.
    from sigmar.models.boardfile import parse_boards

    board = parse_boards("q .\n. 2 q\n. q\n", "ringed")[0]
    tin = next(t.cell for t in board.tiles if t.symbol == "2")
    assert check_stuck(board, [tin]).valid
    with_lead = parse_boards("q 1\n. 2 q\n. q\n", "ringed")[0]
    # With lead north-east, one quicksilver may leave with lead first: a window with one is no wall.
    assert not check_stuck(with_lead, [tin]).valid


def test_a_stuck_set_is_rejected_with_the_tile_that_is_not_held() -> None:
    board = read_boards(UNSOLVABLE)[7]
    result = make("search").solve(board, 30)
    assert result.certificate is not None and result.certificate.kind == "stuck"
    record = result.certificate.json()
    assert check_certificate(board, record).valid
    rejected = 0
    for i in range(len(record["cells"])):
        smaller = {**record, "cells": record["cells"][:i] + record["cells"][i + 1 :]}
        verdict = check_certificate(board, smaller)
        if not verdict.valid:
            rejected += 1
            assert "held by none of rules" in verdict.reason
    assert rejected > 0


def test_a_stuck_set_on_a_solvable_board_is_rejected() -> None:
    board = read_boards(ROOT / "instances" / "small.txt")[0]
    assert is_solvable(board)
    everything = [t.cell for t in board.tiles]
    assert not check_stuck(board, everything).valid


@settings(max_examples=80, deadline=None)
@given(small_boards(), st.integers(1, 2**12 - 1))
def test_any_accepted_stuck_set_means_no_solution(board: Board, chosen: int) -> None:
    m = Masks(board)
    stuck = chosen & ((1 << m.size) - 1)
    assume(stuck != 0 and stuck_verdict(m, (1 << m.size) - 1, stuck).valid)
    assert not is_solvable(board)


def test_counts_certificates() -> None:
    odd = Board(2, (Tile((0, 0), "f"),), "one fire")
    assert check_counts(odd).valid
    board = read_boards(ROOT / "instances" / "small.txt")[0]
    assert not check_counts(board).valid


# ---------------------------------------------------------------- dead-states files


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def unsolvable_small_boards(count: int) -> list[Board]:
    rng = random.Random(11)
    found = []
    while len(found) < count:
        board = small_board(rng, size=8)
        if dead_states_text(board) is not None:
            found.append(board)
    return found


def test_brute_force_closures_are_accepted(tmp_path: Path) -> None:
    for board in unsolvable_small_boards(20):
        path = write(tmp_path, "b.dead.jsonl", dead_states_text(board) or "")
        verdict = check_dead_states(board, path)
        assert verdict.valid, verdict.reason


def test_a_closure_that_reaches_the_empty_board_is_rejected(tmp_path: Path) -> None:
    board = read_boards(ROOT / "instances" / "small.txt")[0]
    occupied = Position.start(board).occupied
    bit = {tile.cell: 1 << i for i, tile in enumerate(board.tiles)}
    states, stack = {}, [occupied]
    while stack:  # every reachable state but the empty one
        state = stack.pop()
        if state in states or not state:
            continue
        states[state] = None
        stack.extend(state - set(m.cells) for m in Position(board, state).legal_moves())
    header = {
        "format": "sigmar-dead-states",
        "version": 1,
        "board": board.name,
        "tiles": [list(board.rowcol(t.cell)) for t in board.tiles],
    }
    lines = [json.dumps(header)] + [json.dumps({"state": format(sum(bit[c] for c in s), "x")}) for s in states]
    verdict = check_dead_states(board, write(tmp_path, "x.dead.jsonl", "\n".join(lines) + "\n"))
    assert not verdict.valid and "empty board" in verdict.reason


def search_dead_states(tmp_path: Path) -> tuple[Board, Path, list[str]]:
    """A board the search refutes by exhausting it, with its dead-states file."""
    for board in read_boards(UNSOLVABLE):
        if "exhausted" not in board.name:
            continue
        result = make("search").solve(board, 30)
        if result.certificate is not None and result.certificate.kind == "dead-states":
            text = result.certificate.texts[".dead.jsonl"]
            return board, write(tmp_path, "s.dead.jsonl", text), text.splitlines()
    pytest.fail("no bundled board is refuted by a dead-states file")


def test_tampered_dead_states_are_rejected(tmp_path: Path) -> None:
    board, path, lines = search_dead_states(tmp_path)
    assert check_dead_states(board, path).valid
    assert len(lines) > 20
    rng = random.Random(3)
    for index in rng.sample(range(2, len(lines)), 10):  # a state dropped
        kept = lines[:index] + lines[index + 1 :]
        verdict = check_dead_states(board, write(tmp_path, "t.dead.jsonl", "\n".join(kept) + "\n"))
        assert not verdict.valid, f"dropping line {index + 1} was not noticed"
        assert "not listed" in verdict.reason
    # the first state must be the whole board
    swapped = [lines[0], lines[2], lines[1], *lines[3:]]
    assert not check_dead_states(board, write(tmp_path, "t.dead.jsonl", "\n".join(swapped) + "\n")).valid
    # a stuck set that does not hold, attached to the start
    start = json.loads(lines[1])
    claimed = [*lines[:1], json.dumps({**start, "stuck": [0]}), *lines[2:]]
    verdict = check_dead_states(board, write(tmp_path, "t.dead.jsonl", "\n".join(claimed) + "\n"))
    assert not verdict.valid and "stuck set fails" in verdict.reason


def test_a_state_of_another_board_is_rejected(tmp_path: Path) -> None:
    board, path, lines = search_dead_states(tmp_path)
    other = next(b for b in read_boards(UNSOLVABLE) if b.tiles != board.tiles)
    with pytest.raises(CertificateError, match="another board|empty cell"):
        check_dead_states(other, path)
    # a state line replaced by a state of the same size from elsewhere leaves its parent open
    foreign = json.dumps({"state": format((1 << len(board.tiles)) - 1 - 0b1011, "x")})
    replaced = [*lines[:5], foreign, *lines[6:]]
    assert not check_dead_states(board, write(tmp_path, "t.dead.jsonl", "\n".join(replaced) + "\n")).valid


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda lines: lines[:-1] + [lines[-1][:5]], "not JSON|newline"),
        (lambda lines: ["not json", *lines[1:]], "line 1"),
        (lambda lines: [lines[0], '{"state": "zz"}', *lines[2:]], "hexadecimal"),
        (lambda lines: [lines[0], '{"state": "' + "f" * 40 + '"}', *lines[2:]], "beyond"),
        (lambda lines: [lines[0].replace('"tiles":[[', '"tiles":[[99,'), *lines[1:]], "line 1"),
    ],
)
def test_malformed_dead_states_raise_with_a_line(tmp_path: Path, damage, message: str) -> None:
    board, _, lines = search_dead_states(tmp_path)
    text = "\n".join(damage(lines))
    text = text if "newline" in message else text + "\n"
    with pytest.raises(CertificateError, match=message):
        check_dead_states(board, write(tmp_path, "m.dead.jsonl", text))


# ---------------------------------------------------------------- drup


def cnf_certificate(tmp_path: Path) -> tuple[Board, Path]:
    for board in read_boards(UNSOLVABLE):
        if "exhausted" not in board.name:
            continue
        result = make("cnf").solve(board, 60)
        if result.status is Status.UNSOLVABLE and result.certificate is not None:
            assert set(result.certificate.texts) == {".drup"}, "the prover sends its proof; the runner the formula"
            for suffix, text in with_formula(board, result.certificate).texts.items():
                write(tmp_path, f"p{suffix}", text)
            return board, tmp_path / "p.drup"
    pytest.fail("cnf refuted no bundled board")


def test_drup_certificates_tie_to_their_board(tmp_path: Path) -> None:
    board, drup = cnf_certificate(tmp_path)
    record = {"kind": "drup", "file": str(drup)}
    assert check_certificate(board, record).valid
    formula = (tmp_path / "p.cnf").read_text().splitlines()
    header = next(i for i, line in enumerate(formula) if line.startswith("p cnf"))
    _, _, nv, nc = formula[header].split()
    # a clause dropped (the header adjusted so that the file still parses)
    dropped = formula[:header] + [f"p cnf {nv} {int(nc) - 1}"] + formula[header + 2 :]
    (tmp_path / "p.cnf").write_text("\n".join(dropped) + "\n")
    verdict = check_certificate(board, record)
    assert not verdict.valid and "missing" in verdict.reason
    # an empty clause added: the proof would be trivial, but it is not this board's formula
    emptied = formula[:header] + [f"p cnf {nv} {int(nc) + 1}", "0"] + formula[header + 1 :]
    (tmp_path / "p.cnf").write_text("\n".join(emptied) + "\n")
    assert not check_certificate(board, record).valid
    (tmp_path / "p.cnf").write_text("\n".join(formula) + "\n")
    # every lemma flipped in turn until one no longer follows
    proof = drup.read_text().splitlines()
    lemma = next(i for i, line in enumerate(proof) if line.strip() not in ("0", "") and not line.startswith("d"))
    literals = proof[lemma].split()
    proof[lemma] = " ".join([str(-int(literals[0])), *literals[1:]])
    drup.write_text("\n".join(proof[: lemma + 1]) + "\n0\n")
    assert not check_certificate(board, record).valid
    # another board's certificate
    other = next(b for b in read_boards(UNSOLVABLE) if b.tiles != board.tiles)
    drup.write_text("\n".join(proof) + "\n")
    assert not check_certificate(other, record).valid


def test_a_prepared_encoding_serves_only_its_own_board(tmp_path: Path) -> None:
    """The race makes the check's encoding ahead (fresh_formula.prepare): still the board's own, and only its."""
    from sigmar.runners.checking import fresh_formula

    board, drup = cnf_certificate(tmp_path)
    record = {"kind": "drup", "file": str(drup)}
    fresh_formula.prepare(board)
    assert fresh_formula.prepared(board)
    assert check_certificate(board, record).valid
    assert fresh_formula.fresh(board).body == fresh_formula.encode(board).body
    other = next(b for b in read_boards(UNSOLVABLE) if b.tiles != board.tiles)
    fresh_formula.prepare(other)  # another board's encoding in the slot: this board is encoded anew
    assert check_certificate(board, record).valid
    assert not check_certificate(other, record).valid, "the prepared encoding of another board"
    formula = (tmp_path / "p.cnf").read_text().splitlines()
    header = next(i for i, line in enumerate(formula) if line.startswith("p cnf"))
    _, _, nv, nc = formula[header].split()
    emptied = formula[:header] + [f"p cnf {nv} {int(nc) + 1}", "0"] + formula[header + 1 :]
    (tmp_path / "p.cnf").write_text("\n".join(emptied) + "\n")
    fresh_formula.prepare(board)
    assert not check_certificate(board, record).valid, "a formula with an empty clause, the encoding prepared"


def test_an_encoding_made_at_check_time_is_kept_for_the_check_until_released() -> None:
    """Writing a DRUP certificate's formula and checking it share one encoding of the board, not one each."""
    from sigmar.runners.checking import fresh_formula

    board = next(iter(read_boards(UNSOLVABLE)))
    fresh_formula.release(board)
    assert not fresh_formula.prepared(board)
    made = fresh_formula.fresh(board)
    assert fresh_formula.prepared(board) and fresh_formula.fresh(board) is made
    fresh_formula.release(board)
    assert not fresh_formula.prepared(board) and fresh_formula.fresh(board) is not made
    fresh_formula.release(board)


def test_an_encoding_made_ahead_stops_once_it_is_not_wanted() -> None:
    """The race asks for the check's encoding while search may still settle the board: released (the board
    settled) or replaced by another board's, one still being made stops at its next step, and is never served."""
    from sigmar.runners.checking import fresh_formula

    boards = read_boards(UNSOLVABLE)
    board, other = boards[0], next(b for b in boards if b.tiles != boards[0].tiles)
    slot = fresh_formula._Slot(board)
    slot.dropped = True
    with pytest.raises(fresh_formula.Dropped):
        fresh_formula.encode(board, slot)
    fresh_formula.prepare(board)
    first = fresh_formula._slot
    fresh_formula.prepare(other)
    assert first is not None and first.dropped, "another board's encoding asked for: the first one goes on"
    fresh_formula.release(other)
    assert not fresh_formula.prepared(other) and not fresh_formula.prepared(board)
    assert fresh_formula.fresh(board).body == fresh_formula.encode(board).body, "a dropped one was served"
    fresh_formula.release(board)


# ---------------------------------------------------------------- sigmar check


def test_sigmar_check_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board, path, lines = search_dead_states(tmp_path)
    boards = write(tmp_path, "boards.txt", format_board(board) + "\n")
    assert main(["check", str(boards), str(path)]) == 0
    assert "valid" in capsys.readouterr().out
    write(tmp_path, "bad.dead.jsonl", "\n".join(lines[:3] + lines[4:]) + "\n")
    assert main(["check", str(boards), str(tmp_path / "bad.dead.jsonl"), "--json"]) == 3
    record = json.loads(capsys.readouterr().out)
    assert record["valid"] is False and "line" in record["reason"]
    write(tmp_path, "cut.dead.jsonl", "\n".join(lines)[:-7])
    assert main(["check", str(boards), str(tmp_path / "cut.dead.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "cut.dead.jsonl" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    other = next(b for b in read_boards(UNSOLVABLE) if b.tiles != board.tiles)
    others = write(tmp_path, "other.txt", format_board(other) + "\n")
    assert main(["check", str(others), str(path)]) == 2
    assert "another board" in capsys.readouterr().err
    write(tmp_path, "junk.txt", "hello\n")
    assert main(["check", str(boards), str(tmp_path / "junk.txt")]) == 2


def test_sigmar_check_reads_the_json_of_prove(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    boards = read_boards(UNSOLVABLE)[:4]
    file = write(tmp_path, "four.txt", "\n".join(format_board(b) for b in boards) + "\n")
    assert main(["prove", str(file), "--proof-dir", str(tmp_path / "proofs"), "--json"]) == 0
    answers = write(tmp_path, "answers.jsonl", capsys.readouterr().out)
    assert main(["check", str(file), str(answers), "--json"]) == 0
    checked = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(checked) == 4 and all(c["valid"] for c in checked)
