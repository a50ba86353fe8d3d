"""DRUP certificates (docs/formats.md, "DRUP proofs"): the formula compared, the proof checked forward.

Deletions are ignored and every lemma up to the first conflict is checked,
as the page allows a simple checker to do.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.formats_checker.board import Board, Malformed

SUMMARY = ("variant", "dim", "tiles", "horizon", "variables", "clauses")


def parse_dimacs(text: str, where: str) -> tuple[int, list[list[int]]]:
    header = None
    literals: list[int] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "c%":
            continue
        if line[0] == "p":
            parts = line.split()
            if header is not None or len(parts) != 4 or parts[1] != "cnf":
                raise Malformed(f"{where}: bad header")
            header = (int(parts[2]), int(parts[3]))
            continue
        if header is None:
            raise Malformed(f"{where}: a clause before the header")
        try:
            literals.extend(int(x) for x in line.split())
        except ValueError:
            raise Malformed(f"{where}: not a literal") from None
    if header is None:
        raise Malformed(f"{where}: no header")
    if literals and literals[-1] != 0:
        raise Malformed(f"{where}: the last clause has no 0")
    if any(abs(x) > header[0] for x in literals):
        raise Malformed(f"{where}: a literal beyond the header's variables")
    clauses, start = [], 0
    for i, x in enumerate(literals):
        if x == 0:
            clauses.append(literals[start:i])
            start = i + 1
    if len(clauses) != header[1]:
        raise Malformed(f"{where}: the header promises {header[1]} clauses, {len(clauses)} follow")
    return header[0], clauses


def parse_proof(text: str, variables: int, where: str) -> list[tuple[bool, list[int]]]:
    steps = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("c"):
            continue
        deletion = line.startswith("d")
        body = line[1:] if deletion else line
        if deletion and not body[:1].isspace():
            raise Malformed(f"{where}: line {number}: not a clause")
        try:
            literals = [int(x) for x in body.split()]
        except ValueError:
            raise Malformed(f"{where}: line {number}: not a clause") from None
        if not literals or literals[-1] != 0 or 0 in literals[:-1] or any(abs(x) > variables for x in literals):
            raise Malformed(f"{where}: line {number}: not a clause of this formula")
        steps.append((deletion, literals[:-1]))
    return steps


def sigmar_command() -> str:
    """The `sigmar` of this interpreter's environment, else the one on PATH."""
    found = shutil.which("sigmar", path=str(Path(sys.executable).parent)) or shutil.which("sigmar")
    if found is None:
        raise RuntimeError("no `sigmar` command to ask for the board's formula")
    return found


@functools.cache
def _encode(board_text: str) -> tuple[str, str]:
    """The formula and variable map texts `sigmar encode --to dimacs` writes for a one-board file."""
    with tempfile.TemporaryDirectory() as folder:
        board_file = Path(folder) / "board.txt"
        board_file.write_text(board_text, encoding="utf-8")
        out = Path(folder) / "f.cnf"
        subprocess.run([sigmar_command(), "encode", str(board_file), "--to", "dimacs", "-o", str(out)], check=True)
        return out.read_text(), (Path(folder) / "f.vars.json").read_text()


def reference(board: Board) -> tuple[str, dict]:
    """The board's formula and variable map, as the page defines them (by `sigmar encode`)."""
    formula, names = _encode(board.text)
    return formula, json.loads(names)


