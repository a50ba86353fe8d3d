"""A MiniZinc driver whose ``minizinc`` runs under a guard (see :mod:`guard`).

Why: MiniZinc starts ``fzn-gecode`` in a process group of its own, so killing
``minizinc`` (or the worker above it) with SIGKILL used to leave
``fzn-gecode`` running under init.  Under the guard, ``fzn-gecode`` becomes
the guard's child when ``minizinc`` dies, and the guard kills it.  Each run
also gets its own temporary folder (``TMPDIR`` for ``minizinc``, where its
``.fzn`` and ``.ozn`` files go), which the guard removes on every exit.

MiniZinc's warnings (``model inconsistency detected``: the compiler alone
refuted the model) are taken off the run's output stream before the
minizinc package sees them, which would pass them on as Python warnings
printed on stderr; they go into the run's ``notes`` (:data:`NOTES`), which
the backend puts in the answer's statistics.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import os
import sys
import tempfile
import weakref
from asyncio.subprocess import PIPE, Process, SubprocessStreamProtocol
from pathlib import Path
from typing import Any

import minizinc

from sigmar.encoders.processes.guard import guarded

# The warnings MiniZinc printed during the current run (set by the backend around each run).
NOTES: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("sigmar_minizinc_notes", default=None)

# The processes each event loop started, until reap_started() has seen them end.
_started: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, set[Process]] = weakref.WeakKeyDictionary()


async def reap_started(grace: float = 3.0) -> None:
    """Stop and wait for every solver this loop started that is still running.

    Why: a cancel that lands while the minizinc package is still starting a solver (after
    the process exists, before its own clean-up is in force) leaves the process to nobody;
    the loop then closes with it alive, and asyncio prints "Event loop is closed"
    tracebacks when the process ends.  Called before the loop closes, this reaps it.
    """
    for proc in _started.pop(asyncio.get_running_loop(), set()):
        if proc.returncode is not None:
            continue
        try:
            proc.terminate()  # the guard kills the solver's tree and exits
            await asyncio.wait_for(proc.wait(), grace)
        except ProcessLookupError:
            pass
        except TimeoutError:
            proc.kill()
            await proc.wait()


class _LateExitFilter(logging.Filter):
    """Drops asyncio's notes on a solver that ended after its event loop had closed."""

    NOTES = ("Unknown child process pid", "Loop %r that handles pid")

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(self.NOTES)


_quieted = False


def quiet_late_exits() -> None:
    """Keep the notes of asyncio on late solver exits off stderr (once per process).

    A race stops MiniZinc runs that lose; rarely (2 of 1,000 side-8 survey boards) a
    stopped run's guard ends after its event loop has closed, and asyncio then logs
    "Loop ... that handles pid ... is closed" and prints an "Event loop is closed"
    traceback from the transport's ``__del__``: noise with no error behind it (the
    guard has killed the solver, and the worker goes on).  reap_started() closes the
    cases found; this keeps any other from reaching the user as a traceback.
    """
    global _quieted
    if _quieted:
        return
    _quieted = True
    logging.getLogger("asyncio").addFilter(_LateExitFilter())
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        late = isinstance(unraisable.exc_value, RuntimeError) and str(unraisable.exc_value) == "Event loop is closed"
        if late and "SubprocessTransport" in repr(unraisable.object):
            return
        previous(unraisable)

    sys.unraisablehook = hook


def warning_of(line: bytes) -> str | None:
    """The message of a ``--json-stream`` warning line (None for any other line)."""
    if b'"warning"' not in line:
        return None
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if isinstance(obj, dict) and (obj.get("type") == "warning" or obj.get("what") == "warning"):
        return str(obj.get("message", "")).strip()
    return None


class NoteTakingReader(asyncio.StreamReader):
    """MiniZinc's output with its warning lines taken out and kept in ``notes``."""

    def __init__(self, notes: list[str], limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.notes = notes

    async def readuntil(self, separator: Any = b"\n") -> bytes:
        while True:
            line = await super().readuntil(separator)
            message = warning_of(line)
            if message is None:
                return line
            self.notes.append(message)


class _NoteTakingProtocol(SubprocessStreamProtocol):
    def __init__(self, notes: list[str], limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self._notes, self._reader_limit, self._reader_loop = notes, limit, loop

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        pipe = transport.get_pipe_transport(1)
        if pipe is not None:  # before any output: the stream asyncio made is replaced unread
            self.stdout = NoteTakingReader(self._notes, self._reader_limit, self._reader_loop)
            self.stdout.set_transport(pipe)


async def _start(argv: list[str], env: dict[str, str]) -> Process:
    """``asyncio.create_subprocess_exec(*argv)`` with stdout and stderr piped, stdout through a NoteTakingReader."""
    loop = asyncio.get_running_loop()
    notes = NOTES.get()
    notes = [] if notes is None else notes  # outside a backend run: dropped
    limit = 2**16  # asyncio's default stream limit

    def protocol() -> _NoteTakingProtocol:
        return _NoteTakingProtocol(notes, limit, loop)

    transport, made = await loop.subprocess_exec(protocol, *argv, stdin=None, stdout=PIPE, stderr=PIPE, env=env)
    return Process(transport, made, loop)


class GuardedDriver(minizinc.Driver):
    """``minizinc.Driver`` with the solving process started through the guard."""

    async def _create_process(self, args: list[str | Path], solver: str | None = None) -> Process:
        args.append("--json-stream")
        solver_args = ["--solver", solver] if solver is not None else []
        folder = tempfile.mkdtemp(prefix="sigmar-mzn-")
        argv = [str(self._executable), *solver_args, "--allow-multiple-assignments", *[str(a) for a in args]]
        env = {**os.environ, "TMPDIR": folder}
        proc = await _start(guarded(argv, cleanup=folder), env)
        started = _started.setdefault(asyncio.get_running_loop(), set())
        started.difference_update([p for p in started if p.returncode is not None])
        started.add(proc)
        return proc


def guarded_driver(executable: str) -> Any:
    """A guarded driver for the ``minizinc`` at ``executable``."""
    return GuardedDriver(Path(executable))
