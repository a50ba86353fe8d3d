"""Types of the C core of rup_check (runners/checking/_drup.c)."""

from mmap import mmap

def check(
    formula: bytes | memoryview | object, variables: int, proof: bytes | mmap, max_line: int
) -> tuple[int, int, int, int, int, list[int] | str | None]: ...
