"""The hand-written records (``models/records.py``) behave as the dataclasses they replaced (issue 48).

Each record is held against its dataclass twin, made here by ``dataclasses`` with the options the
class had (frozen or not, compared or by identity, a field left out of the comparison or the repr), on
the same field values: the same repr, equality, hash (or none), refusal of assignment, pickling, and
``dataclasses.replace``/``fields``/``asdict``/``is_dataclass`` for code written against dataclasses
(a plugin's ``dataclasses.replace(answer, ...)``, ``bench``'s record of a backend's options).
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.encoders.backend import NoOptions, option_names
from sigmar.encoders.plugins import Entry
from sigmar.encoders.registry import FamilyInfo
from sigmar.encoders.search.backend import SearchOptions
from sigmar.encoders.search.engine import Outcome
from sigmar.models.board import Board, Tile
from sigmar.models.boardfile import BoardFileError, RowBlock
from sigmar.models.counting import Count
from sigmar.models.errors import SigmarError
from sigmar.models.facts import Facts, Layout
from sigmar.models.hexgrid import Side
from sigmar.models.input_limits import Limit
from sigmar.models.records import Frozen, Record
from sigmar.models.result import Certificate, Move, Result
from sigmar.models.rules import Illegal, Position, ReplayVerdict
from sigmar.models.solution import Solution
from sigmar.runners.checking.count_grade import CountVerdict
from sigmar.runners.checking.grading import BoardVerdict
from sigmar.runners.race import Plan, RaceOutcome
from sigmar.runners.statistics.scores import Vbs

# (class, frozen, eq, fields left out of the comparison, fields left out of the repr): as each was declared.
RECORDS: list[tuple[type[Record], bool, bool, frozenset[str], frozenset[str]]] = [
    (Move, True, True, frozenset(), frozenset()),
    (Certificate, True, True, frozenset({"texts"}), frozenset({"texts"})),
    (Result, True, True, frozenset(), frozenset()),
    (Tile, True, True, frozenset(), frozenset()),
    (Board, True, True, frozenset(), frozenset()),
    (BoardFileError, False, True, frozenset(), frozenset()),
    (RowBlock, False, True, frozenset(), frozenset()),
    (Count, True, True, frozenset(), frozenset()),
    (Limit, True, True, frozenset(), frozenset()),
    (Solution, True, True, frozenset(), frozenset()),
    (Side, True, False, frozenset(), frozenset()),
    (Facts, True, False, frozenset(), frozenset()),
    (Layout, True, False, frozenset(), frozenset()),
    (Illegal, True, True, frozenset(), frozenset()),
    (Position, True, True, frozenset(), frozenset()),
    (ReplayVerdict, True, True, frozenset(), frozenset()),
    (Entry, True, True, frozenset(), frozenset()),
    (FamilyInfo, True, True, frozenset(), frozenset()),
    (NoOptions, True, True, frozenset(), frozenset()),
    (SearchOptions, True, True, frozenset(), frozenset()),
    (Outcome, False, True, frozenset(), frozenset()),
    (CountVerdict, True, True, frozenset(), frozenset()),
    (BoardVerdict, True, True, frozenset(), frozenset()),
    (Plan, True, True, frozenset(), frozenset()),
    (Vbs, True, True, frozenset(), frozenset()),
    (RaceOutcome, False, True, frozenset(), frozenset()),
]
IDS = [spec[0].__name__ for spec in RECORDS]

# Few values, so that two records drawn often compare equal; a list is unhashable, as a dict field is.
VALUES = [0, 1, "a", "", (1, 2), None, True, ["x"]]
# Fields that were ``field(default_factory=...)``: None given for them is taken as "a fresh empty one".
FRESH = frozenset({"statistics", "texts", "solution", "answers", "wrong"})


def twin(cls: type[Record], frozen: bool, eq: bool, uncompared: frozenset[str], unshown: frozenset[str]) -> Any:
    spec = [
        (name, Any, dataclasses.field(compare=name not in uncompared, repr=name not in unshown))
        for name in cls.__match_args__
    ]
    bases = (SigmarError,) if issubclass(cls, BaseException) else ()
    return dataclasses.make_dataclass(cls.__name__, spec, bases=bases, frozen=frozen, eq=eq)


def hashed(obj: object) -> int | None:
    try:
        return hash(obj)
    except TypeError:
        return None


@pytest.mark.parametrize(("cls", "frozen", "eq", "uncompared", "unshown"), RECORDS, ids=IDS)
@settings(deadline=None)  # a dataclass made per example: slow on a loaded machine, and no timing is tested
@given(data=st.data())
def test_a_record_behaves_as_its_dataclass_twin(
    cls: type[Record], frozen: bool, eq: bool, uncompared: frozenset[str], unshown: frozenset[str], data: st.DataObject
) -> None:
    Twin = twin(cls, frozen, eq, uncompared, unshown)
    names = cls.__match_args__
    drawn = {n: st.sampled_from([v for v in VALUES if v is not None or n not in FRESH]) for n in names}
    first = [data.draw(drawn[n]) for n in names]
    second = [v if data.draw(st.booleans()) else data.draw(drawn[n]) for n, v in zip(names, first, strict=True)]
    a, b, twin_a, twin_b = cls(*first), cls(*second), Twin(*first), Twin(*second)

    assert repr(a) == repr(twin_a)
    assert (a == b) == (twin_a == twin_b) and (a != b) == (twin_a != twin_b)
    assert a == a
    if eq:
        assert hashed(a) == hashed(twin_a)
    else:
        assert hash(a) == object.__hash__(a) and a != cls(*first)
    if frozen:
        with pytest.raises(AttributeError):
            setattr(a, names[0] if names else "anything", 5)
    elif names:
        setattr(a, names[0], 5)
        setattr(twin_a, names[0], 5)
        assert (a == b) == (twin_a == twin_b)

    copy = pickle.loads(pickle.dumps(a))
    assert type(copy) is cls and [getattr(copy, n) for n in names] == [getattr(a, n) for n in names]

    assert dataclasses.is_dataclass(a)
    assert [f.name for f in dataclasses.fields(a)] == list(names)
    assert dataclasses.asdict(a) == {n: getattr(a, n) for n in names}
    if names:
        changed = dataclasses.replace(a, **{names[-1]: "changed"})
        assert type(changed) is cls and getattr(changed, names[-1]) == "changed"
        assert [getattr(changed, n) for n in names[:-1]] == [getattr(a, n) for n in names[:-1]]
        assert [getattr(a.replace(**{names[-1]: "changed"}), n) for n in names] == [getattr(changed, n) for n in names]
    with pytest.raises(TypeError, match="no field"):
        a.replace(no_such_field=1)


def test_a_backends_options_are_its_records_fields_or_its_dataclasses() -> None:
    """``Backend.__init__`` checks options against a frozen record's fields without importing dataclasses,
    and against a plugin's frozen dataclass as before."""

    @dataclasses.dataclass(frozen=True)
    class Theirs:
        depth: int = 3

    assert option_names(SearchOptions) == {"order", "safe", "locks", "stuck"}
    assert option_names(NoOptions) == set()
    assert option_names(Theirs) == {"depth"}


def test_a_frozen_record_refuses_deletion_and_a_board_pickles_without_what_it_derived() -> None:
    board = Board(6, (Tile((0, 0), "a"),), "one")
    assert board.counts["a"] == 1 and hash(board)  # cached in its __dict__, the hash too
    with pytest.raises(AttributeError):
        del board.name
    sent = pickle.loads(pickle.dumps(board))
    assert sent == board and set(sent.__dict__) == {"dim", "tiles", "name"}
    assert isinstance(Move(((0, 0),)), Frozen)
