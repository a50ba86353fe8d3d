"""A board as SVG: one picture code for ``show --svg``, ``show --html`` and bench reports.

Each tile is a ``<g data-cell="r,c" data-tile="SYMBOL">`` holding a hexagon and
its letter, so a program can read the picture back and a person can read it in
grey: the letter carries the kind, colour only helps.  Built from strings with
the standard library, so it needs neither rich nor a browser.

To draw a board with some cells picked out (a bench report's hardest boards,
say): ``board_svg(board, highlight=cells)``.  ``symbols=True`` draws the game's
signs instead of letters (:mod:`.glyphs`: triangles for the elements, the
planets' signs for the metals), and gives each tile an inner ring a page can
outline without covering its neighbours (the workbench's marks).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from html import escape

from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex, cells
from sigmar.models.tiles import METALS, name_of
from sigmar.runners.render.glyphs import glyph_defs, glyph_key

RADIUS = 20.0  # centre to corner of one cell, in SVG units
STEP_X = math.sqrt(3) * RADIUS
STEP_Y = 1.5 * RADIUS
MARGIN = 4.0

# Fill per kind; letters are dark on light fills and light on dark ones, so
# every pair of kinds differs in letter before colour.
FILLS = {
    "a": "#d6ecfa",
    "e": "#8cbf6a",
    "f": "#e8643c",
    "w": "#3d6fc4",
    "s": "#f4f3ee",
    "v": "#f3a7c9",
    "m": "#54465a",
    "q": "#b8bdc4",
    "x": "#f4f0e0",  # quintessence (the variant): pale gold, its letter says the kind
}
# Each metal its own colour, after the game's lead, tin, iron, copper and silver (digits above 5 appear
# on larger boards); gold, the highest digit of the board whatever it is, is always GOLD_FILL.
METAL_FILLS = {
    "1": "#8e96a6",  # lead
    "2": "#c9cfa8",  # tin
    "3": "#9c4f2c",  # iron
    "4": "#dd8452",  # copper
    "5": "#dfe6ef",  # silver
    "6": "#a3c9c2",
    "7": "#b7a4d6",
    "8": "#d6a4b8",
    "9": "#a8bfe0",
}
GOLD_FILL = "#f5c518"
LIGHT_LETTERS = frozenset("wm3")  # the kinds on a dark fill

STYLE = (
    ".c{fill:#efebe2;stroke:#cdc5b3;stroke-width:1}"
    ".t>.hx{stroke:#333;stroke-width:1.2}"
    ".t>text{font:bold 15px sans-serif;text-anchor:middle;dominant-baseline:central;fill:#111}"
    ".t>text.l{fill:#fff}"
    ".t>.g{color:#111}.t>.g.l{color:#fff}.t>.ring{fill:none;stroke:none}"
    ".t.free>.hx{stroke:#000;stroke-width:3}"
    ".t.next>.hx{stroke:#c0007a;stroke-width:5;stroke-dasharray:5 2}"
    ".t.held>.hx{stroke:#000;stroke-width:4.5}"
    ".t.gone{display:none}"
    ".t.dim{opacity:.45}"
    ".t>text.rc{font:6.5px sans-serif;dominant-baseline:auto}"
    ".e{font:6.5px sans-serif;text-anchor:middle;fill:#9a927f}"
)


def corner_points(radius: float = RADIUS - 1) -> str:
    """The six corners of a pointy-top hexagon around the origin."""
    points = []
    for k in range(6):
        angle = math.radians(60 * k - 90)
        points.append(f"{radius * math.cos(angle):.1f},{radius * math.sin(angle):.1f}")
    return " ".join(points)


def centre(cell: Hex) -> tuple[float, float]:
    q, r = cell
    return STEP_X * (q + r / 2), STEP_Y * r


def fill_of(symbol: str, gold: str | None = None) -> str:
    """The fill of a kind; ``gold`` is the board's gold digit (drawn gold whatever the digit)."""
    if symbol == gold:
        return GOLD_FILL
    return METAL_FILLS[symbol] if symbol in METALS else FILLS[symbol]


def has_light_letter(symbol: str, gold: str | None = None) -> bool:
    return symbol in LIGHT_LETTERS and symbol != gold


def letter_of(symbol: str) -> str:
    return symbol.upper()


def _extent(dim: int) -> tuple[float, float, float, float]:
    half_width = STEP_X * (dim - 1) + STEP_X / 2
    half_height = STEP_Y * (dim - 1) + RADIUS
    return -half_width - MARGIN, -half_height - MARGIN, 2 * (half_width + MARGIN), 2 * (half_height + MARGIN)


