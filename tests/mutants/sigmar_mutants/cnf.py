"""Mutant (c): the default CNF encoding with one clause family dropped, the freeness clauses.

Without them a tile may leave while it is still hemmed in: the solver returns
solutions the rule engine rejects, and calls solved some boards that only
freeness makes unsolvable.  (Dropping the metal-order clauses instead was
tried: the leave-step windows of the encoding already order the metals on
most small boards, so that mutant failed on 2 boards in 150.)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from sigmar.encoders.cnf import CnfBackend
from sigmar.encoders.cnf import backend as cnf
from sigmar.encoders.cnf import default as cnf_default
from sigmar.models.board import Board
from sigmar.models.result import Result


class _BuilderWithoutFreeness(cnf_default._Builder):
    def free_by_precedence(self) -> None:
        """Dropped on purpose: a tile needs no clear window to leave."""

    def free_by_clear_windows(self) -> None:
        """Dropped on purpose (the same family in the other freeness encoding)."""


def build_without_freeness(board: Board, variant: str = "default", should_stop: Any = None, **options: Any) -> Any:
    return _BuilderWithoutFreeness(board, cnf_default.Options(**options), should_stop).formula()


@contextlib.contextmanager
def _weakened() -> Iterator[None]:
    """The cnf backend builds its formula with the mutant builder for the length of one solve."""
    original = cnf.build_formula
    cnf.build_formula = build_without_freeness
    try:
        yield
    finally:
        cnf.build_formula = original


class CnfWithoutFreeness(CnfBackend):
    family = "mutant-cnf"
    description = "wrong on purpose: the default CNF without its freeness clauses"

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        with _weakened():
            return super().solve(board, time_limit).with_(backend=self.name)
