"""The suite's own DRCP checker: a Pumpkin proof against the runner's order model, strict and small.

Why our own: no DRCP checker installs from a registry we reach, and for a model
of clauses and linear inequalities (:mod:`sigmar.encoders.order_model`) a
checker is a page of code.  It shares nothing with Pumpkin; what it trusts is
the model, which the runner builds from the board itself.

The proof (docs/formats.md#drcp-proofs), one step a line:

- ``a ID [NAME OP VALUE]`` names an atom; ``-ID`` is its negation;
- ``i ID PREMISES 0 [CONSEQUENT] [c:TAG] l:LABEL``: an inference, "the premises
  imply the consequent" (or false, without one), checked alone against its
  constraint: with the premises and the negated consequent asserted on the
  initial domains, the constraint must fail.  Labels: ``initial_domain`` (no
  premises, no tag: the consequent holds on the variable's domain),
  ``linear_bounds`` (TAG a linear of the model: its least activity under
  those domains exceeds its bound, with its condition true), ``nogood`` (TAG a
  clause of the model or an earlier nogood step: every literal false);
- ``n ID ATOMS [0 HINTS]``: a nogood, "these atoms cannot all hold", checked by
  asserting its atoms and applying its hints (inferences of the current stage,
  since the last nogood) in order, each whose premises all hold, until a
  domain empties or an inference concludes false (in passes: see
  ``_conflict_by_hints``);
- ``c UNSAT``: the conclusion, valid once the empty nogood has been derived.

Anything else (a label, a tag, a variable, an atom, a reference it does not
know; a step id not above the model's tags and the previous step; a reference to
the step itself or to a later one; a step after the conclusion) is a rejection.
Memory: the atoms (at most four per domain value of each variable, and the
bounds), the derived nogoods (each a tuple of shared atoms) and the inferences
of one stage; models/input_limits.py caps the last two (docs/formats.md, "Limits").
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sigmar.encoders import order_model
from sigmar.encoders.order_model import Clause, Linear, OrderModel
from sigmar.models import input_limits
from sigmar.models.board import Board
from sigmar.models.errors import SigmarError
from sigmar.models.input_limits import DRCP, DRCP_MODEL, InputError
from sigmar.models.input_limits import MAX_DRCP_NOGOODS as MAX_NOGOODS
from sigmar.models.input_limits import MAX_DRCP_STAGE as MAX_STAGE
from sigmar.runners.checking.same_formula import read_bounded
from sigmar.runners.checking.verdict import CertificateError, Verdict

GE, LE, EQ, NE = 0, 1, 2, 3
_OPERATORS = {">=": GE, "<=": LE, "==": EQ, "!=": NE}
_NEGATION = (LE, GE, NE, EQ)  # the operator of the negated atom (with value +1 / -1 for the bounds)
# Values beyond 32 bits are refused unread: Pumpkin's domains are 32-bit, and our models' are small.
VALUE_LIMIT = 2**31 - 1
LABELS = ("initial_domain", "linear_bounds", "nogood")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Passes over a nogood's hints (see DrcpChecker._conflict_by_hints): the work a nogood costs stays
# linear in its hints.  Pumpkin's misordered hints needed two passes at most on dense side-6 deals.
MAX_PASSES = 8

Atom = tuple[int, int, int]  # (variable index, operator, value)


class DrcpFormatError(SigmarError, ValueError):
    """A line that is not DRCP as docs/formats.md defines it: the proof is malformed (exit 2)."""


class Rejected(Exception):
    """A step that does not follow, or refers to what it may not: the proof is invalid (exit 3)."""


@dataclass(frozen=True)
class Report:
    valid: bool
    message: str
    inferences: int = 0
    nogoods: int = 0


def negate(atom: Atom) -> Atom:
    variable, op, value = atom
    if op == GE:
        return (variable, LE, value - 1)
    if op == LE:
        return (variable, GE, value + 1)
    return (variable, _NEGATION[op], value)


class Domains:
    """Variable domains under a set of atoms, starting from the model's: bounds and holes."""

    __slots__ = ("low", "high", "lo", "hi", "holes")

    def __init__(self, low: list[int], high: list[int]) -> None:
        self.low, self.high = low, high
        self.lo: dict[int, int] = {}
        self.hi: dict[int, int] = {}
        self.holes: dict[int, set[int]] = {}

    def assert_(self, atom: Atom) -> bool:
        """Add ``atom``; False when a domain is now empty."""
        variable, op, value = atom
        lo = self.lo.get(variable, self.low[variable])
        hi = self.hi.get(variable, self.high[variable])
        holes = self.holes.get(variable)
        if op == GE:
            lo = max(lo, value)
        elif op == LE:
            hi = min(hi, value)
        elif op == EQ:
            if value < lo or value > hi or (holes is not None and value in holes):
                return False
            lo = hi = value
        elif lo <= value <= hi:
            if holes is None:
                holes = self.holes[variable] = set()
            holes.add(value)
        if holes:
            while lo <= hi and lo in holes:
                lo += 1
            while hi >= lo and hi in holes:
                hi -= 1
        self.lo[variable], self.hi[variable] = lo, hi
        return lo <= hi

    def holds(self, atom: Atom) -> bool:
        variable, op, value = atom
        if op == GE:
            return self.lo.get(variable, self.low[variable]) >= value
        if op == LE:
            return self.hi.get(variable, self.high[variable]) <= value
        lo = self.lo.get(variable, self.low[variable])
        hi = self.hi.get(variable, self.high[variable])
        if op == EQ:
            return lo == hi == value
        holes = self.holes.get(variable)
        return value < lo or value > hi or (holes is not None and value in holes)

    def least(self, coefficient: int, variable: int) -> int:
        """The least value of ``coefficient * variable`` on its domain."""
        if coefficient > 0:
            return coefficient * self.lo.get(variable, self.low[variable])
        return coefficient * self.hi.get(variable, self.high[variable])


