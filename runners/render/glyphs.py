"""The game's symbols for each kind of tile, drawn as SVG paths (no font needed).

The game marks its marbles with the alchemists' signs, which players read at a glance: the four
elements as triangles (fire up, water down, air and earth barred), salt a barred circle,
quicksilver and the metals their planets' signs (lead Saturn, tin Jupiter, iron Mars, copper
Venus, silver the moon, gold the sun).  Vitae and mors get a sprout (life) and an hourglass
(death); quintessence a five-pointed star.  Metals above silver that are not gold (digits 6 to 9
of larger boards) have no sign: they keep their digit.

Each sign is a ``<g id="g-KEY">`` of paths around the origin within a radius of about 10 (a
cell's hexagon has an inner radius of 16.5), stroked in ``currentColor`` so the tile's ``color``
sets it; :func:`glyph_key` says which sign a tile gets.
"""

from __future__ import annotations

import math

from sigmar.models.tiles import METALS

# Strokes (fill none) and fills (stroke none) per sign.
_STROKES = {
    "f": "M0,-8.5 L7.8,5 L-7.8,5 Z",
    "w": "M0,8.5 L7.8,-5 L-7.8,-5 Z",
    "a": "M0,-8.5 L7.8,5 L-7.8,5 Z M-9,0.6 H9",
    "e": "M0,8.5 L7.8,-5 L-7.8,-5 Z M-9,-0.6 H9",
    "s": "M7.8,0 A7.8,7.8 0 1 1 -7.8,0 A7.8,7.8 0 1 1 7.8,0 Z M-7.8,0 H7.8",
    "q": "M-4.6,-10.5 A4.6,4.6 0 0 0 4.6,-10.5 M4.4,-2.6 A4.4,4.4 0 1 1 -4.4,-2.6 A4.4,4.4 0 1 1 4.4,-2.6 Z "
    "M0,1.8 V10.5 M-3.8,6.4 H3.8",
    "v": "M0,10.5 V-9 M0,1 C-1,-4.5 -5.5,-7 -8.5,-5.5 C-7.5,-1.5 -3.5,1.5 0,1 M0,-3 C1,-8 5,-10 8.5,-9 "
    "C7.5,-5 4,-2.5 0,-3 M-5.5,10.5 H5.5",
    "m": "M-6,-9 H6 L-6,9 H6 Z",
    "lead": "M-2.5,-10.5 V4 M-6,-7.2 H1 M-2.5,-1.5 C0,-5 6,-5 5.5,-0.5 C5,3 1.5,4.5 2.5,8.2 C3,9.8 4.8,10 6,8.8",
    "tin": "M-6.5,-6 C-5,-11 3,-10.5 0.5,-3.5 C-1.2,0.8 -5,2.8 -6.5,3.4 H7 M3.6,-5 V10.5",
    "iron": "M2.8,2.2 A5.6,5.6 0 1 1 -8.4,2.2 A5.6,5.6 0 1 1 2.8,2.2 Z M1.2,-1.8 L8.5,-9.1 M2.8,-9.1 H8.5 V-3.4",
    "copper": "M5.2,-4.6 A5.2,5.2 0 1 1 -5.2,-4.6 A5.2,5.2 0 1 1 5.2,-4.6 Z M0,0.6 V10.5 M-4.4,5.6 H4.4",
    "gold": "M8.5,0 A8.5,8.5 0 1 1 -8.5,0 A8.5,8.5 0 1 1 8.5,0 Z",
}
_FILLS = {
    "silver": "M7.4,-6.9 A8.5,8.5 0 1 0 7.4,6.9 A7,7 0 1 1 7.4,-6.9 Z",
    "gold": "M2.3,0 A2.3,2.3 0 1 1 -2.3,0 A2.3,2.3 0 1 1 2.3,0 Z",
}
_METAL_SIGNS = {"1": "lead", "2": "tin", "3": "iron", "4": "copper", "5": "silver"}


def _star(outer: float = 10.0, inner: float = 4.0) -> str:
    points = []
    for k in range(10):
        radius = outer if k % 2 == 0 else inner
        angle = math.radians(-90 + 36 * k)
        points.append(f"{radius * math.cos(angle):.1f},{radius * math.sin(angle):.1f}")
    return "M" + " L".join(points) + " Z"


_STROKES["x"] = _star()


def glyph_key(symbol: str, gold: str | None) -> str | None:
    """The sign a tile of ``symbol`` gets on a board whose gold is ``gold``; None: it keeps its letter."""
    if symbol == gold:
        return "gold"
    if symbol in METALS:
        return _METAL_SIGNS.get(symbol)
    return symbol if symbol in _STROKES else None


def glyph_defs(keys: set[str]) -> str:
    """``<g id="g-KEY">`` for each sign in ``keys``, for a ``<defs>``."""
    parts = []
    for key in sorted(keys):
        paths = ""
        if key in _STROKES:
            paths += (
                f'<path d="{_STROKES[key]}" fill="none" stroke="currentColor" stroke-width="2.2" '
                'stroke-linecap="round" stroke-linejoin="round"/>'
            )
        if key in _FILLS:
            paths += f'<path d="{_FILLS[key]}" fill="currentColor" stroke="none"/>'
        parts.append(f'<g id="g-{key}">{paths}</g>')
    return "".join(parts)
