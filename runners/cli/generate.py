"""``sigmar generate``: new boards, solvable by construction or refuted as unsolvable.

Solvable boards come from the frontier generator (``sigmar.models.generator``)
and each is replayed by the rule engine with its witness before it is
written.  Unsolvable boards are candidates (random shuffles over a template,
two-tile swaps of a generated board, deadlocks built around the lowest metal)
kept only when a sound argument refutes them: the counts, a static
argument, or an exhaustive search by the ``search`` backend.  The reason and
its sentence go in the comment lines above each board.

``--deal dense|uniform`` writes random deals instead (``sigmar.models.deal``):
solvable or not, and not checked; ``sigmar survey`` answers them.

Board ``k`` of seed ``S`` draws from its own random stream, so it is the same
whatever ``--count`` is.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sigmar.encoders.registry import UnknownBackend, make
from sigmar.encoders.search.playgraph import play_graph
from sigmar.models.board import Board
from sigmar.models.boardfile import format_board
from sigmar.models.deal import KINDS as DEALS
from sigmar.models.deal import DealError, deal
from sigmar.models.difficulty import clear_rate
from sigmar.models.generator import (
    PAIRED_TILES,
    STANDARD_DIM,
    GenerationError,
    Mix,
    deadlocked,
    generate,
    mix_for,
    quintessence_mix,
    shuffled,
    swapped,
    tiles_for_dim,
)
from sigmar.models.output_files import write_file
from sigmar.models.result import Reason, Result, Status
from sigmar.models.rules import verify
from sigmar.models.stuck_sets import unsolvable_reason
from sigmar.models.templates import FOLDS, Template, ondrovo_templates, random_template, read_templates
from sigmar.runners.checking.replay import run_replayed
from sigmar.runners.cli.conventions import add_output, add_time_limit, follow, say
from sigmar.runners.cli.options import UsageError, positive_int, stats_pairings, writable_file
from sigmar.runners.design.difficulty import Band, band_of, screen
from sigmar.runners.render.answer_json import dumps, result_json

SOUND = (Reason.COUNTS, Reason.STATIC, Reason.EXHAUSTED)
KINDS = ("shuffle", "swap", "deadlock")
CANDIDATES = 40  # tries per unsolvable board before falling back on a deadlock
# Candidates per board for --difficulty before the board is skipped: on side 6 a band that holds a fifth
# of the boards takes five on average; one that holds none is given up after about ten seconds.
BAND_CANDIDATES = 500


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "generate",
        help="new boards: solvable by construction (with a witness), or refuted unsolvable",
        description="Generate boards with the frontier generator of the Leiden thesis (sec. 7). "
        "T is 'ondrovo' (a random one of the 43 public shapes, side 6), 'ondrovo:N', "
        "'random' or 'random:F' (a random shape with F-fold symmetry, F in 2, 3, 6), or a template file "
        "('o' a tile cell, '.' empty, a digit marks gold's cell; PATH:N picks its N-th template).",
    )
    parser.add_argument(
        "--template",
        "-t",
        metavar="T",
        default=None,
        help="shape source (default: ondrovo on side 6, random shapes above)",
    )
    parser.add_argument(
        "--dim",
        type=int,
        default=None,
        choices=sorted(PAIRED_TILES),
        metavar="D",
        help=f"board side, {min(PAIRED_TILES)} to {max(PAIRED_TILES)} (default 6); below 6 a small board, above 6 a "
        "larger one, each with its own tile mix (docs/generate.md)",
    )
    parser.add_argument("--count", "-n", type=int, default=1, metavar="K", help="boards to write (default 1)")
    parser.add_argument("--seed", "-s", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument("--unsolvable", action="store_true", help="write refuted unsolvable boards instead")
    parser.add_argument(
        "--variant",
        choices=("standard", "quintessence"),
        default="standard",
        help="'standard' (default), or 'quintessence': two quintessence (x) in place of a vitae and a mors, each "
        "placed free with one of each element (solvable boards only)",
    )
    parser.add_argument(
        "--deal",
        choices=DEALS,
        default=None,
        help="write random deals instead, solvable or not: 'dense' puts the tiles on the cells nearest the "
        "centre (ties at random), 'uniform' on random cells of a template (--template, default as above)",
    )
    parser.add_argument(
        "--scale-tiles",
        action="store_true",
        help="fill a template file whose cell count is not its side's standard tile count with the tile mix "
        "scaled to its cells (said in each board's comment); without it such a template is refused",
    )
    parser.add_argument(
        "--stats",
        action="store_true",
        help="add the random-play clear rate, the count of pairings (exact, or 'at least N' past a few thousand "
        "positions) and the search nodes; and a line of the exact difficulty (docs/explain.md#difficulty): the "
        "probability that random play clears the board over its play graph (sampled, with an interval, past "
        "the graph's limit), the safe first moves, the mean safe moves along the solutions, the deepest trap",
    )
    parser.add_argument(
        "--runs", type=positive_int, default=100, metavar="R", help="random plays per board for --stats (default 100)"
    )
    parser.add_argument(
        "--difficulty",
        metavar="LO-HI",
        type=band_argument,
        help="only boards whose difficulty is in the band LO-HI, in percent: the probability that uniformly random "
        "legal play clears the board (docs/explain.md#difficulty), such as 10-15. Candidates of the generator "
        "(solvable by construction, the witness replayed) are screened by random plays until the 99.9%% "
        "interval of their rate lies inside the band (the comment line says so); with --exact-difficulty each is "
        "also computed exactly over its play graph within --time-limit and kept only when inside",
    )
    parser.add_argument(
        "--exact-difficulty",
        action="store_true",
        help="with --difficulty: keep a board only when its exact win probability is inside the band",
    )
    add_time_limit(parser, "seconds for the search that refutes (--unsolvable) or measures (--stats) each board")
    parser.add_argument(
        "--witness",
        type=writable_file,
        metavar="FILE",
        help="also write each solvable board's witness as JSON Lines, as 'solve --json' does",
    )
    add_output(parser, "write the boards here (default: standard output)")
    follow(
        parser,
        boards=False,
        json_help="print one JSON object per board (name, side, tiles, notes, the board as text, the witness) "
        "instead of the board file on standard output",
    )
    parser.set_defaults(run=run)


def band_argument(text: str) -> Band:
    """``--difficulty LO-HI``: a band of percentages; a malformed, empty or reversed one is one line, exit 2."""
    try:
        return band_of(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def template_source(spec: str | None, dim: int | None, scale: bool = False) -> Callable[[random.Random], Template]:
    """A function drawing the template of each board, from the ``--template`` argument; a template file
    whose cell count is not its side's standard tile count is refused unless ``scale`` (``--scale-tiles``)."""
    if spec is None:
        spec = "ondrovo" if dim in (None, STANDARD_DIM) else "random"
    family, _, arg = spec.partition(":")
    if family == "ondrovo" and not Path(spec).exists():
        if dim not in (None, STANDARD_DIM):
            raise UsageError(f"the ondrovo templates are side 6; use --template random for --dim {dim}")
        return _pick_from(list(ondrovo_templates()), arg, "ondrovo")
    if family == "random" and not Path(spec).exists():
        side = dim or STANDARD_DIM
        size = tiles_for_dim(side)
        if arg and (not arg.isdigit() or int(arg) not in FOLDS):
            raise UsageError(f"symmetry must be one of {', '.join(map(str, FOLDS))}, not '{arg}'")
        folds = (int(arg),) if arg else FOLDS
        return lambda rng: random_template(side, size, rng.choice(folds), rng)
    path, index = spec, ""
    if not Path(spec).exists() and ":" in spec:
        path, _, index = spec.rpartition(":")
    found = read_templates(path)
    if dim is not None and any(t.dim != dim for t in found):
        raise UsageError(f"{path} holds templates of side {found[0].dim}, not {dim}")
    picked = _pick_from(found, index, path)
    if not scale:
        for template in [found[int(index)]] if index.isdigit() else found:
            _check_size(template, path)
    return picked