@dataclass(frozen=True)
class _Inference:
    premises: tuple[Atom, ...]
    consequent: Atom | None


class DrcpChecker:
    """Reads a proof line by line (:meth:`step`), then :meth:`report`."""

    def __init__(self, model: OrderModel) -> None:
        self.model = model
        self.names = model.index
        self.low = [v.low for v in model.variables]
        self.high = [v.high for v in model.variables]
        self.constraints = model.constraints
        # The most atoms a proof of this model may name: four comparisons per value, and the bounds around it.
        self.max_atoms = sum(4 * (v.high - v.low + 3) for v in model.variables)
        self.atoms: dict[int, Atom] = {}
        self.literals: dict[int, Atom] = {}  # the atom of each literal met, negative ones included
        self.nogoods: dict[int, tuple[Atom, ...]] = {}
        self.stage: dict[int, _Inference] = {}
        self.last_id = len(model.constraints)  # step ids follow the model's tags
        self.refuted = model.refuted  # the empty nogood was derived (or the model holds the empty clause)
        self.concluded = False
        self.inferences = 0

    # -- reading
    def step(self, number: int, line: str) -> None:
        """Check one line; DrcpFormatError (malformed) or Rejected (invalid) name it."""
        words = line.split()
        if not words:
            return
        if self.concluded:
            raise Rejected(f"line {number}: a step after the conclusion")
        kind = words[0]
        if kind == "a":
            self._atom(words, number)
        elif kind == "i":
            self._inference(words, number)
        elif kind == "n":
            self._nogood(words, number)
        elif kind == "c":
            self._conclusion(words, number)
        else:
            raise DrcpFormatError(f"line {number}: expected a step (a, i, n or c), got {_short(kind)!r}")

    def report(self) -> Report:
        if not self.concluded:
            return Report(False, "the proof ends without its conclusion (c UNSAT)", self.inferences, len(self.nogoods))
        return Report(
            True, "the proof derives the empty nogood: the model has no solution", self.inferences, len(self.nogoods)
        )

    # -- the four steps
    def _atom(self, words: list[str], number: int) -> None:
        text = " ".join(words[2:])
        if len(words) != 5 or not (text.startswith("[") and text.endswith("]")):
            raise DrcpFormatError(f"line {number}: an atom is 'a ID [NAME OP VALUE]'")
        code = _positive(words[1], number)
        name, op, value = words[2][1:], words[3], _integer(words[4][:-1], number)
        if not _IDENTIFIER.fullmatch(name):
            raise DrcpFormatError(f"line {number}: {_short(name)!r} is not a variable name")
        if op not in _OPERATORS:
            raise DrcpFormatError(f"line {number}: unknown comparison {_short(op)!r} (expected >=, <=, == or !=)")
        if code in self.atoms:
            raise Rejected(f"line {number}: atom {code} is defined twice")
        variable = self.names.get(name)
        if variable is None:
            raise Rejected(f"line {number}: atom {code} names {_short(name)!r}, which is not a variable of the model")
        if len(self.atoms) >= self.max_atoms:
            raise Rejected(f"line {number}: more atoms than the model's domains have values ({self.max_atoms:,})")
        self.atoms[code] = (variable, _OPERATORS[op], value)

    def _new_id(self, words: list[str], number: int) -> int:
        step_id = _positive(words[1] if len(words) > 1 else "", number)
        if step_id <= self.last_id:
            what = (
                "a constraint tag of the model" if step_id <= len(self.constraints) else "not above the previous step"
            )
            raise Rejected(f"line {number}: step id {step_id} is {what}")
        self.last_id = step_id
        return step_id

    def _inference(self, words: list[str], number: int) -> None:
        step_id = self._new_id(words, number)
        literals, after, hints = self._split(words[2:], number)
        premises = tuple(self._literal(word, number) for word in literals)
        if len(after) > 1:
            raise DrcpFormatError(f"line {number}: an inference has at most one consequent")
        consequent = self._literal(after[0], number) if after else None
        label, tag = hints.get("l"), hints.get("c")
        if label not in LABELS:
            raise Rejected(f"line {number}: inference {step_id}: unknown label {_short(str(label))!r}")
        self._check_inference(step_id, premises, consequent, label, tag, number)
        if len(self.stage) >= MAX_STAGE:
            raise Rejected(
                f"line {number}: more than {MAX_STAGE:,} inferences since the last nogood "
                "(see docs/formats.md, 'Limits')"
            )
        self.stage[step_id] = _Inference(premises, consequent)
        self.inferences += 1

    def _nogood(self, words: list[str], number: int) -> None:
        step_id = self._new_id(words, number)
        literals, hints, extra = self._split(words[2:], number)
        if extra:
            raise DrcpFormatError(f"line {number}: a nogood takes no c: or l: field")
        atoms = tuple(self._literal(word, number) for word in literals)
        sequence = [_positive(word, number) for word in hints]
        domains = Domains(self.low, self.high)
        if not self._conflict_by_hints(domains, atoms, sequence, step_id, number):
            raise Rejected(f"line {number}: nogood {step_id}: its hints do not lead to a conflict")
        if len(self.nogoods) >= MAX_NOGOODS:
            raise Rejected(f"line {number}: more than {MAX_NOGOODS:,} nogoods (see docs/formats.md, 'Limits')")
        self.nogoods[step_id] = atoms
        self.stage.clear()
        if not atoms:
            self.refuted = True

    def _conclusion(self, words: list[str], number: int) -> None:
        if words[1:] != ["UNSAT"]:
            raise Rejected(f"line {number}: the only conclusion this model has is 'c UNSAT'")
        if not self.refuted:
            raise Rejected(f"line {number}: c UNSAT, but no step derived the empty nogood")
        self.concluded = True

    # -- checks
    def _check_inference(
        self,
        step_id: int,
        premises: tuple[Atom, ...],
        consequent: Atom | None,
        label: str,
        tag: str | None,
        number: int,
    ) -> None:
        where = f"line {number}: inference {step_id} ({label})"
        domains = Domains(self.low, self.high)
        if label == "initial_domain":
            if premises or consequent is None or tag is not None:
                raise Rejected(f"{where}: an initial domain has one consequent, no premise and no tag")
            if domains.assert_(negate(consequent)):
                raise Rejected(f"{where}: its consequent does not hold on the variable's domain")
            return
        if tag is None:
            raise Rejected(f"{where}: no constraint tag (c:)")
        source = _positive(tag, number)
        if label == "linear_bounds":
            linear = self._constraint(source, Linear, where)
            if self._assume(domains, premises, consequent) and not _linear_fails(domains, linear):
                raise Rejected(f"{where}: constraint {source} does not fail under its premises")
            return
        falsified = self._clause_of(source, where)
        if self._assume(domains, premises, consequent) and not all(domains.holds(negate(a)) for a in falsified):
            raise Rejected(f"{where}: {self._what(source)} is not falsified by its premises")

    def _assume(self, domains: Domains, premises: Iterable[Atom], consequent: Atom | None) -> bool:
        """Assert the premises and the negated consequent; False when they already contradict each other
        (then the inference holds whatever its constraint says)."""
        for atom in premises:
            if not domains.assert_(atom):
                return False
        return consequent is None or domains.assert_(negate(consequent))

    def _constraint(self, tag: int, kind: type, where: str) -> Linear:
        if not 1 <= tag <= len(self.constraints) or not isinstance(self.constraints[tag - 1], kind):
            raise Rejected(f"{where}: c:{tag} is not a {kind.__name__.lower()} of the model")
        found: Linear = self.constraints[tag - 1]  # type: ignore[assignment]
        return found

    def _clause_of(self, source: int, where: str) -> tuple[Atom, ...]:
        """The literals of a model clause or of a derived nogood (as the clause 'not all of them')."""
        if 1 <= source <= len(self.constraints):
            clause = self.constraints[source - 1]
            if not isinstance(clause, Clause):
                raise Rejected(f"{where}: c:{source} is not a clause of the model")
            return tuple((a.variable, _OPERATORS[a.op], a.value) for a in clause.atoms)
        nogood = self.nogoods.get(source)
        if nogood is None:
            raise Rejected(f"{where}: c:{source} is neither a constraint of the model nor an earlier nogood")
        return tuple(negate(atom) for atom in nogood)

    def _what(self, source: int) -> str:
        return f"constraint {source}" if source <= len(self.constraints) else f"nogood {source}"

    def _conflict_by_hints(
        self, domains: Domains, atoms: tuple[Atom, ...], hints: list[int], step_id: int, number: int
    ) -> bool:
        """Assert the nogood's atoms, then apply its hints in order, in passes, until a conflict.

        One pass is the rule; further passes (at most MAX_PASSES in all) apply the hints whose premises
        came to hold only later in the list: Pumpkin 0.5 lists some hints before those they rest on
        (on 4 of 236 dense side-6 refutations).  Each hint is a checked inference, so applying them in
        any order, any number of times, derives nothing the model and the earlier nogoods do not imply.
        """
        for atom in atoms:
            if not domains.assert_(atom):
                return True
        inferences = []
        for hint in hints:
            if hint == step_id:
                raise Rejected(f"line {number}: nogood {step_id} names itself as a hint")
            inference = self.stage.get(hint)
            if inference is None:
                raise Rejected(
                    f"line {number}: nogood {step_id}: hint {hint} is not an inference since the last nogood"
                )
            inferences.append(inference)
        waiting = inferences
        for _ in range(MAX_PASSES):
            left = []
            for inference in waiting:
                if not all(domains.holds(p) for p in inference.premises):
                    left.append(inference)
                    continue
                if inference.consequent is None or not domains.assert_(inference.consequent):
                    return True
            if len(left) == len(waiting):
                return False  # a pass that applied nothing: no later one will
            waiting = left
        return False

    # -- words
    def _split(self, words: list[str], number: int) -> tuple[list[str], list[str], dict[str, str]]:
        """``LITERALS [0 MORE] [c:X] [l:Y]`` as (literals, more, {"c": X, "l": Y})."""
        fields: dict[str, str] = {}
        while words and words[-1][:2] in ("c:", "l:"):
            key, value = words[-1][0], words[-1][2:]
            if key in fields or not value:
                raise DrcpFormatError(f"line {number}: a repeated or empty {key}: field")
            fields[key] = value
            words = words[:-1]
        if "0" not in words:
            return words, [], fields
        at = words.index("0")
        return words[:at], words[at + 1 :], fields

    def _literal(self, word: str, number: int) -> Atom:
        """The atom a literal names, one shared object per literal (a nogood holds references, not copies)."""
        code = _integer(word, number)
        found = self.literals.get(code)
        if found is not None:
            return found
        atom = self.atoms.get(abs(code))
        if code == 0 or atom is None:
            raise Rejected(f"line {number}: atom {_short(word)} is not defined")
        found = self.literals[code] = atom if code > 0 else negate(atom)
        return found


