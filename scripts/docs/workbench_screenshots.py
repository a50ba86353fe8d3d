"""The pictures of docs/workbench.md: the workbench in each state, shot by Debian's Chromium through Playwright.

    python scripts/docs/workbench_screenshots.py [--out docs]

Starts ``sigmar serve`` on a free port with the real game's first board and a dense deal that
cannot be cleared, drives the page as a person would, and writes ``workbench-*.png``.  Rerun
after changing the page.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INSTANCES = ROOT / "instances"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the workbench harness lives in tests/, beside the tests that drive it

from sigmar.models.boardfile import format_board  # noqa: E402
from sigmar.models.deal import deal  # noqa: E402
from tests.workbench_harness import launch, serve, why_no_browser  # noqa: E402

WAIT = 120_000
LOSABLE = "# a board one move can lose\n  . s a\n . v 1 a\n. m . . .\n f . a .\n  f . .\n"


def settled(page: object, status: str) -> None:
    page.wait_for_selector(f"#verdict[data-status={status}]", timeout=WAIT)  # type: ignore[attr-defined]


def shoot(out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp())
    boards = folder / "designs.txt"
    first = (INSTANCES / "real-game.txt").read_text().split("\n\n")[0]
    boards.write_text(first + "\n\n" + format_board(deal("dense", 6, 1, 0)))
    served = serve(boards.name, cwd=folder)  # the page names the file as given
    shots: list[Path] = []
    try:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page(viewport={"width": 1280, "height": 980})

            def shot(name: str) -> None:
                path = out / f"workbench-{name}.png"
                page.screenshot(path=str(path), full_page=True)
                shots.append(path)

            page.goto(served.url)
            settled(page, "solved")
            page.click("#palette button[data-sym='6']")
            shot("edit")
            page.wait_for_selector("#difficulty", timeout=WAIT)  # how hard the real game's board is
            shot("difficulty")
            page.click("#replay-solution")
            for _ in range(5):
                page.click("#next")
            shot("replay")
            page.fill("#text", first.replace(". e 5 s . .", ". e 5 z . ."))
            page.wait_for_function("() => document.getElementById('text-error').textContent", timeout=WAIT)
            shot("malformed")
            page.select_option("#open", "1")
            settled(page, "unsolvable")
            page.wait_for_selector("#apply-repair", timeout=WAIT)
            shot("unsolvable")
            page.click("#replay-deepest")
            page.click("#last")
            shot("deepest")
            page.click("#apply-repair")
            settled(page, "solved")
            shot("repaired")
            page.select_option("#open", "0")  # the real game's board, played: four moves the hints give
            settled(page, "solved")
            page.click("#mode-play")
            for made in range(1, 5):
                page.wait_for_selector("#verdict[data-status=clearable]", timeout=WAIT)
                page.click("#hint")
                page.wait_for_selector("#play-status[data-status=hint]", timeout=WAIT)
                page.click("#play-hint")
                page.wait_for_function(f"() => document.getElementById('count-moves').textContent === '{made}'")
            page.wait_for_selector("#verdict[data-status=clearable]", timeout=WAIT)
            picked = page.eval_on_selector_all("#board .t.free", "ts => ts.map(t => t.dataset.cell)")
            for cell in picked:  # pick the first free tile that pairs: its partners are outlined
                page.click(f"#board [data-cell='{cell}']")
                if page.locator("#board .t.pick").count():
                    break
            shot("play")
            page.keyboard.press("Escape")
            page.click("#hint")
            page.wait_for_selector("#play-status[data-status=hint]", timeout=WAIT)
            shot("hint")
            page.click("#mode-edit")
            page.fill("#text", LOSABLE)
            settled(page, "solved")
            page.click("#mode-play")
            page.wait_for_selector("#verdict[data-status=clearable]", timeout=WAIT)
            page.click("#board [data-cell='0,1']")
            page.click("#board [data-cell='3,0']")
            page.wait_for_selector("#verdict[data-status=lost]", timeout=WAIT)
            shot("lost")
            browser.close()
    finally:
        served.stop()
    return shots


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args(argv)
    missing = why_no_browser()
    if missing:
        print(f"workbench_screenshots: {missing}", file=sys.stderr)
        return 2
    for path in shoot(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
