"""Types of the search's compiled set-up of a board (encoders/search/_cellmasks.c)."""

from collections.abc import Callable
from typing import Any

def masks(
    index: dict[tuple[int, int], int],
    tiles: Any,
    ring: bytes,
    windows: list[list[tuple[int, ...] | None]],
    fill: Callable[[int, int], tuple[int, ...]],
    bias: int,
) -> tuple[Any, ...] | None: ...
