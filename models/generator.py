"""The frontier generator of the Leiden thesis (section 7): solvable boards in linear time.

Glossary:
  placement order  the order tiles are put down; it *is* the removal order of
                   the witness, pair by pair (the first pair placed is the
                   first pair removed).
  frontier         template cells that may take a tile now: three consecutive
                   ring neighbours are already placed or outside the template.
                   When the pair placed now is removed, exactly the tiles
                   placed before it are gone, so those neighbours are empty
                   then and the cell is free.  Placing more tiles only adds
                   empty neighbours at removal time, so a frontier cell stays
                   placeable; both cells of a pair are picked from the frontier
                   *before* either is placed, so both are free before the move.
  pair stack       the shuffled pairs to place; each salt pair crosses over
                   with a cardinal pair half the time (s,s)+(e,e) -> (s,e)+(s,e).
  metals           numbered in placement order, so they leave in ascending
                   order; each is placed with its quicksilver, and when that
                   pair is removed every lower metal is gone (it was placed
                   earlier), so the metal is the current one.
  gold             the highest digit, on its template cell; placed alone once
                   every other metal is placed and its cell is placeable, with
                   chance 1/(frontier+1) per step, so gold need not be last.

The witness is the placement order itself; ``sigmar.models.rules.verify``
replays it in the tests and the CLI.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from sigmar.models.board import Board, Tile
from sigmar.models.errors import SigmarError
from sigmar.models.facts import facts_of, ring_ids
from sigmar.models.hexgrid import Hex, ring_neighbours
from sigmar.models.result import Move
from sigmar.models.rules import count_problem
from sigmar.models.stuck_sets import static_problem
from sigmar.models.templates import Template, random_template
from sigmar.models.tiles import METALS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE

ELEMENT_ORDER = ("a", "e", "f", "w")
METAL = "M"  # placeholder in the pair stack; numbered when placed

STANDARD_DIM = 6
# Tiles other than gold, per board side: 54 on the standard board (55 of 91 cells), then the
# same multiples of 54 (1.56x, 2x, 3x, 4x); below it about the standard share of the cells
# (7 of 7, 13 of 19, 25 of 37, 37 of 61). All divisible by 6, so random shapes with 2-, 3- or
# 6-fold symmetry exist for every one. docs/generate.md tabulates the mix of each side.
PAIRED_TILES = {2: 6, 3: 12, 4: 24, 5: 36, 6: 54, 7: 84, 8: 108, 9: 162, 10: 216}
MAX_ATTEMPTS = 500


class GenerationError(SigmarError, RuntimeError):
    """The template kept leading the frontier into a dead end."""


@dataclass(frozen=True)
class Mix:
    """How many of each tile a board gets (metals counted with gold)."""

    elements: tuple[int, int, int, int]  # a, e, f, w
    salt: int
    vitae: int
    mors: int
    metals: int
    quintessence: int = 0  # the variant: each leaves with one of each element (counted in ``elements``)

    @property
    def total(self) -> int:
        return sum(self.elements) + self.salt + self.vitae + self.mors + 2 * self.metals - 1 + self.quintessence


def quintessence_mix(mix: Mix) -> Mix:
    """The variant's proportions (docs/formats.md#the-rules): two quintessence in place of a vitae and a mors."""
    if mix.vitae < 1 or min(mix.elements) < 2:
        raise ValueError("the board is too small for the quintessence variant")
    return Mix(mix.elements, mix.salt, mix.vitae - 1, mix.mors - 1, mix.metals, quintessence=2)


