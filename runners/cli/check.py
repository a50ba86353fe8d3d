"""``sigmar check FILE CERT [--board NAME]``: check an unsolvability certificate against its board.

The certificate formats are docs/formats.md#certificates.

CERT is a dead-states file (``NAME.dead.jsonl``), a DRUP proof (``NAME.drup``
with ``NAME.cnf`` and ``NAME.vars.json`` beside it), a DRCP proof (``NAME.drcp``
with ``NAME.drcp-model`` beside it), or the JSON that
``solve``/``prove --json`` printed (each line's ``certificate`` is checked,
a ``stuck`` one from its cells).  The checking code shares nothing with the
backends (see :mod:`sigmar.models.certificate_checker`).  Exit 0 valid, 3 invalid,
2 malformed or for another board.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from sigmar.models import input_limits
from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards
from sigmar.models.certificate_checker import CertificateError, Verdict
from sigmar.models.input_limits import ANSWERS, DEAD_STATES, DRCP_MODEL, VARS_JSON, InputError

from ..checking.certificate_files import check_certificate, drcp_model_file
from .options import add_board_file, add_json


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "check",
        help="check an unsolvability certificate against its board",
        description="Check a certificate (docs/formats.md) with code independent of the backends: a dead-states "
        "file (NAME.dead.jsonl), a DRUP proof (NAME.drup, with NAME.cnf and NAME.vars.json beside it), a DRCP "
        "proof (NAME.drcp, with NAME.drcp-model beside it), or "
        "the JSON that 'solve --json' or 'prove --json' printed. Exit 0 valid, 3 invalid (naming the first "
        "state, tile or lemma that fails), 2 malformed.",
    )
    add_board_file(parser)
    parser.add_argument("certificate", metavar="CERT", help="the certificate file")
    parser.add_argument("--board", metavar="NAME", help="which board of FILE (default: the one CERT names)")
    add_json(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    boards = read_boards(args.file)
    cert = Path(args.certificate)
    try:
        jobs = _jobs(cert)
        work = [(_choose(boards, args.board, named, args.file, cert), record) for named, record in jobs]
    except CertificateError as exc:
        said = str(exc)  # named once: a message may name the file already (a short name is in many words)
        raise CertificateError(said if said.startswith(f"{cert}:") else f"{cert}: {said}") from None
    all_valid = True
    for board, record in work:
        start = time.perf_counter()
        try:
            verdict = check_certificate(board, record, base=cert.parent)
        except CertificateError as exc:
            raise CertificateError(f"board {board.name!r}: {exc}") from None
        seconds = time.perf_counter() - start
        all_valid &= verdict.valid
        _print(board, record, verdict, seconds, args.json)
    return 0 if all_valid else 3


def _print(board: Board, record: dict[str, Any], verdict: Verdict, seconds: float, as_json: bool) -> None:
    if as_json:
        line = {
            "board": board.name,
            "kind": record["kind"],
            "valid": verdict.valid,
            "reason": verdict.reason,
            "check_seconds": round(seconds, 4),
        }
        print(json.dumps(line))
    else:
        word = "valid" if verdict.valid else "INVALID"
        print(f"{board.name}: {record['kind']} certificate {word} ({seconds:.3f} s): {verdict.reason}")


def _jobs(cert: Path) -> list[tuple[str | None, dict[str, Any]]]:
    """(board name the certificate names, certificate record) for each certificate in CERT."""
    try:
        if cert.name.endswith(".drup"):
            input_limits.regular_size(cert, input_limits.DRUP)
            return [(_sidecar_board(cert), {"kind": "drup", "file": str(cert)})]
        if cert.name.endswith(".drcp"):
            input_limits.regular_size(cert, input_limits.DRCP)
            return [(_model_board(cert), {"kind": "drcp", "file": str(cert)})]
        # The kind is on line 1, and each kind has its own ceiling: line 1 is read first, then the size is held
        # to that kind's limit before any other line is read.
        with input_limits.open_input(cert, FIRST_LINE) as stream:
            numbered = input_limits.lines(stream, ANSWERS)
            _, first = next(numbered, (1, ""))
            try:
                head = input_limits.json_value(first, cert, 1)
            except InputError:
                raise CertificateError("line 1: neither a dead-states file, a .drup proof nor sigmar's JSON") from None
            if isinstance(head, dict) and head.get("format") == "sigmar-dead-states":
                input_limits.regular_size(cert, DEAD_STATES)
                name = head.get("board")
                return [(name if isinstance(name, str) else None, {"kind": "dead-states", "file": str(cert)})]
            input_limits.regular_size(cert, ANSWERS)
            return _answers(cert, [(1, head)], numbered)
    except InputError as exc:
        raise CertificateError(exc.message if exc.line is None else f"line {exc.line}: {exc.message}") from None


# Only line 1 of a certificate file is read under this (it says which kind, and so which limit holds).
FIRST_LINE = input_limits.Limit("certificate file", "", input_limits.MAX_SETTING, line_bytes=ANSWERS.line_bytes)


def _sidecar_board(drup: Path) -> str | None:
    sidecar = drup.with_name(drup.name[: -len(".drup")] + ".vars.json")
    try:
        found = input_limits.json_value(input_limits.read_text(sidecar, VARS_JSON), sidecar)
    except InputError:
        return None
    name = found.get("board") if isinstance(found, dict) else None
    return name if isinstance(name, str) else None


def _model_board(drcp: Path) -> str | None:
    """The board named on the ``board`` line of the model beside ``NAME.drcp`` (its second line), if any."""
    model = drcp_model_file(drcp)
    try:
        with input_limits.open_input(model, DRCP_MODEL) as stream:
            for number, line in input_limits.lines(stream, DRCP_MODEL):
                if line.startswith("board "):
                    found = input_limits.json_value(line[len("board ") :], model, number)
                    return found if isinstance(found, str) else None
                if number >= 2:
                    return None
    except InputError:
        return None
    return None


def _answers(cert: Path, head: list[tuple[int, Any]], rest: Any) -> list[tuple[str | None, dict[str, Any]]]:
    """The certificates of sigmar's JSON Lines answers (or of one bare certificate object), read a line at a time."""
    jobs: list[tuple[str | None, dict[str, Any]]] = []

    def records() -> Any:
        yield from head
        for number, line in rest:
            if line.strip():
                try:
                    yield number, input_limits.json_value(line, cert, number)
                except InputError:
                    raise CertificateError(f"line {number}: not JSON") from None

    for number, record in records():
        if not isinstance(record, dict):
            raise CertificateError(f"line {number}: expected a JSON object")
        if "kind" in record:
            jobs.append((None, record))
            continue
        certificate = record.get("certificate")
        if record.get("status") != "unsolvable" or not isinstance(certificate, dict):
            continue
        name = record.get("board")
        jobs.append((name if isinstance(name, str) else None, certificate))
    if not jobs:
        raise CertificateError("holds no certificate (no 'unsolvable' answer with a \"certificate\")")
    return jobs


def _choose(boards: list[Board], wanted: str | None, named: str | None, file: str, cert: Path) -> Board:
    """The board a certificate is for: --board, else the name it carries, else FILE's only board."""
    name = wanted if wanted is not None else named
    if name is not None:
        for board in boards:
            if board.name == name:
                return board
        if wanted is not None or len(boards) > 1:
            raise CertificateError(f"{file} has no board named {name!r}")
    if len(boards) == 1:
        return boards[0]
    raise CertificateError(f"{file} holds {len(boards)} boards and the certificate names none: use --board NAME")
