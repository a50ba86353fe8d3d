"""``sigmar decode FILE OUTPUT [--sidecar S]``: an external SAT solver's answer, back as checked moves.

The loop this closes: ``sigmar encode FILE --to dimacs -o b.cnf`` writes
``b.cnf`` and ``b.vars.json``; any solver run on ``b.cnf`` prints an assignment;
this command rebuilds the same formula from the board (the sidecar says which
variant, and its variable and clause counts must match), turns the assignment into
moves and replays them with the rule engine.
"""

from __future__ import annotations

import argparse
import json
import re

from sigmar.models import input_limits
from sigmar.models.rules import verify
from sigmar.models.solution import format_moves, move_to_json
from sigmar.runners.cli.board_args import other_kind, read_selected
from sigmar.runners.cli.conventions import follow
from sigmar.runners.cli.options import ENCODINGS, UsageError, add_board_file


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "decode",
        help="turn an external SAT solver's assignment of 'encode --to dimacs' back into moves",
        description="Read a SAT solver's output for a DIMACS file written by 'sigmar encode --to dimacs' "
        "(SAT-competition 's'/'v' lines, or a bare list of literals), decode it into moves and check them "
        "with the rule engine. A bare 's UNSATISFIABLE' is the solver's claim, not a result: have the solver "
        "write a DRUP/DRAT proof beside the .cnf and .vars.json (e.g. 'cadical OUT.cnf OUT.drup') and check it "
        "with 'sigmar check FILE OUT.drup'. Exit 0: valid solution; 1: invalid, no answer, or a claim of "
        "UNSAT; 2: bad input.",
    )
    add_board_file(parser)
    parser.add_argument("assignment", metavar="OUTPUT", help="the solver's output ('-' reads standard input)")
    parser.add_argument("--sidecar", metavar="S", help="the .vars.json written beside the .cnf (names the variant)")
    parser.add_argument(
        "--variant",
        default=None,
        metavar="V",
        help=f"encoding variant when there is no sidecar: {', '.join(ENCODINGS['dimacs'])} (default: default)",
    )
    follow(parser, boards=True, board_help="which board of FILE (default: the one the sidecar names, else the first)")
    # The older spelling, by position (FILE:INDEX says the same now).
    parser.add_argument("--index", type=int, default=None, help=argparse.SUPPRESS)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from sigmar.encoders.cnf import VARIANTS, build_formula
    from sigmar.encoders.cnf.formula import parse_assignment

    _refuse_a_formula(args.file)
    boards = read_selected([args.file], args.board)
    sidecar = _sidecar(args.sidecar) if args.sidecar else {}
    variant = args.variant or sidecar.get("variant", "default")
    if variant not in VARIANTS:
        raise UsageError(f"unknown variant '{variant}' (choose from {', '.join(VARIANTS)})")
    if args.index is not None:
        if not 0 <= args.index < len(boards):
            raise UsageError(f"--index {args.index}: {args.file} has {len(boards)} boards")
        board = boards[args.index]
    else:
        named = [b for b in boards if sidecar.get("board") and b.name == sidecar["board"]]
        board = named[0] if named else boards[0]
    formula = build_formula(board, variant)
    for key, have in (("variables", formula.nv), ("clauses", len(formula.clauses))):
        if key in sidecar and sidecar[key] != have:
            raise UsageError(
                f"the sidecar says {sidecar[key]} {key} but board '{board.name}' encodes to {have}: "
                "a different board or sigmar version wrote it"
            )
    status, assignment = parse_assignment(input_limits.read_text(args.assignment, input_limits.SAT_OUTPUT, stdin=True))
    record: dict = {"board": board.name, "variant": variant, "sat": status.lower()}
    code = 1
    if status == "UNSATISFIABLE":
        record["status"] = "unknown"
        record["claims"] = [{"backend": "external", "status": "unsolvable", "reason": "proof", "checked": False}]
        if variant == "thesis-literal":
            record["message"] = (
                "the literal thesis encoding is unsatisfiable on every board with gold: this proves nothing"
            )
        else:
            stem = args.sidecar.removesuffix(".vars.json") if args.sidecar else "OUT"
            record["message"] = (
                f"a claim, not a result: the solver says the {variant} encoding (horizon {formula.horizon}) is "
                "unsatisfiable, but gave no proof to check; have it write one beside the formula (cadical "
                f"{stem}.cnf {stem}.drup) and check that: sigmar check {args.file} {stem}.drup"
            )
        code = 1
    elif status == "SATISFIABLE":
        if any(abs(lit) > formula.nv for lit in assignment):
            raise UsageError(
                f"the assignment names variable {max(map(abs, assignment))} but the formula has {formula.nv}"
            )
        moves = formula.decode(assignment)
        verdict = verify(board, moves)
        record.update(status="solved" if verdict.valid else "error", verified=verdict.valid)
        record["moves"] = [move_to_json(board, m) for m in moves]
        if not verdict.valid:
            record["message"] = str(verdict)
        code = 0 if verdict.valid else 1
        if not args.json:
            if not args.quiet:
                print(f"{board.name}: {verdict}")
                print(format_moves(board, moves), end="")
            return code
    else:
        record["status"] = "unknown"
    if args.json:
        print(json.dumps(record))
    elif not args.quiet:
        said = "claimed unsolvable" if record.get("claims") else record["status"]
        print(f"{board.name}: {said}" + (f": {record['message']}" if "message" in record else ""))
    return code


def _refuse_a_formula(path: str) -> None:
    """The .cnf given where its board file goes (an easy slip): say which file decode wanted."""
    if other_kind(path) != "a DIMACS formula":
        return
    with open(path, encoding="utf-8", errors="replace") as handle:
        named = re.search(r"^c board: (.*) \(side \d+", handle.read(4096), re.MULTILINE)
    which = f" (for this formula, the file of board '{named[1]}')" if named else ""
    stem = path.removesuffix(".cnf")
    raise UsageError(
        f"{path} is a DIMACS formula, not a board file: decode FILE OUTPUT takes the board file that "
        f"'sigmar encode --to dimacs' read{which}, then the SAT solver's output; the formula's "
        f"{stem}.vars.json goes with --sidecar"
    )


def _sidecar(path: str) -> dict:
    """The .vars.json beside the .cnf: a JSON object within the variable map's limit."""
    found = input_limits.json_value(input_limits.read_text(path, input_limits.VARS_JSON), path)
    if not isinstance(found, dict):
        raise UsageError(f"{path}: not a variable map (a JSON object)")
    return found
