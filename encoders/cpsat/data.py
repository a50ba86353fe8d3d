"""What both CP-SAT formulations need from a board: tiles, pairs, metals, freeing windows."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from sigmar.models.board import Board
from sigmar.models.facts import Facts, facts_of
from sigmar.models.rules import count_problem
from sigmar.models.tiles import METALS, name_of


@dataclass
class BoardData:
    """What both formulations need from a board: tiles, pairs, metals, freeing windows."""

    board: Board

    @cached_property
    def facts(self) -> Facts:
        return facts_of(self.board)

    @property
    def n(self) -> int:
        return self.facts.size

    @property
    def symbols(self) -> tuple[str, ...]:
        return self.facts.symbols

    @property
    def metal_chain(self) -> tuple[int, ...]:
        return self.facts.metal_chain

    @property
    def gold(self) -> int | None:
        return self.facts.gold if self.facts.gold >= 0 else None

    @property
    def pairs(self) -> tuple[tuple[int, int], ...]:
        return self.facts.partner_pairs

    @property
    def moves(self) -> int:
        return self.facts.horizon

    def cannot_precede(self, n: int, i: int) -> bool:
        """Neighbour ``n`` can never leave before tile ``i``: both metals and ``n`` is the later one."""
        a, b = self.symbols[n], self.symbols[i]
        return a in METALS and b in METALS and a > b

    @cached_property
    def windows(self) -> tuple[tuple[tuple[int, ...], ...] | None, ...]:
        """Per tile, the neighbour tiles of each run of three ring neighbours that could free it.

        None: the tile is free from the start (a run with no tile at all).
        A run holding a neighbour that can never leave first is dropped, so an
        empty tuple means the tile can never be freed; the model then says so
        and the solver reports it, rather than a check outside the model.
        """
        out: list[tuple[tuple[int, ...], ...] | None] = []
        for i, windows in enumerate(self.facts.windows):
            runs: list[tuple[int, ...]] = []
            always = False
            for run in windows:
                if not run:
                    always = True
                    break
                if any(self.cannot_precede(n, i) for n in run) or run in runs:
                    continue
                runs.append(run)
            out.append(None if always else tuple(runs))
        return tuple(out)

    def where(self, i: int) -> str:
        row, col = self.board.rowcol(self.board.tiles[i].cell)
        return f"{name_of(self.symbols[i])} at [{row}, {col}]"

    @cached_property
    def count_problem(self) -> str | None:
        """Why the tile counts cannot pair up, else None.

        The models would refute such a board too, but a parity argument can take
        CDCL search a long time, so the model states it as an empty clause.
        """
        return count_problem(self.board)

    def build_notes(self) -> list[str]:
        """Facts found while building that make the model infeasible (reported only through the solver)."""
        notes = [self.count_problem] if self.count_problem else []
        partnered = {i for pair in self.pairs for i in pair}
        for i in range(self.n):
            if i != self.gold and i not in partnered and not self.facts.partners[i]:
                notes.append(f"{self.where(i)} has no tile it could ever pair with")
            if self.windows[i] == ():
                notes.append(f"{self.where(i)} can never be freed: every three neighbours in a row hold a later metal")
        return notes
