"""What a bench ran, recorded in every output it writes, so that the run can be read, cited and run again.

BenchExec records a run set's tool, version and options and can run a benchmark again from its definition;
a bench here records the same, and more, in one JSON object, the *record*:

- the full command line (``command``, as given, and ``argv``), the working folder, sigmar's version;
- each board file argument as given, the file it names, its SHA-256 and the names of the boards it gave;
- every backend: the name as asked (``cnf``), its exact name (``cnf:glucose42``), its family's version and its
  options with their values; for ``cnf:external`` the ``--sat-cmd`` command, the program it found and that
  program's own version (its ``--version``, else its banner; and its Debian package where it has one);
- the time limit, jobs, repetitions, families, memory limit and cluster; the machine and its load.

The CSV carries it in its header (``# record: {...}``, after lines a person reads), ``--json`` as its first
line (``{"record": {...}}``), the HTML report in a ``<script type="application/json" id="sigmar-record">``
and each BenchExec XML file in its ``<description>``.  :func:`read_record` finds it in any of them, for
``sigmar bench --rerun``.  docs/formats.md#the-bench-record documents the keys; its JSON Schema ships with
the package (``schemas/bench-record.schema.json``).
"""

from __future__ import annotations

import html
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sigmar.models.errors import SigmarError

FORMAT = "sigmar-bench-record"
VERSION = 1
CSV_PREFIX = "# record: "
HTML_ID = "sigmar-record"
XML_PREFIX = "record: "


class RecordError(SigmarError):
    """A file that holds no bench record, or a malformed one: one line, exit 2."""


@dataclass(frozen=True)
class BackendRecord:
    """One backend as the bench ran it."""

    name: str  # as asked: cnf
    exact: str  # the exact name: cnf:glucose42
    family: str
    version: str  # the family's version (python-sat 1.9.dev24)
    options: dict[str, Any] = field(default_factory=dict)
    sat_cmd: str | None = None  # cnf:external only: the --sat-cmd command
    external: dict[str, str] | None = None  # cnf:external only: program, version (and package)

    def version_text(self) -> str:
        """The version a reader needs: an external solver's own, else the family's."""
        if self.external:
            found = self.external.get("version") or "version unknown"
            package = f", Debian package {self.external['package']}" if self.external.get("package") else ""
            return f"{Path(self.external.get('program', '?')).name} {found}{package}"
        return self.version

    def options_text(self) -> str:
        """The options as a command line would give them: ``--backend NAME`` (and ``--sat-cmd``), then the
        backend's own options with their values."""
        words = ["--backend", self.exact]
        if self.sat_cmd:
            words += ["--sat-cmd", self.sat_cmd]
        text = shlex.join(words)
        own = ", ".join(f"{k}={v!r}" for k, v in self.options.items() if k != "sat_cmd")
        return f"{text} ({own})" if own else text

    def line(self) -> str:
        """One line for the CSV's header."""
        text = f"backend {self.name}: exact name {self.exact}; version {self.version}; options {self.options_text()}"
        if self.external:
            text += f"; external solver {self.version_text()} ({self.external.get('program', '?')})"
        return text


@dataclass(frozen=True)
class FileRecord:
    """One board file argument: as given, the file, its digest and the boards it gave, in order."""

    argument: str
    path: str
    sha256: str
    boards: list[str]


