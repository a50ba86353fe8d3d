"""docs/formats.md is enough to check a certificate: a second checker written from it agrees with `sigmar check`.

The second checker (tests/formats_checker) imports nothing of sigmar's; the
harness (tests/formats_checker/crosscheck.py) proves boards with `sigmar prove`
and hands each certificate, and damaged copies of it, to both checkers.
Here a sample of scripts/bench/prove_swapped_boards.py's boards, with every certificate
kind it meets, and small boards where every stuck-set rule decides;
`python tests/formats_checker/crosscheck.py --dense 60` runs all of bench_prove's
boards through `sigmar prove` (103 certificates and 315 damaged copies with
the dense deals, about four minutes).
"""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.models.board import Board, Tile
from sigmar.models.boardfile import format_board, read_boards
from sigmar.models.facts import facts_of
from sigmar.models.hexgrid import cells, from_rowcol
from sigmar.models.stuck_sets import largest_stuck_set, stuck_set
from sigmar.runners.checking.certificates import check_certificate
from sigmar.runners.checking.rup_check import check_rup
from sigmar.runners.checking.stuck_check import holding_rules
from sigmar.runners.checking.verdict import CertificateError
from tests.bruteforce import dead_states_text
from tests.formats_checker import check as second_check
from tests.formats_checker import crosscheck
from tests.formats_checker.drup import forward_rup
from tests.script_loader import load_script

ROOT = Path(__file__).resolve().parents[1]


def _harness() -> Any:
    return crosscheck


# Boards of prove_swapped_boards.py's run (--tries 200 --seed 1), chosen for their certificates: a stuck set
# on a swapped board and on a generated deadlock, and a dead-states file, from the search; and a
# DRUP proof from cnf.  (Answering with one backend, not `prove`'s race, keeps this test short.)
SAMPLE = {
    "easy 53 swap 20<->2": "search",
    "unsolvable 1:28 deadlock template 5 [unsolvable: static]": "search",
    "easy 79 swap 4<->37 9<->43 52<->13": "search",
    "unsolvable 1:24 shuffle template 30 [unsolvable: exhausted]": "cnf",
}


def test_the_second_checker_agrees_with_sigmar_check_on_a_sample_of_bench_prove(tmp_path: Path) -> None:
    harness = _harness()
    boards = [b for b in harness.bench_prove_boards(200, 1) if b.name in SAMPLE]
    assert sorted(b.name for b in boards) == sorted(SAMPLE)
    rows = []
    for backend in ("search", "cnf"):
        chosen = [b for b in boards if SAMPLE[b.name] == backend]
        rows += harness.crosscheck(chosen, tmp_path / backend, command=("solve", "-b", backend))
    genuine = [r for r in rows if r["tamper"] is None]
    damaged = [r for r in rows if r["tamper"] is not None]
    assert sorted(r["kind"] for r in genuine) == ["dead-states", "drup", "stuck", "stuck"]
    for row in genuine:
        assert (row["sigmar"], row["second"]) == (0, 0), row
    assert {r["tamper"] for r in damaged} == {
        "a cell swapped",
        "K cut to one tile",
        "a state dropped",
        "the start dropped",
        "a lemma altered",
        "a clause dropped",
        "another board",
    }
    for row in damaged:
        assert row["sigmar"] == row["second"] != 0, row


def test_counts_certificates_agree(tmp_path: Path) -> None:
    """Both checkers on the hand-made boards of instances/small.txt: counts certificates hold only where they should."""
    boards = read_boards(ROOT / "instances" / "small.txt")
    board_file = tmp_path / "small.txt"
    board_file.write_text("\n".join(format_board(b) for b in boards))
    harness = _harness()
    verdicts = set()
    for board in boards:
        cert = tmp_path / "counts.json"
        cert.write_text(json.dumps({"kind": "counts", "file": None}) + "\n")
        args = ["check", str(board_file), str(cert), "--board", board.name]
        first, second = harness.sigmar_status(args), second_check(board_file, cert, board.name)
        assert first == second, board.name
        assert (first == 0) == board.name.endswith("[unsolvable: counts]"), board.name
        verdicts.add(first)
    assert verdicts == {0, 3}


