"""Mutant (a): claims "unsolvable" on any board holding vitae; answers like the search backend otherwise."""

from __future__ import annotations

from sigmar import Backend, Board, Reason, Result, Status
from sigmar.encoders.search import SearchBackend
from sigmar.models.tiles import VITAE


class VitaeUnsolvable(Backend):
    family = "mutant-vitae"
    description = "wrong on purpose: vitae makes every board 'unsolvable'"
    plays_quintessence = True

    def __init__(self, sub: str | None = None, **options: object) -> None:
        super().__init__(sub)
        self.honest = SearchBackend()

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        if VITAE in board.counts:
            return Result(Status.UNSOLVABLE, self.name, reason=Reason.PROOF, explanation="vitae is cursed")
        return self.honest.solve(board, time_limit).with_(backend=self.name)
