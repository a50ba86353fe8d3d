"""Board templates: which cells of the hexagon hold a tile, and which one holds gold.

A template file uses the board grid of docs/formats.md#board-files with three symbols: ``o`` a
cell that takes a tile, ``.`` a cell that stays empty, and a metal digit
(``6`` by convention) marking gold's cell when gold is not on the centre.
Comment lines name templates as they name boards.

The 43 shapes of the public ondrovo boards ship with the project as
``models/data/ondrovo-templates.txt``, package data (Unlicense), so generation
needs no other file.  Random shapes are unions of whole rotation
orbits, which is what gives them 2-, 3- or 6-fold symmetry.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from sigmar.models.boardfile import BoardFileError, lines_of, read_text, row_blocks, side_of
from sigmar.models.hexgrid import Hex, cell_count, cells, from_rowcol, row_lengths

TILE = "o"
HOLE = "."
GOLD_MARKS = frozenset("123456789")
CENTRE: Hex = (0, 0)
FOLDS = (2, 3, 6)

ONDROVO_FILE = "ondrovo-templates.txt"  # in the package data of sigmar.models (data/)


@dataclass(frozen=True)
class Template:
    """A shape: the cells that take tiles (gold's cell among them)."""

    name: str
    dim: int
    cells: frozenset[Hex]
    gold: Hex

    def __len__(self) -> int:
        return len(self.cells)


def parse_templates(text: str, filename: str = "<string>") -> list[Template]:
    """Every template in ``text``; malformed ones raise BoardFileError with their location.

    Blocks and names are read as in a board file (:func:`sigmar.models.boardfile.row_blocks`).
    """
    blocks = list(row_blocks(enumerate(lines_of(text), start=1)))
    if not blocks:
        raise BoardFileError(filename, "no template in this file")
    return [
        _parse_block(block.name or f"{filename}:{index}", block.rows, filename) for index, block in enumerate(blocks)
    ]


def _parse_block(name: str, rows: list[tuple[int, str]], filename: str) -> Template:
    found_lengths = [len(symbols) for _, symbols in rows]
    dim = side_of(found_lengths)
    lengths = row_lengths(dim)
    if len(rows) != len(lengths):
        raise BoardFileError(
            filename, f"a template of side {dim} has {len(lengths)} rows, not {len(rows)}", name, line=rows[0][0]
        )
    found: set[Hex] = set()
    gold: Hex | None = None
    for row, ((line, symbols), expected) in enumerate(zip(rows, lengths, strict=True)):
        if len(symbols) != expected:
            raise BoardFileError(
                filename, f"row {row} has {len(symbols)} cells, expected {expected}", name, row, None, line
            )
        for col, symbol in enumerate(symbols.lower()):
            if symbol == HOLE:
                continue
            if symbol != TILE and symbol not in GOLD_MARKS:
                message = f"unknown symbol '{symbol}' (expected o, . or a gold digit)"
                raise BoardFileError(filename, message, name, row, col, line)
            cell = from_rowcol(row, col, dim)
            if symbol in GOLD_MARKS:
                if gold is not None:
                    raise BoardFileError(filename, "gold's cell is marked twice", name, row, col, line)
                gold = cell
            found.add(cell)
    if gold is None:
        if CENTRE not in found:
            raise BoardFileError(filename, "the centre is empty and no digit marks gold's cell", name, line=rows[0][0])
        gold = CENTRE
    if len(found) % 2 == 0:
        raise BoardFileError(
            filename, f"{len(found)} cells: a template needs an odd count (pairs and gold)", name, line=rows[0][0]
        )
    return Template(name, dim, frozenset(found), gold)


def read_templates(path: str | Path) -> list[Template]:
    return parse_templates(read_text(path), str(path))


@cache
def ondrovo_templates() -> tuple[Template, ...]:
    """The 43 shapes of the ondrovo boards (side 6, 55 cells each)."""
    text = resources.files("sigmar.models").joinpath("data", ONDROVO_FILE).read_text(encoding="utf-8")
    return tuple(parse_templates(text, f"sigmar.models/data/{ONDROVO_FILE}"))


def format_template(template: Template) -> str:
    """The template in its file format; ``parse_templates`` reads it back."""
    lengths = row_lengths(template.dim)
    lines = [f"# {template.name}"] if template.name else []
    start = 0
    ordered = cells(template.dim)
    for length in lengths:
        marks = []
        for cell in ordered[start : start + length]:
            marks.append("6" if cell == template.gold and cell != CENTRE else TILE if cell in template.cells else HOLE)
        start += length
        lines.append(" " * (2 * template.dim - 1 - length) + " ".join(marks))
    return "\n".join(lines) + "\n"


def rotate60(cell: Hex) -> Hex:
    """A sixth of a turn about the centre (cube (x, y, z) -> (-z, -x, -y))."""
    q, r = cell
    return -r, q + r


def orbit(cell: Hex, fold: int) -> frozenset[Hex]:
    """The cells a ``fold``-fold rotation symmetry ties to ``cell``."""
    step = 6 // fold
    out = {cell}
    current = cell
    for _ in range(fold - 1):
        for _ in range(step):
            current = rotate60(current)
        out.add(current)
    return frozenset(out)


def random_template(dim: int, size: int, fold: int, rng: random.Random, name: str = "") -> Template:
    """A random shape of ``size`` cells with ``fold``-fold rotation symmetry about gold on the centre.

    Every orbit but the centre's has exactly ``fold`` cells, so ``size - 1``
    must be a multiple of ``fold``; and even, for the pairs.
    """
    if fold not in FOLDS:
        raise ValueError(f"symmetry must be one of {FOLDS}, not {fold}")
    if size < 1 or (size - 1) % fold or size % 2 == 0 or size > cell_count(dim):
        raise ValueError(f"a {fold}-fold shape on a side-{dim} board cannot have {size} cells (odd, gold + orbits)")
    orbits: list[frozenset[Hex]] = []
    seen: set[Hex] = {CENTRE}
    for cell in cells(dim):
        if cell not in seen:
            found = orbit(cell, fold)
            seen |= found
            orbits.append(found)
    chosen = rng.sample(orbits, (size - 1) // fold)
    shape = frozenset().union(*chosen) | {CENTRE}
    return Template(name or f"random {fold}-fold side {dim}", dim, shape, CENTRE)


def full_template(dim: int) -> Template:
    """Every cell of the hexagon (for tiny boards in tests)."""
    return Template(f"full side {dim}", dim, frozenset(cells(dim)), CENTRE)
