"""Types of the rule engine's compiled replay (models/_replay.c)."""

from typing import Any

def first_bad_move(index: dict[tuple[int, int], int], ring: bytes, tiles: Any, moves: Any) -> int | None: ...
