"""Solutions at the file and JSON edge: moves as ``[row, col]`` cells.

Two forms are read (SPEC §3): the JSON Lines that ``sigmar solve --json``
prints (one object per board, each with ``moves``), or plain text with one
move a line, cells as ``row,col row,col`` (``#`` comments and blank lines
ignored).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .board import Board
from .boardfile import BoardFileError
from .hexgrid import from_rowcol, to_rowcol
from .result import Move

RowCol = tuple[int, int]


@dataclass(frozen=True)
class Solution:
    """The moves given for one board, still in ``[row, col]`` form."""

    board: str | None  # the board name the JSON names, if any
    moves: tuple[tuple[RowCol, ...], ...]


_CELL = re.compile(r"^\s*\[?\s*(-?\d+)\s*,\s*(-?\d+)\s*\]?\s*$")


def parse_solutions(text: str, filename: str = "<solution>") -> list[Solution]:
    stripped = text.lstrip()
    if stripped.startswith("{") or stripped.startswith("["):
        return _parse_json(text, filename)
    return [_parse_lines(text, filename)]


def _parse_json(text: str, filename: str) -> list[Solution]:
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BoardFileError(filename, f"not valid JSON: {exc.msg}", line=number, col=exc.colno - 1) from None
        records = record if isinstance(record, list) else [record]
        for item in records:
            if not isinstance(item, dict):
                raise BoardFileError(filename, "expected a JSON object with 'moves'", line=number)
            if "moves" not in item:
                status = item.get("status", "no status")
                raise BoardFileError(
                    filename, f"this answer has no moves (status: {status})", line=number, board=item.get("board")
                )
            moves = []
            for index, move in enumerate(item["moves"]):
                cells = move.get("cells") if isinstance(move, dict) else move
                try:
                    if not isinstance(cells, list):
                        raise TypeError
                    moves.append(tuple((int(c[0]), int(c[1])) for c in cells))
                except (TypeError, ValueError, IndexError, KeyError):
                    raise BoardFileError(
                        filename,
                        f"move {index + 1} is not a list of [row, col] cells",
                        line=number,
                        board=item.get("board"),
                    ) from None
            out.append(Solution(item.get("board"), tuple(moves)))
    if not out:
        raise BoardFileError(filename, "no solution in this file")
    return out


def _parse_lines(text: str, filename: str) -> Solution:
    moves = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        cells = []
        for col, token in enumerate(re.split(r"\s+|(?<=\])\s*(?=\[)", line)):
            if not token:
                continue
            match = _CELL.match(token)
            if match is None:
                raise BoardFileError(filename, f"'{token}' is not a cell 'row,col'", line=number, col=col)
            cells.append((int(match.group(1)), int(match.group(2))))
        moves.append(tuple(cells))
    if not moves:
        raise BoardFileError(filename, "no moves in this file")
    return Solution(None, tuple(moves))


def match_solutions(
    boards: list[Board], solutions: list[Solution], board_name: str | None, filename: str
) -> list[tuple[Board, Solution]]:
    """Which board each solution is for: the one named (``--board`` or the JSON's
    ``board``), else the same position in the file, else a lone solution is for
    the first board."""
    by_name = {b.name: b for b in boards}
    if board_name is not None and board_name not in by_name:
        raise BoardFileError(filename, f"no board named '{board_name}'")
    pairs = []
    for index, solution in enumerate(solutions):
        if board_name is not None:
            board = by_name[board_name]
        elif solution.board is not None and solution.board in by_name:
            board = by_name[solution.board]
        elif len(solutions) == len(boards):
            board = boards[index]
        elif len(solutions) == 1:
            board = boards[0]
        else:
            raise BoardFileError(
                filename, f"solution {index} names no board ({solution.board!r}); give one solution per board, in order"
            )
        pairs.append((board, solution))
    return pairs


def to_moves(board: Board, solution: Solution, filename: str = "<solution>") -> list[Move]:
    """Axial moves for ``board``; a cell off the board is a BoardFileError."""
    moves = []
    for number, cells in enumerate(solution.moves, start=1):
        axial = []
        for row, col in cells:
            try:
                axial.append(from_rowcol(row, col, board.dim))
            except ValueError as exc:
                raise BoardFileError(filename, f"move {number}: {exc}", board=board.name, row=row, col=col) from None
        moves.append(Move(tuple(axial)))
    return moves


def move_to_json(board: Board, move: Move) -> dict[str, Any]:
    return {
        "cells": [list(to_rowcol(c, board.dim)) for c in move.cells],
        "tiles": "".join(board.symbol_at[c] for c in move.cells),
    }


def format_moves(board: Board, moves: list[Move] | tuple[Move, ...]) -> str:
    """One move a line, ``row,col row,col``: the plain solution form."""
    lines = []
    for move in moves:
        lines.append(" ".join("{},{}".format(*to_rowcol(c, board.dim)) for c in move.cells))
    return "\n".join(lines) + "\n"
