"""A python-sat Glucose solver's DRUP proof, logged to memory and read a stretch at a time.

Why not ``Solver(with_proof=True)``: python-sat logs the proof to a temporary file in
TMPDIR and its C code ignores a failed write, so on a full disk the proof came back cut
short, its check failed, and a sound refutation was reported as a wrong answer (issue 47,
S6).  Here the proof goes to an anonymous in-memory file (``memfd``, on Linux; elsewhere a
temporary file): no folder fills up while a proof is made.  After each call to the solver
the log is flushed, the new text read, and the file emptied, so memory holds one stretch,
not the whole proof; a write the solver could not make is detected (one more byte is
written after its text: if that write fails, so may have the solver's) and raised as
:class:`ProofWriteError`, a "cannot write" with exit status 2, never a wrong answer.

Reading a stretch after each call is also what a solver kept warm across several calls
needs (``prove --cubes``: each call's stretch is one node's proof).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from functools import partial
from typing import Any, BinaryIO

from sigmar.models.output_files import OutputError

# python-sat's name of each Glucose's C functions (``pysolvers.<prefix>_tracepr``).
TRACE_PREFIX = {"glucose3": "glucose3", "glucose4": "glucose41", "glucose42": "glucose421"}


def clause_adder(solver: Any, name: str) -> Callable[[list[int]], object]:
    """A function adding one clause to ``solver`` (a python-sat Glucose) by its C call alone.

    Why: python-sat's ``add_clause`` is a Python method around that call; loading a side-8 board's
    153,000 clauses through it took a third longer, and a cube-and-conquer split loads the formula
    into a solver at every node that does not go on in its parent's (issue 49).  The solver's status
    is not kept up to date by this (python-sat sets it False when a clause makes the formula
    unsatisfiable at once); Glucose keeps its own, and its next solve answers False.
    """
    from pysat import solvers

    prefix = TRACE_PREFIX.get(name)
    if prefix is None:
        raise ValueError(f"no direct clause adding for {name!r} (one of {', '.join(TRACE_PREFIX)})")
    add, handle = getattr(solvers.pysolvers, f"{prefix}_add_cl"), solver.solver.glucose
    return partial(add, handle)  # no Python frame a clause (a lambda's took a third of the loading)


class ProofWriteError(OutputError):
    """The solver's proof could not be written whole (a full disk or memory, a file-size limit)."""


class ProofLog:
    """Logs ``solver``'s DRUP proof (a python-sat Glucose made with ``with_proof=False``) to memory."""

    def __init__(self, solver: Any, name: str) -> None:
        from pysat import solvers

        prefix = TRACE_PREFIX.get(name)
        if prefix is None:
            raise ValueError(f"no proof log for {name!r} (one of {', '.join(TRACE_PREFIX)})")
        self._pysolvers = solvers.pysolvers
        self._file = _memory_file()
        self._fd = self._file.fileno()
        inner = solver.solver  # the solver python-sat wraps; its C handle is ``glucose``
        self._trace = getattr(self._pysolvers, f"{prefix}_tracepr")(inner.glucose, self._file)
        self.written = 0  # bytes read so far, over every stretch

    def read(self) -> bytes:
        """The proof text written since the last read; ProofWriteError when some of it could not be."""
        self._pysolvers.flushpr(self._trace)
        size = os.fstat(self._fd).st_size
        text = os.pread(self._fd, size, 0) if size else b""
        try:
            os.write(self._fd, b"\n")  # the solver's writes went through only if this one does too
            os.ftruncate(self._fd, 0)
            os.lseek(self._fd, 0, os.SEEK_SET)
        except OSError as exc:
            raise ProofWriteError(f"cannot write the solver's proof: {exc.strerror or exc}") from None
        if len(text) != size:
            raise ProofWriteError("cannot write the solver's proof: it was read short")
        self.written += size
        return text

    def close(self) -> None:
        """Close the log's file (after the solver is deleted: its C log writes to it until then)."""
        self._file.close()


def _memory_file() -> BinaryIO:
    if hasattr(os, "memfd_create"):
        return open(os.memfd_create("sigmar-proof", os.MFD_CLOEXEC), "w+b", buffering=0)
    return tempfile.TemporaryFile(buffering=0)
