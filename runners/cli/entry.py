"""The ``sigmar`` console script's parser and dispatch: one subcommand per module, found by name.

Each subcommand module defines ``add_parser(subparsers)`` and
``run(args) -> int``.  Bad input anywhere becomes one line on standard error
and exit status 2, never a traceback.

Start-up follows the work: only the chosen subcommand's module is imported
(``sigmar --help`` lists the others from ``SUBCOMMANDS``, whose one-line
summaries a test keeps equal to each module's own).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import NoReturn

# In the order `sigmar --help` lists them, with the summary each module gives its parser.
SUBCOMMANDS = {
    "solve": "answer each board (backends race; the first checked answer wins)",
    "verify": "check a solution against the rule engine",
    "crosscheck": "run every backend to the end on each board and report disagreements",
    "count": "count the ways each board can be cleared (sequences or pairings), checked against the rule engine",
    "prove": "prove boards unsolvable with a checked certificate (or solve them)",
    "explain": "say why a board cannot be cleared: its deepest play and its smallest repair",
    "hint": "mark every legal move of a position safe or losing, each with its proof",
    "check": "check a certificate, or a whole answers file, against the boards",
    "bench": "every backend on every board: summary (PAR-2, VBS), CSV, plots, HTML report, BenchExec XML",
    "generate": "new boards: solvable by construction (with a witness), or refuted unsolvable",
    "survey": "deal N random boards, answer each (race, checked certificates), estimate the solvable fraction",
    "encode": "write an encoding (DIMACS, CP-SAT model, MiniZinc model/data, DRCP model)",
    "decode": "turn an external SAT solver's assignment of 'encode --to dimacs' back into moves",
    "show": "draw boards (and a solution, move by move)",
    "serve": "a local web page to edit, solve, explain, repair and play boards",
    "fuzz": "deal random small boards and find every wrong answer of the chosen backends",
    "backends": "list the backends, whether each is available, and versions",
}

# How `sigmar` and `sigmar --help` group the verbs, for a reader looking for the one they need.  A verb of
# SUBCOMMANDS not named here is listed under the last group (tests/test_cli.py asks that each is named).
GROUPS: dict[str, tuple[str, ...]] = {
    "solve and check": ("solve", "verify", "explain", "hint", "count"),
    "compare backends": ("crosscheck", "bench", "survey", "fuzz"),
    "make boards": ("generate", "show", "serve"),
    "proofs": ("prove", "check"),
    "tools": ("encode", "decode", "backends"),
}
DESCRIPTION = (
    "Solve, verify, prove and benchmark Sigmar's Garden boards with six backend families "
    "(search, cnf, cpsat, minizinc, pumpkin, cpmpy; 'sigmar backends' lists them and their names)."
)


# Why a write fails on a full, read-only or forbidden disk: one line and exit 2, not a traceback.
WRITE_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG})


def module_of(name: str) -> ModuleType:
    return importlib.import_module(f"sigmar.runners.cli.{name}")


def grouped_verbs() -> dict[str, list[str]]:
    """The verbs of SUBCOMMANDS by group, in GROUPS' order; a verb no group names goes in the last."""
    groups = {title: [v for v in verbs if v in SUBCOMMANDS] for title, verbs in GROUPS.items()}
    named = {verb for verbs in groups.values() for verb in verbs}
    groups[list(GROUPS)[-1]] += [verb for verb in SUBCOMMANDS if verb not in named]
    return {title: verbs for title, verbs in groups.items() if verbs}


def terminal_width() -> int:
    """``shutil.get_terminal_size().columns`` without importing shutil: $COLUMNS, else the terminal's, else 80."""
    given = os.environ.get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


def commands_text(width: int | None = None) -> str:
    """The verbs in groups, each with its summary wrapped to the terminal: what bare ``sigmar`` and
    ``sigmar --help`` list."""
    import shutil
    import textwrap

    width = width or min(shutil.get_terminal_size().columns, 100)
    pad = max(map(len, SUBCOMMANDS)) + 4
    lines = []
    for title, verbs in grouped_verbs().items():
        lines.append(f"{title}:")
        for verb in verbs:
            wrapped = textwrap.wrap(SUBCOMMANDS[verb], max(width - pad, 30)) or [""]
            lines.append(f"  {verb.ljust(pad - 2)}{wrapped[0]}")
            lines += [" " * pad + more for more in wrapped[1:]]
    return "\n".join(lines)


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments in one line on standard error, naming the option (exit 2), without the usage block."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse makes a formatter for every option it adds; given no width, the formatter imports shutil
        # (16 M instructions, an eighth of a one-board solve) for the terminal's.  The same width, from os.
        return self.formatter_class(prog=self.prog, width=terminal_width() - 2)  # type: ignore[call-arg]

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


