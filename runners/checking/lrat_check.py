"""A second, short checker of refutations: LRAT, the form formally verified checkers read.

Why: the C checker (``_drup.c``) finds, for every lemma it checks, the clauses
its reverse unit propagation uses; written out (``rup_check.check_proof(...,
lrat=True)``) they make the proof LRAT, where each lemma names its *hints*, in
order.  Checking LRAT needs no search at all: each hint must be unit under the
lemma's negation and the hints before it, until one is falsified.  So this
checker is a screen of plain Python that shares nothing with the C checker (nor
with the solver), and ``sigmar check --lrat`` asks it about every refutation.

A line is ``ID LITERALS 0 HINTS 0`` (a lemma; IDs grow, the formula's clauses are
1..m in order) or ``ID d IDS 0`` (deletions).  Hints are positive (RUP only: no
RAT step is ever written here).  The proof is valid when the empty clause is
derived, or, given ``goals``, when each goal is the clause of a formula clause or
of a checked lemma (a cube-and-conquer split derives clauses, it does not refute).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

MAX_LINE = 10_000_000  # bytes of one line, as for a DRUP proof


def check_lrat(
    formula: Sequence[Sequence[int]], lines: Iterable[bytes], goals: Sequence[Sequence[int]] | None = None
) -> tuple[bool, str]:
    """(valid, why) for an LRAT proof of ``formula`` (its clauses are IDs 1..m, in this order)."""
    lemmas: dict[int, Sequence[int]] = {}
    gone: set[int] = set()
    last, made = len(formula), set()
    for number, line in enumerate(lines, start=1):
        words = line.split() if len(line) <= MAX_LINE else [b"?", b"?"]
        if not words or words[0].startswith(b"c"):
            continue
        try:
            if words[1:2] == [b"d"]:
                gone.update(map(int, words[2:-1]))
                continue
            ident, ints = int(words[0]), list(map(int, words[1:]))
            zero = ints.index(0)
            lemma, hints = ints[:zero], ints[zero + 1 : -1]
        except (ValueError, IndexError):
            return False, f"line {number}: not an LRAT line (or longer than {MAX_LINE:,} bytes)"
        if ident <= last or ints[-1] != 0 or len(ints) < zero + 2:
            return False, f"line {number}: the ID {ident} does not grow, or the line does not end with 0"
        true = {-x for x in lemma}  # the lemma's negation, then what each hint implies
        for hint in hints:
            given = 1 <= hint < ident and hint not in gone
            clause = (lemmas.get(hint) if hint > len(formula) else formula[hint - 1]) if given else None
            free = [] if clause is None else [x for x in clause if -x not in true]
            if clause is None or len(free) > 1 or (free and free[0] in true):
                return False, f"line {number}: hint {hint} is no clause before lemma {ident}, or is not unit"
            if not free:
                break  # falsified: the lemma follows
            true.add(free[0])
        else:
            return False, f"line {number}: the hints of lemma {ident} end before a conflict"
        if not lemma:
            return True, f"the empty clause is derived (lemma {ident}, line {number})"
        lemmas[ident], last = lemma, ident
        made.add(frozenset(lemma))
    missing = [g for g in goals or () if frozenset(g) not in made]
    if missing:  # a clause to derive may be one the formula gives
        given_clauses = {frozenset(c) for c in formula}
        missing = [g for g in missing if frozenset(g) not in given_clauses]
    if goals is None or missing:
        return False, "no empty clause" if goals is None else f"clause {list(missing[0])} is not derived"
    return True, f"each of the {len(goals):,} clauses to derive is derived"


def main(argv: list[str] | None = None) -> int:
    """``python -m sigmar.runners.checking.lrat_check FORMULA.cnf PROOF.lrat``: exit 0 valid, 1 not, 2 unreadable."""
    import sys

    from sigmar.models import input_limits
    from sigmar.models.input_limits import CNF, LRAT, InputError
    from sigmar.runners.checking.rup_check import ProofFormatError, parse_dimacs

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m sigmar.runners.checking.lrat_check FORMULA.cnf PROOF.lrat", file=sys.stderr)
        return 2
    try:
        _, formula = parse_dimacs(input_limits.read_text(args[0], CNF))
        with input_limits.open_input(args[1], LRAT) as stream:
            lines = (line.encode() for _, line in input_limits.lines(stream, LRAT))
            valid, why = check_lrat(formula, lines)
    except (InputError, ProofFormatError) as exc:
        print(f"lrat_check: {exc}", file=sys.stderr)
        return 2
    print(f"{'VALID' if valid else 'INVALID'}: {why}")
    return 0 if valid else 1


if __name__ == "__main__":
    raise SystemExit(main())
