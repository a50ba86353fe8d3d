"""The CNF both encodings produce: clauses, named variables, a decoder, DIMACS.

Variables are named by tuples through ``pysat.formula.IDPool`` (``("gone", 12, 7)``),
so an assignment dump or a DIMACS sidecar can be read by a person.  Clauses are built
through :class:`ClauseSink`, which folds Python ``True``/``False`` constants
away: reachability pruning then needs no special cases in the encoders.
"""

from __future__ import annotations

import gc
import json
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from pysat.formula import IDPool

from sigmar.models.board import Board
from sigmar.models.result import Move

# A literal, or a constant the sink folds away.
Lit = int | bool
# A variable's name tuple (``("gone", 12, 7)``) -> what it means, in words.
Describe = Callable[[tuple[Any, ...]], str]


class ClauseSink:
    """Collects clauses, dropping satisfied ones and false literals; an empty clause stays (UNSAT)."""

    def __init__(self) -> None:
        self.clauses: list[list[int]] = []
        self.groups: dict[str, int] = {}
        self._group = ""

    def group(self, name: str) -> None:
        """Attribute the following clauses to ``name`` (for the clause-count table)."""
        self._group = name

    def add(self, literals: Iterable[Lit]) -> None:
        clause: list[int] = []
        for lit in literals:
            if lit is True:
                return
            if lit is False:
                continue
            clause.append(lit)
        self.clauses.append(clause)
        self.groups[self._group] = self.groups.get(self._group, 0) + 1

    def add_plain(self, clauses: list[list[int]]) -> None:
        """Clauses of variables' literals only, no constant among them (the caller knows): kept as they are.

        The bulk of a large board's formula is such clauses, and :meth:`add`'s look at every literal
        was a third of its build.
        """
        if clauses:
            self.clauses.extend(clauses)
            self.groups[self._group] = self.groups.get(self._group, 0) + len(clauses)

    def extend(self, clauses: Iterable[Sequence[int]]) -> None:
        for clause in clauses:
            self.add(clause)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector held off while a formula is built (and back on after, if it was on).

    A side-10 formula is over a million small lists, none of them in a cycle; the collector, run
    again and again as they are made, took half the build (0.85 s against 0.42 s on dense-10-s1-19).
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def neg(lit: Lit) -> Lit:
    if lit is True or lit is False:
        return not lit
    return -lit


@dataclass
class Formula:
    """One board's CNF.  ``decode`` turns an assignment (list of signed ints) into playing-order moves."""

    board: Board
    variant: str
    clauses: list[list[int]]
    pool: IDPool
    decoder: Callable[[set[int]], list[Move]]
    horizon: int
    groups: dict[str, int] = field(default_factory=dict)
    describe: Describe = repr
    # Variables whose values fix a move sequence (for projected model counting).
    projection: list[int] = field(default_factory=list)

    @property
    def nv(self) -> int:
        return self.pool.top

    @property
    def names(self) -> dict[int, str]:
        """Variable -> its meaning, e.g. ``gone(tile 12 'f' [3, 4], by step 7)``."""
        out: dict[int, str] = {}
        for var in range(1, self.pool.top + 1):
            obj = self.pool.obj(var)
            out[var] = self.describe(obj) if isinstance(obj, tuple) else f"auxiliary {var}"
        return out

    def decode(self, assignment: Iterable[int]) -> list[Move]:
        return self.decoder({lit for lit in assignment if lit > 0})

    def header(self) -> list[str]:
        b = self.board
        return [
            f"sigmar cnf encoding, variant {self.variant}",
            f"board: {b.name or '(unnamed)'} (side {b.dim}, {len(b.tiles)} tiles)",
            f"horizon: {self.horizon} steps",
            f"variables: {self.nv}, clauses: {len(self.clauses)}",
            "the sidecar (.vars.json) names every variable",
        ]

    def to_dimacs(self, comment_lines: Sequence[str] | None = None) -> str:
        lines = [f"c {line}".rstrip() for line in (comment_lines if comment_lines is not None else self.header())]
        lines.append(f"p cnf {self.nv} {len(self.clauses)}")
        return "\n".join(lines) + "\n" + dimacs_clauses(self.clauses)

    def sidecar(self, *, with_names: bool = True) -> str:
        """JSON that lets ``sigmar decode`` rebuild and check an assignment without guessing."""
        record: dict[str, object] = {
            "variant": self.variant,
            "board": self.board.name,
            "dim": self.board.dim,
            "tiles": len(self.board.tiles),
            "horizon": self.horizon,
            "variables": self.nv,
            "clauses": len(self.clauses),
        }
        if not with_names:
            return json.dumps(record, indent=1) + "\n"
        # The names written as json.dumps(indent=1) writes them, by json's C encoder with the indent's line breaks
        # as its separator (with an indent json writes in Python: 1-2 ms of a side-6 board's 4).
        names = json.dumps({str(var): name for var, name in self.names.items()}, separators=(",\n  ", ": "))
        head = json.dumps(record, indent=1)[:-2]  # without its closing "\n}"
        if names == "{}":
            return f'{head},\n "names": {{}}\n}}\n'
        return f'{head},\n "names": {{\n  {names[1:-1]}\n }}\n}}\n'


