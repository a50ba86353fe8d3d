"""Every "no" explained: for an unsolvable board, the deepest play and the smallest repair.

``sigmar explain`` and the workbench of ``sigmar serve`` call this module with
a board and its verdict (the race's checked answer).  For an unsolvable
board it adds

- the **deepest play** (:mod:`sigmar.encoders.search.deepest`): the most
  tiles any play clears, one play that clears them (replayed here by the rule
  engine), the position it leaves and why nothing there moves; and, when the
  search could bound every play, a play-bound certificate written to the proof
  folder and checked by :mod:`sigmar.runners.checking.play_bound_check`.  Only a
  checked certificate makes the bound ``proved``; otherwise it is "at least";
- the **smallest repair** (:mod:`sigmar.runners.repair`): one swap or move
  that makes the board solvable, with the changed board's replayed solution,
  or "no repair with one change" when every candidate was refuted with a
  checked certificate.

Each part has the time limit on its own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sigmar.encoders.search.deepest import DeepestPlay, deepest_play, play_bound_text
from sigmar.models.bits import tile_ids
from sigmar.models.board import Board
from sigmar.models.boardfile import format_board
from sigmar.models.result import Move, Result, Status
from sigmar.models.rules import Position
from sigmar.models.solution import move_to_json
from sigmar.models.stuck_sets import explain_dead_end, stuck_set
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.checking.play_bound_check import check_play_bound
from sigmar.runners.checking.verdict import CertificateError
from sigmar.runners.design.difficulty import Difficulty, difficulty_json
from sigmar.runners.design.repair import Repair, smallest_repair
from sigmar.runners.prove import DEFAULT_PROVER
from sigmar.runners.render.answer_json import result_json

PLAY_BOUND = "play-bound"
# The verdict's backends: the two that bring certificates (``prove``'s routes), so every "no" is checked.
VERDICT_BACKENDS = ("search", f"cnf:{DEFAULT_PROVER}")
PLAY_BOUND_SUFFIX = ".bound.jsonl"


@dataclass(frozen=True)
class Deepest:
    """The deepest play found, replayed, with the position it leaves and its bound's certificate.

    ``proved`` only when the certificate was written and the checker accepted it; ``wrong`` when the
    checker rejected it (a bug in the search or the checker: exit status 3).
    """

    play: DeepestPlay
    moves: tuple[Move, ...]
    left: int  # the tiles the play leaves, as a mask
    stuck: int  # their largest stuck set (0 when none)
    why_stuck: str
    certificate_file: str | None = None  # None: not written, or written to a folder removed at the end
    proved: bool = False
    wrong: bool = False
    check_seconds: float | None = None
    check_message: str = ""

    @property
    def cleared(self) -> int:
        return self.play.cleared


@dataclass(frozen=True)
class Explanation:
    """One board's verdict and, when it is unsolvable, its deepest play and smallest repair."""

    board: Board
    verdict: Result
    deepest: Deepest | None = None
    repair: Repair | None = None
    difficulty: Difficulty | None = None  # ``--difficulty`` (:mod:`.difficulty`)

    @property
    def wrong(self) -> bool:
        return self.verdict.wrong or (self.deepest is not None and self.deepest.wrong)


def replayed(board: Board, masks: tuple[int, ...]) -> tuple[tuple[Move, ...], int]:
    """A play of removal masks as moves, each replayed by the rule engine; and the tiles it leaves.

    Raises ValueError at the first move the rules refuse (the search would be wrong).
    """
    position = Position.start(board)
    moves = []
    for mask in masks:
        move = Move(tuple(board.tiles[t].cell for t in tile_ids(mask)))
        position = position.play(move)
        moves.append(move)
    left = sum(1 << board.index_of[cell] for cell in position.occupied)
    return tuple(moves), left