def metal_count(tiles: int) -> int:
    """Metals (gold included) for a board of ``tiles`` tiles: 6 on 55, one more per ~27 tiles, at most 9;
    on a small board at most one metal per six tiles, so that elements are left (2 on 7 tiles, 3 on 13)."""
    wanted = 6 + round((tiles - 55) / 27)
    return max(1, min(9, wanted, (tiles - 1) // 2 + 1, (tiles + 5) // 6))


def mix_for(tiles: int, metals: int | None = None) -> Mix:
    """The standard proportions scaled to ``tiles`` (odd): 55 gives 8 of each element, 4 salt/vitae/mors, 6 metals.

    After the metals and their quicksilver, the rest keeps the standard
    ratio 8:1:1:1 of elements to salt, vitae and mors (44 tiles on the
    standard board); salt is kept even and elements come in pairs, so every
    count pairs up.
    """
    if tiles < 1 or tiles % 2 == 0:
        raise ValueError(f"a board needs an odd number of tiles (pairs and gold), not {tiles}")
    metals = metal_count(tiles) if metals is None else metals
    rest = tiles - 1 - 2 * (metals - 1)
    if metals < 1 or rest < 0:
        raise ValueError(f"{metals} metals do not fit in {tiles} tiles")
    salt = 2 * round(rest / 22)
    life = round(rest / 11)
    while salt + 2 * life > rest:
        if life:
            life -= 1
        else:
            salt -= 2
    pairs = (rest - salt - 2 * life) // 2
    elements = tuple(2 * (pairs // 4 + (1 if i < pairs % 4 else 0)) for i in range(4))
    return Mix((elements[0], elements[1], elements[2], elements[3]), salt, life, life, metals)


STANDARD_MIX = mix_for(55)


def tiles_for_dim(dim: int) -> int:
    if dim not in PAIRED_TILES:
        raise ValueError(f"boards of side {dim} are not supported (choose from {', '.join(map(str, PAIRED_TILES))})")
    return PAIRED_TILES[dim] + 1


def pair_stack(mix: Mix, rng: random.Random) -> list[tuple[str, ...]]:
    """The shuffled moves to place: pairs, with salt crossed over with cardinal pairs half the time,
    and (the variant) quintessence with one of each element."""
    elements: list[tuple[str, ...]] = []
    for symbol, count in zip(ELEMENT_ORDER, mix.elements, strict=True):
        elements.extend((symbol, symbol) for _ in range((count - mix.quintessence) // 2))
    others: list[tuple[str, ...]] = [(QUINTESSENCE, *ELEMENT_ORDER) for _ in range(mix.quintessence)]
    for _ in range(mix.salt // 2):
        plain = [i for i, (x, y) in enumerate(elements) if x == y]
        if plain and rng.random() < 0.5:
            i = rng.choice(plain)
            element = elements[i][0]
            elements[i] = (SALT, element)
            others.append((SALT, element))
        else:
            others.append((SALT, SALT))
    others.extend((VITAE, MORS) for _ in range(mix.vitae))
    others.extend((QUICKSILVER, METAL) for _ in range(mix.metals - 1))
    stack = elements + others
    rng.shuffle(stack)
    return stack


@dataclass(frozen=True)
class Generated:
    board: Board
    witness: tuple[Move, ...]  # the placement order, which is a solution
    template: Template
    attempts: int = 1


@dataclass(frozen=True)
class _Shape:
    """A template as index tables, so one placement step is a few list lookups."""

    cells: tuple[Hex, ...]
    ring: tuple[tuple[int, ...], ...]  # ring-order neighbours; -1 outside the template
    gold: int


@cache
def _shape(template: Template) -> _Shape:
    cells = tuple(sorted(template.cells, key=lambda c: (c[1], c[0])))
    ring = tuple(tuple(-1 if n is None else n for n in around) for around in ring_ids(cells))
    return _Shape(cells, ring, cells.index(template.gold))


def _placeable(ring: tuple[int, ...], placed: bytearray) -> bool:
    """Three consecutive neighbours placed or outside the template: free when this tile is removed."""
    run = 0
    # Walk the ring twice so a run may wrap around.
    for k in range(8):
        n = ring[k % 6]
        if n < 0 or placed[n]:
            run += 1
            if run == 3:
                return True
        else:
            run = 0
    return False


def generate(template: Template, rng: random.Random, mix: Mix | None = None, name: str = "") -> Generated:
    """A board on ``template`` with its witness; solvable by construction."""
    mix = mix or mix_for(len(template), None)
    if mix.total != len(template):
        raise ValueError(f"template '{template.name}' has {len(template)} cells but the mix has {mix.total} tiles")
    shape = _shape(template)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        placed = _attempt(shape, mix, rng)
        if placed is not None:
            symbols, order = placed
            tiles = tuple(Tile(shape.cells[i], symbols[i]) for i in range(len(shape.cells)))
            witness = tuple(Move(tuple(shape.cells[i] for i in step)) for step in order)
            return Generated(Board(template.dim, tiles, name), witness, template, attempt)
    raise GenerationError(f"template '{template.name}': the frontier ran dry {MAX_ATTEMPTS} times")


class _Frontier:
    """The cells that could be placed next (free if the board ended here), with O(1) removal."""

    def __init__(self, shape: _Shape) -> None:
        self.ring, self.gold = shape.ring, shape.gold
        self.placed = bytearray(len(shape.cells))
        self.symbols = [""] * len(shape.cells)
        self.cells: list[int] = []
        self.where: dict[int, int] = {}  # cell -> index in cells
        for i in range(len(shape.cells)):
            if i != self.gold and _placeable(self.ring[i], self.placed):
                self._add(i)

    def _add(self, i: int) -> None:
        self.where[i] = len(self.cells)
        self.cells.append(i)

    def take(self, i: int) -> None:
        j = self.where.pop(i)
        last = self.cells.pop()
        if last != i:
            self.cells[j] = last
            self.where[last] = j

    def place(self, *put: tuple[int, str]) -> None:
        """Place a step's tiles; every cell of the step is marked first, so none is re-added."""
        for i, symbol in put:
            self.placed[i] = 1
            self.symbols[i] = symbol
        for i, _ in put:
            for n in self.ring[i]:
                fresh = n >= 0 and n != self.gold and not self.placed[n] and n not in self.where
                if fresh and _placeable(self.ring[n], self.placed):
                    self._add(n)

    def gold_ready(self) -> bool:
        return _placeable(self.ring[self.gold], self.placed)


def _attempt(shape: _Shape, mix: Mix, rng: random.Random) -> tuple[list[str], list[tuple[int, ...]]] | None:
    """One run of the frontier loop; None when it reaches a dead end (fewer than two frontier cells)."""
    frontier = _Frontier(shape)
    stack = pair_stack(mix, rng)
    metals_left = mix.metals - 1
    gold_placed = False
    order: list[tuple[int, ...]] = []
    while stack or not gold_placed:
        n = len(frontier.cells)
        gold_ready = not gold_placed and metals_left == 0 and frontier.gold_ready()
        if gold_ready and (not stack or n < 2 or rng.random() * (n + 1) < 1):
            frontier.place((shape.gold, str(mix.metals)))
            gold_placed = True
            order.append((shape.gold,))
            continue
        if n < 2 or not stack:
            return None
        if len(stack[-1]) == 5:  # quintessence and its four elements, placed free together
            if n < 5:
                return None
            cells = [frontier.cells[k] for k in rng.sample(range(n), 5)]
            for cell in cells:
                frontier.take(cell)
            frontier.place(*zip(cells, stack.pop(), strict=True))
            order.append(tuple(cells))
            continue
        a = rng.randrange(n)
        b = rng.randrange(n - 1)
        if b >= a:
            b += 1
        first, second = frontier.cells[a], frontier.cells[b]
        x, y = stack.pop()
        if y == METAL:
            y = str(mix.metals - metals_left)
            metals_left -= 1
        frontier.take(first)
        frontier.take(second)
        frontier.place((first, x), (second, y))
        order.append((first, second))
    return frontier.symbols, order


# ---------------------------------------------------------------------------
# Unsolvable boards: a sound static argument, and ways to make candidates.


def _with_symbols(board: Board, symbols: Sequence[str], name: str) -> Board:
    return Board(board.dim, tuple(Tile(t.cell, s) for t, s in zip(board.tiles, symbols, strict=True)), name)


def shuffled(board: Board, rng: random.Random, name: str = "") -> Board:
    """The same tiles in a random arrangement over the same cells (gold stays on its cell)."""
    gold = board.gold
    symbols = [t.symbol for t in board.tiles]
    movable = [i for i, s in enumerate(symbols) if s != gold]
    values = [symbols[i] for i in movable]
    rng.shuffle(values)
    for i, v in zip(movable, values, strict=True):
        symbols[i] = v
    return _with_symbols(board, symbols, name)


def swapped(board: Board, rng: random.Random, name: str = "") -> Board:
    """Two tiles of different symbols exchanged."""
    symbols = [t.symbol for t in board.tiles]
    while True:
        i, j = rng.sample(range(len(symbols)), 2)
        if symbols[i] != symbols[j]:
            break
    symbols[i], symbols[j] = symbols[j], symbols[i]
    return _with_symbols(board, symbols, name)


def deadlocked(board: Board, rng: random.Random, name: str = "") -> Board | None:
    """The board's tiles rearranged so its lowest metal sits between quicksilver and later metals.

    Two opposite ring neighbours blocked leave no three consecutive open
    ones (every run of three around a six-ring holds one of an opposite
    pair).  Counts are unchanged, so only the stuck-set argument (``sigmar.models.stuck_sets``,
    rule (c) for the lowest metal) refutes it.
    None when no tile has two opposite neighbours or blockers are short.
    """
    metals = board.metals
    if len(metals) < 2:
        return None
    lowest, gold = metals[0], metals[-1]
    symbols = [t.symbol for t in board.tiles]
    candidates: list[tuple[int, tuple[int, ...]]] = []
    for i, ring in enumerate(facts_of(board).neighbours):
        if symbols[i] == gold:
            continue
        for start in range(3):
            a, b = ring[start], ring[start + 3]
            if a is not None and b is not None and gold not in (symbols[a], symbols[b]):
                candidates.append((i, (a, b)))
    if not candidates:
        return None
    centre, blockers = rng.choice(candidates)

    def is_blocker(s: str) -> bool:
        return s == QUICKSILVER or (s in METALS and s not in (lowest, gold))

    def swap(i: int, j: int) -> None:
        symbols[i], symbols[j] = symbols[j], symbols[i]

    swap(centre, symbols.index(lowest))
    fixed = {centre, *blockers}
    for b in blockers:
        if is_blocker(symbols[b]):
            continue
        sources = [k for k, s in enumerate(symbols) if k not in fixed and is_blocker(s)]
        if not sources:
            return None
        swap(b, rng.choice(sources))
    out = _with_symbols(board, symbols, name)
    return out if count_problem(out) is None and static_problem(out) is not None else None


def standard_template_for(dim: int, rng: random.Random, fold: int | None = None) -> Template:
    """A random symmetric shape with the scaled tile count of side ``dim``."""
    folds = (2, 3, 6) if fold is None else (fold,)
    chosen = rng.choice(folds)
    return random_template(dim, tiles_for_dim(dim), chosen, rng)


# Around tin, in ring order: iron, four quicksilver, silver.  Every window then holds a
# later metal or three quicksilver, and only one quicksilver can leave before tin (with lead).
TIN_RING = ("3", "q", "q", "q", "q", "5")


def tin_ringed(board: Board) -> Board | None:
    """The standard board with tin moved to the first inner cell and ringed by ``TIN_RING`` (tiles swapped)."""
    symbols = {t.cell: t.symbol for t in board.tiles}
    for cell in sorted(symbols):
        ring = ring_neighbours(cell)
        if not all(c in symbols for c in ring):
            continue
        placed = dict(symbols)
        for target, want in [(cell, "2"), *zip(ring, TIN_RING, strict=True)]:
            if placed[target] != want:
                source = next((c for c in placed if placed[c] == want and c not in ring and c != cell), None)
                if source is None:
                    return None  # not a standard board: too few quicksilver, or no iron or silver
                placed[target], placed[source] = placed[source], placed[target]
        tiles = tuple(Tile(t.cell, placed[t.cell]) for t in board.tiles)
        return Board(board.dim, tiles, f"{board.name}: tin ringed")
    return None
