"""``sigmar crosscheck FILE``: every backend to the end on every board; grade, compare, exit 3 on trouble."""

from __future__ import annotations

import argparse
from collections import Counter

from rich.table import Table

from sigmar.models.result import Result, Status

from ..checking.certify import ProofStore
from ..checking.grading import Grade, grade_board
from ..race import Race
from ..render.answer_json import dumps, exit_code, graded_json
from ..render.terminal import add_text_row, table_console
from .conventions import Summary, add_time_limit, follow
from .options import add_race_arguments, race_inputs


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "crosscheck",
        help="run every backend to the end on each board and report disagreements",
        description="Run every chosen backend (default: all available) to the end on each board, each in "
        "its own process; verify every solution; grade every answer (correct, unconfirmed, wrong, unknown, "
        "error) and say where backends disagree. Exit 3 on any disagreement or wrong answer.",
    )
    add_race_arguments(parser)
    add_time_limit(parser)
    follow(parser, boards=True)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    summary = Summary(args)
    boards, names = race_inputs(args)
    console = table_console()
    results: list[Result] = []
    tally: dict[str, Counter[Grade]] = {name: Counter() for name in names}
    disagreements = 0
    table = Table(
        title=f"sigmar crosscheck {' '.join(args.files)}", caption="seconds per backend; grade shown unless correct"
    )
    table.add_column("board", no_wrap=True, max_width=24, overflow="ellipsis")
    table.add_column("answer", no_wrap=True)
    for name in names:
        table.add_column(name, no_wrap=True)
    table.add_column("agree")
    with ProofStore(args.proof_dir) as proofs, Race(names, proofs=proofs) as race:
        for board in boards:
            answers = race.solve_all(board, args.time_limit)
            verdict = grade_board(board, answers)
            trouble = verdict.any_wrong or not verdict.agree
            results.append(verdict.result.with_(wrong=True) if trouble else verdict.result)
            disagreements += not verdict.agree
            for name, grade in verdict.grades.items():
                tally[name][grade] += 1
            if args.json:
                print(dumps(graded_json(board, verdict, answers)), flush=True)
            elif not args.quiet:
                cells = [cell(answers[n], verdict.grades[n]) for n in names]
                agree = "yes" if verdict.agree else "[red]NO[/]"
                add_text_row(table, board.name, short_answer(verdict.result), *cells, agree)
                for note in verdict.notes:
                    console.print(f"[bold red]{board.name}[/]: {note}", highlight=False)
    if not args.json and not args.quiet:
        console.print(table)
        console.print(summary_table(tally, len(boards), disagreements))
    summary.print(results)
    return exit_code(results)


def summary_table(tally: dict[str, Counter[Grade]], boards: int, disagreements: int) -> Table:
    summary = Table(title=f"{boards} boards, {disagreements} disagreements")
    summary.add_column("backend")
    for grade in Grade:
        summary.add_column(str(grade), justify="right")
    for name, counts in tally.items():
        summary.add_row(name, *(str(counts[g]) for g in Grade))
    return summary


SHORT = {Status.SOLVED: "sol", Status.UNSOLVABLE: "unsol", Status.UNKNOWN: "unk", Status.ERROR: "err"}


def short_answer(result: Result) -> str:
    return f"unsol/{result.reason}" if result.status is Status.UNSOLVABLE else str(result.status)


def cell(answer: Result, grade: Grade) -> str:
    """One backend's answer in a table cell; anything but "correct" is spelled out."""
    text = f"{SHORT[answer.status]} {answer.seconds:.2f}"
    if grade is Grade.CORRECT:
        return text
    colour = "red" if grade in (Grade.WRONG, Grade.ERROR) else "yellow"
    return f"{text} [{colour}]{grade}[/]"
