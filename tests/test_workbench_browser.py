"""The workbench in a real browser: Debian's Chromium, driven by Playwright, against a ``sigmar serve`` process.

A person's five moments: edit a cell and see the verdict change; paste a malformed board and see
a message naming the row and column; step through a replay; play a losing move and see it
flagged; apply a repair and see the board become solvable.  Where no browser can start, every
test here skips and says why (``tests/workbench_harness.py``: the browser is /usr/bin/chromium,
which install.sh installs; Playwright never downloads one).  Nothing here is timed: each
wait is for what the page shows, with a generous limit for a loaded machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sigmar.encoders.search import SearchBackend
from sigmar.models.boardfile import format_board
from sigmar.models.deal import deal
from sigmar.models.result import Status
from tests import workbench_harness as harness
from tests.conftest import INSTANCES

WAIT = 60_000  # milliseconds: what a page shows on a loaded machine comes within this
# Solvable, but its first move salt [0, 1] with fire [3, 0] leaves three air: lost (tests/test_workbench.py).
LOSABLE = "  . s a\n . v 1 a\n. m . . .\n f . a .\n  f . .\n"
# Unsolvable; its smallest repair moves the air at [0, 0] to the empty cell [2, 0].
MOVE_REPAIR = "  a . w\n . a . f\n. . e f .\n w f f .\n  e . .\n"

MISSING = harness.why_no_browser()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"no browser for the workbench tests: {MISSING}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("workbench")
    boards = folder / "boards.txt"
    dense = deal("dense", 6, 1, 0)  # unsolvable; one swap repairs it
    boards.write_text((INSTANCES / "real-game.txt").read_text().split("\n\n")[0] + "\n\n" + format_board(dense))
    served = harness.serve(boards)
    yield served
    served.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import Error, sync_playwright

    with sync_playwright() as playwright:
        try:
            chromium = harness.launch(playwright)
        except Error as exc:  # installed, but it cannot start here
            pytest.skip(f"Chromium did not start: {str(exc).splitlines()[0]}")
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, server: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # the page keeps within its own Content-Security-Policy (a blocked script, style or image is an error)
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    page.goto(server.url)
    page.wait_for_selector("#verdict[data-status=solved]", timeout=WAIT)  # the first named board is solvable
    yield page
    context.close()
    assert not errors, errors  # no script error on the page


def verdict_after(page: Any, edits: int) -> str:
    """The verdict's status once the page shows the verdict of edit number ``edits``."""
    page.wait_for_function(
        "n => { const v = document.getElementById('verdict');"
        " return Number(v.dataset.seq) >= n && v.dataset.status !== 'busy'; }",
        arg=edits,
        timeout=WAIT,
    )
    return str(page.get_attribute("#verdict", "data-status"))


def edits(page: Any) -> int:
    return int(page.get_attribute("body", "data-edits"))


def test_editing_a_cell_changes_the_verdict(page: Any) -> None:
    assert page.locator("#counts").inner_text().count("55") >= 2  # live counts: all 55 tiles
    page.click("#palette button[data-sym='f']")
    page.click("#board [data-cell='1,0']")  # the real game's fire at [1, 0]: stays fire
    assert verdict_after(page, edits(page)) == "solved"
    page.click("#palette button[data-sym='.']")
    page.click("#board [data-cell='1,0']")  # one fire fewer: the counts cannot pair up any more
    assert verdict_after(page, edits(page)) == "unsolvable"
    assert "counts" in page.inner_text("#verdict") and "salt" in page.inner_text("#detail")
    assert "54" in page.inner_text("#counts")


def test_a_malformed_paste_names_row_and_column(page: Any) -> None:
    page.fill("#text", "  a a\n . z .\n  . .\n")
    page.wait_for_function("() => document.getElementById('text-error').textContent.length > 0", timeout=WAIT)
    message = page.inner_text("#text-error")
    assert "row 1, column 1" in message and "unknown symbol 'z'" in message
    page.fill("#text", "  a a\n . . .\n  . .\n")  # fixed: the message goes, the verdict comes
    assert verdict_after(page, edits(page)) == "solved"
    assert page.inner_text("#text-error") == ""


