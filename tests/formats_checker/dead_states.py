"""Dead-states files (docs/formats.md, "Dead-states files")."""

from __future__ import annotations

import json
from pathlib import Path

from tests.formats_checker.board import Board, Malformed
from tests.formats_checker.rules import Tiles


def read(board: Board, path: Path) -> tuple[Tiles, list[tuple[int, int, int]]]:
    """The tiles in the file's order and (line, state, stuck set or 0) per state line."""
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n"):
        raise Malformed(f"{path}: does not end with a newline")
    lines = text[:-1].split("\n")
    try:
        records = [json.loads(line) for line in lines]
    except ValueError as exc:
        raise Malformed(f"{path}: not JSON Lines: {exc}") from None
    header = records[0]
    if not isinstance(header, dict) or header.get("format") != "sigmar-dead-states" or header.get("version") != 1:
        raise Malformed(f"{path}: line 1: not a dead-states header")
    tiles = header.get("tiles")
    if not isinstance(tiles, list) or not all(
        isinstance(p, list) and len(p) == 2 and all(type(x) is int and x >= 0 for x in p) for p in tiles
    ):
        raise Malformed(f"{path}: line 1: tiles is not a list of [row, col]")
    order = [(p[0], p[1]) for p in tiles]
    if not all(board.on_board(c) for c in order) or len(set(order)) != len(order):
        raise Malformed(f"{path}: line 1: a tile off the board or listed twice")
    if any(board.symbol(c) == "." for c in order) or len(order) != len(board.cells()):
        raise Malformed(f"{path}: line 1: the tiles are not this board's")
    n = len(order)
    states = []
    for number, record in enumerate(records[1:], start=2):
        if not isinstance(record, dict) or not isinstance(record.get("state"), str):
            raise Malformed(f"{path}: line {number}: no state")
        try:
            state = int(record["state"], 16)
        except ValueError:
            raise Malformed(f"{path}: line {number}: not hexadecimal") from None
        if state < 0 or state >> n:
            raise Malformed(f"{path}: line {number}: a tile beyond the header's")
        stuck = record.get("stuck", [])
        if not isinstance(stuck, list) or not all(type(i) is int and 0 <= i < n for i in stuck):
            raise Malformed(f"{path}: line {number}: stuck is not a list of tile indices")
        if len(set(stuck)) != len(stuck):
            raise Malformed(f"{path}: line {number}: stuck names a tile twice")
        states.append((number, state, sum(1 << i for i in stuck)))
    if not states:
        raise Malformed(f"{path}: no states")
    return Tiles(board, order), states


def check(board: Board, path: Path) -> tuple[bool, str]:
    tiles, states = read(board, path)
    if states[0][1] != (1 << tiles.n) - 1:
        return False, "the first state is not the whole board"
    for line, state, _ in states:
        if not state:
            return False, f"line {line}: an empty state"
    listed = {state for _, state, _ in states}
    for line, state, stuck in states:
        if stuck:
            if stuck & ~state:
                return False, f"line {line}: the stuck set names a tile not in the state"
            loose = tiles.not_held(state, stuck)
            if loose is not None:
                return False, f"line {line}: {tiles.cell(loose)} is not held"
    for line, state, stuck in states:
        if stuck:
            continue
        for move in tiles.moves(state):
            child = state & ~move
            if child not in listed and (not child or not tiles.cannot_pair_up(child)):
                return False, f"line {line}: a move leads to {child:x}, not listed and not dead by counts"
    return True, f"{len(states)} states closed under moves"
