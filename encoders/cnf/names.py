"""Human names of our encoding's variables (:mod:`.default`), as ``NAME.vars.json`` gives them."""

from __future__ import annotations

from sigmar.encoders.cnf.formula import Describe, by_kind
from sigmar.models.board import Board


def describer(board: Board) -> Describe:
    """Human names for the default encoding's variables."""

    said: dict[int, str] = {}  # each tile's words made once: a side-6 board's 2,500 names name its 55 tiles

    def tile(i: int) -> str:
        words = said.get(i)
        if words is None:
            t = board.tiles[i]
            row, col = board.rowcol(t.cell)
            words = said[i] = f"tile {i} '{t.symbol}' [{row}, {col}]"
        return words

    def ids(tiles: tuple[int, ...]) -> str:
        return ", ".join(map(str, tiles))

    return by_kind(
        {
            "gone": lambda i, step: f"gone({tile(i)}, by the end of step {step})",
            "takes": lambda x, t: f"takes({tile(x)} leaves with {tile(t)})",
            "mate": lambda i, j: f"mates({tile(i)}, {tile(j)}: they leave together)",
            "before": lambda i, j: f"before({tile(i)} leaves in an earlier step than {tile(j)})",
            "window": lambda i, tiles: f"window({tile(i)} is freed by tiles {ids(tiles)})",
            "bit": lambda i, k: f"bit {k} of the leave step of {tile(i)}",
            "leaves": lambda i, step: f"leaves({tile(i)}, in step {step})",
            "clear": lambda tiles, step: f"clear(tiles {ids(tiles)} all gone by the end of step {step})",
        }
    )
