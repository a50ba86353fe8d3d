"""Checking what ``explain --json`` adds to an answer: its deepest play and its smallest repair.

An explain line is an answer (checked as any, :mod:`.answers`) with two more keys
(docs/formats.md#the-json-of-explain), and neither is taken on its word:

- ``deepest``: its ``moves`` are replayed from the start by the rule engine (each one legal;
  they need not clear the board), and they must clear exactly ``cleared`` of ``tiles``,
  the board's own tile count, leaving the cells of ``left``.  When ``proved``, its
  play-bound file is checked for its bound (:func:`.certificates.check_claim`), and that
  bound must be ``cleared``: the play reaches it, and no play passes it.  A bound whose
  file was not kept cannot be checked; one that names a file that is not there is
  malformed, as any certificate's.
- ``repair``: a changed board must be the board with its ``changes`` applied (a swap of
  two tiles, or a tile moved to an empty cell: read here again, not with explain's code), and its
  ``moves`` must clear it, replayed by the rule engine.  "None with one change" is
  checked when the tile counts cannot pair up (no change changes them); otherwise it rests
  on refutations explain did not keep, and is listed as a claim.

Each part gives one :class:`Part`: an outcome as an answer's (``valid``, ``invalid``,
``malformed``, ``unchecked``, ``listed``) and why.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sigmar.models.board import Board, Tile
from sigmar.models.boardfile import BoardFileError, parse_boards
from sigmar.models.hexgrid import Hex, from_rowcol
from sigmar.models.hexgrid import cells as hex_cells
from sigmar.models.result import Move
from sigmar.models.rules import Position, count_problem, verify
from sigmar.models.solution import json_solution, to_moves
from sigmar.runners.checking.certificates import check_claim
from sigmar.runners.checking.verdict import PLAY_BOUND, CertificateError

# The keys that make an answer an explain line.
EXPLAIN_KEYS = ("deepest", "repair")


@dataclass(frozen=True)
class Part:
    """What the check found for one part of an explain line (``deepest`` or ``repair``)."""

    part: str
    outcome: str
    why: str
    kind: str | None = None


def is_explained(record: dict[str, Any]) -> bool:
    """Whether an answer is an explain line (it has ``deepest`` or ``repair``)."""
    return any(key in record for key in EXPLAIN_KEYS)


def check_parts(
    board: Board, record: dict[str, Any], base: Path, source: str, line: int, gone: Callable[[dict[str, Any]], str]
) -> list[Part]:
    """The checks of an explain line's ``deepest`` and ``repair`` (each skipped when null).

    ``gone`` says why a certificate's file cannot be read because its run kept it in a temporary
    folder (else ''), as for an answer's certificate.
    """
    parts = []
    if record.get("deepest") is not None:
        parts.append(check_deepest(board, record["deepest"], base, source, line, gone))
    if record.get("repair") is not None:
        parts.append(check_repair(board, record["repair"], source, line))
    return parts


def _moves(board: Board, moves: object, source: str, line: int) -> list[Move]:
    """The ``moves`` of a part as the board's moves; BoardFileError when they are not moves of it."""
    return to_moves(board, json_solution({"board": board.name, "moves": moves}, source, line), source)


def _cells(board: Board, value: object, what: str) -> set[Hex]:
    if not isinstance(value, list):
        raise ValueError(f'"{what}" is not a list of [row, col] cells')
    try:
        return {_cell(board, pair) for pair in value}
    except ValueError as exc:
        raise ValueError(f'"{what}": {exc}') from None


def check_deepest(
    board: Board, found: object, base: Path, source: str, line: int, gone: Callable[[dict[str, Any]], str]
) -> Part:
    """``deepest``: the play replayed, its count and what it leaves, and a proved bound's file checked."""
    if not isinstance(found, dict):
        return Part("deepest", "malformed", '"deepest" is not an object')
    try:
        moves = _moves(board, found.get("moves"), source, line)
    except BoardFileError as exc:
        return Part("deepest", "invalid", f"no play to replay: {exc.message}")
    position = Position.start(board)
    for number, move in enumerate(moves, start=1):
        why = position.why_illegal(move)
        if why is not None:
            return Part("deepest", "invalid", f"move {number} of the play is refused by the rule engine: {why.detail}")
        position = Position(board, position.occupied - set(move.cells))
    tiles = len(board.tiles)
    cleared = tiles - len(position.occupied)
    said, count = found.get("cleared"), found.get("tiles")
    if count != tiles:
        return Part("deepest", "invalid", f'"tiles" is {count!r}, but the board has {tiles}')
    if said != cleared:
        return Part("deepest", "invalid", f'the play clears {cleared} tiles, not the {said!r} of "cleared"')
    try:
        left = _cells(board, found.get("left"), "left")
    except ValueError as exc:
        return Part("deepest", "invalid", str(exc))
    if left != set(position.occupied):
        return Part("deepest", "invalid", f'"left" is not the {len(position.occupied)} tiles the play leaves')
    play = f"{len(moves)} move{'s' if len(moves) != 1 else ''} replayed, clearing {cleared} of {tiles} tiles"
    if found.get("proved") is not True:
        return Part("deepest", "valid", f"{play} (at least: no bound claimed)")
    return _bound(board, found.get("certificate"), cleared, base, play, gone)


