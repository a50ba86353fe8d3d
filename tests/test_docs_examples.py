"""The quick, deterministic examples of README.md and docs/*.md still print what the page shows.

Each example is a ``$ sigmar ...`` line in a fenced block of a page, followed by the
output the page shows. It runs in this process from the repository's root (the
examples name files relative to it, such as ``docs/examples/bad.txt``), and the page's
lines must be the first lines it prints (``| head -N`` keeps the first N). Only the
examples listed here run: the others time solvers, write files or need a tool
outside Python, and are checked by hand from a clone.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from sigmar.runners import cli

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

QUICK = {
    "sigmar show docs/examples/bad.txt",
    "sigmar verify instances/real-game.txt tests/data/real-game-0.solution.txt",
    "sigmar verify instances/real-game.txt docs/examples/reordered.txt",
    "sigmar show instances/real-game.txt --no-color",
    "sigmar generate --seed 7 --stats",
    "sigmar generate --unsolvable --seed 4 | head -2",
    "sigmar check docs/examples/random5.txt proofs/random_5-c341dfac52.dead.jsonl",
}


def examples() -> list[tuple[str, str, list[str]]]:
    """(page, command, the lines the page shows after it) for every ``$ sigmar`` line in a fenced block."""
    found = []
    for page in PAGES:
        blocks = re.findall(r"^```[^\n]*\n(.*?)^```", page.read_text(), flags=re.M | re.S)
        for block in blocks:
            lines = block.splitlines()
            for i, line in enumerate(lines):
                if not line.startswith("$ sigmar "):
                    continue
                shown = []
                for after in lines[i + 1 :]:
                    if after.startswith("$ ") or after == "...":
                        break
                    shown.append(after.rstrip())
                command = line[2:].split("  #")[0].strip()
                found.append((page.name, command, shown))
    return found


CASES = [case for case in examples() if case[1] in QUICK]


def test_every_listed_example_is_still_on_its_page() -> None:
    assert {command for _, command, _ in CASES} == QUICK


@pytest.mark.parametrize(("page", "command", "shown"), CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_the_page_shows_what_the_example_prints(
    page: str,
    command: str,
    shown: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(ROOT)
    command, _, head = command.partition(" | head -")
    argv = shlex.split(command)[1:]
    if argv[0] == "check":  # the certificate file is made by the example before it on the page
        # (made here by search alone: in prove's race, a loaded machine can let the CNF proof win)
        board_file = argv[1]
        proofs = tmp_path / "proofs"
        assert cli.main(["solve", board_file, "-b", "search", "--proof-dir", str(proofs), "--json"]) == 0
        capsys.readouterr()
        argv[2] = str(tmp_path / argv[2])
    cli.main(argv)
    out = capsys.readouterr()
    printed = [line.rstrip() for line in (out.out + out.err).splitlines()]
    if head:
        printed = printed[: int(head)]
    assert shown, f"{page}: the example `{command}` shows no output"
    if argv[0] == "check":  # the time the check took differs from run to run
        printed = [re.sub(r"\(\d+\.\d+ s\)", "(T s)", line) for line in printed]
        shown = [re.sub(r"\(\d+\.\d+ s\)", "(T s)", line) for line in shown]
    assert printed[: len(shown)] == shown, f"{page}: `{command}`"
