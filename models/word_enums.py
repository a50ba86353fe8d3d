"""``word_enum``: a StrEnum made from a plain class statement, about twice as fast (issue 48).

A one-board solve makes eight StrEnums (a status, a reason, a fault, ...).  ``enum``'s own class statement
costs about 0.64 M instructions each, its metaclass checking every name; ``enum._simple_enum``, with which
the standard library makes its own (re's flags, http's statuses), makes the same StrEnum from a plain class
for about 0.35 M.  What it makes is a StrEnum in every way (``isinstance(x, enum.StrEnum)``, lookup by
value and by name, iteration, pickling, ``str()`` and JSON giving the word); type checkers see the plain
``class X(StrEnum)`` they know.  Where ``_simple_enum`` is missing (it is private to the standard library),
the class is made the usual way, with the same members.

    @word_enum
    class Status(Words):
        SOLVED = "solved"
"""

from __future__ import annotations

import enum
from enum import StrEnum

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import TypeVar

    Words = StrEnum
    T = TypeVar("T")

    def word_enum(cls: T) -> T: ...

else:

    class Words:
        """The base of a word enum's class statement: a plain class, which :func:`word_enum` makes a StrEnum."""

    def word_enum(cls: type) -> type[StrEnum]:
        """The StrEnum of the plain class ``cls``: its upper-case names are the members."""
        simple = getattr(enum, "_simple_enum", None)
        if simple is not None:
            return simple(StrEnum)(cls)
        body = {k: v for k, v in vars(cls).items() if k not in ("__dict__", "__weakref__")}
        namespace = enum.EnumType.__prepare__(cls.__name__, (StrEnum,))
        for name, value in body.items():
            namespace[name] = value
        return enum.EnumType(cls.__name__, (StrEnum,), namespace)
