"""The ``sigmar`` console script: its command line read (:mod:`.quick`, else :mod:`.parsers`) and the verb run.

Each subcommand module defines ``add_parser(subparsers)`` and
``run(args) -> int``.  Bad input anywhere becomes one line on standard error
and exit status 2, never a traceback.

Start-up follows the work: only the chosen subcommand's module is imported
(``sigmar --help`` lists the others from ``SUBCOMMANDS``, whose one-line
summaries a test keeps equal to each module's own).
"""

from __future__ import annotations

import errno
import gc
import os
import sys

from sigmar.runners.cli.verbs import DESCRIPTION, GROUPS, SUBCOMMANDS, commands_text, grouped_verbs, module_of

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:  # argparse only for a command line that sigmar.runners.cli.quick does not read
    import argparse
    from argparse import Namespace
    from collections.abc import Sequence

# Why a write fails on a full, read-only or forbidden disk: one line and exit 2, not a traceback.
WRITE_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EFBIG})


def console() -> int:
    """The ``sigmar`` console script (pyproject.toml's entry point; install.sh writes the same): :func:`main` as a
    whole process, with Python's cycle collector kept to the verb's own work.

    Why (issue 48, one board whole process): the collector is held off while the command starts, and what is
    alive when its verb begins (the modules, classes and functions imported, which live as long as the
    process) is frozen out of its sight (``gc.freeze``), the collector then back on for what the verb makes;
    at the end everything is frozen again, so that the interpreter's exit does not look through every object
    for cycles.  Collections set off by the imports' allocations, and the exit's look, were some 10 M of a
    one-board solve's 97 M instructions.  Nothing is left to the collector at exit: what must be done when an
    object goes (a file flushed) is done by the code that made it (its ``with``), as every verb does."""
    gc.disable()
    code = main(whole_process=True)
    gc.freeze()
    return code


def main(argv: Sequence[str] | None = None, *, whole_process: bool = False) -> int:
    """``sigmar ARGV``'s exit status (``whole_process``: called by :func:`console`, the collector held off until
    the verb runs)."""
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
        # A solve's race forks every process it starts, and says when it keeps a file: its janitor waits for
        # that, and a board search settles here pays for none (encoders/processes/lifetime.py)
        with run_lifetime(lazy=args.command == "solve"):
            if whole_process:  # what lives now lives as long as the process: never looked through again
                gc.freeze()
                gc.enable()
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


def parse(argv: list[str]) -> Namespace:
    """The arguments, or SystemExit: an error is said by the verb's own parser, which points at its own help.
    A plain ``sigmar solve FILE...`` is read without argparse (:mod:`.quick`), the same Namespace."""
    if argv[0] == "solve":  # only a solve's module is worth importing before the verb's parser
        from sigmar.runners.cli.quick import read_quickly

        quick = read_quickly(argv)
        if quick is not None:
            return quick
    from sigmar.runners.cli.parsers import parse as parse_fully

    return parse_fully(argv)


def build_parser(chosen: Sequence[str] | None = None, others: bool = True) -> argparse.ArgumentParser:
    """The parser of ``sigmar`` and of the ``chosen`` verbs (see :func:`.parsers.build_parser`)."""
    from sigmar.runners.cli.parsers import build_parser as build

    return build(chosen, others)


__all__ = [
    "DESCRIPTION",
    "GROUPS",
    "SUBCOMMANDS",
    "WRITE_ERRORS",
    "build_parser",
    "commands_text",
    "console",
    "grouped_verbs",
    "main",
    "module_of",
    "parse",
]


def _silence_stdout() -> None:
    """After a broken pipe (``sigmar show ... | head -1``): no second error when Python flushes at exit."""
    import contextlib

    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