def standard_tiles(template: Template) -> int | None:
    """The tiles a board of the template's side takes (None: a side with no standard count)."""
    return tiles_for_dim(template.dim) if template.dim in PAIRED_TILES else None


def _check_size(template: Template, path: str) -> None:
    standard = standard_tiles(template)
    if len(template) == standard:
        return
    takes = (
        f"a side-{template.dim} board takes {standard} tiles"
        if standard
        else f"side {template.dim} has no standard tile count"
    )
    raise UsageError(
        f"{path}: template {template.name!r} has {len(template)} cells, but {takes} (docs/generate.md): "
        f"give it {standard or 'another side and'} cells, or --scale-tiles to fill its {len(template)} cells "
        "with a scaled tile mix"
    )


def scaled_note(template: Template, mix: Mix) -> str:
    """``--scale-tiles``: what a board of an off-size template got instead of the standard mix, or ""."""
    if len(template) == standard_tiles(template):
        return ""
    counts = ", ".join(f"{e} {n}" for e, n in zip("aefw", mix.elements, strict=True))
    return (
        f"; template of {len(template)} cells, not the standard {standard_tiles(template) or '-'}: tile mix scaled "
        f"to it ({counts}, s {mix.salt}, v {mix.vitae}, m {mix.mors}, metals {mix.metals}, q {mix.metals - 1})"
    )


