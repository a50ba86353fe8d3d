"""The ``pumpkin`` backend: its "no" comes with a DRCP certificate that the runner completes and the suite checks.

The proof is Pumpkin's, the model beside it the runner's (``certify.with_formula``): the same file as
``sigmar encode --to drcp-model``.  A refutation so certified wins the race like a checked DRUP proof, and
crosscheck settles the board by it (a "no" of another backend beside it stays that backend's claim).
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sigmar.encoders.backend import counts
from sigmar.encoders.order_model import build
from sigmar.encoders.pumpkin import PumpkinBackend
from sigmar.encoders.registry import make
from sigmar.models.board import Board
from sigmar.models.boardfile import format_board, parse_boards, read_boards
from sigmar.models.counting import reference_count
from sigmar.models.fuzz_deal import fuzz_board
from sigmar.models.result import CertificateKind, Reason, Status
from sigmar.runners.checking.certify import ProofStore, certify
from sigmar.runners.checking.replay import replayed
from sigmar.runners.cli import main
from tests.conftest import INSTANCES

pytest.importorskip("pumpkin_solver", reason="pumpkin-solver is not installed (install.sh installs it)")

SMALL = read_boards(INSTANCES / "small.txt")
SEARCH_ONLY = SMALL[11]  # salt must take the earth...: only a search (or a solver) shows it unsolvable
LEAD_RINGED = SMALL[9]  # lead can never be freed: the order model holds the empty clause
# A dense deal of side 6 that Pumpkin refutes after some search (`generate --deal dense --seed 1`, board 3).
DENSE = """\
# dense-6-s1-3
     . . . . . .
    . . . f w w .
   . f m a e f v .
  . f 2 f 1 5 w a .
 . . w f s w e e s .
. a q 6 f a w m e a .
 . m s v q e s q q .
  . q e m w a 4 . .
   . a e w 3 a f .
    . . v . e v .
     . . . . . .
