"""Types every layer shares: a move, a backend's answer, its status and reason.

Modelled on minizinc-python's ``Result``/``Status``: one frozen record per
answer, the solver's statistics carried alongside.
"""

from __future__ import annotations

from operator import attrgetter

from sigmar.models.hexgrid import Hex
from sigmar.models.records import Frozen, Record
from sigmar.models.word_enums import Words, word_enum

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import Any


@word_enum
class Status(Words):
    """How a board was answered (docs/formats.md#the-json-of-an-answer).

    These are StrEnums: ``str()`` and JSON give the word itself.
    """

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    UNKNOWN = "unknown"  # no answer in time
    ERROR = "error"


@word_enum
class Reason(Words):
    """Why a board is called unsolvable (docs/formats.md#the-json-of-an-answer)."""

    COUNTS = "counts"  # the tile counts cannot all pair up
    STATIC = "static"  # another sound argument from the board alone
    EXHAUSTED = "exhausted"  # a complete search found nothing
    PROOF = "proof"  # a solver's refutation
    CORROBORATED = "corroborated"  # two backends agree


@word_enum
class Lost(Words):
    """How the runner lost a backend's worker: it died (``crash``) or outlived its time limit and was killed
    (``overrun``).  Told by this, never by the words of the answer's message."""

    CRASH = "crash"
    OVERRUN = "overrun"


class Move(Frozen):
    """One move: two cells that pair, or gold's cell alone, in axial coordinates."""

    __slots__ = ("cells",)
    __match_args__ = ("cells",)
    cells: tuple[Hex, ...]

    def __init__(self, cells: tuple[Hex, ...]) -> None:
        object.__setattr__(self, "cells", cells)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Move:
            return NotImplemented
        return self.cells == other.cells

    def __hash__(self) -> int:
        return hash((self.cells,))


_NEW = object.__new__
_SET_CELLS: Any = Move.__dict__["cells"].__set__  # the slot's own setter (Frozen refuses only ``move.cells = ...``)


def new_move(cells: tuple[Hex, ...]) -> Move:
    """``Move(cells)`` without a call of its ``__init__`` (a fifth of the cost): the search makes one for every
    move of every answer."""
    move: Move = _NEW(Move)
    _SET_CELLS(move, cells)
    return move


@word_enum
class CertificateKind(Words):
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


class Certificate(Frozen):
    """What backs an "unsolvable" (docs/formats.md#certificates).

    A backend fills ``texts`` (file suffix -> content) and leaves ``file``
    empty; the runner writes the texts into its proof folder, sets ``file``,
    and has the certificate checked by code that shares nothing with the
    backend.  ``cells`` is the set K of a ``stuck`` certificate, as
    ``(row, col)`` of the board file.
    """

    __slots__ = ("kind", "cells", "file", "texts", "temporary")
    __match_args__ = ("kind", "cells", "file", "texts", "temporary")
    kind: CertificateKind
    cells: tuple[tuple[int, int], ...]
    file: str | None
    texts: dict[str, str]  # left out of the comparison and the repr
    # True when ``file`` is in a folder removed at the end of the run: the JSON then names no file.
    temporary: bool

    def __init__(
        self,
        kind: CertificateKind,
        cells: tuple[tuple[int, int], ...] = (),
        file: str | None = None,
        texts: dict[str, str] | None = None,
        temporary: bool = False,
    ) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "kind", kind)
        setattr_(self, "cells", cells)
        setattr_(self, "file", file)
        setattr_(self, "texts", {} if texts is None else texts)
        setattr_(self, "temporary", temporary)

    def _compared(self) -> tuple[Any, ...]:
        return (self.kind, self.cells, self.file, self.temporary)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    def __repr__(self) -> str:
        return (
            f"{type(self).__qualname__}(kind={self.kind!r}, cells={self.cells!r}, file={self.file!r}, "
            f"temporary={self.temporary!r})"
        )

    def json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"kind": self.kind.value, "file": None if self.temporary else self.file}
        if self.kind is CertificateKind.STUCK:
            record["cells"] = [list(cell) for cell in self.cells]
        return record


