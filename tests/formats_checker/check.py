"""What `sigmar check FILE CERT [--board NAME]` does, from docs/formats.md ("sigmar check"); exit 0, 3 or 2."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.formats_checker import cubes, dead_states, drcp, drup
from tests.formats_checker.board import Board, Malformed, read_boards
from tests.formats_checker.rules import Tiles


def check_stuck(board: Board, cells: object) -> tuple[bool, str]:
    if not isinstance(cells, list) or not cells:
        raise Malformed("a stuck certificate needs cells")
    if not all(isinstance(p, list) and len(p) == 2 and all(type(x) is int and x >= 0 for x in p) for p in cells):
        raise Malformed("cells are not [row, col] pairs")
    chosen = [(p[0], p[1]) for p in cells]
    if not all(board.on_board(c) and board.symbol(c) != "." for c in chosen) or len(set(chosen)) != len(chosen):
        raise Malformed("a cell off the board, empty, or given twice")
    tiles = Tiles(board, board.cells())
    k = sum(1 << tiles.order.index(c) for c in chosen)
    loose = tiles.not_held((1 << tiles.n) - 1, k)
    return (True, "a stuck set") if loose is None else (False, f"{tiles.cell(loose)} is not held")


def check_one(board: Board, certificate: dict, base: Path) -> tuple[bool, str]:
    kind = certificate.get("kind")
    if kind == "counts":
        tiles = Tiles(board, board.cells())
        return tiles.cannot_pair_up((1 << tiles.n) - 1), "counts"
    if kind == "stuck":
        return check_stuck(board, certificate.get("cells"))
    if kind not in ("dead-states", "drup", "drcp", "cubes"):
        raise Malformed(f"unknown kind {kind!r}")
    name = certificate.get("file")
    if not isinstance(name, str) or not name:
        raise Malformed("no file")
    path = Path(name)
    if not path.is_file() and not path.is_absolute() and (base / path).is_file():
        path = base / path
    if not path.is_file():
        raise Malformed(f"{path}: no such file")
    if kind == "drcp":
        return drcp.check(board, path)
    if kind == "cubes":
        return cubes.check(board, path)
    return dead_states.check(board, path) if kind == "dead-states" else drup.check(board, path)


def certificates(cert: Path) -> list[tuple[str | None, dict]]:
    """(the board name the certificate names, the certificate) for each certificate in CERT."""
    if cert.name.endswith(".drcp"):
        model = cert.with_name(cert.name.removesuffix(".drcp") + ".drcp-model")
        lines = model.read_text(encoding="utf-8").splitlines()[:2] if model.is_file() else []
        named = (
            json.loads(lines[1].removeprefix("board ")) if len(lines) == 2 and lines[1].startswith("board ") else None
        )
        return [(named if isinstance(named, str) else None, {"kind": "drcp", "file": str(cert)})]
    if cert.name.endswith(".drup"):
        try:
            named = json.loads(cert.with_name(cert.name.removesuffix(".drup") + ".vars.json").read_text())["board"]
        except (OSError, ValueError, KeyError, TypeError):
            named = None
        return [(named if isinstance(named, str) else None, {"kind": "drup", "file": str(cert)})]
    lines = cert.read_text(encoding="utf-8", errors="replace").splitlines()
    try:
        head = json.loads(lines[0]) if lines else None
    except ValueError:
        raise Malformed("line 1 is not JSON") from None
    if cert.name.endswith(".cubes"):
        named = head.get("board") if isinstance(head, dict) else None
        return [(named if isinstance(named, str) else None, {"kind": "cubes", "file": str(cert)})]
    if isinstance(head, dict) and head.get("format") == "sigmar-dead-states":
        named = head.get("board")
        return [(named if isinstance(named, str) else None, {"kind": "dead-states", "file": str(cert)})]
    out: list[tuple[str | None, dict]] = []
    for line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            raise Malformed("a line is not JSON") from None
        if not isinstance(record, dict):
            raise Malformed("a line is not a JSON object")
        if "kind" in record:
            out.append((None, record))
        elif record.get("status") == "unsolvable" and isinstance(record.get("certificate"), dict):
            named = record.get("board")
            out.append((named if isinstance(named, str) else None, record["certificate"]))
    if not out:
        raise Malformed("no certificate")
    return out


def choose(boards: list[Board], wanted: str | None, named: str | None) -> Board:
    name = wanted if wanted is not None else named
    if name is not None:
        for board in boards:
            if board.name == name:
                return board
        if wanted is not None or len(boards) > 1:
            raise Malformed(f"no board named {name!r}")
    if len(boards) == 1:
        return boards[0]
    raise Malformed("several boards and the certificate names none")


def check(board_file: str | Path, cert: str | Path, board: str | None = None) -> int:
    """0 every certificate valid, 3 some invalid, 2 malformed: the exit status of `sigmar check`."""
    cert = Path(cert)
    try:
        if not cert.is_file():
            raise Malformed(f"{cert}: no such file")
        boards = read_boards(board_file)
        work = [(choose(boards, board, named), record) for named, record in certificates(cert)]
        verdicts = [check_one(b, record, cert.parent) for b, record in work]
    except (Malformed, OSError, UnicodeDecodeError) as exc:
        print(f"formats_checker: {exc}", file=sys.stderr)
        return 2
    for (b, record), (valid, why) in zip(work, verdicts, strict=True):
        print(f"{b.name}: {record.get('kind')} {'valid' if valid else 'INVALID'}: {why}")
    return 0 if all(valid for valid, _ in verdicts) else 3
