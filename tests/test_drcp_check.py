"""The DRCP checker (runners/checking/drcp_check.py) against brute force and against tampered proofs.

Small random models of clauses and linears are refuted by Pumpkin with a proof: the checker must accept
every proof of a model that brute force finds unsatisfiable, and reject it against any weakened model
that brute force finds satisfiable (the same tags, one bound loosened or one atom added).  The steps a
checker must refuse are each tried on their own; tampered proofs of real boards get the same verdict
from the second checker (tests/formats_checker, written from docs/formats.md).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.encoders.order_model import Atom, Clause, Linear, OrderModel, build
from sigmar.encoders.pumpkin import solve_once
from sigmar.models.boardfile import read_boards
from sigmar.runners.checking import drcp_check
from tests.conftest import INSTANCES

pytest.importorskip("pumpkin_solver", reason="pumpkin-solver is not installed (install.sh installs it)")

GOLD_ALONE = read_boards(INSTANCES / "small.txt")[0]


def random_model(rng: random.Random) -> OrderModel:
    """A few small integers and Booleans under random clauses and (conditional) linears.

    As in the order model, clauses and conditions are made of Boolean literals (``[b >= 1]``, ``[b <= 0]``):
    Pumpkin takes nothing else in a clause without reifying it through a variable the proof cannot name.
    """
    model = OrderModel(GOLD_ALONE, 1)
    for i in range(rng.randint(2, 4)):
        model.variable(f"x{i}", 0, rng.randint(1, 3), "an integer")
    booleans = [model.boolean(f"b{i}", "a Boolean") for i in range(rng.randint(2, 4))]
    n = len(model.variables)

    def atom() -> Atom:
        return Atom(rng.choice(booleans), *rng.choice(((">=", 1), ("<=", 0))))

    for _ in range(rng.randint(3, 9)):
        if rng.random() < 0.4:
            model.clause(atom() for _ in range(rng.randint(1, 3)))
        else:
            chosen = rng.sample(range(n), rng.randint(1, min(3, n)))
            terms = [(rng.choice((-2, -1, 1, 2)), v) for v in chosen]
            condition = atom() if rng.random() < 0.4 else None
            model.linear(terms, rng.randint(-3, 3), condition)
    return model


def holds(atom: Atom, values: tuple[int, ...]) -> bool:
    x = values[atom.variable]
    return {">=": x >= atom.value, "<=": x <= atom.value, "==": x == atom.value, "!=": x != atom.value}[atom.op]


def satisfiable(model: OrderModel) -> bool:
    domains = [range(v.low, v.high + 1) for v in model.variables]
    return any(all(_satisfied(c, values) for c in model.constraints) for values in itertools.product(*domains))


def _satisfied(constraint: Clause | Linear, values: tuple[int, ...]) -> bool:
    if isinstance(constraint, Clause):
        return any(holds(a, values) for a in constraint.atoms)
    if constraint.condition is not None and not holds(constraint.condition, values):
        return True
    return sum(c * values[x] for c, x in constraint.terms) <= constraint.bound


def weakened(model: OrderModel, rng: random.Random) -> OrderModel:
    """The same model with one constraint loosened in place (its tag kept)."""
    constraints = list(model.constraints)
    k = rng.randrange(len(constraints))
    found = constraints[k]
    if isinstance(found, Linear):
        constraints[k] = replace(found, bound=found.bound + rng.randint(1, 4))
    else:
        v = rng.randrange(len(model.variables))
        constraints[k] = replace(found, atoms=(*found.atoms, Atom(v, ">=", model.variables[v].low)))
    return replace(model, constraints=constraints)


def check_text(model: OrderModel, proof: str) -> drcp_check.Report:
    return drcp_check.check(model, enumerate(proof.splitlines(), 1))


def pumpkin_proof(model: OrderModel, folder: Path) -> str | None:
    """Pumpkin's DRCP proof of ``model``, or None when it finds a solution."""
    path = folder / "proof.drcp"
    answer, _ = solve_once(model, str(path), 0, 10.0)
    assert answer != "unknown"
    return path.read_text() if answer == "unsolvable" else None


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9))
def test_pumpkin_refutes_exactly_what_brute_force_refutes_and_no_weaker_model_accepts_its_proof(
    seed: int, tmp_path_factory: pytest.TempPathFactory
) -> None:
    rng = random.Random(seed)
    model = random_model(rng)
    proof = pumpkin_proof(model, tmp_path_factory.mktemp("drcp"))
    assert (proof is None) == satisfiable(model), f"seed {seed}: Pumpkin and brute force disagree"
    if proof is None:
        return
    report = check_text(model, proof)
    assert report.valid, f"seed {seed}: {report.message}\n{proof}"
    for _ in range(4):
        weaker = weakened(model, rng)
        if satisfiable(weaker):
            verdict = check_text(weaker, proof)
            assert not verdict.valid, f"seed {seed}: a proof accepted against a satisfiable model"


