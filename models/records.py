"""``Record`` and ``Frozen``: the bases of the hand-written records on a one-board solve's path.

They replace ``dataclasses`` there (issue 48): importing it costs about 51 M instructions (it imports
``inspect``, ``ast``, ``dis``, ``tokenize``) and each frozen class about 2.9 M more, as it compiles each
generated method apart; a one-board solve made 26, more than the public solver's whole solve.  A record
names its fields, in its constructor's order, in ``__match_args__`` and writes its ``__init__`` by hand
(a frozen one sets its fields with ``object.__setattr__``, as a frozen dataclass does); these bases give
what a dataclass would: equality and hashing over the fields (a record whose comparison leaves a field
out, or which must be fast, writes its own), the same ``repr``, a frozen record's refusal of assignment,
pickling, ``replace`` and, for code written against ``dataclasses`` (a plugin's
``dataclasses.replace(answer, ...)``, ``fields``, ``asdict``, ``is_dataclass``), the class's
``__dataclass_fields__``, made with ``dataclasses`` only when such code first asks for it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from dataclasses import Field
    from typing import Any, ClassVar, Self


class _DataclassFields:
    """The class attribute ``__dataclass_fields__``, made per class on first use (only code that uses
    ``dataclasses`` reads it, and that code has imported it)."""

    def __init__(self) -> None:
        self.made: dict[type, dict[str, Field[Any]]] = {}

    def __get__(self, obj: object, owner: type) -> dict[str, Field[Any]]:
        found = self.made.get(owner)
        if found is None:
            import dataclasses

            names: tuple[str, ...] = owner.__match_args__  # type: ignore[attr-defined]
            twin: Any = dataclasses.make_dataclass(owner.__name__, names)  # its fields' names, in order
            found = self.made[owner] = twin.__dataclass_fields__
        return found


class Record:
    """A mutable record (a dataclass's defaults: equal when its fields are, unhashable)."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    if TYPE_CHECKING:
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
    else:
        __dataclass_fields__ = _DataclassFields()

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__match_args__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{type(self).__qualname__}({shown})"

    def __reduce__(self) -> tuple[type, tuple[Any, ...]]:
        return type(self), self._fields()

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (``dataclasses.replace``): an unknown field is refused."""
        unknown = changes.keys() - set(self.__match_args__)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {', '.join(sorted(unknown))}")
        return type(self)(**{name: changes.get(name, getattr(self, name)) for name in self.__match_args__})


class Frozen(Record):
    """A frozen record: its fields cannot be assigned or deleted, and it hashes by them."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")
