"""The ``sigmar`` console script's argparse parsers: ``sigmar`` itself and each verb's, from the verb's module.

Made only for a command line that :mod:`.quick` does not read (``--help``, an error, an option it does not
take, any verb but ``solve``): argparse, the ``re`` and ``gettext`` it imports and the ``locale`` its first
message imports cost a one-board solve about a sixth of its instructions (issue 48).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from sigmar.runners.cli.verbs import DESCRIPTION, SUBCOMMANDS, commands_text, module_of, terminal_width

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from typing import NoReturn


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


def parse(argv: list[str]) -> argparse.Namespace:
    """The arguments as argparse reads them, or SystemExit: an error is said by the verb's own parser, which
    points at its own help."""
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
