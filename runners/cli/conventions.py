"""The command-line conventions every verb follows (docs/commands.md), each defined once here.

- ``--json``: one JSON object per board (JSON Lines) on standard output, nothing else there;
- ``--no-color`` (or the environment's ``NO_COLOR``): no escape sequence at all, not even bold;
- ``--quiet``: no progress bar, no table, no summary line: only what ``--json`` prints, the
  files asked for and error messages (the exit status says the rest);
- ``-o/--output FILE`` for one output file, ``--output-dir DIR`` for a folder; a verb that answers boards
  writes its answers there as JSON Lines (:class:`AnswersOutput`);
- ``--board NAME`` picks boards by name (``FILE:NAME``, ``FILE:INDEX``, ``FILE:START-END`` pick
  within one file: :mod:`.board_args`);
- one default ``--time-limit``, the same in every verb, with its reason;
- a verb that answers boards ends with one summary line (:class:`Summary`).

A verb opts in with one call in its ``add_parser``: :func:`follow` (``--json``, ``--quiet``, ``--no-color``
and, for a verb that reads boards, ``--board``), then :func:`add_output` (or :func:`add_answers_output`),
:func:`add_output_dir` and :func:`add_time_limit` where it has them.  ``tests/test_conventions.py`` walks
every verb's parser and holds it to this.  Older spellings (``--out``, ``decode --index``) stay accepted, hidden
from ``--help``, because scripts rely on them.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Sequence

from sigmar.runners.cli.options import seconds, writable_file, writable_folder

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:  # argparse: a plain solve reads its command line without it (quick.py)
    import argparse
    from typing import Any

DEFAULT_TIME_LIMIT = 60.0
# Why 60 s, in every verb's --help: one number for every command, so a board's answer does not
# depend on which command asked; the slowest checked answer measured (docs/measured/) took 38 s.
TIME_LIMIT_REASON = (
    "the same in every command, so an answer does not depend on the command that asked; "
    "the slowest answer measured on the bundled boards and on random deals up to side 9 took 38 s"
)
# The one exception: `serve`, whose answers a person waits for on the page after each edit.
INTERACTIVE_TIME_LIMIT = 10.0
INTERACTIVE_REASON = (
    "not the other commands' 60: a person waits on the page for each answer, and an edit made meanwhile "
    "cancels it; 'sigmar explain' gives a board longer"
)


def follow(
    parser: argparse.ArgumentParser, *, boards: bool, json_help: str | None = None, board_help: str | None = None
) -> None:
    """The conventions every verb takes: ``--json``, ``--quiet`` and ``--no-color``, and ``--board NAME`` when it
    reads boards."""
    parser.add_argument(
        "--json", action="store_true", help=json_help or "print one JSON object per board (JSON Lines) and nothing else"
    )
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="no progress, no table, no summary line: only --json output, the files asked for and errors",
    )
    parser.add_argument(
        "--no-color",
        action="store_true",
        help="no colour and no other escape sequence (as the environment's NO_COLOR says too)",
    )
    if boards:
        add_board(parser, board_help)


def add_board(parser: argparse.ArgumentParser, help: str | None = None) -> None:
    parser.add_argument(
        "--board",
        metavar="NAME",
        help=help or "only the boards of this name (FILE:NAME, FILE:INDEX, FILE:START-END pick within one file)",
    )


def add_time_limit(
    parser: argparse.ArgumentParser, what: str = "seconds per board", *, interactive: bool = False
) -> None:
    """``--time-limit S``: the one default, or with ``interactive`` (``serve`` alone) the page's."""
    default, reason = (
        (INTERACTIVE_TIME_LIMIT, INTERACTIVE_REASON) if interactive else (DEFAULT_TIME_LIMIT, TIME_LIMIT_REASON)
    )
    parser.add_argument(
        "--time-limit",
        type=seconds,
        default=default,
        metavar="S",
        help=f"{what} (default {default:g}: {reason})",
    )


def add_output(
    parser: argparse.ArgumentParser,
    help: str,
    *,
    metavar: str = "FILE",
    check: Callable[[str], Any] | None = None,
    older: Sequence[str] = ("--out",),
) -> None:
    """``-o/--output FILE`` (``check`` validates it before any work), and the older spellings, hidden."""
    import argparse  # here: a plain solve reads its command line without it (quick.py)

    kind = check or writable_file
    parser.add_argument("-o", "--output", type=kind, metavar=metavar, help=help)
    for spelling in older:
        parser.add_argument(spelling, dest="output", type=kind, metavar=metavar, help=argparse.SUPPRESS)