def board_svg(
    board: Board,
    *,
    occupied: Collection[Hex] | None = None,
    highlight: Iterable[Hex] = (),
    held: Iterable[Hex] = (),
    free: Iterable[Hex] = (),
    dim_others: bool = False,
    coords: bool = False,
    keep_gone: bool = False,
    cell_names: bool = False,
    symbols: bool = False,
) -> str:
    """The board as one SVG document.

    ``occupied`` (default: every tile) are the cells still holding a tile;
    ``highlight`` the cells of the next move, ``held`` a stuck set, ``free``
    the free tiles; ``dim_others`` fades every tile not marked, so the marked
    ones stand out in grey as well as in colour.  ``keep_gone`` draws removed tiles too, hidden by class
    ``gone``, so a page can bring them back while it replays.  ``cell_names`` gives every cell's
    background hexagon ``data-at="r,c"``, so a page can tell which empty cell was clicked (the
    workbench's editor).  ``symbols`` draws the game's signs (module docstring).
    """
    present = set(occupied) if occupied is not None else set(board.symbol_at)
    marks: dict[Hex, list[str]] = {}
    for name, chosen in (("next", highlight), ("held", held), ("free", free)):
        for cell in chosen:
            marks.setdefault(cell, []).append(name)
    x0, y0, width, height = _extent(board.dim)
    label = escape(board.name or "board")
    defs = f'<polygon id="h" points="{corner_points()}"/>'
    if symbols:
        keys = {glyph_key(t.symbol, board.gold) for t in board.tiles}
        defs += f'<polygon id="r" points="{corner_points(RADIUS - 5)}"/>' + glyph_defs({k for k in keys if k})
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{x0:.1f} {y0:.1f} {width:.1f} {height:.1f}" '
        f'width="{width:.0f}" height="{height:.0f}" role="img" aria-label="{label}">',
        f"<title>{label}</title><style>{STYLE}</style>",
        f"<defs>{defs}</defs>",
    ]
    for cell in cells(board.dim):
        x, y = centre(cell)
        at = ' data-at="{},{}"'.format(*board.rowcol(cell)) if cell_names else ""
        parts.append(f'<use href="#h" class="c" x="{x:.1f}" y="{y:.1f}"{at}/>')
        if coords and cell not in board.symbol_at:
            parts.append('<text class="e" x="{:.1f}" y="{:.1f}">{},{}</text>'.format(x, y + 2, *board.rowcol(cell)))
    for tile in board.tiles:
        if tile.cell not in present and not keep_gone:
            continue
        classes = ["t", *marks.get(tile.cell, ())]
        if dim_others and len(classes) == 1:
            classes.append("dim")
        if tile.cell not in present:
            classes.append("gone")
        parts.append(_tile(board, tile.cell, tile.symbol, " ".join(classes), coords, symbols))
    parts.append("</svg>")
    return "".join(parts)


def _tile(board: Board, cell: Hex, symbol: str, classes: str, coords: bool, symbols: bool = False) -> str:
    x, y = centre(cell)
    row, col = board.rowcol(cell)
    light = " l" if has_light_letter(symbol, board.gold) else ""
    lift = ' y="-4"' if coords else ""
    where = f'<text class="rc{light}" y="13">{row},{col}</text>' if coords else ""
    key = glyph_key(symbol, board.gold) if symbols else None
    mark = f'<text class="k{light}"{lift}>{letter_of(symbol)}</text>'
    if key:
        mark = f'<use href="#g-{key}" class="g{light}"/>'
    ring = '<use href="#r" class="ring"/>' if symbols else ""
    return (
        f'<g class="{classes}" data-cell="{row},{col}" data-tile="{symbol}" transform="translate({x:.1f},{y:.1f})">'
        f"<title>{name_of(symbol)} [{row}, {col}]</title>"
        f'<use href="#h" class="hx" style="fill:{fill_of(symbol, board.gold)}"/>'
        f"{ring}{mark}{where}</g>"
    )


def tile_icon(symbol: str, gold: str | None = None) -> str:
    """One tile alone as a small SVG (its hexagon, colour and sign): the workbench's palette."""
    key = glyph_key(symbol, gold)
    light = has_light_letter(symbol, gold)
    ink = "#fff" if light else "#111"
    mark = (
        f'<use href="#i-{key}"/>'
        if key
        else f'<text text-anchor="middle" dominant-baseline="central" font="bold 15px sans-serif" fill="{ink}">'
        f"{letter_of(symbol)}</text>"
    )
    defs = glyph_defs({key}).replace('id="g-', 'id="i-') if key else ""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="-20 -20 40 40" role="img" aria-label="{name_of(symbol)}">'
        f"<defs>{defs}</defs>"
        f'<polygon points="{corner_points()}" fill="{fill_of(symbol, gold)}" stroke="#333" stroke-width="1.2"/>'
        f'<g style="color:{ink}">{mark}</g></svg>'
    )
