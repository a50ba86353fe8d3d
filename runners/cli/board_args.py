"""Board file arguments: ``FILE``, ``-`` (standard input), and ``FILE:NAME``, ``FILE:INDEX``,
``FILE:START-END`` picking boards of a file; then ``--board NAME`` across all of them.

A path that exists as given wins, so a file whose name holds ``:`` (or a Windows-style path)
is read whole; otherwise the longest prefix before a ``:`` that exists is the file and the rest
the selector.  A selector of digits is an index from 0, ``START-END`` a range with both ends
included, anything else a board name (a name made of digits is picked with ``--board``).
Boards are streamed and a range stops reading at its end, so a slice of a large file costs
only what it reads.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator

from sigmar.models.board import Board
from sigmar.models.boardfile import BoardFileError, stream_boards

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:  # a one-board solve imports neither (tests/test_startup.py)
    from sigmar.models.solution import Solution

# Patterns, compiled by re where a selector or a file of another kind needs one (re is not imported at start)
RANGE = r"(\d+)-(\d+)"


def split_selector(arg: str) -> tuple[str, str | None]:
    """``(path, selector)``: the selector is None when ``arg`` is a file (or ``-``) as given."""
    if arg == "-" or os.path.lexists(arg):
        return arg, None
    for at in reversed([i for i, c in enumerate(arg) if c == ":"]):
        head = arg[:at]
        if head == "-" or (head and os.path.lexists(head)):
            return head, arg[at + 1 :]
    return arg, None  # no such file: its reader says so, naming the whole argument


def stream_selected(arg: str) -> Iterator[Board]:
    """The boards ``arg`` names, as they are read; a file of another kind (a DIMACS formula given where its
    board file goes, say) is said to be that, not reported as a malformed board."""
    path, selector = split_selector(arg)
    boards = stream_boards(path)
    try:
        yield from boards if selector is None else _select(boards, selector, path)
    except BoardFileError:
        other = other_kind(path)
        if other is None:
            raise
        raise BoardFileError(path, f"{other}, not a board file (docs/formats.md#board-files)") from None


# What a file given for a board file may be instead, by its first lines (read only once reading it failed).
OTHER_KINDS = (
    (r"p\s+cnf\b|c\s", "a DIMACS formula"),
    (r"s\s+(UN)?SATISFIABLE|s\s+UNKNOWN", "a SAT solver's output"),
    (r"[{\[]", "JSON"),
)


def other_kind(path: str) -> str | None:
    """What ``path`` is if it is a DIMACS formula, a SAT solver's output or JSON rather than a board file."""
    if path == "-" or not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096).decode("utf-8", "replace")
    except OSError:
        return None
    import re

    lines = [line.strip() for line in head.splitlines() if line.strip()]
    for line in lines[:20]:
        for pattern, kind in OTHER_KINDS:
            if re.match(pattern, line):
                return kind
    return None


def stream_picked(arg: str, board: str | None) -> Iterator[Board]:
    """The boards ``arg`` names, narrowed to ``--board NAME`` as they are read: a name no board has is bad input."""
    found = False
    for each in stream_selected(arg):
        if board is None or each.name == board:
            found = True
            yield each
    if board is not None and not found:
        raise BoardFileError(arg, f"no board named {board!r} (--board)")


def _select(boards: Iterable[Board], selector: str, path: str) -> Iterator[Board]:
    if not selector:
        raise BoardFileError(path, "nothing after ':' (FILE:NAME, FILE:INDEX or FILE:START-END)")
    import re

    span = re.fullmatch(RANGE, selector)
    if selector.isdigit() or span:
        first, last = (int(selector), int(selector)) if span is None else (int(span[1]), int(span[2]))
        if last < first:
            raise BoardFileError(path, f"board range {selector} is empty (START-END, END not below START)")
        seen = 0
        for index, board in enumerate(boards):
            seen = index + 1
            if index >= first:
                yield board
            if index >= last:
                return
        if seen <= first:
            raise BoardFileError(path, f"no board {first}: the file has {seen} (0 to {seen - 1})")
        return
    found = False
    for board in boards:
        if board.name == selector:
            found = True
            yield board
    if not found:
        raise BoardFileError(path, f"no board named {selector!r}")


def read_selected(args: Iterable[str], board: str | None = None) -> list[Board]:
    """The boards of several file arguments, in order (see :func:`read_per_file`)."""
    return [b for _, found in read_per_file(args, board) for b in found]


def read_per_file(
    args: Iterable[str], board: str | None = None, *, prefix: bool = True
) -> list[tuple[str, list[Board]]]:
    """Each file argument's path and boards, narrowed to ``--board NAME`` when given; with ``prefix``,
    a name shared by two files gets its file as a prefix (``bench`` keeps names: its CSV has the file)."""
    return _narrowed([(split_selector(arg)[0], list(stream_selected(arg))) for arg in args], board, prefix)


PerFile = list[tuple[str, list[Board]]]


def _narrowed(per_file: PerFile, board: str | None, prefix: bool) -> PerFile:
    if board is not None:
        per_file = [(path, [b for b in found if b.name == board]) for path, found in per_file]
        if not any(found for _, found in per_file):
            raise BoardFileError(", ".join(path for path, _ in per_file), f"no board named {board!r} (--board)")
    counts = Counter(b.name for _, found in per_file for b in found)
    if not prefix or all(n == 1 for n in counts.values()):
        return per_file
    return [
        (path, [b.replace(name=f"{path}:{b.name}") if counts[b.name] > 1 else b for b in found])
        for path, found in per_file
    ]


def selected_names(args: str | list[str], board: str | None) -> tuple[list[Board], set[str]]:
    """The boards the file arguments (and ``--board``) pick, and the names of every board of their files:
    a solution, certificate or answer for a board of the files that was not picked is skipped, not an error.
    Each file is read once (standard input cannot be read twice)."""
    per_file: list[tuple[str, list[Board]]] = []
    every: set[str] = set()
    for arg in [args] if isinstance(args, str) else args:
        path, selector = split_selector(arg)
        whole = list(stream_boards(path))
        every |= {b.name for b in whole}
        per_file.append((path, whole if selector is None else list(_select(whole, selector, path))))
    picked = [b for _, found in _narrowed(per_file, board, prefix=True) for b in found]
    return picked, every | {b.name for b in picked}


def solutions_for(solutions: list[Solution], boards: list[Board], every: set[str], filename: str) -> list[Solution]:
    """The solutions for the boards picked: one naming another board of the file is left out."""
    picked = {b.name for b in boards}
    kept = [s for s in solutions if s.board is None or s.board in picked or s.board not in every]
    if not kept:
        named = ", ".join(repr(name) for name in sorted({s.board for s in solutions if s.board is not None}))
        chosen = ", ".join(repr(b.name) for b in boards)
        raise BoardFileError(filename, f"the solutions are for board {named}, not the board picked ({chosen})")
    return kept
