"""A MiniZinc driver whose ``minizinc`` runs under a guard (see :mod:`guard`).

Why: MiniZinc starts ``fzn-gecode`` in a process group of its own, so killing
``minizinc`` (or the worker above it) with SIGKILL used to leave
``fzn-gecode`` running under init.  Under the guard, ``fzn-gecode`` becomes
the guard's child when ``minizinc`` dies, and the guard kills it.  Each run
also gets its own temporary folder (``TMPDIR`` for ``minizinc``, where its
``.fzn`` and ``.ozn`` files go), which the guard removes on every exit.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import tempfile
import weakref
from asyncio import create_subprocess_exec
from asyncio.subprocess import PIPE, Process
from pathlib import Path
from typing import Any

import minizinc

from sigmar.encoders.processes.guard import guarded

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


class GuardedDriver(minizinc.Driver):
    """``minizinc.Driver`` with the solving process started through the guard."""

    async def _create_process(self, args: list[str | Path], solver: str | None = None) -> Process:
        args.append("--json-stream")
        solver_args = ["--solver", solver] if solver is not None else []
        folder = tempfile.mkdtemp(prefix="sigmar-mzn-")
        argv = [str(self._executable), *solver_args, "--allow-multiple-assignments", *[str(a) for a in args]]
        env = {**os.environ, "TMPDIR": folder}
        proc: Process = await create_subprocess_exec(
            *guarded(argv, cleanup=folder), stdin=None, stdout=PIPE, stderr=PIPE, env=env
        )
        started = _started.setdefault(asyncio.get_running_loop(), set())
        started.difference_update([p for p in started if p.returncode is not None])
        started.add(proc)
        return proc


def guarded_driver(executable: str) -> Any:
    """A guarded driver for the ``minizinc`` at ``executable``."""
    return GuardedDriver(Path(executable))