"""


def write(tmp_path: Path, *boards: object) -> Path:
    path = tmp_path / "boards.txt"
    path.write_text("\n".join(format_board(b) for b in boards), encoding="utf-8")  # type: ignore[arg-type]
    return path


def solve_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[dict]]:
    code = main(args)
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


@pytest.mark.parametrize("board", [SEARCH_ONLY, LEAD_RINGED], ids=["search-only", "empty-clause"])
def test_a_refutation_is_a_checked_drcp_certificate_whose_model_is_the_encoding(
    board: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = write(tmp_path, board)
    code, (answer,) = solve_json(
        ["solve", str(file), "-b", "pumpkin", "--proof-dir", str(tmp_path / "p"), "--json"], capsys
    )
    assert code == 0 and answer["status"] == "unsolvable" and answer["backend"] == "pumpkin:order", answer
    assert answer["certificate"]["kind"] == "drcp" and answer["checked"] is True, answer
    proof = Path(answer["certificate"]["file"])
    model = proof.with_name(proof.name.removesuffix(".drcp") + ".drcp-model")
    assert main(["encode", str(file), "--to", "drcp-model", "-o", str(tmp_path / "own.drcp-model")]) == 0
    assert model.read_text() == (tmp_path / "own.drcp-model").read_text()
    capsys.readouterr()
    assert main(["check", str(file), str(proof)]) == 0
    assert "drcp certificate valid" in capsys.readouterr().out


def test_a_tampered_or_missing_model_is_invalid_or_malformed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = write(tmp_path, SEARCH_ONLY)
    _, (answer,) = solve_json(["solve", str(file), "-b", "pumpkin", "--proof-dir", str(tmp_path), "--json"], capsys)
    proof = Path(answer["certificate"]["file"])
    model = proof.with_name(proof.name.removesuffix(".drcp") + ".drcp-model")
    lines = model.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("linear ") and " if " not in line)
    head, _, bound = lines[at].rpartition(" <= ")
    lines[at] = f"{head} <= {int(bound) + 1}"  # one constraint weakened
    model.write_text("\n".join(lines) + "\n")
    assert main(["check", str(file), str(proof)]) == 3
    assert "is not this board's order model" in capsys.readouterr().out
    model.unlink()
    assert main(["check", str(file), str(proof)]) == 2
    assert "drcp-model: missing" in capsys.readouterr().err


@pytest.mark.parametrize("mode", ["after", "always"])
def test_both_proof_modes_give_a_certificate_that_checks(mode: str, tmp_path: Path) -> None:
    (board,) = parse_boards(DENSE, "dense")
    with ProofStore(tmp_path) as store:
        answer = certify(board, replayed(board, make("pumpkin", proof=mode).solve(board, 60)), store)
    assert answer.status is Status.UNSOLVABLE and answer.reason is Reason.PROOF
    assert answer.certificate is not None and answer.certificate.kind is CertificateKind.DRCP
    assert answer.checked, answer.message
    assert answer.statistics["proved"] is True


def test_without_a_proof_its_no_is_a_claim() -> None:
    backend = make("pumpkin", proof="never")
    assert not backend.certifies
    answer = backend.solve(SEARCH_ONLY, 30)
    assert answer.status is Status.UNSOLVABLE and answer.certificate is None


def test_a_solution_is_replayed_and_quintessence_is_played() -> None:
    backend = make("pumpkin")
    for board in [*SMALL[:6], *read_boards(INSTANCES / "real-game.txt")[:1]]:
        answer = replayed(board, backend.solve(board, 60))
        assert answer.status is Status.SOLVED and answer.verified, (board.name, answer.message)
    (variant,) = parse_boards("x a\ne . w\nf .\n", "five")
    assert replayed(variant, backend.solve(variant, 30)).verified


def _children() -> set[int]:
    found = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        children = task / "children"
        if children.exists():
            found.update(int(p) for p in children.read_text().split())
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads a process's children from /proc (Linux)")
@pytest.mark.parametrize("name", ["pumpkin", "cpmpy:choco"])
def test_a_stop_ends_the_solve_and_leaves_no_process(name: str) -> None:
    """Both solve in a forked child (they hold the GIL); Choco's default search runs long on this board."""
    if name == "cpmpy:choco" and not (_has("cpmpy") and _has("pychoco")):
        pytest.skip("CPMpy or Choco (pychoco) is not installed (pip install 'sigmar[cpmpy]')")
    backend = make(name)
    board = read_boards(INSTANCES / "real-game.txt")[0]
    before = _children()
    answers: list = []
    thread = threading.Thread(target=lambda: answers.append(backend.solve(board, 600)))
    thread.start()
    deadline = time.monotonic() + 60
    while not (_children() - before) and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    backend.stop()
    thread.join(120)
    assert not thread.is_alive()
    (answer,) = answers
    assert answer.status in (Status.UNKNOWN, Status.SOLVED), answer  # a stop that came after the answer
    assert not (_children() - before)


def _has(package: str) -> bool:
    from importlib.util import find_spec

    return find_spec(package) is not None


def test_the_race_takes_a_checked_pumpkin_refutation_as_the_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = write(tmp_path, SEARCH_ONLY)
    code, (answer,) = solve_json(["solve", str(file), "-b", "pumpkin,cpsat", "--json"], capsys)
    assert code == 0 and answer["status"] == "unsolvable"
    assert answer["backend"] == "pumpkin:order" and answer["checked"] is True, answer


def test_crosscheck_settles_a_board_by_a_checked_pumpkin_refutation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = write(tmp_path, SEARCH_ONLY)
    code, (record,) = solve_json(["crosscheck", str(file), "-b", "pumpkin,cpsat", "--json"], capsys)
    assert code == 0 and record["agree"] is True
    assert record["status"] == "unsolvable" and record["checked"] is True, record
    # pumpkin's "no" is certified; cpsat's agrees with it but stays its own claim
    assert record["grades"] == {"pumpkin": "correct", "cpsat": "unconfirmed"}, record
    assert record["certified"] == {"pumpkin": "yes", "cpsat": "no"}, record
    code, (alone,) = solve_json(["crosscheck", str(file), "-b", "cpsat", "--json"], capsys)
    assert alone["grades"] == {"cpsat": "unconfirmed"}, alone


