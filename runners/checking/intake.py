"""What a backend returned, taken in: a plain :class:`Result` whose trust fields are the runner's.

Why: a backend is code the suite does not trust (docs/formats.md#plugins).  It could set
``checked=True`` on its own "unsolvable" and skip the certificate check, hand back cells as
lists or a status as a plain string and crash the run, or name a certificate file of its
choosing.  So before the runner looks at an answer, in process, from a worker, from a
plugin or over Dask, :func:`taken_in` rebuilds it field by field:

- the fields that record trust (``verified``, ``wrong``, ``checked``, ``check_seconds``,
  ``claims``) and the certificate's ``file`` and ``temporary`` are reset: only the
  runner's replay and certificate check set them;
- every other field must have its declared type (exact tuples, enums, strings; the
  certificate's texts only under its kind's suffixes); anything else makes the answer an
  ``error`` that names the backend and the field;
- ``backend`` is the name the runner asked, or the answer's own when it names the same
  family (``toy`` asked, ``toy:search`` answered): a backend never answers as another.

A count (``Backend.count``) is taken in the same way: :func:`counted` reads what ``count``
returned, in the worker, and :func:`count_taken_in` reads the counting job's answer again
where the runner receives it.  Either way a count is only a claim: the runner holds it against
the rule engine's own (``checking/count_grade.py``).
"""

from __future__ import annotations

import math
import os
from itertools import chain
from operator import attrgetter

from sigmar.models.cached import SecondUse
from sigmar.models.errors import SigmarError
from sigmar.models.result import CERTIFICATE_SUFFIXES, Certificate, CertificateKind, Move, Reason, Result, Status

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import Any

# Labels only the runner gives: a backend that says "corroborated" speaks for two families.
RUNNER_REASONS = frozenset({Reason.CORROBORATED})


class Malformed(SigmarError, ValueError):
    """One field of an answer with the wrong type or value; the message names the field."""


def crashed(name: str, exc: BaseException, seconds: float = 0.0) -> Result:
    """The one answer of a backend that raised: ``error``, naming the exception and the line that raised it."""
    import traceback  # only for a crash: a one-board solve has no use for it

    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}" if frames else ""
    return Result(Status.ERROR, name, seconds, message=f"{name} raised {type(exc).__name__}: {exc}{where}")


def overrun_message(time_limit: float | None) -> str:
    """The one message of a run killed for outliving its time limit (and the slack past it)."""
    return f"no answer in {time_limit:g} s; killed" if time_limit is not None else "no answer; killed"


def taken_in(raw: object, name: str | None = None) -> Result:
    """``raw`` as a plain Result with the runner's fields reset, or an ``error`` naming what was wrong.

    ``name``: the backend the runner asked (None: the answer's own, when it is a string).  The Result is
    always a new one, the caller's own (:func:`.replay.replayed` sets its ``verified`` in place).
    """
    backend = _backend_name(raw, name)
    if not isinstance(raw, Result):
        return _error(backend, f"returned {type(raw).__name__}, not a Result")
    try:
        return _rebuilt(raw, backend)
    except Malformed as exc:
        return _error(backend, f"returned a malformed answer: {exc}")
    except Exception as exc:  # a subclass whose fields raise when read
        return _error(backend, f"returned an answer that cannot be read: {type(exc).__name__}: {exc}")


def counted(raw: object, name: str, notion: str) -> Result:
    """What backend ``name``'s ``count`` returned, ``(value, exact)``, as the answer of a counting job:
    ``solved`` when exact, ``unknown`` for a lower bound, the count in the statistics; anything but a
    whole number of at least 0 and a bool is an ``error`` naming the backend."""
    try:
        value, exact = _count(raw)
    except Malformed as exc:
        return _error(name, f"count returned {exc}")
    statistics = {"notion": str(notion), "count": value, "exact": exact}
    return Result(Status.SOLVED if exact else Status.UNKNOWN, name, statistics=statistics)


def count_taken_in(raw: object, name: str, notion: str) -> Result:
    """A counting job's answer (:func:`counted`, or an ``error``) as the runner receives it: taken in as
    any answer, its count read again, and of the notion that was asked."""
    result = taken_in(raw, name)
    if result.status is Status.ERROR:
        return result
    statistics = result.statistics
    if statistics.get("notion") != str(notion) or not {"count", "exact"} <= statistics.keys():
        return _error(result.backend, f"answered a count of {notion} without one: {_shown(statistics)}")
    again = counted((statistics["count"], statistics["exact"]), result.backend, notion)
    return again if again.status is Status.ERROR else again.with_(seconds=result.seconds, message=result.message)