def _linear_fails(domains: Domains, linear: Linear) -> bool:
    if linear.condition is not None:
        condition = (linear.condition.variable, _OPERATORS[linear.condition.op], linear.condition.value)
        if not domains.holds(condition):
            return False
    return sum(domains.least(c, x) for c, x in linear.terms) > linear.bound


def _integer(word: str, number: int) -> int:
    digits = word[1:] if word[:1] == "-" else word
    if not digits.isdigit() or not digits.isascii() or len(digits) > 10:
        raise DrcpFormatError(f"line {number}: {_short(word)!r} is not a 32-bit integer")
    value = int(word)
    if not -VALUE_LIMIT - 1 <= value <= VALUE_LIMIT:  # the whole 32-bit range, -2147483648 included
        raise DrcpFormatError(f"line {number}: {_short(word)} is beyond 32 bits")
    return value


def _positive(word: str, number: int) -> int:
    value = _integer(word, number) if word else 0
    if value <= 0:
        raise DrcpFormatError(f"line {number}: expected a positive id, got {_short(word)!r}")
    return value


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def check(model: OrderModel, lines: Iterator[tuple[int, str]]) -> Report:
    """Check a whole proof, given as (line number, text) pairs."""
    checker = DrcpChecker(model)
    try:
        for number, line in lines:
            checker.step(number, line)
    except Rejected as exc:
        return Report(False, str(exc), checker.inferences, len(checker.nogoods))
    return checker.report()