def _pick_from(shapes: list[Template], index: str, where: str) -> Callable[[random.Random], Template]:
    if not index:
        return lambda rng: rng.choice(shapes)
    if not index.isdigit() or int(index) >= len(shapes):
        raise UsageError(f"{where} has templates 0 to {len(shapes) - 1}; '{index}' is not one of them")
    chosen = shapes[int(index)]
    return lambda rng: chosen


def _label(template: Template) -> str:
    return template.name.split(":")[0]


def _search_result(board: Board, time_limit: float) -> Result | None:
    try:
        backend = make("search")
    except UnknownBackend:
        return None
    return run_replayed(backend, board, time_limit)


def refute(board: Board, time_limit: float) -> tuple[Reason, str] | None:
    """A sound reason the board is unsolvable, or None (solvable, or not refuted in time)."""
    found = unsolvable_reason(board)
    if found is not None:
        return found
    result = _search_result(board, time_limit)
    if result is not None and result.status is Status.UNSOLVABLE and result.reason in SOUND:
        assert result.reason is not None
        return result.reason, result.explanation or "a complete search found no solution"
    return None


def difficulty_line(board: Board, time_limit: float) -> str:
    """``--stats``' second line: the exact difficulty (docs/explain.md#difficulty), or its sample past the limit."""
    from sigmar.runners.design.difficulty import difficulty, stats_text

    return stats_text(difficulty(board, time_limit, pairings=False, keep=True))  # (a walk a board: keep)


def stats_line(board: Board, runs: int, time_limit: float, rng: random.Random) -> str:
    rate = clear_rate(board, runs, rng)
    parts = [f"random play clears {rate:.3f} of {runs} runs", f"pairings {stats_pairings(board)}"]
    result = _search_result(board, time_limit)
    if result is None:
        parts.append("search nodes: backend not available")
    elif result.status is Status.SOLVED:
        parts.append(f"search nodes {result.statistics.get('nodes', '?')}")
    else:
        why = f" ({result.reason})" if result.reason else ""
        if result.status is Status.UNKNOWN:
            why = f" within {time_limit:g} s"
        parts.append(f"search: {result.status}{why}, {result.statistics.get('nodes', '?')} nodes")
    return "; ".join(parts)


