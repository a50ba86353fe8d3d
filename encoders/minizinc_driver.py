"""A MiniZinc driver whose ``minizinc`` runs under a guard (see :mod:`guard`).

Why: MiniZinc starts ``fzn-gecode`` in a process group of its own, so killing
``minizinc`` (or the worker above it) with SIGKILL used to leave
``fzn-gecode`` running under init.  Under the guard, ``fzn-gecode`` becomes
the guard's child when ``minizinc`` dies, and the guard kills it.  Each run
also gets its own temporary folder (``TMPDIR`` for ``minizinc``, where its
``.fzn`` and ``.ozn`` files go), which the guard removes on every exit.
"""

from __future__ import annotations

import os
import tempfile
from asyncio import create_subprocess_exec
from asyncio.subprocess import PIPE, Process
from pathlib import Path
from typing import Any

import minizinc

from sigmar.encoders.guard import guarded


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
        return proc


def guarded_driver(executable: str) -> Any:
    """A guarded driver for the ``minizinc`` at ``executable``."""
    return GuardedDriver(Path(executable))