ANSWERS_HELP = (
    "also write the answers to FILE as JSON Lines, one object per board as --json prints it "
    "(docs/formats.md; 'sigmar check' reads it); written whole when the run ends"
)


def add_answers_output(parser: argparse.ArgumentParser, help: str = ANSWERS_HELP, **kwargs: Any) -> None:
    """``-o/--output FILE`` of a verb that answers boards: its answers as JSON Lines (:class:`AnswersOutput`)."""
    add_output(parser, help, older=(), **kwargs)


class AnswersOutput:
    """Where a verb's answers go: with ``--json`` to standard output, with ``-o FILE`` into FILE as well.

    The file is written as the answers come, into a temporary file beside it that becomes FILE when the
    run ends (whole or not at all, as every output: models/output_files.py), and is locked for the run
    so that a second run given it stops at once.
    """

    def __init__(self, args: argparse.Namespace) -> None:
        self.json = bool(getattr(args, "json", False))
        self.path = getattr(args, "output", None)
        self._stack = contextlib.ExitStack()
        self._file: Any = None

    def __enter__(self) -> AnswersOutput:
        if self.path is not None:
            from sigmar.models.output_files import OutputLock, replacing

            self._stack.enter_context(OutputLock(self.path, "answers file"))
            self._file = self._stack.enter_context(replacing(self.path))
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.__exit__(*exc)

    @property
    def wanted(self) -> bool:
        """Whether an answer goes anywhere (``--json`` or ``-o``): a table alone makes no JSON of it."""
        return self.json or self._file is not None

    def write(self, record: dict[str, Any]) -> None:
        """One board's answer: printed with ``--json``, written into the file with ``-o``."""
        if not self.wanted:
            return
        from sigmar.runners.render.answer_json import dumps

        line = dumps(record)
        if self.json:
            print(line, flush=True)
        if self._file is not None:
            self._file.write(line + "\n")


def add_output_dir(parser: argparse.ArgumentParser, help: str, *, older: Sequence[str] = ()) -> None:
    """``--output-dir DIR`` (made if missing, checked writable before any work), and older spellings, hidden."""
    import argparse  # here: a plain solve reads its command line without it (quick.py)

    parser.add_argument("--output-dir", type=writable_folder, metavar="DIR", help=help)
    for spelling in older:
        parser.add_argument(spelling, dest="output_dir", type=writable_folder, metavar="DIR", help=argparse.SUPPRESS)


class Summary:
    """The closing line of a verb that answers boards: how many solved, unsolvable (checked), unknown
    and error, and the wall time.  After a table it goes to standard output; beside ``--json`` to
    standard error (JSON Lines stay pure); with ``--quiet`` nowhere."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.quiet = bool(getattr(args, "quiet", False))
        self.json = bool(getattr(args, "json", False))
        self.start = time.perf_counter()

    def print(self, results: Sequence[Any]) -> None:
        """The line over these answers (:class:`~sigmar.models.result.Result`)."""
        from sigmar.runners.render.answer_json import tally_line

        self.print_line(tally_line(results, self.wall()))

    def wall(self) -> float:
        return time.perf_counter() - self.start

    def print_line(self, line: str) -> None:
        if not self.quiet:
            print(line, file=sys.stderr if self.json else sys.stdout, flush=True)


def say(args: argparse.Namespace, text: str, *, file: Any = None) -> None:
    """A note for the person at the terminal (``wrote FILE``, ...): silent under ``--quiet``, and on
    standard error beside ``--json``."""
    if getattr(args, "quiet", False):
        return
    print(text, file=file or (sys.stderr if getattr(args, "json", False) else sys.stdout))


RESERVED = frozenset(
    {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
)
MAX_STEM = 100


def file_stems(names: Sequence[str]) -> list[str]:
    """A file name stem per board name for ``--output-dir DIR`` (``DIR/NAME.svg``, ...): letters, digits,
    ``.``, ``-`` and ``_`` only, at most 100 characters, never a name Windows reserves, and unique
    (ignoring case, as some file systems do) with ``-2``, ``-3``, ... after a repeat."""
    import re  # here: only --output-dir asks

    stems: list[str] = []
    taken: set[str] = set()
    for name in names:
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "board"
        stem = stem[:MAX_STEM].rstrip("._") or "board"
        if stem.lower() in RESERVED:
            stem = f"_{stem}"
        unique, number = stem, 1
        while unique.lower() in taken:
            number += 1
            unique = f"{stem}-{number}"
        taken.add(unique.lower())
        stems.append(unique)
    return stems
