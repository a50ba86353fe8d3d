"""Random deals: a board's tiles dropped on cells at random, solvable or not.

Glossary:
  deal      one random board; ``deal(kind, dim, seed, index)`` is a pure
            function of its four arguments (its own random stream), so board
            ``index`` is the same whatever else is dealt, and a survey that was
            killed can deal the rest without replaying the start.
  dense     the tiles on the cells nearest the centre by hex distance; the
            outermost ring that is needed only in part gets its cells at
            random (ties broken at random).  Gold is dealt like any tile.
  uniform   the tiles on random cells of a template, gold on the template's
            gold cell (as in the game, and as ``generate`` places it).
  tiles     side 6: the 55 standard tiles; above, the multiset that
            ``generate --dim D`` uses (``generator.mix_for``).

A deal is the question "is a random board solvable?"; the frontier
generator answers a different one (boards solvable by construction).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from sigmar.models.board import Board, Tile
from sigmar.models.errors import SigmarError
from sigmar.models.generator import ELEMENT_ORDER, STANDARD_DIM, Mix, mix_for, standard_template_for, tiles_for_dim
from sigmar.models.hexgrid import Hex, cells, distance
from sigmar.models.templates import CENTRE, Template, ondrovo_templates
from sigmar.models.tiles import MORS, QUICKSILVER, SALT, VITAE

KINDS = ("dense", "uniform")

# A template, a list to draw one from per deal, or a function drawing one from the deal's stream.
TemplateChoice = Template | Sequence[Template] | Callable[[random.Random], Template] | None


class DealError(SigmarError, ValueError):
    """A deal that cannot be made: an unknown kind or side, or a template too small."""


def tile_symbols(mix: Mix) -> list[str]:
    """The multiset of a mix as symbols, in a fixed order (metals 1..gold last)."""
    out: list[str] = []
    for symbol, count in zip(ELEMENT_ORDER, mix.elements, strict=True):
        out.extend(symbol * count)
    out.extend(SALT * mix.salt + VITAE * mix.vitae + MORS * mix.mors)
    out.extend(QUICKSILVER * (mix.metals - 1))
    out.extend(str(metal) for metal in range(1, mix.metals + 1))
    return out


def tiles_of_side(dim: int) -> list[str]:
    """The tiles a deal of side ``dim`` gets: the standard 55 on side 6, ``generate --dim`` above."""
    try:
        return tile_symbols(mix_for(tiles_for_dim(dim)))
    except ValueError as exc:
        raise DealError(str(exc)) from None


def stream(kind: str, dim: int, seed: int, index: int) -> random.Random:
    """The random stream of one deal (seeded by a string: stable across Python versions and runs)."""
    return random.Random(f"sigmar-deal:{kind}:{dim}:{seed}:{index}")


def deal_name(kind: str, dim: int, seed: int, index: int) -> str:
    return f"{kind}-{dim}-s{seed}-{index}"


def nearest_cells(dim: int, count: int, rng: random.Random) -> list[Hex]:
    """``count`` cells nearest the centre; among cells at the same distance the choice is random."""
    ranked = sorted(cells(dim), key=lambda c: (distance(c, CENTRE), rng.random()))
    return ranked[:count]


def dense(dim: int, rng: random.Random, name: str) -> Board:
    symbols = tiles_of_side(dim)
    chosen = nearest_cells(dim, len(symbols), rng)
    rng.shuffle(symbols)
    return _board(dim, dict(zip(chosen, symbols, strict=True)), name)


def uniform(dim: int, template: Template, rng: random.Random, name: str) -> Board:
    """The tiles shuffled over ``template`` (a random subset of its cells if it has more), gold on its cell."""
    symbols = tiles_of_side(dim)
    if template.dim != dim:
        raise DealError(f"template '{template.name}' is side {template.dim}, not {dim}")
    if len(template) < len(symbols):
        raise DealError(f"template '{template.name}' has {len(template)} cells; a side-{dim} deal needs {len(symbols)}")
    gold = symbols.pop()  # tile_symbols puts gold last
    others = sorted(template.cells - {template.gold}, key=lambda c: (c[1], c[0]))
    chosen = rng.sample(others, len(symbols))
    rng.shuffle(symbols)
    placed = dict(zip(chosen, symbols, strict=True))
    placed[template.gold] = gold
    return _board(dim, placed, name)


def _board(dim: int, placed: dict[Hex, str], name: str) -> Board:
    """A board with its tiles in reading order (the order the board file and every backend use)."""
    tiles = tuple(Tile(cell, placed[cell]) for cell in cells(dim) if cell in placed)
    return Board(dim, tiles, name)


def _template(choice: TemplateChoice, dim: int, rng: random.Random) -> Template:
    if isinstance(choice, Template):
        return choice
    if callable(choice):
        return choice(rng)
    if choice is not None:
        if not choice:
            raise DealError("no template to deal onto")
        return rng.choice(list(choice))
    if dim == STANDARD_DIM:
        return rng.choice(ondrovo_templates())
    return standard_template_for(dim, rng)


def deal(kind: str, dim: int, seed: int, index: int, template: TemplateChoice = None) -> Board:
    """Deal ``index`` of ``seed``: the same board every time, whatever else was dealt.

    ``template`` is used by ``uniform`` only; by default a random one of the 43
    public (ondrovo) shapes on side 6, a random symmetric shape above.
    """
    if kind not in KINDS:
        raise DealError(f"unknown deal '{kind}' (choose from {', '.join(KINDS)})")
    rng = stream(kind, dim, seed, index)
    name = deal_name(kind, dim, seed, index)
    if kind == "dense":
        return dense(dim, rng, name)
    return uniform(dim, _template(template, dim, rng), rng, name)


__all__ = ["KINDS", "DealError", "deal", "deal_name", "dense", "uniform", "tiles_of_side"]
