"""``sigmar solve FILE...`` with plain options, read without argparse (issue 48: one board, whole process).

argparse costs a one-board solve more than its board: its module, the ``re`` and ``gettext`` it imports,
the ``locale`` its first message imports, and the solve parser's arguments and their help, made before a
word is read.  A solve whose command line is board files and the options below, each spelt in full with its
value apart (``-b search``, not ``-bsearch`` nor ``--backend=search``), is read here into the Namespace
argparse would give (tests/test_quick.py holds the two equal, with Hypothesis, and fails when solve gains
an option this table does not know).  Anything else (``--help``, an error, an abbreviation, an argument that
starts with ``-``, a file after an option after the files, another verb) goes to argparse
(:mod:`.parsers`), so that help and error text are its own.
"""

from __future__ import annotations

from sigmar.runners.cli.conventions import DEFAULT_TIME_LIMIT
from sigmar.runners.cli.options import DEFAULT_BACKEND, seconds

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from argparse import Namespace
    from collections.abc import Callable, Sequence
else:

    class Namespace:
        """argparse's Namespace without argparse: the arguments as attributes, equal when their values are."""

        def __init__(self, **values: object) -> None:
            self.__dict__.update(values)

        def __eq__(self, other: object) -> bool:
            if not isinstance(other, Namespace):
                return NotImplemented
            return vars(self) == vars(other)

        def __contains__(self, key: str) -> bool:
            return key in self.__dict__

        def __repr__(self) -> str:
            return f"Namespace({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


# solve's options read here, by spelling: the flags (store_true), and those taking one value (its dest and
# the same type function argparse is given)
FLAGS = {
    "--json": "json",
    "--quiet": "quiet",
    "-q": "quiet",
    "--no-color": "no_color",
    "--verbose": "verbose",
    "-v": "verbose",
    "--stats": "stats",
}
VALUES: dict[str, tuple[str, Callable[[str], object]]] = {
    "--backend": ("backend", str),
    "-b": ("backend", str),
    "--board": ("board", str),
    "--time-limit": ("time_limit", seconds),
}


def solve_defaults() -> dict[str, object]:
    """What argparse gives ``sigmar solve`` for an option not on its command line."""
    from sigmar.runners.cli.solve import run

    return {
        "command": "solve",
        "backend": DEFAULT_BACKEND,
        "sat_cmd": None,
        "proof_dir": None,
        "verbose": False,
        "stats": False,
        "selector": None,
        "time_limit": DEFAULT_TIME_LIMIT,
        "output": None,
        "json": False,
        "quiet": False,
        "no_color": False,
        "board": None,
        "run": run,
    }


def read_quickly(argv: Sequence[str]) -> Namespace | None:
    """``sigmar ARGV``'s arguments when it is a plain solve (see above), else None: argparse reads it."""
    if len(argv) < 2 or argv[0] != "solve":
        return None
    given: dict[str, object] = {}
    files: list[str] = []
    after_files = False  # an option came after the files: argparse takes no more files (they are an error)
    k = 1
    while k < len(argv):
        arg = argv[k]
        if not arg.startswith("-"):
            if after_files:
                return None
            files.append(arg)
            k += 1
            continue
        after_files = bool(files)
        if arg in FLAGS:
            given[FLAGS[arg]] = True
            k += 1
            continue
        took = VALUES.get(arg)
        if took is None or k + 1 == len(argv) or argv[k + 1].startswith("-"):
            return None
        dest, kind = took
        try:
            given[dest] = kind(argv[k + 1])
        except Exception:  # argparse says what is wrong with it
            return None
        k += 2
    if not files:
        return None
    return Namespace(**{**solve_defaults(), **given, "files": files})