def _count(raw: object) -> tuple[int, bool]:
    if type(raw) is not tuple or len(raw) != 2:
        raise Malformed(f"{_shown(raw)}, not a tuple (value, exact)")
    value, exact = raw
    if type(value) is not int or value < 0:
        raise Malformed(f"a value of {_shown(value)}, not a whole number of at least 0")
    if type(exact) is not bool:
        raise Malformed(f"exact as {_shown(exact)}, not a bool")
    return value, exact


def _backend_name(raw: object, asked: str | None) -> str:
    try:
        own = raw.backend if isinstance(raw, Result) else None
    except Exception:  # a subclass whose field raises when read
        own = None
    own = str.__str__(own) if isinstance(own, str) else None
    if own is not None and own == asked:  # the backend asked names itself (a race's every answer): the name the
        return own  # tests below give (own, or asked: the same string)
    if asked is None:
        return own or "backend"
    if own is not None and own.partition(":")[0].strip() == asked.partition(":")[0].strip() and own.isprintable():
        return own
    return asked


def _error(backend: str, message: str) -> Result:
    return Result(Status.ERROR, backend, message=f"{backend} {message}")


def _rebuilt(raw: Result, backend: str) -> Result:
    status = _member(raw.status, Status, "status")
    reason = None if raw.reason is None else _member(raw.reason, Reason, "reason")
    if reason in RUNNER_REASONS:
        raise Malformed(f"reason '{reason}' is the runner's to give, not a backend's")
    return Result(
        status,
        backend,
        seconds=_seconds(raw.seconds),
        moves=_moves(raw.moves),
        reason=reason,
        explanation=_text(raw.explanation, "explanation"),
        message=_text(raw.message, "message"),
        statistics=_statistics(raw.statistics),
        certificate=None if raw.certificate is None else _certificate(raw.certificate),
    )


def _member(value: object, enum: Any, field: str) -> Any:
    if type(value) is not enum:
        raise Malformed(f"{field} is {_shown(value)}, not a {enum.__name__}")
    return value