def _random_formula(rng: random.Random) -> tuple[int, list[list[int]]]:
    variables = rng.randint(3, 7)
    clauses = []
    for _ in range(rng.randint(8, 40)):
        chosen = rng.sample(range(1, variables + 1), rng.randint(1, 3))
        clauses.append([v if rng.random() < 0.5 else -v for v in chosen])
    return variables, clauses


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(["none", "flip", "drop", "forge"]))
def test_forward_rup_agrees_with_the_forward_engine_of_sigmar(seed: int, damage: str) -> None:
    """The page's simple DRUP check against sigmar's forward engine (pysat), on small proofs and damaged ones."""
    from pysat.solvers import Solver

    rng = random.Random(seed)
    variables, clauses = _random_formula(rng)
    with Solver(name="glucose4", bootstrap_with=clauses, with_proof=True) as solver:
        if solver.solve():
            return  # nothing to refute
        proof = solver.get_proof() or []
    lemmas = [[int(x) for x in line.split()[:-1]] for line in proof if not line.startswith("d")]
    if damage == "flip" and lemmas and lemmas[0]:
        lemmas[0][0] = -lemmas[0][0]
    elif damage == "drop" and lemmas:
        del lemmas[rng.randrange(len(lemmas))]
    elif damage == "forge":
        # A variable the clauses name: check_rup knows the formula by its clauses alone, and refuses a
        # proof that names a variable beyond them (a variable drawn but never used made the two disagree).
        v = rng.choice(sorted({abs(lit) for clause in clauses for lit in clause}))
        lemmas = [[v], [-v], []]
    ours, _ = forward_rup(variables, clauses, lemmas)
    theirs = check_rup(clauses, [(False, lemma) for lemma in lemmas], engine="pysat")
    assert ours == theirs.valid


def test_dead_states_with_stuck_sets_agree(tmp_path: Path) -> None:
    """A search's dead-states file whose states also carry stuck sets (a dense deal; bench_prove's have none)."""
    harness = _harness()
    board = next(b for b in harness.dense_deals(34) if b.name == "dense-6-s3-33")
    rows = harness.crosscheck([board], tmp_path, command=("solve", "-b", "search"))
    assert [(r["kind"], r["sigmar"], r["second"]) for r in rows if r["tamper"] is None] == [("dead-states", 0, 0)]
    damaged = [r for r in rows if r["tamper"] is not None]
    assert {r["tamper"] for r in damaged} >= {"a stuck set dropped", "a stuck set cut to one tile"}
    for row in damaged:
        assert row["sigmar"] == row["second"] != 0, row


# ---------------------------------------------------------------- small boards, every rule


def _small_board(rng: random.Random) -> Board:
    """A few tiles on a small hexagon, rich in metals and quicksilver so that every rule (a)-(e) gets a chance."""
    spots = list(cells(3))
    rng.shuffle(spots)
    metals = rng.sample("123", rng.randint(1, 3))
    symbols = metals + rng.choices("aaffwsvmqq", k=rng.randint(5, 9) - len(metals))
    tiles = sorted((Tile(c, s) for c, s in zip(spots, symbols, strict=False)), key=lambda t: (t.cell[1], t.cell[0]))
    return Board(3, tuple(tiles), "small")


def _both_on(tmp_path: Path, board: Board, certificate: Path, record: dict[str, Any]) -> tuple[int, int]:
    """sigmar's checker (called directly: faster than its command line) and the second one, as exit statuses."""
    board_file = tmp_path / "board.txt"
    board_file.write_text(format_board(board))
    try:
        first = 0 if check_certificate(board, record).valid else 3
    except CertificateError:
        first = 2
    with contextlib.redirect_stdout(io.StringIO()):
        return first, second_check(board_file, certificate)


def test_stuck_sets_agree_on_small_boards_for_every_rule(tmp_path: Path) -> None:
    """Random sets K (and the largest stuck set, and it less one tile) on 100 small boards: same verdict."""
    rng = random.Random(5)
    deciding: Counter[str] = Counter()
    verdicts: Counter[int] = Counter()
    for _ in range(100):
        board = _small_board(rng)
        largest = sorted(stuck_set(board))
        candidates = [rng.sample(range(len(board.tiles)), rng.randint(1, len(board.tiles)))]
        if largest:
            candidates += [largest, largest[1:]] if len(largest) > 1 else [largest]
        for chosen in candidates:
            if not chosen:
                continue
            cells_ = [list(board.rowcol(board.tiles[i].cell)) for i in chosen]
            cert = tmp_path / "k.json"
            record = {"kind": "stuck", "file": None, "cells": cells_}
            cert.write_text(json.dumps(record) + "\n")
            first, second = _both_on(tmp_path, board, cert, record)
            assert first == second, (format_board(board), cells_)
            verdicts[first] += 1
            if first == 0:
                deciding.update(holding_rules(board, [board.tiles[i].cell for i in chosen]).values())
    assert verdicts[0] and verdicts[3]
    assert set(deciding) == set("abcde")


