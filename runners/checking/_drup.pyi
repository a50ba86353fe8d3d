"""Types of the C core of rup_check (runners/checking/_drup.c)."""

from mmap import mmap
from typing import overload

@overload
def check(
    formula: bytes | memoryview | object, variables: int, proof: bytes | mmap | memoryview, max_line: int
) -> tuple[int, int, int, int, int, list[int] | str | None]: ...
@overload
def check(
    formula: bytes | memoryview | object,
    variables: int,
    proof: bytes | mmap | memoryview,
    max_line: int,
    goals: bytes | memoryview | object | None,
) -> tuple[int, int, int, int, int, list[int] | str | None]: ...
@overload
def check(
    formula: bytes | memoryview | object,
    variables: int,
    proof: bytes | mmap | memoryview,
    max_line: int,
    goals: bytes | memoryview | object | None,
    lrat: bool,
) -> tuple[int, int, int, int, int, list[int] | str | None, bytes | None]: ...
@overload
def check(
    formula: bytes | memoryview | object,
    variables: int,
    proof: bytes | mmap | memoryview,
    max_line: int,
    goals: bytes | memoryview | object | None,
    lrat: bool,
    used: bool,
) -> tuple[int, int, int, int, int, list[int] | str | None, bytes | None, bytes | None, bytes | None]: ...
def stretch(
    text: bytes | memoryview, variables: int, split: bool = ...
) -> tuple[bytes, bytes | None, bytes | None, bytes | None]: ...
def clauses(flat: bytes | memoryview | object) -> list[list[int]]: ...