def check(board: Board, proof_path: Path) -> tuple[bool, str]:
    stem = proof_path.name.removesuffix(".drup")
    cnf_path, vars_path = proof_path.with_name(stem + ".cnf"), proof_path.with_name(stem + ".vars.json")
    if not cnf_path.is_file() or not vars_path.is_file():
        raise Malformed(f"{proof_path}: the .cnf or .vars.json beside it is missing")
    try:
        text = cnf_path.read_text(encoding="utf-8")
        names = json.loads(vars_path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise Malformed(f"{cnf_path.parent}: {exc}") from None
    want_text, want_names = reference(board)
    want_vars, want_clauses = parse_dimacs(want_text, "the reference")
    variables, clauses = parse_dimacs(text, str(cnf_path))
    if variables != want_vars or sorted(sorted(c) for c in clauses) != sorted(sorted(c) for c in want_clauses):
        return False, "the formula is not this board's"
    if not isinstance(names, dict) or any(names.get(key) != want_names[key] for key in SUMMARY):
        return False, "the variable map does not describe this board's formula"
    steps = parse_proof(proof_path.read_text(encoding="utf-8", errors="replace"), variables, str(proof_path))
    return forward_rup(variables, clauses, [lits for deletion, lits in steps if not deletion])


class _Propagator:
    """Unit propagation with two watched literals; level-0 assignments are kept, trial ones undone."""

    def __init__(self, variables: int) -> None:
        self.value = [0] * (2 * variables + 2)  # per literal: 1 true, -1 false, 0 unassigned
        self.watches: dict[int, list[list[int]]] = {}
        self.trail: list[int] = []

    def _slot(self, lit: int) -> int:
        return 2 * lit if lit > 0 else -2 * lit + 1

    def val(self, lit: int) -> int:
        return self.value[self._slot(lit)]

    def assign(self, lit: int) -> None:
        self.value[self._slot(lit)] = 1
        self.value[self._slot(-lit)] = -1
        self.trail.append(lit)

    def undo(self, length: int) -> None:
        while len(self.trail) > length:
            lit = self.trail.pop()
            self.value[self._slot(lit)] = 0
            self.value[self._slot(-lit)] = 0

    def add(self, clause: list[int]) -> bool:
        """Add a clause at level 0; False when that gives a conflict."""
        clause = list(dict.fromkeys(clause))
        true = [lit for lit in clause if self.val(lit) == 1]
        unassigned = [lit for lit in clause if self.val(lit) == 0]
        false = [lit for lit in clause if self.val(lit) == -1]
        if not true:
            if not unassigned:
                return False
            if len(unassigned) == 1:
                self.assign(unassigned[0])
                if not self.propagate(len(self.trail) - 1):
                    return False
                true, unassigned = unassigned, []
        ordered = true + unassigned + false
        if len(ordered) >= 2:
            for lit in ordered[:2]:
                self.watches.setdefault(-lit, []).append(ordered)
        return True

    def propagate(self, start: int) -> bool:
        """Propagate the assignments from trail[start] on; False on a conflict."""
        head = start
        while head < len(self.trail):
            falsified = -self.trail[head]
            head += 1
            watching = self.watches.get(-falsified, [])
            kept = []
            conflict = False
            for clause in watching:
                if conflict:
                    kept.append(clause)
                    continue
                if clause[0] == falsified:
                    clause[0], clause[1] = clause[1], clause[0]
                if self.val(clause[0]) == 1:
                    kept.append(clause)
                    continue
                for j in range(2, len(clause)):
                    if self.val(clause[j]) != -1:
                        clause[1], clause[j] = clause[j], clause[1]
                        self.watches.setdefault(-clause[1], []).append(clause)
                        break
                else:
                    kept.append(clause)
                    if self.val(clause[0]) == -1:
                        conflict = True
                    elif self.val(clause[0]) == 0:
                        self.assign(clause[0])
            self.watches[-falsified] = kept
            if conflict:
                return False
        return True

    def refutes(self, lemma: list[int]) -> bool:
        """Whether assuming every literal of ``lemma`` false propagates to a conflict."""
        mark = len(self.trail)
        try:
            for lit in lemma:
                if self.val(lit) == 1:
                    return True
                if self.val(lit) == 0:
                    self.assign(-lit)
            return not self.propagate(mark)
        finally:
            self.undo(mark)


def forward_rup(variables: int, clauses: list[list[int]], lemmas: list[list[int]]) -> tuple[bool, str]:
    """Every lemma up to the first level-0 conflict must follow by reverse unit propagation."""
    p = _Propagator(variables)
    for clause in clauses:
        if not p.add(clause):
            return True, "the formula propagates to a conflict by itself"
    for number, lemma in enumerate(lemmas, start=1):
        if not p.refutes(lemma):
            return False, f"lemma {number} ({' '.join(map(str, lemma)) or 'the empty clause'}) does not follow"
        if not p.add(lemma):
            return True, f"a conflict after {number} lemmas"
    return False, "no conflict is reached"
