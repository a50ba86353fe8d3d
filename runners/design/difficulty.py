"""How hard a board is, exactly: random play's chance over the play graph, the safe moves, the deepest trap.

``sigmar explain --difficulty``, ``generate --stats`` and the workbench report
per board (docs/explain.md#difficulty says how each is computed):

- **win**: the probability that a player choosing uniformly among the legal
  moves clears the board, an exact fraction over the play graph
  (:mod:`sigmar.encoders.search.playgraph`); past the graph's time or state
  limit, the rate of random plays instead, said so, with its 95% interval;
- **safe first moves**: the legal first moves after which the board can still
  be cleared (from the graph; past its limit, from the proved hint of the
  start, :mod:`.hint`);
- **safe moves along solutions**: the mean, over every clearing move
  sequence and every position along it, of the safe moves there;
- **the deepest trap**: the losing move played latest, replayed by the rule
  engine, with the lost position's certificate checked (:func:`.hint.settle`);
- **pairings**: the ``count`` of distinct pairings, exact or "at least";
- the graph's size: positions, clearable ones, moves followed, positions
  cut as dead by the counts or a stuck set.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from sigmar.encoders.search.playgraph import PlayGraph, RandomPlays, play_graph, random_plays
from sigmar.models.bits import tile_ids
from sigmar.models.board import Board
from sigmar.models.counting import Count, Notion, json_number
from sigmar.models.difficulty import wilson
from sigmar.models.result import Move, Result, Status
from sigmar.models.solution import move_to_json
from sigmar.runners.checking.certify import ProofStore
from sigmar.runners.design.hint import hint, settle
from sigmar.runners.render.board_pages import tile_name

# Random plays when the graph is past its limit: with the compiled core (a few microseconds a game) a 95%
# interval a third of a point wide at worst (rate 0.5); in Python (a millisecond a game) about 3 points.
SAMPLE_RUNS = 100_000
PYTHON_SAMPLE_RUNS = 1000
# Seconds the pairings count gets (its own count, beside the graph: docs/explain.md#difficulty).
PAIRINGS_LIMIT = 10.0
# A fraction is written out in words only while its numerator and denominator are this short.
SHORT_FRACTION = 24


@dataclass(frozen=True)
class Sample:
    """Random plays: ``wins`` of ``runs`` cleared the board."""

    runs: int
    wins: int

    @property
    def rate(self) -> float:
        return self.wins / self.runs if self.runs else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.runs)


@dataclass(frozen=True)
class Trap:
    """The deepest trap: ``moves`` from the start (the last one loses), and the lost position's answer."""

    moves: tuple[Move, ...]
    answer: Result
    tiles_left: int

    @property
    def checked(self) -> bool:
        return self.answer.status is Status.UNSOLVABLE and self.answer.checked


@dataclass(frozen=True)
class Difficulty:
    """One board's figures (module docstring); ``graph.complete`` says whether they are exact."""

    board: Board
    graph: PlayGraph
    sample: Sample | None
    first_moves: int
    safe_first: int | None
    trap: Trap | None
    pairings: Count | None
    seconds: float

    @property
    def exact(self) -> bool:
        return self.graph.complete

    @property
    def win(self) -> float:
        """The chance random play clears the board: exact, or the sample's rate."""
        if self.graph.win is not None:
            return float(self.graph.win)
        return self.sample.rate if self.sample is not None else 0.0


def sample(board: Board, runs: int, rng: random.Random) -> Sample:
    """``runs`` random plays of ``board`` (the compiled core's when built: :func:`.playgraph.random_plays`)."""
    return Sample(runs, random_plays(board, runs, rng.randrange(2**63)))


@dataclass(frozen=True)
class Band:
    """A band of random play's win probability, ``low`` to ``high`` (fractions; ``generate --difficulty``)."""

    low: float
    high: float

    def __str__(self) -> str:
        return f"{100 * self.low:g}-{100 * self.high:g}%"

    def holds(self, value: float) -> bool:
        return self.low <= value <= self.high


def band_of(text: str) -> Band:
    """``LO-HI`` in percent (``10-15``) as a Band; ValueError in one line for a malformed, empty or reversed band."""
    low_text, dash, high_text = text.strip().removesuffix("%").partition("-")
    try:
        low, high = float(low_text.strip().removesuffix("%")), float(high_text.strip())
    except ValueError:
        raise ValueError(f"'{text}' is not a band LO-HI of percentages such as 10-15") from None
    if not dash or not all(map(math.isfinite, (low, high))):
        raise ValueError(f"'{text}' is not a band LO-HI of percentages such as 10-15")
    if not 0 <= low <= 100 or not 0 <= high <= 100:
        raise ValueError(f"the band {text} is not within 0-100 (percent)")
    if low > high:
        raise ValueError(f"the band {text} is reversed: LO must be below HI (say {high:g}-{low:g})")
    if low == high:
        raise ValueError(f"the band {text} is empty: give it a width, such as {low:g}-{min(low + 5, 100):g}")
    return Band(low / 100, high / 100)