# -- a drcp certificate's files: the model beside the proof must be the board's own


def drcp_model_file(drcp: Path) -> Path:
    """The model beside ``NAME.drcp``."""
    stem = drcp.name[: -len(".drcp")] if drcp.name.endswith(".drcp") else drcp.stem
    return drcp.with_name(stem + ".drcp-model")


def check_drcp(
    board: Board, drcp: Path, texts: dict[str, str] | None = None, model: OrderModel | None = None
) -> Verdict:
    """The DRCP proof refutes this board's order model, built here afresh; ``NAME.drcp-model`` must be its text.

    The model file is refused unread when it is larger than this board's could be; the proof is
    read a line at a time, and checked against the fresh model, never the file's.  ``texts`` and
    ``model``: the certificate's files and the board's order model as the runner holds them (it
    wrote the model file from that model), checked in memory (``drcp`` then only names them).
    """
    model_path = drcp_model_file(drcp)
    if texts is None and not model_path.exists():
        raise CertificateError(f"{model_path}: missing (a drcp certificate is NAME.drcp with NAME.drcp-model)")
    model = model if model is not None else order_model.build(board)
    own = model.text()
    if texts is None:
        try:
            text = read_bounded(model_path, DRCP_MODEL, len(own.encode()) + input_limits.DRCP_MODEL_SLACK_BYTES)
        except InputError as exc:
            raise CertificateError(str(exc)) from None
    else:
        text = texts[".drcp-model"]
    mismatch = _model_mismatch(own, text) if text != own else ""
    if mismatch:
        return Verdict(False, f"{model_path.name} is not this board's order model: {mismatch}")
    try:
        with _proof_stream(drcp, texts) as stream:
            report = check(model, input_limits.lines(stream, DRCP))
    except InputError as exc:
        raise CertificateError(str(exc)) from None
    except DrcpFormatError as exc:
        raise CertificateError(f"{drcp}: {exc}") from None
    counted = f"{report.inferences:,} inferences, {report.nogoods:,} nogoods"
    return Verdict(report.valid, f"{drcp.name}: {report.message} ({counted})")


