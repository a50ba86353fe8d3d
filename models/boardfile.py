"""Board files (docs/formats.md#board-files): read one or many boards, write them back identically.

Every malformed input raises :class:`BoardFileError`, whose one-line message
names the file, the board, the row and the column; the CLI prints it and
exits with status 2.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator

from sigmar.models import input_limits
from sigmar.models.board import Board, Tile
from sigmar.models.errors import SigmarError
from sigmar.models.hexgrid import cells as hex_cells
from sigmar.models.hexgrid import row_lengths, to_rowcol
from sigmar.models.input_limits import BOARD_FILE, InputError
from sigmar.models.records import Record
from sigmar.models.tiles import EMPTY, METALS, SYMBOLS

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:  # pathlib: 17 M instructions a one-board solve need not pay
    from pathlib import Path

MAX_DIM = 16  # 721 cells: far beyond any generated or published board


class BoardFileError(Record, SigmarError):
    """A malformed board file, with its location (row and column from 0, line from 1)."""

    __match_args__ = ("file", "message", "board", "row", "col", "line")
    file: str
    message: str
    board: str | None
    row: int | None
    col: int | None
    line: int | None

    def __init__(
        self,
        file: str,
        message: str,
        board: str | None = None,
        row: int | None = None,
        col: int | None = None,
        line: int | None = None,
    ) -> None:
        self.file = file
        self.message = message
        self.board = board
        self.row = row
        self.col = col
        self.line = line

    def __str__(self) -> str:
        where = [_one_line(self.file)]
        if self.board is not None:
            where.append(f"board '{_one_line(self.board)}'")
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.col is not None:
            where.append(f"column {self.col}")
        text = ", ".join(where)
        if self.line is not None:
            text += f" (line {self.line})"
        return text + ": " + self.message


def _one_line(text: str) -> str:
    """``text`` with line breaks and other unprintable characters escaped, so that a message stays one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class RowBlock(Record):
    __slots__ = __match_args__ = ("name", "rows")
    name: str | None
    rows: list[tuple[int, str]]  # (line number, cell symbols without whitespace)

    def __init__(self, name: str | None, rows: list[tuple[int, str]]) -> None:
        self.name = name
        self.rows = rows


def lines_of(text: str) -> list[str]:
    """The file's lines, split at ``\n`` (and ``\r\n``) only, a leading BOM dropped.

    Why not ``str.splitlines``: it also splits at VT, FF, U+0085 and U+2028,
    which would shift every row and line number after one; here they are
    whitespace inside a row, like any other.
    """
    return [line.removesuffix("\r") for line in text.removeprefix("\ufeff").split("\n")]


def side_of(lengths: list[int]) -> int:
    """The side of a board (or template) whose rows have these cell counts.

    Read from the row count, ``2*dim-1``, so that a wrong first row is blamed on the first row;
    an even row count has no side of its own, and the longest row (the middle one, ``2*dim-1``
    cells) stands in.
    """
    if len(lengths) % 2:
        return (len(lengths) + 1) // 2
    return (max(lengths) + 1) // 2


def is_complete(lengths: list[int]) -> bool:
    """Whether rows of these cell counts already make a whole board (so a name line after them starts the next)."""
    return len(lengths) % 2 == 1 and side_of(lengths) <= MAX_DIM and tuple(lengths) == row_lengths(side_of(lengths))


def row_blocks(numbered: Iterable[tuple[int, str]]) -> Iterator[RowBlock]:
    """Each board's rows as they are read; a block ends at a blank line, at the end, or at a
    comment line that follows a complete board (the next board's name, as many files write it)."""
    current: RowBlock | None = None
    last_comment: str | None = None
    for number, raw in numbered:
        body, hash_, comment = raw.partition("#")
        cells = "".join(body.split())
        if not cells:
            if hash_:
                if current is not None and is_complete([len(row) for _, row in current.rows]):
                    yield current
                    current = None
                last_comment = comment.strip()
            elif raw.strip() == "":
                if current is not None:
                    yield current
                current, last_comment = None, None
            continue
        if current is None:
            current = RowBlock(last_comment, [])
        current.rows.append((number, cells))
        last_comment = None
    if current is not None:
        yield current