@dataclass(frozen=True)
class Screen:
    """A board screened against a band by random plays: ``inside`` True (its interval within the band), False
    (outside it), or None (across an edge: after the most plays, or once its rate is so near an edge that even
    they would leave it across)."""

    inside: bool | None
    sample: Sample

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.sample.wins, self.sample.runs, Z_SCREEN)


# The screen's interval: 99.9%, so that a board is let in only when its win probability is in the band
# beyond reasonable doubt (the benchmark computes each one exactly).
Z_SCREEN = 3.2905267314919255
SCREEN_FIRST = 250
SCREEN_MOST = 32_000


def _hopeless(rate: float, band: Band, most: int) -> bool:
    """Whether a rate this close to an edge of ``band`` would leave even ``most`` plays' interval across it: the
    board is let go at once rather than after all of them (a board near an edge cost the screen most of its plays)."""
    half = Z_SCREEN * math.sqrt(max(rate * (1 - rate), 1 / most) / most)
    return min(rate - band.low, band.high - rate) < half


def screen(board: Board, band: Band, seed: int, first: int = SCREEN_FIRST, most: int = SCREEN_MOST) -> Screen:
    """Random plays of ``board`` in doubling batches until the 99.9% interval of their rate is inside ``band`` or
    clear of it, or ``most`` plays leave it across an edge (a board far from the band is let go after 250)."""
    runs = wins = 0
    rng = random.Random(seed)
    plays = RandomPlays(board)
    batch = first
    while True:
        wins += plays(batch, rng.randrange(2**63))
        runs += batch
        batch = min(2 * batch, most - runs)
        low, high = wilson(wins, runs, Z_SCREEN)
        if band.low <= low and high <= band.high:
            return Screen(True, Sample(runs, wins))
        if high < band.low or low > band.high:
            return Screen(False, Sample(runs, wins))
        if runs >= most or _hopeless(wins / runs, band, most):
            return Screen(None, Sample(runs, wins))


def difficulty(
    board: Board,
    time_limit: float = 60.0,
    *,
    max_states: int | None = None,
    runs: int | None = None,
    seed: int = 0,
    pairings: bool = True,
    proofs: ProofStore | None = None,
    keep: bool = False,
) -> Difficulty:
    """The figures of ``board`` (module docstring).  The graph, the proved first moves or the trap's certificate,
    and the pairings count each have ``time_limit`` seconds (the count at most :data:`PAIRINGS_LIMIT`); ``keep``:
    :func:`~sigmar.encoders.search.playgraph.play_graph`'s, for a caller that walks many boards."""
    start = time.perf_counter()
    graph = play_graph(board, time_limit, max_states, keep=keep)
    found_sample = None
    safe_first = graph.safe_first
    trap = None
    if not graph.complete:
        if runs is None:
            runs = SAMPLE_RUNS if graph.compiled else PYTHON_SAMPLE_RUNS
        found_sample = sample(board, runs, random.Random(f"sigmar-difficulty:{seed}:{board.name}"))
        safe_first = hint(board, (), time_limit, proofs).count("safe")
    elif graph.trap is not None:
        trap = _trap(board, graph, time_limit, proofs)
    counted = _pairings(board, min(time_limit, PAIRINGS_LIMIT)) if pairings else None
    return Difficulty(
        board, graph, found_sample, graph.first_moves, safe_first, trap, counted, time.perf_counter() - start
    )


def _trap(board: Board, graph: PlayGraph, time_limit: float, proofs: ProofStore | None) -> Trap:
    """The graph's deepest trap as moves, with the lost position after it settled (certificate checked)."""
    assert graph.trap is not None
    moves = tuple(Move(tuple(board.tiles[t].cell for t in tile_ids(mask))) for mask in graph.trap.moves)
    if proofs is None:
        with ProofStore() as store:
            answer = settle(board, moves, time_limit, store)
    else:
        answer = settle(board, moves, time_limit, proofs)
    return Trap(moves, answer, graph.trap.after.bit_count())


def _pairings(board: Board, time_limit: float) -> Count:
    """``count``'s pairings (the search backend's own count): exact, or a lower bound when the time ran out."""
    from sigmar.encoders.search import SearchBackend

    value, exact = SearchBackend().count(board, Notion.PAIRINGS.value, time_limit)
    return Count(Notion.PAIRINGS, value, exact)


def fraction_text(value: Fraction) -> str:
    """The exact fraction in words: ``n/d`` when short, else how long its terms are."""
    if len(str(value.denominator)) <= SHORT_FRACTION:
        return f"{value.numerator}/{value.denominator}"
    return f"a fraction of {len(str(value.numerator))}- and {len(str(value.denominator))}-digit integers"