@dataclass(frozen=True)
class Record:
    argv: list[str]  # the arguments after the program's name
    cwd: str
    sigmar: str
    started: str
    files: list[FileRecord]
    backends: list[BackendRecord]
    options: dict[str, Any]  # time_limit, jobs, repeat, family, mem_limit, cluster, board
    machine: str = ""
    load1: float | None = None

    @property
    def command(self) -> str:
        """The command line as a shell would run it again."""
        return shlex.join(["sigmar", *self.argv])

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "command": self.command,
            "argv": self.argv,
            "cwd": self.cwd,
            "sigmar": self.sigmar,
            "started": self.started,
            "machine": self.machine,
            "load1": self.load1,
            "options": self.options,
            "files": [vars(f) for f in self.files],
            "backends": [{k: v for k, v in vars(b).items() if v is not None} for b in self.backends],
        }

    def text(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"), ensure_ascii=True)

    def header_lines(self) -> list[str]:
        """The CSV header's lines: the command, each backend, then the record itself (one line of JSON)."""
        return [f"command: {self.command}", *(b.line() for b in self.backends)]

    def description(self) -> str:
        """A BenchExec ``<description>``: the command line, then the record."""
        return f"command: {self.command}\n{XML_PREFIX}{self.text()}"

    def html_script(self) -> str:
        """The record inside the HTML report, for ``--rerun REPORT``."""
        body = self.text().replace("</", "<\\/")  # never ends the script element early
        return f'<script type="application/json" id="{HTML_ID}">{body}</script>'

    def backend(self, name: str) -> BackendRecord | None:
        return next((b for b in self.backends if b.name == name), None)


def from_json(value: object, where: str) -> Record:
    """A :class:`Record` from its JSON, or a RecordError naming ``where`` and what is wrong."""
    if not isinstance(value, dict) or value.get("format") != FORMAT:
        raise RecordError(f"{where}: not a sigmar bench record (no 'format': '{FORMAT}')")
    if value.get("version") != VERSION:
        raise RecordError(f"{where}: a bench record of version {value.get('version')!r}; this sigmar reads {VERSION}")
    try:
        files = [
            FileRecord(str(f["argument"]), str(f["path"]), str(f["sha256"]), list(f["boards"])) for f in value["files"]
        ]
        backends = [
            BackendRecord(
                str(b["name"]),
                str(b["exact"]),
                str(b["family"]),
                str(b["version"]),
                dict(b.get("options", {})),
                b.get("sat_cmd"),
                b.get("external"),
            )
            for b in value["backends"]
        ]
        argv = [str(a) for a in value["argv"]]
        options = dict(value["options"])
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"{where}: a malformed bench record ({type(exc).__name__}: {exc})") from None
    if not files or not backends:
        raise RecordError(f"{where}: a bench record with no {'files' if not files else 'backends'}")
    return Record(
        argv,
        str(value.get("cwd", "")),
        str(value.get("sigmar", "")),
        str(value.get("started", "")),
        files,
        backends,
        options,
        str(value.get("machine", "")),
        value.get("load1"),
    )


def read_record(path: str | Path) -> Record:
    """The record in a bench output: its CSV, its ``--json`` lines, its HTML report, one of its BenchExec XML
    files (or a folder of them), or the record alone as JSON.  Anything else is a RecordError (one line)."""
    from sigmar.models import input_limits

    where = str(path)
    target = Path(path)
    if target.is_dir():
        found = sorted(target.glob("*.xml"))
        if not found:
            raise RecordError(f"{where}: a folder without BenchExec XML files, so no bench record")
        target = found[0]
    try:  # within the bench CSV's limit, whichever output it is
        text = input_limits.read_text(target, input_limits.BENCH_CSV)
    except input_limits.InputError as exc:
        raise RecordError(str(exc)) from None
    except OSError as exc:
        raise RecordError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    return from_json(_find(text, where), where)


def _find(text: str, where: str) -> object:
    """The record's JSON value inside ``text``, whichever output it is."""
    for line in text.splitlines():
        if line.startswith(CSV_PREFIX):
            return _json(line[len(CSV_PREFIX) :], where)
        if line.startswith('{"record"'):
            found = _json(line, where)
            return found.get("record") if isinstance(found, dict) else None
        if not line.startswith("#"):
            break
    script = re.search(rf'<script type="application/json" id="{HTML_ID}">(.*?)</script>', text, re.S)
    if script:
        return _json(script[1].replace("<\\/", "</"), where)
    described = re.search(r"<description>(.*?)</description>", text, re.S)
    if described:
        for line in html.unescape(described[1]).splitlines():
            if line.startswith(XML_PREFIX):
                return _json(line[len(XML_PREFIX) :], where)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return _json(stripped, where)
    raise RecordError(
        f"{where}: no bench record in it (give a bench's CSV, --json output, HTML report or BenchExec XML)"
    )


def _json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise RecordError(f"{where}: its bench record is not JSON ({exc})") from None