def iter_boards(numbered: Iterable[tuple[int, str]], filename: str) -> Iterator[Board]:
    """The boards of numbered lines, one at a time, each under a name of its own (:class:`DistinctNames`);
    BoardFileError at the first malformed one."""
    index = -1
    names = DistinctNames()
    for index, block in enumerate(row_blocks(numbered)):
        yield names.of(_parse_block(block, index, filename))
    if index < 0:
        raise BoardFileError(filename, "no board in this file")


class DistinctNames:
    """A board is known by its place in its file, not only by its name: two boards of one file never share one.

    The first board of a name keeps it; a later one whose name an earlier board of the file has
    already (as written, or as given here) is read as ``NAME#2``, ``NAME#3``, ... (the first number
    free), in every verb's output, so that an answer names one board (docs/formats.md#board-files).
    """

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._next: dict[str, int] = {}

    def of(self, board: Board) -> Board:
        name = board.name
        if name in self._used:
            number = self._next.get(name, 2)
            while f"{name}#{number}" in self._used:
                number += 1
            self._next[name] = number + 1
            board = board.replace(name=f"{name}#{number}")
        self._used.add(board.name)
        return board


def parse_boards(text: str, filename: str = "<string>") -> list[Board]:
    """Every board in ``text``; raises BoardFileError on the first malformed one."""
    return list(iter_boards(enumerate(lines_of(text), start=1), filename))


# One Tile object per (cell, symbol): a file of many boards holds pointers, not copies.
_TILES: dict[tuple[tuple[int, int], str], Tile] = {}


def _tile(cell: tuple[int, int], symbol: str) -> Tile:
    tile = _TILES.get((cell, symbol))
    if tile is None:
        tile = _TILES[(cell, symbol)] = Tile(cell, symbol)
    return tile


def _parse_block(block: RowBlock, index: int, filename: str) -> Board:
    name = block.name or f"{filename}:{index}"
    first_line = block.rows[0][0]

    def error(message: str, row: int | None = None, col: int | None = None, line: int | None = None) -> BoardFileError:
        return BoardFileError(filename, message, name, row, col, line)

    found = [len(cells) for _, cells in block.rows]
    widest = max(range(len(found)), key=found.__getitem__)
    if len(found) > 2 * MAX_DIM - 1 or found[widest] > 2 * MAX_DIM - 1:
        too_big = f"{len(found)} rows" if len(found) > 2 * MAX_DIM - 1 else f"a row of {found[widest]} cells"
        row = None if len(found) > 2 * MAX_DIM - 1 else widest
        line = first_line if row is None else block.rows[widest][0]
        raise error(f"{too_big}: boards of side above {MAX_DIM} are not supported", row, None, line)
    dim = side_of(found)
    lengths = row_lengths(dim)
    if len(found) != len(lengths):
        raise _row_count_error(error, block, dim)
    tiles: list[Tile] = []
    seen_metal: dict[str, tuple[int, int]] = {}
    grid = hex_cells(dim)  # reading order: the cell at [row, col] is grid[first[row] + col]
    first = [sum(lengths[:row]) for row in range(len(lengths))]
    for row, ((line, cells), expected) in enumerate(zip(block.rows, lengths, strict=True)):
        if len(cells) != expected:
            col = min(len(cells), expected)
            raise error(
                f"row {row} of a side-{dim} board ({len(lengths)} rows) has {expected} cells; "
                f"this one has {len(cells)}",
                row,
                col,
                line,
            )
        for col, raw in enumerate(cells):
            symbol = raw.lower()
            if symbol == EMPTY:
                continue
            if symbol not in SYMBOLS:
                shown = raw if raw.isprintable() else repr(raw)
                raise error(f"unknown symbol '{shown}' (expected one of . a e f w s v m q x 1-9)", row, col, line)
            if symbol in METALS:
                if symbol in seen_metal:
                    r0, c0 = seen_metal[symbol]
                    raise error(f"metal {symbol} appears twice (first at [{r0}, {c0}])", row, col, line)
                seen_metal[symbol] = (row, col)
            tiles.append(_tile(grid[first[row] + col], symbol))
    return Board(dim, tuple(tiles), name)


