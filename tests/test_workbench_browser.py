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

from sigmar.models.boardfile import format_board
from sigmar.models.deal import deal
from tests import workbench_harness as harness
from tests.conftest import INSTANCES

WAIT = 60_000  # milliseconds: what a page shows on a loaded machine comes within this
# Solvable, but its first move salt [0, 1] with fire [3, 0] leaves three air: lost (tests/test_workbench.py).
LOSABLE = "  . s a\n . v 1 a\n. m . . .\n f . a .\n  f . .\n"

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


def test_a_losing_move_is_flagged(page: Any) -> None:
    page.fill("#text", LOSABLE)
    assert verdict_after(page, edits(page)) == "solved"
    page.click("#mode-play")
    page.click("#hint")
    assert "keeps the board clearable" in page.inner_text("#play-status")
    page.click("#board [data-cell='0,1']")  # salt
    page.click("#board [data-cell='3,0']")  # with fire: three air are left, which cannot pair
    page.wait_for_selector("#play-status[data-status=lost]", timeout=WAIT)
    status = page.inner_text("#play-status")
    assert "move 1" in status and "air" in status
    assert page.locator("#played li.lost").count() == 1
    page.click("#undo")
    page.wait_for_selector("#play-status[data-status='']", timeout=WAIT)
    assert page.locator("#board .t.gone").count() == 0


def test_applying_the_repair_makes_the_board_solvable(page: Any) -> None:
    page.select_option("#open", "1")  # the dense deal
    assert verdict_after(page, edits(page)) == "unsolvable"
    page.wait_for_selector("#apply-repair", timeout=WAIT)
    assert "no play clears more" in page.inner_text("#deepest")
    page.click("#replay-deepest")
    assert page.inner_text("#step").startswith("deepest play: move 1 of")
    page.click("#apply-repair")
    assert verdict_after(page, edits(page)) == "solved"


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
