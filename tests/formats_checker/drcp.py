"""DRCP certificates (docs/formats.md, "DRCP proofs"): the model compared, the proof checked on explicit domains.

Each domain is the set of its values, written out: no bounds, no holes,
so this shares no reasoning with sigmar's checker (which keeps bounds and a
set of holes).  The model is read from the text `sigmar encode --to
drcp-model` writes, the one thing the page defines by reference.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from pathlib import Path

from tests.formats_checker.board import Board, Malformed
from tests.formats_checker.drup import sigmar_command

Atom = tuple[str, str, int]  # (variable, op, value)


def holds(op: str, value: int, x: int) -> bool:
    return {">=": x >= value, "<=": x <= value, "==": x == value, "!=": x != value}[op]


def negation(atom: Atom) -> Atom:
    name, op, value = atom
    return {
        ">=": (name, "<=", value - 1),
        "<=": (name, ">=", value + 1),
        "==": (name, "!=", value),
        "!=": (name, "==", value),
    }[op]


def parse_atom(text: str) -> Atom:
    name, op, value = text.strip().strip("[]").split()
    if op not in (">=", "<=", "==", "!=") or abs(int(value)) >= 2**31:
        raise ValueError(f"not an atom of 32-bit values: {text[:40]!r}")
    return name, op, int(value)


class Model:
    """The model file's variables (name -> set of values) and constraints (tag -> ("clause", atoms) or
    ("linear", terms, bound, condition))."""

    def __init__(self, text: str) -> None:
        self.domains: dict[str, frozenset[int]] = {}
        self.constraints: dict[int, tuple] = {}
        for line in text.splitlines():
            words = line.split()
            if not words or line.startswith("#"):
                continue
            if words[0] == "var":
                self.domains[words[1]] = frozenset(range(int(words[2]), int(words[3]) + 1))
            elif words[0] == "clause":
                atoms = [parse_atom(part) for part in line.split("[")[1:]]
                self.constraints[int(words[1])] = ("clause", atoms)
            elif words[0] == "linear":
                body, _, condition = line.partition(" if ")
                parts = body.split()
                terms = [(int(parts[k]), parts[k + 1]) for k in range(2, parts.index("<="), 2)]
                cond = parse_atom(condition) if condition else None
                self.constraints[int(words[1])] = ("linear", terms, int(parts[-1]), cond)


@functools.cache
def reference(board_text: str) -> str:
    """The model `sigmar encode --to drcp-model` writes for a one-board file."""
    with tempfile.TemporaryDirectory() as folder:
        board_file = Path(folder) / "board.txt"
        board_file.write_text(board_text, encoding="utf-8")
        out = Path(folder) / "m.drcp-model"
        subprocess.run([sigmar_command(), "encode", str(board_file), "--to", "drcp-model", "-o", str(out)], check=True)
        return out.read_text(encoding="utf-8")


def meaningful(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


class Domains:
    """Each variable's set of values under the atoms told so far."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.sets: dict[str, frozenset[int]] = {}

    def of(self, name: str) -> frozenset[int]:
        return self.sets.get(name, self.model.domains[name])

    def tell(self, atom: Atom) -> bool:
        """Keep the values that satisfy ``atom``; False when none is left."""
        name, op, value = atom
        self.sets[name] = frozenset(x for x in self.of(name) if holds(op, value, x))
        return bool(self.sets[name])

    def true(self, atom: Atom) -> bool:
        name, op, value = atom
        return all(holds(op, value, x) for x in self.of(name))

    def false(self, atom: Atom) -> bool:
        name, op, value = atom
        return not any(holds(op, value, x) for x in self.of(name))


