"""Certificates through the runner: write what a backend sent, have it checked independently.

A backend returns its certificate as texts (docs/formats.md#certificates: a stuck set's cells, a
dead-states file, a DRUP proof with its formula).  The runner writes them to
its proof folder, so that a killed backend never leaves a half-written file
and two backends never write the same name, and then asks
:func:`sigmar.runners.checking.certificates.check_certificate`, which shares no code with
any backend.  Only a certificate that passed makes an "unsolvable" an answer.

The check reads the texts the runner holds, the very ones it wrote, rather than read its own
files back (the files are for the user, and for a second checker such as ``prove``'s); a cubes
certificate, whose check follows the files of many nodes, is read from its files.
"""

from __future__ import annotations

import os
import time
from types import TracebackType

from sigmar.models.board import Board
from sigmar.models.result import CERTIFICATE_SUFFIXES, Certificate, CertificateKind, Reason, Result, Status

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from sigmar.encoders.order_model import OrderModel


def proof_stem(board: Board) -> str:
    """A file stem for the board: its name made file-safe, and a short hash of its tiles.

    Two boards that share a name (two files, or two runs on one folder) get
    different stems; the same board always gets the same one.
    """
    import hashlib
    import re

    from sigmar.models.boardfile import format_board

    name = re.sub(r"[^A-Za-z0-9._-]+", "_", board.name).strip("._-")[:80] or "board"
    digest = hashlib.sha256(format_board(board, with_name=False).encode()).hexdigest()[:10]
    return f"{name}-{digest}"


class ProofStore:
    """The folder certificate files go to: ``--proof-dir``, or a temporary one removed on close.

    The temporary folder is made when a certificate is first written (most runs of a solvable board
    write none, and a one-board solve should not pay for ``tempfile`` and a folder it never uses).
    """

    def __init__(self, directory: Path | None = None) -> None:
        self._directory = directory
        self._temporary: Any = None  # a tempfile.TemporaryDirectory, once made
        self._path: Path | None = None
        if directory is not None:
            self.path.mkdir(parents=True, exist_ok=True)  # a --proof-dir that cannot be made: said at the start
        self._used: set[str] = set()

    @property
    def path(self) -> Path:
        """The folder, made now if it is the temporary one and not made yet."""
        if self._path is None:
            if self._directory is not None:
                self._path = self._directory
            else:
                import tempfile
                from pathlib import Path

                from sigmar.encoders.processes.lifetime import guard_folder

                guard_folder()  # certificates kept in the run's folder: its janitor first
                self._temporary = tempfile.TemporaryDirectory(prefix="sigmar-proofs-")
                self._path = Path(self._temporary.name)
        return self._path

    @property
    def kept(self) -> bool:
        """Whether the files outlive the run (a ``--proof-dir`` was given)."""
        return self._directory is not None

    def close(self) -> None:
        if self._temporary is not None:
            self._temporary.cleanup()

    def __enter__(self) -> ProofStore:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _claim(self, board: Board, suffixes: tuple[str, ...]) -> str:
        """A stem whose files nobody else writes: each file created empty and exclusively (``O_EXCL``).

        Another backend of this run, or another run sharing ``--proof-dir``, that
        wants the same stem finds a file there and takes ``STEM-2`` (and so on), so
        every run checks and reports the files it wrote itself.
        """
        base = proof_stem(board)
        for n in range(1, 10_000):
            stem = base if n == 1 else f"{base}-{n}"
            if stem in self._used:
                continue
            claimed: list[Path] = []
            try:
                for suffix in suffixes:
                    target = self.path / f"{stem}{suffix}"
                    os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
                    claimed.append(target)
            except FileExistsError:
                for target in claimed:
                    target.unlink(missing_ok=True)
                continue
            except OSError as exc:  # a full or read-only proof folder: one line, exit 2
                for target in claimed:
                    target.unlink(missing_ok=True)
                from sigmar.models.output_files import cannot_write

                raise cannot_write(self.path / f"{stem}{suffixes[0]}", exc) from None
            self._used.add(stem)
            return stem
        raise OSError(f"no free name for the proof of {board.name} in {self.path}")

    def write(self, board: Board, certificate: Certificate) -> Certificate:
        """The certificate with its texts written (each atomically) and ``file`` naming the main one."""
        if not certificate.texts:
            return certificate
        suffixes = CERTIFICATE_SUFFIXES.get(certificate.kind, tuple(certificate.texts))
        main = self.write_texts(board, certificate.texts, suffixes)
        return Certificate(certificate.kind, certificate.cells, str(main), temporary=not self.kept)

    def write_texts(self, board: Board, texts: dict[str, str], suffixes: tuple[str, ...] = ()) -> Path:
        """Files ``STEM + suffix`` for each of ``texts`` (each written atomically); the path of the first of
        ``suffixes`` (default: of ``texts``), which names them all."""
        suffixes = suffixes or tuple(texts)
        claimed = tuple(dict.fromkeys((*suffixes, *texts)))
        stem = self._claim(board, claimed)
        try:
            for suffix, text in texts.items():
                from sigmar.models.output_files import write_file  # only where a certificate is written

                write_file(self.path / f"{stem}{suffix}", text)  # each whole or not at all
        except BaseException:  # no empty placeholders left behind
            for suffix in claimed:
                (self.path / f"{stem}{suffix}").unlink(missing_ok=True)
            raise
        return self.path / f"{stem}{suffixes[0]}"


