"""Sets of tiles as int masks (bit ``i`` is tile ``i``): the few helpers every mask reader needs.

Kept apart from :mod:`sigmar.models.facts` because it holds no rule of the
game: the certificate checker, which must not share the solvers' reading of
the rules, can use it as freely as the solvers do.
"""

from __future__ import annotations

from collections.abc import Iterable


def tile_ids(mask: int) -> list[int]:
    """The tile ids whose bits are set in ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def single_bits(mask: int) -> list[int]:
    """The set bits of ``mask`` as one-bit masks, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def mask_of_ids(tiles: Iterable[int]) -> int:
    """The mask of the tile ids ``tiles``."""
    out = 0
    for t in tiles:
        out |= 1 << t
    return out


def union(masks: Iterable[int]) -> int:
    """The tiles in any of ``masks``."""
    out = 0
    for m in masks:
        out |= m
    return out
