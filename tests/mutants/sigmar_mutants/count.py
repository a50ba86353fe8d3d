"""Mutant (d): answers every board right, but counts one order of commuting moves as if it were every order.

It solves like the search backend, so ``sigmar fuzz`` finds nothing.  Asked for
``sequences``, it counts the pairings instead: two moves that share no tile
and are legal together can be played either way round, and this mutant keeps
only one of the two orders (as a symmetry breaking that is too strong would).
Only ``sigmar fuzz --compare-counts`` sees it, on the first board that holds
two such moves.
"""

from __future__ import annotations

from sigmar import Backend, Board, Result
from sigmar.encoders.search import SearchBackend


class CommutingOnce(Backend):
    family = "mutant-count"
    description = "wrong on purpose: counts commuting moves in one order only, as 'sequences'"
    plays_quintessence = True

    def __init__(self, sub: str | None = None, **options: object) -> None:
        super().__init__(sub)
        self.honest = SearchBackend()

    def solve(self, board: Board, time_limit: float | None = None) -> Result:
        return self.honest.solve(board, time_limit).with_(backend=self.name)

    def count(self, board: Board, of: str, time_limit: float | None = None) -> tuple[int, bool]:
        return self.honest.count(board, "pairings", time_limit)  # whatever ``of`` asked