def _model() -> OrderModel:
    """x in 0..3, b Boolean; c1: b -> x <= 0, c2: clause [x >= 2] or [b <= 0], c3: clause [b >= 1]."""
    model = OrderModel(GOLD_ALONE, 1)
    x = model.variable("x", 0, 3, "x")
    b = model.boolean("b", "b")
    model.linear([(1, x)], 0, Atom(b, ">=", 1))
    model.clause([Atom(x, ">=", 2), Atom(b, "<=", 0)])
    model.clause([Atom(b, ">=", 1)])
    return model


# A proof of _model(): b holds (c3), so x <= 0 (c1), and then c2 has no true atom.
GOOD = """a 1 [b <= 0]
a 2 [x >= 2]
i 4 1 0 c:3 l:nogood
i 5 0 -1 c:3 l:nogood
i 6 -1 0 -2 c:1 l:linear_bounds
i 7 -2 -1 0 c:2 l:nogood
n 8 0 5 6 7
c UNSAT
"""


def test_the_hand_written_proof_is_valid() -> None:
    report = check_text(_model(), GOOD)
    assert report.valid, report.message
    assert (report.inferences, report.nogoods) == (4, 1)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (("l:nogood", "l:mystery"), "unknown label"),
        (("c:1 l:linear_bounds", "c:2 l:linear_bounds"), "not a linear"),
        (("i 7 -2 -1 0 c:2", "i 7 -2 -1 0 c:1"), "not a clause"),
        (("i 7 -2 -1 0 c:2", "i 7 -2 -1 0 c:9"), "neither a constraint"),
        (("n 8 0 5 6 7", "n 8 0 5 6"), "do not lead to a conflict"),
        (("n 8 0 5 6 7", "n 8 0 5 6 8"), "names itself"),
        (("n 8 0 5 6 7", "n 8 0 5 6 9"), "not an inference since the last nogood"),
        (("a 2 [x >= 2]", "a 2 [y >= 2]"), "not a variable of the model"),
        (("a 2 [x >= 2]", "a 1 [x >= 2]"), "defined twice"),
        (("i 6 -1 0 -2", "i 6 -1 0 2"), "does not fail"),
        (("i 4 1 0 c:3", "i 3 1 0 c:3"), "constraint tag of the model"),
        (("i 6 -1", "i 5 -1"), "not above the previous step"),
        (("c UNSAT", "c 5"), "only conclusion"),
        (("c UNSAT\n", "c UNSAT\ni 9 0 1 l:initial_domain\n"), "after the conclusion"),
        (("c UNSAT\n", ""), "without its conclusion"),
        (("n 8 0 5 6 7", "n 8 2 0 5 6 7"), "no step derived the empty nogood"),
        (("i 5 0 -1 c:3 l:nogood", "i 5 0 -1 c:3 l:initial_domain"), "initial domain has one consequent"),
        (("i 4 1 0 c:3 l:nogood", "i 4 1 0 l:nogood"), "no constraint tag"),
    ],
)
def test_a_step_it_does_not_know_or_that_does_not_follow_is_rejected(change: tuple[str, str], why: str) -> None:
    old, new = change
    assert old in GOOD
    report = check_text(_model(), GOOD.replace(old, new, 1))
    assert not report.valid and why in report.message, report.message


