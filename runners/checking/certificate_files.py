"""Check a certificate as an answer's JSON prints it: ``{"kind": ..., "file": ..., "cells": ...}``.

The formats: docs/formats.md#certificates.

``counts``, ``stuck`` and ``dead-states`` go to :mod:`sigmar.models.certificate_checker`, ``play-bound``
(``explain``'s bound on the deepest play) to :mod:`sigmar.models.play_bound_checker`,
``cubes`` to :mod:`sigmar.runners.checking.cubes_check`.
``drup`` is checked here: the board is encoded afresh with the default CNF
encoding, the certificate's ``NAME.cnf`` and ``NAME.vars.json`` must be that
formula exactly (:mod:`.same_formula`; else the proof may refute some other
formula, for instance one with an empty clause added), and the proof is then
checked by reverse unit propagation against the fresh clauses, never the file's.
``drcp`` likewise: the board's order model is built afresh, ``NAME.drcp-model``
must be its text, and the proof is checked against the fresh model
(:mod:`sigmar.runners.checking.drcp_check`).
"""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import Any

from sigmar.encoders import order_model
from sigmar.models import drat_binary, input_limits
from sigmar.models.board import Board
from sigmar.models.certificate_checker import CertificateError, Verdict, check_counts, check_dead_states, check_stuck
from sigmar.models.hexgrid import from_rowcol
from sigmar.models.input_limits import DRCP, DRCP_MODEL, DRUP, InputError
from sigmar.models.play_bound_checker import check_play_bound
from sigmar.models.result import CertificateKind

from . import drcp_check
from .fresh_formula import fresh
from .rup_check import check_proof
from .same_formula import formula_verdict, read_bounded

KINDS = tuple(str(kind) for kind in CertificateKind)
# The play-bound file of ``explain`` (docs/formats.md#play-bound-files): no play clears more than its tiles.
PLAY_BOUND = "play-bound"


def check_certificate(board: Board, certificate: dict[str, Any], base: Path | None = None) -> Verdict:
    """Whether ``certificate`` proves ``board`` unsolvable; CertificateError when it is malformed.

    A relative ``file`` is read from the working folder, else from ``base``.
    """
    named = certificate.get("kind")
    if named == PLAY_BOUND:  # not a "no" for the whole board but for clearing more than its tiles
        return check_play_bound(board, _file(certificate, base))
    if not isinstance(named, str) or named not in KINDS:
        expected = ", ".join((*KINDS, PLAY_BOUND))
        raise CertificateError(f"unknown certificate kind {named!r} (expected one of {expected})")
    kind = CertificateKind(named)
    if kind is CertificateKind.COUNTS:
        return check_counts(board)
    if kind is CertificateKind.STUCK:
        return check_stuck(board, _cells(board, certificate.get("cells")))
    path = _file(certificate, base)
    if kind is CertificateKind.DEAD_STATES:
        return check_dead_states(board, path)
    if kind is CertificateKind.DRCP:
        return check_drcp(board, path)
    if kind is CertificateKind.CUBES:
        from .cubes_check import check_cubes  # it reads the formula with this module's helpers

        return check_cubes(board, path)
    return check_drup(board, path)


def _cells(board: Board, cells: object) -> list[tuple[int, int]]:
    if not isinstance(cells, list) or not cells:
        raise CertificateError('a stuck certificate needs "cells": a nonempty list of [row, col]')
    out = []
    for i, pair in enumerate(cells):
        if not (isinstance(pair, list) and len(pair) == 2 and all(type(x) is int and 0 <= x < 10_000 for x in pair)):
            raise CertificateError(f'"cells" item {i} is not a [row, col] pair of non-negative integers')
        try:
            out.append(from_rowcol(pair[0], pair[1], board.dim))
        except ValueError as exc:
            raise CertificateError(f'"cells" item {i} [{pair[0]}, {pair[1]}]: {exc}') from None
    if len(set(out)) != len(out):
        raise CertificateError('"cells" names a cell twice')
    return out


def _file(certificate: dict[str, Any], base: Path | None) -> Path:
    name = certificate.get("file")
    if not isinstance(name, str) or not name:
        raise CertificateError(f'a {certificate.get("kind")} certificate needs "file"')
    path = Path(name)
    if not path.is_file() and base is not None and not path.is_absolute() and (base / path).is_file():
        path = base / path  # a path relative to the folder of the JSON that names it
    if not path.is_file():
        why = "not a regular file" if path.exists() else "no such certificate file"
        raise CertificateError(f"{path}: {why}")
    return path


def drup_files(drup: Path) -> tuple[Path, Path]:
    """The formula and the variable map beside ``NAME.drup``."""
    stem = drup.name[: -len(".drup")] if drup.name.endswith(".drup") else drup.stem
    return drup.with_name(stem + ".cnf"), drup.with_name(stem + ".vars.json")


