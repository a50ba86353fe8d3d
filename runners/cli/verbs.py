"""The verbs of ``sigmar``: their names and one-line summaries, their groups, and the module each lives in.

What the bare ``sigmar`` and ``sigmar --help`` list (without importing the verbs), and what the entry
point (:mod:`.entry`) and the parsers (:mod:`.parsers`) share.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:
    from types import ModuleType

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


def module_of(name: str) -> ModuleType:
    """The verb's module (``__import__``: importlib is one more module to load for a one-board solve)."""
    full = f"sigmar.runners.cli.{name}"
    __import__(full)
    return sys.modules[full]


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