def _text(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise Malformed(f"{field} is {_shown(value)}, not a string")
    return str.__str__(value)  # a plain str, whatever subclass came


def _seconds(value: object) -> float:
    if type(value) is float and 0.0 <= value < math.inf:  # the common case at one test (NaN fails it)
        return value
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise Malformed(f"seconds is {_shown(value)}, not a number of seconds")
    return float(value)


def _whole(value: object) -> bool:
    return type(value) is int


def _cell(value: object, field: str) -> tuple[int, int]:
    if type(value) is not tuple or len(value) != 2 or not all(_whole(v) for v in value):
        raise Malformed(f"{field} holds {_shown(value)}, not a cell (a tuple of two whole numbers)")
    return (int(value[0]), int(value[1]))


def _moves(value: object) -> tuple[Move, ...]:
    if type(value) is not tuple:
        raise Malformed(f"moves is {_shown(value)}, not a tuple of Move")
    if _plain_moves(value):
        return value  # exact Moves of plain cells cannot change: shared, not copied (the search's answer)
    moves = []
    for number, move in enumerate(value, start=1):
        if not isinstance(move, Move):
            raise Malformed(f"move {number} is {_shown(move)}, not a Move")
        cells = move.cells
        if type(cells) is not tuple or not 1 <= len(cells) <= 5:
            raise Malformed(f"move {number}'s cells are {_shown(cells)}, not a tuple of one to five cells")
        if all(type(c) is tuple and len(c) == 2 and type(c[0]) is int and type(c[1]) is int for c in cells):
            moves.append(Move(cells))  # plain tuples of plain ints cannot change: shared, not copied
        else:
            moves.append(Move(tuple(_cell(c, f"move {number}'s cells") for c in cells)))
    return tuple(moves)


def _plain_moves(moves: tuple[object, ...]) -> bool:
    """Whether every move is an exact Move whose cells are an exact tuple of one to five plain cells (a tuple
    of two exact ints).  The sets of the types and lengths seen, each made by ``map`` (a loop in C, not a
    test a value in Python): it runs for every solved board.  Compiled from a process's second answer
    (``models/_replay.c plain_moves``).  In Python, a Move found plain once is plain for good (it cannot
    change): such moves are kept (:data:`_PLAIN`), and an answer of moves all kept is not looked at again
    (the search's moves of one or two tiles are made once per side and shared by its answers)."""
    compiled = _compiled_check.loaded or _compiled_check()
    if compiled:  # one pass in C: less than looking each move up in the kept ones (0.5 against 1.5 us)
        return bool(compiled(moves, Move))
    plain = _PLAIN
    if all(map(plain.__contains__, map(id, moves))):
        return True
    if not _plain_moves_read(moves):
        return False
    if len(plain) > _PLAIN_KEPT:
        plain.clear()
    plain.update(zip(map(id, moves), moves, strict=True))  # type: ignore[arg-type]  # each a Move, seen
    return True


def _plain_moves_read(moves: tuple[object, ...]) -> bool:
    """:func:`_plain_moves`'s look in Python, the reference the compiled one is held to (test_hostile_backend)."""
    if set(map(type, moves)) - {Move}:
        return False
    cells = list(map(_CELLS, moves))
    if set(map(type, cells)) - {tuple} or not set(map(len, cells)) <= {1, 2, 5}:
        return False
    every = list(chain.from_iterable(cells))
    if set(map(type, every)) - {tuple} or set(map(len, every)) - {2}:
        return False
    return not set(map(type, chain.from_iterable(every))) - {int}


# models/_replay.c's plain_moves (the same look as :func:`_plain_moves`'s, in one pass), loaded at a process's
# second answer as the compiled replay is (models/rules.py)
_compiled_check = SecondUse("sigmar.models._replay", "plain_moves")
_compiled_statistics = SecondUse("sigmar.models._replay", "plain_statistics")


# The Moves found plain, by id: each is kept alive here, so no other object can take its id while it is in.
# Emptied when it outgrows _PLAIN_KEPT (some 150 bytes a move held).
_PLAIN: dict[int, Move] = {}
_PLAIN_KEPT = 50_000


_CELLS = attrgetter("cells")


# Values a copy of the statistics may share: they cannot change, and JSON writes them as they are (an int
# only while it is short: JSON writes no int of more than 4,300 digits, and the round trip below says so).
_PLAIN_TYPES = {str, bool, type(None), int, float}
_SHORT = 1 << 63


def _statistics(value: object) -> dict[str, Any]:
    compiled = _compiled_statistics.loaded or _compiled_statistics()
    if compiled:  # the common case (every search's answer) in one pass in C, from a process's second answer
        copied: dict[str, Any] | None = compiled(value)
        if copied is not None:
            return copied
    return _statistics_read(value)


def _statistics_read(value: object) -> dict[str, Any]:
    """:func:`_statistics` in Python: what the compiled look (``_replay.c plain_statistics``) leaves to it, and
    the reference it is held to (tests/test_hostile_backend.py)."""
    if type(value) is not dict or set(map(type, value)) - {str}:
        raise Malformed(f"statistics is {_shown(value)}, not a dict with string keys")
    if _all_plain(list(value.values())):
        return dict(value)  # flat and plain (the search's own): a copy the backend cannot change
    import json  # json only for statistics that are not flat and plain (never the search's)

    try:  # the answer JSON prints them: only what JSON can say, and a copy the backend cannot change
        copied = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise Malformed(f"statistics cannot be written as JSON ({exc})") from None
    return copied


def _all_plain(values: list[object]) -> bool:
    """Whether every value may be shared as it is: a string, a bool, None, a finite float or a short int.  The
    types seen are asked once, the ints' range by ``min`` and ``max``: it runs for every answer."""
    kinds = set(map(type, values))
    if kinds - _PLAIN_TYPES:
        return False
    if int in kinds:
        ints = [v for v in values if type(v) is int]
        if min(ints) < -_SHORT or max(ints) >= _SHORT:
            return False
    if float in kinds:
        return all(map(math.isfinite, [v for v in values if type(v) is float]))
    return True


def _certificate(value: object) -> Certificate:
    if not isinstance(value, Certificate):
        raise Malformed(f"certificate is {_shown(value)}, not a Certificate")
    kind = _member(value.kind, CertificateKind, "certificate kind")
    if type(value.cells) is not tuple:
        raise Malformed(f"certificate cells are {_shown(value.cells)}, not a tuple of cells")
    cells = tuple(_cell(c, "certificate cells") for c in value.cells)
    texts = value.texts
    if type(texts) is not dict:
        raise Malformed(f"certificate texts are {_shown(texts)}, not a dict of suffix to text")
    allowed = CERTIFICATE_SUFFIXES.get(kind, ())
    for suffix, text in texts.items():
        if suffix not in allowed:
            wanted = ", ".join(allowed) if allowed else "none for this kind"
            raise Malformed(f"certificate text under {_shown(suffix)}: a {kind} certificate takes {wanted}")
        if not isinstance(text, str):
            raise Malformed(f"certificate text {suffix} is {_shown(text)}, not a string")
    # ``file`` and ``temporary`` are the runner's: it writes the texts and names the file itself.
    return Certificate(kind, cells, texts={str.__str__(k): str.__str__(t) for k, t in texts.items()})


def _shown(value: object) -> str:
    """A short description of a value for a message: its type, and its text when that is short."""
    try:
        text = repr(value)
    except Exception:  # a plugin's own __repr__ may raise
        text = ""
    kind = type(value).__name__
    return f"{kind} {text}" if text and len(text) <= 40 else kind
