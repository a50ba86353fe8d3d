"""``sigmar explain FILE...``: each board's verdict and, when it is unsolvable, its deepest play and smallest repair."""

from __future__ import annotations

import argparse
from dataclasses import replace

from sigmar.models.board import Board
from sigmar.models.boardfile import format_board
from sigmar.models.result import Result, Status
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.cli.conventions import AnswersOutput, Summary, add_answers_output, add_time_limit, follow
from sigmar.runners.cli.options import add_board_files, add_proof_dir, read_board_files
from sigmar.runners.design.difficulty import difficulty, difficulty_lines
from sigmar.runners.design.explain import VERDICT_BACKENDS, Deepest, Explanation, explain, explanation_json
from sigmar.runners.design.repair import Repair
from sigmar.runners.race import Race
from sigmar.runners.render.answer_json import exit_code, summary_line


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "explain",
        help="say why a board cannot be cleared: its deepest play and its smallest repair",
        description="For each board, the verdict (as 'solve' gives it, every 'unsolvable' with a checked "
        "certificate) and, for an unsolvable board, the deepest play (the most tiles any play clears, a play "
        "that clears them, why the position it leaves is stuck, and whether 'no play clears more' is proved by "
        "a checked play-bound certificate; else 'at least') and the smallest repair (one swap of two tiles or "
        "one move of a tile to an empty cell that makes the board solvable, with the changed board and its "
        "replayed solution; or 'no repair with one change', said only when every candidate was refuted with a "
        "checked certificate). With --difficulty, every board's difficulty too (docs/explain.md#difficulty). The "
        "time limit applies to each part on its own. Exit 0 every board answered, 1 some board not, 2 bad input, "
        "3 a wrong answer or a rejected certificate.",
    )
    add_board_files(parser)
    parser.add_argument(
        "--difficulty",
        action="store_true",
        help="also each board's difficulty: the exact probability that uniformly random play clears it (over the "
        "play graph; sampled, with a 95%% interval, past the graph's limit), its safe first moves, the mean safe "
        "moves along the solutions, the deepest trap (replayed, its loss certified) and the pairings count",
    )
    add_time_limit(parser, "seconds for each part of a board (verdict, deepest play, repair, each difficulty figure)")
    add_proof_dir(parser)
    add_answers_output(parser)
    follow(parser, boards=True)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    summary = Summary(args)
    boards = read_board_files(args)
    verdicts: list[Result] = []
    with (
        AnswersOutput(args) as answers,
        ProofStore(args.proof_dir) as proofs,
        Race(list(VERDICT_BACKENDS), proofs=proofs) as race,
    ):
        for board in boards:
            outcome = race.solve(board, args.time_limit)
            verdict = outcome.result.with_(wrong=True) if outcome.wrong else outcome.result
            explanation = explain(board, verdict, args.time_limit, proofs)
            if args.difficulty:
                explanation = replace(explanation, difficulty=difficulty(board, args.time_limit, proofs=proofs))
            verdicts.append(verdict.with_(wrong=True) if explanation.wrong else verdict)
            answers.write(explanation_json(explanation))
            if not args.json and not args.quiet:
                print(text(explanation), flush=True)
    summary.print(verdicts)
    return exit_code(verdicts)


def text(explanation: Explanation) -> str:
    """One board's explanation for a person: the verdict line, then the deepest play and the repair."""
    board, verdict = explanation.board, explanation.verdict
    lines = [f"{board.name}: {verdict.status} ({summary_line(verdict)})"]
    if explanation.deepest is not None:
        lines += deepest_lines(board, explanation.deepest)
    if explanation.repair is not None:
        lines += repair_lines(board, explanation.repair)
    if explanation.difficulty is not None:
        lines += difficulty_lines(explanation.difficulty)
    return "\n".join(lines) + "\n"


def deepest_lines(board: Board, found: Deepest) -> list[str]:
    count = len(found.moves)
    head = f"  deepest play: {found.cleared} of {len(board.tiles)} tiles in {count} move{'s' if count != 1 else ''}"
    if found.proved:
        head += f"; no play clears more (play-bound certificate checked, {found.play.states:,} states)"
    elif found.wrong:
        head += f"; its play-bound certificate was REJECTED: {found.check_message}"
    else:
        head += f"; at least (no bound proved within the time, {found.play.states:,} states walked)"
    lines = [head]
    if found.moves:
        lines.append("    play: " + "; ".join(" ".join(_cell(board, c) for c in move.cells) for move in found.moves))
    lines.append(f"    it leaves {found.left.bit_count()} tiles: {found.why_stuck}")
    return lines


def repair_lines(board: Board, repair: Repair) -> list[str]:
    if repair.board is None or repair.solution is None:
        word = "none with one change" if repair.none_with_one else "not found"
        return [f"  smallest repair: {word}: {repair.why}"]
    moves = len(repair.solution.moves)
    changes = "; ".join(change.describe(board) for change in repair.changes)
    shown = format_board(repair.board, with_name=False).rstrip("\n").replace("\n", "\n    ")
    solved = "replayed" if repair.solution.verified else "NOT replayed"
    return [
        f"  smallest repair: {len(repair.changes)} change: {changes}",
        f"    the changed board is cleared in {moves} moves ({solved}):",
        "    " + shown,
    ]


def _cell(board: Board, cell: tuple[int, int]) -> str:
    row, col = board.rowcol(cell)
    return f"{row},{col}"


__all__ = ["run", "add_parser", "Status"]