def test_dead_states_agree_on_small_boards(tmp_path: Path) -> None:
    """Every reachable state of small unsolvable boards, whole, with a state dropped, or with stuck sets added."""
    rng = random.Random(7)
    verdicts: Counter[int] = Counter()
    boards = 0
    while boards < 25:
        board = _small_board(rng)
        text = dead_states_text(board)
        if text is None:
            continue
        boards += 1
        lines = text.splitlines()
        variants = [lines]
        if len(lines) > 2:
            drop = rng.randrange(2, len(lines))
            variants.append(lines[:drop] + lines[drop + 1 :])
        annotated = []
        for line in lines[1:]:  # each state with its largest stuck set, or a random set, as "stuck"
            record = json.loads(line)
            state = int(record["state"], 16)
            present = [i for i in range(len(board.tiles)) if state >> i & 1]
            k = largest_stuck_set(facts_of(board), state) if rng.random() < 0.7 else sum(1 << i for i in present[:2])
            if k:
                record["stuck"] = [i for i in range(len(board.tiles)) if k >> i & 1]
            annotated.append(json.dumps(record))
        variants.append(lines[:1] + annotated)
        for variant in variants:
            cert = tmp_path / "d.dead.jsonl"
            cert.write_text("\n".join(variant) + "\n")
            first, second = _both_on(tmp_path, board, cert, {"kind": "dead-states", "file": str(cert)})
            assert first == second, (format_board(board), variant)
            verdicts[first] += 1
    assert verdicts[0] and verdicts[3]


def _cut(lines: list[str]) -> str:
    return "\n".join(lines)[:-7]


def _swap_header(lines: list[str], **changes: Any) -> str:
    return "\n".join([json.dumps({**json.loads(lines[0]), **changes}), *lines[1:]]) + "\n"


def _state_line(lines: list[str], record: dict[str, Any]) -> str:
    return "\n".join([*lines[:2], json.dumps(record), *lines[2:]]) + "\n"


MALFORMED_DEAD_STATES = {
    "truncated": _cut,
    "not JSON": lambda lines: "\n".join([*lines, "{not json"]) + "\n",
    "no states": lambda lines: lines[0] + "\n",
    "another format": lambda lines: _swap_header(lines, format="something-else"),
    "another version": lambda lines: _swap_header(lines, version=2),
    "a tile twice": lambda lines: _swap_header(
        lines, tiles=[*json.loads(lines[0])["tiles"][:-1], json.loads(lines[0])["tiles"][0]]
    ),
    "a tile missing": lambda lines: _swap_header(lines, tiles=json.loads(lines[0])["tiles"][:-1]),
    "a cell off the board": lambda lines: _swap_header(lines, tiles=[[40, 40], *json.loads(lines[0])["tiles"][1:]]),
    "not hexadecimal": lambda lines: _state_line(lines, {"state": "xyz"}),
    "a tile beyond the header": lambda lines: _state_line(lines, {"state": "f" * 40}),
    "a stuck index out of range": lambda lines: _state_line(lines, {"state": "1", "stuck": [99]}),
    "a stuck index twice": lambda lines: _state_line(lines, {"state": "3", "stuck": [0, 0]}),
}


