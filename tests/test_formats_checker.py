"""docs/formats.md is enough to check a certificate: a second checker written from it agrees with `sigmar check`.

The second checker (tests/formats_checker) imports nothing of sigmar's; the
harness (scripts/crosscheck_formats.py) proves boards with `sigmar prove`
and hands each certificate, and damaged copies of it, to both checkers.
Here a sample of scripts/bench_prove.py's boards, with every certificate
kind it meets; `python scripts/crosscheck_formats.py` runs all of them
through `sigmar prove` (56 certificates and 166 damaged copies, about
five minutes).
"""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.models.boardfile import format_board, read_boards
from sigmar.runners.checking.rup_check import check_rup
from tests.formats_checker import check as second_check
from tests.formats_checker.drup import forward_rup

ROOT = Path(__file__).resolve().parents[1]


def _harness() -> Any:
    spec = importlib.util.spec_from_file_location("crosscheck_formats", ROOT / "scripts" / "crosscheck_formats.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Boards of bench_prove.py's run (--tries 200 --seed 1), chosen for their certificates: a stuck set
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
        v = rng.randint(1, variables)
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
