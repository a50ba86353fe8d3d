"""The frontier generator, templates, unsolvable sets, difficulty and the ``generate`` command."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigmar.encoders.registry import make
from sigmar.models.boardfile import BoardFileError, parse_boards, read_boards
from sigmar.models.difficulty import clear_rate
from sigmar.models.generator import (
    PAIRED_TILES,
    STANDARD_MIX,
    deadlocked,
    generate,
    mix_for,
    pair_stack,
    shuffled,
    standard_template_for,
    swapped,
    tiles_for_dim,
)
from sigmar.models.hexgrid import on_board
from sigmar.models.result import Status
from sigmar.models.rules import count_problem, verify
from sigmar.models.stuck_sets import static_problem, unsolvable_reason
from sigmar.models.templates import (
    FOLDS,
    Template,
    format_template,
    full_template,
    ondrovo_templates,
    parse_templates,
    random_template,
    rotate60,
)
from sigmar.models.tiles import ELEMENTS, SALT
from sigmar.runners.checking.replay import run_replayed
from sigmar.runners.cli import main
from sigmar.runners.cli.generate import refute
from tests.bruteforce import solve_by_brute_force


def test_the_43_ondrovo_shapes_parse_with_55_cells_and_gold_on_the_centre() -> None:
    shapes = ondrovo_templates()
    assert len(shapes) == 43
    assert all(t.dim == 6 and len(t) == 55 and t.gold == (0, 0) for t in shapes)
    assert len({t.cells for t in shapes}) == 43, "the shapes are distinct"


@pytest.mark.parametrize("index", range(43))
def test_every_ondrovo_template_yields_boards_their_witness_clears(index: int) -> None:
    template = ondrovo_templates()[index]
    rng = random.Random(index)
    for _ in range(5):
        made = generate(template, rng)
        assert {t.cell for t in made.board.tiles} == template.cells
        assert made.board.counts == _counts(STANDARD_MIX), template.name
        verdict = verify(made.board, made.witness)
        assert verdict.valid, f"{template.name}: {verdict}"
        assert len(made.witness) == 28


@pytest.mark.parametrize("dim", sorted(PAIRED_TILES))
@pytest.mark.parametrize("fold", FOLDS)
def test_scaled_boards_on_symmetric_shapes_are_verified_and_their_counts_pair_up(dim: int, fold: int) -> None:
    rng = random.Random(dim * 10 + fold)
    template = standard_template_for(dim, rng, fold)
    made = generate(template, rng)
    assert len(made.board) == tiles_for_dim(dim)
    assert count_problem(made.board) is None
    assert verify(made.board, made.witness).valid
    assert made.board.gold == str(mix_for(tiles_for_dim(dim)).metals)


def test_dim9_has_three_times_the_paired_tiles_and_a_longer_metal_chain() -> None:
    mix = mix_for(tiles_for_dim(9))
    assert mix.total - 1 == 3 * (STANDARD_MIX.total - 1)
    assert mix.metals == 9
    assert all(n % 2 == 0 for n in mix.elements) and mix.salt % 2 == 0 and mix.vitae == mix.mors


def test_standard_mix_is_the_standard_board() -> None:
    assert STANDARD_MIX.elements == (8, 8, 8, 8)
    assert (STANDARD_MIX.salt, STANDARD_MIX.vitae, STANDARD_MIX.mors, STANDARD_MIX.metals) == (4, 4, 4, 6)
    assert STANDARD_MIX.total == 55


@pytest.mark.parametrize("tiles", [1, 3, 7, 13, 19, 37, 55, 85, 163])
def test_any_odd_tile_count_gets_counts_that_pair_up(tiles: int) -> None:
    mix = mix_for(tiles)
    assert mix.total == tiles
    board = generate(_hexagon_with(tiles), random.Random(tiles), mix).board
    assert count_problem(board) is None


def test_salt_crosses_over_with_a_cardinal_pair_about_half_the_time() -> None:
    rng = random.Random(7)
    crossed = 0
    trials = 400
    for _ in range(trials):
        stack = pair_stack(STANDARD_MIX, rng)
        crossed += sum(1 for x, y in stack if x == SALT and y in ELEMENTS)
    # Two salt pairs per board, each crossing with probability 1/2 into two (s, e) pairs.
    assert 0.8 < crossed / (2 * trials) < 1.2


def test_gold_is_sometimes_not_the_last_tile_to_leave() -> None:
    rng = random.Random(3)
    last = [generate(ondrovo_templates()[i % 43], rng).witness[-1] for i in range(200)]
    gold_last = sum(1 for move in last if len(move.cells) == 1)
    assert 0 < gold_last < 200


def test_generation_is_deterministic_for_a_seed() -> None:
    template = ondrovo_templates()[5]
    a = generate(template, random.Random(42))
    b = generate(template, random.Random(42))
    c = generate(template, random.Random(43))
    assert a.board.tiles == b.board.tiles and a.witness == b.witness
    assert a.board.tiles != c.board.tiles


@pytest.mark.parametrize("fold", FOLDS)
def test_random_shapes_have_the_symmetry_asked_for(fold: int) -> None:
    rng = random.Random(fold)
    for dim in (4, 6, 9):
        size = 1 + fold * 6
        shape = random_template(dim, size, fold, rng)
        assert len(shape) == size and (0, 0) in shape.cells
        turned = shape.cells
        for _ in range(6 // fold):
            turned = frozenset(rotate60(c) for c in turned)
        assert turned == shape.cells
        assert all(on_board(c, dim) for c in shape.cells)


def test_random_shape_size_must_fit_the_symmetry() -> None:
    with pytest.raises(ValueError):
        random_template(6, 56, 6, random.Random(0))


def test_a_user_template_with_gold_marked_off_centre() -> None:
    text = "# my shape\n  o o\n 6 . o\n  o .\n"
    (shape,) = parse_templates(text, "mine.txt")
    assert shape.name == "my shape" and shape.dim == 2 and len(shape) == 5
    assert shape.gold != (0, 0) and shape.gold in shape.cells
    made = generate(shape, random.Random(1))
    assert verify(made.board, made.witness).valid
    gold_tile = next(t for t in made.board.tiles if t.symbol == made.board.gold)
    assert gold_tile.cell == shape.gold
    assert parse_templates(format_template(shape))[0].cells == shape.cells


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("  o o\n o x o\n  o o\n", "unknown symbol"),
        ("  o o\n o . o\n  o .\n", "centre is empty"),
        ("  o o\n o o o\n  o .\n", "odd count"),
        ("  o o\n o o o\n", "rows"),
    ],
)
def test_malformed_templates_are_errors_with_a_location(text: str, fragment: str) -> None:
    with pytest.raises(BoardFileError, match=fragment) as info:
        parse_templates(text, "bad.txt")
    assert "bad.txt" in str(info.value)


def test_refuted_candidates_on_small_boards_are_truly_unsolvable() -> None:
    """Shuffles, swaps and deadlocks of side-3 boards: every refuted one has no solution by brute force."""
    rng = random.Random(11)
    template = full_template(3)
    refuted = solvable = 0
    for round_ in range(60):
        base = generate(template, rng).board
        assert solve_by_brute_force(base) is not None
        kind = round_ % 3
        candidate = shuffled(base, rng) if kind == 0 else swapped(base, rng) if kind == 1 else deadlocked(base, rng)
        if candidate is None:
            continue
        found = refute(candidate, 5.0)
        brute = solve_by_brute_force(candidate)
        if found is not None:
            refuted += 1
            assert brute is None, f"refuted ({found[0]}: {found[1]}) but brute force solves it"
        elif brute is not None:
            solvable += 1
    assert refuted >= 10 and solvable >= 5


def test_deadlock_construction_keeps_the_counts_and_locks_the_lowest_metal() -> None:
    rng = random.Random(2)
    for i in range(20):
        base = generate(ondrovo_templates()[i], rng).board
        board = deadlocked(base, rng)
        assert board is not None
        assert board.counts == base.counts
        assert count_problem(board) is None
        assert static_problem(board) is not None
        assert clear_rate(board, 5, rng) == 0.0


def test_the_stuck_set_argument_is_silent_on_generated_boards() -> None:
    rng = random.Random(4)
    for i in range(30):
        assert static_problem(generate(ondrovo_templates()[i], rng).board) is None


def test_clear_rate_is_one_on_a_board_with_one_choice_and_in_range_otherwise() -> None:
    (pair,) = parse_boards("  a a\n . . .\n  . .\n")
    assert clear_rate(pair, 10, random.Random(0)) == 1.0
    board = generate(ondrovo_templates()[0], random.Random(0)).board
    rate = clear_rate(board, 20, random.Random(0))
    assert 0.0 <= rate <= 1.0


def test_cli_writes_files_that_read_back(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "gen.txt"
    assert main(["generate", "--count", "4", "--seed", "9", "-o", str(out)]) == 0
    boards = read_boards(out)
    assert len(boards) == 4
    assert all(b.name.startswith("generated 9:") for b in boards)
    assert all(count_problem(b) is None and len(b) == 55 for b in boards)
    again = tmp_path / "again.txt"
    assert main(["generate", "--count", "2", "--seed", "9", "-o", str(again)]) == 0
    assert out.read_text().startswith(again.read_text().rstrip("\n")), "board k does not depend on --count"


def test_cli_dim_stats_and_user_template(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "dim8.txt"
    assert main(["generate", "--dim", "8", "--template", "random:3", "--stats", "--runs", "5", "-o", str(out)]) == 0
    (board,) = read_boards(out)
    assert board.dim == 8 and len(board) == tiles_for_dim(8)
    assert "random play clears" in out.read_text()
    shape = tmp_path / "shape.txt"
    shape.write_text("# tiny\n  o o\n o o o\n  o o\n\n# other\n  o .\n o o o\n  . o\n")
    out2 = tmp_path / "tiny.txt"
    assert main(["generate", "--template", f"{shape}:1", "--count", "3", "--scale-tiles", "-o", str(out2)]) == 0
    assert all(len(b) == 5 for b in read_boards(out2))
    assert "template of 5 cells, not the standard 7: tile mix scaled" in out2.read_text()


def test_cli_unsolvable_boards_name_their_reason(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "unsolvable.txt"
    assert main(["generate", "--unsolvable", "--count", "3", "--seed", "2", "--time-limit", "5", "-o", str(out)]) == 0
    boards = read_boards(out)
    assert len(boards) == 3
    for board in boards:
        assert "[unsolvable: " in board.name
        assert refute(board, 5.0) is not None


def test_cli_rejects_bad_template_arguments(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["generate", "--template", "ondrovo:99"]) == 2
    assert main(["generate", "--template", "random:4"]) == 2
    assert main(["generate", "--template", "ondrovo", "--dim", "8"]) == 2
    assert "sigmar generate" in capsys.readouterr().err


def _counts(mix) -> Counter[str]:  # type: ignore[no-untyped-def]
    counts: Counter[str] = Counter(dict(zip("aefw", mix.elements, strict=True)))
    counts.update({"s": mix.salt, "v": mix.vitae, "m": mix.mors, "q": mix.metals - 1})
    counts.update(str(d) for d in range(1, mix.metals + 1))
    return +counts


def _hexagon_with(tiles: int) -> Template:
    """A shape of exactly ``tiles`` cells: the centre and the nearest others (no symmetry)."""
    dim = 1
    while 3 * dim * (dim - 1) + 1 < tiles:
        dim += 1
    ordered = sorted(full_template(dim).cells, key=lambda c: (max(abs(c[0]), abs(c[1]), abs(c[0] + c[1])), c))
    return Template(f"{tiles} cells", dim, frozenset(ordered[:tiles]), (0, 0))


INSTANCES = Path(__file__).resolve().parents[1] / "instances"


def test_bundled_generated_sets_read_back_and_keep_their_promises() -> None:
    standard = read_boards(INSTANCES / "generated-standard.txt")
    dim8 = read_boards(INSTANCES / "generated-dim8.txt")
    unsolvable = read_boards(INSTANCES / "generated-unsolvable.txt")
    assert 20 <= len(standard) <= 50 and 20 <= len(dim8) <= 50 and 20 <= len(unsolvable) <= 50
    assert all(len(b) == 55 and count_problem(b) is None for b in standard)
    assert all(b.dim == 8 and len(b) == tiles_for_dim(8) and count_problem(b) is None for b in dim8)
    for board in unsolvable:
        assert count_problem(board) is None, "counts alone would make a dull benchmark"
        reason = board.name.split("[unsolvable: ")[1].rstrip("]")
        if reason == "static":
            assert unsolvable_reason(board) is not None, board.name
        else:
            assert reason == "exhausted", board.name


def test_bundled_solvable_sets_are_solved_by_search() -> None:
    backend = make("search")  # the suite's own pure-Python backend: a failure to make it is a failure
    for name in ("generated-standard.txt", "generated-dim8.txt"):
        for board in read_boards(INSTANCES / name)[:10]:
            result = run_replayed(backend, board, 10.0)
            assert result.status is Status.SOLVED and result.verified, f"search on {board.name}: {result}"


def test_cli_witness_file_is_accepted_by_verify(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    boards, witness = tmp_path / "b.txt", tmp_path / "w.jsonl"
    assert main(["generate", "--count", "3", "--seed", "4", "-o", str(boards), "--witness", str(witness)]) == 0
    assert len(witness.read_text().splitlines()) == 3
    assert main(["verify", str(boards), str(witness)]) == 0
    assert capsys.readouterr().out.count("valid: the board is cleared") == 3


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.sampled_from(FOLDS), st.integers(0, 40), st.integers(0, 2**32))
def test_any_symmetric_shape_yields_a_board_its_witness_clears(dim: int, fold: int, orbits: int, seed: int) -> None:
    rng = random.Random(seed)
    most = (3 * dim * (dim - 1)) // fold
    count = min(orbits, most)
    if fold == 3 and count % 2:
        count -= 1  # three-cell orbits in pairs, so the tiles other than gold pair up
    size = 1 + fold * count
    template = random_template(dim, size, fold, rng)
    made = generate(template, rng)
    assert verify(made.board, made.witness).valid
    assert count_problem(made.board) is None


def test_cli_unsolvable_small_boards_are_unsolvable_by_brute_force(tmp_path) -> None:  # type: ignore[no-untyped-def]
    shape = tmp_path / "side3.txt"
    shape.write_text(format_template(full_template(3)))
    out = tmp_path / "small-unsolvable.txt"
    argv = ["generate", "--template", str(shape), "--unsolvable", "--count", "6", "--seed", "3", "--scale-tiles"]
    argv += ["-o", str(out)]
    assert main([*argv, "--time-limit", "5"]) == 0
    boards = read_boards(out)
    assert len(boards) == 6
    for board in boards:
        assert solve_by_brute_force(board) is None, f"{board.name} has a solution"


# -- templates whose size does not fit, and small sides


def test_a_template_that_does_not_fit_the_standard_tiles_is_refused_or_scaled_when_asked(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """57 cells on side 6 used to get a scaled mix silently (10 air, a 29-move witness); now exit 2 in one line,
    or with --scale-tiles the board is made and its comment says so."""
    full = full_template(6)
    ring = sorted(full.cells, key=lambda c: max(abs(c[0]), abs(c[1]), abs(c[0] + c[1])))[:57]
    shape = tmp_path / "57.txt"
    shape.write_text(format_template(Template("fifty-seven", 6, frozenset(ring), (0, 0))))
    out = tmp_path / "b.txt"
    assert main(["generate", "--template", str(shape), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "has 57 cells, but a side-6 board takes 55 tiles" in err[0] and "--scale-tiles" in err[0]
    assert not out.exists() or out.read_text() == ""
    assert main(["generate", "--template", str(shape), "--scale-tiles", "-o", str(out)]) == 0
    assert "tile mix scaled" in capsys.readouterr().err
    (board,) = read_boards(out)
    assert len(board) == 57 and "template of 57 cells, not the standard 55: tile mix scaled" in out.read_text()


@pytest.mark.parametrize("dim", [2, 3, 4, 5])
def test_generate_makes_small_boards_with_the_documented_mix(dim: int, tmp_path) -> None:  # type: ignore[no-untyped-def]
    out, witness = tmp_path / "small.txt", tmp_path / "w.jsonl"
    assert (
        main(["generate", "--dim", str(dim), "--count", "3", "--seed", "1", "-o", str(out), "--witness", str(witness)])
        == 0
    )
    boards = read_boards(out)
    mix = mix_for(tiles_for_dim(dim))
    page = (Path(__file__).resolve().parents[1] / "docs" / "generate.md").read_text()
    table = {
        row[0]: row for line in page.splitlines() if line.startswith("| ") for row in [line.strip("| ").split(" | ")]
    }
    _, _, tiles, _, metals, elements, salt, life = table[str(dim)]  # the documented mix of this side
    assert (int(tiles), metals, elements, int(salt), int(life)) == (
        tiles_for_dim(dim),
        f"{mix.metals} ({mix.metals})",
        "/".join(map(str, mix.elements)),
        mix.salt,
        mix.vitae,
    )
    for board in boards:
        assert board.dim == dim and len(board) == tiles_for_dim(dim) and count_problem(board) is None
        counts = board.counts
        assert [counts[e] for e in "aefw"] == list(mix.elements) and len(board.metals) == mix.metals
    assert main(["verify", str(out), str(witness)]) == 0