class _ResultFields(Record):
    """:class:`Result`'s fields, in a class whose slots take a plain assignment.

    A Result is frozen: its class refuses an assignment, so its fields were set with ``object.__setattr__``, some
    1 k instructions a call in Python 3.11, 15 k a Result (an assignment to a slot: some 100).  The race makes two
    Results and a copy on every board (issue 48: some 50 k of the ~400 k instructions a board costs beyond its
    search), so a Result is made as one of these and then becomes a Result by ``__class__``, which Python allows
    between classes of the same slots: Result adds none.  Nothing else is ever one of these.
    """

    __slots__ = (
        "status",
        "backend",
        "seconds",
        "moves",
        "reason",
        "explanation",
        "message",
        "statistics",
        "verified",
        "wrong",
        "certificate",
        "checked",
        "check_seconds",
        "lost",
        "claims",
    )
    status: Status
    backend: str
    seconds: float
    moves: tuple[Move, ...]
    reason: Reason | None
    explanation: str
    message: str
    statistics: dict[str, Any]
    verified: bool
    # Set by the runner when the answer is provably wrong (a rejected
    # solution), as opposed to a crash: BenchExec's "wrong" against "error".
    wrong: bool
    certificate: Certificate | None
    # Set by the runner once code independent of the backend accepted ``certificate``.
    checked: bool
    check_seconds: float | None
    # Set by the runner when the backend's worker was lost (it died, or it was killed past its time limit).
    lost: Lost | None
    # For ``unknown``: what each backend said before the end (docs/formats.md#the-json-of-an-answer, ``claims``).
    claims: tuple[Result, ...]


class Result(_ResultFields, Frozen):
    """One backend's answer for one board.

    ``verified`` is set only by the runner after the rule engine replayed
    ``moves``; a backend never sets it itself.
    """

    __slots__ = ()
    __match_args__ = _RESULT_FIELDS = _ResultFields.__slots__

    def __init__(
        self,
        status: Status,
        backend: str,
        seconds: float = 0.0,
        moves: tuple[Move, ...] = (),
        reason: Reason | None = None,
        explanation: str = "",
        message: str = "",
        statistics: dict[str, Any] | None = None,
        verified: bool = False,
        wrong: bool = False,
        certificate: Certificate | None = None,
        checked: bool = False,
        check_seconds: float | None = None,
        lost: Lost | None = None,
        claims: tuple[Result, ...] = (),
    ) -> None:
        if statistics is None:
            statistics = {}
        if type(self) is not Result:  # a subclass may have more than the slots: its class stays
            values = (status, backend, seconds, moves, reason, explanation, message, statistics, verified, wrong)
            for setter, value in zip(
                _SETTERS, (*values, certificate, checked, check_seconds, lost, claims), strict=True
            ):
                setter(self, value)
            return
        _SET_CLASS(self, "__class__", _ResultFields)  # assignable while it is one (see _ResultFields)
        fields: _ResultFields = self
        fields.status, fields.backend, fields.seconds, fields.moves = status, backend, seconds, moves
        fields.reason, fields.explanation, fields.message, fields.statistics = reason, explanation, message, statistics
        fields.verified, fields.wrong, fields.certificate, fields.checked = verified, wrong, certificate, checked
        fields.check_seconds, fields.lost, fields.claims = check_seconds, lost, claims
        fields.__class__ = Result

    def with_(self, **changes: Any) -> Result:
        """A copy with ``changes`` (``dataclasses.replace``, without its cost: every answer is copied a few times
        on its way out, and the fields need no check beyond their names)."""
        if type(self) is not Result:  # a subclass's own __init__ runs, as dataclasses.replace does it
            return self.replace(**changes)
        values = list(_FIELDS_OF(self))  # every field's value, read in one call
        for name, value in changes.items():
            place = _PLACE.get(name)
            if place is None:
                unknown = sorted(changes.keys() - _PLACE.keys())
                raise TypeError(f"Result has no field {', '.join(unknown)}")
            values[place] = value
        copy: Any = _NEW(_ResultFields)  # made as one, then a Result (see _ResultFields)
        (
            copy.status,
            copy.backend,
            copy.seconds,
            copy.moves,
            copy.reason,
            copy.explanation,
            copy.message,
            copy.statistics,
            copy.verified,
            copy.wrong,
            copy.certificate,
            copy.checked,
            copy.check_seconds,
            copy.lost,
            copy.claims,
        ) = values
        copy.__class__ = Result
        return copy


_SET_CLASS = object.__setattr__
_FIELDS_OF = attrgetter(*Result._RESULT_FIELDS)
_PLACE = {name: k for k, name in enumerate(Result._RESULT_FIELDS)}
_SETTERS = tuple(getattr(Result, name).__set__ for name in Result._RESULT_FIELDS)
