"""Board files (docs/formats.md#board-files): read one or many boards, write them back identically.

Every malformed input raises :class:`BoardFileError`, whose one-line message
names the file, the board, the row and the column; the CLI prints it and
exits with status 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .board import Board, Tile
from .hexgrid import cells as hex_cells
from .hexgrid import row_lengths, to_rowcol
from .tiles import EMPTY, METALS, SYMBOLS

MAX_DIM = 16  # 721 cells: far beyond any generated or published board
MAX_FILE_BYTES = 256 * 1024 * 1024


@dataclass
class BoardFileError(Exception):
    """A malformed board file, with its location (row and column from 0, line from 1)."""

    file: str
    message: str
    board: str | None = None
    row: int | None = None
    col: int | None = None
    line: int | None = None

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


@dataclass
class _Block:
    name: str | None
    rows: list[tuple[int, str]]  # (line number, cell symbols without whitespace)


def lines_of(text: str) -> list[str]:
    """The file's lines, split at ``\n`` (and ``\r\n``) only, a leading BOM dropped.

    Why not ``str.splitlines``: it also splits at VT, FF, U+0085 and U+2028,
    which would shift every row and line number after one; here they are
    whitespace inside a row, like any other.
    """
    return [line.removesuffix("\r") for line in text.removeprefix("\ufeff").split("\n")]


def _split_blocks(text: str) -> list[_Block]:
    blocks: list[_Block] = []
    current: _Block | None = None
    last_comment: str | None = None
    for number, raw in enumerate(lines_of(text), start=1):
        body, hash_, comment = raw.partition("#")
        cells = "".join(body.split())
        if not cells:
            if hash_:
                last_comment = comment.strip()
            elif raw.strip() == "":
                current, last_comment = None, None
            continue
        if current is None:
            current = _Block(last_comment, [])
            blocks.append(current)
        current.rows.append((number, cells))
        last_comment = None
    return blocks


def parse_boards(text: str, filename: str = "<string>") -> list[Board]:
    """Every board in ``text``; raises BoardFileError on the first malformed one."""
    blocks = _split_blocks(text)
    if not blocks:
        raise BoardFileError(filename, "no board in this file")
    return [_parse_block(block, index, filename) for index, block in enumerate(blocks)]


def _parse_block(block: _Block, index: int, filename: str) -> Board:
    name = block.name or f"{filename}:{index}"
    first_line, first_row = block.rows[0]
    dim = len(first_row)

    def error(message: str, row: int | None = None, col: int | None = None, line: int | None = None) -> BoardFileError:
        return BoardFileError(filename, message, name, row, col, line)

    if dim > MAX_DIM:
        raise error(
            f"the first row has {dim} cells: boards of side above {MAX_DIM} are not supported", 0, None, first_line
        )
    lengths = row_lengths(dim)
    if len(block.rows) != len(lengths):
        if len(block.rows) > len(lengths):
            line = block.rows[len(lengths)][0]
            raise error(
                f"a board of side {dim} has {len(lengths)} rows; this one has {len(block.rows)} "
                "(separate boards with a blank line)",
                len(lengths),
                None,
                line,
            )
        raise error(
            f"a board of side {dim} has {len(lengths)} rows; this one has only {len(block.rows)}",
            len(block.rows),
            None,
            block.rows[-1][0],
        )
    tiles: list[Tile] = []
    seen_metal: dict[str, tuple[int, int]] = {}
    grid = hex_cells(dim)  # reading order: the cell at [row, col] is grid[first[row] + col]
    first = [sum(lengths[:row]) for row in range(len(lengths))]
    for row, ((line, cells), expected) in enumerate(zip(block.rows, lengths, strict=True)):
        if len(cells) != expected:
            col = min(len(cells), expected)
            raise error(
                f"row {row} of a side-{dim} board has {expected} cells; this one has {len(cells)}", row, col, line
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
            tiles.append(Tile(grid[first[row] + col], symbol))
    return Board(dim, tuple(tiles), name)


def read_text(path: str | Path) -> str:
    """A board file's text; a missing, huge or binary file is a BoardFileError."""
    filename = str(path)
    try:
        if filename == "-":
            import sys

            data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:
                raise BoardFileError(filename, f"more than {MAX_FILE_BYTES} bytes is too large for a board file")
        else:
            size = Path(path).stat().st_size
            if size > MAX_FILE_BYTES:
                raise BoardFileError(filename, f"file of {size} bytes is too large for a board file")
            data = Path(path).read_bytes()
            if filename.endswith(".xz"):
                data = _unxz(filename, data)
    except FileNotFoundError:
        raise BoardFileError(filename, "no such file") from None
    except IsADirectoryError:
        raise BoardFileError(filename, "is a directory, not a board file") from None
    except PermissionError:
        raise BoardFileError(filename, "permission denied") from None
    if b"\0" in data:
        raise BoardFileError(filename, "binary data, not a board file", line=data[: data.index(b"\0")].count(b"\n") + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise BoardFileError(filename, "not UTF-8 text, not a board file", line=line) from None


def _unxz(filename: str, data: bytes) -> bytes:
    """The text inside an .xz board file (the public boards ship compressed), at most MAX_FILE_BYTES of it."""
    import lzma

    decompressor = lzma.LZMADecompressor()
    try:
        text = decompressor.decompress(data, max_length=MAX_FILE_BYTES + 1)
    except lzma.LZMAError as exc:
        raise BoardFileError(filename, f"not a valid .xz file ({exc})") from None
    if len(text) > MAX_FILE_BYTES:
        raise BoardFileError(filename, f"more than {MAX_FILE_BYTES} bytes uncompressed is too large for a board file")
    if not decompressor.eof:
        raise BoardFileError(filename, "truncated .xz file")
    return text


def read_boards(path: str | Path) -> list[Board]:
    return parse_boards(read_text(path), str(path))


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
