"""Types every layer shares: a move, a backend's answer, its status and reason.

Modelled on minizinc-python's ``Result``/``Status``: one frozen record per
answer, the solver's statistics carried alongside.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from .hexgrid import Hex


class Status(StrEnum):
    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    UNKNOWN = "unknown"  # no answer in time
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


class Reason(StrEnum):
    """Why a board is called unsolvable (SPEC §4)."""

    COUNTS = "counts"  # the tile counts cannot all pair up
    STATIC = "static"  # another sound argument from the board alone
    EXHAUSTED = "exhausted"  # a complete search found nothing
    PROOF = "proof"  # a solver's refutation
    CORROBORATED = "corroborated"  # two backends agree

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Move:
    """One move: two cells that pair, or gold's cell alone, in axial coordinates."""

    cells: tuple[Hex, ...]


@dataclass(frozen=True)
class Result:
    """One backend's answer for one board.

    ``verified`` is set only by the runner after the rule engine replayed
    ``moves``; a backend never sets it itself.
    """

    status: Status
    backend: str
    seconds: float = 0.0
    moves: tuple[Move, ...] = ()
    reason: Reason | None = None
    explanation: str = ""
    message: str = ""
    statistics: dict[str, Any] = field(default_factory=dict)
    verified: bool = False
    # Set by the runner when the answer is provably wrong (a rejected
    # solution), as opposed to a crash: BenchExec's "wrong" against "error".
    wrong: bool = False

    def with_(self, **changes: Any) -> Result:
        return replace(self, **changes)