def _proof_stream(drcp: Path, texts: dict[str, str] | None) -> contextlib.AbstractContextManager[input_limits.Capped]:
    """The proof's lines: from memory when the runner holds its text, else from its file."""
    if texts is None:
        return input_limits.open_input(drcp, DRCP)
    return contextlib.nullcontext(input_limits.Capped(io.BytesIO(texts[".drcp"].encode()), str(drcp), DRCP))


def _model_mismatch(own: str, text: str) -> str:
    """Where ``text`` (a model file) departs from ``own`` (the board's model), else ""; comments and blank lines
    aside."""
    expected = own.splitlines()
    found = [(n, line.rstrip()) for n, line in enumerate(text.splitlines(), 1) if line.strip() and line[:1] != "#"]
    for (number, line), want in zip(found, expected, strict=False):
        if line != want:
            at = next(
                (k for k, (a, b) in enumerate(zip(line, want, strict=False)) if a != b), min(len(line), len(want))
            )
            return f"line {number} has {_around(line, at)!r} where the board's model has {_around(want, at)!r}"
    if len(found) != len(expected):
        return f"{len(found)} lines, the board's model has {len(expected)}"
    return ""


def _around(line: str, at: int) -> str:
    """The part of ``line`` about column ``at``, where two lines first differ."""
    start = max(at - 30, 0)
    return ("..." if start else "") + line[start : at + 30] + ("..." if at + 30 < len(line) else "")
