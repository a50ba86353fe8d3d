"""The machine-dependent figures of README.md and the docs pages, measured again and written into the pages.

A figure is the text between ``<!-- figures:NAME -->`` and ``<!-- /figures:NAME -->`` on a page.
This script knows how to measure each NAME, and rewrites that text with the numbers, the date
and the machine (platform, cores, load average), so that a figure on a page always says
where and when it was taken, and a reader can take it again on their own machine.

    python scripts/docs/figures.py                  # every figure (a few minutes: the race on 300 deals)
    python scripts/docs/figures.py --only solve-bundled
    python scripts/docs/figures.py --check          # every marker names a figure and carries its date and machine

Each measurement also goes to results/docs_figures.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "measured").glob("*.md"))]
RESULTS = ROOT / "results"
MARKED = re.compile(r"(<!-- figures:(?P<name>[\w-]+) -->\n)(?P<text>.*?)(<!-- /figures:(?P=name) -->)", re.S)
STAMP = re.compile(r"measured \d{4}-\d\d-\d\d on [^)]*\d+ cores?")
SIGMAR = [sys.executable, "-m", "sigmar.runners.cli"]


def machine() -> str:
    """The date and the machine, as every figure ends."""
    load = os.getloadavg()[0]
    cores = os.cpu_count() or 1
    today = datetime.date.today().isoformat()
    return f"measured {today} on {platform.system()} {platform.machine()}, {cores} cores, load average {load:.1f}"


def solve_bundled(record: dict[str, object]) -> str:
    """README: the bundled boards through ``sigmar solve``'s race, whole processes, two runs."""
    files = ["instances/real-game.txt", "instances/small.txt", "instances/hexmatch-hard-100.txt"]
    walls, statuses = [], Counter[str]()
    for _ in range(2):
        start = time.perf_counter()
        done = subprocess.run([*SIGMAR, "solve", *files, "--json"], cwd=ROOT, capture_output=True, text=True)
        walls.append(time.perf_counter() - start)
        statuses = Counter(json.loads(line)["status"] for line in done.stdout.splitlines())
    record.update(walls=walls, statuses=dict(statuses))
    boards = sum(statuses.values())
    low, high = sorted(walls)
    return (
        f"All {boards} boards of `instances/real-game.txt`, `small.txt` and `hexmatch-hard-100.txt`\n"
        f"race to an answer in {low:.2f}–{high:.2f} s of wall time (two runs, whole `sigmar solve` processes):\n"
        f"{statuses['solved']} solved and verified, {statuses['unsolvable']} unsolvable with their reasons\n"
        f"({machine()}).\n"
    )


def certificates_race(record: dict[str, object]) -> str:
    """README: the race on 300 dense deals of side 6, every answer checked (scripts/bench/checked_refutations.py)."""
    out = RESULTS / "docs_figures_certificates.json"
    command = [sys.executable, "scripts/bench/checked_refutations.py"]
    command += ["--count", "300", "--seeds", "1", "--time-limit", "60"]
    subprocess.run([*command, "--out", str(out)], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    summary = json.loads(out.read_text())["summaries"]["now seed 1"]
    record.update(summary)
    kinds = summary["kinds"]
    return (
        f"On {summary['boards']} random dense deals of side 6 the race answers every board with a\n"
        f"checked certificate: median {summary['median_s'] * 1000:.1f} ms, p99 {summary['p99_s']:.2f} s,"
        f" max {summary['max_s']:.2f} s, check included;\n"
        f"{summary['status'].get('solved', 0)} solved, {summary['status'].get('unsolvable', 0)} refuted"
        f" ({kinds.get('stuck', 0)} stuck sets, {kinds.get('dead-states', 0)} dead-states files,"
        f" {kinds.get('drup', 0)} DRUP proofs;\n"
        f"`python scripts/bench/checked_refutations.py --count 300 --seeds 1 --time-limit 60`, {machine()}).\n"
    )


FIGURES: dict[str, Callable[[dict[str, object]], str]] = {
    "solve-bundled": solve_bundled,
    "certificates-race": certificates_race,
}


def marked() -> list[tuple[Path, str, str]]:
    """(page, figure name, its text) for every marked figure of the pages."""
    return [(page, m["name"], m["text"]) for page in PAGES for m in MARKED.finditer(page.read_text(encoding="utf-8"))]


def check() -> list[str]:
    """What is wrong with the pages' figures: unknown names, figures without date and machine, figures not on a page."""
    problems = []
    found = marked()
    for page, name, text in found:
        where = page.relative_to(ROOT)
        if name not in FIGURES:
            problems.append(f"{where}: figure {name!r} is not one this script measures")
        if not STAMP.search(text.replace("\n", " ")):
            problems.append(f"{where}: figure {name!r} does not say when and on what machine it was measured")
    for name in set(FIGURES) - {name for _, name, _ in found}:
        problems.append(f"figure {name!r} is on no page")
    return problems


def write(name: str, text: str) -> None:
    """Replace the figure's text on every page that shows it."""
    for page in PAGES:
        old = page.read_text(encoding="utf-8")
        new = MARKED.sub(lambda m: m.group(1) + text + m.group(4) if m["name"] == name else m.group(0), old)
        if new != old:
            page.write_text(new, encoding="utf-8")
            print(f"wrote {name} into {page.relative_to(ROOT)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=sorted(FIGURES), help="measure this figure (repeatable)")
    parser.add_argument("--check", action="store_true", help="measure nothing; say what is wrong with the pages")
    args = parser.parse_args()
    if args.check:
        problems = check()
        print("\n".join(problems) or f"{len(marked())} figures, each with its date and machine")
        return 1 if problems else 0
    records: dict[str, object] = {}
    for name in args.only or sorted(FIGURES):
        record: dict[str, object] = {}
        text = FIGURES[name](record)
        records[name] = {**record, "text": text}
        write(name, text)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "docs_figures.json").write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
