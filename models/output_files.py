"""Every file the suite writes, written one way: whole or not at all, one line when it cannot, one writer at a time.

Why: a full disk (``ENOSPC``), a read-only one (``EROFS``) or a folder without permission
(``EACCES``) gave tracebacks, exit status 1 and half-written files; and two runs given the
same output (two benches with one ``--out``) both exited 0 and left a CSV of mixed rows.
So every output goes through this module:

- :func:`replacing` (and :func:`write_file`) write into a temporary file beside the target
  and rename it over the target only once it is complete, so a reader never sees half a file
  and a failed write leaves nothing (the target keeps what it had);
- any ``OSError`` while writing becomes an :class:`OutputError`: one line naming the file,
  which the command line reports with exit status 2;
- :class:`OutputLock` holds an OS lock (``fcntl.flock``) on an output file or folder for the
  whole run, as a survey holds its results file: a second run given the same output stops at
  once (exit 2) instead of writing over the first.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator

from sigmar.models.errors import SigmarError

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:  # pathlib: 17 M instructions a one-board solve need not pay
    from pathlib import Path
    from typing import IO, Any


class OutputError(SigmarError):
    """An output that cannot be written (or is another run's): one line naming it, exit status 2."""


def cannot_write(path: str | Path, exc: OSError) -> OutputError:
    return OutputError(f"cannot write {path}: {exc.strerror or exc}")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def replacing(path: str | Path, mode: str = "w", **options: Any) -> Iterator[IO[Any]]:
    """A file to write ``path``'s new content into: it becomes ``path`` when the block ends without an error.

    On any error the temporary file is removed and ``path`` is left as it was; an ``OSError`` (a full
    disk, say) is raised as an :class:`OutputError`.  ``mode`` is ``"w"`` or ``"wb"``; ``options`` go to
    ``open`` (``encoding``, ``newline``).
    """
    import tempfile  # here: a one-board solve that writes no file does not pay for it (28 M instructions)
    from pathlib import Path

    target = Path(path)
    if target.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # an output's folder is made when it is written into
        handle, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    except OSError as exc:
        raise cannot_write(path, exc) from None
    try:
        os.fchmod(handle, 0o666 & ~_umask())  # as open() would have made it, not mkstemp's 0600
        if "b" not in mode:
            options.setdefault("encoding", "utf-8")
        with os.fdopen(handle, mode, **options) as out:
            yield out
        os.replace(partial, target)
    except OSError as exc:
        Path(partial).unlink(missing_ok=True)
        raise cannot_write(path, exc) from None
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


def make_folder(path: str | Path) -> Path:
    """An output folder (``--output-dir``), made when the first thing is written into it, not when the
    command starts: a command that refuses its input leaves no empty folder behind."""
    from pathlib import Path

    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise cannot_write(folder, exc) from None
    return folder


def write_file(path: str | Path, data: str | bytes) -> None:
    """``path`` holds ``data`` afterwards, or is unchanged and an :class:`OutputError` says why."""
    with replacing(path, "wb" if isinstance(data, bytes) else "w") as out:
        out.write(data)


class OutputLock:
    """An OS lock on an output file or folder, held until :meth:`release`; a second holder is refused.

    A file that does not exist yet is created empty to hold the lock; if the run then writes
    nothing into it (it failed), :meth:`release` removes it again.
    """

    def __init__(self, path: str | Path, what: str = "output") -> None:
        from pathlib import Path

        self.path = Path(path)
        self.created = False
        try:
            if self.path.is_dir():
                fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
            else:
                try:
                    fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NONBLOCK, 0o666)
                    self.created = True
                except FileExistsError:
                    fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError as exc:
            raise cannot_write(path, exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            if self.created:
                self.path.unlink(missing_ok=True)
            raise OutputError(
                f"{path}: another sigmar run is writing this {what} (it holds its lock); give each run its own"
            ) from None
        self.fd: int | None = fd

    def release(self) -> None:
        """Give the lock up; an empty file this lock created (nothing was written) is removed."""
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            if self.created and self.path.is_file() and self.path.stat().st_size == 0:
                self.path.unlink()
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> OutputLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
