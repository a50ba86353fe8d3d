"""BenchExec result XML (``sigmar bench --xml DIR``): one file per backend, each a run set.

So the field's own tools read our numbers: BenchExec's ``table-generator``
turns these files into its HTML/CSV tables and compares run sets.  Each run
carries status, category (BenchExec's: correct, correct-unconfirmed, wrong,
unknown, error), cputime, walltime and memory, with units as BenchExec
writes them (``1.5s``, ``123456B``).
"""

from __future__ import annotations

import contextlib
import os
import platform
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

from sigmar.models.output_files import write_file
from sigmar.models.result import Status
from sigmar.runners.checking.grading import Grade
from sigmar.runners.statistics.scores import representatives

if TYPE_CHECKING:
    from sigmar.runners.statistics.record import Record
    from sigmar.runners.statistics.runs import Row

DOCTYPE = (
    "<!DOCTYPE result PUBLIC '+//IDN sosy-lab.org//DTD BenchExec result 3.0//EN' "
    "'https://www.sosy-lab.org/benchexec/result-3.0.dtd'>"
)
CATEGORY = {
    Grade.CORRECT: "correct",
    Grade.UNCONFIRMED: "correct-unconfirmed",
    Grade.WRONG: "wrong",
    Grade.UNKNOWN: "unknown",
    Grade.ERROR: "error",
}


def file_name(backend: str, stamp: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", backend)
    return f"sigmar-bench.{stamp}.results.{safe}.xml"


def status_text(row: Row) -> str:
    """BenchExec's status column: our status, with its own words for a run over the memory limit."""
    if row.out_of_memory:
        return "OUT OF MEMORY"
    if row.result.status is Status.UNSOLVABLE and row.result.reason:
        return f"unsolvable ({row.result.reason})"
    return str(row.result.status)


def _system(result: ET.Element) -> None:
    info = ET.SubElement(result, "systeminfo", hostname=platform.node() or "unknown")
    ET.SubElement(info, "os", name=platform.platform())
    ET.SubElement(
        info, "cpu", cores=str(os.cpu_count() or 1), frequency="", model=platform.processor() or platform.machine()
    )
    ram = 0
    with contextlib.suppress(ValueError, OSError, AttributeError):
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    ET.SubElement(info, "ram", size=f"{ram}B")
    ET.SubElement(info, "environment")


def run_set(
    rows: Sequence[Row],
    backend: str,
    version: str,
    time_limit: float | None,
    mem_limit_mb: float | None,
    started: datetime,
    options: str | None = None,
    description: str | None = None,
) -> ET.Element:
    """The ``<result>`` element of one backend's runs: ``version`` and ``options`` as the run's record gives
    them (an external solver's own version and its command), ``description`` the command line and the record."""
    ended = datetime.now(UTC)
    result = ET.Element(
        "result",
        benchmarkname="sigmar-bench",
        name=backend,
        tool="sigmar",
        toolmodule="benchexec.tools.dummy",  # table-generator loads it; our columns need no log parsing
        version=version,
        generator="sigmar bench",
        options=options or f"--backend {backend}",
        date=started.strftime("%Y-%m-%d %H:%M:%S UTC"),
        starttime=started.isoformat(),
        endtime=ended.isoformat(),
        timelimit=f"{time_limit:g} s" if time_limit else "-",
        memlimit=f"{mem_limit_mb:g} MB" if mem_limit_mb else "-",
        cpuCores=str(os.cpu_count() or 1),
    )
    if description:
        ET.SubElement(result, "description").text = description
    columns = ET.SubElement(result, "columns")
    for title in ("status", "cputime", "walltime", "memory", "certified", "answered by"):
        ET.SubElement(columns, "column", title=title)
    _system(result)
    for row in rows:
        run = ET.SubElement(result, "run", name=f"{row.file}::{row.board}", files="[]")
        ET.SubElement(run, "column", title="status", value=status_text(row))
        ET.SubElement(run, "column", title="category", value=CATEGORY[row.grade], hidden="true")
        if row.usage.cpu_seconds is not None:
            ET.SubElement(run, "column", title="cputime", value=f"{row.usage.cpu_seconds:.6f}s")
        ET.SubElement(run, "column", title="walltime", value=f"{row.result.seconds:.6f}s")
        if row.usage.memory_mb is not None:
            ET.SubElement(run, "column", title="memory", value=f"{round(row.usage.memory_mb * 1024 * 1024)}B")
        if row.certified:
            ET.SubElement(run, "column", title="certified", value=row.certified)
        # the backend whose answer this is: the run set's, or the solver that settled it (cnf:cadical153)
        ET.SubElement(run, "column", title="answered by", value=row.result.backend)
    return result


def write_xml(
    folder: str | Path,
    rows: Sequence[Row],
    names: Sequence[str],
    record: Record,
    time_limit: float | None,
    mem_limit_mb: float | None,
    started: datetime,
) -> list[Path]:
    """One result file per backend in ``folder``; returns their paths.  With ``--repeat``, each board's
    median run (BenchExec's run sets have one run per task)."""
    rows = representatives(list(rows))
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = started.strftime("%Y-%m-%d_%H-%M-%S")
    paths = []
    for name in names:
        found = record.backend(name)
        element = run_set(
            [r for r in rows if r.backend == name],
            name,
            found.version_text() if found else "?",
            time_limit,
            mem_limit_mb,
            started,
            options=found.options_text() if found else None,
            description=record.description(),
        )
        ET.indent(element)
        path = folder / file_name(name, stamp)
        text = ET.tostring(element, encoding="unicode")
        write_file(path, f'<?xml version="1.0" ?>\n{DOCTYPE}\n{text}\n')
        paths.append(path)
    return paths