def test_the_model_names_what_the_proof_refers_to() -> None:
    model = build(SEARCH_ONLY)
    text = model.text().splitlines()
    assert text[0] == "sigmar-drcp-model 1"
    assert f"variables {len(model.variables)}" in text and f"constraints {len(model.constraints)}" in text
    tags = [int(line.split()[1]) for line in text if line.startswith(("clause ", "linear "))]
    assert tags == list(range(1, len(model.constraints) + 1))
    assert all(line.split()[1] in model.index for line in text if line.startswith("var "))


def test_the_time_limit_counts_from_the_start_of_the_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    """What comes before the fork (the model's building here) is spent out of the limit, for the solver's own
    limit and for the kill alike."""
    from sigmar.encoders import order_backend as family  # the one solve both order-model families run
    from sigmar.encoders.processes.forked import Outcome

    real_build = family.build

    def build_slowly(board: object) -> object:
        time.sleep(0.3)
        return real_build(board)  # type: ignore[arg-type]

    given: list[tuple[float | None, float | None]] = []

    def record(self: object, function: object, args: tuple, limit: float | None) -> Outcome:
        given.append((args[-1], limit))
        return Outcome(timed_out=True)

    monkeypatch.setattr(family, "build", build_slowly)
    monkeypatch.setattr(family.Forked, "call", record)
    answer = make("pumpkin").solve(SEARCH_ONLY, 5.0)
    assert answer.status is Status.UNKNOWN and answer.message == "time limit", answer
    ((solver_limit, kill_limit),) = given
    assert solver_limit == kill_limit and kill_limit is not None and kill_limit <= 5.0 - 0.3, given


# -- counts ---------------------------------------------------------------------


def small_deal(seed: int, index: int, variant: str) -> Board:
    """A fuzz deal of at most 9 tiles on a side of at most 3, either variant (``assume`` drops the others)."""
    board = fuzz_board(seed, index, 9, variant)
    assume(board.dim <= 3)
    return board


small_deals = st.builds(
    small_deal, st.integers(0, 10**6), st.integers(0, 10**4), st.sampled_from(["standard", "quintessence"])
)


def test_pumpkin_counts_pairings_and_not_sequences() -> None:
    assert counts(PumpkinBackend, "pairings") and not counts(PumpkinBackend, "sequences")


@settings(max_examples=30, deadline=None)
@given(small_deals)
def test_the_pairings_count_equals_the_rule_engines(board: Board) -> None:
    value, exact = make("pumpkin").count(board, "pairings", 60.0)
    assert exact and value == reference_count(board, "pairings").value, board


def test_the_small_boards_count_as_the_rule_engine_does() -> None:
    backend = make("pumpkin")
    for board in [b for b in SMALL if b.dim <= 3]:  # the side-4 boards take seconds to minutes (401, 2,599)
        value, exact = backend.count(board, "pairings", 120.0)
        truth = reference_count(board, "pairings")
        assert truth.exact and exact and value == truth.value, (board.name, value, truth)


def test_a_count_cut_short_is_a_lower_bound() -> None:
    """A side-4 board with 2,599 pairings: at a time limit of 0.5 s the count stops short (or, on a machine fast
    enough, finishes); it is never more than the truth, and exact only when it is the truth."""
    board = next(b for b in SMALL if b.name.startswith("side 4: a ring"))
    truth = reference_count(board, "pairings")
    value, exact = make("pumpkin").count(board, "pairings", 0.5)
    assert value <= truth.value and exact == (value == truth.value), (value, exact, truth)
