"""A run records itself (issue 52, item 1): every bench output carries the command line and every backend's
exact name, version and options, an external solver's command and its own version; ``--rerun`` runs the same
boards, backends and options again from any of those outputs; bad input to ``--rerun`` is one line, exit 2."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sigmar.runners import cli
from sigmar.runners.bench import external_solver, read_csv
from sigmar.runners.statistics.record import Record, RecordError, read_record
from tests.conftest import INSTANCES

SMALL = INSTANCES / "small.txt"
needs_cadical = pytest.mark.skipif(
    shutil.which("cadical") is None, reason="no 'cadical' on PATH: install.sh installs Debian's package"
)
TABLE_GENERATOR = "import sys; from benchexec.tablegenerator import main; sys.exit(main(sys.argv))"


def bench_outputs(tmp_path: Path, capsys, *argv: str) -> dict[str, Path]:
    """A bench writing every output, its --json lines kept as a file too."""
    out = {
        "csv": tmp_path / "b.csv",
        "html": tmp_path / "b.html",
        "xml": tmp_path / "xml",
        "json": tmp_path / "b.jsonl",
    }
    code = cli.main(
        ["bench", *argv, "-o", str(out["csv"]), "--html", str(out["html"]), "--xml", str(out["xml"]), "--json"]
    )
    assert code == 0
    out["json"].write_text(capsys.readouterr().out)
    return out


def same_run(a: Record, b: Record) -> None:
    """Two records of the same boards, backends and options."""
    assert [(f.path, f.sha256, f.boards) for f in a.files] == [(f.path, f.sha256, f.boards) for f in b.files]
    assert [(x.name, x.exact, x.options, x.sat_cmd) for x in a.backends] == [
        (x.name, x.exact, x.options, x.sat_cmd) for x in b.backends
    ]
    keys = ("time_limit", "jobs", "repeat", "family", "mem_limit", "board")
    assert {k: a.options[k] for k in keys} == {k: b.options[k] for k in keys}


def test_every_output_records_the_run_and_rerun_reads_each(fakes, board_file: Path, tmp_path: Path, capsys) -> None:
    argv = [str(board_file), "-b", "honest,honest:proof", "--time-limit", "7", "--repeat", "2"]
    out = bench_outputs(tmp_path, capsys, *argv)
    header = [line for line in out["csv"].read_text().splitlines() if line.startswith("#")]
    assert any(line.startswith("# command: sigmar bench ") and "--time-limit 7" in line for line in header)
    assert any(line.startswith("# backend honest: exact name honest:dfs; version fake-1") for line in header)
    first = json.loads(out["json"].read_text().splitlines()[0])
    assert first["record"]["format"] == "sigmar-bench-record" and "board" not in first
    assert "sigmar bench " in out["html"].read_text() and "How this was run" in out["html"].read_text()
    records = {kind: read_record(path) for kind, path in out.items()}
    for kind, record in records.items():
        same_run(records["csv"], record)
        assert record.argv[:1] == ["bench"] and "--time-limit" in record.argv, kind
        assert record.options["repeat"] == 2 and record.options["time_limit"] == 7
    # a rerun from each of them: the same boards, backends and options, recorded again
    for kind, path in out.items():
        again = tmp_path / f"again-{kind}.csv"
        assert cli.main(["bench", "--rerun", str(path), "-o", str(again), "--quiet"]) == 0, kind
        same_run(records["csv"], read_record(again))
        assert len(read_csv(again)) == len(read_csv(out["csv"])), kind


def test_rerun_finds_the_board_files_under_the_recorded_folder(
    fakes, board_file: Path, tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(board_file.parent)
    csv = tmp_path / "b.csv"
    assert cli.main(["bench", board_file.name, "-b", "honest", "-o", str(csv), "--quiet"]) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert cli.main(["bench", "--rerun", str(csv), "-o", "again.csv", "--quiet"]) == 0
    assert read_record(elsewhere / "again.csv").files[0].path == str(board_file)


def test_bad_input_to_rerun_is_one_line(fakes, board_file: Path, tmp_path: Path, capsys) -> None:
    csv = tmp_path / "b.csv"
    assert cli.main(["bench", str(board_file), "-b", "honest", "-o", str(csv), "--quiet"]) == 0
    not_a_record = tmp_path / "plain.csv"
    not_a_record.write_text("file,board\n")
    broken = tmp_path / "broken.csv"
    broken.write_text('# record: {"format": "sigmar-bench-record", "version": 1, "files": [}\n')
    wrong_kind = tmp_path / "other.json"
    wrong_kind.write_text('{"format": "something else"}')
    cases = [
        (["--rerun", str(not_a_record)], "no bench record in it"),
        (["--rerun", str(broken)], "not JSON"),
        (["--rerun", str(wrong_kind)], "not a sigmar bench record"),
        (["--rerun", str(tmp_path / "missing.csv")], "no such file"),
        (["--rerun", str(tmp_path)], "no bench record"),
        (["--rerun", str(csv), "-b", "honest:proof"], "takes the boards, backends and options from its record"),
        (["--rerun", str(csv), str(board_file)], "takes the boards, backends and options from its record"),
        ([], "give the board FILEs to bench, or --rerun RECORD"),
    ]
    for argv, words in cases:
        assert cli.main(["bench", *argv]) == 2, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0] and "Traceback" not in err[0], (argv, err)
    board_file.write_text(board_file.read_text() + "\n# one more\na a\n. . .\n . .\n")
    assert cli.main(["bench", "--rerun", str(csv)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "changed since the record" in err[0], err


def test_a_malformed_record_is_a_record_error() -> None:
    from sigmar.runners.statistics.record import from_json

    with pytest.raises(RecordError, match="malformed"):
        from_json({"format": "sigmar-bench-record", "version": 1, "files": [{"path": "x"}]}, "x")
    with pytest.raises(RecordError, match="version"):
        from_json({"format": "sigmar-bench-record", "version": 99}, "x")


# -- the external solver's own version


def fake_solver(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def test_an_external_solvers_version_comes_from_version_else_its_banner(tmp_path: Path) -> None:
    asked = fake_solver(tmp_path, "asked", 'if [ "$1" = --version ]; then echo "asked 2.4.1"; exit 0; fi; exit 1')
    assert external_solver(f"{asked} -q {{cnf}}")["version"] == "asked 2.4.1"
    banner = fake_solver(
        tmp_path,
        "banner",
        'if [ "$1" = --version ]; then echo "unknown option" >&2; exit 1; fi\n'
        'echo "c This is banner"; echo "c Version 7.0.3"; echo "s SATISFIABLE"; echo "v 1 0"; exit 10',
    )
    assert external_solver(str(banner))["version"] == "Version 7.0.3"
    mute = fake_solver(tmp_path, "mute", "exit 0")
    assert external_solver(str(mute))["version"] == "version unknown"


@needs_cadical
def test_a_bench_with_cadical_records_its_command_and_version_everywhere(tmp_path: Path, capsys) -> None:
    pytest.importorskip("benchexec.tablegenerator", reason="BenchExec (dev extra) is needed to read its own XML")
    command = "cadical -q {cnf} {proof}"
    out = bench_outputs(tmp_path, capsys, f"{SMALL}:3-5", "-b", "search", "--sat-cmd", command, "--time-limit", "20")
    own = external_solver(command)["version"]
    assert own != "version unknown"
    csv_text = out["csv"].read_text()
    assert f"--sat-cmd '{command}'" in csv_text and f"cadical {own}" in csv_text
    assert f"cadical {own}" in out["html"].read_text() and command in out["html"].read_text()
    (external,) = out["xml"].glob("*cnf_external*.xml")
    from xml.etree import ElementTree as ET

    root = ET.parse(external).getroot()  # the run set: the external solver's own version and its command
    assert root.get("version", "").startswith(f"cadical {own}") and "python-sat" not in root.get("version", "")
    assert f"--sat-cmd '{command}'" in root.get("options", "")
    assert (root.findtext("description") or "").startswith("command: sigmar bench ")
    tables = tmp_path / "tables"
    done = subprocess.run(
        [sys.executable, "-c", TABLE_GENERATOR, "-o", str(tables), *map(str, sorted(out["xml"].glob("*.xml")))],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    assert done.returncode == 0, done.stderr
    assert "cnf:external" in next(tables.glob("*.table.csv")).read_text()
    again = tmp_path / "again.csv"
    assert cli.main(["bench", "--rerun", str(out["xml"]), "-o", str(again), "--quiet"]) == 0
    same_run(read_record(out["csv"]), read_record(again))
    assert read_record(again).backend("cnf:external").sat_cmd == command  # type: ignore[union-attr]