def _row_count_error(error: Callable[..., BoardFileError], block: RowBlock, dim: int) -> BoardFileError:
    """An even number of rows: where it parts from a side-``dim`` board (its longest row's) is where a row
    is missing or one too many."""
    found = [len(cells) for _, cells in block.rows]
    lengths = row_lengths(dim)
    pairs = zip(found, lengths, strict=False)
    row = next((r for r, (have, want) in enumerate(pairs) if have != want), min(len(found), len(lengths)))
    line = block.rows[min(row, len(found) - 1)][0]
    only = "only " if len(found) < len(lengths) else ""
    more = " (separate boards with a blank line)" if len(found) > len(lengths) else ""
    return error(
        f"a board of side {dim} (its longest row has {max(found)} cells) has {len(lengths)} rows; "
        f"this one has {only}{len(found)}{more}",
        row,
        None,
        line,
    )


def _board_lines(stream: input_limits.Capped) -> Iterator[tuple[int, str]]:
    """The numbered lines of a board file; a NUL byte (binary data) stops it."""
    for number, line in input_limits.lines(stream, BOARD_FILE):
        if "\0" in line:
            raise InputError(stream.name, "binary data, not a board file", number)
        yield number, line


def stream_boards(path: str | Path) -> Iterator[Board]:
    """The boards of a file (``-``: standard input; ``.xz``: decompressed) as they are read.

    Only the board being parsed is in memory; every problem is a BoardFileError
    (a FIFO or folder, a file above the board file limit, a line that is not
    UTF-8, a malformed board), raised when the reader reaches it.
    """
    filename = str(path)
    try:
        with input_limits.open_input(path, BOARD_FILE, stdin=True) as stream:
            yield from iter_boards(_board_lines(stream), filename)
    except InputError as exc:
        raise BoardFileError(filename, exc.message, line=exc.line) from None


def parse_posted(data: bytes, name: str) -> list[Board]:
    """The boards of text that came over the network (``sigmar serve``), read as a file would be.

    The same limits and refusals as :func:`stream_boards`: the board file ceiling, the longest
    line, UTF-8, no NUL byte; every problem is a BoardFileError naming ``name``, the board, the row
    and the column.
    """
    stream = input_limits.Capped(io.BytesIO(data), name, BOARD_FILE)
    try:
        if len(data) > BOARD_FILE.bytes:
            raise InputError(name, BOARD_FILE.too_large(f"{len(data):,}"))
        return list(iter_boards(_board_lines(stream), name))
    except InputError as exc:
        raise BoardFileError(name, exc.message, line=exc.line) from None


def read_text(path: str | Path) -> str:
    """A whole board-sized text file (a template file, say); a refusal is a BoardFileError."""
    try:
        text = input_limits.read_text(path, BOARD_FILE, stdin=True)
    except InputError as exc:
        raise BoardFileError(str(path), exc.message, line=exc.line) from None
    if "\0" in text:
        raise BoardFileError(str(path), "binary data, not a board file", line=text[: text.index("\0")].count("\n") + 1)
    return text


def read_boards(path: str | Path) -> list[Board]:
    return list(stream_boards(path))


def format_board(board: Board, *, with_name: bool = True) -> str:
    """The board in the file format; ``parse_boards`` reads it back identically."""
    lengths = row_lengths(board.dim)
    grid = [[EMPTY] * n for n in lengths]
    for tile in board.tiles:
        row, col = to_rowcol(tile.cell, board.dim)
        grid[row][col] = tile.symbol
    lines = []
    if with_name and board.name:
        lines.append(f"# {board.name}")
    for row, cells in enumerate(grid):
        indent = " " * (2 * board.dim - 1 - lengths[row])
        lines.append(indent + " ".join(cells))
    return "\n".join(lines) + "\n"


def format_boards(boards: list[Board]) -> str:
    return "\n".join(format_board(b) for b in boards)
