"""A proved hint: every legal move of a position marked safe, losing or unknown, each with its evidence.

A player stuck in a game asks which moves keep the board clearable.  A hint
that is merely likely is worth little, so each mark is shown:

- **safe**: the position after the move can be cleared, and here is how: the
  moves played, the move and a solution from after it, replayed by the rule
  engine from the start of the board;
- **losing**: the position after the move cannot be cleared, shown by a
  certificate the independent checker accepted (the tile counts, a stuck set,
  a dead-states file, or a DRUP proof of the position's own CNF);
- **unknown**: neither within the time limit.

A *position* is a board and the moves played on it
(:func:`position_after`).  The position after a move is a board of its own
(:func:`position_board`: the tiles still there, gold still the highest metal
left), so every answer and certificate is the suite's usual one for a board,
checked the usual way.  The search settles most positions in milliseconds;
the time limit is shared by all the moves of a position, first a short look
at each, then what is left for the moves still open.  The short look is a
budget of CPU, not of wall time: on a loaded machine a quarter second of wall
time is a few dozen milliseconds of search, and a move that ran out of it was
searched again from the start in the second look.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sigmar.encoders.search import SearchBackend
from sigmar.models.board import Board
from sigmar.models.errors import SigmarError
from sigmar.models.hexgrid import Hex
from sigmar.models.result import Move, Reason, Result, Status
from sigmar.models.rules import Position, verify
from sigmar.models.solution import move_to_json
from sigmar.runners.checking.certify import ProofStore, certify
from sigmar.runners.checking.replay import counts_answer, run_replayed
from sigmar.runners.render.answer_json import result_json

Mark = Literal["safe", "losing", "unknown"]
# Seconds of CPU each move gets in the first look (the moves still open then share what is left).
FIRST_LOOK = 0.25
# Wall time over which the share of a core the looks got is measured before it is trusted over the load average.
_SAMPLED = 0.05


class _Share:
    """The share of a core this thread's searches get, to turn a budget of CPU into a wall-time limit: from the
    looks so far once they have taken ``_SAMPLED`` seconds, before that from the load average."""

    def __init__(self) -> None:
        self.cpu = self.wall = 0.0
        try:
            load = os.getloadavg()[0]
        except OSError:  # no load average on this system: assume a core of its own
            load = 0.0
        self.guess = min(1.0, (os.cpu_count() or 1) / max(load, 1.0))

    def add(self, cpu: float, wall: float) -> None:
        self.cpu += cpu
        self.wall += wall

    def wall_for(self, cpu: float) -> float:
        share = self.cpu / self.wall if self.wall >= _SAMPLED else self.guess
        return cpu / min(1.0, max(share, 0.05))


class PositionError(SigmarError, ValueError):
    """The moves played are not a legal play of the board: the first bad one, in one line."""


@dataclass(frozen=True)
class MoveHint:
    """One legal move and what is known of the position after it.

    ``answer`` is that position's answer as a board of its own: ``solved`` with its moves
    replayed (``verified``), ``unsolvable`` with its certificate ``checked``, or neither.
    """

    move: Move
    answer: Result

    @property
    def mark(self) -> Mark:
        if self.answer.status is Status.SOLVED and self.answer.verified:
            return "safe"
        if self.answer.status is Status.UNSOLVABLE and self.answer.checked:
            return "losing"
        return "unknown"


@dataclass(frozen=True)
class Hint:
    """Every legal move of the position ``left`` (the cells still holding a tile) after ``played``."""

    board: Board
    played: tuple[Move, ...]
    left: frozenset[Hex]
    moves: tuple[MoveHint, ...]
    stuck: Result | None  # when no move is legal but tiles are left: the position's own refutation
    seconds: float

    @property
    def status(self) -> str:
        """``cleared``, ``clearable`` (a safe move), ``lost`` (every move losing, or none legal), or ``unknown``."""
        if not self.left:
            return "cleared"
        marks = [m.mark for m in self.moves]
        if "safe" in marks:
            return "clearable"
        if self.moves and all(mark == "losing" for mark in marks):
            return "lost"
        if not self.moves and self.stuck is not None and self.stuck.checked:
            return "lost"
        return "unknown"

    def count(self, mark: Mark) -> int:
        return sum(1 for m in self.moves if m.mark == mark)


def position_after(board: Board, played: Sequence[Move]) -> Position:
    """The position after ``played``; :class:`PositionError` naming the first move the rules refuse."""
    position = Position.start(board)
    for number, move in enumerate(played, start=1):
        why = position.why_illegal(move)
        if why is not None:
            raise PositionError(f"{board.name}: move {number} of the moves played: {why.fault.value}: {why.detail}")
        position = Position(board, position.occupied - set(move.cells))
    return position


def position_board(board: Board, occupied: frozenset[Hex]) -> Board:
    """The tiles still on the board as a board of its own, with the board's name.

    Its gold is its highest metal, as the game's: metals leave in ascending order, so the
    board's gold is the highest metal left while it is there, and once it has gone no metal is.
    """
    return Board(board.dim, tuple(t for t in board.tiles if t.cell in occupied), board.name)


def hint(board: Board, played: Sequence[Move] = (), time_limit: float = 10.0, proofs: ProofStore | None = None) -> Hint:
    """Every legal move of the position after ``played`` marked safe, losing or unknown (module docstring).

    ``proofs`` keeps the certificates (``--proof-dir``); without it they go to a temporary folder.
    Raises :class:`PositionError` when ``played`` is not a legal play of ``board``.
    """
    start = time.perf_counter()
    deadline = start + time_limit
    position = position_after(board, played)
    moves = position.legal_moves()
    if proofs is None:
        with ProofStore() as store:
            return _hint(board, tuple(played), position, moves, deadline, store, start)
    return _hint(board, tuple(played), position, moves, deadline, proofs, start)


def _hint(
    board: Board,
    played: tuple[Move, ...],
    position: Position,
    moves: list[Move],
    deadline: float,
    store: ProofStore,
    start: float,
) -> Hint:
    search = SearchBackend()
    answers: dict[int, Result] = {}
    solutions: list[tuple[Move, ...]] = []  # the solutions found from the position, each from its first move
    open_ = list(range(len(moves)))
    share = _Share()
    for first_look in (True, False):
        still: list[int] = []
        for number, index in enumerate(open_):
            move = moves[index]
            reused = _reused(board, played, move, solutions)
            if reused is not None:
                answers[index] = reused
                continue
            left = deadline - time.perf_counter()
            if left <= 0:
                still.append(index)
                continue
            # The second look shares what is left among the moves still open.
            limit = min(share.wall_for(FIRST_LOOK), left) if first_look else left / (len(open_) - number)
            after = Position(board, position.occupied - set(move.cells))
            cpu, wall = time.thread_time(), time.perf_counter()
            answer = _settle(search, board, played + (move,), after, limit, store, last=not first_look)
            share.add(time.thread_time() - cpu, time.perf_counter() - wall)
            answers[index] = answer
            mark = MoveHint(move, answer).mark
            if mark == "safe":
                solutions.append((move, *answer.moves))
            elif mark == "unknown":
                still.append(index)
        open_ = still
        if not open_:
            break
    marked = tuple(MoveHint(move, answers.get(i, _unknown(deadline))) for i, move in enumerate(moves))
    stuck = None
    if not moves and position.occupied:
        stuck = _settle(search, board, played, position, max(deadline - time.perf_counter(), 0.1), store, last=True)
    return Hint(board, played, position.occupied, marked, stuck, time.perf_counter() - start)


def settle(board: Board, line: Sequence[Move], time_limit: float, proofs: ProofStore) -> Result:
    """The position after ``line`` (legal), as a board of its own: solved and replayed from the start, refuted
    with a checked certificate, or unknown within ``time_limit`` seconds."""
    after = position_after(board, line)
    return _settle(SearchBackend(), board, tuple(line), after, time_limit, proofs, last=True)


def _reused(board: Board, played: tuple[Move, ...], move: Move, solutions: list[tuple[Move, ...]]) -> Result | None:
    """A solution after ``move`` taken from one already found: a solution from the position that plays ``move``
    later can play it first (a legal move stays legal until one of its own tiles leaves, and the position's
    legal moves share no tile with the moves a solution plays before them), replayed from the start."""
    for solution in solutions:
        if move in solution:
            rest = tuple(m for m in solution if m != move)
            if verify(board, (*played, move, *rest)).valid:
                return Result(Status.SOLVED, "hint", moves=rest, verified=True)
    return None


def _unknown(deadline: float) -> Result:
    return Result(Status.UNKNOWN, "hint", message="no time was left for this move")


def _settle(
    search: SearchBackend,
    board: Board,
    line: tuple[Move, ...],
    after: Position,
    limit: float,
    store: ProofStore,
    last: bool,
) -> Result:
    """The answer for the position ``after`` (reached by ``line``): solved and replayed from the start, or refuted
    with a checked certificate, or unknown."""
    if not after.occupied:
        return Result(Status.SOLVED, "hint", verified=verify(board, line).valid)
    own = position_board(board, after.occupied)
    counted = counts_answer(own)
    if counted is not None:
        return counted
    answer = run_replayed(search, own, limit)
    if answer.status is Status.SOLVED and answer.verified:
        # The solution was replayed on the position's board; replay the whole line on the board itself too.
        whole = verify(board, line + answer.moves)
        if whole.valid:
            return answer
        return answer.with_(
            status=Status.ERROR, verified=False, wrong=True, message=f"replayed from the start: {whole}"
        )
    if answer.status is Status.UNSOLVABLE:
        checked = certify(own, answer, store)
        if checked.checked or not last:
            return checked
        return _refuted_by_proof(own, store, limit) or checked
    return answer


def _refuted_by_proof(board: Board, store: ProofStore, limit: float) -> Result | None:
    """The CNF route (a DRUP proof of the position's own formula, checked), for a position whose dead states
    outgrow the search's certificate."""
    from sigmar.encoders.registry import make
    from sigmar.runners.prove import DEFAULT_PROVER

    answer = run_replayed(make(f"cnf:{DEFAULT_PROVER}"), board, limit)
    if answer.status is not Status.UNSOLVABLE:
        return None
    checked = certify(board, answer, store)
    return checked if checked.checked else None


def reason_text(answer: Result) -> str:
    """Why a position is lost, in words: the certificate's kind and the explanation."""
    kind = "counts" if answer.reason is Reason.COUNTS else answer.certificate.kind if answer.certificate else "?"
    return f"{kind} certificate checked: {answer.explanation}"


def move_hint_json(board: Board, item: MoveHint) -> dict[str, Any]:
    """One move of the hint's JSON (docs/formats.md#the-json-of-hint)."""
    answer = item.answer
    record: dict[str, Any] = {**move_to_json(board, item.move), "mark": item.mark}
    if item.mark == "safe":
        record["solution"] = [move_to_json(board, move)["cells"] for move in answer.moves]
        record["replayed"] = True
    elif item.mark == "losing":
        certificate = answer.certificate.json() if answer.certificate is not None else {"kind": "counts", "file": None}
        record["certificate"] = {**certificate, "checked": True}
        record["why"] = answer.explanation
    else:
        record["why"] = answer.message or "no answer within the time limit"
    return record


def hint_json(found: Hint) -> dict[str, Any]:
    """The hint as JSON (docs/formats.md#the-json-of-hint)."""
    board = found.board
    record: dict[str, Any] = {
        "board": board.name,
        "played": len(found.played),
        "tiles_left": len(found.left),
        "status": found.status,
        "safe": found.count("safe"),
        "losing": found.count("losing"),
        "unknown": found.count("unknown"),
        "moves": [move_hint_json(board, item) for item in found.moves],
        "seconds": round(found.seconds, 6),
    }
    if found.stuck is not None:
        record["stuck"] = result_json(position_board(board, found.left), found.stuck)
    return record
