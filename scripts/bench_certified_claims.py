"""Does a bench tell a certified "no" from a claimed one?  Three backends and a claim-only plugin, measured.

``sigmar bench`` on N boards (half solvable from instances/hexmatch-hard-100.txt, half unsolvable from
instances/generated-unsolvable.txt, two files so the per-family table shows) with ``--repeat 3`` and
the backends ``search`` and ``cnf`` (which certify their "no"), ``cpsat`` (which claims it) and the
plugin ``toy:uncertified`` (tests/toy_plugin, pip-installed into results/: the search's answers with
every "no" only claimed).  Then it checks, and prints:

- the CSV: every ``unsolvable`` row says ``certified`` yes (with its certificate's kind, graded
  correct) or no (graded unconfirmed), and which backends gave which;
- the HTML report: every board-table cell of an ``unsolvable`` run says its kind or ``claimed`` and
  carries ``data-certified``, and the summary's certified and claimed counts are the CSV's;
- the ranking: no claim-only backend above a certifying one;
- the paired comparison: one sentence with an interval ``R× [LOW, HIGH]`` for every pair;
- and it shoots the report with headless Chromium (Debian's ``chromium``).

    python scripts/bench_certified_claims.py [--boards 30] [--repeat 3] [--time-limit 10] [--docs]

Writes results/bench_certified_claims.{md,json} and the bench's CSV, HTML, cactus plot and screenshot
in results/certified-claims/; with ``--docs`` the record also goes to docs/measured/bench-certified-claims.md
and the screenshot to docs/bench-report.png.  Exit 1 when a check fails.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

from benchlib import RESULTS, ROOT, boards, markdown_table, publish

from sigmar.models.boardfile import format_boards

BACKENDS = ("search", "cnf", "cpsat", "toy:uncertified")
CERTIFYING = ("search", "cnf")
OUT = RESULTS / "certified-claims"


def install_plugin(site: Path) -> None:
    """tests/toy_plugin pip-installed into ``site`` (offline, no build isolation), as a user would install one."""
    if site.exists():
        shutil.rmtree(site)
    with tempfile.TemporaryDirectory() as work:
        source = Path(work) / "toy_plugin"
        shutil.copytree(ROOT / "tests" / "toy_plugin", source)
        command = [sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-index"]
        subprocess.run([*command, "--target", str(site), str(source)], check=True, capture_output=True, timeout=300)


def board_files(count: int) -> list[Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    half = count // 2
    files = []
    for name, chosen in (
        ("solvable", boards("hexmatch-hard-100", half)),
        ("unsolvable", boards("generated-unsolvable", count - half)),
    ):
        path = OUT / f"{name}.txt"
        path.write_text(format_boards(chosen))
        files.append(path)
    return files


def run_bench(
    files: list[Path], repeat: int, time_limit: float, site: Path
) -> tuple[subprocess.CompletedProcess[str], float]:
    command = [sys.executable, "-m", "sigmar.runners.cli", "bench", *map(str, files), "-b", ",".join(BACKENDS)]
    command += ["--repeat", str(repeat), "--time-limit", f"{time_limit:g}"]
    command += ["--family", "hexmatch-hard", "--family", "generated-unsolvable"]  # the boards' sources
    command += ["--out", str(OUT / "bench.csv"), "--html", str(OUT / "report.html"), "--plot", str(OUT / "cactus.png")]
    env = dict(os.environ, PYTHONPATH=str(site), COLUMNS="200")
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=3600)
    return done, time.perf_counter() - start


class Cells(HTMLParser):
    """The report's board-table cells that carry ``data-certified``, and the summary table's rows."""

    def __init__(self) -> None:
        super().__init__()
        self.certified: list[tuple[str, str]] = []  # (data-certified, text)
        self.summary: list[list[str]] = []
        self._cell: dict[str, str] | None = None
        self._text: list[str] = []
        self._table = ""
        self._row: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "table":
            self._table = a.get("class", "")
        if tag == "tr" and self._table == "summary":
            self._row = []
        if tag == "td":
            self._cell, self._text = a, []

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None:
            text = "".join(self._text).strip()
            if "data-certified" in self._cell:
                self.certified.append((self._cell["data-certified"], text))
            if self._row is not None:
                self._row.append(text)
            self._cell = None
        if tag == "tr" and self._row is not None:
            if self._row:
                self.summary.append(self._row)
            self._row = None
        if tag == "table":
            self._table = ""


def median_runs(rows: list[dict[str, str]]) -> dict[tuple[str, str, str], dict[str, str]]:
    """Each (file, board, backend)'s median run, chosen as the bench chooses it (by outcome, then seconds)."""
    order = {"correct": 0, "unconfirmed": 1, "unknown": 2, "error": 2, "wrong": 3}
    groups: dict[tuple[str, str, str], list[dict[str, str]]] = {}
    for row in rows:
        groups.setdefault((row["file"], row["board"], row["backend"]), []).append(row)
    return {
        k: sorted(g, key=lambda r: (order[r["grade"]], float(r["seconds"])))[len(g) // 2] for k, g in groups.items()
    }


def check_csv(rows: list[dict[str, str]]) -> tuple[list[str], dict[str, Counter[str]]]:
    problems = []
    said: dict[str, Counter[str]] = {name: Counter() for name in BACKENDS}
    for row in rows:
        if row["status"] != "unsolvable":
            if row["certified"]:
                said_ = row["certified"]
                problems.append(f"CSV: {row['backend']} on {row['board']}: certified '{said_}' on a {row['status']}")
            continue
        said[row["backend"]][row["certified"]] += 1
        if row["certified"] == "yes" and not (row["certificate"] and row["grade"] == "correct"):
            problems.append(f"CSV: {row['backend']} on {row['board']}: certified yes without a kind or a correct grade")
        elif row["certified"] == "no" and row["grade"] not in ("unconfirmed", "wrong"):
            problems.append(f"CSV: {row['backend']} on {row['board']}: a claim graded {row['grade']}")
        elif row["certified"] not in ("yes", "no"):
            problems.append(f"CSV: {row['backend']} on {row['board']}: certified '{row['certified']}'")
        claims_only = row["backend"] not in CERTIFYING
        if claims_only and row["certified"] == "yes":
            problems.append(f"CSV: {row['backend']} certified a 'no' on {row['board']}, yet it only claims")
    return problems, said


def check_html(path: Path, rows: list[dict[str, str]]) -> tuple[list[str], int]:
    page = Cells()
    page.feed(path.read_text(encoding="utf-8"))
    problems = []
    for certified, text in page.certified:
        if (certified == "no") != text.endswith("claimed"):
            problems.append(f"HTML: a cell certified={certified} reads '{text}'")
        if certified == "yes" and not re.search(r"(counts|stuck|dead-states|drup)$", text):
            problems.append(f"HTML: a certified cell names no certificate kind: '{text}'")
    medians = median_runs(rows)
    expected_cells = sum(r["status"] == "unsolvable" for r in medians.values())
    if len(page.certified) != expected_cells:
        found = len(page.certified)
        problems.append(f"HTML: {found} cells say certified or claimed, the CSV's median runs {expected_cells}")
    # the summary: rank, backend, boards, solved, unsolvable certified, unsolvable claimed, ...
    ranked = [r for r in page.summary if len(r) > 5 and r[0].isdigit()]
    for _, name, _, _, certified, claimed, *_ in ranked:
        mine = [r for r in medians.values() if r["backend"] == name and r["status"] == "unsolvable"]
        want = (sum(r["certified"] == "yes" for r in mine), sum(r["certified"] == "no" for r in mine))
        if (int(certified), int(claimed)) != want:
            problems.append(f"HTML summary: {name} certified {certified}, claimed {claimed}; the CSV says {want}")
    order = [name for _, name, *_ in ranked]
    worst_certifying = max(order.index(n) for n in CERTIFYING if n in order)
    best_claiming = min(order.index(n) for n in BACKENDS if n not in CERTIFYING and n in order)
    if best_claiming < worst_certifying:
        problems.append(f"ranking: a claim-only backend above a certifying one: {order}")
    return problems, len(page.certified)


def check_pairs(stdout: str) -> tuple[list[str], list[str]]:
    sentences = [line for line in stdout.splitlines() if "Wilcoxon p = " in line and " over " in line]
    interval = re.compile(r"\d+(\.\d+)?× \[\d+(\.\d+)?, \d+(\.\d+)?\]")
    problems = []
    pairs = len(BACKENDS) * (len(BACKENDS) - 1) // 2
    if len(sentences) != pairs:
        problems.append(f"paired comparisons: {len(sentences)} sentences for {pairs} pairs")
    problems += [f"paired comparison without an interval: {s}" for s in sentences if not interval.search(s)]
    return problems, sentences


def screenshot(html: Path, png: Path) -> str:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        return "skipped: no chromium on PATH (apt-get install -y chromium)"
    command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    command += [f"--screenshot={png}", "--window-size=1400,2000", f"file://{html.resolve()}"]
    subprocess.run(command, capture_output=True, timeout=180, check=False)
    return str(png) if png.exists() and png.stat().st_size > 0 else "failed: chromium wrote no picture"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--docs", action="store_true", help="also write docs/measured/... and docs/bench-report.png")
    args = parser.parse_args()
    site = OUT / "plugin-site"
    files = board_files(args.boards)
    install_plugin(site)
    load_before = load()
    done, wall = run_bench(files, args.repeat, args.time_limit, site)
    load_after = load()
    (OUT / "bench.stdout").write_text(done.stdout)
    if done.returncode not in (0, 1):
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
        raise SystemExit(f"sigmar bench exited {done.returncode}")
    with (OUT / "bench.csv").open(newline="") as src:
        rows = list(csv.DictReader(line for line in src if not line.startswith("#")))
    csv_problems, said = check_csv(rows)
    html_problems, cells = check_html(OUT / "report.html", rows)
    pair_problems, sentences = check_pairs(done.stdout)
    png = OUT / "report.png"
    shot = screenshot(OUT / "report.html", png)
    problems = csv_problems + html_problems + pair_problems
    warning = next((line for line in done.stdout.splitlines() if line.startswith("warning: the machine was busy")), "")
    table = markdown_table(
        ("backend", "unsolvable rows certified", "unsolvable rows claimed"),
        [(name, said[name]["yes"], said[name]["no"]) for name in BACKENDS],
    )
    command = "python scripts/bench_certified_claims.py " + " ".join(
        f"--{k} {v:g}" for k, v in (("boards", args.boards), ("repeat", args.repeat), ("time-limit", args.time_limit))
    )
    text = "\n".join(
        [
            "# bench: certified and claimed refutations, paired comparisons (scripts/bench_certified_claims.py)",
            "",
            f"Measured {datetime.now(UTC):%Y-%m-%d} on {platform.system()} {platform.machine()}, "
            f"{os.cpu_count()} cores; load average {load_before} before, {load_after} after "
            f"(1, 5, 15 minutes); the bench took {wall:.0f} s.",
            "",
            f"Command: `{command}`: `sigmar bench` on {args.boards} boards ({len(rows)} runs), "
            f"`-b {','.join(BACKENDS)} --repeat {args.repeat} --time-limit {args.time_limit:g}` "
            "(in results/certified-claims/: bench.csv, report.html, report.png, bench.stdout).",
            "",
            table,
            "",
            f"- CSV: {len(rows)} rows; every `unsolvable` row says certified yes (with its kind, graded correct) "
            f"or no (graded unconfirmed): {'yes' if not csv_problems else 'NO'}.",
            f"- HTML: {cells} board-table cells of unsolvable runs, each naming its certificate's kind or "
            f"`claimed`, and the summary's counts equal to the CSV's: {'yes' if not html_problems else 'NO'}.",
            f"- Paired comparisons, one per pair, each with its interval: {'yes' if not pair_problems else 'NO'}:",
            "",
            *(f"  - {s}" for s in sentences),
            "",
            f"- Screenshot: {shot}.",
            *([f"- The bench said: {warning}"] if warning else []),
            *([""] + [f"- PROBLEM: {p}" for p in problems] if problems else []),
        ]
    )
    publish(
        RESULTS / "bench_certified_claims",
        text,
        {
            "boards": args.boards,
            "repeat": args.repeat,
            "rows": len(rows),
            "said": {k: dict(v) for k, v in said.items()},
            "sentences": sentences,
            "problems": problems,
            "load_before": load_before,
            "load_after": load_after,
            "wall_seconds": wall,
            "screenshot": shot,
        },
    )
    if args.docs:
        measured = ROOT / "docs" / "measured" / "bench-certified-claims.md"
        measured.parent.mkdir(parents=True, exist_ok=True)
        measured.write_text(text.replace(str(ROOT) + "/", "") + "\n")
        if png.exists():
            shutil.copy(png, ROOT / "docs" / "bench-report.png")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