class Proof:
    def __init__(self, model: Model) -> None:
        self.model = model
        self.atoms: dict[int, Atom] = {}
        self.stage: dict[int, tuple[list[Atom], Atom | None]] = {}
        self.nogoods: dict[int, list[Atom]] = {}
        self.last = len(model.constraints)
        self.empty = any(c[0] == "clause" and not c[1] for c in model.constraints.values())
        self.done = False

    def literal(self, word: str) -> Atom:
        code = int(word)
        if abs(code) not in self.atoms:
            raise Invalid(f"atom {word} is not defined")
        atom = self.atoms[abs(code)]
        return atom if code > 0 else negation(atom)

    def new_id(self, word: str) -> int:
        step = int(word)
        if step <= self.last:
            raise Invalid(f"step {step} does not follow the tags and the steps before it")
        self.last = step
        return step

    def line(self, words: list[str]) -> None:
        if self.done:
            raise Invalid("a step after the conclusion")
        if words[0] == "a":
            code = int(words[1])
            atom = parse_atom(" ".join(words[2:]))
            if code in self.atoms or atom[0] not in self.model.domains:
                raise Invalid(f"atom {code} is defined twice or names no variable")
            self.atoms[code] = atom
        elif words[0] == "i":
            self.inference(words)
        elif words[0] == "n":
            self.nogood(words)
        elif words == ["c", "UNSAT"]:
            if not (self.empty or any(not atoms for atoms in self.nogoods.values())):
                raise Invalid("c UNSAT before the empty nogood")
            self.done = True
        else:
            raise Invalid(f"unknown step {' '.join(words)[:30]!r}")

    def inference(self, words: list[str]) -> None:
        step = self.new_id(words[1])
        fields = {w[0]: w[2:] for w in words if w[:2] in ("c:", "l:")}
        rest = [w for w in words[2:] if w[:2] not in ("c:", "l:")]
        cut = rest.index("0") if "0" in rest else len(rest)
        premises = [self.literal(w) for w in rest[:cut]]
        consequent = self.literal(rest[cut + 1]) if len(rest) > cut + 1 else None
        label, tag = fields.get("l"), fields.get("c")
        domains = Domains(self.model)
        if label == "initial_domain":
            if premises or consequent is None or tag is not None or not domains.true(consequent):
                raise Invalid(f"inference {step}: not an initial domain")
        elif label in ("linear_bounds", "nogood") and tag is not None:
            constraint = self.constraint(label, int(tag))
            told = all(domains.tell(a) for a in premises) and (consequent is None or domains.tell(negation(consequent)))
            if told and not self.fails(constraint, domains):
                raise Invalid(f"inference {step} does not follow from c:{tag}")
        else:
            raise Invalid(f"inference {step}: label {label!r} with tag {tag!r}")
        self.stage[step] = (premises, consequent)

    def constraint(self, label: str, tag: int) -> tuple:
        """What c:TAG names for this label: a linear, or a clause (a nogood read as "not all of its atoms")."""
        found = self.model.constraints.get(tag)
        if label == "linear_bounds":
            if found is None or found[0] != "linear":
                raise Invalid(f"c:{tag} is not a linear")
            return found
        if found is not None:
            if found[0] != "clause":
                raise Invalid(f"c:{tag} is not a clause")
            return found
        if tag not in self.nogoods:
            raise Invalid(f"c:{tag} is neither a constraint nor a nogood")
        return ("clause", [negation(atom) for atom in self.nogoods[tag]])

    def fails(self, constraint: tuple, domains: Domains) -> bool:
        if constraint[0] == "linear":
            _, terms, bound, condition = constraint
            if condition is not None and not domains.true(condition):
                return False
            return sum(min(c * x for x in domains.of(name)) for c, name in terms) > bound
        return all(domains.false(atom) for atom in constraint[1])

    def nogood(self, words: list[str]) -> None:
        step = self.new_id(words[1])
        rest = words[2:]
        cut = rest.index("0") if "0" in rest else len(rest)
        atoms = [self.literal(w) for w in rest[:cut]]
        hints = [int(w) for w in rest[cut + 1 :]]
        domains = Domains(self.model)
        conflict = not all(domains.tell(a) for a in atoms)
        if any(hint not in self.stage for hint in hints):
            raise Invalid(f"nogood {step}: a hint is not an inference since the last nogood")
        waiting = list(hints)
        for _ in range(8):  # passes over the hints, at most eight
            if conflict:
                break
            fired = []
            for hint in waiting:
                premises, consequent = self.stage[hint]
                if all(domains.true(p) for p in premises):
                    fired.append(hint)
                    if consequent is None or not domains.tell(consequent):
                        conflict = True
                        break
            if not fired:
                break
            waiting = [h for h in waiting if h not in fired]
        if not conflict:
            raise Invalid(f"nogood {step} does not follow from its hints")
        self.nogoods[step] = atoms
        self.stage = {}


class Invalid(Exception):
    pass


def check(board: Board, proof_path: Path) -> tuple[bool, str]:
    model_path = proof_path.with_name(proof_path.name.removesuffix(".drcp") + ".drcp-model")
    if not model_path.is_file():
        raise Malformed(f"{model_path}: missing")
    want = reference(board.text)
    if meaningful(model_path.read_text(encoding="utf-8")) != meaningful(want):
        return False, "the model is not this board's"
    proof = Proof(Model(want))
    try:
        for line in proof_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                proof.line(line.split())
    except Invalid as exc:
        return False, str(exc)
    except (ValueError, IndexError) as exc:
        raise Malformed(f"{proof_path}: {exc}") from None
    return (True, "the empty nogood") if proof.done else (False, "no conclusion")
