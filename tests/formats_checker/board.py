"""Board files, cells and neighbours (docs/formats.md, "Board files" and "Cells and neighbours")."""

from __future__ import annotations

import lzma
from dataclasses import dataclass
from pathlib import Path

SYMBOLS = set("aefwsvmqx123456789")
RING = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


class Malformed(ValueError):
    """Input that does not follow the page (``sigmar check`` exits 2)."""


@dataclass
class Board:
    name: str
    dim: int
    rows: list[str]  # the cell characters of each row, lower case, no whitespace
    text: str  # the board as it stood in the file, for handing it to `sigmar encode`

    def cells(self) -> list[tuple[int, int]]:
        """The cells holding a tile, in reading order."""
        return [(r, c) for r, row in enumerate(self.rows) for c, ch in enumerate(row) if ch != "."]

    def symbol(self, cell: tuple[int, int]) -> str:
        return self.rows[cell[0]][cell[1]]

    def on_board(self, cell: tuple[int, int]) -> bool:
        r, c = cell
        return 0 <= r < len(self.rows) and 0 <= c < len(self.rows[r])

    def neighbours(self, cell: tuple[int, int]) -> list[tuple[int, int] | None]:
        """The six neighbours in ring order, as [row, col]; None for a cell off the board."""
        big_r = self.dim - 1
        row, col = cell
        q, r = col - min(row, big_r), row - big_r
        out: list[tuple[int, int] | None] = []
        for dq, dr in RING:
            nq, nr = q + dq, r + dr
            if max(abs(nq), abs(nr), abs(nq + nr)) > big_r:
                out.append(None)
            else:
                nrow = nr + big_r
                out.append((nrow, nq + min(nrow, big_r)))
        return out


def row_lengths(dim: int) -> list[int]:
    return [dim + min(i, 2 * dim - 2 - i) for i in range(2 * dim - 1)]


def _whole(rows: list[str]) -> bool:
    """Rows that already make a board of side (rows + 1) / 2."""
    return len(rows) % 2 == 1 and [len(r) for r in rows] == row_lengths((len(rows) + 1) // 2)


def read_boards(path: str | Path) -> list[Board]:
    data = Path(path).read_bytes()
    if str(path).endswith(".xz"):
        data = lzma.decompress(data)
    text = data.decode("utf-8").removeprefix("\ufeff")
    blocks: list[tuple[str | None, list[str], list[str]]] = []
    current: tuple[str | None, list[str], list[str]] | None = None
    comment: str | None = None
    for raw in text.split("\n"):
        raw = raw.removesuffix("\r")
        body, hash_, rest = raw.partition("#")
        cells = "".join(body.split())
        if not cells:
            if hash_:
                if current is not None and _whole(current[1]):  # a name line after a whole board: the next one
                    current = None
                comment = rest.strip()
            elif not raw.strip():
                current, comment = None, None
            continue
        if current is None:
            current = (comment, [], [])
            blocks.append(current)
        current[1].append(cells.lower())
        current[2].append(raw)
        comment = None
    if not blocks:
        raise Malformed(f"{path}: no board")
    boards = []
    for index, (name, rows, lines) in enumerate(blocks):
        name = name if name is not None else f"{path}:{index}"
        dim = (len(rows) + 1) // 2  # the page: 2*dim-1 rows
        if [len(r) for r in rows] != row_lengths(dim) or dim > 16:
            raise Malformed(f"{path}: board {name!r}: wrong shape")
        digits = [ch for row in rows for ch in row if ch.isdigit()]
        if any(ch not in SYMBOLS | {"."} for row in rows for ch in row) or len(set(digits)) != len(digits):
            raise Malformed(f"{path}: board {name!r}: unknown symbol or a metal twice")
        boards.append(Board(name, dim, rows, f"# {name}\n" + "\n".join(lines) + "\n"))
    return boards
