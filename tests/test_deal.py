"""Random deals (``sigmar.models.deal``) and ``sigmar generate --deal``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from sigmar.models.boardfile import parse_boards, read_boards
from sigmar.models.deal import DealError, deal, tiles_of_side
from sigmar.models.generator import PAIRED_TILES, STANDARD_MIX, mix_for, tiles_for_dim
from sigmar.models.hexgrid import cells, distance
from sigmar.models.rules import count_problem
from sigmar.models.templates import CENTRE, full_template, ondrovo_templates
from sigmar.runners import cli
from tests.conftest import public_boards

STANDARD = Counter("a" * 8 + "e" * 8 + "f" * 8 + "w" * 8 + "s" * 4 + "v" * 4 + "m" * 4 + "q" * 5 + "123456")


def test_side_6_deals_the_55_standard_tiles() -> None:
    assert Counter(tiles_of_side(6)) == STANDARD
    assert STANDARD_MIX.total == 55
    for kind in ("dense", "uniform"):
        assert Counter(deal(kind, 6, 3, 7).counts) == STANDARD, kind


@pytest.mark.parametrize("dim", sorted(PAIRED_TILES))
def test_above_side_6_the_multiset_is_generates(dim: int) -> None:
    mix = mix_for(tiles_for_dim(dim))
    board = deal("dense", dim, 1, 0)
    assert len(board) == tiles_for_dim(dim)
    assert board.counts["s"] == mix.salt and board.counts["v"] == mix.vitae
    assert board.metals == tuple(str(m) for m in range(1, mix.metals + 1))
    assert count_problem(board) is None  # the counts pair up: only play decides


@pytest.mark.parametrize("dim", sorted(PAIRED_TILES))
def test_dense_fills_the_cells_nearest_the_centre(dim: int) -> None:
    board = deal("dense", dim, 5, 2)
    used = {t.cell for t in board.tiles}
    reach = max(distance(c, CENTRE) for c in used)
    inner = {c for c in cells(dim) if distance(c, CENTRE) < reach}
    assert inner <= used, "a cell nearer the centre was left empty"
    assert all(distance(c, CENTRE) <= reach for c in used)


def test_dense_breaks_ties_at_random() -> None:
    """Side 6 needs 18 of the 24 cells at distance 4: different deals choose different ones."""
    outer = {frozenset(t.cell for t in deal("dense", 6, 0, i).tiles if distance(t.cell, CENTRE) == 4) for i in range(8)}
    assert len(outer) > 1
    assert all(len(ring) == 18 for ring in outer)


def test_a_deal_depends_only_on_its_four_arguments() -> None:
    first = deal("dense", 6, 9, 41)
    assert deal("dense", 6, 9, 41) == first  # the same whatever was dealt before
    assert deal("dense", 6, 9, 40) != first
    assert deal("dense", 6, 8, 41) != first
    assert first.name == "dense-6-s9-41"
    assert deal("uniform", 7, 2, 3).name == "uniform-7-s2-3"


def test_uniform_fills_a_public_template_with_gold_on_its_cell() -> None:
    shapes = {t.cells: t for t in ondrovo_templates()}
    seen = set()
    for i in range(20):
        board = deal("uniform", 6, 4, i)
        cells_used = frozenset(t.cell for t in board.tiles)
        assert cells_used in shapes, f"{board.name} is not on a public template"
        assert board.symbol_at[shapes[cells_used].gold] == "6"
        seen.add(cells_used)
    assert len(seen) > 1  # a random template per deal


def test_uniform_on_a_bigger_template_uses_random_cells_of_it() -> None:
    template = full_template(6)
    boards = [deal("uniform", 6, 1, i, template) for i in range(3)]
    for board in boards:
        assert len(board) == 55 and board.symbol_at[CENTRE] == "6"
    assert len({frozenset(t.cell for t in b.tiles) for b in boards}) == 3


def test_bad_deals_are_refused() -> None:
    with pytest.raises(DealError, match="unknown deal"):
        deal("sparse", 6, 0, 0)
    with pytest.raises(DealError, match="side"):
        deal("dense", 11, 0, 0)
    with pytest.raises(DealError, match="side 6, not 7"):
        deal("uniform", 7, 0, 0, ondrovo_templates()[0])


def test_the_bundled_templates_are_the_shapes_of_the_public_ondrovo_boards() -> None:
    """In order of first use over the 2,048 boards, each template's comment giving its count and first boards."""
    uses: dict[frozenset, list[int]] = {}
    for index, board in enumerate(public_boards("ondrovo-2048.txt.xz")):
        uses.setdefault(frozenset(t.cell for t in board.tiles), []).append(index)
    templates = ondrovo_templates()
    assert [t.cells for t in templates] == list(uses)
    for template, boards in zip(templates, uses.values(), strict=True):
        assert template.name.endswith(f": {len(boards)} boards, first seeds {boards[:5]}"), template.name


def test_generate_deal_writes_named_boards_that_load(tmp_path: Path) -> None:
    out = tmp_path / "deals.txt"
    assert cli.main(["generate", "--deal", "dense", "--dim", "7", "--count", "3", "--seed", "5", "-o", str(out)]) == 0
    boards = read_boards(out)
    assert [b.name for b in boards] == [f"dense-7-s5-{i}" for i in range(3)]
    assert boards == [deal("dense", 7, 5, i) for i in range(3)]


def test_generate_deal_uniform_on_a_chosen_template(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["generate", "--deal", "uniform", "--template", "ondrovo:4"]) == 0
    (board,) = parse_boards(capsys.readouterr().out, "out")
    assert {t.cell for t in board.tiles} == ondrovo_templates()[4].cells


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--deal", "dense", "--template", "ondrovo"], "takes no --template"),
        (["--deal", "dense", "--unsolvable"], "neither --unsolvable"),
        (["--deal", "uniform", "--dim", "7", "--template", "ondrovo:1"], "side 6"),
    ],
)
def test_generate_deal_refuses_bad_arguments(extra: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["generate", *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0]