def deepest(board: Board, time_limit: float, proofs: ProofStore) -> Deepest:
    """The deepest play of ``board``, replayed, and its bound certified when the search reached one."""
    play = deepest_play(board, time_limit)
    moves, left = replayed(board, play.moves)
    stuck, why = explain_dead_end(board, left)
    found = Deepest(play, moves, left, stuck, why)
    if not play.proved:
        return found
    path = proofs.write_texts(board, {PLAY_BOUND_SUFFIX: play_bound_text(board, play)})
    start = time.perf_counter()
    try:
        verdict = check_play_bound(board, path)
        valid, message = verdict.valid, verdict.reason
    except CertificateError as exc:
        valid, message = False, str(exc)
    return Deepest(
        play,
        moves,
        left,
        stuck,
        why,
        certificate_file=None if not proofs.kept else str(path),
        proved=valid,
        wrong=not valid,
        check_seconds=time.perf_counter() - start,
        check_message=message,
    )


def focus_cells(board: Board, found: Deepest | None) -> list[tuple[int, int]]:
    """Where a repair is looked for first: the board's stuck set, then the tiles the deepest play leaves stuck,
    then the rest it leaves."""
    cells = [board.tiles[t].cell for t in sorted(stuck_set(board))]
    if found is not None:
        cells += [board.tiles[t].cell for t in tile_ids(found.stuck)]
        cells += [board.tiles[t].cell for t in tile_ids(found.left & ~found.stuck)]
    return list(dict.fromkeys(cells))


def explain(board: Board, verdict: Result, time_limit: float, proofs: ProofStore) -> Explanation:
    """The explanation of one board whose verdict is known (module docstring)."""
    if verdict.status is not Status.UNSOLVABLE:
        return Explanation(board, verdict)
    found = deepest(board, time_limit, proofs)
    repair = smallest_repair(board, time_limit, focus=focus_cells(board, found))
    return Explanation(board, verdict, found, repair)


def deepest_json(board: Board, found: Deepest) -> dict[str, Any]:
    """``deepest`` of the explain JSON (docs/formats.md#the-json-of-explain)."""
    certificate = None
    if found.play.proved:
        certificate = {
            "kind": PLAY_BOUND,
            "file": found.certificate_file,
            "checked": found.proved,
            "check_seconds": None if found.check_seconds is None else round(found.check_seconds, 6),
        }
        if not found.proved:
            certificate["message"] = found.check_message
    return {
        "moves": [move_to_json(board, move) for move in found.moves],
        "cleared": found.cleared,
        "tiles": len(board.tiles),
        "proved": found.proved,
        "certificate": certificate,
        "left": [list(board.rowcol(board.tiles[t].cell)) for t in tile_ids(found.left)],
        "stuck": [list(board.rowcol(board.tiles[t].cell)) for t in tile_ids(found.stuck)],
        "why": found.why_stuck,
        "states": found.play.states,
        "seconds": round(found.play.seconds, 6),
    }


def repair_json(board: Board, repair: Repair) -> dict[str, Any]:
    """``repair`` of the explain JSON (docs/formats.md#the-json-of-explain)."""
    record: dict[str, Any] = {
        "changes": [change.json(board) for change in repair.changes],
        "board": format_board(repair.board) if repair.board is not None else None,
        "moves": None,
        "verified": False,
        "none_with_one_change": repair.none_with_one,
        "why": repair.why,
        "tried": repair.tried,
        "candidates": repair.candidates,
        "seconds": round(repair.seconds, 6),
    }
    if repair.board is not None and repair.solution is not None:
        record["moves"] = [move_to_json(repair.board, move) for move in repair.solution.moves]
        record["verified"] = repair.solution.verified
    return record


def explanation_json(explanation: Explanation) -> dict[str, Any]:
    """The JSON of one board: the answer's (docs/formats.md#the-json-of-an-answer) with ``deepest`` and ``repair``."""
    board = explanation.board
    record = result_json(board, explanation.verdict)
    record["deepest"] = None if explanation.deepest is None else deepest_json(board, explanation.deepest)
    record["repair"] = None if explanation.repair is None else repair_json(board, explanation.repair)
    if explanation.difficulty is not None:
        record["difficulty"] = difficulty_json(explanation.difficulty)
    return record
