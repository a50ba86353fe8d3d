"""The DRUP checker's two engines: the C one (backward, honours deletions) and python-sat's Minisat
(forward, every lemma, skips deletions).

What must hold, and is tested here on Glucose proofs of random formulas:

- neither engine accepts a proof of a satisfiable formula (brute force decides, 8 variables);
- with no deletions in the proof, a proof the forward engine accepts the backward one accepts
  too (it checks a subset of the same lemmas against the same clauses), and on untampered
  proofs both accept;
- the C engine refuses a lemma that only a deleted clause implies, and skips a lemma the
  refutation does not use, even a wrong one.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from sigmar.runners.checking import rup_check
from sigmar.runners.checking.rup_check import Clause, Step, check_proof, check_rup, render_drup


def needs_c() -> None:
    ok, why = rup_check.engine_available("c")
    if not ok:
        pytest.skip(why)


def random_formula(seed: int, variables: int = 8, clauses: int = 56) -> list[Clause]:
    rng = random.Random(seed)
    out = []
    for _ in range(clauses):
        chosen = rng.sample(range(1, variables + 1), 3)
        out.append([v if rng.random() < 0.5 else -v for v in chosen])
    return out


def satisfiable(formula: list[Clause]) -> bool:
    variables = max(abs(lit) for clause in formula for lit in clause)
    for bits in itertools.product((False, True), repeat=variables):
        if all(any(bits[abs(lit) - 1] == (lit > 0) for lit in clause) for clause in formula):
            return True
    return False


def refuted(seed: int) -> tuple[list[Clause], list[Step]]:
    """The random formula of ``seed`` and Glucose's DRUP proof of it, with its deletions.

    A satisfiable formula has no proof: Hypothesis draws another seed.
    """
    needs_c()
    formula = random_formula(seed)
    with Solver(name="glucose4", with_proof=True, bootstrap_with=formula) as solver:
        assume(not solver.solve())
        return formula, rup_check.proof_lines(solver.get_proof())


def verdicts(formula: list[Clause], steps: list[Step]) -> dict[str, bool]:
    return {engine: check_rup(formula, steps, engine=engine).valid for engine in rup_check.ENGINES}


small = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@small
@given(seed=st.integers(0, 10**6))
def test_both_engines_accept_glucose_proofs_and_the_c_engine_whatever_the_pysat_one_accepts(seed: int) -> None:
    formula, steps = refuted(seed)
    assert verdicts(formula, steps) == {"c": True, "pysat": True}
    lemmas = [step for step in steps if not step[0]]
    rng = random.Random(seed)
    for _ in range(6):
        index = rng.randrange(len(lemmas))
        tampered = lemmas[:index] + lemmas[index + 1 :]
        if lemmas[index][1] and rng.random() < 0.5:
            lemma = lemmas[index][1]
            tampered = [*lemmas[:index], (False, [-lemma[0], *lemma[1:]]), *lemmas[index + 1 :]]
        both = verdicts(formula, tampered)
        assert both["c"] or not both["pysat"], (seed, index, both)


@small
@given(seed=st.integers(0, 10**6))
def test_no_engine_accepts_a_proof_of_a_satisfiable_formula(seed: int) -> None:
    formula, steps = refuted(seed)
    # Clauses dropped in a random order until the formula is satisfiable: the proof was
    # for a formula one clause away.
    order = list(range(len(formula)))
    random.Random(seed).shuffle(order)
    weakened = list(formula)
    for index in order:
        weakened.remove(formula[index])
        if satisfiable(weakened):
            break
    assert verdicts(weakened, steps) == {"c": False, "pysat": False}


def test_the_c_engine_skips_a_lemma_the_refutation_does_not_use() -> None:
    needs_c()
    formula = [[1, 2], [1, -2], [-1, 3], [-1, -3], [4, 5]]
    wrong_but_unused = [(False, [4]), (False, [1]), (False, [])]
    report = check_rup(formula, wrong_but_unused, engine="c")
    assert report.valid and report.lemmas == 3 and report.checked == 1, report
    assert not check_rup(formula, wrong_but_unused, engine="pysat").valid
    # Used, the same wrong lemma is checked and refused.
    used = [(False, [4]), (False, [1, -4]), (False, [])]
    assert not check_rup(formula, used, engine="c").valid


def test_the_c_engine_honours_deletions() -> None:
    needs_c()
    formula = [[1, 2], [1, -2], [-1, 3], [-1, -3]]
    assert check_rup(formula, [(False, [1]), (False, [])], engine="c").valid
    # (1 2) deleted first, written in another order: the lemma (1) no longer follows.
    deleted_first = [(True, [2, 1]), (False, [1]), (False, [])]
    report = check_rup(formula, deleted_first, engine="c")
    assert not report.valid and report.failed_at == 2 and "(1)" in report.message
    assert check_rup(formula, deleted_first, engine="pysat").valid  # pysat skips the deletion
    # One copy of a clause written twice goes; the other still implies the lemma.
    assert check_rup([[1, 2], *formula], deleted_first, engine="c").valid
    # A deletion naming no clause (or a tautology, or the empty clause) changes nothing.
    no_op = [(True, [2, 3]), (True, [1, -1]), (True, [])]
    assert check_rup(formula, [*no_op, (False, [1]), (False, [])], engine="c").valid


def test_a_literal_fixed_before_its_reason_is_deleted_stays_fixed() -> None:
    """Sound: it is implied by the formula.  drat-trim keeps such literals too."""
    needs_c()
    formula = [[1], [-1, 2], [-2, 3, 4], [-2, 3, -4], [-3, 5], [-3, -5]]
    steps = [(True, [-1, 2]), (True, [1]), (False, [2]), (False, [3]), (False, [])]
    assert check_rup(formula, steps, engine="c").valid


@pytest.mark.parametrize("engine", rup_check.ENGINES)
def test_malformed_proofs_name_their_line(engine: str) -> None:
    if not rup_check.engine_available(engine)[0]:
        pytest.skip(rup_check.engine_available(engine)[1])
    formula = [[1, 2], [1, -2], [-1, 3], [-1, -3]]
    for text, line in (
        (b"1 0\n1 2 x 0\n", 2),
        (b"c fine\n\n1 2\n", 3),
        (b"1 0 2 0\n", 1),
        (b"9 0\n", 1),
        (b"d 1 2\n", 1),
        (b"dd 1 0\n", 1),
    ):
        report = check_proof(formula, text, engine=engine)
        assert not report.valid and report.malformed, (text, report)
        assert report.message.startswith(f"proof line {line}:"), (text, report.message)
    report = check_proof(formula, b"c a comment\n\n  1 0 \r\n\t0\n", engine=engine)
    assert report.valid and report.lemmas == 2 and not report.malformed, report


def test_both_engines_check_a_board_refutation_alike() -> None:
    """A real formula: the default CNF of a side-6 dense deal that Glucose refutes in 5,656 proof lines."""
    needs_c()
    from sigmar.encoders.cnf import build_formula
    from sigmar.models.deal import deal

    formula = build_formula(deal("dense", 6, 1, 17))
    with Solver(name="glucose4", with_proof=True, bootstrap_with=formula.clauses) as solver:
        if solver.solve():
            pytest.fail("dense-6-s1-17 is unsolvable (survey seed 1); the encoding says otherwise")
        proof = render_drup(rup_check.proof_lines(solver.get_proof()))
    reports = {engine: check_proof(formula.clauses, proof, formula.nv, engine) for engine in rup_check.ENGINES}
    assert all(report.valid for report in reports.values()), reports
    assert reports["c"].lemmas == reports["pysat"].lemmas == reports["pysat"].checked > 0
    assert 0 < reports["c"].checked < reports["c"].lemmas  # only the lemmas the refutation uses


def test_both_engines_check_the_clauses_a_proof_derives_alike() -> None:
    """What a cube-and-conquer node that splits hands on (docs/formats.md#cubes): the clauses still alive
    at the end of a proof that stopped short of a refutation each follow, by either engine."""
    needs_c()
    from sigmar.encoders.cnf import build_formula
    from sigmar.models.deal import deal

    formula = build_formula(deal("dense", 6, 1, 17))
    with Solver(name="glucose4", with_proof=True, bootstrap_with=formula.clauses) as solver:
        solver.conf_budget(300)
        assert solver.solve_limited() is None, "dense-6-s1-17 takes Glucose about 1,200 conflicts"
        steps = rup_check.proof_lines(solver.get_proof())
    alive: list[Clause] = []
    for deletion, literals in steps:
        if not deletion:
            alive.append(literals)
            continue
        same = [i for i, clause in enumerate(alive) if sorted(clause) == sorted(literals)]
        if same:
            del alive[same[0]]
    proof = render_drup(steps)
    beyond = formula.nv + 1
    for engine in rup_check.ENGINES:
        report = check_proof(formula.clauses, proof, formula.nv, engine=engine, goals=alive)
        assert report.valid and not report.malformed, (engine, report)
        foreign = check_proof(formula.clauses, proof, beyond, engine=engine, goals=[*alive, [beyond]])
        assert not foreign.valid and f"derived clause {len(alive) + 1} ({beyond})" in foreign.message, foreign
    assert report.checked > 0


def test_goals_need_no_conflict_but_each_must_follow() -> None:
    formula = [[1, 2], [-1, 2], [-2, 3]]
    for engine in rup_check.ENGINES:
        if not rup_check.engine_available(engine)[0]:
            continue
        assert check_proof(formula, b"2 0\n", engine=engine, goals=[[3], [2]]).valid
        assert check_proof(formula, b"", engine=engine, goals=[[-2, 3]]).valid  # a clause of the formula itself
        assert not check_proof(formula, b"2 0\n", engine=engine, goals=[[1]]).valid
        assert not check_proof(formula, b"2 0\n").valid  # without goals, still a refutation is asked for


@small
@given(seed=st.integers(0, 10**6), goals=st.booleans())
def test_the_clauses_a_check_names_and_its_core_prove_the_same_alone(seed: int, goals: bool) -> None:
    """check_proof(used=True) names the clauses given that the checked lemmas rest on, and gives those
    lemmas as a proof of their own, with no deletion: it checks against the named clauses alone (a
    refutation, or with goals the goals derived)."""
    formula, steps = refuted(seed)
    proof = render_drup(steps)
    wanted = None
    if goals:  # the proof cut before its end, deriving the clauses alive there (as a splitting cube node)
        cut = [step for step in steps[: max(1, len(steps) // 2)] if step[1]]
        proof = render_drup(cut)
        wanted = [list(step[1]) for step in cut if not step[0]][-3:]
        assume(wanted)
    report = check_proof(formula, proof, 8, goals=wanted, used=True)
    assert report.valid and report.used is not None and report.core is not None, report
    named = [formula[i] for i in report.used]
    assert sorted(set(report.used)) == list(report.used) and all(0 <= i < len(formula) for i in report.used)
    alone = check_proof(named, report.core, 8, goals=wanted)
    assert alone.valid, alone
    assert b"d " not in report.core and len(named) < len(formula) + 1


def test_the_clauses_a_check_names_are_those_its_lemmas_rest_on() -> None:
    needs_c()
    formula = [[1, 2], [1, -2], [3, 4], [5, 6], [-5, 7]]
    report = check_proof(formula, b"4 3 0\n", 7, goals=[[1]], used=True)
    assert report.valid and list(report.used or []) == [0, 1] and report.core == b"1 0\n"
    refutation = [[1, 2], [-1, 2], [1, -2], [-1, -2], [3, 4], [1, 2]]  # the last a copy of the first
    report = check_proof(refutation, b"3 0\n1 0\nd 3 0\n0\n", 4, used=True)
    assert report.valid and list(report.used or []) == [0, 1, 2, 3] and report.core == b"1 0\n0\n"
    wrong = check_proof(refutation, b"3 0\n0\n", 4, used=True)  # 3 does not follow
    assert not wrong.valid and wrong.used is None and wrong.core is None


@small
@given(seed=st.integers(0, 10**6), cut=st.integers(0, 56), drop=st.integers(0, 10**6), goals=st.booleans())
def test_a_check_from_a_loaded_base_is_the_check_of_the_whole_formula(
    seed: int, cut: int, drop: int, goals: bool
) -> None:
    """The formula's first clauses loaded once (rup_check.loaded_base, as a cube-and-conquer worker keeps its
    board's) and the rest given to the check: the same verdict, message, clauses named (counted from the
    base's first) and core as the whole formula given at once; the base serves several checks unchanged
    (the proof whole, then with a step dropped, which may fail)."""
    formula, steps = refuted(seed)
    base = rup_check.loaded_base(rup_check.flatten(formula[:cut]), 8)
    assert base is not None
    dropped = [step for k, step in enumerate(steps) if k != drop % len(steps)]
    wanted = [list(step[1]) for step in steps if not step[0] and step[1]][:2] if goals else None
    for proof in (render_drup(steps), render_drup(dropped), render_drup(steps)):
        whole = check_proof(formula, proof, 8, goals=wanted, used=True)
        split = check_proof(rup_check.flatten(formula[cut:]), proof, 8, goals=wanted, used=True, base=base)
        assert (split.valid, split.message, split.checked, split.lemmas, split.deletions) == (
            whole.valid,
            whole.message,
            whole.checked,
            whole.lemmas,
            whole.deletions,
        )
        assert (None if split.used is None else list(split.used)) == (None if whole.used is None else list(whole.used))
        assert split.core == whole.core


def test_a_loaded_base_refuses_another_variable_count() -> None:
    needs_c()
    base = rup_check.loaded_base(rup_check.flatten([[1, 2], [-1]]), 3)
    with pytest.raises(ValueError, match="variable count"):
        check_proof(rup_check.flatten([[-2]]), b"0\n", 4, used=True, base=base)
    with pytest.raises(ValueError, match="beyond"):
        rup_check.loaded_base(rup_check.flatten([[1, 5]]), 3)
    assert check_proof(rup_check.flatten([[-2]]), b"0\n", 3, used=True, base=base).valid