def check_drup(board: Board, drup: Path) -> Verdict:
    """The proof refutes this board's own formula (re-encoded here), by reverse unit propagation.

    The formula and its variable map are refused unread when they are larger than this board's
    could be; the proof is mapped, not read, and streamed through the checker.
    """
    cnf_path, vars_path = drup_files(drup)
    for path in (cnf_path, vars_path):
        if not path.exists():
            raise CertificateError(
                f"{path}: missing (a drup certificate is NAME.drup with NAME.cnf and NAME.vars.json)"
            )
    own = fresh(board)  # made ahead by the race while the prover was still at work, or now
    formula = own.formula
    wrong = formula_verdict(own, cnf_path, vars_path)
    if wrong is not None:
        return wrong
    try:
        with input_limits.open_input(drup, DRUP) as stream:
            size = input_limits.regular_size(drup, DRUP)
            if size == 0:
                report = check_proof(formula.clauses, b"", formula.nv)
            else:
                with mmap.mmap(stream.inner.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                    mapped.madvise(mmap.MADV_SEQUENTIAL)
                    if drat_binary.is_binary(mapped[: drat_binary.SNIFF]):  # CaDiCaL's and Kissat's default
                        report = check_proof(formula.clauses, drat_binary.to_text(mapped[:]), formula.nv)
                    else:
                        skip = len(input_limits.BOM) if mapped[:3] == input_limits.BOM else 0
                        with memoryview(mapped) as view:
                            report = check_proof(formula.clauses, view[skip:], formula.nv)
    except InputError as exc:
        raise CertificateError(str(exc)) from None
    except drat_binary.DratError as exc:
        raise CertificateError(f"{drup}: a binary DRAT proof that does not parse: {exc}") from None
    except MemoryError:
        why = "the proof needs more memory than there is; see docs/formats.md, 'Limits'"
        raise CertificateError(f"{drup}: {why}") from None
    if report.malformed:
        raise CertificateError(f"{drup}: {report.message}")
    return Verdict(report.valid, f"{drup.name}: {report.message} ({report.lemmas:,} lemmas)")


def drcp_model_file(drcp: Path) -> Path:
    """The model beside ``NAME.drcp``."""
    stem = drcp.name[: -len(".drcp")] if drcp.name.endswith(".drcp") else drcp.stem
    return drcp.with_name(stem + ".drcp-model")


def check_drcp(board: Board, drcp: Path) -> Verdict:
    """The DRCP proof refutes this board's order model, built here afresh; ``NAME.drcp-model`` must be its text.

    The model file is refused unread when it is larger than this board's could be; the proof is
    read a line at a time, and checked against the fresh model, never the file's.
    """
    model_path = drcp_model_file(drcp)
    if not model_path.exists():
        raise CertificateError(f"{model_path}: missing (a drcp certificate is NAME.drcp with NAME.drcp-model)")
    model = order_model.build(board)
    own = model.text()
    try:
        text = read_bounded(model_path, DRCP_MODEL, len(own.encode()) + input_limits.DRCP_MODEL_SLACK_BYTES)
    except InputError as exc:
        raise CertificateError(str(exc)) from None
    mismatch = _model_mismatch(own, text)
    if mismatch:
        return Verdict(False, f"{model_path.name} is not this board's order model: {mismatch}")
    try:
        with input_limits.open_input(drcp, DRCP) as stream:
            report = drcp_check.check(model, input_limits.lines(stream, DRCP))
    except InputError as exc:
        raise CertificateError(str(exc)) from None
    except drcp_check.DrcpFormatError as exc:
        raise CertificateError(f"{drcp}: {exc}") from None
    counted = f"{report.inferences:,} inferences, {report.nogoods:,} nogoods"
    return Verdict(report.valid, f"{drcp.name}: {report.message} ({counted})")


def _model_mismatch(own: str, text: str) -> str:
    """Where ``text`` (a model file) departs from ``own`` (the board's model), else ""; comments and blank lines
    aside."""
    expected = own.splitlines()
    found = [(n, line.rstrip()) for n, line in enumerate(text.splitlines(), 1) if line.strip() and line[:1] != "#"]
    for (number, line), want in zip(found, expected, strict=False):
        if line != want:
            at = next(
                (k for k, (a, b) in enumerate(zip(line, want, strict=False)) if a != b), min(len(line), len(want))
            )
            return f"line {number} has {_around(line, at)!r} where the board's model has {_around(want, at)!r}"
    if len(found) != len(expected):
        return f"{len(found)} lines, the board's model has {len(expected)}"
    return ""


def _around(line: str, at: int) -> str:
    """The part of ``line`` about column ``at``, where two lines first differ."""
    start = max(at - 30, 0)
    return ("..." if start else "") + line[start : at + 30] + ("..." if at + 30 < len(line) else "")