def _solvable(
    k: int,
    seed: int,
    pick: Callable[[random.Random], Template],
    variant: str = "standard",
    band: Band | None = None,
    exact: float | None = None,
) -> tuple[Board, str, Result] | None:
    """Board ``k`` of ``seed``, solvable by construction; with ``band``, the first of its candidates whose random
    play win probability is shown inside the band (by random plays, or with ``exact`` seconds over the play
    graph), None when :data:`BAND_CANDIDATES` candidates have none."""
    rng = random.Random(f"sigmar-generate:{seed}:{k}")
    for candidate in range(1, (BAND_CANDIDATES if band is not None else 1) + 1):
        template = pick(rng)
        mix = mix_for(len(template))
        name = f"generated {seed}:{k} {_label(template)}"
        if variant == "quintessence":
            mix = quintessence_mix(mix)
            name = f"generated quintessence {seed}:{k} {_label(template)}"
        start = time.perf_counter()
        made = generate(template, rng, mix, name)
        seconds = time.perf_counter() - start
        banded = ""
        if band is not None:
            found = _in_band(made.board, band, rng.randrange(2**63), exact)
            if found is None:
                continue
            banded = f"; {found}, candidate {candidate}"
        verdict = verify(made.board, made.witness)
        if not verdict.valid:  # never expected: the construction guarantees it
            raise RuntimeError(f"board {name}: the witness does not replay: {verdict}")
        note = f"solvable by construction; witness of {len(made.witness)} moves replayed by the rule engine"
        witness = Result(Status.SOLVED, "generate", seconds, moves=made.witness, verified=True)
        return made.board, note + banded + scaled_note(template, mix), witness
    return None


def _in_band(board: Board, band: Band, seed: int, exact: float | None) -> str | None:
    """Why ``board``'s win probability is inside ``band``, in words; None when it is not shown to be."""
    screened = screen(board, band, seed)
    if not screened.inside:
        return None
    low, high = screened.interval
    said = (
        f"random play clears it with probability about {screened.sample.rate:.4f} ({screened.sample.runs:,} "
        f"random plays, 99.9% interval {low:.4f}-{high:.4f}, inside {band})"
    )
    if exact is None:
        return said
    graph = play_graph(board, exact, keep=True)
    if graph.win is None or not band.holds(float(graph.win)):
        return None
    exactly = f"{float(graph.win):.6f} exactly ({graph.states:,} positions)"
    return f"random play clears it with probability {exactly}, inside {band}"


def _unsolvable(
    k: int, seed: int, pick: Callable[[random.Random], Template], time_limit: float
) -> tuple[Board, str, None] | None:
    rng = random.Random(f"sigmar-unsolvable:{seed}:{k}")
    kinds = [KINDS[k % len(KINDS)], "deadlock"]
    for kind in kinds:
        for _ in range(CANDIDATES):
            template = pick(rng)
            mix = mix_for(len(template))
            base = generate(template, rng, mix).board
            if kind == "shuffle":
                candidate: Board | None = shuffled(base, rng)
            elif kind == "swap":
                candidate = swapped(base, rng)
            else:
                candidate = deadlocked(base, rng)
            if candidate is None:
                continue
            found = refute(candidate, time_limit)
            if found is None:
                continue
            reason, sentence = found
            name = f"unsolvable {seed}:{k} {kind} {_label(template)} [unsolvable: {reason}]"
            note = f"{reason}: {sentence}{scaled_note(template, mix)}"
            return Board(candidate.dim, candidate.tiles, name), note, None
    return None


@dataclass(frozen=True)
class Made:
    """Board ``index`` as written: its comment lines and, for a solvable board, its witness."""

    index: int
    board: Board
    notes: list[str]
    witness: Result | None = None


