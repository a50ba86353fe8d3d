"""Every file the suite reads, read one way, with its limits in one table (issue 29).

Why: a hostile or broken input (a FIFO named as a board file, a 200 MB proof,
a line of 100,000 brackets) must end in one line naming the file and exit 2,
or in the right verdict; never a hang, a traceback or memory many times the
file's size.  So every reader opens its file with :func:`open_input`, which

- refuses what is not a regular file (a FIFO, a folder, a device) at once, without
  blocking on it (the file is opened non-blocking, then ``fstat`` decides);
- refuses a file above its kind's ceiling before reading it, and counts the bytes
  of standard input and of a decompressed ``.xz`` as they come;

and reads it as a stream of lines (:func:`lines`), each at most ``line_bytes``
long, decoded as UTF-8 line by line, so a reader can stop at the first bad line.
A UTF-8 byte-order mark at the very start of a file is skipped (Windows editors
write one; the formats are UTF-8 anyway); anywhere else it is an ordinary character.

Each ceiling can be raised (or, in tests, lowered) with its environment variable,
read when the limit is used.  docs/formats.md, "Limits", lists them.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from sigmar.models.errors import SigmarError
from sigmar.models.records import Frozen

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:  # pathlib: 17 M instructions a one-board solve need not pay
    from pathlib import Path
    from typing import IO, Any

BOM = b"\xef\xbb\xbf"
MiB = 2**20


class Limit(Frozen):
    """A ceiling on one kind of input file: its size, and the longest line it may have."""

    __slots__ = __match_args__ = ("kind", "env", "default", "line_bytes")
    kind: str  # "board file", as messages name it
    env: str  # the environment variable that sets it, in bytes
    default: int
    line_bytes: int

    def __init__(self, kind: str, env: str, default: int, line_bytes: int = MiB) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "env", env)
        object.__setattr__(self, "default", default)
        object.__setattr__(self, "line_bytes", line_bytes)

    @property
    def bytes(self) -> int:
        """The ceiling in force: ``$ENV`` when set, else the default; a LimitError when ``$ENV`` is not a
        whole number of bytes (it was silently ignored, or a traceback for '²')."""
        raw = os.environ.get(self.env)
        if raw is None or not raw.strip():
            return self.default
        import re  # here: only a limit set in the environment is read

        if not re.fullmatch(r"[0-9]{1,19}", raw.strip()):
            shown = raw if len(raw) <= 40 and raw.isprintable() else repr(raw[:40])
            raise LimitError(f"{self.env}={shown} is not a whole number of bytes (0 to {MAX_SETTING:,})")
        value = int(raw.strip())
        if value > MAX_SETTING:
            raise LimitError(f"{self.env}={raw.strip()} is more than {MAX_SETTING:,} bytes")
        return value

    def too_large(self, size: int | str) -> str:
        return (
            f"{size} bytes is more than the {self.bytes:,} a {self.kind} may have "
            f"(set {self.env} to raise the limit; see docs/formats.md, 'Limits')"
        )


# The table (docs/formats.md, "Limits", repeats it with what to do).
BOARD_FILE = Limit("board file", "SIGMAR_MAX_BOARD_FILE", 64 * MiB, line_bytes=64 * 1024)
SOLUTION = Limit("solution file", "SIGMAR_MAX_SOLUTION", 16 * MiB)
DEAD_STATES = Limit("dead-states file", "SIGMAR_MAX_DEAD_STATES", 512 * MiB)
DRUP = Limit("DRUP proof", "SIGMAR_MAX_DRUP", 1024 * MiB, line_bytes=10_000_000)
DRCP = Limit("DRCP proof", "SIGMAR_MAX_DRCP", 256 * MiB, line_bytes=10_000_000)
LRAT = Limit("proof in LRAT", "SIGMAR_MAX_LRAT", 4096 * MiB, line_bytes=10_000_000)
DRCP_MODEL = Limit("DRCP model (.drcp-model)", "SIGMAR_MAX_DRCP_MODEL", 64 * MiB, line_bytes=MiB)
CNF = Limit("formula (.cnf)", "SIGMAR_MAX_CNF", 256 * MiB, line_bytes=256 * MiB)
VARS_JSON = Limit("variable map (.vars.json)", "SIGMAR_MAX_VARS_JSON", 32 * MiB, line_bytes=32 * MiB)
ANSWERS = Limit("certificate JSON file", "SIGMAR_MAX_ANSWERS", 256 * MiB)
RESULTS = Limit("survey results file", "SIGMAR_MAX_RESULTS", 1024 * MiB)
SAT_OUTPUT = Limit("SAT solver output", "SIGMAR_MAX_SAT_MODEL", 64 * MiB, line_bytes=64 * MiB)
BENCH_CSV = Limit("bench CSV", "SIGMAR_MAX_BENCH_CSV", 256 * MiB)
CUBES = Limit("cubes file", "SIGMAR_MAX_CUBES", 64 * MiB)
# The .cnf beside a proof must be its board's formula: larger than that formula's text by
# more than this (comments) cannot be it, and is refused before it is read.
CNF_SLACK_BYTES = MiB
# Likewise the .drcp-model beside a DRCP proof: at most this much beyond the board's own model.
DRCP_MODEL_SLACK_BYTES = MiB
# A dead-states file lists at most this many states (its memory is about 16 bytes a state).
MAX_STATES = 5_000_000
# A DRCP proof derives at most this many nogoods (the checker keeps each: about 150 bytes and 8 a literal),
# and has at most this many inferences between two nogoods (the checker keeps one such stage).  The proofs
# of dense side-6 deals have a few thousand nogoods and stages of a few hundred inferences.
MAX_DRCP_NOGOODS = 2_000_000
MAX_DRCP_STAGE = 200_000

LIMITS = (
    BOARD_FILE,
    SOLUTION,
    DEAD_STATES,
    DRUP,
    DRCP,
    LRAT,
    DRCP_MODEL,
    CNF,
    VARS_JSON,
    ANSWERS,
    RESULTS,
    SAT_OUTPUT,
    BENCH_CSV,
    CUBES,
)


# The largest ceiling a variable may set (8 EiB: more than any file a disk holds).
MAX_SETTING = 2**63 - 1


class LimitError(SigmarError, ValueError):
    """A ``SIGMAR_MAX_*`` variable that is not a whole number of bytes: one line, exit status 2."""


def check_settings() -> None:
    """Every ``SIGMAR_MAX_*`` of the table read once: a LimitError for the first that does not parse."""
    for limit in LIMITS:
        _ = limit.bytes


class InputError(SigmarError, ValueError):
    """A file that cannot be read as its kind: one line naming the file (and the line), for exit 2."""

    def __init__(self, file: str | Path, message: str, line: int | None = None) -> None:
        self.file, self.message, self.line = str(file), message, line
        where = _printable(self.file) + (f" (line {line})" if line is not None else "")
        super().__init__(f"{where}: {message}")


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _file_type(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def regular_size(path: str | Path, limit: Limit) -> int:
    """The size of ``path`` if it is a regular file within ``limit``, else InputError (nothing is opened)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except OSError as exc:
        raise InputError(path, exc.strerror or str(exc)) from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(path, f"is {_file_type(info.st_mode)}, not a {limit.kind}")
    if info.st_size > limit.bytes:
        raise InputError(path, limit.too_large(f"{info.st_size:,}"))
    return info.st_size


