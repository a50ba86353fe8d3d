"""The quintessence variant (docs/formats.md#the-rules): rules, counts, stuck sets and search, against brute force."""

from __future__ import annotations

import random

import pytest

from sigmar.encoders.registry import make
from sigmar.models.board import Board, Tile
from sigmar.models.boardfile import parse_boards
from sigmar.models.hexgrid import cells
from sigmar.models.result import Move, Status
from sigmar.models.rules import Position, count_problem, verify
from sigmar.runners.checking.certificates import check_certificate
from sigmar.runners.checking.certify import ProofStore, certify
from sigmar.runners.checking.replay import replayed
from sigmar.runners.checking.stuck_check import Masks, stuck_verdict
from tests.bruteforce import solve_by_brute_force
from tests.script_loader import load_script
from tests.test_certificate_checker import first_escape

# Quintessence and the four elements on the rim of a side-2 board, all free.
FIVE = "x a\ne . w\nf .\n"


def variant_board(rng: random.Random, size: int = 10) -> Board:
    """One quintessence with its four elements, plus random pairs and metals on a side-3 board."""
    symbols = ["x", "a", "e", "f", "w"]
    metals = 0
    while len(symbols) < size:
        group = rng.choice(["aa", "ee", "ff", "ww", "sa", "vm", "qM", "xaefw"])
        if "M" in group:
            metals += 1
            group = group.replace("M", str(metals))
        symbols.extend(group)
    if metals:
        symbols.append(str(metals + 1))  # gold
    spots = rng.sample(cells(3), len(symbols))
    tiles = sorted((Tile(c, s) for c, s in zip(spots, symbols, strict=True)), key=lambda t: (t.cell[1], t.cell[0]))
    return Board(3, tuple(tiles), f"variant-{rng.random():.6f}")


def test_a_five_tile_move_is_legal_only_as_quintessence_with_the_four_elements() -> None:
    (board,) = parse_boards(FIVE, "five")
    position = Position.start(board)
    (move,) = position.legal_moves()
    assert len(move.cells) == 5
    assert verify(board, [move]).valid
    (salted,) = parse_boards("x a\ns . w\nf e\n", "salt for earth")
    salt_instead = Move(tuple(t.cell for t in salted.tiles if t.symbol != "e"))
    why = Position.start(salted).why_illegal(salt_instead)
    assert why is not None and "quintessence" in why.detail


def test_counts_give_each_quintessence_one_of_each_element_first() -> None:
    (short,) = parse_boards("x a\ne . .\nf .\n", "no water")
    assert "water" in (count_problem(short) or "")
    (fine,) = parse_boards(FIVE, "five")
    assert count_problem(fine) is None


@pytest.mark.parametrize("name", ["search", "cnf", "cnf:steps", "cpsat", "cpsat:steps", "pumpkin"])
def test_agrees_with_brute_force_and_certifies_its_refutations(name: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(17)
    search = make(name)
    seen = {Status.SOLVED: 0, Status.UNSOLVABLE: 0}
    with ProofStore(tmp_path) as proofs:
        for _ in range(120):
            board = variant_board(rng, rng.choice((8, 10, 12)))
            truth = solve_by_brute_force(board) is not None
            result = certify(board, replayed(board, search.solve(board, 20)), proofs)
            seen[result.status] = seen.get(result.status, 0) + 1
            if truth:
                assert result.status is Status.SOLVED and result.verified, f"{board}: {result}"
            else:
                assert result.status is Status.UNSOLVABLE, f"{board}: {result}"
                assert result.checked or not search.certifies, f"{name}'s certificate did not check: {result}"
    assert seen[Status.SOLVED] > 10 and seen[Status.UNSOLVABLE] > 10, seen


def test_stuck_sets_with_quintessence_never_lose_a_tile_under_play() -> None:
    rng = random.Random(23)
    accepted = with_quintessence = 0
    for _ in range(120):
        board = variant_board(rng, 9)
        m = Masks(board)
        full = (1 << m.size) - 1
        for stuck in range(1, full + 1):
            if stuck_verdict(m, full, stuck).valid:
                accepted += 1
                k_cells = frozenset(m.order[i] for i in range(m.size) if stuck >> i & 1)
                assert first_escape(board, k_cells) is None, board
                with_quintessence += any(board.symbol_at[c] == "x" for c in k_cells)
    assert accepted > 20 and with_quintessence > 5, (accepted, with_quintessence)


def test_a_dead_states_file_of_a_variant_board_is_checked(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(29)
    for _ in range(200):
        board = variant_board(rng, 12)
        result = make("search").solve(board, 20)
        if result.certificate is not None and result.certificate.kind == "dead-states":
            path = tmp_path / "v.dead.jsonl"
            path.write_text(result.certificate.texts[".dead.jsonl"])
            assert check_certificate(board, {"kind": "dead-states", "file": str(path)}).valid
            return
    raise AssertionError("no variant board was refuted by a dead-states file")


def test_backends_without_the_variant_say_so() -> None:
    (board,) = parse_boards(FIVE, "five")
    for name in ("cnf:thesis", "cnf:thesis+cadical195"):
        result = make(name).solve(board, 5)
        assert result.status is Status.ERROR and "quintessence" in result.message


def test_generate_places_each_quintessence_free_with_its_four_elements() -> None:
    from sigmar.models.generator import generate, mix_for, quintessence_mix
    from sigmar.models.templates import ondrovo_templates

    rng = random.Random(31)
    for k in range(10):
        template = ondrovo_templates()[k]
        made = generate(template, rng, quintessence_mix(mix_for(len(template))), f"q{k}")
        counts = made.board.counts
        assert counts["x"] == 2 and counts["v"] == counts["m"] == 3 and all(counts[e] == 8 for e in "aefw")
        assert count_problem(made.board) is None
        assert sum(len(m.cells) == 5 for m in made.witness) == 2
        assert verify(made.board, made.witness).valid


def test_the_benchmark_script_runs_both_passes(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A smoke run of scripts/bench/quintessence_boards.py on the first four boards of each public set (instances/)."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    monkeypatch.syspath_prepend(str(root / "scripts" / "bench"))  # the scripts' shared helper, benchlib
    bench = load_script("quintessence_boards")
    every_board = bench.boards
    monkeypatch.setattr(bench, "boards", lambda name: every_board(name, 4))
    monkeypatch.setattr(bench, "VARIANTS", ("hexmatch-easy-quintessence",))
    out = tmp_path / "race.json"
    assert bench.main(["race", "--every", "2", "--backend", "search", "--out", str(out)]) == 0
    summary = json.loads(out.read_text())["summary"]
    assert summary["boards"] == 2 and summary["unverified solutions"] == 0
    assert len(out.with_suffix(".csv").read_text().splitlines()) == 1 + 2
    out = tmp_path / "backends.json"
    assert bench.main(["backends", "--sample", "2", "--backends", "search,cnf:thesis", "--out", str(out)]) == 0
    table = json.loads(out.read_text())["table"]
    assert table["cnf:thesis"] == {"variant": {"refuses": True}}
    assert table["search"]["variant"]["answers"] == {"solved": 2} and table["search"]["standard"]["answers"]
