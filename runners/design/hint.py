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

The position itself is searched first, once (when it has more than one legal
move, with the first looks of up to four of them).  A solution from it marks
its first move safe (and the other moves it plays, :func:`_reused`); a
refutation of it serves every move, since each position after a move is a
part of it:
its stuck set is still stuck after the move, and its dead-states file, cut to
the states the move leaves within reach, is a dead-states file of the position
after it (:func:`dead_states_after`).  Each move's certificate so made is
checked on its own board like any other; a move whose certificate cannot be
made so is searched on its own, as before.
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
from sigmar.models.result import Certificate, CertificateKind, Move, Reason, Result, Status
from sigmar.models.rules import Position, verify
from sigmar.models.solution import move_to_json
from sigmar.models.stuck_sets import explain_stuck, largest_stuck_set
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
    share = _Share()
    if len(moves) > 1 and deadline > time.perf_counter():  # (one move: its own search is the position's)
        # it may spare several moves' looks: the looks of up to four of them
        limit = min(share.wall_for(FIRST_LOOK * min(len(moves), 4)), deadline - time.perf_counter())
        cpu, wall = time.thread_time(), time.perf_counter()
        own = _search(search, position_board(board, position.occupied), limit)
        share.add(time.thread_time() - cpu, time.perf_counter() - wall)
        if own.status is Status.SOLVED and own.verified and own.moves:
            solutions.append(own.moves)  # replayed from the start with the move in _reused
        elif own.status is Status.UNSOLVABLE:
            answers.update(_refuted_with(board, position, moves, own, store))
    open_ = [index for index in range(len(moves)) if index not in answers]
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


def _search(search: SearchBackend, own: Board, limit: float) -> Result:
    """The position's own board: refuted by its counts (checked), or searched and replayed, its certificate (if any)
    not yet checked."""
    return counts_answer(own) or run_replayed(search, own, limit)


def _refuted_with(
    board: Board, position: Position, moves: list[Move], own: Result, store: ProofStore
) -> dict[int, Result]:
    """The moves' answers made from the position's own refutation ``own`` (module docstring), each checked on the
    board of the position after the move; the moves whose certificate could not be made so are left out."""
    certificate = own.certificate
    parent = position_board(board, position.occupied)
    found: dict[int, Result] = {}
    for index, move in enumerate(moves):
        after = position_board(board, position.occupied - set(move.cells))
        if not after.tiles:
            continue
        counted = counts_answer(after)
        if counted is not None:
            found[index] = counted
            continue
        if certificate is None:
            continue
        # the same tiles, still there and still stuck; else a stuck set of its own (a smaller certificate than the
        # cut file, checked sooner); else the cut file
        stuck = certificate.cells if certificate.kind is CertificateKind.STUCK else _stuck_cells(after)
        if stuck:
            made = Certificate(CertificateKind.STUCK, stuck)
            why = explain_stuck(
                after, frozenset(t for t, tile in enumerate(after.tiles) if after.rowcol(tile.cell) in stuck)
            )
        elif certificate.kind is CertificateKind.DEAD_STATES and ".dead.jsonl" in certificate.texts:
            text = dead_states_after(certificate.texts[".dead.jsonl"], parent, after)
            if text is None:
                continue
            made = Certificate(CertificateKind.DEAD_STATES, texts={".dead.jsonl": text})
            states = text.count("\n") - 1
            why = f"no play clears it: {states} states within its tiles, all listed dead by the search before this move"
        else:
            continue
        answer = Result(Status.UNSOLVABLE, "hint", reason=own.reason, explanation=why, certificate=made)
        checked = certify(after, answer, store)
        if checked.checked:
            found[index] = checked
    return found


def _stuck_cells(board: Board) -> tuple[tuple[int, int], ...]:
    """The cells of the board's largest stuck set (docs/formats.md#stuck-sets), none when it has none."""
    from sigmar.models.facts import facts_of

    stuck = largest_stuck_set(facts_of(board))
    return tuple(board.rowcol(tile.cell) for t, tile in enumerate(board.tiles) if stuck >> t & 1)


def dead_states_after(text: str, parent: Board, after: Board) -> str | None:
    """The dead-states file of ``parent`` (docs/formats.md#dead-states-files) cut to the board ``after`` a move: its
    states within the tiles left, renumbered, the whole of ``after`` first; None when that is not listed.

    Every state listed within ``after`` leads by every move to a listed state within ``after`` or to one the counts
    rule out (a move only takes tiles), and a stuck set of a state is the same tiles there; so the file cut so is
    valid when the state ``after`` itself is listed.  ``after``'s tiles are ``parent``'s in the same order less
    the move's (:func:`position_board`), so a state's bits close up over the tiles gone.
    """
    import json

    lines = text.splitlines()
    header = json.loads(lines[0])
    cells = [tuple(rc) for rc in header["tiles"]]
    kept = {tuple(after.rowcol(tile.cell)) for tile in after.tiles}
    gone = [i for i, rc in enumerate(cells) if rc not in kept]
    if [rc for rc in cells if rc in kept] != [after.rowcol(t.cell) for t in after.tiles]:
        return None  # not the tiles of ``after`` in ``parent``'s order: another board
    gone_mask = sum(1 << i for i in gone)
    whole = (1 << len(after.tiles)) - 1
    first: str | None = None
    rest: list[str] = []
    for line in lines[1:]:
        entry = json.loads(line)
        state = int(entry["state"], 16)
        if state & gone_mask:
            continue
        for i in reversed(gone):  # close up the bits over the tiles gone
            state = (state & ((1 << i) - 1)) | (state >> (i + 1) << i)
        record: dict[str, Any] = {"state": f"{state:x}"}
        if "stuck" in entry:
            record["stuck"] = [t - sum(1 for i in gone if i < t) for t in entry["stuck"]]
        out = json.dumps(record, separators=(",", ":"))
        if state == whole:
            first = out
        else:
            rest.append(out)
    if first is None:
        return None
    head = {**header, "board": after.name, "tiles": [list(after.rowcol(t.cell)) for t in after.tiles]}
    return "\n".join([json.dumps(head, separators=(",", ":")), first, *rest]) + "\n"


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
