"""Small random boards for ``sigmar fuzz``: every tile kind, any metal chain, solvable or not.

Glossary:
  recipe    how a board's tiles are chosen.  ``paired``: counts that pair up
            (so only the placement can make it unsolvable); ``loose``: any
            multiset, mostly unsolvable by counts; ``edge``: the few tiles
            that break encodings (gold alone, no metals, a lone quicksilver,
            salt standing in for an element, a quintessence with salt).
  placement ``dense``: the cells nearest the centre, ties at random;
            ``scattered``: any cells of the hexagon.
  variant   ``standard`` boards hold no quintessence; ``quintessence`` boards
            hold at least one ``x`` (the five-tile move of docs/formats.md#the-rules).

``fuzz_board(seed, index, max_tiles, variant)`` is a pure function of its
arguments (its own random stream), so a failure is reproduced from its seed
and index alone.
"""

from __future__ import annotations

import random

from sigmar.models.board import Board, Tile
from sigmar.models.hexgrid import Hex, cell_count, cells, distance
from sigmar.models.templates import CENTRE
from sigmar.models.tiles import ELEMENTS, MORS, QUICKSILVER, QUINTESSENCE, SALT, VITAE

SIDES = (2, 3, 4)
VARIANTS = ("standard", "quintessence", "both")
RECIPES = ("paired", "loose", "edge")
MAX_TILES = cell_count(max(SIDES))  # 37: every cell of the largest side
ELEMENT_LIST = sorted(ELEMENTS)


def fuzz_name(seed: int, index: int) -> str:
    return f"fuzz-s{seed}-{index}"


def variant_of(variant: str, index: int) -> str:
    """``both`` alternates: even indices standard, odd ones quintessence."""
    if variant == "both":
        return "standard" if index % 2 == 0 else "quintessence"
    return variant


def metal_chain(rng: random.Random, longest: int) -> list[str]:
    """Metal digits, ascending: from 1 upwards, or any digits (a board in mid-game); the last is gold."""
    length = rng.randint(0, max(0, min(longest, 9)))
    if rng.random() < 0.5:
        return [str(d) for d in range(1, length + 1)]
    return [str(d) for d in sorted(rng.sample(range(1, 10), length))]


def paired(rng: random.Random, budget: int, quintessence: bool) -> list[str]:
    """Tiles whose counts pair up: pairs of each kind, a metal chain with its quicksilver, quintessence groups."""
    tiles: list[str] = []
    if quintessence and budget >= 5:
        tiles += [QUINTESSENCE, *ELEMENT_LIST]
    room = budget - len(tiles)
    if room >= 1 and rng.random() < 0.7:
        chain = metal_chain(rng, (room + 1) // 2)
        tiles += chain + [QUICKSILVER] * max(len(chain) - 1, 0)
    pairs = [
        lambda: [rng.choice(ELEMENT_LIST)] * 2,
        lambda: [SALT, rng.choice(ELEMENT_LIST)],
        lambda: [SALT, SALT],
        lambda: [VITAE, MORS],
    ]
    while len(tiles) + 2 <= budget and rng.random() < 0.85:
        tiles += rng.choice(pairs)()
    return tiles


def loose(rng: random.Random, budget: int, quintessence: bool) -> list[str]:
    """Any tiles at all (each metal digit at most once)."""
    kinds = [*ELEMENT_LIST, SALT, VITAE, MORS, QUICKSILVER] + ([QUINTESSENCE] if quintessence else [])
    digits = [str(d) for d in range(1, 10)]
    rng.shuffle(digits)
    tiles = []
    for _ in range(rng.randint(1, budget)):
        if digits and rng.random() < 0.15:
            tiles.append(digits.pop())
        else:
            tiles.append(rng.choice(kinds))
    if quintessence and QUINTESSENCE not in tiles:
        tiles[0] = QUINTESSENCE
    return tiles


def edge(rng: random.Random, budget: int, quintessence: bool) -> list[str]:
    """One of the boards near the limits of an encoding, with a few paired tiles around it."""
    gold = str(rng.randint(1, 9))
    element = rng.choice(ELEMENT_LIST)
    cases = [
        [gold],  # gold alone
        [gold, element, element],  # gold with company, no quicksilver
        [QUICKSILVER],  # a lone quicksilver: unsolvable by counts
        [QUICKSILVER, gold],  # quicksilver and gold only: gold pairs with nothing
        [element, SALT],  # salt standing in for an element
        [SALT, SALT, element, element],
        [VITAE, MORS],  # no metals
    ]
    if quintessence:
        cases += [[QUINTESSENCE, *ELEMENT_LIST], [QUINTESSENCE, *[e for e in ELEMENT_LIST if e != element], SALT]]
    tiles = list(rng.choice([c for c in cases if len(c) <= budget] or [[gold]]))
    if quintessence and QUINTESSENCE not in tiles:
        tiles += [QUINTESSENCE, *ELEMENT_LIST] if len(tiles) + 5 <= budget else [QUINTESSENCE]
    extra = paired(rng, budget - len(tiles), False)
    return tiles + [t for t in extra if not t.isdigit() and t != QUICKSILVER]


def place(rng: random.Random, symbols: list[str], name: str) -> Board:
    """The tiles on a random side that holds them, on the central or on scattered cells."""
    dim = rng.choice([d for d in SIDES if cell_count(d) >= len(symbols)])
    if rng.random() < 0.5:
        spots = sorted(cells(dim), key=lambda c: (distance(c, CENTRE), rng.random()))[: len(symbols)]
    else:
        spots = rng.sample(list(cells(dim)), len(symbols))
    rng.shuffle(symbols)
    placed: dict[Hex, str] = dict(zip(spots, symbols, strict=True))
    return Board(dim, tuple(Tile(c, placed[c]) for c in cells(dim) if c in placed), name)


def fuzz_board(seed: int, index: int, max_tiles: int, variant: str) -> Board:
    """Board ``index`` of a fuzz run with ``seed``: the same board every time."""
    kind = variant_of(variant, index)
    rng = random.Random(f"sigmar-fuzz:{seed}:{index}:{max_tiles}:{kind}")
    quintessence = kind == "quintessence" and max_tiles >= 5
    recipe = rng.choices(RECIPES, weights=(6, 2, 2))[0]
    budget = rng.randint(1, max_tiles)
    if quintessence:
        budget = max(budget, 5)
    symbols = {"paired": paired, "loose": loose, "edge": edge}[recipe](rng, budget, quintessence)
    if not symbols:
        symbols = [str(rng.randint(1, 9))]
    return place(rng, symbols[:max_tiles], fuzz_name(seed, index))