def test_stepping_through_the_replay(page: Any) -> None:
    page.click("#replay-solution")
    assert page.inner_text("#step") == "solution: move 1 of 28"
    assert page.locator("#board .t.gone").count() == 0 and page.locator("#board .t.next").count() == 2
    page.click("#next")
    page.click("#next")
    assert page.inner_text("#step") == "solution: move 3 of 28"
    assert page.locator("#board .t.gone").count() == 4
    page.click("#prev")
    assert page.locator("#board .t.gone").count() == 2
    page.click("#last")
    assert page.inner_text("#step") == "solution: after move 28 of 28"
    assert page.locator("#board .t.gone").count() == 55


def counter(page: Any) -> tuple[int, int, int]:
    """The play counter as the page shows it: tiles left, of how many, moves made."""
    return (
        int(page.inner_text("#count-left")),
        int(page.inner_text("#count-tiles")),
        int(page.inner_text("#count-moves")),
    )


def start_play(page: Any, text: str) -> None:
    page.fill("#text", text)
    assert verdict_after(page, edits(page)) == "solved"
    page.click("#mode-play")
    page.wait_for_selector("#verdict[data-status=clearable]", timeout=WAIT)


def moved(page: Any, count: int) -> None:
    """Wait until the page shows the position after ``count`` moves."""
    page.wait_for_function(
        "n => document.getElementById('count-moves').textContent === String(n)", arg=count, timeout=WAIT
    )


def test_playing_a_side_3_board_to_the_end_clicking_only_tiles_marked_free(page: Any) -> None:
    board = deal("dense", 3, 1, 2)  # 13 tiles: elements, quicksilver, three metals (gold leaves alone)
    solution = SearchBackend().solve(board, 60)
    assert solution.status is Status.SOLVED
    start_play(page, format_board(board))
    assert counter(page) == (13, 13, 0)
    left = 13
    for number, move in enumerate(solution.moves, start=1):
        free = set(page.eval_on_selector_all("#board .t.free:not(.gone)", "ts => ts.map(t => t.dataset.cell)"))
        blocked = set(page.eval_on_selector_all("#board .t.blocked:not(.gone)", "ts => ts.map(t => t.dataset.cell)"))
        assert len(free) + len(blocked) == left and not free & blocked
        cells = ["{},{}".format(*board.rowcol(cell)) for cell in move.cells]
        assert set(cells) <= free, (number, cells, free)  # each tile clicked is one the page marks free
        for cell in cells:
            page.click(f"#board [data-cell='{cell}']")
        moved(page, number)
        left -= len(cells)
        assert counter(page) == (left, 13, number)
    page.wait_for_selector("#verdict[data-status=cleared]", timeout=WAIT)
    assert "Cleared" in page.inner_text("#verdict") and page.locator("#board .t.gone").count() == 13


def test_a_blocked_tile_is_dimmed_and_says_why_it_cannot_move(page: Any) -> None:
    start_play(page, format_board(deal("dense", 3, 1, 2)))
    blocked = page.eval_on_selector_all("#board .t.blocked", "ts => ts.map(t => t.dataset.cell)")
    assert blocked and page.locator("#board .t.free").count() + len(blocked) == 13
    assert page.eval_on_selector(f"#board [data-cell='{blocked[0]}']", "t => getComputedStyle(t).opacity") < "1"
    page.click(f"#board [data-cell='{blocked[0]}']")
    assert "is blocked" in page.inner_text("#play-status") and counter(page)[2] == 0
    free = page.eval_on_selector_all("#board .t.free", "ts => ts.map(t => t.dataset.cell)")
    for cell in free:  # the first free tile that pairs with another is picked, and its partners outlined
        page.click(f"#board [data-cell='{cell}']")
        if page.locator("#board .t.pick").count():
            break
        assert "pairs with no free tile" in page.inner_text("#play-status")
    partners = page.eval_on_selector_all("#board .t.partner", "ts => ts.map(t => t.dataset.cell)")
    assert page.locator("#board .t.pick").count() == 1 and partners and set(partners) <= set(free)


