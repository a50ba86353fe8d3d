"""The formula of each CNF variant: our encodings (:mod:`.default`) and the thesis's (:mod:`.thesis`).

Apart from :mod:`.formula` so that the formula type imports no encoding (an encoding imports the type).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sigmar.encoders.cnf.default import build
from sigmar.encoders.cnf.formula import Formula
from sigmar.encoders.cnf.thesis import build as build_thesis
from sigmar.models.board import Board

VARIANTS = ("default", "steps", "thesis", "thesis-literal")
# Our encodings (:mod:`.default`), which play the quintessence variant; the thesis's do not.
OUR_VARIANTS = ("default", "steps")


def build_formula(
    board: Board, variant: str = "default", should_stop: Callable[[], bool] | None = None, **options: Any
) -> Formula:
    """The CNF of one board.  UNSAT of ``default`` or ``thesis`` means the board is unsolvable.

    ``should_stop`` (our encodings only) ends a long build early with ``sigmar.models.stopped.Stopped``.
    """
    if variant == "default":
        return build(board, should_stop, **options)
    if variant == "steps":
        return build(board, should_stop, one_move_per_step=True, **options)
    if variant == "thesis":
        return build_thesis(board, literal=False)
    if variant == "thesis-literal":
        return build_thesis(board, literal=True)
    raise ValueError(f"unknown cnf variant '{variant}' (choose from {', '.join(VARIANTS)})")