class TopParser(OneLineParser):
    """``sigmar`` itself: its help lists the verbs in groups (argparse would list them in one column)."""

    def format_help(self) -> str:
        import shutil
        import textwrap

        described = textwrap.fill(DESCRIPTION, min(shutil.get_terminal_size().columns, 100))
        return (
            f"{self.format_usage()}\n{described}\n\n{commands_text()}\n\n"
            "options:\n  -h, --help  show this help message and exit\n  --version   print the version and exit\n\n"
            "'sigmar COMMAND --help' lists a command's options; docs/commands.md the conventions all share.\n"
        )


class VersionAction(argparse.Action):
    """``sigmar --version``: the installed distribution's version, looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("sigmar")
        except PackageNotFoundError:  # run from a checkout that is not installed
            found = "(not installed)"
        print(f"sigmar {found}")
        parser.exit(0)


def build_parser(chosen: Sequence[str] | None = None, others: bool = True) -> argparse.ArgumentParser:
    """The parser with the full parsers of the ``chosen`` subcommands (default: all); the others are
    listed by name and summary only, or (``others`` false: a command line whose verb is known) left out:
    each is a parser of its own to make, 4 M instructions for the sixteen, 3% of a one-board solve."""
    parser = TopParser(prog="sigmar", description=DESCRIPTION)
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for name, summary in SUBCOMMANDS.items():
        if chosen is None or name in chosen:
            module_of(name).add_parser(sub)
        elif others:
            sub.add_parser(name, help=summary, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # bare `sigmar`: what it can do, in groups (exit 2: no command was given)
        print(build_parser([]).format_help(), end="")
        return 2
    try:
        args = parse(argv)
    except SystemExit as exc:  # --help (0) or bad arguments (2, already said in one line)
        return exc.code if isinstance(exc.code, int) else 2
    # Imported only now: `sigmar --help` needs none of them.
    from sigmar.encoders.processes.lifetime import Terminated, run_lifetime
    from sigmar.models.errors import SigmarError
    from sigmar.models.input_limits import check_settings

    verbose = getattr(args, "verbose", False) and "SIGMAR_VERBOSE" not in os.environ
    if verbose:  # read where a backend's output is reported (runners/workers.py), in this process only
        os.environ["SIGMAR_VERBOSE"] = "1"
    plain = getattr(args, "no_color", False) and not os.environ.get("NO_COLOR")
    if plain:  # --no-color: every console reads NO_COLOR (runners/render/terminal.py), for this run only
        os.environ["NO_COLOR"] = "1"
    try:
        check_settings()  # a limit variable that does not parse: one line before any work
        args.argv = argv  # the command line as given, for what records it (a bench's record)
        with run_lifetime():
            code: int = args.run(args)
        sys.stdout.flush()
        return code
    except SigmarError as exc:  # a board file, certificate, input, output, setting, backend name, usage, ...
        print(f"sigmar {args.command}: {exc}", file=sys.stderr)
        return 2
    except (MemoryError, RecursionError) as exc:  # the readers are bounded; this is the last net, not a traceback
        what = "out of memory" if isinstance(exc, MemoryError) else "input nested too deeply"
        where = "see docs/formats.md, 'Limits', for the size of each input"
        print(f"sigmar {args.command}: {what}; {where}", file=sys.stderr)
        return 2
    except Terminated:
        print(f"sigmar {args.command}: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print(f"sigmar {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except OSError as exc:  # a write that no output file's writer saw: standard output, the run's TMPDIR
        if exc.errno not in WRITE_ERRORS:
            raise
        where = exc.filename or "standard output"
        _silence_stdout()  # what is left in its buffer cannot be written either
        print(f"sigmar {args.command}: cannot write {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    finally:
        if verbose:
            os.environ.pop("SIGMAR_VERBOSE", None)
        if plain:
            os.environ.pop("NO_COLOR", None)


def parse(argv: list[str]) -> argparse.Namespace:
    """The arguments, or SystemExit: an error is said by the verb's own parser, which points at its own help."""
    # The subcommand comes first: `sigmar` takes no option but --help, --version.  The others are made only
    # for what lists them: a verb that is not one (argparse's "invalid choice" names them all).
    parser = build_parser(argv[:1], others=argv[0] not in SUBCOMMANDS)
    if argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version"):
        parser.error(f"unrecognized argument {argv[0]}: the command comes first ('sigmar COMMAND ...')")
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        verb = _subparsers(parser).choices.get(getattr(args, "command", None) or "", parser)
        verb.error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _silence_stdout() -> None:
    """After a broken pipe (``sigmar show ... | head -1``): no second error when Python flushes at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
