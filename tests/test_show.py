"""``show --svg`` and ``show --html``: the pictures say what the board holds, the pages replay every move."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sigmar.models.board import Board
from sigmar.models.boardfile import format_board, parse_boards, read_boards
from sigmar.models.hexgrid import cells, from_rowcol
from sigmar.models.result import Certificate, CertificateKind, Reason, Result, Status
from sigmar.models.rules import Position
from sigmar.models.solution import parse_solutions, to_moves
from sigmar.models.tiles import METALS, SYMBOLS
from sigmar.runners.render.proof_page import page_for
from sigmar.runners.render.svg import GOLD_FILL, board_svg, fill_of, letter_of
from tests.conftest import random_board

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "instances" / "real-game.txt"
SMALL = ROOT / "instances" / "small.txt"
SOLUTION = ROOT / "tests" / "data" / "real-game-0.solution.txt"
SVG = "{http://www.w3.org/2000/svg}"


def sigmar(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "sigmar.runners.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)


def drawn_tiles(svg_text: str) -> set[tuple[tuple[int, int], str]]:
    """The (cell, tile) pairs an SVG shows, read back with xml.etree."""
    root = ET.fromstring(svg_text)
    pairs = set()
    for element in root.iter():
        if "data-cell" in element.attrib:
            row, col = (int(x) for x in element.attrib["data-cell"].split(","))
            pairs.add(((row, col), element.attrib["data-tile"]))
    return pairs


def board_pairs(board: Board) -> set[tuple[tuple[int, int], str]]:
    return {(board.rowcol(t.cell), t.symbol) for t in board.tiles}


def blocks(html: str, tag: str, attribute: str) -> list[str]:
    """The values of ``attribute`` on every ``tag`` element of a page."""
    return re.findall(rf"<{tag}\b[^>]*\b{attribute}=\"([^\"]*)\"", html)


# -- SVG


def test_svg_of_the_real_board_holds_exactly_its_tiles(tmp_path: Path) -> None:
    out = tmp_path / "board.svg"
    done = sigmar("show", str(REAL), "--svg", str(out), "--coords")
    assert done.returncode == 0, done.stderr
    boards = read_boards(REAL)
    for index, board in enumerate(boards):
        text = (tmp_path / f"board.{index}.svg").read_text()
        assert drawn_tiles(text) == board_pairs(board), board.name
    assert not out.exists()  # several boards: one file each, named as encode names them


@pytest.mark.parametrize("dim", [1, 2, 3, 6, 9, 16])
def test_svg_any_side_holds_exactly_its_tiles(dim: int) -> None:
    board = random_board(random.Random(dim), dim, len(cells(dim)) * 11 // 20, name=f"random side {dim}")
    text = board_svg(board, coords=True)
    assert drawn_tiles(text) == board_pairs(board)
    root = ET.fromstring(text)
    background = [e for e in root.iter(f"{SVG}use") if e.get("class") == "c"]
    assert len(background) == len(cells(dim))  # every cell drawn, empty or not


def test_kind_is_read_from_the_letter_not_only_the_colour() -> None:
    board = random_board(random.Random(7), 6, 50, name="random side 6")
    root = ET.fromstring(board_svg(board))
    for group in root.iter(f"{SVG}g"):
        if "data-tile" not in group.attrib:
            continue
        letters = [t.text for t in group.iter(f"{SVG}text")]
        assert letters == [letter_of(group.attrib["data-tile"])]
    kinds = sorted(SYMBOLS)
    assert len({letter_of(k) for k in kinds}) == len(kinds)  # no two kinds share a letter
    assert len({fill_of(k) for k in kinds if k not in METALS}) == len(kinds) - len(METALS)


def test_svg_of_a_standard_board_is_at_most_30_kb() -> None:
    board = read_boards(REAL)[0]
    assert len(board_svg(board, coords=True).encode()) <= 30_000


def test_gone_tiles_are_left_out_unless_kept() -> None:
    board = read_boards(REAL)[0]
    first = board.tiles[0].cell
    rest = frozenset(t.cell for t in board.tiles[1:])
    assert board.rowcol(first) not in {c for c, _ in drawn_tiles(board_svg(board, occupied=rest))}
    kept = board_svg(board, occupied=rest, keep_gone=True)
    assert drawn_tiles(kept) == board_pairs(board) and kept.count('class="t gone"') == 1


# -- HTML replay


def test_replay_page_has_one_step_per_move_and_works_offline(tmp_path: Path) -> None:
    out = tmp_path / "replay.html"
    board = read_boards(REAL)[0]
    single = tmp_path / "one.txt"
    single.write_text(format_board(board))
    done = sigmar("show", str(single), "--solution", str(SOLUTION), "--html", str(out))
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    moves = to_moves(board, parse_solutions(SOLUTION.read_text())[0])
    steps = blocks(html, "li", "data-cells")
    assert len(moves) == 28 and len(steps) == 28
    assert steps == [" ".join("{},{}".format(*board.rowcol(c)) for c in m.cells) for m in moves]
    # The free tiles listed for each step are the rule engine's.
    position = Position.start(board)
    for move, free in zip(moves, blocks(html, "li", "data-free"), strict=True):
        assert free == " ".join("{},{}".format(*board.rowcol(c)) for c in position.free_cells())
        position = position.play(move)
    assert position.is_clear and 'data-end-free=""' in html
    # Self-contained: no external script, style, image or font.
    assert not re.search(r"(src|href)=\"(https?:)?//", html)
    assert "<link" not in html and "ArrowRight" in html
    assert len(html.encode()) <= 200_000


def test_html_without_solution_solves_a_solvable_board(tmp_path: Path) -> None:
    board = next(b for b in read_boards(SMALL) if b.name.startswith("full side-2 board"))
    path = tmp_path / "b.txt"
    path.write_text(format_board(board))
    out = tmp_path / "b.html"
    done = sigmar("show", str(path), "--html", str(out))
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    assert "Solved by" in html and len(blocks(html, "li", "data-cells")) == 4  # 7 tiles: three pairs and gold


# -- HTML for an unsolvable board


def test_stuck_set_is_marked_and_each_tile_explained(tmp_path: Path) -> None:
    board = next(b for b in read_boards(SMALL) if b.name.startswith("lead ringed"))
    path = tmp_path / "ringed.txt"
    path.write_text(format_board(board))
    out = tmp_path / "ringed.html"
    done = sigmar("show", str(path), "--html", str(out))
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    held = set(re.findall(r'<g class="t held" data-cell="(\d+,\d+)"', html))
    assert held  # the search route finds a stuck set here
    rows = re.findall(r"<tr><td>\[(\d+), (\d+)\]</td>", html)
    assert {f"{r},{c}" for r, c in rows} == held  # one sentence per tile of K
    faded = re.findall(r'<g class="t dim" data-cell="(\d+,\d+)"', html)
    assert len(held) + len(faded) == len(board)


def test_dead_states_certificate_is_named_with_its_size(tmp_path: Path) -> None:
    board = next(b for b in read_boards(SMALL) if b.name.startswith("salt must take the earth"))
    path = tmp_path / "dead.txt"
    path.write_text(format_board(board))
    out = tmp_path / "dead.html"
    done = sigmar("show", str(path), "--html", str(out))
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    # prove races two routes: the search's dead states usually win, Glucose's DRUP proof sometimes
    assert re.search(r"(dead-states \(\d+ states|drup \(\d+ proof lines), \d+ bytes\)", html), html[-800:]


def test_drup_certificate_is_named_with_its_size(tmp_path: Path) -> None:
    board = read_boards(REAL)[0]
    proof = tmp_path / "b.drup"
    proof.write_text("1 2 0\n-1 0\n0\n")
    certificate = Certificate(CertificateKind.DRUP, file=str(proof))
    result = Result(
        Status.UNSOLVABLE, "cnf:glucose4", reason=Reason.PROOF, certificate=certificate, checked=True, explanation="x"
    )
    assert "drup (3 proof lines, 13 bytes)" in page_for(board, result, 10)
    unchecked = result.with_(checked=False)
    assert "No trusted answer" in page_for(board, unchecked, 10)


# -- bad input: exit 2 and one line, nothing written


def one_line_exit_2(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for word in words:
        assert word in lines[0], lines[0]


def test_malformed_board_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(" a a\n. z .\n a a\n")
    out = tmp_path / "o.svg"
    one_line_exit_2(sigmar("show", str(path), "--svg", str(out)), str(path), "row 1")
    assert not out.exists()


def test_solution_for_another_board_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "o.html"
    done = sigmar(
        "show", str(REAL), "--board", "real game screenshot2", "--solution", str(SOLUTION), "--html", str(out)
    )
    one_line_exit_2(done, "real game screenshot2", "move 1", "illegal")
    assert not list(tmp_path.iterdir())


def test_solution_off_the_board_exit_2(tmp_path: Path) -> None:
    sol = tmp_path / "sol.txt"
    sol.write_text("0,0 40,1\n")
    done = sigmar("show", str(REAL), "--solution", str(sol), "--html", str(tmp_path / "o.html"))
    one_line_exit_2(done, "row 40")


@pytest.mark.parametrize("where", ["missing/o.svg", "a-file/o.svg", "a-file/"])
def test_unwritable_out_exit_2(tmp_path: Path, where: str) -> None:
    (tmp_path / "a-file").write_text("")
    path = tmp_path / "one.txt"
    path.write_text(format_board(read_boards(REAL)[0]))
    out = f"{tmp_path}/{where}"
    for option in ("--svg", "--html"):
        one_line_exit_2(sigmar("show", str(path), option, out), "cannot write", out.rstrip("/"))
    assert not (tmp_path / "missing").exists() and (tmp_path / "a-file").read_text() == ""


def test_no_answer_in_time_says_so() -> None:
    board = read_boards(REAL)[0]
    result = Result(Status.UNKNOWN, "search", message="time limit reached before the search ended")
    page = page_for(board, result, 2.5)
    assert "No answer within 2.5 s." in page and "time limit reached" in page


def test_side_1_board_replays_gold_alone(tmp_path: Path) -> None:
    path = tmp_path / "gold.txt"
    path.write_text(" 6\n")
    sol = tmp_path / "gold.sol"
    sol.write_text("0,0\n")
    out = tmp_path / "gold.html"
    done = sigmar("show", str(path), "--solution", str(sol), "--html", str(out), "--svg", str(tmp_path / "g.svg"))
    assert done.returncode == 0, done.stderr
    assert blocks(out.read_text(), "li", "data-cells") == ["0,0"]
    assert drawn_tiles((tmp_path / "g.svg").read_text()) == {((0, 0), "6")}


# -- each metal its own colour, gold distinct; names and titles


def test_each_metal_has_its_own_colour_and_gold_is_distinct_whatever_its_digit() -> None:
    board = read_boards(REAL)[0]  # metals 1-6, gold 6
    root = ET.fromstring(board_svg(board))
    fills = {
        g.attrib["data-tile"]: next(u for u in g.iter(f"{SVG}use")).attrib["style"]
        for g in root.iter(f"{SVG}g")
        if g.attrib.get("data-tile", "") in METALS
    }
    assert len(set(fills.values())) == len(fills) == 6, fills
    assert fills[board.gold] == f"fill:{GOLD_FILL}"
    assert {fill_of(d) for d in METALS} & {GOLD_FILL} == set()  # no metal but gold is drawn gold
    mid_game = parse_boards("# mid-game\n  3 q\n . 5 .\n  . .\n", "m.txt")[0]  # gold is 5 here
    assert fill_of("5", mid_game.gold) == GOLD_FILL and fill_of("5") != GOLD_FILL


def test_the_terminal_draws_each_metal_in_its_own_style_and_gold_apart() -> None:
    from sigmar.runners.cli.show import GOLD_STYLE, STYLES, render

    board = read_boards(REAL)[0]
    styles = {span.style for span in render(board).spans if str(span.style) not in ("grey42",)}
    metal_styles = {STYLES[d] for d in board.metals if d != board.gold}
    assert len(metal_styles) == len(board.metals) - 1 and GOLD_STYLE not in metal_styles
    assert metal_styles | {GOLD_STYLE} <= {str(s) for s in styles}


def test_svg_folder_gets_one_named_file_per_board_each_with_its_title(tmp_path: Path) -> None:
    folder = tmp_path / "pics"
    done = sigmar("show", str(REAL), "--svg", f"{folder}/")
    assert done.returncode == 0, done.stderr
    boards = read_boards(REAL)
    assert sorted(p.name for p in folder.iterdir()) == sorted(["real_game_screenshot.svg", "real_game_screenshot2.svg"])
    for board in boards:
        root = ET.fromstring((folder / f"{board.name.replace(' ', '_')}.svg").read_text())
        assert root.find(f"{SVG}title") is not None and root.find(f"{SVG}title").text == board.name
        assert drawn_tiles(ET.tostring(root, encoding="unicode")) == board_pairs(board)


def test_a_plain_replay_names_the_cells_of_every_move(tmp_path: Path) -> None:
    done = sigmar("show", str(REAL), "--solution", str(SOLUTION), "--no-color")
    assert done.returncode == 0, done.stderr
    board = read_boards(REAL)[0]
    first = next(line for line in done.stdout.splitlines() if line.startswith("move 1: "))
    (solution,) = parse_solutions(SOLUTION.read_text(), str(SOLUTION))
    (a, b) = solution.moves[0]
    symbols = [board.symbol_at[from_rowcol(r, c, board.dim)] for r, c in (a, b)]
    assert first == f"move 1: {symbols[0]} [{a[0]}, {a[1]}] + {symbols[1]} [{b[0]}, {b[1]}]"
