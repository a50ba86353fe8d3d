"""Every link of README.md and the pages of docs/ leads somewhere: the file exists, a ``#part`` is a heading there.

Links are read outside fenced blocks; a heading's anchor is made as GitHub makes it (lower case, punctuation
dropped, spaces to hyphens, a repeated heading numbered ``-1``, ``-2``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "instances" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def prose(text: str) -> list[tuple[int, str]]:
    """The page's lines outside fenced blocks, with their numbers."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    for _, line in prose(page.read_text(encoding="utf-8")):
        heading = re.match(r"#{1,6} (.*)", line)
        if not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
        numbered, n = slug, 0
        while numbered in found:
            n += 1
            numbered = f"{slug}-{n}"
        found.add(numbered)
    return found


def links() -> list[tuple[str, str]]:
    return [
        (f"{page.relative_to(ROOT)}:{number}", target)
        for page in PAGES
        for number, line in prose(page.read_text(encoding="utf-8"))
        for target in LINK.findall(line)
        if not re.match(r"[a-z]+:", target)
    ]


def test_the_pages_hold_links() -> None:
    """A reader that found none would pass everything."""
    assert len(links()) >= 50


@pytest.mark.parametrize(("where", "target"), links(), ids=lambda value: str(value))
def test_the_link_resolves(where: str, target: str) -> None:
    page = ROOT / where.rsplit(":", 1)[0]
    path, _, part = target.partition("#")
    aimed = (page.parent / path).resolve() if path else page
    assert aimed.exists(), f"{where}: {target}: no {aimed.relative_to(ROOT) if aimed.is_relative_to(ROOT) else aimed}"
    if part:
        assert aimed.suffix == ".md", f"{where}: {target}: a #part of a file that is not a page"
        assert part in anchors(aimed), f"{where}: {target}: no heading '{part}' in {aimed.relative_to(ROOT)}"
