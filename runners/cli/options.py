"""Arguments that several subcommands share, defined once."""

from __future__ import annotations

import gc
import math
import os

from sigmar.encoders import registry
from sigmar.encoders.backend import counts
from sigmar.encoders.registry import expand, names_all
from sigmar.models.board import Board
from sigmar.models.errors import SigmarError
from sigmar.runners.cli.board_args import read_selected

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:  # pathlib: 17 M instructions a one-board solve need not pay
    import argparse
    from pathlib import Path
    from typing import Any

    from sigmar.models.counting import Count

WEEK = 7 * 24 * 3600.0
# ``solve --stats`` and ``generate --stats``: the positions the rule engine's count of pairings may visit.  A
# budget of positions rather than seconds gives the same bound on every machine (about a second on side 6,
# where an exact count is out of reach; small boards finish exactly).
STATS_STATES = 5000


def bad_argument(message: str) -> Exception:
    """argparse's ArgumentTypeError, for an argument's type function to raise: argparse is imported here, as a
    plain ``sigmar solve FILE`` reads its command line without it (:mod:`.quick`)."""
    import argparse

    return argparse.ArgumentTypeError(message)


def seconds(text: str) -> float:
    """A time limit: a finite number of seconds, more than 0 and at most a week (so timers never overflow)."""
    try:
        value = float(text)
    except ValueError:
        raise bad_argument(f"'{text}' is not a number") from None
    if not math.isfinite(value) or value <= 0 or value > WEEK:
        raise bad_argument(f"'{text}' must be a number of seconds above 0 and at most {WEEK:g} (a week)")
    return value


def whole_number(text: str, low: int = 1, high: int | None = None) -> int:
    """A whole number from ``low`` to ``high`` (no upper bound when None), else an argparse type error."""
    try:
        value = int(text)
    except ValueError:
        raise bad_argument(f"'{text}' is not a whole number") from None
    if high is not None and not low <= value <= high:
        raise bad_argument(f"'{text}' must be from {low} to {high}")
    if value < low:
        raise bad_argument(f"'{text}' must be at least {low}")
    return value


def cluster_address(text: str) -> str:
    """``--cluster ADDR``: an address, never empty (an empty one does not mean this machine: leave it out)."""
    _, found, rest = text.partition("://")
    if not (rest if found else text).strip():
        raise bad_argument(
            f"{text!r} is not an address (give tcp://HOST:PORT; leave --cluster out to run on this machine)"
        )
    return text


def positive_int(text: str) -> int:
    """A whole number of at least 1."""
    return whole_number(text)


def cube_count(text: str) -> int:
    """``--cubes N`` (prove, survey): from 2 (one cube is a plain proof) to 4096."""
    return whole_number(text, 2, 4096)


def job_count(text: str) -> int:
    """``--jobs``: a whole number from 1 to 1024."""
    return whole_number(text, 1, 1024)


def sat_command(text: str) -> str:
    """``--sat-cmd``: split as a shell would (``shlex``), and its program found, before any board is read."""
    try:
        import shlex

        argv = shlex.split(text)
    except ValueError as exc:
        raise bad_argument(f"cannot split '{text}': {exc}") from None
    if not argv:
        raise bad_argument("the command is empty")
    if "{proof}" in text and "{cnf}" not in text:
        raise bad_argument("with {proof}, say where the formula goes too: {cnf}")
    if "{cnf}" in argv[0] or "{proof}" in argv[0]:
        raise bad_argument("the command starts with the solver, not with {cnf} or {proof}")
    program = argv[0]
    import shutil  # here: only --sat-cmd asks

    if shutil.which(program) is None:
        where = "is not an executable file" if os.sep in program else "is not on PATH"
        raise bad_argument(f"'{program}' {where}")
    return text


def writable_file(text: str) -> Path:
    """An output file whose folder takes a new file (made when the file is written); checked before any work."""
    import argparse  # here: a plain solve reads its command line without it (quick.py)
    from pathlib import Path  # here: only when the option is given

    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"'{text}' is a folder, not a file")
    try:
        writable_folder(str(path.parent))
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"cannot write '{text}': {exc}") from None
    if path.exists() and not os.access(path, os.W_OK):
        raise argparse.ArgumentTypeError(f"cannot write '{text}': permission denied")
    return path


