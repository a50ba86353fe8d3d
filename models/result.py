"""Types every layer shares: a move, a backend's answer, its status and reason.

Modelled on minizinc-python's ``Result``/``Status``: one frozen record per
answer, the solver's statistics carried alongside.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

from sigmar.models.hexgrid import Hex


class Status(StrEnum):
    """How a board was answered (docs/formats.md#the-json-of-an-answer).

    These are StrEnums: ``str()`` and JSON give the word itself.
    """

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    UNKNOWN = "unknown"  # no answer in time
    ERROR = "error"


class Reason(StrEnum):
    """Why a board is called unsolvable (docs/formats.md#the-json-of-an-answer)."""

    COUNTS = "counts"  # the tile counts cannot all pair up
    STATIC = "static"  # another sound argument from the board alone
    EXHAUSTED = "exhausted"  # a complete search found nothing
    PROOF = "proof"  # a solver's refutation
    CORROBORATED = "corroborated"  # two backends agree


class Lost(StrEnum):
    """How the runner lost a backend's worker: it died (``crash``) or outlived its time limit and was killed
    (``overrun``).  Told by this, never by the words of the answer's message."""

    CRASH = "crash"
    OVERRUN = "overrun"


@dataclass(frozen=True)
class Move:
    """One move: two cells that pair, or gold's cell alone, in axial coordinates."""

    cells: tuple[Hex, ...]


class CertificateKind(StrEnum):
    """The kinds of unsolvability certificate (docs/formats.md#certificates)."""

    COUNTS = "counts"
    STUCK = "stuck"
    DEAD_STATES = "dead-states"
    DRUP = "drup"
    DRCP = "drcp"
    CUBES = "cubes"


# The file suffixes a certificate of each kind is written with (the first names it); a ``cubes``
# certificate adds a ``.node-N.drup`` (and ``.node-N.lemmas``) for each node of its split.
CERTIFICATE_SUFFIXES = {
    CertificateKind.DEAD_STATES: (".dead.jsonl",),
    CertificateKind.DRUP: (".drup", ".cnf", ".vars.json"),
    CertificateKind.DRCP: (".drcp", ".drcp-model"),
    CertificateKind.CUBES: (".cubes", ".cnf", ".vars.json"),
}


@dataclass(frozen=True)
class Certificate:
    """What backs an "unsolvable" (docs/formats.md#certificates).

    A backend fills ``texts`` (file suffix -> content) and leaves ``file``
    empty; the runner writes the texts into its proof folder, sets ``file``,
    and has the certificate checked by code that shares nothing with the
    backend.  ``cells`` is the set K of a ``stuck`` certificate, as
    ``(row, col)`` of the board file.
    """

    kind: CertificateKind
    cells: tuple[tuple[int, int], ...] = ()
    file: str | None = None
    texts: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    # True when ``file`` is in a folder removed at the end of the run: the JSON then names no file.
    temporary: bool = False

    def json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"kind": self.kind.value, "file": None if self.temporary else self.file}
        if self.kind is CertificateKind.STUCK:
            record["cells"] = [list(cell) for cell in self.cells]
        return record


@dataclass(frozen=True)
class Result:
    """One backend's answer for one board.

    ``verified`` is set only by the runner after the rule engine replayed
    ``moves``; a backend never sets it itself.
    """

    status: Status
    backend: str
    seconds: float = 0.0
    moves: tuple[Move, ...] = ()
    reason: Reason | None = None
    explanation: str = ""
    message: str = ""
    statistics: dict[str, Any] = field(default_factory=dict)
    verified: bool = False
    # Set by the runner when the answer is provably wrong (a rejected
    # solution), as opposed to a crash: BenchExec's "wrong" against "error".
    wrong: bool = False
    certificate: Certificate | None = None
    # Set by the runner once code independent of the backend accepted ``certificate``.
    checked: bool = False
    check_seconds: float | None = None
    # Set by the runner when the backend's worker was lost (it died, or it was killed past its time limit).
    lost: Lost | None = None
    # For ``unknown``: what each backend said before the end (docs/formats.md#the-json-of-an-answer, ``claims``).
    claims: tuple[Result, ...] = ()

    def with_(self, **changes: Any) -> Result:
        """A copy with ``changes`` (``dataclasses.replace``, without its cost: every answer is copied a few times
        on its way out, and the fields need no check beyond their names)."""
        if type(self) is not Result:  # a subclass's own __init__ runs, as dataclasses.replace does it
            return replace(self, **changes)
        unknown = changes.keys() - _RESULT_FIELDS
        if unknown:
            raise TypeError(f"Result has no field {', '.join(sorted(unknown))}")
        copy = object.__new__(Result)
        copy.__dict__.update(self.__dict__)
        copy.__dict__.update(changes)
        return copy


_RESULT_FIELDS = frozenset(f.name for f in fields(Result))
