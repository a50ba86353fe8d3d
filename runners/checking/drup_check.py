"""Check a ``drup`` certificate: a DRUP proof that refutes the board's own formula.

The board is encoded afresh with the default CNF encoding; the certificate's
``NAME.cnf`` and ``NAME.vars.json`` must be that formula exactly
(:mod:`.same_formula`; else the proof may refute some other formula, for
instance one with an empty clause added), and the proof is then checked by
reverse unit propagation (:mod:`.rup_check`) against the fresh clauses, never
the file's.  The fresh formula comes from the CNF encoder, so this check
shares the encoding with the ``cnf`` backend (docs/prove.md says why that is
acceptable); it shares nothing else.
"""

from __future__ import annotations

import mmap
from array import array
from pathlib import Path
from typing import Any

from sigmar.models import drat_binary, input_limits
from sigmar.models.board import Board
from sigmar.models.input_limits import DRUP, InputError
from sigmar.runners.checking.fresh_formula import fresh
from sigmar.runners.checking.rup_check import check_proof
from sigmar.runners.checking.same_formula import formula_text_verdict, formula_verdict
from sigmar.runners.checking.verdict import CertificateError, Verdict


def drup_files(drup: Path) -> tuple[Path, Path]:
    """The formula and the variable map beside ``NAME.drup``."""
    stem = drup.name[: -len(".drup")] if drup.name.endswith(".drup") else drup.stem
    return drup.with_name(stem + ".cnf"), drup.with_name(stem + ".vars.json")


def check_drup(board: Board, drup: Path, texts: dict[str, str] | None = None) -> Verdict:
    """The proof refutes this board's own formula (re-encoded here), by reverse unit propagation.

    The formula and its variable map are refused unread when they are larger than this board's
    could be; the proof is mapped, not read, and streamed through the checker.  ``texts``: the
    certificate's files as the runner holds them (``.drup``, ``.cnf``, ``.vars.json``), checked in
    memory (``drup`` then only names them); a binary proof is read from its file.
    """
    if texts is not None and not drat_binary.is_binary(texts[".drup"][: drat_binary.SNIFF].encode()):
        return _check_texts(board, drup, texts)
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
                report = check_proof(own.flat, b"", formula.nv)
            else:
                with mmap.mmap(stream.inner.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                    mapped.madvise(mmap.MADV_SEQUENTIAL)
                    if drat_binary.is_binary(mapped[: drat_binary.SNIFF]):  # CaDiCaL's and Kissat's default
                        report = _check_binary(own.flat, formula.nv, mapped, drup)
                    else:
                        skip = len(input_limits.BOM) if mapped[:3] == input_limits.BOM else 0
                        with memoryview(mapped) as view:
                            report = check_proof(own.flat, view[skip:], formula.nv)
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


def _check_texts(board: Board, drup: Path, texts: dict[str, str]) -> Verdict:
    cnf_path, vars_path = drup_files(drup)
    own = fresh(board)
    wrong = formula_text_verdict(own, texts[".cnf"], texts[".vars.json"], cnf_path, vars_path)
    if wrong is not None:
        return wrong
    proof = texts[".drup"].encode()
    if len(proof) > DRUP.bytes:  # the limit a proof file has
        raise CertificateError(str(InputError(drup, DRUP.too_large(f"{len(proof):,}"))))
    skip = len(input_limits.BOM) if proof[:3] == input_limits.BOM else 0
    with memoryview(proof) as view:
        report = check_proof(own.flat, view[skip:], own.formula.nv)
    if report.malformed:
        raise CertificateError(f"{drup}: {report.message}")
    return Verdict(report.valid, f"{drup.name}: {report.message} ({report.lemmas:,} lemmas)")


def _check_binary(clauses: array[int], nv: int, mapped: mmap.mmap, drup: Path) -> Any:
    """A binary DRAT proof checked as the text it reads as: converted a chunk at a time into a temporary
    file, which is then mapped as a text proof is (memory is a chunk and the map, not the proof many
    times over)."""
    import tempfile

    try:
        with tempfile.TemporaryFile(prefix="sigmar-drat-") as text:
            drat_binary.convert(mapped, text)  # type: ignore[arg-type]  # an mmap reads as a file does
            text.flush()
            if text.tell() == 0:
                return check_proof(clauses, b"", nv)
            with mmap.mmap(text.fileno(), 0, access=mmap.ACCESS_READ) as converted:
                converted.madvise(mmap.MADV_SEQUENTIAL)
                with memoryview(converted) as view:
                    return check_proof(clauses, view, nv)
    except OSError as exc:  # a full or unwritable temporary folder: the check could not be made
        why = exc.strerror or str(exc)
        raise CertificateError(
            f"{drup}: cannot write the text of a binary DRAT proof to {tempfile.gettempdir()}: {why}"
        ) from None