def with_formula(board: Board, certificate: Certificate, model: OrderModel | None = None) -> Certificate:
    """A proof certificate with the runner's own encoding of the board beside the proof.

    The prover sends only what only it knows, the proof: what it refutes is the board's
    own encoding, which the check builds afresh anyway (and requires the file to equal),
    so the runner writes it rather than have the prover print and send it.  ``drup``: the
    default CNF as ``NAME.cnf`` and ``NAME.vars.json`` (printing them took the prover
    0.04-0.06 s on a side-6 board, on the way to every DRUP answer); ``drcp``: the order
    model as ``NAME.drcp-model``, always the runner's, whatever the prover sent (``model``: the board's
    order model when the caller has it).
    """
    if certificate.kind is CertificateKind.DRCP:
        from sigmar.encoders import order_model

        text = (model if model is not None else order_model.build(board)).text()
        return certificate.replace(texts={**certificate.texts, ".drcp-model": text})
    if certificate.kind is not CertificateKind.DRUP or ".cnf" in certificate.texts:
        return certificate
    from sigmar.runners.checking.fresh_formula import fresh

    own = fresh(board)
    return certificate.replace(texts={**certificate.texts, ".cnf": own.text, ".vars.json": own.sidecar})


def certify(board: Board, result: Result, store: ProofStore) -> Result:
    """An "unsolvable" answer with its certificate written and checked; any other answer unchanged.

    ``result`` has passed :func:`.replay.replayed`, so ``checked`` is False whatever the backend said:
    every certificate is checked here, never taken on the backend's word.
    """
    if result.status is not Status.UNSOLVABLE:
        return result
    certificate = result.certificate
    if certificate is None and result.reason is Reason.COUNTS:
        certificate = Certificate(CertificateKind.COUNTS)
    if certificate is None:
        return result
    # Imported only for an "unsolvable": a solvable board's run needs none of the checkers (and each kind's
    # checker only when one comes: the first stuck set of a batch imported them all, some 45 ms).
    from sigmar.runners.checking.certificates import check_certificate
    from sigmar.runners.checking.verdict import CertificateError

    # The texts written are the texts checked, from memory: no file of the runner's is read back, and
    # a drcp certificate's order model is built once, for its file and its check.
    model = None
    if certificate.kind is CertificateKind.DRCP:
        from sigmar.encoders import order_model

        model = order_model.build(board)
    full = with_formula(board, certificate, model)
    certificate = store.write(board, full)
    texts = full.texts if full.texts and full.kind is not CertificateKind.CUBES else None
    start = time.perf_counter()
    try:
        verdict = check_certificate(board, {**certificate.json(), "file": certificate.file}, texts=texts, model=model)
        valid, why = verdict.unsolvable, verdict.reason
    except CertificateError as exc:
        valid, why = False, str(exc)
    finally:
        if certificate.kind is CertificateKind.DRUP:
            from sigmar.runners.checking.fresh_formula import release

            release(board)
    seconds = time.perf_counter() - start
    if valid:
        return result.with_(certificate=certificate, checked=True, check_seconds=seconds)
    message = f"{result.backend}'s {certificate.kind} certificate was rejected: {why}"
    return result.with_(certificate=certificate, checked=False, check_seconds=seconds, message=message)