def test_malformed_certificates_are_malformed_for_both(tmp_path: Path) -> None:
    """Exit 2 from both checkers for every way the page says a file is malformed."""
    rng = random.Random(3)
    board = next(b for b in (_small_board(rng) for _ in range(500)) if dead_states_text(b) is not None)
    lines = (dead_states_text(board) or "").splitlines()
    for what, damage in MALFORMED_DEAD_STATES.items():
        cert = tmp_path / "m.dead.jsonl"
        cert.write_text(damage(lines))
        assert _both_on(tmp_path, board, cert, {"kind": "dead-states", "file": str(cert)}) == (2, 2), what
    first = list(board.rowcol(board.tiles[0].cell))
    empty = next(
        [r, c] for r in range(5) for c in range(3 + min(r, 4 - r)) if board.symbol_at.get(from_rowcol(r, c, 3)) is None
    )
    for what, cells_ in {
        "no cells": [],
        "a cell off the board": [[9, 9]],
        "an empty cell": [empty],
        "a cell twice": [first, first],
        "not a pair": [[0]],
    }.items():
        record = {"kind": "stuck", "file": None, "cells": cells_}
        cert = tmp_path / "k.json"
        cert.write_text(json.dumps(record) + "\n")
        assert _both_on(tmp_path, board, cert, record) == (2, 2), what
    record = {"kind": "lrat-or-anything", "file": None}
    cert = tmp_path / "u.json"
    cert.write_text(json.dumps(record) + "\n")
    assert _both_on(tmp_path, board, cert, record) == (2, 2)


def test_malformed_drup_triples_are_malformed_for_both(tmp_path: Path) -> None:
    """A DRUP triple with a file missing, a formula or proof that does not parse: exit 2 from both."""
    from sigmar.encoders.registry import make
    from sigmar.runners.checking.certify import with_formula

    rng = random.Random(4)
    for _ in range(500):
        board = _small_board(rng)
        result = make("cnf").solve(board, 30)
        if result.certificate is not None and result.certificate.kind == "drup":
            break
    else:
        raise AssertionError("cnf refuted none of 500 small boards")
    # cnf sends only its proof; the runner adds the board's formula and variable map
    texts = with_formula(board, result.certificate).texts
    variables = int(next(line for line in texts[".cnf"].splitlines() if line.startswith("p cnf")).split()[2])
    damages = {
        "the variable map missing": {".vars.json": None},
        "the variable map not JSON": {".vars.json": "{oops"},
        "a formula without header": {".cnf": "1 2 0\n"},
        "a formula promising more clauses": {".cnf": texts[".cnf"].replace("p cnf", "p cnf 1 ", 1)},
        "a lemma without its 0": {".drup": "1 2\n0\n"},
        "a lemma beyond the variables": {".drup": f"{variables + 1} 0\n0\n"},
        "a deletion that is no clause": {".drup": "dx 1 0\n0\n"},
    }
    genuine = tmp_path / "genuine"
    genuine.mkdir()
    for suffix, text in texts.items():
        (genuine / f"p{suffix}").write_text(text)
    record = {"kind": "drup", "file": str(genuine / "p.drup")}
    assert _both_on(tmp_path, board, genuine / "p.drup", record) == (0, 0)
    for n, (what, changes) in enumerate(damages.items()):
        folder = tmp_path / str(n)
        folder.mkdir()
        for suffix, text in {**texts, **changes}.items():
            if text is not None:
                (folder / f"p{suffix}").write_text(text)
        record = {"kind": "drup", "file": str(folder / "p.drup")}
        assert _both_on(tmp_path, board, folder / "p.drup", record) == (2, 2), what


def test_drcp_certificates_and_tampered_copies_get_the_same_verdict_from_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pumpkin's refutations of a dense deal and of a small board, then copies tampered as
    scripts/bench/drcp_certificates.py tampers them (steps dropped, hints cut or swapped, literals flipped, tags and
    labels changed, the model weakened): sigmar check and the second checker agree on each."""
    monkeypatch.syspath_prepend(str(ROOT / "scripts" / "bench"))  # the scripts' shared helper, benchlib
    bench = load_script("drcp_certificates")
    boards = [*bench.dense_deals(4, 1)[2:4], read_boards(ROOT / "instances" / "small.txt")[11]]
    folder = tmp_path / "proofs"
    rows = bench.run_dense(boards, 60, folder)["rows"]
    sources = [r for r in rows if r["certificate"] == "drcp"]
    assert len(sources) == 3 and all(r["checked"] for r in sources), rows
    for row in sources:
        board_file = tmp_path / "board.txt"
        board_file.write_text(format_board(next(b for b in boards if b.name == row["board"])))
        with contextlib.redirect_stdout(io.StringIO()):
            assert second_check(board_file, row["file"]) == 0
    found = bench.run_mutants(rows, boards, 2 * len(bench.KINDS), tmp_path / "mutants")
    assert found["mutants"] == 2 * len(bench.KINDS)
    assert found["checkers_differ"] == 0 and found["accepted_not_genuine"] == 0, found
    assert found["accepted"] < found["mutants"] // 2, found
