"""What the benchmark scripts share: the public boards, one percentile, one markdown table and one writer.

The scripts are run by hand (``python scripts/bench/NAME.py``); each imports this module from
its own folder (running a script puts its folder on the import path).  They read boards only
from ``instances/`` (the public sets ship there as ``.txt.xz``), take from ``tests/`` only the
fixtures a test shares with them (the loopback Dask cluster, the hostile and toy plugins),
and write their numbers to ``results/``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sigmar.models.board import Board
from sigmar.models.boardfile import read_boards
from sigmar.runners.statistics.scores import percentile as _nearest_rank

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # for ``tests.loopback``, the cluster a test and three benchmarks share
INSTANCES = ROOT / "instances"
RESULTS = ROOT / "results"
# The public sets in instances/ (the standard game, then its quintessence variant).
PUBLIC = ("hexmatch-easy", "hexmatch-hard", "ondrovo-2048")
QUINTESSENCE = ("hexmatch-easy-quintessence", "hexmatch-hard-quintessence")

median = statistics.median


def board_file(name: str) -> Path:
    """``instances/NAME.txt``, or ``NAME.txt.xz`` where the set ships compressed."""
    for suffix in (".txt", ".txt.xz"):
        path = INSTANCES / f"{name}{suffix}"
        if path.exists():
            return path
    raise SystemExit(f"no board set '{name}' in {INSTANCES}")


def boards(name: str, count: int | None = None, start: int = 0) -> list[Board]:
    """Boards ``start`` .. ``start + count`` of the set ``name`` in instances/ (all of them when count is None)."""
    found = read_boards(board_file(name))
    return found[start:] if count is None else found[start : start + count]


def percentile(values: Sequence[float], p: float) -> float:
    """The nearest-rank percentile (p from 0 to 100), the suite's one (``runners/statistics/scores.py``)."""
    return _nearest_rank(sorted(values), p)


def table_header(header: Sequence[str], align: str = "") -> str:
    """A markdown table's header line and rule; ``align`` has a letter a column, ``r`` right-aligns it."""
    rule = "".join(" ---: |" if a == "r" else " --- |" for a in align.ljust(len(header), "l"))
    return "| " + " | ".join(header) + " |\n|" + rule


def table_row(cells: Sequence[object]) -> str:
    """One line of a markdown table; cells are written with ``str``."""
    return "| " + " | ".join(str(cell) for cell in cells) + " |"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]], align: str = "") -> str:
    """A markdown table (:func:`table_header`, then a :func:`table_row` each); a script that prints its rows
    as it measures them prints the header and each row itself."""
    return "\n".join([table_header(header, align), *(table_row(row) for row in rows)])


def publish(out: str | Path, text: str, record: dict[str, Any], also: str | Path | None = None) -> Path:
    """Print ``text`` after a blank line; write it to OUT.md (and to ``also``, a docs/measured record, when
    given) and ``record`` to OUT.json; return OUT."""
    print()
    print(text)
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.with_suffix(".md").write_text(text + "\n")
    path.with_suffix(".json").write_text(json.dumps(record, indent=1))
    if also is not None:
        Path(also).parent.mkdir(parents=True, exist_ok=True)
        Path(also).write_text(text + "\n")
    return path


def section_marks(script: str) -> tuple[str, str]:
    """The two marks around ``script``'s section of a docs/measured record (:func:`with_section`)."""
    return (
        f"<!-- {script} writes from here to the mark below; the rest is kept as it is -->",
        f"<!-- {script}: end of its section -->",
    )


def with_section(old: str | None, section: str, script: str, title: str) -> str:
    """The record ``old`` (None: there is none yet) with ``section`` in place of ``script``'s earlier one, between
    its marks: what lies outside them (the records written by hand, other runs) is never touched; a record
    without them gets it after its title (or first), a new one ``title`` and it."""
    begin, end = section_marks(script)
    block = f"{begin}\n\n{section}\n\n{end}\n"
    if old is None:
        return f"{title}\n\n{block}"
    head, mark, rest = old.partition(begin)
    if mark and end in rest:
        tail = rest.split(end, 1)[1].lstrip("\n")
        return head + block + (f"\n{tail}" if tail else "")
    first, _, rest = old.partition("\n")
    if first.startswith("# "):
        return f"{first}\n\n{block}\n{rest.lstrip()}"
    return f"{block}\n{old}"


def load_average() -> str:
    """The one-minute load average as /proc/loadavg prints it ("?" where there is none): every record says it."""
    path = Path("/proc/loadavg")
    return path.read_text().split()[0] if path.exists() else "?"


def dense_deals(count: int, seed: int) -> list[Board]:
    """``sigmar generate --deal dense --count COUNT --seed SEED``'s side-6 boards, made in this process."""
    import contextlib
    import io

    from sigmar.models.boardfile import parse_boards
    from sigmar.runners.cli import main as sigmar

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        sigmar(["generate", "--deal", "dense", "--count", str(count), "--seed", str(seed)])
    return parse_boards(out.getvalue(), "dense")


def plugin_environment(folder: Path, *packages: Path) -> dict[str, str]:
    """An environment in which ``packages`` (folders with a pyproject.toml and entry points, such as
    tests/mutants) are installed plugins: pip installs them into ``folder``, offline, and ``folder`` goes on
    PYTHONPATH."""
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index"]
    for package in packages:
        subprocess.run([*install, "--target", str(folder), str(package)], check=True, capture_output=True)
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])}
