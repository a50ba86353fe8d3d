"""``sigmar solve FILE [--backend B]``: the chosen backends race on each board (docs/formats.md)."""

from __future__ import annotations

from sigmar.encoders.registry import names_all, plugin_families
from sigmar.models.board import Board
from sigmar.models.result import Result, Status
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.cli.conventions import AnswersOutput, Summary, add_answers_output, add_time_limit, follow
from sigmar.runners.cli.options import UsageError, add_race_arguments, race_inputs, stats_pairings
from sigmar.runners.race import Race, RaceOutcome
from sigmar.runners.render.answer_json import count_json, exit_code, result_json, summary_line
from sigmar.runners.render.columns import columns, terminal_width

TYPE_CHECKING = False  # not typing's: it costs a one-board solve some 13 M instructions (issue 48)
if TYPE_CHECKING:  # argparse: a plain solve reads its command line without it (quick.py)
    import argparse
    from typing import Any

    from sigmar.models.counting import Count
    from sigmar.runners.statistics.selector import Selector


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "solve",
        help="answer each board (backends race; the first checked answer wins)",
        description="Answer each board: solved (moves replayed by the rule engine), "
        "unsolvable (with a certificate checked independently of the backend that found it) or unknown. "
        "With several backends they race, each in its own process; a refutation without a checked "
        "certificate is a claim, listed in the answer. Exit 0 all answered, 1 some not, 2 bad input, "
        "3 a wrong answer.",
    )
    add_race_arguments(parser)
    parser.add_argument(
        "--stats",
        action="store_true",
        help="add each board's count of pairings (distinct partitions of its tiles into moves that some order "
        "clears), the rule engine's: exact, or a lower bound 'at least N' where it needs more than a few "
        "thousand positions (side 6)",
    )
    parser.add_argument(
        "--selector",
        metavar="FILE",
        help="lead each board's race with the backend this selector picks from the board's cheap features "
        "(a JSON file that scripts/bench/selector.py trains on a bench's ASlib scenario; docs/bench.md"
        "#picking-the-backend), instead of the backend with the most wins so far",
    )
    add_time_limit(parser)
    add_answers_output(parser)
    follow(parser, boards=True)
    parser.set_defaults(run=run)


def outcome_json(board: Board, outcome: RaceOutcome, pairings: Count | None = None) -> dict[str, object]:
    extra: dict[str, object] = {}
    if outcome.wrong:
        extra["wrong"] = outcome.wrong
    if pairings is not None:
        extra["pairings"] = count_json(pairings)
    return result_json(board, outcome.result, **extra)


def run(args: argparse.Namespace) -> int:
    summary = Summary(args)
    selector = _selector(args.selector) if args.selector else None
    everything = names_all(args.backend)
    # ``all``'s plugins are looked for when a board first needs more than search here (finding them reads the
    # metadata of every installed package: some 5% of a one-board solve's CPU), unless a selector picks now
    later = plugin_families if everything and selector is None else None
    boards, names = race_inputs(args, check=False, plugins=later is None)
    optional = names if everything else []  # looked at only when a board needs them
    if selector is not None and not set(selector.backends) & set(names):
        raise UsageError(
            f"--selector {args.selector} picks among {', '.join(selector.backends)}; none of them races here "
            f"({', '.join(names)})"
        )
    results: list[Result] = []
    rows: list[tuple[str, ...]] = []
    with (
        AnswersOutput(args) as answers,
        ProofStore(args.proof_dir) as proofs,
        Race(names, proofs=proofs, optional=optional, later=later, **_led_by(selector)) as race,
    ):
        race.expect(len(boards))  # several boards: the workers start now, in the background
        for board in boards:
            outcome = race.solve(board, args.time_limit)
            result = outcome.result
            # a wrong answer seen during the race is a bug worth exit 3, even if another backend won
            results.append(result.with_(wrong=True) if outcome.wrong else result)
            pairings = stats_pairings(board) if args.stats else None
            if pairings is not None and not pairings.exact and result.verified:
                pairings = pairings.replace(value=max(pairings.value, 1))  # the verified solution is one
            if answers.wanted:  # --json or -o: a table makes no JSON
                answers.write(outcome_json(board, outcome, pairings))
            if not args.json:
                detail = summary_line(result)
                if outcome.wrong:
                    detail += "; WRONG: " + "; ".join(outcome.wrong.values())
                counted = (str(pairings),) if pairings is not None else ()
                rows.append((board.name, str(result.status), result.backend, f"{result.seconds:.3f}", *counted, detail))
    if not args.json and not args.quiet:
        print_table(rows, args.stats)
    summary.print(results)
    return exit_code(results)


def _selector(path: str) -> Selector:
    """``--selector FILE``, read before any board: a file that is not a selector is one line, exit 2."""
    from sigmar.runners.statistics.selector import SelectorError, load

    try:
        return load(path)
    except SelectorError as exc:
        raise UsageError(f"--selector {exc}") from None


def _led_by(selector: Selector | None) -> dict[str, Any]:
    """The race's ``selector`` and ``presolve`` arguments for ``--selector``."""
    if selector is None:
        return {}
    first = selector.presolve
    return {"selector": selector.pick, "presolve": (first["backend"], first["seconds"]) if first else None}


def print_table(rows: list[tuple[str, ...]], stats: bool = False) -> None:
    """The answers as plain columns (see render.columns: no rich on this path)."""
    counted = ("pairings",) if stats else ()
    print(columns(("board", "status", "backend", "seconds", *counted, "detail"), rows, terminal_width()))


__all__ = ["run", "add_parser", "Status"]