@pytest.mark.parametrize(
    "line",
    [
        "x 5",
        "a 9 [x >= 99999999999]",
        "a 9 [[x >= 1]]",
        "a 9 [x => 1]",
        "i 9 0 1 c:1 c:2 l:nogood",
        "n 9 0 -0x1",
        "a 0 [x >= 1]",
        "i",
        "n 9 1 0 c:3",
    ],
)
def test_a_line_that_does_not_parse_is_malformed(line: str) -> None:
    with pytest.raises(drcp_check.DrcpFormatError):
        check_text(_model(), GOOD.replace("c UNSAT", line))


@pytest.mark.parametrize("value", ["-2147483648", "2147483647"])
def test_an_atom_may_take_either_end_of_the_32_bit_range(value: str) -> None:
    """Issue 47: ``[x >= -2147483648]``, the least 32-bit integer, was refused;
    one past either end still is."""
    proof = GOOD.replace("c UNSAT", f"a 9 [x >= {value}]\nc UNSAT")
    assert check_text(_model(), proof).valid
    beyond = str(int(value) + (1 if int(value) > 0 else -1))
    with pytest.raises(drcp_check.DrcpFormatError, match="beyond 32 bits"):
        check_text(_model(), GOOD.replace("c UNSAT", f"a 9 [x >= {beyond}]\nc UNSAT"))


def test_an_inference_from_premises_that_contradict_each_other_holds_whatever_its_constraint() -> None:
    proof = GOOD.replace("i 4 1 0 c:3 l:nogood", "a 3 [x <= 1]\ni 4 2 3 0 c:1 l:linear_bounds")
    assert check_text(_model(), proof).valid


def test_the_initial_domain_is_the_models() -> None:
    model = _model()
    assert check_text(model, "a 1 [x <= 3]\ni 4 0 1 l:initial_domain\n").message.endswith("(c UNSAT)")
    report = check_text(model, "a 1 [x <= 2]\ni 4 0 1 l:initial_domain\n")
    assert not report.valid and "does not hold on the variable's domain" in report.message


def test_a_model_with_the_empty_clause_is_refuted_by_the_conclusion_alone() -> None:
    model = _model()
    model.clause([])
    assert check_text(model, "c UNSAT\n").valid
    assert not check_text(_model(), "c UNSAT\n").valid


def test_atoms_beyond_what_the_domains_can_mean_are_refused() -> None:
    model = _model()  # x 0..3 and b 0..1: 4 * (6 + 4) atoms at most
    lines = [f"a {k} [x >= {k}]" for k in range(1, model_atoms_limit(model) + 2)]
    report = check_text(model, "\n".join(lines))
    assert not report.valid and "more atoms than" in report.message


def model_atoms_limit(model: OrderModel) -> int:
    return drcp_check.DrcpChecker(model).max_atoms


def test_a_real_board_proof_checks_and_its_model_is_the_one_encode_writes(tmp_path: Path) -> None:
    board = read_boards(INSTANCES / "small.txt")[11]  # salt must take the earth... [unsolvable: search]
    model = build(board)
    proof = pumpkin_proof(model, tmp_path)
    assert proof is not None
    assert check_text(model, proof).valid
    assert model.text().splitlines()[1] == f'board "{board.name}"'


def test_the_nogoods_and_a_stage_are_capped_so_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drcp_check, "MAX_STAGE", 2)
    report = check_text(_model(), GOOD)  # four inferences before its nogood
    assert not report.valid and "more than 2 inferences since the last nogood" in report.message
    monkeypatch.setattr(drcp_check, "MAX_STAGE", 10)
    monkeypatch.setattr(drcp_check, "MAX_NOGOODS", 1)
    contradiction = "a 1 [b <= 0]\na 2 [b >= 1]\nn 4 1 2\nn 5 1 2\n"
    report = check_text(_model(), contradiction)
    assert not report.valid and "more than 1 nogoods" in report.message


def test_hints_listed_before_those_they_rest_on_are_applied_in_a_later_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pumpkin 0.5 lists some hints too early; a second pass over them finds the conflict."""
    misordered = GOOD.replace("n 8 0 5 6 7", "n 8 0 6 5 7")
    assert check_text(_model(), misordered).valid
    monkeypatch.setattr(drcp_check, "MAX_PASSES", 1)
    report = check_text(_model(), misordered)
    assert not report.valid and "do not lead to a conflict" in report.message
