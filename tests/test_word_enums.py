"""The StrEnums made by word_enum (models/word_enums.py) are the StrEnums a class statement makes."""

from __future__ import annotations

import enum
import json
import pickle

import pytest

from sigmar.models import word_enums
from sigmar.models.counting import Notion
from sigmar.models.result import CertificateKind, Lost, Reason, Status
from sigmar.models.rules import Fault
from sigmar.runners.checking.count_grade import CountGrade
from sigmar.runners.checking.fuzz_grade import Failure
from sigmar.runners.checking.grading import Grade

MADE = (Status, Reason, Lost, CertificateKind, Fault, Notion, Grade, CountGrade, Failure)


def usual(made: type[enum.StrEnum]) -> type[enum.StrEnum]:
    """The same members, by enum's own class statement."""
    return enum.StrEnum(made.__name__, [(m.name, m.value) for m in made])  # type: ignore[return-value]


@pytest.mark.parametrize("made", MADE, ids=lambda c: c.__name__)
def test_a_word_enum_is_the_strenum_a_class_statement_makes(made: type[enum.StrEnum]) -> None:
    twin = usual(made)
    assert isinstance(made, enum.EnumType) and issubclass(made, enum.StrEnum)
    assert [(m.name, m.value) for m in made] == [(m.name, m.value) for m in twin]
    assert len(made) == len(twin) and made.__doc__
    for member, other in zip(made, twin, strict=True):
        assert isinstance(member, str) and member == member.value == other
        assert made(member.value) is member and made[member.name] is member and member in made
        assert str(member) == str(other) and f"{member}" == f"{other}" and format(member, ">20") == format(other, ">20")
        assert repr(member) == repr(other) and hash(member) == hash(member.value)
        assert pickle.loads(pickle.dumps(member)) is member
        assert json.dumps({member: member}) == json.dumps({other: other})
    with pytest.raises(ValueError):
        made("no such word")


def test_without_simple_enum_the_class_is_made_the_usual_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback, where the standard library has no ``_simple_enum`` (it is private to it)."""
    monkeypatch.delattr(enum, "_simple_enum")

    @word_enums.word_enum
    class Shade(word_enums.Words):
        """A test's enum."""

        DARK = "dark"
        LIGHT = "light"

    assert issubclass(Shade, enum.StrEnum) and list(Shade) == ["dark", "light"]
    assert Shade("light") is Shade.LIGHT and Shade.__doc__ == "A test's enum."