BOARD_ARGUMENT_HELP = (
    "'-' reads standard input; FILE:NAME, FILE:INDEX (from 0) or FILE:START-END (both included) picks boards of it"
)


def stats_pairings(board: Board) -> Count:
    """The pairings count ``--stats`` shows: the rule engine's, exact or a lower bound (``STATS_STATES``)."""
    from sigmar.models.counting import Notion, reference_count  # only with --stats

    return reference_count(board, Notion.PAIRINGS, max_states=STATS_STATES)


def add_board_file(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help=f"board file (one or many boards; {BOARD_ARGUMENT_HELP})")


def add_verbose(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="show on standard error what each backend printed (else it is shown only with an error)",
    )


DEFAULT_BACKEND = "all"


def add_backend(parser: argparse.ArgumentParser, default: str = DEFAULT_BACKEND) -> None:
    parser.add_argument(
        "--backend",
        "-b",
        default=default,
        metavar="B",
        help=f"backend name, comma list, or 'all' (default {default}); see 'sigmar backends'",
    )


def add_sat_cmd(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sat-cmd",
        type=sat_command,
        metavar="CMD",
        help="an external SAT solver that reads DIMACS and prints SAT-competition output, e.g. "
        "'cadical -q {cnf} {proof}': {cnf} is the formula's path (appended if left out), {proof} where the "
        "solver writes its DRAT/DRUP proof, which the suite then checks; without {proof} its 'no' is only a "
        "claim. It joins the chosen backends as cnf:external",
    )


def apply_sat_cmd(args: argparse.Namespace) -> list[str]:
    """Hand --sat-cmd to the cnf backend (through its environment variable, which worker processes inherit),
    and the backend it adds: ``cnf:external`` joins the race, unless ``--backend`` already names it."""
    if not getattr(args, "sat_cmd", None):
        return []
    from sigmar.encoders.cnf import EXTERNAL, SAT_CMD_ENV

    os.environ[SAT_CMD_ENV] = args.sat_cmd
    named = [] if names_all(args.backend) else [part.strip() for part in args.backend.split(",")]
    return [] if any(name.endswith(EXTERNAL) for name in named) else [f"cnf:{EXTERNAL}"]


def writable_folder(text: str) -> Path:
    """A folder the command can write in, checked before any work, and made only when something is written
    into it (so a command that then refuses leaves no empty folder behind): one that exists takes a new file,
    or the nearest folder above one that does not yet exist does."""
    import argparse  # here: a plain solve reads its command line without it (quick.py)
    import tempfile  # here: a plain `sigmar solve FILE` writes no file
    from pathlib import Path  # here: only when the option is given

    path = Path(text)
    probe = path
    while not probe.exists() and not probe.is_symlink() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        raise argparse.ArgumentTypeError(f"'{text}' is a file, or under one, not a folder")
    try:
        with tempfile.TemporaryFile(dir=probe):
            pass
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"cannot write in '{text}': {exc.strerror or exc}") from None
    return path


def add_proof_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--proof-dir",
        type=writable_folder,
        metavar="D",
        help="keep the certificate files (NAME.dead.jsonl, NAME.drup with NAME.cnf and NAME.vars.json) in D; "
        "without it they go in a temporary folder that is removed",
    )


def add_board_files(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", metavar="FILE", nargs="+", help=f"board files (each one or many boards; {BOARD_ARGUMENT_HELP})"
    )


def read_board_files(args: argparse.Namespace | list[str]) -> list[Board]:
    """The boards of the FILE arguments (``args.files``, narrowed by ``args.board``), in order; a name
    shared by two files gets its file as a prefix (see :mod:`.board_args`)."""
    if isinstance(args, list):
        return read_selected(args)
    return read_selected(args.files, getattr(args, "board", None))