def _dealt(args: argparse.Namespace) -> int:
    """``--deal``: random boards, each named ``KIND-DIM-sSEED-INDEX``, no check of solvability."""
    if args.unsolvable or args.witness:
        raise UsageError("--deal writes random boards, solvable or not: it takes neither --unsolvable nor --witness")
    if args.deal == "dense" and args.template is not None:
        raise UsageError("--deal dense fills the cells nearest the centre: it takes no --template")
    dim = args.dim or STANDARD_DIM
    # a deal places the side's own tiles, so the template must fit them (deal's own message says so)
    pick = template_source(args.template, dim, scale=True) if args.template is not None else None
    made = []
    for k in range(args.count):
        try:
            board = deal(args.deal, dim, args.seed, k, pick)
        except DealError as exc:
            raise UsageError(str(exc)) from None
        note = f"random {args.deal} deal of side {dim}, seed {args.seed}, board {k}: solvable or not"
        made.append(Made(k, board, _notes(args, k, board, note)))
    _emit(args, made)
    return 0


def _notes(args: argparse.Namespace, k: int, board: Board, note: str) -> list[str]:
    """The comment lines above board ``k``: its note and, with --stats, its statistics."""
    notes = [note]
    if args.stats:
        stats_rng = random.Random(f"sigmar-stats:{args.seed}:{k}")
        notes.append(stats_line(board, args.runs, args.time_limit, stats_rng))
        notes.append(difficulty_line(board, args.time_limit))
    return notes


def _emit(args: argparse.Namespace, made: list[Made]) -> None:
    """The boards as a board file (``-o``, else standard output) and, with ``--json``, one object per board."""
    text = "\n".join("".join(f"# {n}\n" for n in m.notes) + format_board(m.board) for m in made)
    if args.output is not None:
        write_file(args.output, text)
    elif not args.json:
        sys.stdout.write(text)
    if args.json:
        for m in made:
            record: dict[str, object] = {
                "board": m.board.name,
                "index": m.index,
                "dim": m.board.dim,
                "tiles": len(m.board),
                "notes": m.notes,
                "text": format_board(m.board, with_name=False),
            }
            if m.witness is not None:
                record["witness"] = result_json(m.board, m.witness)["moves"]
            print(dumps(record))


def run(args: argparse.Namespace) -> int:
    if args.count < 0:
        raise UsageError("--count must not be negative")
    if args.variant != "standard" and (args.deal is not None or args.unsolvable):
        raise UsageError("--variant quintessence makes solvable boards only (not with --deal or --unsolvable)")
    if args.difficulty is not None and (args.deal is not None or args.unsolvable):
        raise UsageError("--difficulty makes solvable boards of a difficulty (not with --deal or --unsolvable)")
    if args.exact_difficulty and args.difficulty is None:
        raise UsageError("--exact-difficulty checks the band of --difficulty: give --difficulty LO-HI too")
    if args.deal is not None:
        return _dealt(args)
    pick = template_source(args.template, args.dim, scale=args.scale_tiles)
    exact = args.time_limit if args.exact_difficulty else None
    made: list[Made] = []
    missing = 0
    for k in range(args.count):
        found: tuple[Board, str, Result | None] | None
        try:
            if args.unsolvable:
                found = _unsolvable(k, args.seed, pick, args.time_limit)
            else:
                found = _solvable(k, args.seed, pick, args.variant, args.difficulty, exact)
        except (GenerationError, ValueError) as exc:
            raise UsageError(str(exc)) from None
        if found is None:
            why = (
                "no candidate refuted" if args.unsolvable else f"no candidate of {BAND_CANDIDATES} in {args.difficulty}"
            )
            say(args, f"sigmar generate: board {k}: {why}; skipped", file=sys.stderr)
            missing += 1
            continue
        board, note, witness = found
        if "tile mix scaled" in note and not made:
            say(args, f"sigmar generate: {note.rpartition('; ')[2]}", file=sys.stderr)
        made.append(Made(k, board, _notes(args, k, board, note), witness))
    if args.witness:
        lines = [dumps(result_json(m.board, m.witness)) + "\n" for m in made if m.witness is not None]
        write_file(args.witness, "".join(lines))
    _emit(args, made)
    return 1 if missing else 0
