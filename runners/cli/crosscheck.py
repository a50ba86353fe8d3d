"""``sigmar crosscheck FILE``: every backend to the end on every board; grade, compare, exit 3 on trouble."""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Mapping
from contextlib import ExitStack
from typing import Any

from rich.table import Table
from rich.text import Text

from sigmar.models.counting import Notion
from sigmar.models.result import Result, Status
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.checking.count_grade import CountGrade, CountVerdict
from sigmar.runners.checking.grading import BoardVerdict, Grade, grade_board
from sigmar.runners.cli.conventions import AnswersOutput, Summary, add_answers_output, add_time_limit, follow
from sigmar.runners.cli.options import add_race_arguments, can_count, race_inputs
from sigmar.runners.race import Race, count_board
from sigmar.runners.render.answer_json import exit_code, graded_json, verdict_json
from sigmar.runners.render.terminal import print_table, progress_bar, table_console


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "crosscheck",
        help="run every backend to the end on each board and report disagreements",
        description="Run every chosen backend (default: all available) to the end on each board, each in "
        "its own process; verify every solution; grade every answer (correct, unconfirmed, wrong, unknown, "
        "error; a 'no' is correct only with its own checked certificate, else a claim) and say where backends "
        "disagree. A progress bar goes to standard error. Exit 3 on any disagreement or wrong answer.",
    )
    add_race_arguments(parser)
    parser.add_argument(
        "--compare-counts",
        action="store_true",
        help="also count both notions (sequences, pairings) with every chosen backend that counts, each against "
        "the rule engine's count; a different exact count is a wrong answer (exit 3)",
    )
    add_time_limit(parser)
    add_answers_output(parser)
    follow(parser, boards=True)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    summary = Summary(args)
    boards, names = race_inputs(args)
    console = table_console()
    results: list[Result] = []
    tally: dict[str, Counter[Grade]] = {name: Counter() for name in names}
    disagreements = 0
    notes: list[Text] = []
    table = Table(
        title=f"sigmar crosscheck {' '.join(args.files)}",
        caption="seconds per backend; the grade is shown unless correct (a correct 'no' was certified; a "
        "'claimed' one was not checked)",
    )
    # The one column that wraps when the terminal is narrow: a board name is never cut.
    table.add_column("board", overflow="fold", min_width=BOARD_MIN_WIDTH)
    table.add_column("answer", no_wrap=True)
    for name in names:
        table.add_column(name, no_wrap=True)
    table.add_column("agree", no_wrap=True)
    counters = {notion: [n for n in names if can_count(n, notion)] for notion in Notion} if args.compare_counts else {}
    count_tally: dict[str, Counter[CountGrade]] = {}
    with (
        AnswersOutput(args) as output,
        ProofStore(args.proof_dir) as proofs,
        Race(names, proofs=proofs) as race,
        ExitStack() as stack,
        progress_bar(quiet=args.quiet) as progress,
    ):
        count_races = {
            notion: stack.enter_context(Race(chosen, proofs=proofs)) for notion, chosen in counters.items() if chosen
        }
        task = progress.add_task(f"{len(boards)} boards", total=len(boards))
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
            progress.update(task, advance=1, description="agree" if not trouble else "TROUBLE")
            progress.refresh()
            record = graded_json(board, verdict, answers)
            if counted:
                record["counts"] = {str(n): counts_json(c) for n, c in counted.items()}
            output.write(record)
            if args.json:
                continue
            agree = Text("yes") if verdict.agree else Text("NO", style="bold red")
            cells = [cell(answers[n], verdict.grades[n]) for n in names]
            table.add_row(Text(board.name), Text(short_answer(verdict)), *cells, agree)
            notes += [Text.assemble((board.name, "bold red"), f": {note}") for note in verdict.notes]
            notes += [
                Text.assemble(("wrong count", "bold red"), f": {note}") for c in counted.values() for note in c.notes
            ]
    if not args.json and not args.quiet:
        print_table(console, table, keys=2)
        for note in notes:
            console.print(note, soft_wrap=True)
        print_table(console, summary_table(tally, len(boards), disagreements))
        if count_tally:
            print_table(console, count_table(count_tally))
    summary.print(results)
    return exit_code(results)


def counts_json(verdict: CountVerdict) -> dict[str, object]:
    """One notion's counts on a board: as ``sigmar count --json`` writes them, without the board's name."""
    record = verdict_json(verdict)
    del record["board"], record["notion"]
    return record


def summary_table(tally: dict[str, Counter[Grade]], boards: int, disagreements: int) -> Table:
    return grades_table(f"{boards} boards, {disagreements} disagreements", "backend", tally, GRADE_STYLE)


def count_table(tally: dict[str, Counter[CountGrade]]) -> Table:
    return grades_table("counts against the rule engine's", "backend (notion)", tally, COUNT_GRADE_STYLE)


def grades_table(title: str, first: str, tally: Mapping[str, Mapping[Any, int]], styles: Mapping[Any, str]) -> Table:
    """How many of each grade (the keys of ``styles``, each cell styled when not 0) each row got: a row per
    backend (and notion), a column per grade."""
    table = Table(title=title)
    table.add_column(first, no_wrap=True)
    for grade in styles:
        table.add_column(str(grade), justify="right")
    for name, counts in tally.items():
        table.add_row(Text(name), *(Text(str(counts[g]), style=styles[g] if counts[g] else "") for g in styles))
    return table


BOARD_MIN_WIDTH = 24
SHORT = {Status.SOLVED: "sol", Status.UNSOLVABLE: "unsol", Status.UNKNOWN: "unk", Status.ERROR: "err"}
GRADE_STYLE = {
    Grade.CORRECT: "green",
    Grade.UNCONFIRMED: "yellow",
    Grade.WRONG: "bold red",
    Grade.UNKNOWN: "dim",
    Grade.ERROR: "red",
}
COUNT_GRADE_STYLE = {
    CountGrade.CORRECT: "green",
    CountGrade.WRONG: "bold red",
    CountGrade.UNCONFIRMED: "yellow",
    CountGrade.BOUND: "yellow",
    CountGrade.UNKNOWN: "dim",
    CountGrade.ERROR: "red",
    CountGrade.REFUSED: "dim",
}


def short_answer(verdict: BoardVerdict) -> str:
    """The board's answer; a "no" says whether a checked certificate settled it or it is only claimed."""
    result = verdict.result
    if result.status is not Status.UNSOLVABLE:
        return str(result.status)
    return f"unsol/{result.reason}" if verdict.settled else f"unsol/{result.reason} (claimed)"


def cell(answer: Result, grade: Grade) -> Text:
    """One backend's answer in a table cell, styled by grade (not markup: it reads the same without colour).

    Anything but "correct" is spelled out; a "no" that was not certified says ``claimed``.
    """
    text = Text(f"{SHORT[answer.status]} {answer.seconds:.2f}")
    if grade is Grade.UNCONFIRMED and answer.status is Status.UNSOLVABLE:
        text.append(" claimed", style=GRADE_STYLE[grade])
    elif grade is not Grade.CORRECT:
        text.append(f" {grade}", style=GRADE_STYLE[grade])
    return text
