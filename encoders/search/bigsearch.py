"""Big boards first through the compiled finder (``_bigsearch.c``): a solution found ten times faster.

On dense side-9 and side-10 deals (169 and 217 tiles) the solutions lie behind states that a stuck
set closes early; the finder walks the engine's restarts in C, looking for a stuck set in every
state (the Python engine looks only at the start: on small boards it did not pay).  Measured on
dense-10-s1-72, which no backend settled in 60 s: a solution after about 200,000 states, 2-3 s.

It only finds solutions (replayed by the rule engine like any other); when it has searched every
state, or the board is refuted at the start, the Python engine answers with its certificate.
Without a C compiler the extension is missing and the engine alone answers, as before.
"""

from __future__ import annotations

from array import array

from sigmar.models.board import Board
from sigmar.models.facts import facts_of
from sigmar.models.result import Move
from sigmar.models.tiles import QUINTESSENCE

TYPE_CHECKING = False  # not typing's, as in the backend (issue 48)
if TYPE_CHECKING:
    from typing import Literal

try:
    from sigmar.encoders.search._bigsearch import find as _find
except ImportError:  # built without a C compiler (setup.py: the extension is optional)
    _find = None  # type: ignore[assignment]

MAX_TILES = 384  # the finder's states are 384 bits
# The dead table: 2**22 states of 48 bytes, 200 MB at most (the engine's own takes up to about 400 MB).
TABLE_BITS = 22


def usable(board: Board) -> bool:
    """Whether the finder can take this board: the extension built, no quintessence, not too many tiles."""
    return (
        _find is not None and len(board.tiles) <= MAX_TILES and not any(t.symbol == QUINTESSENCE for t in board.tiles)
    )


def spec(board: Board) -> bytes:
    """The board as the finder reads it (``_bigsearch.c``): per tile its symbol, minimal windows, neighbours."""
    facts = facts_of(board)
    out = array("h", [facts.size])
    for i in range(facts.size):
        windows = facts.minimal_windows[i]
        out.extend((ord(facts.symbols[i]), len(windows)))
        for window in windows:
            out.append(len(window))
            out.extend(window)
        near = [j for j in facts.neighbours[i] if j is not None]
        out.append(len(near))
        out.extend(near)
    return out.tobytes()


def find(board: Board, seconds: float, seed: int, stop: bytearray) -> tuple[Move, ...] | None | Literal[False]:
    """A solution's moves; False when the finder searched every state; None at ``seconds`` or once
    ``stop[0]`` is set (a signal handler that raises ends it with that exception)."""
    assert _find is not None
    found = _find(spec(board), max(seconds, 0.0), seed & (2**64 - 1), stop, TABLE_BITS)
    if found is None or found is False:
        return found
    cells = [tile.cell for tile in board.tiles]
    return tuple(Move((cells[a],) if b < 0 else (cells[a], cells[b])) for a, b in found)
