"""Check a certificate as SPEC §4 prints it: ``{"kind": ..., "file": ..., "cells": ...}``.

``counts``, ``stuck`` and ``dead-states`` go to :mod:`sigmar.models.certificate_checker`.
``drup`` is checked here: the board is encoded afresh with the default CNF
encoding, the certificate's ``NAME.cnf`` and ``NAME.vars.json`` must be that
formula exactly (else the proof may refute some other formula, for instance
one with an empty clause added), and the proof is then checked by reverse
unit propagation against the fresh clauses, never the file's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sigmar.models.board import Board
from sigmar.models.certificate_checker import CertificateError, Verdict, check_counts, check_dead_states, check_stuck
from sigmar.models.hexgrid import from_rowcol
from sigmar.models.result import CertificateKind

from .fresh_formula import fresh
from .rup_check import ProofFormatError, check_proof, parse_dimacs

KINDS = tuple(str(kind) for kind in CertificateKind)


def check_certificate(board: Board, certificate: dict[str, Any], base: Path | None = None) -> Verdict:
    """Whether ``certificate`` proves ``board`` unsolvable; CertificateError when it is malformed.

    A relative ``file`` is read from the working folder, else from ``base``.
    """
    named = certificate.get("kind")
    if not isinstance(named, str) or named not in KINDS:
        raise CertificateError(f"unknown certificate kind {named!r} (expected one of {', '.join(KINDS)})")
    kind = CertificateKind(named)
    if kind is CertificateKind.COUNTS:
        return check_counts(board)
    if kind is CertificateKind.STUCK:
        return check_stuck(board, _cells(board, certificate.get("cells")))
    path = _file(certificate, base)
    if kind is CertificateKind.DEAD_STATES:
        return check_dead_states(board, path)
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
        raise CertificateError(f"{path}: no such certificate file")
    return path


def drup_files(drup: Path) -> tuple[Path, Path]:
    """The formula and the variable map beside ``NAME.drup``."""
    stem = drup.name[: -len(".drup")] if drup.name.endswith(".drup") else drup.stem
    return drup.with_name(stem + ".cnf"), drup.with_name(stem + ".vars.json")


def check_drup(board: Board, drup: Path) -> Verdict:
    """The proof refutes this board's own formula (re-encoded here), by reverse unit propagation."""
    cnf_path, vars_path = drup_files(drup)
    for path in (cnf_path, vars_path):
        if not path.is_file():
            raise CertificateError(
                f"{path}: missing (a drup certificate is NAME.drup with NAME.cnf and NAME.vars.json)"
            )
    try:
        text = cnf_path.read_text(encoding="utf-8")
        names = json.loads(vars_path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise CertificateError(f"{cnf_path.parent}: {exc}") from None
    own = fresh(board)  # made ahead by the race while the prover was still at work, or now
    formula = own.formula
    if _body(text) != own.body:  # the fast path compares text
        try:
            variables, clauses = parse_dimacs(text)
        except ProofFormatError as exc:
            raise CertificateError(f"{cnf_path}: {exc}") from None
        mismatch = _formula_mismatch(formula.nv, formula.clauses, variables, clauses)
        if mismatch:
            return Verdict(False, f"{cnf_path.name} is not this board's formula: {mismatch}")
    summary = ("variant", "dim", "tiles", "horizon", "variables", "clauses")
    expected = json.loads(formula.sidecar(with_names=False))
    if not isinstance(names, dict) or any(names.get(key) != expected[key] for key in summary):
        return Verdict(False, f"{vars_path.name} does not describe this board's formula")
    try:
        proof = drup.read_bytes()
    except OSError as exc:
        raise CertificateError(f"{drup}: {exc}") from None
    report = check_proof(formula.clauses, proof, formula.nv)
    if report.malformed:
        raise CertificateError(f"{drup}: {report.message}")
    return Verdict(report.valid, f"{drup.name}: {report.message} ({report.lemmas:,} lemmas)")


def _body(dimacs: str) -> str:
    """A DIMACS text from its ``p cnf`` line on (comments before it do not count)."""
    if dimacs.startswith("p cnf "):
        return dimacs
    at = dimacs.find("\np cnf ")
    return dimacs[at + 1 :] if at >= 0 else ""


def _formula_mismatch(nv: int, expected: list[list[int]], variables: int, clauses: list[list[int]]) -> str:
    if variables != nv:
        return f"{variables} variables, the board's encoding has {nv}"
    want = sorted(tuple(sorted(c)) for c in expected)
    have = sorted(tuple(sorted(c)) for c in clauses)
    if want == have:
        return ""
    missing = sorted(set(want) - set(have))
    extra = sorted(set(have) - set(want))
    if missing:
        return f"clause {' '.join(map(str, missing[0]))} 0 of the board's encoding is missing"
    if extra:
        return f"clause {' '.join(map(str, extra[0])) or '(empty)'} 0 is not in the board's encoding"
    return f"{len(clauses)} clauses, the board's encoding has {len(expected)}"