def difficulty_json(found: Difficulty) -> dict[str, Any]:
    """``difficulty`` of the explain JSON (docs/formats.md#the-json-of-explain)."""
    board, graph = found.board, found.graph
    win: dict[str, Any] = {"exact": found.exact, "value": found.win}
    if graph.win is not None:
        win["fraction"] = f"{graph.win.numerator}/{graph.win.denominator}"
    if found.sample is not None:
        low, high = found.sample.interval
        win.update(runs=found.sample.runs, wins=found.sample.wins, low=low, high=high)
    trap = None
    if found.trap is not None:
        trap = {
            "moves": [move_to_json(board, move) for move in found.trap.moves],
            "move": len(found.trap.moves),
            "of": graph.moves,
            "tiles_left": found.trap.tiles_left,
            "checked": found.trap.checked,
            "why": found.trap.answer.explanation or found.trap.answer.message,
        }
    mean = graph.mean_safe
    return {
        "win": win,
        "first_moves": found.first_moves,
        "safe_first_moves": found.safe_first,
        "mean_safe_moves": None if mean is None else float(mean),
        "sequences": None if graph.sequences is None else json_number(graph.sequences),
        "deepest_trap": trap,
        "pairings": None
        if found.pairings is None
        else {"count": json_number(found.pairings.value), "exact": found.pairings.exact},
        "graph": {
            "complete": graph.complete,
            "states": graph.states,
            "alive": graph.alive,
            "edges": graph.edges,
            "cut": graph.cut,
            "seconds": round(graph.seconds, 6),
        },
        "seconds": round(found.seconds, 6),
    }


def difficulty_lines(found: Difficulty) -> list[str]:
    """The figures for a person, indented under the board's verdict line."""
    board, graph = found.board, found.graph
    size = f"{_plural(graph.states, 'position')}, {graph.alive:,} clearable, {graph.edges:,} moves"
    size += f", {graph.seconds:.2f} s"
    if graph.win is not None:
        head = f"  difficulty: random play clears it with probability {float(graph.win):.6g} "
        head += f"(exactly {fraction_text(graph.win)}; play graph: {size})"
    else:
        assert found.sample is not None
        low, high = found.sample.interval
        head = (
            f"  difficulty: random play clears it with probability about {found.sample.rate:.3g} "
            f"(SAMPLED: {found.sample.wins} of {found.sample.runs} random plays, 95% interval {low:.3g} to "
            f"{high:.3g}; the play graph passed its limit at {size})"
        )
    lines = [head]
    first = f"{found.safe_first} of {found.first_moves}" if found.safe_first is not None else "unknown"
    line = f"    safe first moves: {first}"
    if graph.mean_safe is not None:
        line += f"; safe moves along the solutions: {float(graph.mean_safe):.2f} a position on average"
    lines.append(line)
    if found.trap is not None:
        lines.append("    " + trap_text(board, found.trap, graph.moves))
    elif graph.complete and graph.solvable:
        lines.append("    deepest trap: none (every play clears the board)")
    if found.pairings is not None:
        how = "exact" if found.pairings.exact else "the count ran out of time"
        lines.append(f"    pairings: {found.pairings} ({how})")
    return lines


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def trap_text(board: Board, trap: Trap, moves: int) -> str:
    if not trap.moves:
        return "deepest trap: the start (no play clears the board)"
    last = trap.moves[-1]
    tiles = " + ".join("{} {},{}".format(tile_name(board, board.symbol_at[c]), *board.rowcol(c)) for c in last.cells)
    proof = "certificate checked" if trap.checked else "NOT certified within the time"
    why = trap.answer.explanation or trap.answer.message
    return (
        f"deepest trap: move {len(trap.moves)} of {moves} ({tiles}) loses, {trap.tiles_left} tiles left: {why} "
        f"({proof})"
    )


def stats_text(found: Difficulty) -> str:
    """The figures on one line, for a comment line of ``generate --stats``."""
    graph = found.graph
    if graph.win is not None:
        parts = [f"exact win probability {float(graph.win):.4g} ({_plural(graph.states, 'position')})"]
    else:
        assert found.sample is not None
        low, high = found.sample.interval
        parts = [
            f"win probability about {found.sample.rate:.3g} (sampled {found.sample.runs} runs, 95% interval "
            f"{low:.3g}-{high:.3g}: the play graph passed {_plural(graph.states, 'position')})"
        ]
    parts.append(f"safe first moves {found.safe_first if found.safe_first is not None else '?'} of {found.first_moves}")
    if graph.mean_safe is not None:
        parts.append(f"mean safe moves {float(graph.mean_safe):.2f}")
    if found.trap is not None:
        parts.append(f"deepest trap at move {len(found.trap.moves)} of {graph.moves}")
    elif graph.complete and graph.solvable:
        parts.append("no trap")
    return "difficulty: " + "; ".join(parts)