def add_race_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of the commands that race backends over board files (``solve``, ``crosscheck``),
    beside the conventions (:mod:`.conventions`)."""
    add_board_files(parser)
    add_backend(parser)
    add_sat_cmd(parser)
    add_proof_dir(parser)
    add_verbose(parser)


def race_inputs(args: argparse.Namespace, *, check: bool = True, plugins: bool = True) -> tuple[list[Board], list[str]]:
    """The boards and backend names those commands run, with ``--sat-cmd``'s backend joining them.

    ``check=False``: ``all`` names every family unchecked (the race drops the unavailable ones when a
    board needs them, see :class:`sigmar.runners.race.Race`'s ``optional``); ``plugins=False``: the
    built-in ones only (the race looks for the plugins then too: its ``later``)."""
    joining = apply_sat_cmd(args)
    return read_board_files(args), [*chosen_backends(args.backend, check=check, plugins=plugins), *joining]


# The built-in encoding variants per ``encode`` target, the default first, for the help of encode and
# decode (which import no backend); tests/test_help.py checks them against the backends' ``encode_variants``.
ENCODINGS = {
    "dimacs": ("default", "steps", "thesis", "thesis-literal"),
    "cpsat": ("order", "steps"),
    "mzn": ("order", "steps"),
    "dzn": ("order", "steps"),
    "drcp-model": ("order",),
}


class UsageError(SigmarError):
    """Bad arguments discovered after parsing; exit status 2."""


def chosen_backends(spec: str, *, check: bool = True, plugins: bool = True) -> list[str]:
    """The backends a ``--backend`` value names, at least one available here."""
    names = expand(spec, check=check, plugins=plugins)
    if not names:
        raise UsageError("no backend is available here; see 'sigmar backends'")
    return names


def dask_client(address: str) -> Any:
    """A client of the Dask scheduler at ``address`` (``--cluster``), or at the address in the scheduler file
    ``address`` names (``dask scheduler --port 0 --scheduler-file FILE``: a free port on a shared machine);
    a missing package, a malformed or an unreachable address, or one of a scheme this machine cannot serve
    (``tls://`` without certificates, ``ucx://`` without UCX, ``inproc://`` of another process) is a
    UsageError (exit 2) that says which."""
    if "://" not in address and os.path.isfile(address):
        address = scheduler_file_address(address)
    _, found, rest = address.partition("://")
    if not (rest if found else address).strip():
        raise UsageError(f"--cluster {address!r}: not an address (give tcp://HOST:PORT)")
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--cluster needs dask.distributed: pip install 'dask[distributed]'") from None
    import logging  # here, not at the top: a solve without --cluster has no use for it

    if not os.environ.get("SIGMAR_VERBOSE"):  # Dask's own log (a lost scheduler's tracebacks): with --verbose only
        names = [name for name in logging.root.manager.loggerDict if name.split(".")[0] == "distributed"]
        for name in ["distributed", *names]:  # its loggers carry levels of their own (Dask's config)
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    try:
        return Client(address, timeout="10s")
    except Exception as exc:  # OSError (unreachable), ValueError or TypeError (malformed), Dask's own errors
        why = " ".join(str(exc).split()) or type(exc).__name__
    # The half-built client is collected here, where no lock is held; left to a later collection it can
    # run its close() inside Dask's own thread start-up and wait for ever on a lock that thread holds.
    gc.collect()
    raise UsageError(f"cannot reach the Dask scheduler at {address}: {why}")


def scheduler_file_address(path: str) -> str:
    """The scheduler's address in the JSON file ``dask scheduler --scheduler-file`` writes."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            found = json.load(handle).get("address")
    except (OSError, ValueError, AttributeError) as exc:
        raise UsageError(f"--cluster {path}: not a Dask scheduler file ({type(exc).__name__})") from None
    if not isinstance(found, str) or not found:
        raise UsageError(f"--cluster {path}: a scheduler file without an address")
    return found


def counting_backends(spec: str, notion: str) -> list[str]:
    """The backends of ``--backend`` that count ``notion``; one named that cannot is a usage error (exit 2)."""
    every = registry.names_all(spec)
    names = chosen_backends(spec)
    able = [name for name in names if can_count(name, notion)]
    if not every:
        unable = [name for name in names if name not in able]
        if unable:
            raise UsageError(
                f"backend '{unable[0]}' cannot count {notion} (see 'sigmar backends'; count with "
                f"{', '.join(_all_counting(notion)) or 'none here'})"
            )
    if not able:
        raise UsageError(f"no backend here can count {notion}")
    return able


def can_count(name: str, notion: str) -> bool:
    """Whether backend ``name`` is available here and counts ``notion`` (one without ``count`` is not asked)."""
    found = registry.info(registry.split_name(name)[0], with_version=False)
    return found.cls is not None and found.available and counts(found.cls, notion)


def _all_counting(notion: str) -> list[str]:
    return [name for name in registry.expand("all") if can_count(name, notion)]
