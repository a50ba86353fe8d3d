"""The run's lifetime: one temporary folder for everything, and SIGTERM handled like Ctrl-C.

Why: temporary files (MiniZinc's fragments and ``.fzn``, the external solver's
formula, proofs kept nowhere else) must not outlive a run however it ends.
Every one of them goes in the run's folder: ``TMPDIR`` and ``tempfile.tempdir``
point there, and child processes inherit it.  The folder is removed on a
normal exit, on Ctrl-C and on SIGTERM by the run itself, and when the run is
killed outright by a *janitor*: ``/bin/sh`` reading a pipe whose only writers are
the run and the processes it forked.  The kernel closes the pipe when the last of
them is gone, however it died; the janitor then removes the folder (twice: a
solver that its guard is still killing may write one more file).  docs/runners.md,
"Process lifetime".

Every ``sigmar`` command pays for this, a one-board solve too (issue 48), so it
costs a shell's start (about 1 M instructions), not a Python's (50 M), and imports
none of ``subprocess``, ``tempfile``, ``shutil``, ``ctypes`` or ``threading`` (about 70 M more).
Even so the shell was 5% of a one-board solve's CPU, for a folder that a board search settles in
this process never writes to; so ``sigmar solve`` (``run_lifetime(lazy=True)``) starts the janitor
only when the run first needs it (:func:`guard_folder`): before it forks a process (every worker of
the race is forked: ``os.register_at_fork``), starts a program, or keeps a file in the folder (the
certificates' folder, a worker's output).  Until then the folder is empty: killed outright then, the
run leaves an empty folder at most.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from sigmar.encoders.processes.guard import remove_tree

TYPE_CHECKING = False  # not typing's (issue 48)
if TYPE_CHECKING:
    import signal
else:
    import _signal as signal  # signal's functions without the enums it makes (4 M instructions a solve)

# $0 is the folder.  `read` returns at the end of its input: once every writer of the pipe is gone.
JANITOR = 'read _ ; rm -rf -- "$0" ; sleep 0.5 ; exec rm -rf -- "$0"'


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so every cleanup that Ctrl-C runs also runs."""


def _on_sigterm(_signum: int, _frame: object) -> None:
    raise Terminated()


def _base() -> str:
    """Where the run's folder goes: where ``tempfile`` would put it (its rule, without importing it)."""
    if "tempfile" in sys.modules:
        import tempfile

        return tempfile.gettempdir()
    for name in ("TMPDIR", "TEMP", "TMP"):
        value = os.environ.get(name)
        if value and os.path.isdir(value):
            return value
    return "/tmp" if os.path.isdir("/tmp") else os.getcwd()


def _make_folder() -> str:
    """A new folder only we can use, named ``sigmar-run-*`` (``tempfile.mkdtemp`` without its imports)."""
    base = _base()
    for _ in range(100):
        folder = os.path.join(base, f"sigmar-run-{os.urandom(6).hex()}")
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            continue
        return os.path.abspath(folder)
    raise FileExistsError(f"no free name for the run's folder in {base}")


def _start_janitor(folder: str) -> tuple[int, int] | None:
    """(its pid, the pipe's end we write to) of a janitor for ``folder``, or None where none can start."""
    if not os.path.exists("/bin/sh"):
        return None
    read_end, write_end = os.pipe()  # both close-on-exec: forked workers keep the writer, started programs do not
    try:
        pid = os.posix_spawn(
            "/bin/sh",
            ["sh", "-c", JANITOR, folder],
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, read_end, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
            setsid=True,  # no terminal's Ctrl-C reaches it
            setsigmask=(),  # started inside a fork's hook too, where the signals are held
        )
    except (OSError, NotImplementedError):  # NotImplementedError: no setsid for posix_spawn on this system
        os.close(write_end)
        return None
    finally:
        os.close(read_end)
    return pid, write_end


# The run's folder while its janitor is not started yet (``lazy``), and the janitor once it is: (its pid, the
# pipe's end we write to).  One run at a time per process (the command line's).
_waiting: str | None = None
_janitor: tuple[int, int] | None = None
_hooked = False


def guard_folder() -> None:
    """The run's janitor started now if it is not yet (a lazy run's): call before the run forks a process,
    starts a program or keeps a file in its folder.  Anywhere else (a worker, no run), nothing."""
    global _waiting, _janitor
    # Taken and cleared in one step, with no call between (where a thread switch or a signal's handler could
    # come in): whoever comes second finds None, so one janitor is ever started
    folder, _waiting = _waiting, None
    if folder is not None:
        _janitor = _start_janitor(folder)


@contextlib.contextmanager
def run_lifetime(lazy: bool = False) -> Iterator[str | None]:
    """Within: SIGTERM raises :class:`Terminated`, and temporary files go in a folder removed at the end.

    Yields the folder, or None where no temporary folder can be made (then files go where
    they always went).  SIGTERM is only taken over in the main thread (Python's rule).
    ``lazy``: the janitor starts when the run first needs it (:func:`guard_folder`), not now.
    """
    global _waiting, _janitor, _hooked
    in_main = True
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread
        in_main = False
    old_env, old_tempdir = os.environ.get("TMPDIR"), _tempfile_dir()
    folder: str | None = None
    with contextlib.suppress(OSError):
        folder = _make_folder()
        _waiting = folder
        if not lazy:
            guard_folder()
        elif not _hooked:  # every fork of this process from now on, whoever makes it (once: hooks stay)
            os.register_at_fork(before=guard_folder)
            _hooked = True
    if folder is not None:
        os.environ["TMPDIR"] = folder
        _set_tempfile_dir(folder)  # else tempfile reads TMPDIR when first imported
    try:
        yield folder
    finally:
        _waiting = None
        _set_tempfile_dir(old_tempdir)
        if old_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old_env
        if folder is not None:
            remove_tree(folder)
        janitor, _janitor = _janitor, None
        if janitor is not None:
            pid, write_end = janitor
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            os.close(write_end)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        if in_main:
            signal.signal(signal.SIGTERM, previous)


def _tempfile_dir() -> str | None:
    """``tempfile.tempdir`` where tempfile is imported already (else None: it is not imported for this)."""
    if "tempfile" not in sys.modules:
        return None
    import tempfile

    return tempfile.tempdir


def _set_tempfile_dir(folder: str | None) -> None:
    if "tempfile" in sys.modules:
        import tempfile

        tempfile.tempdir = folder