def _compiled() -> ModuleType | None:
    """The compiled writers of clauses (``_clauses.c``), or None where they were not built."""
    try:
        from sigmar.encoders.cnf import _clauses
    except ImportError:
        return None
    return _clauses


def flat_clauses(clauses: list[list[int]]) -> array[int]:
    """The clauses as the DRUP checker reads them: one flat array of literals, each clause ended by a 0 (what
    ``runners/checking/rup_check.flatten`` makes, compiled here: 4-5 ms less on a side-6 board's)."""
    compiled = _compiled()
    if compiled is None:
        flat = array("i")
        for clause in clauses:
            flat.extend(clause)
            flat.append(0)
        return flat
    flat = array("i")
    flat.frombytes(compiled.flat(clauses))
    return flat


def dimacs_clauses(clauses: list[list[int]]) -> str:
    """The clause lines of DIMACS (``1 -2 0``), each ended by a newline.

    Compiled where it was built (``_clauses.c``: a side-6 board's in well under a millisecond, 6-9 ms here).
    Else made from the list's own ``repr`` when no clause is empty: one C loop over the whole list instead of a
    join per clause (0.44 s against 0.58 s for a side-10 formula's 1.2 million clauses); the same text.
    """
    compiled = _compiled()
    if compiled is not None:
        return str(compiled.dimacs(clauses))
    if not clauses or not all(clauses):  # an empty clause (a board refuted outright) is written " 0"
        return "".join(" ".join(map(str, clause)) + " 0\n" for clause in clauses)
    return str(clauses)[2:-2].replace("], [", " 0\n").replace(",", "") + " 0\n"  # from "[[1, -2], [3]]"


def by_kind(names: dict[str, Callable[..., str]]) -> Describe:
    """A describer that reads a name tuple by its first item: ``names[kind](*rest)``, ``repr`` for another kind."""

    def describe(obj: tuple[Any, ...]) -> str:
        name = names.get(obj[0])
        return repr(obj) if name is None else name(*obj[1:])

    return describe


def parse_assignment(text: str) -> tuple[str, list[int]]:
    """(status, assignment) from SAT-competition output (``s ...`` and ``v ...`` lines) or a bare list of literals.

    status is ``SATISFIABLE``, ``UNSATISFIABLE`` or ``UNKNOWN``.
    """
    status = "UNKNOWN"
    assignment: list[int] = []
    saw_v = False
    bare: list[int] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("c"):
            continue
        if line.startswith("s "):
            word = line[2:].strip().upper()
            status = "UNSATISFIABLE" if "UNSAT" in word else "SATISFIABLE" if "SAT" in word else "UNKNOWN"
            continue
        if line.startswith("v "):
            saw_v = True
            assignment.extend(int(tok) for tok in line[2:].split() if tok != "0")
            continue
        if line in ("SAT", "SATISFIABLE"):  # MiniSat's result-file form
            status = "SATISFIABLE"
            continue
        if line in ("UNSAT", "UNSATISFIABLE"):
            status = "UNSATISFIABLE"
            continue
        try:
            bare.extend(int(tok) for tok in line.split() if tok != "0")
        except ValueError:
            continue
    if not saw_v:
        assignment = bare
    if assignment and status == "UNKNOWN":
        status = "SATISFIABLE"
    return status, assignment
