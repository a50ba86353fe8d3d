"""``sigmar prove FILE``: a checked unsolvability proof, or a verified solution, per board."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sigmar.models.board import Board
from sigmar.models.result import CertificateKind, Result, Status
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.cli.conventions import AnswersOutput, Summary, add_answers_output, add_time_limit, follow
from sigmar.runners.cli.options import (
    UsageError,
    add_board_files,
    add_proof_dir,
    cluster_address,
    cube_count,
    dask_client,
    read_board_files,
    seconds,
    writable_folder,
)
from sigmar.runners.prove import DEFAULT_PROVER, PROVERS, Proved, Prover
from sigmar.runners.render.answer_json import exit_code, result_json, summary_line
from sigmar.runners.render.columns import fixed_row, terminal_width


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "prove",
        help="prove boards unsolvable with a checked certificate (or solve them)",
        description="For each board: a certificate of unsolvability, checked by code independent of the "
        "backend that found it, or a verified solution for a solvable board. The certificate kept is the most "
        "readable one found in about the fastest proof's time: the counts, else a stuck set of tiles, else the "
        "board's dead states closed under every move, else a DRUP proof that its CNF is unsatisfiable (when "
        "the DRUP proof comes first, the search gets about as long again, 2 s at most, to find the dead "
        "states). Each board is printed as it is done; CP-SAT and MiniZinc's corroboration is timed apart "
        "from the proof. With --cubes N the board is split by cube-and-conquer instead, for a 'cubes' "
        "certificate (docs/cubes.md). Exit 0 all answered, 1 some not, 2 bad input, 3 a wrong answer (a rejected "
        "certificate or solution, or a corroborating backend that solved a refuted board).",
    )
    add_board_files(parser)
    add_proof_dir(parser)
    add_time_limit(parser)
    parser.add_argument(
        "--prover",
        default=DEFAULT_PROVER,
        choices=PROVERS,
        help=f"SAT solver that writes the proof (default {DEFAULT_PROVER})",
    )
    parser.add_argument(
        "--corroborate",
        type=seconds,
        default=5.0,
        metavar="S",
        help="seconds for CP-SAT and MiniZinc to corroborate a proof (default 5)",
    )
    parser.add_argument("--no-corroborate", action="store_true", help="do not ask CP-SAT or MiniZinc")
    parser.add_argument(
        "--no-second-opinion", action="store_true", help="do not ask the verified 'drup' checker as well"
    )
    parser.add_argument(
        "--cubes",
        type=cube_count,
        metavar="N",
        help="cube-and-conquer: split each board's formula into about N cubes (fewer where a node is refuted early, "
        "more where a hard cube splits again), refuted side by side on this machine's cores (or the cluster's "
        "workers), for a 'cubes' certificate (docs/formats.md#cubes)",
    )
    parser.add_argument(
        "--cluster",
        type=cluster_address,
        metavar="ADDR",
        help="with --cubes: refute the cubes on an existing Dask scheduler (e.g. tcp://127.0.0.1:8786)",
    )
    parser.add_argument(
        "--export",
        type=writable_folder,
        metavar="DIR",
        help="also write each drup or cubes certificate's every refutation into DIR/NAME (NAME the certificate's "
        "stem) as pairs a standard checker reads: NAME.cnf and NAME.drup for drat-trim, NAME.lrat for an LRAT "
        "checker, with manifest.json saying what each pair proves and what it cannot (docs/certificates.md)",
    )
    add_answers_output(parser)
    follow(parser, boards=True)
    parser.set_defaults(run=run)


HEADER = ("board", "status", "reason", "checked", "proof s", "corrob. s", "detail")
WIDTHS = (40, 10, 11, 7, 8, 9)  # every column but the last, which is never cut


def run(args: argparse.Namespace) -> int:
    summary = Summary(args)
    boards = read_board_files(args)
    results = []
    if args.cluster and not args.cubes:
        raise UsageError("--cluster sends the cubes of --cubes N to the cluster: give --cubes too")
    table = not args.json and not args.quiet
    width = terminal_width()
    # In a terminal a name longer than the board column wraps inside it (a row that does not fit at all is
    # folded, the name whole on its own line); into a pipe it is cut at 40, for grep and cut.
    longest = max(len(HEADER[0]), *(len(b.name) for b in boards))
    widths = WIDTHS if width is None else (min(longest, WIDTHS[0]), *WIDTHS[1:])
    if table:
        print(fixed_row(HEADER, widths, width), flush=True)
    with AnswersOutput(args) as answers, ProofStore(args.proof_dir) as proofs, _engine(args, proofs) as engine:
        for board in boards:
            proved = engine.prove(board, args.time_limit)
            result = proved.result
            results.append(result)
            extra = proved.json_extra()
            exported = None if args.export is None else _export(board, result, args.export)
            if args.export is not None:
                extra["export"] = exported
            answers.write(result_json(board, result, **extra))
            if table:  # each board as it is done: a long run shows its progress
                print(fixed_row(row(board.name, proved, exported), widths, width), flush=True)
    summary.print(results)
    return exit_code(results)


def _export(board: Board, result: Result, folder: Path) -> str | None:
    """The manifest of the board's certificate exported into ``folder``/STEM (drup and cubes only), else None."""
    certificate = result.certificate
    if result.status is not Status.UNSOLVABLE or not result.checked or certificate is None or not certificate.file:
        return None
    if certificate.kind not in (CertificateKind.DRUP, CertificateKind.CUBES):
        return None
    from sigmar.runners.checking.travel import export

    file = Path(certificate.file)
    stem = file.name.removesuffix(".drup").removesuffix(".cubes")
    record = {"kind": certificate.kind.value, "file": str(file)}
    return str(export(board, record, folder / stem, temporary=certificate.temporary))


def _engine(args: argparse.Namespace, proofs: ProofStore) -> Any:
    """The race of routes to a certificate, or with ``--cubes`` the cube-and-conquer engine."""
    corroborate_limit = None if args.no_corroborate else args.corroborate
    if not args.cubes:
        return Prover(
            proofs, prover=args.prover, corroborate_limit=corroborate_limit, second_opinion=not args.no_second_opinion
        )
    from sigmar.runners.cubes.pools import DaskPool, LocalPool
    from sigmar.runners.cubes.split import CubesEngine

    client = dask_client(args.cluster) if args.cluster else None
    pool = DaskPool(client) if client is not None else LocalPool()
    return CubesEngine(
        pool, proofs, cubes=args.cubes, prover=args.prover, corroborate_limit=corroborate_limit, client=client
    )


def row(name: str, proved: Proved, exported: str | None = None) -> tuple[str, ...]:
    """One line of the table; text, not markup, as board names and paths may hold square brackets."""
    result = proved.result
    unsolvable = result.status is Status.UNSOLVABLE
    detail = summary_line(result)
    certificate = result.certificate
    if unsolvable and certificate is not None and certificate.file and not certificate.temporary:
        detail += f" [{certificate.file}]"
    if result.message and result.status is not Status.ERROR:
        detail += f" ({result.message})"
    if exported:
        detail += f"; exported: {exported}"
    if "preferred" in proved.details:
        detail += f"; {proved.details['preferred']}"
    if proved.corroboration:
        detail += "; corroboration: " + ", ".join(f"{k} {v}" for k, v in proved.corroboration.items())
    checked = ("yes" if result.checked else "NO") if unsolvable else ("yes" if result.verified else "-")
    corroborated = "-" if proved.corroboration_seconds is None else f"{proved.corroboration_seconds:.3f}"
    return (name, str(result.status), str(result.reason or "-"), checked, f"{result.seconds:.3f}", corroborated, detail)
