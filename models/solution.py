"""Solutions at the file and JSON edge: moves as ``[row, col]`` cells.

Two forms are read (docs/formats.md#solutions): the JSON Lines that ``sigmar solve --json``
prints (one object per board, each with ``moves``), or plain text with one
move a line, cells as ``row,col row,col`` (``#`` comments and blank lines
ignored).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from sigmar.models import input_limits
from sigmar.models.board import Board
from sigmar.models.boardfile import MAX_DIM, BoardFileError
from sigmar.models.hexgrid import cell_count, from_rowcol, side, to_rowcol
from sigmar.models.input_limits import SOLUTION, InputError
from sigmar.models.records import Frozen
from sigmar.models.result import Move

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:  # pathlib: 17 M instructions a one-board solve need not pay
    from pathlib import Path
    from types import ModuleType
    from typing import Any

RowCol = tuple[int, int]


class Solution(Frozen):
    """The moves given for one board, still in ``[row, col]`` form."""

    __slots__ = __match_args__ = ("board", "moves")
    board: str | None  # the board name the JSON names, if any
    moves: tuple[tuple[RowCol, ...], ...]

    def __init__(self, board: str | None, moves: tuple[tuple[RowCol, ...], ...]) -> None:
        object.__setattr__(self, "board", board)
        object.__setattr__(self, "moves", moves)


# A pattern, compiled by re on its first use (about 1 M instructions: not at every start, for a file never read).
_CELL = r"^\s*\[?\s*([0-9]+)\s*,\s*([0-9]+)\s*\]?\s*$"
# A cell's row or column is never more than this many digits (a side-10 board has 19 rows).
MAX_DIGITS = 6
MAX_DEPTH = 8  # an answer object nests moves, cells and coordinates: 5 deep
MAX_CHARS = SOLUTION.default  # the solutions of a thousand side-10 boards fit in a tenth of this
# Every move takes a tile away: no solution has more moves than the largest board has cells.
MAX_MOVES = cell_count(MAX_DIM)  # not len(cells(MAX_DIM)): 721 cells to make at every start


def parse_solutions(text: str, filename: str = "<solution>") -> list[Solution]:
    if len(text) > MAX_CHARS:
        raise BoardFileError(filename, f"{len(text)} characters is too large for a solution file")
    numbered = enumerate(text.removeprefix("\ufeff").split("\n"), start=1)
    return _parse_numbered(numbered, filename)


def read_solutions(path: str | Path) -> list[Solution]:
    """The solutions of a file (``-``: standard input), read a line at a time and stopped at the first bad one."""
    filename = str(path)
    try:
        with input_limits.open_input(path, SOLUTION, stdin=True) as stream:
            return _parse_numbered(input_limits.lines(stream, SOLUTION), filename)
    except InputError as exc:
        raise BoardFileError(filename, exc.message, line=exc.line) from None


def _parse_numbered(numbered: Iterable[tuple[int, str]], filename: str) -> list[Solution]:
    """JSON Lines when the first non-blank character opens JSON, else one move a line."""
    numbered = iter(numbered)
    head: list[tuple[int, str]] = []
    for number, line in numbered:
        head.append((number, line))
        if line.strip():
            break
    first = head[-1][1].lstrip() if head else ""
    rest = _chain(head, numbered)
    if first.startswith("{") or first.startswith("["):
        return _parse_json(rest, filename)
    return [_parse_lines(rest, filename)]


def _chain(head: list[tuple[int, str]], tail: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    yield from head
    yield from tail


class _NotACell(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NotACell(f"{name} is not a number a cell can have")


def _depth(line: str) -> int:
    """How deep brackets nest in a JSON line (counted outside strings), so a hostile one never reaches json."""
    depth = deepest = 0
    in_string = escaped = False
    for char in line:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _json() -> ModuleType:
    import json  # json where JSON is read or written: 5 M instructions a one-board solve (a table) need not pay

    return json


def _cell(value: Any) -> RowCol:
    """A ``[row, col]`` pair of non-negative ints (no bool, no float, no string), else ValueError."""
    if not isinstance(value, list) or len(value) != 2:
        raise ValueError("a cell is a list of two numbers [row, col]")
    for part in value:
        if isinstance(part, bool) or not isinstance(part, int):
            raise ValueError(f"{_json().dumps(part)[:20]} is not a whole number")
        if part < 0 or part >= 10**MAX_DIGITS:
            raise ValueError(f"{str(part)[:20]} is not a row or column")
    return value[0], value[1]


def _parse_json(numbered: Iterable[tuple[int, str]], filename: str) -> list[Solution]:
    out: list[Solution] = []
    for number, line in numbered:
        if not line.strip():
            continue
        record = _json_value(line, filename, number)
        records = record if isinstance(record, list) else [record]
        out.extend(json_solution(item, filename, number) for item in records)
    if not out:
        raise BoardFileError(filename, "no solution in this file")
    return out


def _json_value(line: str, filename: str, number: int) -> Any:
    """One JSON line, read only when it nests shallowly enough; every failure names the line."""
    if _depth(line) > MAX_DEPTH:
        raise BoardFileError(filename, f"JSON nested more than {MAX_DEPTH} deep", line=number)
    json = _json()
    try:
        return json.loads(line, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise BoardFileError(filename, f"not valid JSON: {exc.msg}", line=number, col=exc.colno - 1) from None
    except _NotACell as exc:
        raise BoardFileError(filename, f"not a solution: {exc}", line=number) from None
    except (ValueError, RecursionError):  # a number of thousands of digits
        raise BoardFileError(filename, "not a solution: a number too long to be a row or column", line=number) from None


def json_solution(item: Any, filename: str, number: int) -> Solution:
    """One answer object (``{"board": ..., "moves": [...]}``) as a Solution."""
    if not isinstance(item, dict):
        raise BoardFileError(filename, "expected a JSON object with 'moves'", line=number)
    name = item.get("board")
    if name is not None and not isinstance(name, str):
        raise BoardFileError(filename, "'board' must be a string", line=number)
    if "moves" not in item:
        status = item.get("status", "no status")
        raise BoardFileError(filename, f"this answer has no moves (status: {status})", line=number, board=name)
    if not isinstance(item["moves"], list):
        raise BoardFileError(filename, "'moves' must be a list of moves", line=number, board=name)
    if len(item["moves"]) > MAX_MOVES:
        raise BoardFileError(filename, _too_many_moves(len(item["moves"])), line=number, board=name)
    moves = []
    for index, move in enumerate(item["moves"]):
        cells = move.get("cells") if isinstance(move, dict) else move
        try:
            if not isinstance(cells, list) or not cells:
                raise ValueError("a move is a nonempty list of [row, col] cells")
            moves.append(tuple(_cell(c) for c in cells))
        except ValueError as exc:
            raise BoardFileError(filename, f"move {index + 1}: {exc}", line=number, board=name) from None
    return Solution(name, tuple(moves))


def _too_many_moves(count: int | str) -> str:
    return f"{count} moves: every move takes a tile, and no board has more than {MAX_MOVES} cells"


def _parse_lines(numbered: Iterable[tuple[int, str]], filename: str) -> Solution:
    moves: list[tuple[RowCol, ...]] = []
    for number, raw in numbered:
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if len(moves) == MAX_MOVES:
            raise BoardFileError(filename, _too_many_moves(f"more than {MAX_MOVES}"), line=number)
        cells = []
        for col, token in enumerate(re.split(r"\s+|(?<=\])\s*(?=\[)", line)):
            if not token:
                continue
            match = re.match(_CELL, token, re.ASCII)
            if match is None:
                raise BoardFileError(filename, f"'{token}' is not a cell 'row,col'", line=number, col=col)
            if max(len(match.group(1)), len(match.group(2))) > MAX_DIGITS:
                raise BoardFileError(filename, f"'{token[:20]}' is not a row and column", line=number, col=col)
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
        if solution.board is not None and solution.board not in by_name:
            raise BoardFileError(filename, f"the solution is for board '{solution.board}', which is not in the file")
        if board_name is not None and solution.board is not None and solution.board != board_name:
            raise BoardFileError(filename, f"the solution is for board '{solution.board}', not '{board_name}'")
        if board_name is not None:
            board = by_name[board_name]
        elif solution.board is not None:
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
    geometry = side(board.dim)
    index, rowcol = geometry.index, geometry.rowcol
    return {
        "cells": [list(rowcol[index[c]]) if c in index else list(to_rowcol(c, board.dim)) for c in move.cells],
        "tiles": "".join(board.symbol_at[c] for c in move.cells),
    }


def format_moves(board: Board, moves: list[Move] | tuple[Move, ...]) -> str:
    """One move a line, ``row,col row,col``: the plain solution form."""
    lines = []
    for move in moves:
        lines.append(" ".join("{},{}".format(*to_rowcol(c, board.dim)) for c in move.cells))
    return "\n".join(lines) + "\n"
