"""``sigmar count FILE... [--of sequences|pairings]``: how many ways clear each board, held against the rule engine."""

from __future__ import annotations

import argparse

from sigmar.models.counting import NOTIONS, Count, Notion, count_in
from sigmar.runners.checking.count_grade import CountGrade, CountVerdict
from sigmar.runners.cli.conventions import AnswersOutput, add_answers_output, add_time_limit, follow
from sigmar.runners.cli.options import add_backend, add_board_files, add_verbose, counting_backends, read_board_files
from sigmar.runners.race import Race, count_board
from sigmar.runners.render.answer_json import verdict_json
from sigmar.runners.render.columns import columns, terminal_width

# The backend that counts by default: the search, whose count is exact within a second on the boards that
# the rule engine counts in one (a second, independent reading); the encodings count by enumeration or model
# counting, seconds to minutes for what the search counts in milliseconds (docs/measured/counts.md), so they
# are asked by name or with 'all'.
DEFAULT_BACKEND = "search"


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "count",
        help="count the ways each board can be cleared (sequences or pairings), checked against the rule engine",
        description="Count, for each board, the move sequences that clear it (--of sequences) or the pairings "
        "of its tiles into moves that some order clears (--of pairings). Every chosen backend that can count "
        "(default: search; 'all': every one that can) counts with its own encoding, each in its own process; "
        "the rule engine's count is the reference each is held against. A count stopped by the time limit is "
        "a lower bound ('at least N'), never exact. Exit 0 every count exact and equal, 1 some count only a "
        "bound or missing, 2 bad input, 3 a wrong count.",
    )
    add_board_files(parser)
    add_backend(parser, default=DEFAULT_BACKEND)
    parser.add_argument(
        "--of",
        choices=NOTIONS,
        default=Notion.SEQUENCES.value,
        help="what to count: sequences (distinct move sequences) or pairings (distinct partitions of the tiles "
        "into moves that some order clears); default sequences",
    )
    add_time_limit(parser)
    add_verbose(parser)
    add_answers_output(parser)
    follow(parser, boards=True, json_help="print one JSON object per board with every count (JSON Lines)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    boards = read_board_files(args)
    notion = Notion(args.of)
    names = counting_backends(args.backend, notion)
    verdicts: list[CountVerdict] = []
    rows: list[tuple[str, ...]] = []
    with AnswersOutput(args) as answers, Race(names) as race:
        for board in boards:
            verdict = count_board(race, board, notion, args.time_limit)
            verdicts.append(verdict)
            answers.write(verdict_json(verdict))
            if not args.json and not args.quiet:
                rows.append((board.name, shown(verdict.reference), *(cell(verdict, name) for name in verdict.answers)))
    if not args.json and not args.quiet and verdicts:
        header = ("board", f"{notion} (rule engine)", *verdicts[0].answers)
        print(columns(header, rows, terminal_width(), detail=False))
        for verdict in verdicts:
            for note in verdict.notes:
                print(f"WRONG: {note}")
    if any(v.any_wrong for v in verdicts):
        return 3
    return 0 if all(v.all_exact for v in verdicts) else 1


def shown(count: Count | None) -> str:
    return "-" if count is None else str(count)


def cell(verdict: CountVerdict, name: str) -> str:
    """One backend's count in a table cell: the count, and its grade unless it agrees."""
    answer, grade = verdict.answers[name], verdict.grades[name]
    text = f"{shown(count_in(answer))} ({answer.seconds:.2f} s)"
    if grade is CountGrade.CORRECT:
        return text
    if grade in (CountGrade.ERROR, CountGrade.UNKNOWN, CountGrade.REFUSED):
        return str(grade)
    return f"{text} {str(grade).upper() if grade is CountGrade.WRONG else grade}"