def _bound(
    board: Board, certificate: object, cleared: int, base: Path, play: str, gone: Callable[[dict[str, Any]], str]
) -> Part:
    """A proved deepest play's bound: its play-bound file checked, and its bound the play's own."""
    if not isinstance(certificate, dict) or certificate.get("kind") != PLAY_BOUND:
        return Part("deepest", "invalid", f'"proved" with no {PLAY_BOUND} certificate', PLAY_BOUND)
    why = gone(certificate)
    if why:
        return Part("deepest", "unchecked", f"{play}; {why}: run explain again with --proof-dir DIR", PLAY_BOUND)
    try:
        verdict = check_claim(board, {"kind": PLAY_BOUND, "file": certificate.get("file")}, base, bound=cleared)
    except CertificateError as exc:
        return Part("deepest", "malformed", str(exc), PLAY_BOUND)
    if not verdict.valid:
        return Part("deepest", "invalid", f"{play}; its bound fails: {verdict.reason}", PLAY_BOUND)
    return Part("deepest", "valid", f"{play}, and {verdict.reason}", PLAY_BOUND)


def check_repair(board: Board, repair: object, source: str, line: int) -> Part:
    """``repair``: the changed board is the board with its changes, and its moves clear it."""
    if not isinstance(repair, dict):
        return Part("repair", "malformed", '"repair" is not an object')
    text, changes = repair.get("board"), repair.get("changes")
    if text is None:
        return _none_found(board, repair)
    if not isinstance(text, str) or not isinstance(changes, list) or not changes:
        return Part("repair", "invalid", 'a repaired "board" needs its text and a nonempty list of "changes"')
    try:
        changed = parse_boards(text, f"{source}: line {line}: repair")
    except BoardFileError as exc:
        return Part("repair", "invalid", f"the changed board does not read: {exc}")
    if len(changed) != 1:
        return Part("repair", "invalid", f'"board" holds {len(changed)} boards, not one')
    try:
        expected = board
        for number, change in enumerate(changes, start=1):
            expected = _applied(expected, change, number)
    except ValueError as exc:
        return Part("repair", "invalid", str(exc))
    if changed[0].dim != expected.dim or changed[0].symbol_at != expected.symbol_at:
        return Part("repair", "invalid", "the changed board is not the board with its changes made")
    try:
        moves = _moves(expected, repair.get("moves"), source, line)
    except BoardFileError as exc:
        return Part("repair", "invalid", f"no solution of the changed board to replay: {exc.message}")
    verdict = verify(expected, moves)
    if not verdict.valid:
        said = str(verdict).partition(": ")[2]
        why = f"the changed board's {len(moves)} moves are rejected by the rule engine: {said}"
        return Part("repair", "invalid", why)
    count = f"{len(changes)} change{'s' if len(changes) != 1 else ''}"
    return Part("repair", "valid", f"{count} made; the changed board is cleared in {len(moves)} moves, replayed")


def _none_found(board: Board, repair: dict[str, Any]) -> Part:
    """No changed board: "none with one change" checked by the counts, else a claim; or none found."""
    if repair.get("none_with_one_change") is not True:
        return Part("repair", "valid", "none found in the time: nothing claimed, nothing to check")
    problem = count_problem(board)
    if problem is not None:
        return Part("repair", "valid", f"no repair with one change: no swap or move changes the counts, and {problem}")
    return Part(
        "repair",
        "listed",
        "no repair with one change: a claim resting on the refutation of every board one change away, "
        "whose certificates explain does not keep",
    )


def _applied(board: Board, change: object, number: int) -> Board:
    """``board`` with one change of explain's JSON made (a swap of two tiles, a tile to an empty cell)."""
    where = f"change {number}"
    if not isinstance(change, dict) or change.get("kind") not in ("swap", "move"):
        raise ValueError(f'{where}: expected {{"kind": "swap" or "move", "cells": [[row, col], [row, col]]}}')
    cells = change.get("cells")
    if not (isinstance(cells, list) and len(cells) == 2):
        raise ValueError(f"{where}: expected two cells")
    try:
        first, second = (_cell(board, pair) for pair in cells)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    symbols = dict(board.symbol_at)
    if first not in symbols or first == second:
        raise ValueError(f"{where}: its first cell holds no tile, or both cells are one")
    if change["kind"] == "swap":
        if second not in symbols:
            raise ValueError(f"{where}: a swap of a tile with an empty cell (a move says that)")
        symbols[first], symbols[second] = symbols[second], symbols[first]
    else:
        if second in symbols:
            raise ValueError(f"{where}: a move to a cell that holds a tile")
        symbols[second] = symbols.pop(first)
    tiles = tuple(Tile(cell, symbols[cell]) for cell in hex_cells(board.dim) if cell in symbols)
    return Board(board.dim, tiles, board.name)


def _cell(board: Board, pair: object) -> Hex:
    if not (isinstance(pair, list) and len(pair) == 2 and all(type(x) is int and 0 <= x < 10_000 for x in pair)):
        raise ValueError(f"{str(pair)[:40]} is not a [row, col] cell")
    return from_rowcol(pair[0], pair[1], board.dim)
