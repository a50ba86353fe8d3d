"""``sigmar check FILE... CERT [--board NAME]``: check certificates, or a whole answers file, against the boards.

The certificate formats are docs/formats.md#certificates.

CERT is a dead-states file (``NAME.dead.jsonl``), a play-bound file (``NAME.bound.jsonl``,
from ``explain``: no play clears more than its tiles), a DRUP proof (``NAME.drup``
with ``NAME.cnf`` and ``NAME.vars.json`` beside it), a DRCP proof (``NAME.drcp``
with ``NAME.drcp-model`` beside it), a split into cubes
(``NAME.cubes``, with its formula and its nodes' proofs beside it), bare
certificate objects, or an answers file: the JSON that
``solve``/``prove``/``crosscheck --json`` printed.  An answers file is checked
whole (:mod:`sigmar.runners.checking.answers`): every solution replayed, every
certificate checked, every board of the FILEs answered.  The checking code
shares nothing with the backends (see :mod:`sigmar.runners.checking.certificates`).
Exit 0 all valid, 1 all valid but some answers unknown or error, 3 something
invalid, uncheckable or missing, 2 malformed or for another board.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sigmar.models import input_limits
from sigmar.models.board import Board
from sigmar.models.input_limits import ANSWERS, DEAD_STATES, DRCP_MODEL, VARS_JSON, InputError
from sigmar.runners.checking.answers import FAILING, Finding, check_answer, check_explained, is_answer, missing_boards
from sigmar.runners.checking.certificates import PROVES, check_claim
from sigmar.runners.checking.cubes_check import read_split
from sigmar.runners.checking.dead_states_check import DEAD_STATES_FORMAT
from sigmar.runners.checking.drcp_check import drcp_model_file
from sigmar.runners.checking.play_bound_check import PLAY_BOUND_FORMAT
from sigmar.runners.checking.verdict import CertificateError, Verdict
from sigmar.runners.cli.board_args import selected_names
from sigmar.runners.cli.conventions import follow
from sigmar.runners.cli.options import BOARD_ARGUMENT_HELP, writable_folder

# The header format of a certificate file that is one JSON header line and states -> its kind.
FILE_KINDS = {DEAD_STATES_FORMAT: "dead-states", PLAY_BOUND_FORMAT: "play-bound"}


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "check",
        help="check a certificate, or a whole answers file, against the boards",
        description="Check with code independent of the backends (docs/formats.md): a certificate (a dead-states "
        "file NAME.dead.jsonl, a play-bound file of 'explain' NAME.bound.jsonl, a DRUP proof NAME.drup with "
        "NAME.cnf and NAME.vars.json beside it, a DRCP proof NAME.drcp with NAME.drcp-model beside it, a split "
        "into cubes NAME.cubes with the formula and each node's proof beside it), or a whole "
        "answers file, the JSON Lines that 'solve', 'prove' or 'crosscheck' printed with --json: every solved "
        "answer is replayed by the rule engine, every unsolvable answer's certificate is checked (one with "
        "no certificate, or whose files were in a temporary folder now gone, cannot be), unknown and error "
        "answers are listed, and every board of the FILEs must have an answer. Exit 0 all valid, 1 all valid "
        "but some unknown or error, 3 something invalid (naming the first state, tile, lemma or move that "
        "fails), uncheckable or missing, 2 malformed.",
    )
    parser.add_argument(
        "files",
        metavar="FILE",
        nargs="+",
        help=f"board files, as the command that answered read them ({BOARD_ARGUMENT_HELP}; a certificate or "
        "answer for a board of FILE that was not picked is skipped)",
    )
    parser.add_argument("certificate", metavar="CERT", help="the certificate or answers file")
    parser.add_argument(
        "--lrat",
        action="store_true",
        help="check a drup or cubes certificate's every refutation a second way: the C checker writes the lemmas "
        "it checked with their hints (LRAT) and a short LRAT checker of its own checks those (docs/certificates.md)",
    )
    parser.add_argument(
        "--export",
        type=writable_folder,
        metavar="DIR",
        help="write a drup or cubes certificate's every refutation into DIR as a pair a standard checker reads "
        "(NAME.cnf and NAME.drup for drat-trim, NAME.lrat for lrat-check) with manifest.json saying what each "
        "pair proves (docs/certificates.md); nothing is written for an invalid certificate",
    )
    follow(
        parser,
        boards=True,
        board_help="only the board of this name: every certificate of CERT is checked against it "
        "(default: the board each certificate names; every answer of an answers file)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    boards, every = selected_names(args.files, args.board)
    cert = Path(args.certificate)
    items = _named(cert, _items(cert))
    first = next(items, None)
    if first is None:
        raise CertificateError(f"{cert}: holds no certificate and no answer")
    if first.answer:
        if args.lrat or args.export:
            raise CertificateError(f"{cert}: --lrat and --export take a drup or cubes certificate, not an answers file")
        return _check_answers(boards, every, itertools.chain([first], items), args)
    return _check_certificates(boards, every, itertools.chain([first], items), args)


@dataclass(frozen=True)
class Item:
    """One thing CERT holds, as it is read: an answer of an answers file (checked whole, a line at a time), or a
    certificate with the board it names, if any."""

    answer: bool
    line: int
    named: str | None
    record: dict[str, Any]


def _named(cert: Path, items: Iterator[Item]) -> Iterator[Item]:
    """The items, a reading error naming CERT once (a message may name the file already)."""
    try:
        yield from items
    except CertificateError as exc:
        said = str(exc)
        raise CertificateError(said if said.startswith(f"{cert}:") else f"{cert}: {said}") from None


def _check_certificates(boards: list[Board], every: set[str], items: Iterable[Item], args: argparse.Namespace) -> int:
    """Each certificate for a board picked checked for what its kind proves; one line each."""
    cert = Path(args.certificate)
    picked = {b.name for b in boards}
    all_valid, checked = True, 0
    for item in items:
        named, record = item.named, item.record
        if not (named is None or named in picked or named not in every):
            continue
        try:
            board = _choose(boards, args.board, named, args.files, cert)
        except CertificateError as exc:
            raise CertificateError(f"{cert}: {exc}") from None
        checked += 1
        start = time.perf_counter()
        try:
            verdict = check_claim(board, record, base=cert.parent)  # each kind for what it proves
            verdict = _travel(board, record, verdict, cert, args)
        except CertificateError as exc:
            raise CertificateError(f"{cert}: board {board.name!r}: {exc}") from None
        seconds = time.perf_counter() - start
        all_valid &= verdict.valid
        if args.json or not args.quiet:
            _print(board, record, verdict, seconds, args.json)
    if not checked:
        raise CertificateError(f"{cert}: holds no certificate for the boards picked")
    return 0 if all_valid else 3


def _travel(board: Board, record: dict[str, Any], verdict: Verdict, cert: Path, args: argparse.Namespace) -> Verdict:
    """With --lrat, the verdict of the LRAT re-check too; with --export, the pairs written (valid proofs only)."""
    if not (args.lrat or args.export) or not verdict.valid:
        return verdict
    from sigmar.runners.checking.travel import export, lrat_recheck

    if args.lrat:
        second = lrat_recheck(board, record, base=cert.parent)
        verdict = Verdict(second.valid, f"{verdict.reason}; {second.reason}", verdict.proves if second.valid else "")
    if args.export and verdict.valid:
        manifest = export(board, record, args.export, base=cert.parent)
        pairs = len(json.loads(manifest.read_text())["pairs"])
        said = f"{pairs} pair{'s' if pairs != 1 else ''} for a standard checker in {manifest}"
        verdict = Verdict(verdict.valid, f"{verdict.reason}; {said}", verdict.proves)
    return verdict


def _check_answers(boards: list[Board], every: set[str], answers: Iterable[Item], args: argparse.Namespace) -> int:
    """Every answer for a board picked checked, every board picked required; one line per answer, then the
    boards left out.  An answer for a board of the FILEs that was not picked is skipped.

    The file is streamed: an answer is read, checked and said before the next is read, and only the count of
    each outcome and the names answered are kept, so memory does not grow with the file."""
    by_name = {b.name: b for b in boards}
    cert = Path(args.certificate)
    base, source = cert.parent, str(cert)
    outcomes: Counter[str] = Counter()
    answered: set[str] = set()
    malformed: Finding | None = None
    for item in answers:
        line, record = item.line, item.record
        name = record.get("board")
        if not isinstance(name, str) or name not in every:
            raise CertificateError(
                f"{cert}: line {line}: an answer for board {name!r}, which is not in {', '.join(args.files)}"
            )
        if name not in by_name:
            continue
        board = by_name[name]
        for finding in [
            check_answer(board, record, line, base, source),
            *check_explained(board, record, line, base, source),
        ]:
            outcomes[finding.outcome] += 1
            answered.add(finding.board)
            if finding.outcome == "malformed" and malformed is None:
                malformed = finding
            _say(finding, args)
    left_out = missing_boards(boards, answered)
    for finding in left_out:
        outcomes[finding.outcome] += 1
        _say(finding, args)
    if left_out and not args.json and not args.quiet:
        names = ", ".join(repr(f.board) for f in left_out)
        print(f"{len(left_out)} board{'s' if len(left_out) != 1 else ''} without an answer: {names}")
    if any(outcomes[outcome] for outcome in FAILING):
        return 3
    if malformed is not None:
        where = f"{cert}: line {malformed.line}: board {malformed.board!r}"
        print(f"sigmar check: {where}: {malformed.why}", file=sys.stderr)
        return 2
    return 1 if outcomes["listed"] else 0


WORDS = {
    "valid": "valid",
    "invalid": "INVALID",
    "malformed": "MALFORMED",
    "unchecked": "NOT CHECKED",
    "listed": "listed",
    "missing": "MISSING",
}


def _say(finding: Finding, args: argparse.Namespace) -> None:
    if args.quiet and not args.json:
        return
    if args.json:
        line: dict[str, Any] = {"board": finding.board, "status": finding.status, "check": finding.outcome}
        if finding.part:
            line["part"] = finding.part
        line["valid"] = finding.outcome == "valid"
        if finding.kind:
            line["kind"] = finding.kind
        line["reason"] = finding.why
        line["check_seconds"] = round(finding.seconds, 4)
        print(json.dumps(line))
        return
    if finding.outcome == "missing":
        print(f"{finding.board}: MISSING: {finding.why}")
        return
    what = finding.status if finding.kind is None else f"{finding.status}, {finding.kind} certificate"
    if finding.part:
        what = f"{'deepest play' if finding.part == 'deepest' else finding.part}" + (
            "" if finding.kind is None else f", {finding.kind} certificate"
        )
    print(f"{finding.board}: {what} {WORDS[finding.outcome]}: {finding.why}")


def _print(board: Board, record: dict[str, Any], verdict: Verdict, seconds: float, as_json: bool) -> None:
    if as_json:
        line = {
            "board": board.name,
            "kind": record["kind"],
            "valid": verdict.valid,
            "proves": PROVES.get(str(record["kind"]), ""),
            "reason": verdict.reason,
            "check_seconds": round(seconds, 4),
        }
        print(json.dumps(line))
    else:
        word = "valid" if verdict.valid else "INVALID"
        print(f"{board.name}: {record['kind']} certificate {word} ({seconds:.3f} s): {verdict.reason}")


def _items(cert: Path) -> Iterator[Item]:
    """The certificates in CERT, each with the board name it carries; or the answers of an answers file, read a
    line at a time as they are checked."""
    try:
        if cert.name.endswith(".drup"):
            input_limits.regular_size(cert, input_limits.DRUP)
            yield Item(False, 1, _sidecar_board(cert), {"kind": "drup", "file": str(cert)})
            return
        if cert.name.endswith(".drcp"):
            input_limits.regular_size(cert, input_limits.DRCP)
            yield Item(False, 1, _model_board(cert), {"kind": "drcp", "file": str(cert)})
            return
        if cert.name.endswith(".cubes"):
            board, _ = read_split(cert)  # read under the cubes file's own limit
            yield Item(False, 1, board, {"kind": "cubes", "file": str(cert)})
            return
        # The kind is on line 1, and each kind has its own ceiling: line 1 is read first, then the size is held
        # to that kind's limit before any other line is read.
        with input_limits.open_input(cert, FIRST_LINE) as stream:
            numbered = input_limits.lines(stream, ANSWERS)
            _, first = next(numbered, (1, ""))
            try:
                head = input_limits.json_value(first, cert, 1)
            except InputError:
                raise CertificateError(
                    "line 1: neither a dead-states or play-bound file, a .drup proof nor sigmar's JSON"
                ) from None
            kind = FILE_KINDS.get(str(head.get("format"))) if isinstance(head, dict) else None
            if kind is not None:  # a play-bound file is read as a dead-states file is, with its ceiling
                input_limits.regular_size(cert, DEAD_STATES)
                name = head.get("board")
                yield Item(False, 1, name if isinstance(name, str) else None, {"kind": kind, "file": str(cert)})
                return
            input_limits.regular_size(cert, ANSWERS)
            yield from _json_lines(cert, [(1, head)], numbered)
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


def _json_lines(cert: Path, head: list[tuple[int, Any]], rest: Iterator[tuple[int, str]]) -> Iterator[Item]:
    """Bare certificate objects (each has a ``kind``), or answers (each has a ``status``), read a line at a time;
    not both in one file."""
    answers = certificates = False

    def records() -> Iterator[tuple[int, Any]]:
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
        if is_answer(record):
            if certificates:
                raise CertificateError(f"line {number}: an answer after bare certificates; give them in two files")
            answers = True
            yield Item(True, number, None, record)
        elif answers:
            raise CertificateError(f'line {number}: not an answer (no "status"), in a file of answers')
        elif "kind" in record:
            certificates = True
            yield Item(False, number, None, record)
        else:
            raise CertificateError(f'line {number}: neither an answer (no "status") nor a certificate (no "kind")')
    if not answers and not certificates:
        raise CertificateError("holds no certificate and no answer")


def _choose(boards: list[Board], wanted: str | None, named: str | None, files: list[str], cert: Path) -> Board:
    """The board a certificate is for: --board, else the name it carries, else the FILEs' only board."""
    name = wanted if wanted is not None else named
    file = ", ".join(files)
    if name is not None:
        for board in boards:
            if board.name == name:
                return board
        if wanted is not None or len(boards) > 1:
            raise CertificateError(f"{file} has no board named {name!r}")
    if len(boards) == 1:
        return boards[0]
    raise CertificateError(f"{file} holds {len(boards)} boards and the certificate names none: use --board NAME")