def test_a_hint_is_taken_and_undone(page: Any) -> None:
    start_play(page, LOSABLE)
    assert counter(page) == (9, 9, 0)
    page.click("#hint")
    page.wait_for_selector("#play-status[data-status=hint]", timeout=WAIT)
    assert "is safe" in page.inner_text("#play-status")
    hinted = page.eval_on_selector_all("#board .t.next", "ts => ts.map(t => t.dataset.cell)")
    assert 1 <= len(hinted) <= 2 and all(
        "free" in page.get_attribute(f"#board [data-cell='{c}']", "class") for c in hinted
    )
    for cell in hinted:  # taken: its tiles clicked
        page.click(f"#board [data-cell='{cell}']")
    moved(page, 1)
    assert counter(page) == (9 - len(hinted), 9, 1)
    page.wait_for_selector("#verdict[data-status=clearable]", timeout=WAIT)
    page.click("#undo")
    moved(page, 0)
    assert counter(page) == (9, 9, 0) and page.locator("#board .t.gone").count() == 0


def test_a_hint_asked_while_a_move_is_on_its_way_is_the_hint_of_the_position_after_it(page: Any) -> None:
    start_play(page, LOSABLE)
    page.click("#hint")
    page.wait_for_selector("#play-status[data-status=hint]", timeout=WAIT)
    hinted = page.eval_on_selector_all("#board .t.next", "ts => ts.map(t => t.dataset.cell)")
    # One script: the move's tiles clicked, then Hint, before the page can have the position after the move.
    page.evaluate(
        """(cells) => {
          for (const c of cells) {
            const tile = document.querySelector(`#board [data-cell='${c}']`);
            tile.dispatchEvent(new MouseEvent('click', {bubbles: true}));  // an SVG tile has no click()
          }
          document.getElementById('hint').click();
        }""",
        hinted,
    )
    page.wait_for_selector("#play-status[data-status=hint]", timeout=WAIT)
    assert counter(page)[2] == 1 and page.evaluate("() => document.body.dataset.played") == "1"
    marked = page.eval_on_selector_all("#hint-list li", "ls => ls.map(l => l.dataset.cells.split(' '))")
    assert len(marked) == int(page.inner_text("#count-legal")) >= 1
    assert not {c for cells in marked for c in cells} & set(hinted)  # none uses a tile the move took away


def test_hint_on_a_cleared_board_says_there_is_no_move(page: Any) -> None:
    page.fill("#text", "  . . .\n . . . .\n. . . . .\n . . . .\n  . . .\n")
    assert verdict_after(page, edits(page)) == "solved"
    page.click("#mode-play")
    page.wait_for_selector("#verdict[data-status=cleared]", timeout=WAIT)
    page.click("#hint")
    assert "no move is left to hint" in page.inner_text("#play-status")


def test_the_proved_hint_marks_each_move_safe_or_losing(page: Any) -> None:
    start_play(page, LOSABLE)
    page.click("#hint")
    page.wait_for_selector("#play-status[data-status=hint]", timeout=WAIT)
    legal = int(page.inner_text("#count-legal"))
    assert page.locator("#hint-list li").count() == legal
    losing = page.locator("#hint-list li.losing")
    assert losing.count() >= 1 and "certificate checked" in losing.first.inner_text()
    assert page.locator("#hint-list li.safe").count() >= 1
    page.click("#board [data-cell='0,1']")  # salt: with fire it loses, with air it is safe
    assert "losing" in page.get_attribute("#board [data-cell='3,0']", "class")
    assert page.locator("#board .t.partner.safe").count() >= 1


def test_difficulty_is_shown_for_a_solvable_board(page: Any) -> None:
    page.fill("#text", LOSABLE)
    assert verdict_after(page, edits(page)) == "solved"
    page.wait_for_selector("#difficulty", timeout=WAIT)
    assert page.get_attribute("#difficulty", "data-exact") == "true"
    text = page.inner_text("#difficulty")
    assert "Random play clears it" in text and "exact" in text and "Safe first moves" in text


