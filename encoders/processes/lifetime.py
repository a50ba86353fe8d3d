"""The run's lifetime: one temporary folder for everything, and SIGTERM handled like Ctrl-C.

Why: temporary files (MiniZinc's fragments and ``.fzn``, the external solver's
formula, proofs kept nowhere else) must not outlive a run however it ends.
Every one of them goes in the run's folder: ``TMPDIR`` and ``tempfile.tempdir``
point there, and child processes inherit it.  The folder is removed on a
normal exit, on Ctrl-C and on SIGTERM by the run itself, and when the run is
killed outright by a janitor (:mod:`sigmar.encoders.processes.guard` with no command)
that the kernel tells of the run's death.  docs/runners.md, "Process lifetime".
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator

from sigmar.encoders.processes.guard import guarded


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so every cleanup that Ctrl-C runs also runs."""


def _on_sigterm(_signum: int, _frame: object) -> None:
    raise Terminated()


@contextlib.contextmanager
def run_lifetime() -> Iterator[str | None]:
    """Within: SIGTERM raises :class:`Terminated`, and temporary files go in a folder removed at the end.

    Yields the folder, or None where no temporary folder can be made (then files go where
    they always went).  SIGTERM is only taken over in the main thread (Python's rule).
    """
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if in_main else None
    old_env, old_tempdir = os.environ.get("TMPDIR"), tempfile.tempdir
    folder: str | None = None
    janitor = None
    with contextlib.suppress(OSError):
        folder = tempfile.mkdtemp(prefix="sigmar-run-")
        janitor = subprocess.Popen(  # no inherited pipes: a caller reading ours would wait for the janitor too
            guarded([], cleanup=folder),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    if folder is not None:
        os.environ["TMPDIR"] = folder
        tempfile.tempdir = folder
    try:
        yield folder
    finally:
        tempfile.tempdir = old_tempdir
        if old_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old_env
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        if janitor is not None:
            janitor.kill()
            janitor.wait()
        if in_main:
            signal.signal(signal.SIGTERM, previous)