@contextmanager
def open_input(path: str | Path, limit: Limit, *, stdin: bool = False) -> Iterator[Capped]:
    """``path`` opened for reading bytes: a regular file within ``limit`` (``-`` is standard input when
    ``stdin``); a ``.xz`` file is decompressed as it is read.  Every refusal is an InputError."""
    name = str(path)
    if stdin and name == "-":
        yield Capped(sys.stdin.buffer, name, limit)
        return
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(name, "no such file") from None
    except IsADirectoryError:
        raise InputError(name, f"is a directory, not a {limit.kind}") from None
    except OSError as exc:
        raise InputError(name, exc.strerror or str(exc)) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise InputError(name, f"is {_file_type(info.st_mode)}, not a {limit.kind}")
    os.set_blocking(fd, True)
    raw = os.fdopen(fd, "rb")
    try:
        if name.endswith(".xz"):
            import lzma

            with lzma.LZMAFile(raw) as xz:
                yield Capped(xz, name, limit)
            return
        if info.st_size > limit.bytes:
            raise InputError(name, limit.too_large(f"{info.st_size:,}"))
        yield Capped(raw, name, limit)
    finally:
        raw.close()


class Capped:
    """A binary stream that fails (InputError) once more than the limit's bytes have come out of it."""

    def __init__(self, inner: IO[bytes] | Any, name: str, limit: Limit) -> None:
        self.inner, self.name, self.limit, self.taken = inner, name, limit, 0

    def _count(self, data: bytes) -> bytes:
        self.taken += len(data)
        if self.taken > self.limit.bytes:
            raise InputError(self.name, self.limit.too_large(f"more than {self.limit.bytes:,}"))
        return data

    def _guard(self, call: Any, *args: Any) -> bytes:
        try:
            data = call(*args)
        except EOFError:
            raise InputError(self.name, "truncated .xz file") from None
        except OSError as exc:
            raise InputError(self.name, f"cannot read it: {exc.strerror or exc}") from None
        except Exception as exc:
            lzma = sys.modules.get("lzma")
            if lzma is not None and isinstance(exc, lzma.LZMAError):
                raise InputError(self.name, f"not a valid .xz file ({exc})") from None
            raise
        return self._count(data)

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            size = self.limit.bytes + 1 - self.taken
        return self._guard(self.inner.read, size)

    def readline(self, size: int = -1) -> bytes:
        return self._guard(self.inner.readline, size)