def test_a_losing_move_is_flagged_and_the_banner_follows_the_position(page: Any) -> None:
    start_play(page, LOSABLE)
    assert "Solvable from here" in page.inner_text("#verdict")
    page.click("#board [data-cell='0,1']")  # salt
    page.click("#board [data-cell='3,0']")  # with fire: three air are left, which cannot pair
    page.wait_for_selector("#verdict[data-status=lost]", timeout=WAIT)
    banner = page.inner_text("#verdict")
    assert banner.startswith("Lost") and "after move 1" in banner and "air" in banner
    assert page.inner_text("#play-status").startswith("Move 1 lost the game")
    assert page.locator("#played li.lost").count() == 1
    page.click("#undo")
    page.wait_for_selector("#verdict[data-status=clearable]", timeout=WAIT)
    assert page.locator("#board .t.gone").count() == 0


def test_keyboard_play_in_a_narrow_window(browser: Any, server: Any) -> None:
    context = browser.new_context(viewport={"width": 380, "height": 900})
    page = context.new_page()
    try:
        page.goto(server.url)
        page.wait_for_selector("#verdict[data-status=solved]", timeout=WAIT)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 380  # nothing wider than the window
        width = page.eval_on_selector("#board svg", "s => s.getBoundingClientRect().width")
        assert 300 <= width <= 380
        start_play(page, LOSABLE)
        assert page.get_attribute("#board [data-cell='1,1']", "tabindex") is None  # vitae: blocked, not reachable
        page.focus("#mode-play")
        page.keyboard.press("Tab")  # the next stop is the board's first free tile
        focused = page.evaluate("() => document.activeElement.dataset.cell")
        assert "free" in page.get_attribute(f"#board [data-cell='{focused}']", "class")
        page.keyboard.press("Enter")
        assert page.locator("#board .t.pick").count() == 1
        page.keyboard.press("Escape")
        assert page.locator("#board .t.pick").count() == 0
        page.keyboard.press("h")
        page.wait_for_selector("#play-status[data-status=hint]", timeout=WAIT)
        for cell in page.eval_on_selector_all("#board .t.next", "ts => ts.map(t => t.dataset.cell)"):
            page.focus(f"#board [data-cell='{cell}']")
            page.keyboard.press("Enter")
        moved(page, 1)
        page.keyboard.press("u")
        moved(page, 0)
    finally:
        context.close()


def test_applying_the_repair_makes_the_board_solvable(page: Any) -> None:
    page.select_option("#open", "1")  # the dense deal
    assert verdict_after(page, edits(page)) == "unsolvable"
    page.wait_for_selector("#apply-repair", timeout=WAIT)
    assert "no play clears more" in page.inner_text("#deepest")
    changed = page.eval_on_selector_all("#board .change", "ms => ms.map(m => m.dataset.cell || m.dataset.at)")
    assert sorted(changed) == ["2,2", "6,3"]  # the swap's two tiles, both outlined
    page.click("#replay-deepest")
    assert page.inner_text("#step").startswith("deepest play: move 1 of")
    page.click("#apply-repair")
    assert verdict_after(page, edits(page)) == "solved"


def test_a_repair_that_moves_a_tile_outlines_its_empty_target_too(page: Any) -> None:
    page.fill("#text", MOVE_REPAIR)
    assert verdict_after(page, edits(page)) == "unsolvable"
    page.wait_for_selector("#apply-repair", timeout=WAIT)
    assert "to the empty cell [2, 0]" in page.inner_text("#repair")
    assert page.locator("#board g.t.change").count() == 1  # the air that moves
    assert page.locator("#board [data-at='2,0'].change").count() == 1  # and the empty cell it moves to
    ring = page.eval_on_selector("#board [data-at='2,0']", "u => getComputedStyle(u).strokeWidth")
    assert float(ring.rstrip("px")) >= 3


def test_export_holds_the_board(page: Any, server: Any) -> None:
    page.click("#share")
    link = page.input_value("#share-link")
    assert "#board=" in link
    with page.expect_download() as saved:
        page.click("#download-text")
    text = Path(saved.value.path()).read_text()
    assert text.startswith("# real game screenshot\n")
    other = page.context.new_page()
    other.goto(link)  # the link alone brings the board back
    other.wait_for_selector("#verdict[data-status=solved]", timeout=WAIT)
    assert other.input_value("#text") == text
