"""``sigmar crosscheck FILE``: every backend to the end on every board; grade, compare, exit 3 on trouble."""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Mapping
from contextlib import ExitStack
from typing import Any

from rich.table import Table

from sigmar.models.counting import Notion
from sigmar.models.result import Result, Status

from ..checking.certify import ProofStore
from ..checking.count_grade import CountGrade, CountVerdict
from ..checking.grading import Grade, grade_board
from ..race import Race, count_board
from ..render.answer_json import dumps, exit_code, result_json, verdict_json
from ..render.terminal import add_text_row, table_console
from .options import add_race_arguments, can_count, race_inputs


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "crosscheck",
        help="run every backend to the end on each board and report disagreements",
        description="Run every chosen backend (default: all available) to the end on each board, each in "
        "its own process; verify every solution; grade every answer (correct, unconfirmed, wrong, unknown, "
        "error) and say where backends disagree. Exit 3 on any disagreement or wrong answer.",
    )
    add_race_arguments(parser)
    parser.add_argument(
        "--compare-counts",
        action="store_true",
        help="also count both notions (sequences, pairings) with every chosen backend that counts, each against "
        "the rule engine's count; a different exact count is a wrong answer (exit 3)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
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
    counters = {notion: [n for n in names if can_count(n, notion)] for notion in Notion} if args.compare_counts else {}
    count_tally: dict[str, Counter[CountGrade]] = {}
    with ProofStore(args.proof_dir) as proofs, Race(names, proofs=proofs) as race, ExitStack() as stack:
        count_races = {
            notion: stack.enter_context(Race(chosen, proofs=proofs)) for notion, chosen in counters.items() if chosen
        }
        for board in boards:
            answers = race.solve_all(board, args.time_limit)
            verdict = grade_board(board, answers)
            counted = {n: count_board(r, board, n, args.time_limit) for n, r in count_races.items()}
            for counts in counted.values():
                for name, graded in counts.grades.items():
                    count_tally.setdefault(f"{name} ({counts.notion})", Counter())[graded] += 1
            count_wrong = any(c.any_wrong for c in counted.values())
            trouble = verdict.any_wrong or not verdict.agree or count_wrong
            results.append(verdict.result.with_(wrong=True) if trouble else verdict.result)
            disagreements += not verdict.agree
            for name, grade in verdict.grades.items():
                tally[name][grade] += 1
            if args.json:
                record = result_json(
                    board,
                    verdict.result,
                    answers={name: str(a.status) for name, a in answers.items()},
                    agree=verdict.agree,
                    grades={name: str(g) for name, g in verdict.grades.items()},
                    times={name: round(a.seconds, 6) for name, a in answers.items()},
                )
                if verdict.notes:
                    record["notes"] = list(verdict.notes)
                if counted:
                    record["counts"] = {str(n): counts_json(c) for n, c in counted.items()}
                print(dumps(record), flush=True)
            else:
                cells = [cell(answers[n], verdict.grades[n]) for n in names]
                agree = "yes" if verdict.agree else "[red]NO[/]"
                add_text_row(table, board.name, short_answer(verdict.result), *cells, agree)
                for note in verdict.notes:
                    console.print(f"[bold red]{board.name}[/]: {note}", highlight=False)
                for counts in counted.values():
                    for note in counts.notes:
                        console.print(f"[bold red]wrong count[/]: {note}", highlight=False)
    if not args.json:
        console.print(table)
        console.print(summary_table(tally, len(boards), disagreements))
        if count_tally:
            console.print(count_table(count_tally))
    return exit_code(results)


def counts_json(verdict: CountVerdict) -> dict[str, object]:
    """One notion's counts on a board: as ``sigmar count --json`` writes them, without the board's name."""
    record = verdict_json(verdict)
    del record["board"], record["notion"]
    return record


def count_table(tally: dict[str, Counter[CountGrade]]) -> Table:
    return grades_table("counts against the rule engine's", "backend (notion)", tally, tuple(CountGrade))


def summary_table(tally: dict[str, Counter[Grade]], boards: int, disagreements: int) -> Table:
    return grades_table(f"{boards} boards, {disagreements} disagreements", "backend", tally, tuple(Grade))


def grades_table(title: str, first: str, tally: Mapping[str, Mapping[Any, int]], grades: tuple[Any, ...]) -> Table:
    """How many of each grade each row got: a row per backend (and notion), a column per grade."""
    table = Table(title=title)
    table.add_column(first)
    for grade in grades:
        table.add_column(str(grade), justify="right")
    for name, counts in tally.items():
        table.add_row(name, *(str(counts[g]) for g in grades))
    return table


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
