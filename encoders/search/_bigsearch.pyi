"""Types of the search's compiled finder for big boards (encoders/search/_bigsearch.c)."""

from typing import Literal

def find(
    spec: bytes, seconds: float, seed: int, stop: bytearray, table_bits: int
) -> tuple[tuple[int, int], ...] | Literal[False] | None: ...
