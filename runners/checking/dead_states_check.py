"""Check a ``dead-states`` certificate: the listed states, the first the whole board, are closed under moves.

The file (docs/formats.md#dead-states-files) is read a line at a time
(stopping at the first bad one) into arrays of 64-bit words; every listed
state that carries a stuck set is checked by :mod:`.stuck_check`, and every
other one must be closed under every legal move (:mod:`.closure`): each
child is listed, or its counts cannot pair up.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sigmar.models import input_limits
from sigmar.models.bits import mask_of_ids
from sigmar.models.board import Board
from sigmar.models.hexgrid import Hex, from_rowcol
from sigmar.models.input_limits import DEAD_STATES, MAX_STATES, InputError
from sigmar.runners.checking.closure import WORD, Closure
from sigmar.runners.checking.stuck_check import Masks, stuck_verdict
from sigmar.runners.checking.verdict import CertificateError, Verdict

if TYPE_CHECKING:  # numpy is imported where a dead-states check needs it, not at start-up
    import numpy as np

DEAD_STATES_FORMAT = "sigmar-dead-states"
DEAD_STATES_VERSION = 1
# A dead-states file is read this many bytes at a time (its lines parsed by one json.loads).
BLOCK = 1 << 18


@dataclass(frozen=True)
class DeadStatesFile:
    """A parsed dead-states file: tile order, the listed states as rows of 64-bit words (row i is
    line i + 2, tiles 0-63 in word 0), the stuck sets some of them carry, by row (a state that
    names an empty list is there with 0), and the header line as read."""

    board_name: str
    order: tuple[Hex, ...]
    words: np.ndarray
    stuck: dict[int, int]
    header: dict

    def state(self, row: int) -> int:
        return sum(int(word) << (64 * w) for w, word in enumerate(self.words[row]))


def line_of(row: int) -> int:
    """The file line of a listed state (the header is line 1)."""
    return row + 2


def read_dead_states(
    board: Board, path: str | Path, form: str = DEAD_STATES_FORMAT, key: str = "stuck", text: str | None = None
) -> DeadStatesFile:
    """Parse and validate the file's form against ``board``; CertificateError names the line at fault.

    The file is read a line at a time and refused at its first bad line (or when it is not a
    regular file, or above the dead-states limit).  ``form`` is the header's ``format`` and
    ``key`` the optional tile list a state line may carry (a play-bound file,
    :mod:`.play_bound_check`, is read the same way with its own two).  ``text``: the file's text as the
    runner holds it, read from memory (``path`` then only names it)."""
    where = str(path)
    try:
        if text is not None:
            in_memory = input_limits.Capped(io.BytesIO(text.encode()), where, DEAD_STATES)
            return _read_dead_states(board, in_memory, where, form, key)
        with input_limits.open_input(path, DEAD_STATES) as stream:
            return _read_dead_states(board, stream, where, form, key)
    except InputError as exc:
        raise CertificateError(str(exc)) from None


def _line_blocks(stream: input_limits.Capped, where: str) -> Iterator[tuple[int, list[str]]]:
    """The file's lines a block (about ``BLOCK`` bytes) at a time, with the number of the first.

    Every line must end with a newline (else the file was cut short) and be at most the
    dead-states line limit long; a block is decoded as UTF-8 in one go (an error names its line).
    """
    longest = DEAD_STATES.line_bytes
    number, pending = 1, b""
    while chunk := stream.read(BLOCK):
        pending += chunk
        cut = pending.rfind(b"\n")
        if cut < 0:
            if len(pending) > longest:
                raise CertificateError(f"{where}: line {number}: longer than {longest:,} bytes")
            continue
        block, pending = pending[:cut], pending[cut + 1 :]
        if number == 1:
            block = block.removeprefix(input_limits.BOM)
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = number + block[: exc.start].count(b"\n")
            raise CertificateError(f"{where}: line {line}: not UTF-8 text") from None
        lines = text.split("\n")
        yield number, lines
        number += len(lines)
    if pending:
        raise CertificateError(f"{where}: line {number}: the file does not end with a newline (truncated?)")


def _records(lines: list[str], first: int, where: str) -> list:
    """The JSON value of each line, parsed in one call; a bad line is then found one by one."""
    try:
        records = json.loads("[" + ",".join(lines) + "]")
        if len(records) == len(lines):
            return records
    except (ValueError, RecursionError):
        pass
    for number, line in enumerate(lines, start=first):
        _json_line(line, where, number)
    raise CertificateError(f"{where}: line {first}-{first + len(lines) - 1}: a line holds more than one JSON value")


def _read_dead_states(board: Board, stream: input_limits.Capped, where: str, form: str, key: str) -> DeadStatesFile:
    from array import array

    import numpy as np

    blocks = _line_blocks(stream, where)
    first = next(blocks, None)
    if first is None:
        raise CertificateError(f"{where}: the file is empty")
    header = _json_line(first[1][0], where, 1)
    order = _read_header(board, header, where, form)
    n = len(order)
    words = max(1, (n + 63) // 64)
    columns = [array("Q") for _ in range(words)]
    stuck: dict[int, int] = {}
    for start, lines in _chain_blocks((2, first[1][1:]), blocks):
        if start + len(lines) - 1 > MAX_STATES + 1:
            raise CertificateError(f"{where}: more than {MAX_STATES:,} states; refused")
        block_start = len(columns[0])
        for number, record in enumerate(_records(lines, start, where) if lines else [], start=start):
            if not isinstance(record, dict) or not isinstance(record.get("state"), str):
                raise CertificateError(f'{where}: line {number}: expected {{"state": HEX}}')
            try:
                state = int(record["state"], 16)
            except ValueError:
                shown = record["state"][:40]
                raise CertificateError(f"{where}: line {number}: state {shown!r} is not hexadecimal") from None
            if state < 0 or state >> n:
                raise CertificateError(f"{where}: line {number}: the state names a tile beyond the {n} of the header")
            if key in record:
                stuck[number - 2] = _stuck_indices(record[key], n, where, number, key)
            if words == 1:
                columns[0].append(state)
            else:
                for w in range(words):
                    columns[w].append((state >> (64 * w)) & WORD)
        block = np.array([np.frombuffer(column[block_start:], dtype=np.uint64) for column in columns]).T
        _refuse_twins(block, block_start, where)  # a line written again is refused in its own block, at once
    count = len(columns[0])
    if not count:
        raise CertificateError(f"{where}: no states after the header")
    table = np.empty((count, words), dtype=np.uint64)
    for w, column in enumerate(columns):
        table[:, w] = np.frombuffer(column, dtype=np.uint64)
        del column[:]  # the array's copy is the one kept
    _refuse_twins(table, 0, where)
    return DeadStatesFile(str(header.get("board", "")), order, table, stuck, header)


def _refuse_twins(table: np.ndarray, first_row: int, where: str) -> None:
    """CertificateError naming the first state listed twice among ``table``'s rows (row 0 is ``first_row``).

    A valid file never needs a state twice (each is closed, or a leaf, once for all), so a file that
    repeats one is malformed: this bounds a file by its board's distinct states, and a file of one line
    written two million times is refused in its first block rather than checked line by line.
    """
    import numpy as np

    if len(table) < 2:
        return
    keys = table[:, 0] if table.shape[1] == 1 else np.ascontiguousarray(table).view(f"V{8 * table.shape[1]}").ravel()
    order = np.argsort(keys, kind="stable")
    ranked = keys[order]
    same = np.nonzero(ranked[1:] == ranked[:-1])[0]
    if not len(same):
        return
    later = order[same + 1]
    pick = int(np.argmin(later))
    at = int(same[pick])
    while at > 0 and ranked[at - 1] == ranked[at]:  # the earliest row of its run (the sort is stable)
        at -= 1
    again, once = int(later[pick]) + first_row, int(order[at]) + first_row
    raise CertificateError(
        f"{where}: line {line_of(again)}: the state of line {line_of(once)} again; a state is listed once"
    )


def _chain_blocks(
    head: tuple[int, list[str]], rest: Iterator[tuple[int, list[str]]]
) -> Iterator[tuple[int, list[str]]]:
    yield head
    yield from rest


def _json_line(line: str, where: str, number: int) -> dict:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:120]
        raise CertificateError(f"{where}: line {number}: not JSON ({why})") from None
    if not isinstance(record, dict):
        raise CertificateError(f"{where}: line {number}: expected a JSON object")
    return record


def _read_header(board: Board, header: dict, where: str, form: str) -> tuple[Hex, ...]:
    if header.get("format") != form or header.get("version") != DEAD_STATES_VERSION:
        expected = f"format {form!r}, version {DEAD_STATES_VERSION}"
        raise CertificateError(f"{where}: line 1: expected a header with {expected}")
    tiles = header.get("tiles")
    if not isinstance(tiles, list):
        raise CertificateError(f"{where}: line 1: the header has no list of tiles")
    order: list[Hex] = []
    for i, pair in enumerate(tiles):
        if not (isinstance(pair, list) and len(pair) == 2 and all(type(x) is int and 0 <= x < 10_000 for x in pair)):
            raise CertificateError(f"{where}: line 1: tile {i} is not a [row, col] pair of non-negative integers")
        try:
            cell = from_rowcol(pair[0], pair[1], board.dim)
        except ValueError as exc:
            raise CertificateError(f"{where}: line 1: tile {i} [{pair[0]}, {pair[1]}]: {exc}") from None
        if cell not in board.symbol_at:
            raise CertificateError(
                f"{where}: line 1: tile {i} [{pair[0]}, {pair[1]}] is an empty cell of board {board.name!r}: "
                "the certificate is for another board"
            )
        order.append(cell)
    if len(set(order)) != len(order):
        raise CertificateError(f"{where}: line 1: a tile is listed twice")
    if len(order) != len(board.tiles):
        raise CertificateError(
            f"{where}: line 1: {len(order)} tiles, but board {board.name!r} has {len(board.tiles)}: "
            "the certificate is for another board"
        )
    return tuple(order)


def _stuck_indices(value: object, n: int, where: str, number: int, key: str = "stuck") -> int:
    if not isinstance(value, list) or not all(type(x) is int and 0 <= x < n for x in value):
        raise CertificateError(f'{where}: line {number}: "{key}" must list tile indices from 0 to {n - 1}')
    if len(set(value)) != len(value):
        raise CertificateError(f'{where}: line {number}: "{key}" lists a tile twice')
    return mask_of_ids(value)


def check_dead_states(board: Board, path: str | Path, text: str | None = None) -> Verdict:
    """A ``dead-states`` certificate: the listed states, the first the whole board, are closed under moves
    (``text``: the file's, in memory)."""
    import numpy as np

    found = read_dead_states(board, path, text=text)
    m = Masks(board, found.order)
    full = (1 << m.size) - 1
    if found.state(0) != full:
        return Verdict(False, f"line {line_of(0)}: the first state is not the whole board")
    empty = np.nonzero(~found.words.any(axis=1))[0]
    if len(empty):
        return Verdict(False, f"line {line_of(int(empty[0]))}: a listed state is empty, which is the solved board")
    checked: dict[tuple[int, int], Verdict] = {}
    for row, k in sorted(found.stuck.items()):
        if k:
            state = found.state(row)
            verdict = checked.get((state, k))
            if verdict is None:
                verdict = checked[(state, k)] = stuck_verdict(m, state, k)
            if not verdict.valid:
                return Verdict(False, f"line {line_of(row)}: state {state:x}: its stuck set fails: {verdict.reason}")
    expanded = np.ones(len(found.words), dtype=bool)
    expanded[[row for row, k in found.stuck.items() if k]] = False
    rows = np.nonzero(expanded)[0]
    failure = Closure(m, found.words).first_open(found.words, rows)
    if failure is not None:
        row, move, child = failure
        state = found.state(row)
        tiles = " and ".join(m.where(t) for t in move)
        lead = "the empty board (the board is solvable)" if not child else f"state {child:x}"
        return Verdict(
            False,
            f"line {line_of(row)}: state {state:x}: removing {tiles} leads to {lead}, "
            "which is not listed and whose counts can pair up",
        )
    stuck_count = sum(1 for k in found.stuck.values() if k)
    return Verdict(
        True,
        f"{len(found.words):,} states closed under every legal move ({stuck_count:,} of them with a stuck set)",
    )
