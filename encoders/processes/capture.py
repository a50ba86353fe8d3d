"""A backend's standard output and standard error, captured apart from the suite's, and bounded.

Why: whatever a backend prints (a plugin's debugging, a C library's warning, or a
thousand fake answer lines) must never reach the suite's own output, where
``--json`` promises one object per board.  So a worker process points its file
descriptors 1 and 2 at a capture file, an unlinked file in the run's temporary folder
(nothing is left on disk however the run ends), opened for appending; and the plugin
code that runs in the runner's own process (its import, ``available()``, ...) runs
inside :func:`captured`.

The file never holds more than :data:`LIMIT` bytes: :func:`keep_bounded` empties it
when it grows past that (appends then start again at 0).  What is shown of it is at
most :data:`SHOWN` characters, its head and its tail: on error in the answer's message,
and with ``--verbose`` on standard error.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator

from sigmar.encoders.processes.lifetime import guard_folder

LIMIT = 2**20  # bytes a capture file may hold
SHOWN = 1000  # characters of it that are shown: the first half and the last half
BOUND_EVERY = 0.1  # seconds between two looks at the file's size


def open_capture() -> int | None:
    """A new capture file (unlinked, appending, readable), or None when none can be made here."""
    guard_folder()  # a file in the run's folder, for a process about to start: its janitor first
    try:
        handle, path = tempfile.mkstemp(prefix="sigmar-output-")
    except OSError:
        return None
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND)
    except OSError:
        return None
    finally:
        os.close(handle)
        with contextlib.suppress(OSError):
            os.unlink(path)
    return fd


def redirect(fd: int | None) -> None:
    """Point this process's standard output and standard error at ``fd`` (at /dev/null when None), both
    the file descriptors and Python's ``sys.stdout`` and ``sys.stderr`` (which a test may have replaced)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    target = fd if fd is not None else os.open(os.devnull, os.O_WRONLY)
    for number in (1, 2):
        os.dup2(target, number)
    sys.stdout = open(1, "w", buffering=1, closefd=False, errors="replace")  # noqa: SIM115 - for the process
    sys.stderr = open(2, "w", buffering=1, closefd=False, errors="replace")  # noqa: SIM115


def restart(fd: int | None) -> None:
    """Empty the capture file: what is read next was written after this."""
    if fd is None:
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)


def text(fd: int | None) -> str:
    """What the capture file holds, at most SHOWN characters of it (its head and tail), or ""."""
    if fd is None:
        return ""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        size = os.fstat(fd).st_size
        half = SHOWN // 2
        if size <= SHOWN:
            raw = os.pread(fd, size, 0)
            return raw.decode("utf-8", errors="replace").strip()
        head = os.pread(fd, half, 0).decode("utf-8", errors="replace")
        tail = os.pread(fd, half, size - half).decode("utf-8", errors="replace")
    except OSError:
        return ""
    return f"{head} [... {size - 2 * half:,} bytes ...] {tail}".strip()


def keep_bounded(fd: int | None) -> None:
    """Start a daemon thread that empties the capture file whenever it holds over LIMIT bytes."""
    if fd is None:
        return

    def watch() -> None:
        while True:
            time.sleep(BOUND_EVERY)
            try:
                if os.fstat(fd).st_size > LIMIT:
                    os.ftruncate(fd, 0)
            except OSError:
                return

    threading.Thread(target=watch, name="sigmar-output-bound", daemon=True).start()


def one_line(output: str) -> str:
    """The output on one line, for a message."""
    return " ".join(output.split())


@contextlib.contextmanager
def captured() -> Iterator[list[str]]:
    """Within, file descriptors 1 and 2 go to a capture file; after, the list holds what was written."""
    box: list[str] = []
    fd = open_capture()
    if fd is None:  # nowhere to keep it: dropped
        fd = os.open(os.devnull, os.O_WRONLY)
    streams = sys.stdout, sys.stderr
    saved = [os.dup(1), os.dup(2)]
    try:
        redirect(fd)
        yield box
    finally:
        box.append(text(fd))
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        for number, copy in zip((1, 2), saved, strict=True):
            os.dup2(copy, number)
            os.close(copy)
        sys.stdout, sys.stderr = streams
        os.close(fd)