def lines(stream: Capped, limit: Limit) -> Iterator[tuple[int, str]]:
    """``(line number, text without its newline)`` for each line of an :func:`open_input` stream.

    A line longer than the limit's ``line_bytes``, or not UTF-8, is an InputError naming it;
    a byte-order mark opening the file is skipped; ``\\r\\n`` counts as a newline.
    """
    longest = limit.line_bytes
    number = 0
    while True:
        raw = stream.readline(longest + 1)
        if not raw:
            return
        number += 1
        if len(raw) > longest and not raw.endswith(b"\n"):
            raise InputError(stream.name, f"a line longer than {longest:,} bytes: not a {limit.kind}", number)
        if number == 1:
            raw = raw.removeprefix(BOM)
        yield number, decode(raw, stream.name, number).removesuffix("\n").removesuffix("\r")


def decode(raw: bytes, name: str, line: int | None = None) -> str:
    """UTF-8 text, or an InputError naming the line (and the byte) that is not UTF-8."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(name, f"not UTF-8 text (byte {exc.start + 1} of the line)", line) from None


def read_bytes(path: str | Path, limit: Limit, *, stdin: bool = False) -> bytes:
    """A whole small file (within ``limit``), for the kinds parsed in one piece; a leading BOM dropped."""
    with open_input(path, limit, stdin=stdin) as stream:
        return stream.read().removeprefix(BOM)


def read_text(path: str | Path, limit: Limit, *, stdin: bool = False) -> str:
    """:func:`read_bytes` decoded as UTF-8 (an InputError names the line that is not)."""
    data = read_bytes(path, limit, stdin=stdin)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, "not UTF-8 text", data[: exc.start].count(b"\n") + 1) from None


def json_value(text: str, name: str | Path, line: int | None = None) -> Any:
    """One JSON value; malformed, too deeply nested or too large a number is an InputError naming the line."""
    import json  # json where JSON is read or written: 5 M instructions a one-board solve (a table) need not pay

    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(name, f"not JSON ({exc.msg} at column {exc.colno})", line) from None
    except RecursionError:
        raise InputError(name, "JSON nested too deeply", line) from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise InputError(name, f"not JSON the suite reads ({str(exc)[:80]})", line) from None
    except MemoryError:
        raise InputError(name, "JSON too large to hold in memory", line) from None
